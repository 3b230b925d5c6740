//! Each body's neighbours gathered on the GPU from a resident frame (`stages/neighbours.rs`): the
//! rows of every body ranked by (distance, neighbour) there, and only the kept rows read back.

use crate::error::Result;
use crate::geometry::Polygon;
use crate::gpu::device::context::Gpu;
use crate::gpu::stages::neighbours::{program, Gather, Params};
use crate::gpu::stages::readback::read_copies;
use crate::gpu::world::growth::Fit;
use crate::gpu::world::options::DetectOptions;
use crate::gpu::world::record::Asked;
use crate::gpu::world::World;
use crate::neighbours::Neighbours;

const B_SIDE: u32 = 0x8000_0000;
/// The most rows of one body ranked on the GPU (each row walks its body's rows): past it, the
/// host gathers.
const MAX_DEGREE: u32 = 4096;

/// [`gpu::neighbours`](crate::gpu::neighbours) with the gather on the GPU (`options`' margin is
/// the radius); `None` when a frame
/// needs more candidate pairs than one binding holds (the caller then gathers on the host from
/// a frame run in batches).
pub(crate) fn neighbours<B: AsRef<[Polygon]>>(
    gpu: &Gpu,
    bodies: &[B],
    k: Option<usize>,
    options: &DetectOptions,
) -> Result<Option<Neighbours>> {
    let mut world = World::from_bodies(gpu, bodies, &options.world)?;
    if !options.filters.is_empty() {
        world.set_filters(&options.filters)?;
    }
    let n = bodies.len();
    let body_of: Vec<u32> =
        bodies.iter().enumerate().flat_map(|(i, b)| std::iter::repeat_n(i as u32, b.as_ref().len())).collect();
    let k = k.map_or(u32::MAX, |k| k.min(u32::MAX as usize) as u32);
    let params = Params { bodies: n as u32, k, pad0: 0, pad1: 0 };
    let program = program(gpu)?;
    let kept_starts = loop {
        let frame = (world.totals_buffer(), world.contacts_buffer(), world.candidate_capacity());
        let gather = Gather::new(gpu, &program, frame, &params, &body_of)?;
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        world.record_asking(&mut encoder, &world.plans.neighbours, Some(Asked::Gather(&gather)));
        let copies = [(world.totals_buffer(), 0, 16), (&gather.starts, 0, 4 * (2 * n as u64 + 2))];
        let words = read_copies(gpu, encoder, &copies, "the neighbours' gather")?;
        let (totals, row_starts) = (&words[0], &words[1][..n + 1]);
        let kept_starts = &words[1][n + 1..];
        match world.fit(u64::from(totals[0]), u64::from(totals[1]), totals[3])? {
            Fit::Rerun => continue,
            Fit::Batches => return Ok(None),
            Fit::Fits => {}
        }
        if row_starts.windows(2).any(|w| w[1] - w[0] > MAX_DEGREE) {
            return Ok(None);
        }
        let total = u64::from(kept_starts[n]);
        let encoder = gpu.device().create_command_encoder(&Default::default());
        let rows = read_copies(gpu, encoder, &[(&gather.kept, 0, 16 * total)], "the neighbours' gather")?;
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
