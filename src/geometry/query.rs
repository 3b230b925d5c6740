//! Questions asked of a scene rather than of its pairs (issue 26): rays, boxes and points, each
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
}

/// The nearest body a [`Ray`] hits.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RayHit {
    /// The body hit.
    pub body: u32,
    /// Where along the ray, as a fraction of its `max_length`: 0 for a ray that starts inside
    /// (or on) the body.
    pub fraction: f64,
    /// The point hit: `origin + fraction * max_length * unit direction`.
    pub point: [f64; 2],
    /// The body's outward unit normal there; `[0, 0]` for a ray that starts inside the body.
    pub normal: [f64; 2],
}

/// Bodies overlapping an axis-aligned box (closed: touching counts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxQuery {
    /// The box (world coordinates), with an area.
    pub aabb: Aabb,
    /// Which bodies it sees.
    pub filter: Filter,
}

/// Bodies containing a point (closed: a point on the boundary counts).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PointQuery {
    /// The point (world coordinates).
    pub point: [f64; 2],
    /// Which bodies it sees.
    pub filter: Filter,
}

impl Ray {
    /// A ray with the default filter.
    pub fn new(origin: [f64; 2], direction: [f64; 2], max_length: f64) -> Ray {
        Ray { origin, direction, max_length, filter: Filter::DEFAULT }
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
