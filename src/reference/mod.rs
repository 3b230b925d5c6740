//! The CPU reference: collision detection in `f64`, written straight from the separating axis
//! theorem so that it can judge the GPU.
//!
//! Two convex polygons are disjoint exactly when some edge normal of one of them separates
//! their projections (the separating axis theorem). Polygons are closed sets, so projections
//! that merely touch still overlap: touching edges and corners collide with depth 0.
//!
//! Rounded shapes (circles, capsules, rounded polygons: a convex core plus a radius, see
//! [`Polygon`]) follow the same contract on their cores: where the cores meet, the depth is the
//! cores' SAT depth plus `r_a + r_b`; where they are apart, it is `r_a + r_b` minus the distance
//! between the cores, along the line between their closest points, found here by brute force over
//! every vertex and edge.
//!
//! Neighbours within a margin ([`WorldOptions::margin`](crate::gpu::WorldOptions::margin),
//! [`signed_distance`]): every pair at most a
//! distance apart, with its signed distance (minus the MTV depth where the shapes collide, the
//! distance between the closed shapes where they are apart).
//!
//! Everything here is deliberately plain loops with no shared state and no tolerances, so that
//! a disagreement with the GPU points at the GPU. The only speed concession is the sort-and-sweep
//! broad phase, which keeps 100,000 polygons well under a second.

pub mod cfsm;
mod detect;
mod events;
mod manifold;
mod neighbours;
mod periodic;
mod proximity;
mod queries;
mod sweep;

pub use detect::{detect, Detection};
pub use events::contact_events;
pub use manifold::{
    contained, contained_with_slack, distance_to_shape, manifold, manifold_alternatives, manifold_alternatives_within,
    manifold_within, ALIGNED,
};
pub use neighbours::neighbours;
pub use proximity::signed_distance;
pub use queries::{
    cast_rays, cast_rays_periodic, cast_shapes, cast_shapes_periodic, query_boxes, query_boxes_periodic, query_points,
    query_points_periodic, ray_shape,
};
pub use sweep::{sweep, sweep_periodic, TOUCH};

use crate::geometry::{Aabb, Polygon};

/// Unnormalised outward normal `(e.y, -e.x)` of edge `i` (from vertex `i` to vertex `i + 1`).
///
/// Kept unnormalised on purpose: with integer coordinates every projection onto it is an exact
/// integer in `f64`, so touching polygons are judged without rounding.
fn raw_normal(p: &Polygon, i: usize) -> [f64; 2] {
    let v = p.vertices();
    let a = v[i];
    let b = v[(i + 1) % v.len()];
    [b[1] - a[1], a[0] - b[0]]
}

/// The closed interval `[min, max]` of `p`'s vertices projected onto `axis`.
fn project(p: &Polygon, axis: [f64; 2]) -> (f64, f64) {
    let mut min = f64::INFINITY;
    let mut max = f64::NEG_INFINITY;
    for v in p.vertices() {
        let d = v[0] * axis[0] + v[1] * axis[1];
        min = min.min(d);
        max = max.max(d);
    }
    (min, max)
}

