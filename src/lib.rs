#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod crowd;
pub mod error;
pub mod geometry;
pub mod gpu;
pub mod memory;
pub mod named;
pub mod neighbours;
mod options;
pub mod reference;
pub mod scene;
pub mod sim;
#[cfg(test)]
mod twins;
mod units;
pub mod validate;

pub use error::{Error, Result};
#[allow(deprecated)]
pub use geometry::Compound;
pub use geometry::{
    Aabb, Body, BoxQuery, Contact, ContactEvents, ContactPoint, Filter, Impact, Manifold, Periodic, PeriodicAxes,
    PointQuery, Polygon, PolygonError, Ray, RayHit, ShapeCast, ShapeKind, Transform, MAX_COORDINATE, MAX_VERTICES,
    MIN_SIZE,
};
pub use gpu::DetectOptions;
pub use options::{ContactDetail, ContactOrder};
/// The wgpu this crate is built on, for [`gpu::Gpu::from_device`] and the resident buffers:
/// use `satgpu::wgpu` rather than a `wgpu` dependency of your own, so that the versions match.
pub use wgpu;

/// The Rust blocks of the guide (docs/guide.md) and of how-it-works, compiled as doctests so
/// that what a user copies from them compiles.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide.md")]
#[doc = include_str!("../docs/how-it-works.md")]
pub struct GuideDoctests;
