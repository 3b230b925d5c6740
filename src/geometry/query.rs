//! Questions asked of a scene rather than of its pairs (issue 26): rays, shape casts (issue 44),
//! boxes and points, each
//! with a collision filter as Box2D's `b2QueryFilter` (a body is seen when
//! `filter.should_collide(body's filter)`).

use crate::geometry::{Aabb, Filter, MAX_COORDINATE};

/// A ray: from `origin` along `direction` (any nonzero length; only its direction counts) for
/// at most `max_length` world units.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ray {
    /// Where the ray starts (world coordinates).
    pub origin: [f64; 2],
    /// Which way it goes: any finite nonzero vector.
    pub direction: [f64; 2],
    /// How far it goes (world units, finite, at least 0).
    pub max_length: f64,
    /// Which bodies it sees.
    pub filter: Filter,
    /// The world it looks into, of a world's several ([`World::set_worlds`](crate::gpu::World::set_worlds));
    /// 0 where there is one.
    #[serde(default)]
    pub world: u32,
}

/// A shape swept along a straight line (issue 44): `shapes[shape]` of the list the cast is asked
/// with (in its own frame) turned by `angle` and placed at `origin`, then moved along `direction`
/// for at most `max_length` world units. A ray is the cast of a point.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShapeCast {
    /// Which shape of the list moves.
    pub shape: u32,
    /// Where its frame starts (world coordinates).
    pub origin: [f64; 2],
    /// Its rotation (radians, counter-clockwise), kept all the way.
    pub angle: f64,
    /// Which way it moves: any finite nonzero vector.
    pub direction: [f64; 2],
    /// How far it moves (world units, finite, at least 0).
    pub max_length: f64,
    /// Which bodies it sees.
    pub filter: Filter,
    /// The world it moves in, as [`Ray::world`].
    #[serde(default)]
    pub world: u32,
}

/// The nearest body a [`Ray`] or a [`ShapeCast`] hits.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RayHit {
    /// The body hit.
    pub body: u32,
    /// Where along the ray, as a fraction of its `max_length`: 0 for a ray that starts inside
    /// (or on) the body.
    pub fraction: f64,
    /// The point hit: for a ray `origin + fraction * max_length * unit direction`; for a shape
    /// cast the point of the body's boundary that the shape first touches (the cast's `origin`
    /// where it starts touching).
    pub point: [f64; 2],
    /// The body's outward unit normal there (toward the ray or the shape); `[0, 0]` at
    /// fraction 0, for a ray that starts inside the body or a shape that starts touching it.
    pub normal: [f64; 2],
}

/// Bodies overlapping an axis-aligned box (closed: touching counts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxQuery {
    /// The box (world coordinates), `min <= max`; a side may be 0 (a segment, or a point).
    pub aabb: Aabb,
    /// Which bodies it sees.
    pub filter: Filter,
    /// The world it looks into, as [`Ray::world`].
    pub world: u32,
}

/// Bodies containing a point (closed: a point on the boundary counts).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PointQuery {
    /// The point (world coordinates).
    pub point: [f64; 2],
    /// Which bodies it sees.
    pub filter: Filter,
    /// The world it looks into, as [`Ray::world`].
    #[serde(default)]
    pub world: u32,
}

impl Ray {
    /// A ray with the default filter.
    pub fn new(origin: [f64; 2], direction: [f64; 2], max_length: f64) -> Ray {
        Ray { origin, direction, max_length, filter: Filter::DEFAULT, world: 0 }
    }

