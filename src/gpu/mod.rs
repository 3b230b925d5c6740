//! The GPU pipeline: device context, one module per concern, and the persistent [`World`].

mod context;
mod control;
mod kernels;
pub mod layout;
mod radix;
mod readback;
mod scan;
#[doc(hidden)]
pub mod testing;
pub mod timing;
mod world;

pub use context::{describe_adapter, list_adapters, AdapterChoice, Gpu, GpuOptions};
pub use kernels::SHADERS;
pub use timing::PassTime;
pub use world::{detect, BroadPhase, Frame, FrameStats, World, WorldOptions, ALL_PAIRS_MAX, STRIP_HEIGHT_FACTOR};

/// Dispatches `threads` invocations in workgroups of `wg`, folding into a 2D grid of at most
/// `fold` workgroups per row; shaders recover the linear index as `gid.x + gid.y * nwg.x * wg`.
fn dispatch(pass: &mut wgpu::ComputePass<'_>, threads: u32, wg: u32, fold: u32) {
    let groups = threads.div_ceil(wg);
    if groups > 0 {
        pass.dispatch_workgroups(groups.min(fold), groups.div_ceil(fold), 1);
    }
}
