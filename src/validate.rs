//! Comparing GPU results with the CPU reference under the numerics contract.
//!
//! The GPU works in f32, the reference in f64. They must agree on every pair except those whose
//! true SAT separation lies inside the tolerance band [`band`] around zero, where rounding may
//! legitimately flip the verdict. For colliding pairs both report, the GPU's depth must match the
//! reference depth within the band, and its normal must be a valid minimum translation direction:
//! the reference's penetration along the GPU normal must equal the GPU depth within the band.

use std::collections::BTreeMap;

use crate::geometry::{Contact, ContactPoint, Manifold, Polygon};
use crate::reference;

/// The band's width in units of f32 epsilon times the pair's size ([`pair_scale`]).
pub const BAND_EPSILONS: f64 = 64.0;

/// The size of a pair: the largest coordinate difference between `a`'s first vertex and any
/// vertex of either core, plus both radii. The GPU works in a frame anchored at that vertex, so
/// its rounding error scales with this, not with the distance from the origin.
pub fn pair_scale(a: &Polygon, b: &Polygon) -> f64 {
    let o = a.vertices()[0];
    let core = a
        .vertices()
        .iter()
        .chain(b.vertices())
        .flat_map(|v| [(v[0] - o[0]).abs(), (v[1] - o[1]).abs()])
        .fold(0.0, f64::max);
    core + a.radius() + b.radius()
}

/// Tolerance band for a pair: `64 * f32::EPSILON * pair_scale(a, b)`, about 7.6e-6 times the
/// size of the pair (two unit squares side by side: 1.5e-5), wherever the pair lies.
pub fn band(a: &Polygon, b: &Polygon) -> f64 {
    BAND_EPSILONS * f64::from(f32::EPSILON) * pair_scale(a, b)
}

/// What is wrong with one pair.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// The GPU reports a collision the reference does not see.
    OnlyGpu,
    /// The reference sees a collision the GPU does not report.
    OnlyReference,
    /// Both report the pair, but the depths differ by more than the band.
    Depth {
        /// GPU depth.
        gpu: f64,
        /// Reference depth.
        reference: f64,
    },
    /// The GPU normal is not a minimum translation direction (or not unit length, or not a < b).
    Normal {
        /// GPU normal.
        normal: [f64; 2],
        /// Reference penetration along the GPU normal.
        penetration: f64,
        /// GPU depth.
        depth: f64,
    },
}

/// One pair on which GPU and reference disagree outside the band.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    /// Lower index.
    pub a: u32,
    /// Higher index.
    pub b: u32,
    /// Reference SAT separation of the pair (negative: penetration).
    pub separation: f64,
    /// The pair's band.
    pub band: f64,
    /// What differs.
    pub problem: Problem,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pair ({}, {}): {:?} (separation {:.3e}, band {:.3e})",
            self.a, self.b, self.problem, self.separation, self.band
        )
    }
}

/// The outcome of [`compare`].
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Pairs the GPU reported.
    pub gpu_pairs: usize,
    /// Pairs the reference reported.
    pub reference_pairs: usize,
    /// Pairs reported by only one side but inside the band: allowed by the contract.
    pub in_band: usize,
    /// Disagreements outside the band, which the contract does not allow: a pair only one side
    /// reported whose separation lies outside the band, or a pair both reported whose depth
    /// differs by more than the band or whose normal is not a minimum direction.
    pub disagreements: Vec<Disagreement>,
}

impl Report {
    /// Whether GPU and reference agree under the contract.
    pub fn ok(&self) -> bool {
        self.disagreements.is_empty()
    }
}

/// Checks `gpu` contacts for `polygons` against the reference contacts `reference`
/// (from [`reference::detect`]).
pub fn compare(polygons: &[Polygon], gpu: &[Contact], reference: &[Contact]) -> Report {
    let pair = |a: u32, b: u32| (&polygons[a as usize], &polygons[b as usize]);
    compare_with(
        gpu,
        reference,
        |a, b| {
            let (pa, pb) = pair(a, b);
            (reference::separation(pa, pb), band(pa, pb))
        },
        |a, b, normal, _| {
            let (pa, pb) = pair(a, b);
            reference::penetration_along(pa, pb, normal)
        },
    )
}

