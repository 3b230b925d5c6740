//! [`Polygon`]: a convex core and a radius, validated once by [`Polygon::new`], and the
//! [`PolygonError`] that names what is wrong and where.

use std::f64::consts::TAU;

use crate::geometry::{frame, Aabb, ShapeKind, Transform, MAX_COORDINATE, MAX_VERTICES, MIN_SIZE};

mod error;
pub use error::PolygonError;

/// A validated convex shape: a convex core plus a radius `r >= 0`, the shape being every point
/// within `r` of the core (Box2D's rounded polygon). The core is one point (a circle), two points
/// (a capsule) or a convex polygon of 3 to [`MAX_VERTICES`] vertices stored counter-clockwise; a
/// plain polygon has radius 0.
///
/// Each core vertex carries the unit outward normal of the edge that starts at it (computed once
/// here, as Box2D does, so every consumer downstream reads them instead of recomputing). A
/// capsule's core is the 2-gon `a -> b -> a`, whose two edges have opposite normals; a circle's
/// core has no edge and its one normal is `(0, 0)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    vertices: Vec<[f64; 2]>,
    normals: Vec<[f64; 2]>,
    radius: f64,
}

/// Checks one point of a circle or capsule core.
fn check_point(vertex: usize, v: [f64; 2]) -> Result<(), PolygonError> {
    if !v[0].is_finite() || !v[1].is_finite() {
        return Err(PolygonError::NonFinite { vertex, x: v[0], y: v[1] });
    }
    if v[0].abs() > MAX_COORDINATE || v[1].abs() > MAX_COORDINATE {
        return Err(PolygonError::OutOfRange { vertex, x: v[0], y: v[1], max: MAX_COORDINATE });
    }
    Ok(())
}

/// Checks a radius: finite, at most [`MAX_COORDINATE`], and positive when `positive`, else >= 0.
fn check_radius(radius: f64, positive: bool) -> Result<(), PolygonError> {
    let requirement = if positive {
        "a circle or capsule needs a finite radius above 0 and at most 1e37"
    } else {
        "a rounded polygon or a segment needs a finite radius of at least 0 and at most 1e37"
    };
    let ok = radius.is_finite() && radius <= MAX_COORDINATE && if positive { radius > 0.0 } else { radius >= 0.0 };
    if ok {
        Ok(())
    } else {
        Err(PolygonError::BadRadius { radius, requirement })
    }
}

fn unit_normals(v: &[[f64; 2]]) -> Vec<[f64; 2]> {
    if v.len() == 1 {
        return vec![[0.0, 0.0]];
    }
    (0..v.len())
        .map(|i| {
            let (a, b) = (v[i], v[(i + 1) % v.len()]);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let len = ex.hypot(ey);
            [ey / len, -ex / len]
        })
        .collect()
}

pub(super) fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// The turn `o -> a -> b` decided exactly (Shewchuk's adaptive-precision predicate, as the
/// `robust` crate implements it): positive when it turns left, negative right, zero exactly
/// when the three points lie on one line. Its magnitude approximates [`cross`].
pub(crate) fn orient(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let c = |p: [f64; 2]| robust::Coord { x: p[0], y: p[1] };
    robust::orient2d(c(o), c(a), c(b))
}

fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

/// Why an outline that is not convex is refused: the first two edges that cross, or else
/// [`PolygonError::NonConvex`] at `vertex`. Runs only on outlines already refused (O(n^2)).
fn not_convex(vertices: &[[f64; 2]], vertex: usize) -> PolygonError {
    match first_crossing(vertices) {
        Some((first, second)) => PolygonError::SelfIntersecting { first, second },
        None => PolygonError::NonConvex { vertex },
    }
}

/// The first pair of non-adjacent edges (edge k from vertex k to the next) that cross or touch.
fn first_crossing(v: &[[f64; 2]]) -> Option<(usize, usize)> {
    let n = v.len();
    let edge = |k: usize| (v[k], v[(k + 1) % n]);
    (0..n)
        .flat_map(|i| (i + 2..n).filter(move |&j| !(i == 0 && j == n - 1)).map(move |j| (i, j)))
        .find(|&(i, j)| segments_meet(edge(i), edge(j)))
}

