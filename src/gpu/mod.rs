//! The GPU pipeline: device context, one module per concern, and the persistent [`World`].

mod context;
mod kernels;
pub mod layout;
mod readback;
mod scan;
pub mod timing;
mod world;

pub use context::{describe_adapter, list_adapters, AdapterChoice, Gpu, GpuOptions};
pub use kernels::SHADERS;
pub use timing::PassTime;
pub use world::{detect, Frame, FrameStats, World, WorldOptions};
