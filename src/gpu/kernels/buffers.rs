//! Buffer and dispatch helpers every layer above uses.

/// Dispatches `threads` invocations in workgroups of `wg`, folding into a 2D grid of at most
/// `fold` workgroups per row; shaders recover the linear index with `linear_index` (shared WGSL).
pub(crate) fn dispatch(pass: &mut wgpu::ComputePass<'_>, threads: u32, wg: u32, fold: u32) {
    let groups = threads.div_ceil(wg);
    if groups > 0 {
        pass.dispatch_workgroups(groups.min(fold), groups.div_ceil(fold), 1);
    }
}

/// A storage buffer of at least `size` bytes (at least 16, a multiple of 4), uninitialised.
pub(crate) fn storage(device: &wgpu::Device, label: &str, size: u64, extra: wgpu::BufferUsages) -> wgpu::Buffer {
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
/// reported by the call that made it (`Gpu::scoped` checks for loss afterwards).
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