/// Every candidate axis of the pair: the unnormalised edge normals of `a`, then those of `b`
/// (a circle's one-point core has no edge and adds none).
fn axes(a: &Polygon, b: &Polygon) -> Vec<[f64; 2]> {
    let mut out = Vec::with_capacity(a.vertices().len() + b.vertices().len());
    for p in [a, b] {
        if p.vertices().len() > 1 {
            for i in 0..p.vertices().len() {
                out.push(raw_normal(p, i));
            }
        }
    }
    out
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

/// The core's edges as segments: none for a point, one for a capsule's segment, every edge of a
/// polygon.
fn edges(p: &Polygon) -> Vec<([f64; 2], [f64; 2])> {
    let v = p.vertices();
    match v.len() {
        1 => vec![],
        2 => vec![(v[0], v[1])],
        n => (0..n).map(|i| (v[i], v[(i + 1) % n])).collect(),
    }
}

/// Whether point `p` lies in the closed core of `q`: equal to a point, on a segment, inside or on
/// a counter-clockwise polygon. Exact for integer coordinates.
fn core_contains(q: &Polygon, p: [f64; 2]) -> bool {
    let v = q.vertices();
    match v.len() {
        1 => v[0] == p,
        2 => on_segment(p, v[0], v[1]),
        n => (0..n).all(|i| cross(sub(v[(i + 1) % n], v[i]), sub(p, v[i])) >= 0.0),
    }
}

/// Whether `p` lies on the closed segment `[u, v]`.
fn on_segment(p: [f64; 2], u: [f64; 2], v: [f64; 2]) -> bool {
    cross(sub(v, u), sub(p, u)) == 0.0
        && p[0] >= u[0].min(v[0])
        && p[0] <= u[0].max(v[0])
        && p[1] >= u[1].min(v[1])
        && p[1] <= u[1].max(v[1])
}

/// Whether the closed segments `[p, q]` and `[u, v]` share a point.
fn segments_meet(p: [f64; 2], q: [f64; 2], u: [f64; 2], v: [f64; 2]) -> bool {
    let d1 = cross(sub(q, p), sub(u, p));
    let d2 = cross(sub(q, p), sub(v, p));
    let d3 = cross(sub(v, u), sub(p, u));
    let d4 = cross(sub(v, u), sub(q, u));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)) {
        return true;
    }
    on_segment(u, p, q) || on_segment(v, p, q) || on_segment(p, u, v) || on_segment(q, u, v)
}

/// Whether the two closed convex cores share a point: two convex sets meet exactly when one
/// contains a vertex of the other or an edge of one crosses an edge of the other. Polygon cores
/// use the separating axis test of [`colliding_cores`], which decides the same question.
fn cores_meet(a: &Polygon, b: &Polygon) -> bool {
    if a.vertices().len() >= 3 && b.vertices().len() >= 3 {
        return colliding_cores(a, b);
    }
    a.vertices().iter().any(|&p| core_contains(b, p))
        || b.vertices().iter().any(|&p| core_contains(a, p))
        || edges(a).iter().any(|&(p, q)| edges(b).iter().any(|&(u, v)| segments_meet(p, q, u, v)))
}

/// The closest point to `p` on the closed segment `[u, v]`.
fn closest_on_segment(p: [f64; 2], u: [f64; 2], v: [f64; 2]) -> [f64; 2] {
    let e = sub(v, u);
    let ee = dot(e, e);
    let t = if ee == 0.0 { 0.0 } else { (dot(sub(p, u), e) / ee).clamp(0.0, 1.0) };
    [u[0] + t * e[0], u[1] + t * e[1]]
}

/// Whether `p` lies within distance `r` of the closed segment `[u, v]`, decided on squared
/// quantities so that it is exact for integer coordinates and radii.
fn within(p: [f64; 2], u: [f64; 2], v: [f64; 2], r: f64) -> bool {
    let e = sub(v, u);
    let w = sub(p, u);
    let ee = dot(e, e);
    let t = dot(w, e);
    if ee == 0.0 || t <= 0.0 {
        dot(w, w) <= r * r
    } else if t >= ee {
        let w = sub(p, v);
        dot(w, w) <= r * r
    } else {
        let c = cross(e, w);
        c * c <= r * r * ee
    }
}

/// A vertex of one core against a segment of the other: (point, segment start, segment end,
/// whether the point belongs to `a`).
type VertexSegment = ([f64; 2], [f64; 2], [f64; 2], bool);

/// Every (vertex of one core, segment of the other) pair. A point core's segment is the point
/// itself.
fn vertex_segment_pairs(a: &Polygon, b: &Polygon) -> Vec<VertexSegment> {
    let segments = |p: &Polygon| {
        let e = edges(p);
        if e.is_empty() {
            vec![(p.vertices()[0], p.vertices()[0])]
        } else {
            e
        }
    };
    let mut out = vec![];
    for (from, to, from_a) in [(a, b, true), (b, a, false)] {
        for &p in from.vertices() {
            for (u, v) in segments(to) {
                out.push((p, u, v, from_a));
            }
        }
    }
    out
}

