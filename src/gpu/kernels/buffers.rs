//! Buffer and dispatch helpers every layer above uses.

/// Dispatches `threads` invocations in workgroups of `wg`, folding into a 2D grid of at most
/// `fold` workgroups per row; shaders recover the linear index with `linear_index` (shared WGSL).
pub(crate) fn dispatch(pass: &mut wgpu::ComputePass<'_>, threads: u32, wg: u32, fold: u32) {
    let groups = threads.div_ceil(wg);
    if groups > 0 {
        pass.dispatch_workgroups(groups.min(fold), groups.div_ceil(fold), 1);
    }
}

/// Bytes per parallel task of a staging copy.
const COPY_PIECE: usize = 1 << 20;

/// `bytes` (a multiple of 4) written to the start of `buffer` at the next submission, through
/// wgpu's staging memory: copied there on every core when large (one thread's copy into staging
/// memory, write-combined on many GPUs, runs far below memory speed), as `write_buffer` otherwise.
pub(crate) fn write_parallel(queue: &wgpu::Queue, buffer: &wgpu::Buffer, bytes: &[u8]) {
    let staging = match std::num::NonZeroU64::new(bytes.len() as u64) {
        Some(size) if bytes.len() >= 2 * COPY_PIECE => queue.write_buffer_with(buffer, 0, size),
        _ => None,
    };
    // Small, or refused (a lost device, say): wgpu's own write, which reports any error.
    match staging {
        Some(mut staging) => copy_parallel(staging.slice(..), bytes),
        None => queue.write_buffer(buffer, 0, bytes),
    }
}

/// `bytes` copied into the write-only memory `to` (as long), on every core when large.
fn copy_parallel(to: wgpu::WriteOnly<'_, [u8]>, bytes: &[u8]) {
    use rayon::prelude::*;
    if bytes.len() < 2 * COPY_PIECE {
        let mut to = to;
        return to.copy_from_slice(bytes);
    }
    // Pieces of a fixed size (wgpu's write-only views may go to other threads as arrays only),
    // and the rest.
    let (pieces, mut rest) = to.into_chunks::<COPY_PIECE>();
    let full = bytes.len() / COPY_PIECE * COPY_PIECE;
    let pieces: Vec<_> = pieces.into_iter().collect();
    pieces.into_par_iter().zip(bytes[..full].par_chunks(COPY_PIECE)).for_each(|(piece, chunk)| {
        let mut piece: wgpu::WriteOnly<'_, [u8]> = piece.into();
        piece.copy_from_slice(chunk);
    });
    rest.copy_from_slice(&bytes[full..]);
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
        copy_parallel(view.slice(..contents.len()), contents);
    }
    buffer.unmap();
    buffer
}