    /// Whether the ray can be cast: its origin finite and within [`MAX_COORDINATE`], its
    /// direction finite and not zero, its length finite and at least 0; otherwise
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) naming it as ray `index`.
    pub fn check(&self, index: usize) -> crate::Result<()> {
        let len = self.direction[0].hypot(self.direction[1]);
        let fits = |x: f64| x.is_finite() && x.abs() <= MAX_COORDINATE;
        let why = if !self.origin.iter().all(|&x| fits(x)) {
            format!("its origin {:?} must be finite and within {MAX_COORDINATE:e}", self.origin)
        } else if !(len.is_finite() && len > 0.0) {
            format!("its direction {:?} must be finite and not zero", self.direction)
        } else if !(self.max_length.is_finite() && self.max_length >= 0.0) {
            format!("its length {} must be finite and at least 0", self.max_length)
        } else {
            return Ok(());
        };
        Err(crate::Error::InvalidSetting { what: "ray", detail: format!("ray {index}: {why}") })
    }
}

impl BoxQuery {
    /// A box query with the default filter, in world 0.
    pub fn new(aabb: Aabb) -> BoxQuery {
        BoxQuery { aabb, filter: Filter::DEFAULT, world: 0 }
    }

    /// Whether the box can be asked: its corners finite and within [`MAX_COORDINATE`], `min`
    /// at most `max`; otherwise [`Error::InvalidSetting`](crate::Error::InvalidSetting) naming it
    /// as box `index`.
    pub fn check(&self, index: usize) -> crate::Result<()> {
        check_region("box", index, self.aabb.min, self.aabb.max)
    }
}

impl PointQuery {
    /// A point query with the default filter, in world 0.
    pub fn new(point: [f64; 2]) -> PointQuery {
        PointQuery { point, filter: Filter::DEFAULT, world: 0 }
    }

    /// Whether the point can be asked: finite and within [`MAX_COORDINATE`]; otherwise
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) naming it as point `index`.
    pub fn check(&self, index: usize) -> crate::Result<()> {
        check_region("point", index, self.point, self.point)
    }
}

/// Whether the region from `lo` to `hi` can be asked (see [`BoxQuery::check`]), named as
/// `what index`.
pub(crate) fn check_region(what: &str, index: usize, lo: [f64; 2], hi: [f64; 2]) -> crate::Result<()> {
    let fits = |x: f64| x.is_finite() && x.abs() <= MAX_COORDINATE;
    if lo.iter().chain(&hi).all(|&x| fits(x)) && lo[0] <= hi[0] && lo[1] <= hi[1] {
        return Ok(());
    }
    let detail = match lo == hi {
        true => format!("{what} {index}: {lo:?} must be finite and within {MAX_COORDINATE:e}"),
        false => format!("{what} {index}: {lo:?} to {hi:?} must be finite, within {MAX_COORDINATE:e}, min <= max"),
    };
    Err(crate::Error::InvalidSetting { what: "query", detail })
}

impl ShapeCast {
    /// The cast of shape `shape`, unturned, with the default filter.
    pub fn new(shape: u32, origin: [f64; 2], direction: [f64; 2], max_length: f64) -> ShapeCast {
        ShapeCast { shape, origin, angle: 0.0, direction, max_length, filter: Filter::DEFAULT, world: 0 }
    }

    /// Whether the cast can be made among `shapes` shapes: its shape one of them, its angle
    /// finite, and the rest as [`Ray::check`] asks; otherwise
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) naming it as cast `index`.
    pub fn check(&self, index: usize, shapes: usize) -> crate::Result<()> {
        let why = if self.shape as usize >= shapes {
            format!("its shape {} is not one of the {shapes} shapes cast", self.shape)
        } else if !self.angle.is_finite() {
            format!("its angle {} must be finite", self.angle)
        } else {
            let ray = Ray {
                origin: self.origin,
                direction: self.direction,
                max_length: self.max_length,
                filter: self.filter,
                world: self.world,
            };
            return ray.check(index).map_err(|e| match e {
                crate::Error::InvalidSetting { detail, .. } => {
                    crate::Error::InvalidSetting { what: "cast", detail: detail.replacen("ray", "cast", 1) }
                }
                e => e,
            });
        };
        Err(crate::Error::InvalidSetting { what: "cast", detail: format!("cast {index}: {why}") })
    }
}
