//! Concave outlines made convex: a simple polygon split into few convex parts that cover it
//! exactly, by ear clipping and then Hertel–Mehlhorn merging (a diagonal is removed whenever the
//! two parts it separates make one convex part). The parts' vertices are the outline's own, so
//! nothing is rounded, and every decision (a corner's turn, a vertex inside a triangle, two edges
//! that meet) is an exact orientation test ([`orient`]): collinear vertices are collinear and
//! nothing else is, at every scale. The result is the same on every machine.

use super::polygon::{check_outline, cross, orient, segments_meet};
use super::{Polygon, PolygonError, MAX_VERTICES};

/// Most vertices of a concave outline. Splitting costs about `n * r` operations (`r` reflex
/// vertices), and the check that the outline does not cross itself compares edges whose x
/// ranges overlap.
pub const MAX_OUTLINE_VERTICES: usize = 8192;

/// The convex parts of the simple polygon `vertices` (either winding; convex outlines give one
/// part), each a counter-clockwise [`Polygon`] of the outline's own vertices; together they cover
/// the outline exactly and do not overlap. Vertices that lie exactly on the straight line through
/// their neighbours are dropped (they do not change the shape). Every corner of a part turns
/// left in exact arithmetic; one may turn by less than [`Polygon::new`] asks of a convex polygon
/// the user gives (a sine of 1e-12), as in a rotated copy of an outline with collinear vertices
/// that are not neighbours: such a part is convex, only not by that margin. The part count is
/// at most `2r + 1` for `r` reflex vertices (Hertel–Mehlhorn), and each part has at most
/// [`MAX_VERTICES`] vertices.
///
/// Refused, naming the input vertex or edge, as [`Polygon::new`] refuses: fewer than 3 or more
/// than [`MAX_OUTLINE_VERTICES`] vertices, a non-finite or out-of-range coordinate, a repeated
/// vertex, a size below [`MIN_SIZE`](super::MIN_SIZE), zero area, and an outline that crosses or touches itself
/// (a spike that doubles back on itself included).
pub fn decompose(vertices: &[[f64; 2]]) -> Result<Vec<Polygon>, PolygonError> {
    let n = vertices.len();
    let scale = check_outline(vertices, MAX_OUTLINE_VERTICES)?;
    let o = vertices[0];
    if let Some((first, second)) = first_crossing(vertices) {
        return Err(PolygonError::SelfIntersecting { first, second });
    }
    let area2: f64 = (1..n - 1).map(|i| cross(o, vertices[i], vertices[i + 1])).sum();
    if area2.abs() <= scale * scale * 1e-14 {
        return Err(PolygonError::ZeroArea);
    }
    // Counter-clockwise, straight vertices dropped; `outline[k]` is an input index.
    let mut outline: Vec<usize> = (0..n).collect();
    if area2 < 0.0 {
        outline.reverse();
    }
    let outline = drop_straight(vertices, outline);
    let points: Vec<[f64; 2]> = outline.iter().map(|&i| vertices[i]).collect();
    let triangles = clip_ears(&points).ok_or(PolygonError::Undecomposable)?;
    let parts = merge(&points, &triangles);
    // Each part is counter-clockwise and turns left at every corner, exactly (`merged`, and
    // `clip_ears` for the triangles).
    let polygons: Vec<Polygon> = parts
        .iter()
        .map(|part| Polygon::with_winding(part.iter().map(|&k| points[k]).collect(), 1.0, 0.0))
        .collect::<Result<_, _>>()
        .map_err(|_| PolygonError::Undecomposable)?;
    // The parts' areas add up to the outline's: a last check that nothing was lost.
    let total: f64 = polygons.iter().map(|p| area(p.vertices())).sum();
    if (total - area(&points)).abs() > 1e-9 * area(&points) {
        return Err(PolygonError::Undecomposable);
    }
    Ok(polygons)
}

/// The area of a counter-clockwise outline.
fn area(v: &[[f64; 2]]) -> f64 {
    let o = v[0];
    0.5 * (1..v.len() - 1).map(|i| cross(o, v[i], v[i + 1])).sum::<f64>()
}

