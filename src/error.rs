//! The crate's error type. Every failure a caller can cause or meet is a variant here, with
//! enough context (polygon index, file position, adapter name) to act on it.

use std::path::PathBuf;

pub use crate::geometry::PolygonError;

/// Everything that can go wrong in satgpu.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A polygon failed validation; `index` is its position in the input.
    #[error("polygon {index} {reason}")]
    InvalidPolygon {
        /// Position of the polygon in the input list.
        index: usize,
        /// What is wrong with it.
        reason: PolygonError,
    },
    /// A polygon failed validation where satgpu does not know its index: `?` on
    /// [`Polygon::new`](crate::Polygon::new) in a function that returns [`Result`]. Use
    /// [`PolygonError::at`] to name the index when you know it.
    #[error("polygon {0}")]
    Polygon(#[from] PolygonError),
    /// A body refers to a shape that does not exist.
    #[error("body {body} uses shape {shape}, but only {shapes} shapes were given")]
    UnknownShape {
        /// Index of the body.
        body: usize,
        /// The shape index it named.
        shape: usize,
        /// How many shapes exist.
        shapes: usize,
    },
    /// A transform has a NaN or infinite component.
    #[error("transform {body} is not finite ({x}, {y}, angle {angle})")]
    NonFiniteTransform {
        /// Index of the body.
        body: usize,
        /// Its x translation.
        x: f64,
        /// Its y translation.
        y: f64,
        /// Its angle.
        angle: f64,
    },
    /// A transform's translation is finite but outside the range the GPU computes in.
    #[error("transform {body} translates by ({x}, {y}), outside the supported range of +-{max:e} per coordinate")]
    TransformOutOfRange {
        /// Index of the body.
        body: usize,
        /// Its x translation.
        x: f64,
        /// Its y translation.
        y: f64,
        /// The largest magnitude allowed ([`MAX_COORDINATE`](crate::geometry::MAX_COORDINATE)).
        max: f64,
    },
    /// A [`GpuTransform`](crate::gpu::GpuTransform)'s `(cos, sin)` is not a unit vector: it would
    /// scale the body as well as rotate it.
    #[error("transform {body} rotates by (cos {cos}, sin {sin}), not a unit vector: cos² + sin² is more than {tolerance:e} from 1")]
    RotationNotUnit {
        /// Index of the body.
        body: usize,
        /// Its cosine.
        cos: f64,
        /// Its sine.
        sin: f64,
        /// How far `cos² + sin²` may be from 1 ([`ROTATION_TOLERANCE`](crate::gpu::ROTATION_TOLERANCE)).
        tolerance: f64,
    },
    /// The number of transforms given does not match the number of bodies.
    #[error("got {got} transforms for {expected} bodies")]
    TransformCount {
        /// Transforms given.
        got: usize,
        /// Bodies in the world.
        expected: usize,
    },
    /// The number of filters given does not match the number of bodies.
    #[error("got {got} collision filters for {expected} bodies")]
    FilterCount {
        /// Filters given.
        got: usize,
        /// Bodies in the world.
        expected: usize,
    },
    /// A scene file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A scene file is not valid JSON or does not have the expected shape.
    #[error("{path}: invalid scene JSON at line {line}, column {column}: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// A scene file has no top-level `polygons` array.
    #[error("{path}: the scene has no \"polygons\" array (expected {{\"polygons\": [{{\"vertices\": [[x, y], ...]}}, ...]}})")]
    MissingPolygons {
        /// The file.
        path: PathBuf,
    },
    /// Text that is not the one WKT `POLYGON` a walkable area is read from
    /// ([`parse_wkt_polygon`](crate::scene::parse_wkt_polygon)).
    #[error("invalid WKT at column {column}: {message}")]
    Wkt {
        /// 1-based column (in characters) where reading stopped.
        column: usize,
        /// What was expected there.
        message: String,
    },
    /// A scene file's `"walls"`, or a walls file ([`read_walls`](crate::scene::read_walls)),
    /// cannot be read ([`Error::Wkt`]) or are not valid walls
    /// ([`PolygonError::InRing`]).
    #[error("{path}: \"walls\": {}", walls_reason(reason))]
    InvalidWalls {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: Box<Error>,
    },
    /// No usable GPU adapter was found.
    #[error("no GPU adapter found{detail}. Install a driver; for a software adapter on Debian/Ubuntu: `apt-get install mesa-vulkan-drivers libvulkan1`")]
    NoAdapter {
        /// What was asked for (for example ", software adapter requested").
        detail: String,
    },
    /// The adapter cannot run this pipeline (no compute shaders, limits too small): see
    /// [`unsuitable_reason`](crate::gpu::unsuitable_reason).
    #[error("adapter \"{adapter}\" cannot run satgpu: {reason}")]
    UnsuitableAdapter {
        /// Adapter name.
        adapter: String,
        /// What it lacks.
        reason: String,
    },
    /// The input needs more GPU memory than one buffer binding can hold.
    #[error("{what} needs {needed} bytes, but the adapter allows at most {limit} bytes per storage buffer")]
    TooLarge {
        /// Which buffer.
        what: &'static str,
        /// Bytes it would need.
        needed: u64,
        /// The adapter's limit.
        limit: u64,
    },
    /// The work needs more memory than the host has available (on a software adapter the
    /// device's buffers count too, since they live in the host's memory), or than a
    /// [`GpuOptions::with_memory_limit`](crate::gpu::GpuOptions::with_memory_limit) allows.
    /// Checked before anything is allocated: nothing is left half-built, and a
    /// [`World`](crate::gpu::World) refused at growth keeps working at its old size.
    #[error("{what} need about {} ({memory}); {} are available", crate::units::human_bytes(*.needed), crate::units::human_bytes(*.available))]
    NotEnoughMemory {
        /// What was asked for, for example "50,000,000 round polygons".
        what: String,
        /// Where the bytes would live: "host and software GPU" or "host".
        memory: &'static str,
        /// Bytes the estimate ([`memory::estimate`](crate::memory::estimate)) needs.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// The result does not fit in host memory.
    #[error("{what} need {needed} bytes of host memory, which could not be allocated")]
    HostMemory {
        /// What was being stored.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
    },
    /// A crowd's input is refused ([`crowd`](crate::crowd)): its walkable area, its exit, an
    /// agent or a parameter, named in `what`.
    #[error("{what} {detail}")]
    Crowd {
        /// What is refused, for example "agent 12 at (1, 2)".
        what: String,
        /// Why, for example "is outside the walkable area".
        detail: String,
    },
    /// A setting is out of its range (simulation options, say).
    #[error("invalid {what}: {detail}")]
    InvalidSetting {
        /// Which setting.
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// The device reported an error (validation, out of memory) for satgpu's own work. The
    /// [`World`](crate::gpu::World) that returned it stays usable: its next step starts afresh.
    #[error("GPU device error: {0}")]
    Device(String),
    /// The device is lost (driver reset, device destroyed, GPU removed), with wgpu's reason.
    /// Nothing on it can run again: open a new [`Gpu`](crate::gpu::Gpu) and move each
    /// [`World`](crate::gpu::World) to it with
    /// [`World::rebuild_on`](crate::gpu::World::rebuild_on).
    #[error("the GPU device was lost ({0}); open a new Gpu and rebuild its worlds on it")]
    DeviceLost(String),
    /// The GPU did not finish in time. The [`World`](crate::gpu::World) that returned it stays
    /// usable: its next step waits for the late work first.
    #[error("GPU did not finish {what} within {timeout:?}")]
    Timeout {
        /// What was waited for.
        what: &'static str,
        /// The timeout.
        timeout: std::time::Duration,
    },
}

/// Shorthand for `Result<T, satgpu::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl PolygonError {
    /// This error as [`Error::InvalidPolygon`] for the polygon at `index` of the caller's input.
    pub fn at(self, index: usize) -> Error {
        Error::InvalidPolygon { index, reason: self }
    }
}

/// [`Error::InvalidWalls`]'s reason, a ring's error without the word "polygon" in front.
fn walls_reason(reason: &Error) -> String {
    match reason {
        Error::Polygon(e) => e.to_string(),
        other => other.to_string(),
    }
}
