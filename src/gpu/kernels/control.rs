//! The control buffer: one small storage buffer holding every count and indirect dispatch argument
//! that only the GPU knows during a frame, so a whole frame runs from one submission with no
//! readback in the middle. The shaders get these offsets from the generated `constants` module
//! (src/gpu/kernels/shaders.rs).
//!
//! Regions are 64 words (256 bytes, the largest storage offset alignment WebGPU allows), so a
//! scan can bind its own region.

/// Words per region.
pub(crate) const REGION: u64 = 64;
/// Frame region, word 16: strip grid (y0, strips per unit y, strips of each world, x key bits,
/// x0, x buckets per unit x, x bits kept, worlds), written by control_grid.wgsl.
pub(crate) const GRID: u64 = 16;
/// Frame region, word 24: candidate pairs to test (the candidate total clamped to capacity).
pub(crate) const PAIRS: u64 = 24;
/// Frame region, word 28: (x, y, z) indirect arguments of the per-pair passes.
pub(crate) const PAIR_ARGS: u64 = 28;
/// Frame region, word 32: (x, y, z) indirect arguments of the per-entry passes.
pub(crate) const ENTRY_ARGS: u64 = 32;
/// Frame region, word 36: strip entries to sort and sweep (the entry total clamped to capacity).
pub(crate) const ENTRIES: u64 = 36;
/// Region of the scan over per-body counts (entries per body, or all-pairs candidates per body).
pub(crate) const ENTRY_SCAN: u64 = 64;
/// Region of the radix sort: [0] length, [1] tiles, [4..7) tile dispatch, [15] fold width.
pub(crate) const RADIX: u64 = 128;
/// Region of the radix sort's histogram scan.
pub(crate) const HIST_SCAN: u64 = 192;
/// The contact events' own control buffer (`events.rs`), word 40: (x, y, z) indirect arguments
/// of its per-pair passes.
pub(crate) const EVENT_ARGS: u64 = 40;
/// The contact events' control buffer, word 44: pairs of both frames, this frame's first.
pub(crate) const EVENT_LENGTH: u64 = 44;
/// The contact events' control buffer, word 45: this frame's pairs.
pub(crate) const EVENT_CURRENT: u64 = 45;
/// Region of the scan over per-entry candidate counts.
pub(crate) const CAND_SCAN: u64 = 256;
/// Region of the scan over collision flags.
pub(crate) const PAIR_SCAN: u64 = 320;
/// Knots of the grid's map along one axis: the sampled AABB centres, sorted (control_grid.wgsl).
pub(crate) const MAP_KNOTS: u64 = 256;
/// The grid's map (after the scans' regions): [0] which axes it maps (bit 0: x, bit 1: y), then
/// from word 4 the x knots, then the y knots (`MAP_KNOTS` each, f32 bits). Where an axis is
/// mapped, the grid is laid out over a coordinate's place among its knots (shared/strips.wgsl).
pub(crate) const GRID_MAP: u64 = 384;
/// Words of the grid's map.
pub(crate) const MAP_WORDS: u64 = 4 + 2 * MAP_KNOTS;
/// Words in the buffer.
pub(crate) const WORDS: u64 = GRID_MAP + MAP_WORDS.div_ceil(REGION) * REGION;
/// Word of a scan or radix region holding the fold width (most workgroups per dispatch row).
pub(crate) const FOLD: u64 = 15;
/// Word of a scan region where level 0's (x, y, z) dispatch arguments start.
pub(crate) const SCAN_ARGS: u64 = 16;
/// Levels a scan region has room for: lengths in words 0..5, arguments in 16..31.
pub(crate) const SCAN_LEVELS: u64 = 5;

/// Initial contents: the fold width in every region that dispatches indirectly.
pub(crate) fn initial(fold: u32) -> Vec<u32> {
    let mut words = vec![0u32; WORDS as usize];
    for region in [ENTRY_SCAN, RADIX, HIST_SCAN, CAND_SCAN, PAIR_SCAN] {
        words[(region + FOLD) as usize] = fold;
    }
    words
}

/// A new control buffer for `fold`.
pub(crate) fn buffer(device: &wgpu::Device, label: &str, fold: u32) -> wgpu::Buffer {
    use wgpu::BufferUsages as U;
    crate::gpu::kernels::buffers::init(
        device,
        label,
        bytemuck::cast_slice(&initial(fold)),
        U::STORAGE | U::INDIRECT | U::COPY_DST | U::COPY_SRC,
    )
}

/// Records the copy of what a walk of the sorted entries reads of `control` (the grid, the
/// entry count, the grid's map) into the batch's uniform `params`, at byte offsets `at`.
pub(crate) fn copy_index(
    encoder: &mut wgpu::CommandEncoder,
    control: &wgpu::Buffer,
    params: &wgpu::Buffer,
    at: [u64; 3],
) {
    let [grid, entries, map] = at;
    encoder.copy_buffer_to_buffer(control, 4 * GRID, params, grid, 32);
    encoder.copy_buffer_to_buffer(control, 4 * ENTRIES, params, entries, 4);
    encoder.copy_buffer_to_buffer(control, 4 * GRID_MAP, params, map, 4 * MAP_WORDS);
}

/// The binding of one region.
pub(crate) fn region(buffer: &wgpu::Buffer, region: u64) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset: 4 * region,
        size: std::num::NonZeroU64::new(4 * REGION),
    })
}
