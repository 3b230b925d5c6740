//! Containment flags and contact manifolds in `f64`, from the definitions in the numerics contract
//! (docs/numerics.md), for [`ContactDetail::Full`](crate::gpu::ContactDetail::Full).
//!
//! Containment is decided on the cores by distances: with `delta = r_inner - r_outer`, every
//! point of the inner shape lies in the outer one exactly when every vertex of its core lies in
//! the outer core at least `delta` from that core's boundary (`delta >= 0`), or within `-delta`
//! of the outer core (`delta < 0`). Squared quantities, so exact on small integers.
//!
//! The manifold follows its construction step by step (reference face, incident face, clipping,
//! or one point). [`manifold_alternatives`] also lists what the construction gives when any of
//! its choices is decided the other way within a tolerance: a GPU manifold, computed in f32, must
//! match one of them.

use super::{core_contains, cross, dot, edges, sub, within};
use crate::geometry::{Contact, ContactPoint, Manifold, Polygon};

/// How far `1 - cos` the reference face's normal may turn from the pair's normal for clipping
/// (manifold.wgsl: `ALIGNED`).
pub const ALIGNED: f64 = 1e-4;

/// Two clipped ends closer than this (times the pair's size) give one point (WGSL: `NEAR_VERTICES`
/// in the pair's frame).
const NEAR: f64 = 1e-6;

/// Whether every point of `inner` lies in `outer` grown by `slack` (shrunk where negative):
/// closed sets, so a shape lies in itself. [`contained`] is `slack = 0`.
pub fn contained_with_slack(inner: &Polygon, outer: &Polygon, slack: f64) -> bool {
    let delta = inner.radius() - outer.radius() - slack;
    let core = outer.vertices();
    inner.vertices().iter().all(|&v| {
        if delta >= 0.0 {
            // In the core, and at least delta from every edge's line (for a point inside a convex
            // polygon, the distance to its boundary is the least distance to an edge's line).
            core_contains(outer, v)
                && match core.len() {
                    1 | 2 => delta == 0.0,
                    _ => edges(outer).iter().all(|&(u, w)| {
                        let (e, c) = (sub(w, u), cross(sub(w, u), sub(v, u)));
                        c * c >= delta * delta * dot(e, e)
                    }),
                }
        } else {
            let r = -delta;
            core_contains(outer, v)
                || match core.len() {
                    1 => within(v, core[0], core[0], r),
                    _ => edges(outer).iter().any(|&(u, w)| within(v, u, w, r)),
                }
        }
    })
}

/// Whether every point of `inner` lies in `outer` (SAT.js's `aInB` with `a = inner`).
pub fn contained(inner: &Polygon, outer: &Polygon) -> bool {
    contained_with_slack(inner, outer, 0.0)
}

/// The unit outward normal of core edge `i` (a segment core has two, one per side).
fn unit_normal(p: &Polygon, i: usize) -> [f64; 2] {
    let v = p.vertices();
    let e = sub(v[(i + 1) % v.len()], v[i]);
    let len = e[0].hypot(e[1]);
    [e[1] / len, -e[0] / len]
}

/// How aligned each edge's normal is with `dir`: none for a point core.
fn alignments(p: &Polygon, dir: [f64; 2]) -> Vec<f64> {
    let n = p.vertices().len();
    if n == 1 {
        vec![]
    } else {
        (0..n).map(|i| dot(unit_normal(p, i), dir)).collect()
    }
}

/// The edges whose alignment is within `tol` of the best, the first best first; empty if none.
fn near_best(cos: &[f64], tol: f64) -> Vec<usize> {
    let Some(best) = (0..cos.len()).reduce(|b, i| if cos[i] > cos[b] { i } else { b }) else {
        return vec![];
    };
    let mut out = vec![best];
    out.extend((0..cos.len()).filter(|&i| i != best && cos[i] >= cos[best] - tol));
    out
}

fn best(cos: &[f64]) -> f64 {
    cos.iter().copied().fold(-2.0, f64::max)
}

fn scaled(v: [f64; 2], s: f64) -> [f64; 2] {
    [v[0] * s, v[1] * s]
}

