//! Finds every colliding pair among large sets of 2D convex shapes (polygons, rounded polygons,
//! circles, capsules) on the GPU (wgpu + WGSL),
//! and proves it against an independent f64 CPU reference.
//!
//! Data flows one way:
//!
//! ```text
//! polygons -> Polygon::new (validate, counter-clockwise, unit normals)      geometry
//!          -> pack shapes, bodies, transforms                                gpu/pack.rs
//!          -> GPU: transform + AABBs -> strip entries -> radix sort -> sweep gpu/<stage>.rs,
//!             -> candidate pairs -> SAT -> compaction                       shaders/
//!          -> readback, sorted by (a, b)                                     gpu/readback.rs, order.rs
//!          -> CLI (feature `cli`) or your code
//! ```
//!
//! The CPU reference ([`reference`](mod@reference)) is written separately from the mathematics, and
//! [`validate::compare`] checks GPU results against it under the numerics contract described in
//! the README (exact for small integer coordinates, a documented f32 band elsewhere).
//!
//! # Example
//!
//! ```no_run
//! use satgpu::gpu::{detect, Gpu, GpuOptions};
//! use satgpu::Polygon;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let gpu = Gpu::new(&GpuOptions::default())?;
//! let polygons = vec![
//!     Polygon::new(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])?,
//!     Polygon::new(vec![[1.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0]])?, // shares an edge
//! ];
//! let contacts = detect(&gpu, &polygons)?;
//! assert_eq!((contacts[0].a, contacts[0].b, contacts[0].depth), (0, 1, 0.0));
//! assert_eq!(contacts[0].normal, [1.0, 0.0]); // from a to b
//! # Ok(())
//! # }
//! ```
//!
//! For simulations that move bodies every frame, see [`gpu::World`].

#![warn(missing_docs)]

pub mod error;
pub mod geometry;
pub mod gpu;
pub mod memory;
pub mod reference;
pub mod scene;
pub mod sim;
pub mod validate;

pub use error::{Error, Result};
pub use geometry::{
    Aabb, Contact, ContactPoint, Filter, Manifold, Polygon, PolygonError, ShapeKind, Transform, MAX_COORDINATE,
    MAX_VERTICES, MIN_SIZE,
};
/// The wgpu this crate is built on, for [`gpu::Gpu::from_device`] and the resident buffers:
/// use `satgpu::wgpu` rather than a `wgpu` dependency of your own, so that the versions match.
pub use wgpu;
