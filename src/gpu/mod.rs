//! The GPU pipeline: the device ([`Gpu`]), one module per stage of the frame, and the
//! persistent [`World`] that runs them.
//!
//! Stages, in frame order, each owning its buffers, bind groups and `encode`:
//! `transform` -> `entries` -> `sort` (with `radix`) -> `sweep` (or `allpairs`) -> `narrow`
//! -> `compact` -> `manifold` (when asked for) -> `readback` -> `order`. `pack` turns host polygons into the GPU layout
//! (`layout`); `scan` is the prefix sum several stages use; `control` holds the counts and
//! indirect arguments only the GPU knows during a frame; `pass` names the passes and times them.

mod allpairs;
mod broad;
mod candidates;
mod compact;
mod context;
mod control;
mod entries;
mod frame;
mod kernels;
pub mod layout;
mod manifold;
mod narrow;
mod order;
mod ordering;
mod pack;
mod pass;
mod radix;
mod readback;
mod scan;
mod shaders;
mod shared;
mod sized;
mod sort;
mod sweep;
#[doc(hidden)]
pub mod testing;
mod transform;
mod world;

pub use broad::{BroadPhase, ALL_PAIRS_MAX};
pub use context::{describe_adapter, list_adapters, unsuitable_reason, AdapterChoice, AdapterReport, Gpu, GpuOptions};
pub use frame::{ContactDetail, ContactOrder, Frame, FrameStats, WorldOptions, STRIP_HEIGHT_FACTOR};
pub use layout::{GpuContact, GpuManifold};
pub use pass::{Pass, PassTime};
pub(crate) use readback::read_as;
pub use shaders::{shader_sources, RECORDS_WGSL};
pub use world::{check_fits, detect, detect_filtered, detect_full, World};

/// Invocations per workgroup of the per-body, per-entry and per-pair kernels (WGSL: `WG`).
pub(crate) const WG: u32 = 64;

/// Dispatches `threads` invocations in workgroups of `wg`, folding into a 2D grid of at most
/// `fold` workgroups per row; shaders recover the linear index with `linear_index` (shared WGSL).
fn dispatch(pass: &mut wgpu::ComputePass<'_>, threads: u32, wg: u32, fold: u32) {
    let groups = threads.div_ceil(wg);
    if groups > 0 {
        pass.dispatch_workgroups(groups.min(fold), groups.div_ceil(fold), 1);
    }
}

/// A storage buffer of at least `size` bytes (at least 16, a multiple of 4), uninitialised.
fn storage(device: &wgpu::Device, label: &str, size: u64, extra: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16).next_multiple_of(4),
        usage: wgpu::BufferUsages::STORAGE | extra,
        mapped_at_creation: false,
    })
}

/// A buffer holding `contents`, padded to at least 16 bytes and a multiple of 4.
///
/// In place of wgpu's `create_buffer_init`, which panics when the device is lost (its buffer is
/// then invalid and cannot be mapped): here that buffer is returned unwritten, and the loss is
/// reported by the call that made it ([`Gpu::scoped`] checks for loss afterwards).
pub(crate) fn init(device: &wgpu::Device, label: &str, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let size = (contents.len() as u64).max(16).next_multiple_of(4);
    let buffer =
        device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: true });
    if let Ok(mut view) = buffer.get_mapped_range_mut(..) {
        view.slice(..contents.len()).copy_from_slice(contents);
    }
    buffer.unmap();
    buffer
}