fn add(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] + b[0], a[1] + b[1]]
}

/// Clipping: `q`'s edge `j` clipped to the slab of `p`'s edge `e` (outward unit normal `m`), ends
/// within the reach plus `margin` kept, each placed midway between the surfaces. `None` when the edge lies
/// wholly outside the slab; `near_edge` is set when it is within `tol` (a length) of doing so.
fn clip(
    p: &Polygon,
    e: usize,
    q: &Polygon,
    j: usize,
    (reach, margin): (f64, f64),
    size: f64,
    tol: f64,
) -> (Option<Vec<ContactPoint>>, bool) {
    let (pv, qv) = (p.vertices(), q.vertices());
    let v1 = pv[e];
    let t = sub(pv[(e + 1) % pv.len()], v1);
    let len2 = dot(t, t);
    let len = len2.sqrt();
    let m = unit_normal(p, e);
    let w = [qv[j], qv[(j + 1) % qv.len()]];
    let u = [dot(sub(w[0], v1), t), dot(sub(w[1], v1), t)];
    let (lo, hi) = (u[0].min(u[1]), u[0].max(u[1]));
    let near_edge = hi.abs() <= tol * len || (lo - len2).abs() <= tol * len;
    if hi < 0.0 || lo > len2 {
        return (None, near_edge);
    }
    let cut = |bound: f64| add(w[0], scaled(sub(w[1], w[0]), (bound - u[0]) / (u[1] - u[0])));
    let mut ends = w;
    let mut points: Vec<ContactPoint> = vec![];
    for k in 0..2 {
        if u[k] < 0.0 {
            ends[k] = cut(0.0);
        } else if u[k] > len2 {
            ends[k] = cut(len2);
        }
        let depth = reach - dot(sub(ends[k], v1), m);
        if depth < -margin {
            continue;
        }
        let at = add(ends[k], scaled(m, 0.5 * depth - q.radius()));
        let point = ContactPoint { point: at, depth };
        match points.first_mut() {
            None => points.push(point),
            Some(first) if sub(ends[1], ends[0])[0].hypot(sub(ends[1], ends[0])[1]) <= NEAR * size => {
                if depth > first.depth {
                    *first = point;
                }
            }
            Some(_) => points.push(point),
        }
    }
    (Some(points), near_edge)
}

/// The one-point manifolds: the deepest point of b's surface along `-n` (or of a's along `n`
/// where b gives the better aligned face), moved half the depth into the overlap. With `tol`,
/// every vertex within `tol` of the deepest, and both sides where the alignments are within it.
fn single(a: &Polygon, b: &Polygon, n: [f64; 2], depth: f64, from_a: &[bool], tol: f64) -> Vec<Manifold> {
    let mut out = vec![];
    for &from_a in from_a {
        // From a: a's farthest vertex along n; from b: b's farthest along -n.
        let (p, dir) = if from_a { (a, n) } else { (b, [-n[0], -n[1]]) };
        let reach: Vec<f64> = p.vertices().iter().map(|&v| dot(v, dir)).collect();
        let top = reach.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // (A normal that is not finite reaches nowhere: the first vertex, as good as any.)
        let first = reach.iter().position(|&r| r == top).unwrap_or(0);
        let mut picks = vec![first];
        picks.extend((0..reach.len()).filter(|&i| i != first && reach[i] >= top - tol));
        for i in picks {
            let surface = add(p.vertices()[i], scaled(dir, p.radius()));
            let at = add(surface, scaled(dir, -0.5 * depth));
            out.push(Manifold::new(false, false, &[ContactPoint { point: at, depth }]));
        }
    }
    out
}

/// The manifold of a colliding pair with its contact (normal from a to b, depth), as the GPU
/// builds it: see manifold.wgsl and docs/how-it-works.md. The flags come from [`contained`].
pub fn manifold(a: &Polygon, b: &Polygon, contact: &Contact) -> Manifold {
    manifold_alternatives(a, b, contact, 0.0)[0]
}

