//! Bodies of several convex parts: a concave outline split at the door, or parts given one by
//! one (any mix of polygons, rounded polygons, circles and capsules).

use super::{decompose, Aabb, Polygon, PolygonError, Transform, MAX_OUTLINE_VERTICES};

/// Most parts of one body: more than [`decompose`] makes of any outline it accepts.
pub const MAX_PARTS: usize = 16_384;

/// A body of one or more convex parts, each placed in the body's own frame. Pairs are reported
/// between bodies, not parts: parts of one body never collide with each other, and a colliding
/// pair of bodies carries the normal and depth of its deepest colliding part pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Compound {
    parts: Vec<Polygon>,
}

impl Compound {
    /// A body of `parts` (1 to [`MAX_PARTS`], each already a valid shape); they may overlap.
    pub fn new(parts: Vec<Polygon>) -> Result<Compound, PolygonError> {
        match parts.len() {
            0 => Err(PolygonError::NoParts),
            n if n > MAX_PARTS => Err(PolygonError::TooManyParts { count: n, max: MAX_PARTS }),
            _ => Ok(Compound { parts }),
        }
    }

    /// A body whose outline is the simple polygon `vertices` (either winding, concave or not),
    /// split into convex parts by [`decompose`].
    pub fn concave(vertices: &[[f64; 2]]) -> Result<Compound, PolygonError> {
        Ok(Compound { parts: decompose(vertices)? })
    }

    /// The parts, in the body's frame.
    pub fn parts(&self) -> &[Polygon] {
        &self.parts
    }

    /// The parts, by value.
    pub fn into_parts(self) -> Vec<Polygon> {
        self.parts
    }

    /// The body moved by `t`: every part moved alike.
    pub fn transformed(&self, t: &Transform) -> Compound {
        Compound { parts: self.parts.iter().map(|p| p.transformed(t)).collect() }
    }

    /// Every part moved into the frame of `anchor` ([`Polygon::to_frame`]).
    pub(crate) fn to_frame(&self, anchor: [f32; 2]) -> Compound {
        Compound { parts: self.parts.iter().map(|p| p.to_frame(anchor)).collect() }
    }

    /// The tight bounding box of all parts.
    pub fn aabb(&self) -> Aabb {
        self.parts.iter().map(Polygon::aabb).fold(self.parts[0].aabb(), |a, b| Aabb {
            min: [a.min[0].min(b.min[0]), a.min[1].min(b.min[1])],
            max: [a.max[0].max(b.max[0]), a.max[1].max(b.max[1])],
        })
    }
}

/// A body as an outline gives it: one shape, or several parts.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// One convex shape.
    Shape(Polygon),
    /// Several convex parts.
    Compound(Compound),
}

impl Body {
    /// The body from an outline rounded by `radius`: the convex polygon it is, or, where it is
    /// concave or has more than [`MAX_VERTICES`](crate::MAX_VERTICES) vertices (up to
    /// [`MAX_OUTLINE_VERTICES`]), its parts from [`decompose`], each rounded by `radius` (the
    /// rounded outline is the union of the rounded parts). An outline convex in exact arithmetic
    /// is one shape however slightly its corners turn (as the parts of a rotated outline with
    /// collinear vertices do, written out and read back); an exactly straight vertex is dropped.
    /// Other refusals are [`Polygon::rounded`]'s.
    pub fn from_outline(vertices: Vec<[f64; 2]>, radius: f64) -> Result<Body, PolygonError> {
        if vertices.len() > MAX_OUTLINE_VERTICES {
            return Err(PolygonError::TooManyVertices { count: vertices.len(), max: MAX_OUTLINE_VERTICES });
        }
        match Polygon::convex_winding(&vertices) {
            Ok(sign) => Polygon::with_winding(vertices, sign, radius).map(Body::Shape),
            Err(
                e @ (PolygonError::NonConvex { .. }
                | PolygonError::TooManyVertices { .. }
                | PolygonError::Collinear { .. }
                | PolygonError::ZeroArea),
            ) => {
                // Refused by Polygon::new's margins only: convex exactly.
                if let Some(sign) = Polygon::exact_convex_winding(&vertices) {
                    return Polygon::with_winding(vertices, sign, radius).map(Body::Shape);
                }
                if e == PolygonError::ZeroArea {
                    return Err(e);
                }
                let mut parts = decompose(&vertices)?;
                if parts.len() == 1 {
                    let part = parts.pop().expect("one part");
                    return Polygon::with_winding(part.vertices().to_vec(), 1.0, radius).map(Body::Shape);
                }
                let rounded = parts
                    .into_iter()
                    .map(|p| Polygon::with_winding(p.vertices().to_vec(), 1.0, radius))
                    .collect::<Result<Vec<_>, _>>()?;
                Compound::new(rounded).map(Body::Compound)
            }
            Err(e) => Err(e),
        }
    }
}

impl From<Polygon> for Compound {
    /// A body of one part.
    fn from(p: Polygon) -> Compound {
        Compound { parts: vec![p] }
    }
}