/// Whether the corner `a -> b -> c` turns left (exactly).
fn turns_left(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    orient(a, b, c) > 0.0
}

/// The sign of `(b - a) . (c - b)` for three points on one line: positive when `b` lies between
/// `a` and `c`, negative when the path doubles back. On one line each coordinate runs one way,
/// so the rounded differences keep their signs and the sign is exact.
fn onward(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1])
}

/// Whether `b` lies on the straight line from `a` to `c`, between them (exactly).
fn straight(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    orient(a, b, c) == 0.0 && onward(a, b, c) > 0.0
}

/// `outline` without its straight vertices (repeatedly: dropping one may straighten another).
fn drop_straight(v: &[[f64; 2]], mut outline: Vec<usize>) -> Vec<usize> {
    loop {
        let m = outline.len();
        let keep: Vec<usize> = (0..m)
            .filter(|&k| m <= 3 || !straight(v[outline[(k + m - 1) % m]], v[outline[k]], v[outline[(k + 1) % m]]))
            .map(|k| outline[k])
            .collect();
        if keep.len() == m || keep.len() < 3 {
            return outline;
        }
        outline = keep;
    }
}

/// The first pair of non-adjacent edges (edge k from vertex k to the next) that cross or touch,
/// by index, or two adjacent edges that overlap (a spike doubling back). Edges are compared
/// only where their x ranges overlap.
fn first_crossing(v: &[[f64; 2]]) -> Option<(usize, usize)> {
    let n = v.len();
    let edge = |k: usize| (v[k], v[(k + 1) % n]);
    let mut first: Option<(usize, usize)> = None;
    let mut found = |i: usize, j: usize| {
        let pair = (i.min(j), i.max(j));
        if first.is_none_or(|f| pair < f) {
            first = Some(pair);
        }
    };
    for k in 0..n {
        // Adjacent edges k - 1 and k meet at vertex k; they overlap when they double back.
        let (a, b, c) = (v[(k + n - 1) % n], v[k], v[(k + 1) % n]);
        if orient(a, b, c) == 0.0 && onward(a, b, c) < 0.0 {
            found((k + n - 1) % n, k);
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    let x_min = |k: usize| v[k][0].min(v[(k + 1) % n][0]);
    let x_max = |k: usize| v[k][0].max(v[(k + 1) % n][0]);
    order.sort_by(|&p, &q| x_min(p).total_cmp(&x_min(q)).then(p.cmp(&q)));
    for (s, &i) in order.iter().enumerate() {
        for &j in &order[s + 1..] {
            if x_min(j) > x_max(i) {
                break;
            }
            let adjacent = (i + 1) % n == j || (j + 1) % n == i;
            if !adjacent && segments_meet(edge(i), edge(j)) {
                found(i, j);
            }
        }
    }
    first
}

/// The triangles of a simple counter-clockwise outline without straight vertices, as index
/// triples (counter-clockwise), in the order they were cut; `None` if no ear is found, which
/// exact tests rule out for a simple outline (two ears theorem).
fn clip_ears(p: &[[f64; 2]]) -> Option<Vec<[usize; 3]>> {
    let m = p.len();
    let mut next: Vec<usize> = (0..m).map(|k| (k + 1) % m).collect();
    let mut prev: Vec<usize> = (0..m).map(|k| (k + m - 1) % m).collect();
    let convex = |a: usize, b: usize, c: usize| turns_left(p[a], p[b], p[c]);
    // Vertices that are not strictly convex block ears; clipping only ever makes one convex.
    let mut blocking: Vec<bool> = (0..m).map(|k| !convex(prev[k], k, next[k])).collect();
    let mut blockers: Vec<usize> = (0..m).filter(|&k| blocking[k]).collect();
    let is_ear = |k: usize, prev: &[usize], next: &[usize], blocking: &[bool], blockers: &[usize]| {
        let (a, c) = (prev[k], next[k]);
        if blocking[k] {
            return false;
        }
        let (pa, pb, pc) = (p[a], p[k], p[c]);
        !blockers.iter().any(|&r| {
            blocking[r]
                && r != a
                && r != c
                && r != k
                && orient(pa, pb, p[r]) >= 0.0
                && orient(pb, pc, p[r]) >= 0.0
                && orient(pc, pa, p[r]) >= 0.0
        })
    };
    let mut ear: Vec<bool> = (0..m).map(|k| is_ear(k, &prev, &next, &blocking, &blockers)).collect();
    let mut triangles = Vec::with_capacity(m - 2);
    let (mut k, mut remaining, mut since_cut) = (0, m, 0);
    while remaining > 3 {
        if !ear[k] {
            k = next[k];
            since_cut += 1;
            if since_cut > remaining {
                // No ear: a vertex that clipping left straight blocks them. It lies on the
                // segment between its neighbours, so it leaves without a triangle.
                let s = (0..remaining)
                    .scan(k, |j, _| {
                        let here = *j;
                        *j = next[here];
                        Some(here)
                    })
                    .find(|&j| straight(p[prev[j]], p[j], p[next[j]]))?;
                let (a, c) = (prev[s], next[s]);
                next[a] = c;
                prev[c] = a;
                blocking[s] = false;
                remaining -= 1;
                for j in [a, c] {
                    blocking[j] = !convex(prev[j], j, next[j]);
                }
                for j in [a, c] {
                    ear[j] = is_ear(j, &prev, &next, &blocking, &blockers);
                }
                (k, since_cut) = (c, 0);
            }
            continue;
        }
        let (a, c) = (prev[k], next[k]);
        triangles.push([a, k, c]);
        next[a] = c;
        prev[c] = a;
        remaining -= 1;
        since_cut = 0;
        for j in [a, c] {
            if blocking[j] && convex(prev[j], j, next[j]) {
                blocking[j] = false;
            }
        }
        if blockers.len() > 64 && blockers.iter().filter(|&&r| blocking[r]).count() * 2 < blockers.len() {
            blockers.retain(|&r| blocking[r]);
        }
        blocking[k] = false;
        for j in [a, c] {
            ear[j] = is_ear(j, &prev, &next, &blocking, &blockers);
        }
        ear[k] = false;
        k = c;
    }
    let (a, c) = (prev[k], next[k]);
    if convex(a, k, c) {
        triangles.push([a, k, c]);
    } else if !straight(p[a], p[k], p[c]) && !straight(p[k], p[c], p[a]) && !straight(p[c], p[a], p[k]) {
        // A last triangle turned the wrong way: the ears were misjudged.
        return None;
    }
    Some(triangles)
}

/// Hertel–Mehlhorn: the triangles merged across every diagonal (in the order they were cut)
/// whose removal leaves a convex part of at most [`MAX_VERTICES`] vertices. Parts are
/// counter-clockwise index cycles, in the order of their first triangle.
fn merge(p: &[[f64; 2]], triangles: &[[usize; 3]]) -> Vec<Vec<usize>> {
    let m = p.len();
    let mut parts: Vec<Option<Vec<usize>>> = triangles.iter().map(|t| Some(t.to_vec())).collect();
    let mut root: Vec<usize> = (0..triangles.len()).collect();
    fn find(root: &mut [usize], mut t: usize) -> usize {
        while root[t] != t {
            root[t] = root[root[t]];
            t = root[t];
        }
        t
    }
    // Each diagonal (a triangle edge that is not an outline edge) with its two triangles.
    let mut edges: std::collections::HashMap<(usize, usize), usize> = std::collections::HashMap::new();
    let mut diagonals = vec![];
    for (t, tri) in triangles.iter().enumerate() {
        for e in 0..3 {
            let (a, b) = (tri[e], tri[(e + 1) % 3]);
            if (a + 1) % m == b || (b + 1) % m == a {
                continue;
            }
            match edges.remove(&(a.min(b), a.max(b))) {
                Some(other) => diagonals.push((other, t, a, b)),
                None => {
                    edges.insert((a.min(b), a.max(b)), t);
                }
            }
        }
    }
    diagonals.sort_unstable();
    for (t1, t2, a, b) in diagonals {
        let (r1, r2) = (find(&mut root, t1), find(&mut root, t2));
        if r1 == r2 {
            continue;
        }
        let (Some(first), Some(second)) = (parts[r1].as_ref(), parts[r2].as_ref()) else { continue };
        if let Some(merged) = merged(p, first, second, a, b) {
            parts[r1] = Some(merged);
            parts[r2] = None;
            root[r2] = r1;
        }
    }
    parts.into_iter().flatten().collect()
}

/// Parts `first` and `second` (counter-clockwise cycles sharing the edge between `a` and `b`)
/// as one cycle, if it is convex at both ends of the shared edge and small enough.
fn merged(p: &[[f64; 2]], first: &[usize], second: &[usize], a: usize, b: usize) -> Option<Vec<usize>> {
    if first.len() + second.len() - 2 > MAX_VERTICES {
        return None;
    }
    // `first` runs u -> w along the shared edge, `second` w -> u. `w` becomes cycle[0], `u`
    // cycle[n1 - 1].
    let at = |cycle: &[usize], x: usize, y: usize| {
        let n = cycle.len();
        (0..n).find(|&k| cycle[k] == x && cycle[(k + 1) % n] == y)
    };
    let (u, w, k1) = match at(first, a, b) {
        Some(k) => (a, b, k),
        None => (b, a, at(first, b, a)?),
    };
    let k2 = at(second, w, u)?;
    // first from w round to u, then second's vertices strictly between u and w.
    let (n1, n2) = (first.len(), second.len());
    let mut cycle: Vec<usize> = (1..=n1).map(|s| first[(k1 + s) % n1]).collect();
    cycle.extend((2..n2).map(|s| second[(k2 + s) % n2]));
    // A corner at either end of the removed diagonal must turn left, or go straight on (its
    // vertex then leaves the part: it lies on the segment between its neighbours).
    let around = |cycle: &[usize], k: usize| {
        let n = cycle.len();
        (p[cycle[(k + n - 1) % n]], p[cycle[k]], p[cycle[(k + 1) % n]])
    };
    let mut straight_ends = vec![];
    for k in [n1 - 1, 0] {
        let (a, b, c) = around(&cycle, k);
        if straight(a, b, c) {
            straight_ends.push(k);
        } else if !turns_left(a, b, c) {
            return None;
        }
    }
    for k in straight_ends {
        cycle.remove(k);
    }
    let n = cycle.len();
    (0..n)
        .all(|k| {
            let (a, b, c) = around(&cycle, k);
            turns_left(a, b, c)
        })
        .then_some(cycle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square_with_notch() -> Vec<[f64; 2]> {
        vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 2.0], [0.0, 4.0]]
    }

    #[test]
    fn a_notched_square_is_two_parts_and_a_convex_outline_one() {
        let parts = decompose(&square_with_notch()).unwrap();
        assert_eq!(parts.len(), 2);
        let total: f64 = parts.iter().map(|p| area(p.vertices())).sum();
        assert_eq!(total, 12.0);
        let square = decompose(&[[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]).unwrap();
        assert_eq!(square.len(), 1);
        assert_eq!((square[0].vertices().len(), area(square[0].vertices())), (4, 1.0));
    }

    #[test]
    fn bad_outlines_are_refused_by_name() {
        let bowtie = [[0.0, 0.0], [2.0, 2.0], [2.0, 0.0], [0.0, 2.0]];
        assert_eq!(decompose(&bowtie), Err(PolygonError::SelfIntersecting { first: 0, second: 2 }));
        let spike = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [1.0, 2.0], [1.0, 5.0], [1.0, 2.0 + 1e-3], [0.0, 2.0]];
        assert!(matches!(decompose(&spike), Err(PolygonError::SelfIntersecting { .. })), "{:?}", decompose(&spike));
        let line = [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]];
        assert!(matches!(decompose(&line), Err(PolygonError::SelfIntersecting { .. } | PolygonError::ZeroArea)));
        assert!(matches!(decompose(&[[0.0, 0.0], [1.0, 0.0]]), Err(PolygonError::TooFewVertices { count: 2 })));
        let repeated = [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
        assert!(matches!(decompose(&repeated), Err(PolygonError::DuplicateVertex { vertex: 2, .. })));
        let touching = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 0.0], [0.0, 4.0]];
        assert!(matches!(decompose(&touching), Err(PolygonError::SelfIntersecting { .. })));
    }
}
