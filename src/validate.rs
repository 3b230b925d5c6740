//! Comparing GPU results with the CPU reference under the numerics contract.
//!
//! The GPU works in f32, the reference in f64. They must agree on every pair except those whose
//! true SAT separation lies inside the tolerance band [`band`] around zero, where rounding may
//! legitimately flip the verdict. For colliding pairs both report, the GPU's depth must match the
//! reference depth within the band, and its normal must be a valid minimum translation direction:
//! the reference's penetration along the GPU normal must equal the GPU depth within the band.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::geometry::{Contact, ContactPoint, Manifold, Periodic, Polygon, Transform};
use crate::gpu::DetectOptions;
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

/// Checks the `gpu` pairs of `bodies` (a slice of [`Body`](crate::Body) or of [`Polygon`])
/// against the `reference` pairs ([`reference::detect`] with the same `options`; only the margin
/// is read here).
///
/// A pair of bodies is judged as one pair of shapes whose separation is the least over their
/// shape pairs (minus the margin; under a margin, the signed distance), whose band is
/// [`body_band`] (plus f32's rounding of the margin), and whose normal must be a minimum
/// direction of one of its shape pairs at the GPU's depth: the reference's penetration along it
/// equals the depth within the band (the GPU may pick another shape pair where depths are equal
/// within the band). A pair only one side reports is allowed where its separation lies within
/// the band; depths (minus the signed distances) must agree within the band.
pub fn compare<B: AsRef<[Polygon]>>(
    bodies: &[B],
    gpu: &[Contact],
    reference: &[Contact],
    options: &DetectOptions,
) -> Report {
    let margin = options.world.margin;
    let periodic = options.world.periodic.as_ref();
    let shapes = |a: u32| bodies[a as usize].as_ref();
    // In a periodic box, b is judged by its image nearest a.
    let pair = |a: u32, b: u32| (shapes(a), image_near(shapes(a), shapes(b), periodic));
    compare_with(
        gpu,
        reference,
        |a, b| {
            let (a, b) = pair(a, b);
            let band = body_band(a, &b) + 2.0 * f64::from(f32::EPSILON) * margin;
            let separation = shape_pairs(a, &b)
                .map(|(p, q)| match margin {
                    0.0 => reference::separation(p, q),
                    _ => reference::signed_distance(p, q).1 - margin,
                })
                .fold(f64::INFINITY, f64::min);
            (separation, band)
        },
        |a, b, normal, depth| {
            let (a, b) = pair(a, b);
            shape_pairs(a, &b)
                .map(|(p, q)| reference::penetration_along(p, q, normal))
                .min_by(|x, y| (x - depth).abs().total_cmp(&(y - depth).abs()))
                .unwrap_or(f64::INFINITY)
        },
    )
}

/// In the periodic box `periodic`, the image of body `b` (its shapes moved by whole boxes) least
/// separated from body `a`, among those round the one whose first vertex lies in the same box
/// as `a`'s; `b` itself without a box.
pub fn image_near<'a>(a: &[Polygon], b: &'a [Polygon], periodic: Option<&Periodic>) -> Cow<'a, [Polygon]> {
    let (Some(p), Some(pa), Some(pb)) = (periodic, a.first(), b.first()) else { return Cow::Borrowed(b) };
    let (na, nb) = (p.cell_shift(pa.vertices()[0]), p.cell_shift(pb.vertices()[0]));
    let size = p.size();
    let steps = |k: usize| if p.wraps()[k] { [-1.0, 0.0, 1.0] } else { [0.0; 3] };
    let mut best: Option<(f64, Vec<Polygon>)> = None;
    for dx in steps(0) {
        for dy in steps(1) {
            let n = [nb[0] - na[0] + dx, nb[1] - na[1] + dy];
            let moved = Transform { x: n[0] * size[0], y: n[1] * size[1], angle: 0.0 };
            let image: Vec<Polygon> =
                b.iter().map(|q| if n == [0.0; 2] { q.clone() } else { q.transformed(&moved) }).collect();
            let gap =
                shape_pairs(a, &image).map(|(p, q)| reference::signed_distance(p, q).1).fold(f64::INFINITY, f64::min);
            if best.as_ref().is_none_or(|(g, _)| gap < *g) {
                best = Some((gap, image));
            }
        }
    }
    Cow::Owned(best.expect("nine images").1)
}

/// Every pair of a shape of `a` and a shape of `b`.
fn shape_pairs<'a>(a: &'a [Polygon], b: &'a [Polygon]) -> impl Iterator<Item = (&'a Polygon, &'a Polygon)> {
    a.iter().flat_map(move |p| b.iter().map(move |q| (p, q)))
}

/// The band of a pair of bodies (their shapes `a` and `b`): [`band`] with the bodies' scale, the
/// largest coordinate difference between `a`'s first vertex and any vertex of either body, plus
/// both bodies' largest radii. A shape is placed by its body's transform, so its rounding scales
/// with its distance from the body's anchor; with one shape each this is [`band`].
pub fn body_band(a: &[Polygon], b: &[Polygon]) -> f64 {
    // (Bodies of no shape have no band.)
    let Some(o) = a.iter().chain(b).next().map(|p| p.vertices()[0]) else { return 0.0 };
    let core = a
        .iter()
        .chain(b)
        .flat_map(|p| p.vertices())
        .flat_map(|v| [(v[0] - o[0]).abs(), (v[1] - o[1]).abs()])
        .fold(0.0, f64::max);
    let radius = |shapes: &[Polygon]| shapes.iter().map(Polygon::radius).fold(0.0, f64::max);
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

/// Every manifold of the GPU's (`manifolds`, one per contact of `gpu` at the same index) checked
/// by [`check_manifold_within`] on the shape pair the GPU chose (`shapes`, at the same index;
/// empty: each body's only shape), under `options`' margin: `(a, b, what is wrong)` for each
/// failing pair.
pub fn compare_manifolds<B: AsRef<[Polygon]>>(
    bodies: &[B],
    gpu: &[Contact],
    shapes: &[[u32; 2]],
    manifolds: &[Manifold],
    options: &DetectOptions,
) -> Vec<(u32, u32, String)> {
    gpu.iter()
        .zip(manifolds)
        .enumerate()
        .filter_map(|(i, (c, m))| {
            let [ka, kb] = shapes.get(i).copied().unwrap_or([0, 0]);
            let (body_a, body_b) = (bodies[c.a as usize].as_ref(), bodies[c.b as usize].as_ref());
            let image = image_near(body_a, body_b, options.world.periodic.as_ref());
            check_manifold_within(&body_a[ka as usize], &image[kb as usize], c, m, options.world.margin)
                .map(|why| (c.a, c.b, why))
        })
        .collect()
}