/// Checks `gpu` pairs within `margin` for `polygons` (from a world with
/// [`WorldOptions::margin`](crate::gpu::WorldOptions::margin)) against the reference's (from
/// [`reference::detect_within`]). A pair only one side reports is allowed where its signed
/// distance lies within the band of the margin (the pair's band, plus the rounding of the margin
/// to f32); depths (minus the signed distances) must agree within the band, and the normal must
/// be a minimum translation direction for colliding pairs and the closest direction for pairs
/// apart: in both cases the reference's penetration along it equals the depth.
pub fn compare_within(polygons: &[Polygon], gpu: &[Contact], reference: &[Contact], margin: f64) -> Report {
    let pair = |a: u32, b: u32| (&polygons[a as usize], &polygons[b as usize]);
    compare_with(
        gpu,
        reference,
        |a, b| {
            let (pa, pb) = pair(a, b);
            let distance = reference::signed_distance(pa, pb).1;
            (distance - margin, band(pa, pb) + 2.0 * f64::from(f32::EPSILON) * margin)
        },
        |a, b, normal, _| {
            let (pa, pb) = pair(a, b);
            reference::penetration_along(pa, pb, normal)
        },
    )
}

/// Checks `gpu` contacts between compound `bodies` against the reference's (from
/// [`reference::detect_compound`]). A pair of bodies is judged as one pair of shapes whose
/// separation is the least over their part pairs, whose band is [`compound_band`], and whose
/// normal must be a minimum direction of one of its part pairs at the GPU's depth: the GPU may
/// pick another part pair than the reference's where their depths are equal within the band.
pub fn compare_compound(bodies: &[crate::Compound], gpu: &[Contact], reference: &[Contact]) -> Report {
    let part_pairs = |a, b| part_pairs(bodies, a, b);
    compare_with(
        gpu,
        reference,
        |a, b| {
            let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
            let separation = part_pairs(a, b).map(|(p, q)| reference::separation(p, q)).fold(f64::INFINITY, f64::min);
            (separation, compound_band(ba, bb))
        },
        |a, b, normal, depth| nearest_penetration(bodies, (a, b), normal, depth),
    )
}

/// Every pair of a part of body `a` and a part of body `b`.
fn part_pairs(bodies: &[crate::Compound], a: u32, b: u32) -> impl Iterator<Item = (&Polygon, &Polygon)> {
    let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
    ba.parts().iter().flat_map(move |p| bb.parts().iter().map(move |q| (p, q)))
}

/// Of the part pairs of bodies `a` and `b`, the penetration along `normal` nearest `depth` (the
/// GPU may pick another part pair of equal depth within the band).
fn nearest_penetration(bodies: &[crate::Compound], (a, b): (u32, u32), normal: [f64; 2], depth: f64) -> f64 {
    part_pairs(bodies, a, b)
        .map(|(p, q)| reference::penetration_along(p, q, normal))
        .min_by(|x, y| (x - depth).abs().total_cmp(&(y - depth).abs()))
        .unwrap_or(f64::INFINITY)
}

/// As [`compare_compound`], for pairs of bodies at most `margin` apart (from
/// [`reference::detect_compound_within`]): a pair of bodies is judged by its least signed
/// distance over its part pairs against the margin, within [`compound_band`] and f32's rounding
/// of the margin, as [`compare_within`] judges a pair of shapes.
pub fn compare_compound_within(
    bodies: &[crate::Compound],
    gpu: &[Contact],
    reference: &[Contact],
    margin: f64,
) -> Report {
    compare_with(
        gpu,
        reference,
        |a, b| {
            let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
            let distance =
                part_pairs(bodies, a, b).map(|(p, q)| reference::signed_distance(p, q).1).fold(f64::INFINITY, f64::min);
            (distance - margin, compound_band(ba, bb) + 2.0 * f64::from(f32::EPSILON) * margin)
        },
        |a, b, normal, depth| nearest_penetration(bodies, (a, b), normal, depth),
    )
}

