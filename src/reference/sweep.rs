//! Continuous collision (issue 44) from the definitions: which bodies touch at some moment while
//! each moves from its pose at the start of a frame to its pose at the end, and when they first
//! do.
//!
//! A body's pose at time `t` in [0, 1] is its start pose moved toward its end pose linearly: the
//! position `p0 + t (p1 - p0)`, the angle `a0 + t (a1 - a0)` (no wrapping: an angle from 0 to
//! 2 pi turns a whole turn). The GPU's [`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous)
//! sees only each pose's rotation and turns the shorter way round: the two agree where every body
//! turns less than half a turn per frame.
//!
//! - Two bodies that both keep their angle (or turn only about their cores' one point at their
//!   origin, as a disc about its centre) move relative to each other along a line: the first
//!   touch is a shape cast of one against the other (`cast_shape`: exact, as casts are).
//! - Otherwise, conservative advancement (Mirtich): at time `t` the shapes are `d` apart; their
//!   distance shrinks no faster than `k = |dp_b - dp_a| + |da_a| R_a + |da_b| R_b` per unit of
//!   time (`R`: how far its core's vertices reach from its body's origin; turning the radius
//!   around the core moves nothing), so they cannot touch before `t + d / k`. Stepping there
//!   never passes the first touch; it stops where the distance is below a billionth of the
//!   scene's size (`TOUCH`), or past the end. Chosen over root finding on the distance (which can
//!   step over a touch that lasts an instant) and over sampling (which can miss one): it cannot
//!   miss a touch, only stop a hair early. Past `STEPS` steps (a pair that stays, on average,
//!   within `k / STEPS` of touching while it turns) it counts as touching where it got to: near
//!   enough, and never a missed touch.
//!
//! Bodies of several parts touch when any two of their parts do, first at the earliest.

use super::{colliding, queries::cast_shape, signed_distance};
use crate::geometry::{Filter, Impact, Periodic, Polygon, Transform};

/// Below this fraction of the scene's size, two shapes count as touching (conservative
/// advancement approaches a touch from outside and never reaches it exactly).
pub const TOUCH: f64 = 1e-9;

/// Most steps of conservative advancement for one pair: past them, the pair has stayed within
/// `k / STEPS` of touching on average, and its touch is taken as found where it got to.
const STEPS: usize = 100_000;

/// The pose of a body at time `t` of its sweep.
fn at(start: &Transform, end: &Transform, t: f64) -> Transform {
    Transform {
        x: start.x + t * (end.x - start.x),
        y: start.y + t * (end.y - start.y),
        angle: start.angle + t * (end.angle - start.angle),
    }
}

/// How far the points of `parts` reach from their body's origin.
fn reach(parts: &[Polygon]) -> f64 {
    let far = |p: &Polygon| p.vertices().iter().map(|v| v[0].hypot(v[1])).fold(0.0, f64::max) + p.radius();
    parts.iter().map(far).fold(0.0, f64::max)
}

/// The first moment two parts touch: `a` swept from `sa` to `ea`, `b` from `sb` to `eb`;
/// `touch` the distance that counts as touching.
fn first_touch(
    a: &Polygon,
    b: &Polygon,
    (sa, ea): (&Transform, &Transform),
    (sb, eb): (&Transform, &Transform),
    touch: f64,
) -> Option<f64> {
    let (a0, b0) = (a.transformed(sa), b.transformed(sb));
    if colliding(&a0, &b0) {
        return Some(0.0);
    }
    let v = [(eb.x - sb.x) - (ea.x - sa.x), (eb.y - sb.y) - (ea.y - sa.y)];
    let speed = v[0].hypot(v[1]);
    // How far a turn moves each shape's boundary: its core's vertices' reach times the angle.
    let core_reach = |p: &Polygon| p.vertices().iter().map(|v| v[0].hypot(v[1])).fold(0.0, f64::max);
    let (turn_a, turn_b) = ((ea.angle - sa.angle).abs() * core_reach(a), (eb.angle - sb.angle).abs() * core_reach(b));
    if turn_a == 0.0 && turn_b == 0.0 {
        // b moves along v relative to a.
        if speed == 0.0 {
            return None;
        }
        let (t, _, _) = cast_shape(&b0, [v[0] / speed, v[1] / speed], speed, &a0)?;
        return Some((t / speed).min(1.0));
    }
    let k = speed + turn_a + turn_b;
    let mut t = 0.0;
    for _ in 0..STEPS {
        let (_, d) = signed_distance(&a.transformed(&at(sa, ea, t)), &b.transformed(&at(sb, eb, t)));
        if d <= touch {
            return Some(t);
        }
        t += d / k;
        if t > 1.0 {
            return None;
        }
    }
    Some(t)
}

