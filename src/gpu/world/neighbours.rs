//! Each body's neighbours gathered on the GPU from a resident frame (`shaders/neighbours.wgsl`): the rows of
//! every body ranked by (distance, neighbour) there, and only the kept rows read back.

use crate::error::Result;
use crate::geometry::{Filter, Polygon};
use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::buffers::init as init_buffer;
use crate::gpu::kernels::pipelines::Program;
use crate::gpu::stages::readback::read_copies;
use crate::gpu::world::options::WorldOptions;
use crate::gpu::world::World;
use crate::neighbours::Neighbours;

const B_SIDE: u32 = 0x8000_0000;
/// The most rows of one body ranked on the GPU (each row walks its body's rows): past it, the
/// host gathers.
const MAX_DEGREE: u32 = 4096;

/// `NeighbourParams` in shaders/neighbours.wgsl.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    bodies: u32,
    k: u32,
    pad0: u32,
    pad1: u32,
}

/// shaders/neighbours.wgsl's passes, in this order.
const ENTRIES: [&str; 4] = ["count", "scan", "scatter", "rank"];

fn program(device: &wgpu::Device) -> Program {
    Program::new(device, "satgpu.neighbours", "neighbours.wgsl", &ENTRIES)
}

/// [`gpu::neighbours`](crate::gpu::neighbours) with the gather on the GPU; `None` when a frame
/// needs more candidate pairs than one binding holds (the caller then gathers on the host from
/// a frame run in batches).
pub(crate) fn neighbours<B: AsRef<[Polygon]>>(
    gpu: &Gpu,
    bodies: &[B],
    radius: f64,
    k: Option<usize>,
    filters: &[Filter],
) -> Result<Option<Neighbours>> {
    let mut world = World::from_bodies(gpu, bodies, &WorldOptions::default().with_margin(radius))?;
    if !filters.is_empty() {
        world.set_filters(filters)?;
    }
    let n = bodies.len();
    let body_of: Vec<u32> =
        bodies.iter().enumerate().flat_map(|(i, b)| std::iter::repeat_n(i as u32, b.as_ref().len())).collect();
    let k = k.map_or(u32::MAX, |k| k.min(u32::MAX as usize) as u32);
    let params = Params { bodies: n as u32, k, pad0: 0, pad1: 0 };
    let device = gpu.device();
    use wgpu::BufferUsages as U;
    let (p, params_buffer, body_buffer, counts, args) = gpu.scoped(|| {
        (
            program(device),
            init_buffer(device, "satgpu.gather.params", bytemuck::bytes_of(&params), U::UNIFORM),
            init_buffer(device, "satgpu.gather.body_of", bytemuck::cast_slice(&body_of), U::STORAGE),
            init_buffer(device, "satgpu.gather.counts", &vec![0u8; 8 * n], U::STORAGE | U::COPY_DST),
            init_buffer(device, "satgpu.gather.args", &[0u8; 16], U::INDIRECT | U::COPY_DST),
        )
    })?;
    let storage = U::STORAGE | U::COPY_SRC;
    let kept_starts = loop {
        let rows_cap = 2 * u64::from(world.candidate_capacity());
        let (starts, rows, kept) = gpu.scoped(|| {
            let buffer = |label, words: u64| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: (4 * words).max(16),
                    usage: storage,
                    mapped_at_creation: false,
                })
            };
            (
                buffer("satgpu.gather.starts", 2 * n as u64 + 5 + rows_cap),
                buffer("satgpu.gather.rows", 4 * rows_cap),
                buffer("satgpu.gather.kept", 4 * rows_cap),
            )
        })?;
        let buffers = [
            &params_buffer,
            world.totals_buffer(),
            world.contacts_buffer(),
            &body_buffer,
            &counts,
            &starts,
            &rows,
            &kept,
        ];
        let group = gpu.scoped(|| p.bind(device, &buffers))?;
        let [count, scan, scatter, rank] = &p.pipelines[..] else { unreachable!("four entry points") };
        let mut encoder = device.create_command_encoder(&Default::default());
        world.encode(&mut encoder);
        encoder.clear_buffer(&counts, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &group, &[]);
            pass.set_pipeline(count);
            pass.dispatch_workgroups_indirect(world.totals_buffer(), 16);
            pass.set_pipeline(scan);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(scatter);
            pass.dispatch_workgroups_indirect(world.totals_buffer(), 16);
        }
        // The rank pass's arguments, out of the buffer it binds (a dispatch cannot read its
        // arguments from a buffer it writes).
        encoder.copy_buffer_to_buffer(&starts, 4 * (2 * n as u64 + 2), &args, 0, 12);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &group, &[]);
            pass.set_pipeline(rank);
            pass.dispatch_workgroups_indirect(&args, 0);
        }
        let copies = [(world.totals_buffer(), 0, 16), (&starts, 0, 4 * (2 * n as u64 + 2))];
        let words = read_copies(gpu, encoder, &copies, "the neighbours' gather")?;
        let (totals, row_starts) = (&words[0], &words[1][..n + 1]);
        let kept_starts = &words[1][n + 1..];
        let (entries, candidates) = (u64::from(totals[0]), u64::from(totals[1]));
        if entries > u64::from(world.entry_capacity()) || candidates > u64::from(world.candidate_capacity()) {
            let before = world.candidate_capacity();
            if world.reserve(entries + entries / 2, candidates + candidates / 2).is_err()
                || (candidates > u64::from(before) && world.candidate_capacity() == before)
            {
                return Ok(None);
            }
            continue;
        }
        if world.ensure_windows(totals[3])? {
            continue;
        }
        if row_starts.windows(2).any(|w| w[1] - w[0] > MAX_DEGREE) {
            return Ok(None);
        }
        let total = u64::from(kept_starts[n]);
        let encoder = device.create_command_encoder(&Default::default());
        let rows = read_copies(gpu, encoder, &[(&kept, 0, 16 * total)], "the neighbours' gather")?;
        break (kept_starts.to_vec(), rows.into_iter().next().unwrap_or_default());
    };
    let (starts, rows) = kept_starts;
    let mut out = Neighbours { offsets: starts.iter().map(|&s| s as usize).collect(), ..Neighbours::default() };
    out.neighbour.reserve_exact(rows.len() / 4);
    out.distance.reserve_exact(rows.len() / 4);
    out.normal.reserve_exact(rows.len() / 4);
    for row in rows.chunks_exact(4) {
        // As a frame's contacts widen them (`+ 0.0` turns -0.0 into 0.0); the second body's
        // row has its normal's signs flipped on the GPU.
        let widen = |word: u32| f64::from(f32::from_bits(word)) + 0.0;
        out.neighbour.push(row[0] & !B_SIDE);
        out.distance.push(-f64::from(f32::from_bits(row[1])));
        out.normal.push([widen(row[2]), widen(row[3])]);
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parameters; the rows are read back as words, 4 a row.
    #[test]
    fn the_records_match_their_wgsl_twins() {
        crate::twins::assert_twin!(Params, "neighbours.wgsl", "NeighbourParams", [bodies, k, pad0, pad1]);
        crate::twins::check_array("neighbours.wgsl", "kept", "Row", 16);
    }
}