/// The band of a pair of compound bodies: [`band`] with the bodies' scale, the largest coordinate
/// difference between `a`'s first vertex and any vertex of either body, plus both bodies' largest
/// radii. A part is placed by its body's transform, so its rounding scales with its distance from
/// the body's anchor; with one part each this is [`band`].
pub fn compound_band(a: &crate::Compound, b: &crate::Compound) -> f64 {
    let o = a.parts()[0].vertices()[0];
    let parts = || a.parts().iter().chain(b.parts());
    let core =
        parts().flat_map(|p| p.vertices()).flat_map(|v| [(v[0] - o[0]).abs(), (v[1] - o[1]).abs()]).fold(0.0, f64::max);
    let radius = |c: &crate::Compound| c.parts().iter().map(Polygon::radius).fold(0.0, f64::max);
    BAND_EPSILONS * f64::from(f32::EPSILON) * (core + radius(a) + radius(b))
}

/// The comparison of [`compare`] for any kind of pair: `judge(a, b)` gives the pair's reference
/// separation and band, `along(a, b, normal, depth)` the reference penetration along a normal
/// (for a pair of several shapes, the one nearest `depth`).
fn compare_with(
    gpu: &[Contact],
    reference: &[Contact],
    judge: impl Fn(u32, u32) -> (f64, f64),
    along: impl Fn(u32, u32, [f64; 2], f64) -> f64,
) -> Report {
    type Sides<'c> = (Option<&'c Contact>, Option<&'c Contact>);
    let mut both: BTreeMap<(u32, u32), Sides> = BTreeMap::new();
    for c in gpu {
        both.entry((c.a, c.b)).or_default().0 = Some(c);
    }
    for c in reference {
        both.entry((c.a, c.b)).or_default().1 = Some(c);
    }
    let mut report = Report { gpu_pairs: gpu.len(), reference_pairs: reference.len(), ..Report::default() };
    for (&(a, b), &(g, r)) in &both {
        let (separation, tol) = judge(a, b);
        let mut fail = |problem| {
            report.disagreements.push(Disagreement { a, b, separation, band: tol, problem });
        };
        match (g, r) {
            (Some(g), Some(r)) => {
                if (g.depth - r.depth).abs() > tol {
                    fail(Problem::Depth { gpu: g.depth, reference: r.depth });
                    continue;
                }
                let len = g.normal[0].hypot(g.normal[1]);
                let penetration = along(a, b, g.normal, g.depth);
                if a >= b || (len - 1.0).abs() > 1e-5 || (penetration - g.depth).abs() > tol {
                    fail(Problem::Normal { normal: g.normal, penetration, depth: g.depth });
                }
            }
            (Some(_), None) | (None, Some(_)) if separation.abs() <= tol => report.in_band += 1,
            (Some(_), None) => fail(Problem::OnlyGpu),
            (None, Some(_)) => fail(Problem::OnlyReference),
            (None, None) => unreachable!("every entry has at least one side"),
        }
    }
    report
}

/// How far a manifold's choices may be from their thresholds and still go either way (see
/// [`reference::manifold_alternatives`]): cosines, and lengths in units of the pair's size.
pub const MANIFOLD_CHOICE_TOLERANCE: f64 = 2e-5;

/// The tolerance for a contact point's position: twice the pair's band, plus twice f32's
/// spacing at the point (positions are f32 world coordinates).
pub fn point_tolerance(a: &Polygon, b: &Polygon, point: [f64; 2]) -> f64 {
    let at = point[0].abs().max(point[1].abs());
    2.0 * band(a, b) + 2.0 * f64::from(f32::EPSILON) * at
}

/// What is wrong with a pair's manifold from the GPU, if anything, under the numerics contract:
///
/// - each point's depth lies in `[0, depth + 2 band]`;
/// - each point lies between the two surfaces: within half its depth (plus the point tolerance)
///   of both shapes;
/// - the points match one of [`reference::manifold_alternatives`]: every point deeper than the
///   tolerance has a partner in the other list (position and depth within the tolerance);
/// - each containment flag equals the reference's, unless growing or shrinking the outer shape
///   by the band changes the reference's answer.
pub fn check_manifold(a: &Polygon, b: &Polygon, contact: &Contact, m: &Manifold) -> Option<String> {
    check_manifold_within(a, b, contact, m, 0.0)
}