/// Whether two closed segments share a point, decided exactly.
pub(crate) fn segments_meet((a, b): ([f64; 2], [f64; 2]), (c, d): ([f64; 2], [f64; 2])) -> bool {
    let (d1, d2, d3, d4) = (orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b));
    let opposite = |x: f64, y: f64| (x > 0.0 && y < 0.0) || (x < 0.0 && y > 0.0);
    if opposite(d1, d2) && opposite(d3, d4) {
        return true;
    }
    // A point of one segment on the other (collinear, within its box).
    let within = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| {
        r[0] >= p[0].min(q[0]) && r[0] <= p[0].max(q[0]) && r[1] >= p[1].min(q[1]) && r[1] <= p[1].max(q[1])
    };
    (d1 == 0.0 && within(a, b, c))
        || (d2 == 0.0 && within(a, b, d))
        || (d3 == 0.0 && within(c, d, a))
        || (d4 == 0.0 && within(c, d, b))
}

/// The checks every outline passes, convex or not, with at most `max` vertices: the count,
/// finite coordinates within [`MAX_COORDINATE`], no repeated consecutive vertex and a size of
/// at least [`MIN_SIZE`]. Returns the size (the largest coordinate difference from vertex 0).
pub(super) fn check_outline(vertices: &[[f64; 2]], max: usize) -> Result<f64, PolygonError> {
    let n = vertices.len();
    if n < 3 {
        return Err(PolygonError::TooFewVertices { count: n });
    }
    if n > max {
        return Err(PolygonError::TooManyVertices { count: n, max });
    }
    for (i, v) in vertices.iter().enumerate() {
        if !v[0].is_finite() || !v[1].is_finite() {
            return Err(PolygonError::NonFinite { vertex: i, x: v[0], y: v[1] });
        }
        if v[0].abs() > MAX_COORDINATE || v[1].abs() > MAX_COORDINATE {
            return Err(PolygonError::OutOfRange { vertex: i, x: v[0], y: v[1], max: MAX_COORDINATE });
        }
    }
    for i in 0..n {
        let prev = vertices[(i + n - 1) % n];
        if vertices[i] == prev {
            return Err(PolygonError::DuplicateVertex { vertex: i, x: prev[0], y: prev[1] });
        }
    }
    let o = vertices[0];
    let scale = vertices.iter().flat_map(|v| [(v[0] - o[0]).abs(), (v[1] - o[1]).abs()]).fold(0.0f64, f64::max);
    if scale < MIN_SIZE {
        return Err(PolygonError::TooSmall { size: scale, min: MIN_SIZE });
    }
    Ok(scale)
}

