//! Candidates in a periodic box (issue 65), from the definition: a shape of body `a` and the
//! image of a shape of body `b` moved by whole box sizes `n`, wherever their boxes, grown by the
//! margin, overlap.
//!
//! Every body is first moved by whole boxes so that its box's lower corner lies in the periodic
//! box; then every shape's box is laid down again at each whole box either side along each
//! wrapping axis (9 copies on a torus), and the plain sort and sweep finds the copies that
//! overlap. Each body's box is narrower than half the box (the World checks it), so two bodies
//! moved into the box can only meet across at most one box: the copies hold every image that
//! overlaps. The same image pair is met once per copy of both and is kept once.

use std::borrow::Cow;

use super::overlapping_boxes;
use crate::geometry::{Aabb, Periodic, Polygon, Transform};

/// `p` moved by `n` whole boxes of `periodic` (exact where `n * size` and the sums are): `p`
/// itself where `n` is none.
pub(super) fn image<'a>(p: &'a Polygon, n: [f64; 2], periodic: Option<&Periodic>) -> Cow<'a, Polygon> {
    match periodic {
        Some(periodic) if n != [0.0; 2] => {
            let size = periodic.size();
            Cow::Owned(p.transformed(&Transform { x: n[0] * size[0], y: n[1] * size[1], angle: 0.0 }))
        }
        _ => Cow::Borrowed(p),
    }
}

/// The box of a body's shapes.
pub(super) fn aabb(shapes: &[Polygon]) -> Aabb {
    shapes.iter().map(Polygon::aabb).reduce(|a, b| a.union(&b)).expect("a body has a shape")
}

/// Box `b` moved by `by`, grown outward by a few of f64's roundings where it moved, so that
/// every image pair whose exact boxes touch stays a candidate (its shapes then decide).
fn moved(b: Aabb, by: [f64; 2]) -> Aabb {
    let pad = |k: usize| match by[k] {
        0.0 => 0.0,
        d => 8.0 * f64::EPSILON * (b.min[k].abs().max(b.max[k].abs()) + d.abs()),
    };
    let (px, py) = (pad(0), pad(1));
    Aabb { min: [b.min[0] + by[0] - px, b.min[1] + by[1] - py], max: [b.max[0] + by[0] + px, b.max[1] + by[1] + py] }
}

/// Every `(pa, pb, n)`, `pa < pb` shapes of different bodies (`body[pa] != body[pb]`), such that
/// `pb`'s image moved by `n` whole boxes and `pa` have boxes at most `2 * margin` apart along
/// each axis, sorted.
pub(super) fn candidates(
    shapes: &[&Polygon],
    body: &[u32],
    periodic: &Periodic,
    margin: f64,
) -> Vec<(u32, u32, [f64; 2])> {
    let size = periodic.size();
    // The whole boxes that move each body's lower corner into the periodic box.
    let mut corner: Vec<[f64; 2]> = vec![];
    for (s, p) in shapes.iter().enumerate() {
        let b = p.aabb();
        match corner.get_mut(body[s] as usize) {
            Some(c) => *c = [c[0].min(b.min[0]), c[1].min(b.min[1])],
            None => corner.push(b.min),
        }
    }
    let cell: Vec<[f64; 2]> = corner.iter().map(|&c| periodic.cell_shift(c)).collect();
    let steps = |k: usize| if periodic.wraps()[k] { vec![-1.0, 0.0, 1.0] } else { vec![0.0] };
    // Every shape's box at every copy: (shape, whole boxes from where it was given).
    let mut copies: Vec<(u32, [f64; 2])> = vec![];
    let mut boxes = vec![];
    for (s, p) in shapes.iter().enumerate() {
        let c = cell[body[s] as usize];
        for gx in steps(0) {
            for gy in steps(1) {
                let n = [c[0] + gx, c[1] + gy];
                copies.push((s as u32, n));
                boxes.push(moved(p.aabb(), [n[0] * size[0], n[1] * size[1]]));
            }
        }
    }
    let mut found: Vec<(u32, u32, [f64; 2])> = overlapping_boxes(boxes, margin)
        .into_iter()
        .filter_map(|(i, j)| {
            let ((si, ni), (sj, nj)) = (copies[i as usize], copies[j as usize]);
            if body[si as usize] == body[sj as usize] {
                return None;
            }
            // The image of the later shape, in boxes, relative to the earlier as it was given.
            let (pa, na, pb, nb) = if si < sj { (si, ni, sj, nj) } else { (sj, nj, si, ni) };
            Some((pa, pb, [nb[0] - na[0], nb[1] - na[1]]))
        })
        .collect();
    found.sort_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)).then(x.2[0].total_cmp(&y.2[0])).then(x.2[1].total_cmp(&y.2[1])));
    found.dedup();
    found
}