/// [`check_manifold`] for a pair within `margin` (see [`reference::manifold_within`]): depths may
/// go down to `-margin` (less f32's rounding of it), and a point of a pair apart lies half its
/// distance from each shape.
pub fn check_manifold_within(a: &Polygon, b: &Polygon, contact: &Contact, m: &Manifold, margin: f64) -> Option<String> {
    let band = band(a, b);
    let floor = -margin - 2.0 * band - 2.0 * f64::from(f32::EPSILON) * margin;
    for (k, p) in m.points().iter().enumerate() {
        let tol = point_tolerance(a, b, p.point);
        let lowest = if margin > 0.0 { floor } else { 0.0 };
        if !(p.depth >= lowest && p.depth <= contact.depth + 2.0 * band) {
            return Some(format!("point {k} depth {} outside [{lowest}, {} + 2 band]", p.depth, contact.depth));
        }
        for (name, shape) in [("a", a), ("b", b)] {
            let d = reference::distance_to_shape(shape, p.point);
            if d > 0.5 * p.depth.abs() + tol {
                return Some(format!(
                    "point {k} {:?} lies {d} from {name}, more than half its depth {}",
                    p.point, p.depth
                ));
            }
        }
    }
    let alternatives = reference::manifold_alternatives_within(a, b, contact, MANIFOLD_CHOICE_TOLERANCE, margin);
    if !alternatives.iter().any(|r| points_match(a, b, m.points(), r.points(), margin)) {
        return Some(format!("points {:?} match none of the reference's {:?}", m.points(), alternatives));
    }
    for (name, got, inner, outer) in [("a_in_b", m.a_in_b, a, b), ("b_in_a", m.b_in_a, b, a)] {
        let loose = reference::contained_with_slack(inner, outer, band);
        let tight = reference::contained_with_slack(inner, outer, -band);
        if loose == tight && got != tight {
            return Some(format!("{name} is {got}, the reference says {tight}"));
        }
    }
    None
}

/// Every point of each list deeper than the tolerance (above `-margin`) has a partner in the other.
fn points_match(a: &Polygon, b: &Polygon, gpu: &[ContactPoint], reference: &[ContactPoint], margin: f64) -> bool {
    let covered = |from: &[ContactPoint], to: &[ContactPoint]| {
        from.iter().all(|p| {
            let tol = point_tolerance(a, b, p.point) + 2.0 * f64::from(f32::EPSILON) * margin;
            p.depth <= tol - margin
                || to.iter().any(|q| {
                    (p.point[0] - q.point[0]).hypot(p.point[1] - q.point[1]) <= tol && (p.depth - q.depth).abs() <= tol
                })
        })
    };
    covered(gpu, reference) && covered(reference, gpu)
}

/// Every manifold of `gpu` (one per contact, at the same index) checked by [`check_manifold`]:
/// `(a, b, what is wrong)` for each failing pair.
pub fn compare_manifolds(polygons: &[Polygon], gpu: &[Contact], manifolds: &[Manifold]) -> Vec<(u32, u32, String)> {
    compare_manifolds_within(polygons, gpu, manifolds, 0.0)
}

/// [`compare_manifolds`] for pairs within `margin`, by [`check_manifold_within`].
pub fn compare_manifolds_within(
    polygons: &[Polygon],
    gpu: &[Contact],
    manifolds: &[Manifold],
    margin: f64,
) -> Vec<(u32, u32, String)> {
    gpu.iter()
        .zip(manifolds)
        .filter_map(|(c, m)| {
            let (a, b) = (&polygons[c.a as usize], &polygons[c.b as usize]);
            check_manifold_within(a, b, c, m, margin).map(|why| (c.a, c.b, why))
        })
        .collect()
}
