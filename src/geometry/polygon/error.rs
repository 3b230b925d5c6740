//! [`PolygonError`]: what is wrong with a list of points, and where.

/// Why a list of points is not a valid convex polygon. Vertex indices refer to the input order.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PolygonError {
    /// Fewer than three vertices.
    #[error("has {count} vertices; a polygon needs at least 3")]
    TooFewVertices {
        /// Number of vertices given.
        count: usize,
    },
    /// More vertices than [`MAX_VERTICES`](crate::geometry::MAX_VERTICES).
    #[error("has {count} vertices; at most {max} are supported")]
    TooManyVertices {
        /// Number of vertices given.
        count: usize,
        /// The supported maximum.
        max: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("vertex {vertex} has a non-finite coordinate ({x}, {y})")]
    NonFinite {
        /// Input index of the vertex.
        vertex: usize,
        /// Its x coordinate.
        x: f64,
        /// Its y coordinate.
        y: f64,
    },
    /// A coordinate is finite but its magnitude exceeds [`MAX_COORDINATE`](crate::geometry::MAX_COORDINATE).
    #[error("vertex {vertex} ({x}, {y}) is outside the supported range of +-{max:e} per coordinate (the GPU computes in f32)")]
    OutOfRange {
        /// Input index of the vertex.
        vertex: usize,
        /// Its x coordinate.
        x: f64,
        /// Its y coordinate.
        y: f64,
        /// The largest magnitude allowed.
        max: f64,
    },
    /// The polygon is smaller than [`MIN_SIZE`](crate::geometry::MIN_SIZE).
    #[error("has size {size:e}, below the smallest supported size {min:e} (the GPU computes in f32)")]
    TooSmall {
        /// Largest coordinate difference between two of its vertices.
        size: f64,
        /// The smallest size allowed.
        min: f64,
    },
    /// Two consecutive vertices (the last and the first count as consecutive) are equal.
    #[error("vertex {vertex} repeats the previous vertex ({x}, {y}); do not repeat the first vertex at the end")]
    DuplicateVertex {
        /// Input index of the repeated vertex.
        vertex: usize,
        /// Its x coordinate.
        x: f64,
        /// Its y coordinate.
        y: f64,
    },
    /// All vertices lie on one line.
    #[error("has zero area (all vertices are collinear)")]
    ZeroArea,
    /// A vertex lies on the line through its two neighbours.
    #[error("vertex {vertex} is collinear with its neighbours; remove it")]
    Collinear {
        /// Input index of the vertex.
        vertex: usize,
    },
    /// Two edges of the outline cross or touch: the outline intersects itself (a bow-tie, a
    /// star). Edge `k` runs from vertex `k` to the next one (the last edge back to vertex 0).
    #[error("intersects itself: edges {first} and {second} cross (edge k runs from vertex k to the next)")]
    SelfIntersecting {
        /// The first of the two edges, by input index.
        first: usize,
        /// The second, after `first`.
        second: usize,
    },
    /// The outline is simple but turns the other way at this vertex (concave).
    #[error("is not convex (at vertex {vertex})")]
    NonConvex {
        /// Input index of the offending vertex.
        vertex: usize,
    },
    /// The radius is NaN, infinite, negative, too large, or zero where a positive radius is
    /// required (circles and capsules).
    #[error("has radius {radius}; {requirement}")]
    BadRadius {
        /// The radius given.
        radius: f64,
        /// What the radius must be.
        requirement: &'static str,
    },
    /// A scene entry gives none of `vertices`, `circle`, `capsule` and `parts`.
    #[error("gives no shape: an entry needs one of \"vertices\", \"circle\", \"capsule\", \"segment\", \"chain\" or \"parts\"")]
    MissingShape,
    /// A scene entry gives more than one of `vertices`, `circle`, `capsule`, `segment` and
    /// `parts`, or a top-level `radius` beside a circle, capsule or segment (whose radius goes
    /// inside them).
    #[error("gives more than one shape ({fields}); an entry needs exactly one of \"vertices\" (with an optional \"radius\"), \"circle\", \"capsule\", \"segment\", \"chain\" or \"parts\"")]
    ConflictingShapes {
        /// The fields given, comma separated.
        fields: String,
    },
    /// A concave outline that passed every check but could not be split into convex parts. The
    /// splitter decides every turn exactly, so a simple outline always splits; this names an
    /// internal failure (please report the outline) rather than a refusal for precision.
    #[error("could not be split into convex parts (an internal error of the splitter: please report this outline)")]
    Undecomposable,
    /// A part of a compound scene entry is invalid; `reason` says why.
    #[error("part {part} {reason}")]
    InPart {
        /// The part's index in the entry's `"parts"`.
        part: usize,
        /// What is wrong with it.
        reason: Box<PolygonError>,
    },
    /// A scene entry gives `"holes"`: not supported, and refused rather than ignored.
    #[error(
        "has \"holes\", which satgpu does not support; give the body as \"parts\" that leave each hole \
         out"
    )]
    Holes,
    /// A part of a compound scene entry gives a field that belongs to the body (`"category"`,
    /// `"mask"`, `"group"`) or nests `"parts"`.
    #[error("part {part} gives {field:?}: a body's filter goes on the body, and parts do not nest")]
    PartField {
        /// The part's index in the entry's `"parts"`.
        part: usize,
        /// The field.
        field: &'static str,
    },
    /// A compound body with no parts.
    #[error("has no parts; a compound body needs at least one")]
    NoParts,
    /// A compound body with more than [`MAX_PARTS`](crate::geometry::MAX_PARTS) parts.
    #[error("has {count} parts; at most {max} are supported")]
    TooManyParts {
        /// Number of parts given.
        count: usize,
        /// The supported maximum.
        max: usize,
    },
    /// A capsule whose two end points are equal (use a circle instead).
    #[error("is a capsule whose two points are equal ({x}, {y}); use a circle")]
    DegenerateCapsule {
        /// x of the repeated point.
        x: f64,
        /// y of the repeated point.
        y: f64,
    },
    /// A ring of a walkable area's boundary ([`Body::walls`](crate::Body::walls)) is not a valid
    /// loop; `reason` says why (its segments numbered from its first point).
    #[error("ring {ring} ({}) {reason}", if *ring == 0 { "the exterior" } else { "a hole" })]
    InRing {
        /// 0 for the exterior, then the holes in order from 1.
        ring: usize,
        /// What is wrong with it.
        reason: Box<PolygonError>,
    },
    /// A chain of too few or too many points: an open chain needs 2 to `max`, a loop 3 to `max`.
    #[error("is a chain of {count} points; an open chain needs 2 to {max}, a loop 3 to {max}")]
    ChainPoints {
        /// The points given.
        count: usize,
        /// Whether the chain is a loop.
        closed: bool,
        /// The most a chain takes.
        max: usize,
    },
    /// A segment of zero length: its two end points are equal.
    #[error("is a segment of zero length: both points are ({x}, {y})")]
    DegenerateSegment {
        /// x of the repeated point.
        x: f64,
        /// y of the repeated point.
        y: f64,
    },
}