/// As [`manifold`], for a pair within `margin` (see
/// [`WorldOptions::margin`](crate::gpu::WorldOptions::margin)): clipped points whose depth is at least `-margin`
/// are kept, so a pair apart gets the points midway between its closest features, each with a
/// negative depth (minus the distance there); the closest points themselves are each point
/// moved by half its depth along the normal, back toward `a` and on toward `b`.
pub fn manifold_within(a: &Polygon, b: &Polygon, contact: &Contact, margin: f64) -> Manifold {
    manifold_alternatives_within(a, b, contact, 0.0, margin)[0]
}

/// The manifold of [`manifold`] first, then every manifold the construction gives when a choice
/// within `tol` of its threshold goes the other way (`tol` relative: cosines, and lengths in
/// units of the pair's size). The flags are the exact ones on every entry.
pub fn manifold_alternatives(a: &Polygon, b: &Polygon, contact: &Contact, tol: f64) -> Vec<Manifold> {
    manifold_alternatives_within(a, b, contact, tol, 0.0)
}

/// [`manifold_alternatives`] for a pair within `margin` (see [`manifold_within`]).
pub fn manifold_alternatives_within(
    a: &Polygon,
    b: &Polygon,
    contact: &Contact,
    tol: f64,
    margin: f64,
) -> Vec<Manifold> {
    let n = contact.normal;
    let size = crate::validate::pair_scale(a, b);
    let tol_len = tol * size;
    let reach = a.radius() + b.radius();
    let cos_a = alignments(a, n);
    let cos_b = alignments(b, [-n[0], -n[1]]);
    let (best_a, best_b) = (best(&cos_a), best(&cos_b));
    let mut out = vec![];
    // The reference face on a first where a wins or ties, as on the GPU.
    let sides: [bool; 2] = if best_a >= best_b { [true, false] } else { [false, true] };
    let mut want_single = false;
    for (rank, &on_a) in sides.iter().enumerate() {
        let (p, q, cos_p, cos_q) = if on_a { (a, b, &cos_a, &cos_b) } else { (b, a, &cos_b, &cos_a) };
        if rank == 1 && (best_a - best_b).abs() > tol {
            break;
        }
        if cos_q.is_empty() || cos_p.is_empty() {
            want_single = true;
            continue;
        }
        for e in near_best(cos_p, tol) {
            if cos_p[e] < 1.0 - ALIGNED + tol {
                want_single = true;
            }
            if cos_p[e] < 1.0 - ALIGNED - tol {
                continue;
            }
            for j in near_best(cos_q, tol) {
                let (points, near_edge) = clip(p, e, q, j, (reach, margin), size, tol_len);
                want_single |= near_edge;
                match points {
                    Some(points) if !points.is_empty() => {
                        want_single |= points.iter().all(|p| p.depth <= tol_len - margin);
                        out.push(Manifold::new(false, false, &points));
                    }
                    _ => want_single = true,
                }
            }
        }
    }
    if want_single || out.is_empty() {
        // b's face the better aligned: the point comes from a's side (GPU: fb.cos > fa.cos).
        let mut from = vec![];
        if best_b > best_a - tol {
            from.push(true);
        }
        if best_b <= best_a + tol {
            from.push(false);
        }
        if best_b <= best_a {
            from.reverse();
        }
        out.extend(single(a, b, n, contact.depth, &from, tol_len));
    }
    let (a_in_b, b_in_a) = (contained(a, b), contained(b, a));
    for m in &mut out {
        m.a_in_b = a_in_b;
        m.b_in_a = b_in_a;
    }
    out
}

/// The distance from `x` to the shape `p` (core plus radius): 0 inside it.
pub fn distance_to_shape(p: &Polygon, x: [f64; 2]) -> f64 {
    if core_contains(p, x) {
        return 0.0;
    }
    let v = p.vertices();
    let segments = if v.len() == 1 { vec![(v[0], v[0])] } else { edges(p) };
    let core = segments
        .iter()
        .map(|&(u, w)| {
            let c = super::closest_on_segment(x, u, w);
            sub(x, c)[0].hypot(sub(x, c)[1])
        })
        .fold(f64::INFINITY, f64::min);
    (core - p.radius()).max(0.0)
}
