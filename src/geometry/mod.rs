//! Convex polygons, axis-aligned boxes and rigid transforms, validated once at the door.
//!
//! A [`Polygon`] can only be built through [`Polygon::new`], which rejects degenerate or
//! non-convex input with a [`PolygonError`] and stores the vertices counter-clockwise.
//! Everything downstream (the CPU reference, the GPU packer) trusts that invariant.

mod body;
mod decompose;
pub(crate) mod frame;
mod periodic;
mod polygon;
mod query;

#[allow(deprecated)]
pub use body::{Body, Compound, MAX_CHAIN_POINTS, MAX_PARTS};
pub use decompose::{decompose, MAX_OUTLINE_VERTICES};
pub use periodic::{Periodic, PeriodicAxes};
pub(crate) use polygon::{orient, segments_meet};
pub use polygon::{Polygon, PolygonError};
pub(crate) use query::check_region;
pub use query::{BoxQuery, PointQuery, Ray, RayHit, ShapeCast};

/// Most vertices a polygon may have. The narrow phase is O(n_a * n_b) per pair, so this is a
/// cost bound rather than a storage one.
pub const MAX_VERTICES: usize = 1024;

/// Largest magnitude of a coordinate (and of a simulation translation). The GPU computes in f32,
/// whose largest finite value is about 3.4e38; keeping inputs below 1e37 leaves room for the
/// anchor shifts, rotations and bounding-box margins of the pipeline without overflow.
pub const MAX_COORDINATE: f64 = 1e37;

/// Smallest size of a polygon (its largest coordinate difference). Below about 1e-38 f32 loses
/// precision (subnormal numbers, flushed to zero on many GPUs); 1e-30 keeps the edges of a
/// 1024-gon in the normal range.
pub const MIN_SIZE: f64 = 1e-30;

/// An axis-aligned bounding box with closed intervals: boxes that touch overlap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub min: [f64; 2],
    /// Upper corner.
    pub max: [f64; 2],
}

impl Aabb {
    /// Whether the two closed boxes share at least one point.
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min[0] <= other.max[0]
            && other.min[0] <= self.max[0]
            && self.min[1] <= other.max[1]
            && other.min[1] <= self.max[1]
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: [self.min[0].min(other.min[0]), self.min[1].min(other.min[1])],
            max: [self.max[0].max(other.max[0]), self.max[1].max(other.max[1])],
        }
    }
}

/// A rigid motion: rotate by `angle` radians (counter-clockwise) about the origin, then translate.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Transform {
    /// Translation along x.
    pub x: f64,
    /// Translation along y.
    pub y: f64,
    /// Rotation in radians, counter-clockwise.
    pub angle: f64,
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform { x: 0.0, y: 0.0, angle: 0.0 };

    /// Applies the transform to a point.
    pub fn apply(&self, p: [f64; 2]) -> [f64; 2] {
        let (s, c) = self.angle.sin_cos();
        [c * p[0] - s * p[1] + self.x, s * p[0] + c * p[1] + self.y]
    }
}

/// Which pairs may collide, as Box2D's `b2Filter`: every body has a category (bits), a mask
/// (bits) and a group.
///
/// Two bodies of the same nonzero group always collide if the group is positive and never if it
/// is negative; otherwise they collide when each one's category is in the other's mask. The
/// default (category 1, mask all ones, group 0) collides with every default body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Filter {
    /// The body's category bits.
    pub category: u32,
    /// The categories the body collides with.
    pub mask: u32,
    /// Same nonzero group: positive always collide, negative never.
    pub group: i32,
}

impl Default for Filter {
    fn default() -> Self {
        Filter::DEFAULT
    }
}

impl Filter {
    /// Category 1, mask all ones, group 0.
    pub const DEFAULT: Filter = Filter { category: 1, mask: u32::MAX, group: 0 };

    /// Whether a body with this filter may collide with one with `other`.
    pub fn should_collide(&self, other: &Filter) -> bool {
        if self.group == other.group && self.group != 0 {
            return self.group > 0;
        }
        (self.category & other.mask) != 0 && (other.category & self.mask) != 0
    }
}