impl Polygon {
    /// The winding of `vertices` (1 counter-clockwise, -1 clockwise) if they form a valid convex
    /// polygon, or why not: every rule of [`Polygon::new`], without taking the vertices.
    pub(crate) fn convex_winding(vertices: &[[f64; 2]]) -> Result<f64, PolygonError> {
        let n = vertices.len();
        let scale = check_outline(vertices, MAX_VERTICES)?;
        // Twice the signed area (shoelace), relative to the first vertex for accuracy.
        let o = vertices[0];
        let area2: f64 = (1..n - 1).map(|i| cross(o, vertices[i], vertices[i + 1])).sum();
        if area2.abs() <= scale * scale * 1e-14 {
            // A bow-tie's two lobes cancel: zero area, but not collinear.
            let far = vertices.iter().copied().max_by(|a, b| dist2(o, *a).total_cmp(&dist2(o, *b))).unwrap_or(o);
            let collinear = vertices.iter().all(|&v| cross(o, far, v).abs() <= scale * scale * 1e-12);
            return Err(if collinear { PolygonError::ZeroArea } else { not_convex(vertices, 0) });
        }
        let sign = area2.signum();
        let mut turning = 0.0;
        for i in 0..n {
            let a = vertices[(i + n - 1) % n];
            let b = vertices[i];
            let c = vertices[(i + 1) % n];
            let e1 = [b[0] - a[0], b[1] - a[1]];
            let e2 = [c[0] - b[0], c[1] - b[1]];
            let cr = e1[0] * e2[1] - e1[1] * e2[0];
            let dot = e1[0] * e2[0] + e1[1] * e2[1];
            let norm = e1[0].hypot(e1[1]) * e2[0].hypot(e2[1]);
            if cr.abs() <= norm * 1e-12 {
                if dot < 0.0 {
                    // A spike that doubles back on itself.
                    return Err(not_convex(vertices, i));
                }
                return Err(PolygonError::Collinear { vertex: i });
            }
            if cr.signum() != sign {
                return Err(not_convex(vertices, i));
            }
            turning += (cr * sign).atan2(dot);
        }
        // A convex outline turns exactly once; a pentagram turns twice.
        if (turning - TAU).abs() > 1e-6 {
            return Err(not_convex(vertices, 0));
        }
        Ok(sign)
    }

    /// Validates `vertices` as a convex polygon. Either winding is accepted; clockwise input is
    /// reversed so that the stored polygon is counter-clockwise. Input is rejected when it has
    /// fewer than 3 or more than [`MAX_VERTICES`] vertices, a non-finite coordinate, a repeated
    /// vertex, zero area, a collinear vertex, or is not convex (including self-intersecting
    /// "star" outlines whose turns all have the same sign).
    pub fn new(vertices: Vec<[f64; 2]>) -> Result<Polygon, PolygonError> {
        let sign = Polygon::convex_winding(&vertices)?;
        Polygon::with_winding(vertices, sign, 0.0)
    }

    /// The winding of `vertices` if they form a convex polygon in exact arithmetic: every corner
    /// turns the same way ([`orient`], never zero) and the outline turns once. `None` otherwise,
    /// also where a corner is straight. For outlines [`check_outline`] accepts, of at most
    /// [`MAX_VERTICES`] vertices.
    pub(crate) fn exact_convex_winding(vertices: &[[f64; 2]]) -> Option<f64> {
        let n = vertices.len();
        if !(3..=MAX_VERTICES).contains(&n) {
            return None;
        }
        let turn = |i: usize| orient(vertices[(i + n - 1) % n], vertices[i], vertices[(i + 1) % n]);
        // (Not `signum`: it calls 0.0 positive.)
        let sign = if turn(0) > 0.0 { 1.0 } else { -1.0 };
        if (0..n).any(|i| turn(i) * sign <= 0.0) {
            return None;
        }
        // Every turn has the same sign, so the total is a whole number of turns: once, or a
        // star's twice or more.
        let turning: f64 = (0..n)
            .map(|i| {
                let (a, b, c) = (vertices[(i + n - 1) % n], vertices[i], vertices[(i + 1) % n]);
                let (e1, e2) = ([b[0] - a[0], b[1] - a[1]], [c[0] - b[0], c[1] - b[1]]);
                (sign * (e1[0] * e2[1] - e1[1] * e2[0])).abs().atan2(e1[0] * e2[0] + e1[1] * e2[1])
            })
            .sum();
        ((turning - TAU).abs() < 1.0).then_some(sign)
    }

    /// The polygon of `vertices` already found convex with winding `sign` by
    /// [`convex_winding`](Polygon::convex_winding), rounded by `radius` (checked here).
    pub(crate) fn with_winding(mut vertices: Vec<[f64; 2]>, sign: f64, radius: f64) -> Result<Polygon, PolygonError> {
        check_radius(radius, false)?;
        if sign < 0.0 {
            vertices.reverse();
        }
        let normals = unit_normals(&vertices);
        Ok(Polygon { vertices, normals, radius: radius + 0.0 })
    }