/// Each pair of `bodies` (each its parts in its own frame, moved from `start[i]` to `end[i]`)
/// that touches at some moment of the sweep, with the first, sorted by `(a, b)`; `filters`
/// (empty, or one per body) as [`detect`](super::detect) applies them. Brute force over the
/// pairs whose bounding circles' paths come near.
///
/// # Panics
///
/// If `start`, `end` (and `filters`, when not empty) are not one per body, or a pose is not
/// finite.
pub fn sweep<B: AsRef<[Polygon]>>(
    bodies: &[B],
    start: &[Transform],
    end: &[Transform],
    filters: &[Filter],
) -> Vec<Impact> {
    sweeps(bodies, start, end, filters, None)
}

/// [`sweep`] in a periodic box (issue 65): each body goes the shortest way from its start to
/// its end (its start moved by whole boxes to within half a box of its end, across an edge
/// where it left the box), and a pair's first touch is the earliest of `a` with any image of
/// `b`'s whole way.
///
/// # Panics
///
/// As [`sweep`].
pub fn sweep_periodic<B: AsRef<[Polygon]>>(
    bodies: &[B],
    start: &[Transform],
    end: &[Transform],
    filters: &[Filter],
    periodic: &Periodic,
) -> Vec<Impact> {
    sweeps(bodies, start, end, filters, Some(periodic))
}

fn sweeps<B: AsRef<[Polygon]>>(
    bodies: &[B],
    start: &[Transform],
    end: &[Transform],
    filters: &[Filter],
    periodic: Option<&Periodic>,
) -> Vec<Impact> {
    let n = bodies.len();
    assert!(start.len() == n && end.len() == n, "one start and one end pose per body");
    assert!(filters.is_empty() || filters.len() == n, "one filter per body");
    let finite = |t: &Transform| t.x.is_finite() && t.y.is_finite() && t.angle.is_finite();
    assert!(start.iter().chain(end).all(finite), "poses must be finite");
    let size = periodic.map_or([0.0; 2], Periodic::size);
    let wraps = periodic.map_or([false; 2], Periodic::wraps);
    // The whole boxes nearest `d` along each wrapping axis (none elsewhere).
    let boxes =
        |d: [f64; 2]| -> [f64; 2] { std::array::from_fn(|k| if wraps[k] { (d[k] / size[k]).round() } else { 0.0 }) };
    let start: Vec<Transform> = start
        .iter()
        .zip(end)
        .map(|(s, e)| {
            let m = boxes([e.x - s.x, e.y - s.y]);
            Transform { x: s.x + m[0] * size[0], y: s.y + m[1] * size[1], angle: s.angle }
        })
        .collect();
    let reaches: Vec<f64> = bodies.iter().map(|b| reach(b.as_ref())).collect();
    let scale =
        start.iter().chain(end).map(|t| t.x.abs().max(t.y.abs())).chain(reaches.iter().copied()).fold(0.0, f64::max);
    let touch = TOUCH * scale;
    let mut found = vec![];
    for a in 0..n {
        for b in a + 1..n {
            if !filters.is_empty() && !filters[a].should_collide(&filters[b]) {
                continue;
            }
            // b's images nearest a, and a box either way.
            let near = boxes([end[a].x - end[b].x, end[a].y - end[b].y]);
            let steps = |k: usize| if wraps[k] { vec![near[k] - 1.0, near[k], near[k] + 1.0] } else { vec![0.0] };
            let mut toi: Option<f64> = None;
            for mx in steps(0) {
                for my in steps(1) {
                    let by = |t: &Transform| Transform { x: t.x + mx * size[0], y: t.y + my * size[1], angle: t.angle };
                    let (sb, eb) = (by(&start[b]), by(&end[b]));
                    // The anchors' relative path: p(t) = p0 + t v; apart by more than both
                    // reaches throughout, the bodies never touch.
                    let p0 = [sb.x - start[a].x, sb.y - start[a].y];
                    let v = [(eb.x - end[a].x) - p0[0], (eb.y - end[a].y) - p0[1]];
                    let vv = v[0] * v[0] + v[1] * v[1];
                    let s = if vv > 0.0 { (-(p0[0] * v[0] + p0[1] * v[1]) / vv).clamp(0.0, 1.0) } else { 0.0 };
                    let closest = (p0[0] + s * v[0]).hypot(p0[1] + s * v[1]);
                    if closest > (reaches[a] + reaches[b]) * (1.0 + 1e-12) + touch {
                        continue;
                    }
                    let image = bodies[a]
                        .as_ref()
                        .iter()
                        .flat_map(|pa| bodies[b].as_ref().iter().map(move |pb| (pa, pb)))
                        .filter_map(|(pa, pb)| first_touch(pa, pb, (&start[a], &end[a]), (&sb, &eb), touch));
                    toi = image.fold(toi, |best, t| Some(best.map_or(t, |b| b.min(t))));
                }
            }
            if let Some(toi) = toi {
                found.push(Impact { a: a as u32, b: b as u32, toi });
            }
        }
    }
    found
}
