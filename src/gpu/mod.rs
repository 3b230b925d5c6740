//! The GPU pipeline: the device ([`Gpu`]), the stages of the frame, and the persistent
//! [`World`] that runs them.
//!
//! The folders are layers; a file imports only from the layers below its own (tests/layers.rs
//! checks it):
//!
//! 1. `kernels/`: the WGSL composer, the pipelines, and what Rust and WGSL share (constants,
//!    the control buffer's word offsets, the GPU records of [`layout`]).
//! 2. `device/`: the adapter, device, queue, error scopes, timeouts; the passes and timestamps.
//!    `host/` sits beside it: packing polygons into the GPU layout, ordering pairs after readback.
//! 3. `primitives/`: scan and radix sort, knowing nothing of collisions.
//! 4. `resources.rs`: the buffers of bodies, strip entries and candidate pairs.
//! 5. `stages/`: transform, entries, sort, sweep or all pairs, narrow, compact, ordering, manifold,
//!    readback; each takes the buffers it reads and writes, and none names another.
//! 6. `world/`: the recipe of a frame: wiring the stages to the buffers, growth, batches, collection.

mod device;
mod host;
mod kernels;
mod primitives;
mod resources;
mod stages;
#[doc(hidden)]
pub mod testing;
mod world;

pub use device::adapter::{describe_adapter, list_adapters, unsuitable_reason, AdapterReport};
pub use device::context::{AdapterChoice, Gpu, GpuOptions, LONGEST_WAIT};
pub use device::pass::{HostSpan, Pass, PassTime};
pub use host::pack::{Pose, PoseArrays, PoseScalar, ROTATION_TOLERANCE};
pub(crate) use kernels::buffers::init as init_buffer;
pub use kernels::layout;
pub use kernels::layout::{GpuContact, GpuManifold, GpuTransform};
pub(crate) use kernels::pipelines::Program;
pub use kernels::shaders::{shader_sources, RECORDS_WGSL};
pub(crate) use stages::readback::{read_as, read_copies};
pub use world::broad::{BroadPhase, ALL_PAIRS_MAX};
pub(crate) use world::growth::Fit;
pub use world::options::{
    ContactDetail, ContactOrder, DetectOptions, Frame, FrameStats, WorldOptions, MAX_WORLDS, STRIP_HEIGHT_FACTOR,
};
pub use world::plan::Question;
pub use world::view::ContactView;
pub use world::{check_fits, detect, neighbours, World};
