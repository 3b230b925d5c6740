//! Bodies: one convex shape or several (any mix of polygons, rounded polygons, circles and
//! capsules), as a concave outline split at the door gives them or as given one by one.

use super::{decompose, Aabb, Polygon, PolygonError, Transform, MAX_OUTLINE_VERTICES};

/// Most shapes of one body: more than [`decompose`] makes of any outline it accepts.
pub const MAX_PARTS: usize = 16_384;

/// The most points a chain ([`Body::chain`]) takes.
pub const MAX_CHAIN_POINTS: usize = 1_000_000;

/// A body of one or more convex shapes, each placed in the body's own frame (as Box2D's body
/// owns its shapes). Pairs are reported between bodies, not shapes: shapes of one body never
/// collide with each other, and a colliding pair of bodies carries the normal and depth of its
/// deepest colliding shape pair.
///
/// Every detection takes its bodies as `&[B]` for any `B: AsRef<[Polygon]>`: a slice of
/// [`Body`], or a slice of [`Polygon`], each a body of one shape, with no copy.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    shapes: Vec<Polygon>,
}

/// The former name of [`Body`].
#[deprecated(since = "0.2.0", note = "a body of several shapes is a `Body`")]
pub type Compound = Body;

impl Body {
    /// A body of `shapes` (1 to [`MAX_PARTS`], each already a valid shape); they may overlap.
    pub fn new(shapes: Vec<Polygon>) -> Result<Body, PolygonError> {
        match shapes.len() {
            0 => Err(PolygonError::NoParts),
            n if n > MAX_PARTS => Err(PolygonError::TooManyParts { count: n, max: MAX_PARTS }),
            _ => Ok(Body { shapes }),
        }
    }

    /// A body whose outline is the simple polygon `vertices` (either winding, concave or not),
    /// split into convex shapes by [`decompose`].
    pub fn concave(vertices: &[[f64; 2]]) -> Result<Body, PolygonError> {
        Ok(Body { shapes: decompose(vertices)? })
    }

