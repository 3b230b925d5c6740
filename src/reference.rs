//! The CPU reference: collision detection in `f64`, written straight from the separating axis
//! theorem so that it can judge the GPU.
//!
//! Two convex polygons are disjoint exactly when some edge normal of one of them separates
//! their projections (the separating axis theorem). Polygons are closed sets, so projections
//! that merely touch still overlap: touching edges and corners collide with depth 0.
//!
//! Everything here is deliberately plain loops with no shared state and no tolerances, so that
//! a disagreement with the GPU points at the GPU. The only speed concession is the sort-and-sweep
//! broad phase, which keeps 100,000 polygons well under a second.

use crate::geometry::{Aabb, Contact, Polygon};

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

/// Every candidate axis of the pair: the unnormalised edge normals of `a`, then those of `b`.
fn axes(a: &Polygon, b: &Polygon) -> Vec<[f64; 2]> {
    let mut out = Vec::with_capacity(a.vertices().len() + b.vertices().len());
    for p in [a, b] {
        for i in 0..p.vertices().len() {
            out.push(raw_normal(p, i));
        }
    }
    out
}

/// All pairs `(a, b)`, `a < b`, whose closed bounding boxes overlap (touching boxes count),
/// sorted by `(a, b)`.
///
/// Sort-and-sweep on x: after sorting by the boxes' left edges, box `j` can only overlap an
/// earlier box `i` if it starts before `i` ends, so each box only scans forward while that
/// holds. This is exact (no pair is missed) and keeps the reference fast enough for benchmark
/// sized scenes.
pub fn broad_phase(polygons: &[Polygon]) -> Vec<(u32, u32)> {
    // The boxes, sorted by left edge, kept contiguous with their index so the sweep reads
    // memory in order.
    let mut boxes: Vec<(Aabb, u32)> = polygons.iter().enumerate().map(|(i, p)| (p.aabb(), i as u32)).collect();
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

/// Whether the two closed polygons share at least one point.
///
/// Uses the unnormalised edge normals so that scenes with small integer coordinates (where
/// polygons touch exactly) are decided without any rounding error.
pub fn colliding(a: &Polygon, b: &Polygon) -> bool {
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
fn least_penetration(a: &Polygon, b: &Polygon) -> ([f64; 2], f64) {
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
pub fn contact(a: &Polygon, b: &Polygon) -> Option<([f64; 2], f64)> {
    if !colliding(a, b) {
        return None;
    }
    let (normal, depth) = least_penetration(a, b);
    // `+ 0.0` turns -0.0 into 0.0, so output files never show "-0".
    Some(([normal[0] + 0.0, normal[1] + 0.0], depth.max(0.0)))
}

/// The signed SAT separation over the unit edge normals of both polygons: the largest gap
/// between their projections on any axis.
///
/// Positive means the polygons are apart by at least that distance; zero or negative means
/// they collide and the value is minus the least overlap (minus the MTV depth). Tests use it to
/// tell "clearly colliding" and "clearly apart" from pairs inside a float tolerance band.
pub fn separation(a: &Polygon, b: &Polygon) -> f64 {
    -least_penetration(a, b).1
}

/// How far `b` must move along the unit vector `normal` to stop overlapping `a`:
/// `max over a of (v . normal) - min over b of (v . normal)`.
///
/// Lets a test check a normal and depth reported by the GPU even when it picked a different
/// (equally good) axis than [`contact`].
pub fn penetration_along(a: &Polygon, b: &Polygon, normal: [f64; 2]) -> f64 {
    let (_, max_a) = project(a, normal);
    let (min_b, _) = project(b, normal);
    max_a - min_b
}

/// Every colliding pair with its minimum translation vector, sorted by `(a, b)`: the answer
/// the GPU pipeline must reproduce.
pub fn detect(polygons: &[Polygon]) -> Vec<Contact> {
    detect_stats(polygons).0
}

/// As [`detect`], plus the number of broad-phase candidate pairs, which is what the scene
/// generators are tuned on and what the GPU's candidate buffer must hold.
pub fn detect_stats(polygons: &[Polygon]) -> (Vec<Contact>, usize) {
    let candidates = broad_phase(polygons);
    let mut contacts = Vec::new();
    for &(a, b) in &candidates {
        if let Some((normal, depth)) = contact(&polygons[a as usize], &polygons[b as usize]) {
            contacts.push(Contact { a, b, normal, depth });
        }
    }
    (contacts, candidates.len())
}