/// What kind of shape a [`Polygon`] is, from its core's vertex count and its radius.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeKind {
    /// A one-point core with a positive radius.
    Circle,
    /// A two-point core with a positive radius.
    Capsule,
    /// A two-point core with radius 0: a line segment.
    Segment,
    /// A convex polygon core with a positive radius.
    RoundedPolygon,
    /// A convex polygon with radius 0.
    Polygon,
}

/// One colliding pair and its minimum translation vector.
///
/// `a < b` are polygon (or body) indices. `normal` is a unit vector pointing from `a` towards
/// `b`, and `depth >= 0`: moving `b` by `depth * normal` leaves the two polygons touching.
/// Touching polygons collide with `depth == 0`. Under a margin
/// ([`WorldOptions::margin`](crate::gpu::WorldOptions::margin)) a pair apart has `depth` minus its
/// distance, negative.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Contact {
    /// Lower index of the pair.
    pub a: u32,
    /// Higher index of the pair.
    pub b: u32,
    /// Unit separation direction, from `a` to `b`.
    pub normal: [f64; 2],
    /// Penetration depth along `normal`, never negative (but under a margin, for pairs apart).
    pub depth: f64,
}

/// A pair of bodies that touch at some moment of a sweep (continuous collision, issue 44), each
/// body moved from its pose at the start of a frame to its pose at the end (position and angle
/// linearly in time), and the first moment they touch.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Impact {
    /// Lower index of the pair.
    pub a: u32,
    /// Higher index of the pair.
    pub b: u32,
    /// When they first touch, in [0, 1] (0 at the start of the frame, 1 at its end); 0 for a
    /// pair that touches at the start.
    pub toi: f64,
}

/// The pairs that began and ended touching between two frames (contact events): `began` holds
/// the pairs of the later frame missing from the earlier, `ended` those of the earlier missing
/// from the later, each sorted by (a, b). A pair is its two indices, `a < b`; what touching means
/// is the frame's (colliding, or within the margin).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ContactEvents {
    /// Pairs that touch now and did not in the previous frame.
    pub began: Vec<[u32; 2]>,
    /// Pairs that touched in the previous frame and do not now.
    pub ended: Vec<[u32; 2]>,
}

/// One point of a contact manifold: where the two shapes touch, in world coordinates, midway
/// between their surfaces, and the penetration depth there (`>= 0`; under a margin, a pair apart
/// has points midway between its closest features, with minus the distance there: the closest
/// points are the point moved by half its depth along the normal, back toward `a`, on toward `b`).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ContactPoint {
    /// World position, midway between the two surfaces.
    pub point: [f64; 2],
    /// Penetration depth at this point, at most the pair's depth (up to rounding); never
    /// negative but under a margin, then at least minus the margin.
    pub depth: f64,
}

/// What [`ContactDetail::Full`](crate::gpu::ContactDetail::Full) adds to a colliding pair: its
/// containment flags and a manifold of one or two contact points.
///
/// Box-on-box face contact gives two points, a corner into a face one; see docs/numerics.md,
/// the numerics contract, for how the points are built and how far they may be off.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Manifold {
    /// Every point of `a` lies in `b` (closed sets, so a shape lies in itself).
    pub a_in_b: bool,
    /// Every point of `b` lies in `a`.
    pub b_in_a: bool,
    len: u8,
    points: [ContactPoint; 2],
}

impl Manifold {
    /// A manifold of one or two `points` (extra points are ignored; none gives an empty one,
    /// which no colliding pair has).
    pub fn new(a_in_b: bool, b_in_a: bool, points: &[ContactPoint]) -> Manifold {
        let len = points.len().min(2);
        let mut out = Manifold { a_in_b, b_in_a, len: len as u8, points: [ContactPoint::default(); 2] };
        out.points[..len].copy_from_slice(&points[..len]);
        out
    }

    /// The contact points: one or two.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..usize::from(self.len)]
    }
}