/// The closest points of two disjoint cores, `(on a, on b, distance)`, by brute force over
/// every vertex of one against every edge of the other.
fn closest_points(a: &Polygon, b: &Polygon) -> ([f64; 2], [f64; 2], f64) {
    let mut best = ([0.0; 2], [0.0; 2], f64::INFINITY);
    for (p, u, v, from_a) in vertex_segment_pairs(a, b) {
        let q = closest_on_segment(p, u, v);
        let d = sub(q, p)[0].hypot(sub(q, p)[1]);
        if d < best.2 {
            best = if from_a { (p, q, d) } else { (q, p, d) };
        }
    }
    best
}

/// All pairs `(a, b)`, `a < b`, whose closed bounding boxes overlap (touching boxes count),
/// sorted by `(a, b)`.
///
/// Sort-and-sweep on x: after sorting by the boxes' left edges, box `j` can only overlap an
/// earlier box `i` if it starts before `i` ends, so each box only scans forward while that
/// holds. This is exact (no pair is missed) and keeps the reference fast enough for benchmark
/// sized scenes.
pub fn broad_phase(polygons: &[Polygon]) -> Vec<(u32, u32)> {
    broad_phase_inflated(polygons, 0.0)
}

/// [`broad_phase`] on boxes grown by `margin` on every side: a superset of the pairs at most
/// `margin` apart (each box grows by the whole margin, so rounding cannot lose a pair).
fn broad_phase_inflated<'a>(polygons: impl IntoIterator<Item = &'a Polygon>, margin: f64) -> Vec<(u32, u32)> {
    overlapping_boxes(polygons.into_iter().map(Polygon::aabb), margin)
}