    /// A convex polygon with rounded corners: every point within `radius` of the polygon that
    /// [`Polygon::new`] would build from `vertices`. `radius` must be finite and in
    /// `[0, MAX_COORDINATE]`; 0 gives the plain polygon.
    pub fn rounded(vertices: Vec<[f64; 2]>, radius: f64) -> Result<Polygon, PolygonError> {
        let mut p = Polygon::new(vertices)?;
        check_radius(radius, false)?;
        p.radius = radius + 0.0;
        Ok(p)
    }

    /// The closed box from `lo` to `hi` (`lo <= hi`, unchecked) as a core of radius 0: its four
    /// corners counter-clockwise, the segment where one side is 0, the point where both are. The
    /// region queries' reference asks boxes of any size, which [`Polygon::new`] would refuse.
    pub(crate) fn region(lo: [f64; 2], hi: [f64; 2]) -> Polygon {
        let vertices = match (lo[0] < hi[0], lo[1] < hi[1]) {
            (true, true) => vec![lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]],
            (false, false) => vec![lo],
            _ => vec![lo, hi],
        };
        let normals = unit_normals(&vertices);
        Polygon { vertices, normals, radius: 0.0 }
    }

    /// A circle (a one-point core with a radius). `radius` must be finite, above 0 and at most
    /// [`MAX_COORDINATE`]; a circle smaller than [`MIN_SIZE`] across is rejected as too small.
    pub fn circle(center: [f64; 2], radius: f64) -> Result<Polygon, PolygonError> {
        check_point(0, center)?;
        check_radius(radius, true)?;
        if 2.0 * radius < MIN_SIZE {
            return Err(PolygonError::TooSmall { size: 2.0 * radius, min: MIN_SIZE });
        }
        Ok(Polygon { vertices: vec![center], normals: vec![[0.0, 0.0]], radius })
    }

    /// A capsule: every point within `radius` of the segment from `a` to `b`. The points must
    /// differ and `radius` must be finite, above 0 and at most [`MAX_COORDINATE`]; a capsule
    /// smaller than [`MIN_SIZE`] (its segment and its diameter both) is rejected as too small.
    pub fn capsule(a: [f64; 2], b: [f64; 2], radius: f64) -> Result<Polygon, PolygonError> {
        Polygon::two_point(a, b, radius, true).map_err(|e| match e {
            PolygonError::DegenerateSegment { x, y } => PolygonError::DegenerateCapsule { x, y },
            e => e,
        })
    }

    /// A segment from `a` to `b` grown by `radius >= 0`: radius 0 is the line segment itself (a
    /// wall with no thickness; it collides with what crosses or touches it), above 0 it is
    /// [`Polygon::capsule`]. The points must differ ([`PolygonError::DegenerateSegment`]) and be
    /// finite; `radius` finite, at least 0 and at most [`MAX_COORDINATE`]; a segment shorter than
    /// [`MIN_SIZE`] (and thinner) is rejected as too small.
    pub fn segment(a: [f64; 2], b: [f64; 2], radius: f64) -> Result<Polygon, PolygonError> {
        Polygon::two_point(a, b, radius, false)
    }

    /// The shape of the segment core from `a` to `b` and `radius` (above 0 where `positive`),
    /// checked in that order: the points finite, distinct, the radius, the size.
    fn two_point(a: [f64; 2], b: [f64; 2], radius: f64, positive: bool) -> Result<Polygon, PolygonError> {
        check_point(0, a)?;
        check_point(1, b)?;
        if a == b {
            return Err(PolygonError::DegenerateSegment { x: a[0], y: a[1] });
        }
        check_radius(radius, positive)?;
        let size = (a[0] - b[0]).abs().max((a[1] - b[1]).abs()).max(2.0 * radius);
        if size < MIN_SIZE {
            return Err(PolygonError::TooSmall { size, min: MIN_SIZE });
        }
        let vertices = vec![a, b];
        let normals = unit_normals(&vertices);
        Ok(Polygon { vertices, normals, radius })
    }

    /// The shape with this core and radius: one point gives [`Polygon::circle`], two give
    /// [`Polygon::capsule`] ([`Polygon::segment`] with radius 0), more the core as it is where it
    /// is convex and counter-clockwise exactly (as [`Body::concave`](crate::Body::concave)'s parts,
    /// which may turn by less than [`Polygon::new`] asks), else [`Polygon::rounded`].
    /// `from_core(p.vertices().to_vec(), p.radius())` rebuilds any shape `p` bit for bit.
    pub fn from_core(core: Vec<[f64; 2]>, radius: f64) -> Result<Polygon, PolygonError> {
        match core.len() {
            1 => Polygon::circle(core[0], radius),
            2 if radius == 0.0 => Polygon::segment(core[0], core[1], 0.0),
            2 => Polygon::capsule(core[0], core[1], radius),
            _ if check_outline(&core, MAX_VERTICES).is_ok() && Polygon::exact_convex_winding(&core) == Some(1.0) => {
                Polygon::with_winding(core, 1.0, radius)
            }
            _ => Polygon::rounded(core, radius),
        }
    }

    /// The radius around the core (0 for a plain polygon).
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// Which kind of shape this is.
    pub fn kind(&self) -> ShapeKind {
        match (self.vertices.len(), self.radius > 0.0) {
            (1, _) => ShapeKind::Circle,
            (2, true) => ShapeKind::Capsule,
            (2, false) => ShapeKind::Segment,
            (_, true) => ShapeKind::RoundedPolygon,
            (_, false) => ShapeKind::Polygon,
        }
    }

    /// The core's vertices, counter-clockwise (one point for a circle, two for a capsule).
    pub fn vertices(&self) -> &[[f64; 2]] {
        &self.vertices
    }

    /// Unit outward normal of each edge; normal `i` belongs to the edge from vertex `i` to
    /// vertex `i + 1` (wrapping).
    pub fn edge_normals(&self) -> &[[f64; 2]] {
        &self.normals
    }

    /// The tight bounding box of the shape (the core's box grown by the radius).
    pub fn aabb(&self) -> Aabb {
        let mut min = [f64::INFINITY; 2];
        let mut max = [f64::NEG_INFINITY; 2];
        for v in &self.vertices {
            for k in 0..2 {
                min[k] = min[k].min(v[k]);
                max[k] = max[k].max(v[k]);
            }
        }
        let r = self.radius;
        Aabb { min: [min[0] - r, min[1] - r], max: [max[0] + r, max[1] + r] }
    }

    /// The polygon moved by `t` (a rigid motion keeps it valid and counter-clockwise).
    pub fn transformed(&self, t: &Transform) -> Polygon {
        let vertices: Vec<[f64; 2]> = self.vertices.iter().map(|&v| t.apply(v)).collect();
        let normals = if t.angle == 0.0 { self.normals.clone() } else { unit_normals(&vertices) };
        Polygon { vertices, normals, radius: self.radius }
    }

    /// The same core with its radius grown by `by >= 0`: the points within `by` of the shape
    /// (for shape casts, which sweep one shape's core against the other grown by its radius).
    pub(crate) fn grown(&self, by: f64) -> Polygon {
        Polygon { vertices: self.vertices.clone(), normals: self.normals.clone(), radius: self.radius + by }
    }

    /// The polygon moved by `-anchor`, each coordinate rounded as [`frame::to_frame`] rounds it
    /// (its f32 rounding is the f32 nearest the exact difference); normals and radius kept.
    pub(crate) fn to_frame(&self, anchor: [f32; 2]) -> Polygon {
        let vertices = self.vertices.iter().map(|v| [0, 1].map(|k| frame::to_frame(v[k], anchor[k]))).collect();
        Polygon { vertices, normals: self.normals.clone(), radius: self.radius }
    }
}

/// The validation rules, one test each, on `Polygon::new` directly (tests/scene.rs checks that
/// a scene file names the failing polygon's index).
#[cfg(test)]
mod tests;
