//! satgpu (work in progress)
pub mod bench;
pub mod error;
pub mod geometry;
pub mod gpu;
pub mod reference;
pub mod scene;
pub mod validate;

pub use error::{Error, Result};
pub use geometry::{Aabb, Contact, Polygon, PolygonError, Transform, MAX_VERTICES};