/// All pairs `(i, j)`, `i < j`, of `boxes` that overlap when each is grown by `margin`, sorted.
fn overlapping_boxes(boxes: impl IntoIterator<Item = Aabb>, margin: f64) -> Vec<(u32, u32)> {
    // The boxes, sorted by left edge, kept contiguous with their index so the sweep reads
    // memory in order.
    let grow = |b: Aabb| match margin {
        0.0 => b,
        m => Aabb { min: [b.min[0] - m, b.min[1] - m], max: [b.max[0] + m, b.max[1] + m] },
    };
    let mut boxes: Vec<(Aabb, u32)> = boxes.into_iter().enumerate().map(|(i, b)| (grow(b), i as u32)).collect();
    boxes.sort_by(|(a, i), (b, j)| a.min[0].total_cmp(&b.min[0]).then(i.cmp(j)));
    let mut pairs = Vec::new();
    for (k, (bi, i)) in boxes.iter().enumerate() {
        for (bj, j) in &boxes[k + 1..] {
            if bj.min[0] > bi.max[0] {
                break;
            }
            if bi.overlaps(bj) {
                pairs.push((*i.min(j), *i.max(j)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// Whether the two closed shapes share at least one point: their cores meet, or some vertex of
/// one core lies within `r_a + r_b` of the other core.
///
/// Decided on unnormalised edge normals and squared distances, so that scenes with small integer
/// coordinates and radii (where shapes touch exactly) are decided without any rounding error.
pub fn colliding(a: &Polygon, b: &Polygon) -> bool {
    verdict(a, b).is_some()
}

/// `None` if the shapes are apart, else whether their cores meet (see [`colliding`]).
fn verdict(a: &Polygon, b: &Polygon) -> Option<bool> {
    // Shapes whose closed boxes do not even touch are apart; this only saves the brute force.
    if !a.aabb().overlaps(&b.aabb()) {
        return None;
    }
    if cores_meet(a, b) {
        return Some(true);
    }
    let r = a.radius() + b.radius();
    (r > 0.0 && vertex_segment_pairs(a, b).into_iter().any(|(p, u, v, _)| within(p, u, v, r))).then_some(false)
}

/// The separating axis test on two polygon cores (3 or more vertices each).
fn colliding_cores(a: &Polygon, b: &Polygon) -> bool {
    axes(a, b).into_iter().all(|axis| {
        let (min_a, max_a) = project(a, axis);
        let (min_b, max_b) = project(b, axis);
        max_a >= min_b && max_b >= min_a
    })
}

/// The least penetration over every edge normal of both polygons, as
/// `(unit normal from a to b, signed penetration)`. Positive penetration means overlap.
///
/// The penetration is computed on the unnormalised normal and divided by its length
/// afterwards: the same quantity as projecting on the unit normal, but exact (and exactly 0 for
/// touching polygons) when the coordinates are small integers.
///
/// Two point cores have no axis; their least penetration is 0 along `(1, 0)` by convention.
fn least_penetration(a: &Polygon, b: &Polygon) -> ([f64; 2], f64) {
    if a.vertices().len() == 1 && b.vertices().len() == 1 {
        return ([1.0, 0.0], 0.0);
    }
    let mut best = ([0.0, 0.0], f64::INFINITY);
    for axis in axes(a, b) {
        let len = axis[0].hypot(axis[1]);
        let (min_a, max_a) = project(a, axis);
        let (min_b, max_b) = project(b, axis);
        // Moving b along +axis by `plus` separates; moving it along -axis by `minus` does too.
        let plus = (max_a - min_b) / len;
        let minus = (max_b - min_a) / len;
        let unit = [axis[0] / len, axis[1] / len];
        let (dir, pen) = if plus <= minus { (unit, plus) } else { ([-unit[0], -unit[1]], minus) };
        if pen < best.1 {
            best = (dir, pen);
        }
    }
    best
}

/// The minimum translation vector of a colliding pair: `Some((normal, depth))` where `normal`
/// is a unit vector pointing from `a` to `b` and moving `b` by `depth * normal` (depth >= 0)
/// leaves the two touching; `None` if they do not collide.
///
/// The verdict comes from [`colliding`], so `contact` and `colliding` never disagree; the depth
/// is clamped at 0 so that float rounding on a touching pair cannot make it negative.
///
/// Rounded shapes: where the cores meet, the cores' least penetration plus `r_a + r_b` along the
/// same normal; where they are apart, `r_a + r_b - distance` along the line from a's closest
/// point to b's.
pub fn contact(a: &Polygon, b: &Polygon) -> Option<([f64; 2], f64)> {
    let meet = verdict(a, b)?;
    let r = a.radius() + b.radius();
    let (normal, depth) = if meet {
        let (normal, depth) = least_penetration(a, b);
        (normal, depth + r)
    } else {
        let (pa, pb, d) = closest_points(a, b);
        let n = sub(pb, pa);
        ([n[0] / d, n[1] / d], r - d)
    };
    // `+ 0.0` turns -0.0 into 0.0, so output files never show "-0".
    Some(([normal[0] + 0.0, normal[1] + 0.0], depth.max(0.0)))
}

/// The signed separation of the pair. For two polygons it is the SAT separation over the unit
/// edge normals of both: the largest gap between their projections on any axis. With a circle or
/// a capsule or a radius in the pair it is the distance between the cores minus `r_a + r_b`
/// where the cores are apart, and minus the depth of [`contact`] where they meet.
///
/// Positive means the shapes are apart by at least that distance; zero or negative means they
/// collide and the value is minus the MTV depth. Tests use it to tell "clearly colliding" and
/// "clearly apart" from pairs inside a float tolerance band.
pub fn separation(a: &Polygon, b: &Polygon) -> f64 {
    let r = a.radius() + b.radius();
    let polygons = a.vertices().len() >= 3 && b.vertices().len() >= 3;
    if (polygons && r == 0.0) || cores_meet(a, b) {
        -least_penetration(a, b).1 - r
    } else {
        closest_points(a, b).2 - r
    }
}

/// How far `b` must move along the unit vector `normal` to stop overlapping `a`:
/// `max over a of (v . normal) - min over b of (v . normal)`, plus `r_a + r_b`.
///
/// Lets a test check a normal and depth reported by the GPU even when it picked a different
/// (equally good) axis than [`contact`].
pub fn penetration_along(a: &Polygon, b: &Polygon, normal: [f64; 2]) -> f64 {
    let (_, max_a) = project(a, normal);
    let (min_b, _) = project(b, normal);
    max_a - min_b + a.radius() + b.radius()
}
