//! Test hooks: single kernels run on their own against CPU models, the broad phase's candidates
//! read back, and the GPU tuning forced on a CPU adapter. Hidden from the documentation and not
//! part of the stable API.

use crate::error::Result;
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Tuning;
use crate::gpu::primitives::radix::RadixSort;
use crate::gpu::primitives::scan::Scan;
use crate::gpu::stages::readback;
use crate::gpu::{Gpu, GpuOptions, World};

/// Opens a device as [`Gpu::new`] does, with the kernels tuned as for `device_type` instead of
/// the adapter's own type, so tests on a CPU adapter cover the GPU tuning too.
pub fn open_tuned_as(options: &GpuOptions, device_type: wgpu::DeviceType) -> Result<Gpu> {
    let mut options = options.clone();
    options.tuning = Some(Tuning::for_device(device_type));
    Gpu::new(&options)
}

/// Opens a device as [`open_tuned_as`] a GPU does, whose narrow phase prunes the walk of every
/// pair of polygons however few their vertices (`Tuning::prune_from` 0), so that the pruned walk
/// is tested on every pair a test has, not only on pairs of 128 vertices or more.
pub fn open_pruning_every_pair(options: &GpuOptions) -> Result<Gpu> {
    let mut options = options.clone();
    options.tuning = Some(Tuning { prune_from: 0, ..Tuning::for_device(wgpu::DeviceType::DiscreteGpu) });
    Gpu::new(&options)
}

fn upload(gpu: &Gpu, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    use wgpu::BufferUsages as U;
    crate::gpu::kernels::buffers::init(gpu.device(), label, bytes, U::STORAGE | U::COPY_SRC | U::COPY_DST)
}

fn download(gpu: &Gpu, encoder: wgpu::CommandEncoder, copies: &[(&wgpu::Buffer, u64, u64)]) -> Result<Vec<u8>> {
    let words = readback::read_copies(gpu, encoder, copies, "test readback")?;
    Ok(words.iter().flat_map(|w| bytemuck::cast_slice::<u32, u8>(w).iter().copied()).collect())
}

/// Exclusive prefix sum of `data` on the GPU, with at most `fold` workgroups per dispatch row.
/// Returns the scanned values and the total.
pub fn exclusive_scan(gpu: &Gpu, data: &[u32], fold: u32) -> Result<(Vec<u32>, u32)> {
    let words = gpu.scoped(|| {
        let kernels = gpu.kernels();
        let buf = upload(gpu, "satgpu.testing.scan", bytemuck::cast_slice(data));
        let control = control::buffer(gpu.device(), "satgpu.testing.control", fold);
        let region = control::CAND_SCAN;
        let scan = Scan::new(gpu.device(), kernels, &buf, data.len() as u64, &control, region, "satgpu.testing.scan");
        gpu.queue().write_buffer(&control, 4 * region, bytemuck::bytes_of(&(data.len() as u32)));
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            scan.encode(kernels, &mut pass);
        }
        let (total_buf, total_off) = scan.total();
        download(gpu, encoder, &[(&buf, 0, 4 * data.len() as u64), (total_buf, total_off, 4)])
    })??;
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&words);
    Ok((words[..data.len()].to_vec(), words[data.len()]))
}

/// Stable radix sort of `(key, value)` pairs on the GPU by the low `key_bits` bits of the key (8,
/// 16, 24 or 32), with at most `fold` workgroups per dispatch row. Equal keys keep their order.
pub fn radix_sort(gpu: &Gpu, pairs: &[(u32, u32)], key_bits: u32, fold: u32) -> Result<Vec<(u32, u32)>> {
    let bytes = gpu.scoped(|| {
        let kernels = gpu.kernels();
        let keys: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        let values: Vec<u32> = pairs.iter().map(|p| p.1).collect();
        let keys_buf = upload(gpu, "satgpu.testing.keys", bytemuck::cast_slice(&keys));
        let values_buf = upload(gpu, "satgpu.testing.values", bytemuck::cast_slice(&values));
        let control = control::buffer(gpu.device(), "satgpu.testing.control", fold);
        let n = pairs.len() as u64;
        let sort = RadixSort::new(gpu.device(), kernels, &keys_buf, &values_buf, n, key_bits, &control);
        gpu.queue().write_buffer(&control, 4 * control::RADIX, bytemuck::bytes_of(&(pairs.len() as u32)));
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            sort.encode(kernels, &mut pass);
        }
        download(gpu, encoder, &[(&keys_buf, 0, 4 * n), (&values_buf, 0, 4 * n)])
    })??;
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
    let (k, v) = words.split_at(pairs.len());
    Ok(k.iter().copied().zip(v.iter().copied()).collect())
}

/// Runs a frame of `world` and reads back the broad phase's candidate pairs, in sweep order, for
/// cross-checks against the reference broad phase. The frame must fit one batch.
pub fn candidates(world: &mut World) -> Result<Vec<(u32, u32)>> {
    let frame = world.step()?;
    assert!(frame.stats.batches == 1, "candidates() reads one batch; reserve room for all candidates first");
    let gpu = world.gpu().clone();
    let bytes = 8 * frame.stats.candidates;
    let raw = gpu.scoped(|| {
        let encoder = gpu.device().create_command_encoder(&Default::default());
        download(&gpu, encoder, &[(world.candidates_buffer(), 0, bytes)])
    })??;
    Ok(bytemuck::pod_collect_to_vec::<u8, [u32; 2]>(&raw).iter().map(|p| (p[0], p[1])).collect())
}

/// Makes the next frame of `world` record an invalid copy, so the device reports a validation
/// error for satgpu's own work: the path a driver or wgpu bug would take.
pub fn poison_next_frame(world: &mut World) {
    world.poison = true;
}

/// The strip grid of `world`'s last frame: y0, strips per unit y, strips, key bits for x, x0, x
/// buckets per unit x, x bits kept (floats as f64, counts as integers).
pub fn strip_grid(world: &World) -> Result<[f64; 7]> {
    let gpu = world.gpu().clone();
    let raw = gpu.scoped(|| {
        let encoder = gpu.device().create_command_encoder(&Default::default());
        download(&gpu, encoder, &[(world.control_buffer(), 4 * control::GRID, 28)])
    })??;
    let w: Vec<u32> = bytemuck::pod_collect_to_vec(&raw);
    let f = |i: usize| f64::from(f32::from_bits(w[i]));
    Ok([f(0), f(1), w[2].into(), w[3].into(), f(4), f(5), w[6].into()])
}

/// Which axes the strip grid of `world`'s last frame maps by its sampled centres (bit 0: x, bit
/// 1: y; control_grid.wgsl).
pub fn grid_mapped(world: &World) -> Result<u32> {
    let gpu = world.gpu().clone();
    let raw = gpu.scoped(|| {
        let encoder = gpu.device().create_command_encoder(&Default::default());
        download(&gpu, encoder, &[(world.control_buffer(), 4 * control::GRID_MAP, 4)])
    })??;
    Ok(bytemuck::pod_read_unaligned(&raw[..4]))
}

/// A frame of a world of bodies of several shapes as the GPU left it: the shape pairs it kept
/// (one per pair of bodies and batch), sorted by instance pair, before the host names them by
/// body.
pub fn compound_part_pairs(world: &mut World) -> Result<Vec<crate::geometry::Contact>> {
    let map = world.map.take();
    let frame = world.step();
    world.map = map;
    Ok(frame?.contacts)
}