    /// A chain, as Box2D's chain shapes and parry's polylines: the polyline through `points`,
    /// open, or with `closed` a loop back to the first point (its outline, not a solid), grown
    /// by `radius >= 0` (0: walls of no thickness). One body of segments
    /// ([`Polygon::segment`]), one per pair of consecutive points, each its own entry in the
    /// broad phase, so that a long wall never makes one large box; a pair of a chain and
    /// another body is one pair, with its deepest segment's contact. Two-sided: a wall stops
    /// bodies from either side.
    ///
    /// An open chain takes 2 to [`MAX_CHAIN_POINTS`] points, a loop 3 or more
    /// ([`PolygonError::ChainPoints`]); two consecutive points that are equal are a segment of
    /// zero length, named by its index ([`PolygonError::InPart`] with
    /// [`PolygonError::DegenerateSegment`]), as is any other bad point.
    pub fn chain(points: &[[f64; 2]], closed: bool, radius: f64) -> Result<Body, PolygonError> {
        let n = points.len();
        if n < 2 + usize::from(closed) || n > MAX_CHAIN_POINTS {
            return Err(PolygonError::ChainPoints { count: n, closed, max: MAX_CHAIN_POINTS });
        }
        let segments = if closed { n } else { n - 1 };
        let shapes = (0..segments)
            .map(|i| {
                let (a, b) = (points[i], points[(i + 1) % n]);
                Polygon::segment(a, b, radius).map_err(|e| PolygonError::InPart { part: i, reason: Box::new(e) })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Body { shapes })
    }

    /// The walls of a walkable area, as JuPedSim describes a scene: the polygon `exterior` with
    /// `holes` (obstacles), each ring one closed [`chain`](Body::chain) of radius `radius`: the
    /// exterior's loop first, then one per hole in order. A ring may repeat its first point at
    /// the end (WKT and shapely do): that point is dropped. Whether the rings nest or cross is
    /// not checked: they are walls wherever they run. A ring that is not a valid loop is
    /// [`PolygonError::InRing`] naming it, with the chain's reason inside.
    pub fn walls<R: AsRef<[[f64; 2]]>>(
        exterior: &[[f64; 2]],
        holes: &[R],
        radius: f64,
    ) -> Result<Vec<Body>, PolygonError> {
        std::iter::once(exterior)
            .chain(holes.iter().map(AsRef::as_ref))
            .enumerate()
            .map(|(ring, points)| {
                let open = match points {
                    [first, .., last] if first == last && points.len() > 2 => &points[..points.len() - 1],
                    _ => points,
                };
                Body::chain(open, true, radius).map_err(|e| PolygonError::InRing { ring, reason: Box::new(e) })
            })
            .collect()
    }

    /// The shapes, in the body's frame.
    pub fn shapes(&self) -> &[Polygon] {
        &self.shapes
    }

    /// The shapes, by value.
    pub fn into_shapes(self) -> Vec<Polygon> {
        self.shapes
    }

    /// The former name of [`shapes`](Body::shapes).
    #[deprecated(since = "0.2.0", note = "use `shapes`")]
    pub fn parts(&self) -> &[Polygon] {
        &self.shapes
    }

    /// The body moved by `t`: every shape moved alike.
    pub fn transformed(&self, t: &Transform) -> Body {
        Body { shapes: self.shapes.iter().map(|p| p.transformed(t)).collect() }
    }

    /// The tight bounding box of all shapes.
    pub fn aabb(&self) -> Aabb {
        self.shapes.iter().map(Polygon::aabb).fold(self.shapes[0].aabb(), |a, b| a.union(&b))
    }

    /// The body from an outline rounded by `radius`: one convex shape where it is one, or, where it is
    /// concave or has more than [`MAX_VERTICES`](crate::MAX_VERTICES) vertices (up to
    /// [`MAX_OUTLINE_VERTICES`]), its convex parts from [`decompose`], each rounded by `radius` (the
    /// rounded outline is the union of the rounded parts). An outline convex in exact arithmetic
    /// is one shape however slightly its corners turn (as the parts of a rotated outline with
    /// collinear vertices do, written out and read back); an exactly straight vertex is dropped.
    /// Other refusals are [`Polygon::rounded`]'s.
    pub fn from_outline(vertices: Vec<[f64; 2]>, radius: f64) -> Result<Body, PolygonError> {
        if vertices.len() > MAX_OUTLINE_VERTICES {
            return Err(PolygonError::TooManyVertices { count: vertices.len(), max: MAX_OUTLINE_VERTICES });
        }
        match Polygon::convex_winding(&vertices) {
            Ok(sign) => Polygon::with_winding(vertices, sign, radius).map(Body::from),
            Err(
                e @ (PolygonError::NonConvex { .. }
                | PolygonError::TooManyVertices { .. }
                | PolygonError::Collinear { .. }
                | PolygonError::ZeroArea),
            ) => {
                // Refused by Polygon::new's margins only: convex exactly.
                if let Some(sign) = Polygon::exact_convex_winding(&vertices) {
                    return Polygon::with_winding(vertices, sign, radius).map(Body::from);
                }
                if e == PolygonError::ZeroArea {
                    return Err(e);
                }
                let mut parts = decompose(&vertices)?;
                if parts.len() == 1 {
                    let part = parts.pop().expect("one part");
                    return Polygon::with_winding(part.vertices().to_vec(), 1.0, radius).map(Body::from);
                }
                let rounded = parts
                    .into_iter()
                    .map(|p| Polygon::with_winding(p.vertices().to_vec(), 1.0, radius))
                    .collect::<Result<Vec<_>, _>>()?;
                Body::new(rounded)
            }
            Err(e) => Err(e),
        }
    }
}

impl From<Polygon> for Body {
    /// A body of one shape.
    fn from(p: Polygon) -> Body {
        Body { shapes: vec![p] }
    }
}

impl AsRef<[Polygon]> for Body {
    /// The body's shapes.
    fn as_ref(&self) -> &[Polygon] {
        &self.shapes
    }
}

impl AsRef<[Polygon]> for Polygon {
    /// A polygon as a body of one shape.
    fn as_ref(&self) -> &[Polygon] {
        std::slice::from_ref(self)
    }
}
