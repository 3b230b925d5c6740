//! The neighbours' gather (`shaders/neighbours.wgsl`), outside the frame: over a resident frame's
//! pairs (a frame with a margin), each body's rows (both ends of every pair) counted, scanned and
//! scattered, then ranked by (distance, neighbour) and the first k kept.

use crate::error::Result;
use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::init as init_buffer;
use crate::gpu::kernels::pipelines::Program;
use std::sync::Arc;

/// `NeighbourParams` in shaders/neighbours.wgsl.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Params {
    pub bodies: u32,
    /// Rows kept per body (`u32::MAX`: all).
    pub k: u32,
    pub pad0: u32,
    pub pad1: u32,
}

/// shaders/neighbours.wgsl's passes, in this order.
const ENTRIES: [&str; 4] = ["count", "scan", "scatter", "rank"];

/// The gather's pipelines, made once per device and shared by every search and its runs (a
/// rerun after growth makes new buffers, not new pipelines).
pub(crate) fn program(gpu: &Gpu) -> Result<Arc<Program>> {
    gpu.program("satgpu.neighbours", "neighbours.wgsl", &ENTRIES)
}

/// The neighbours' gather over a resident frame's pairs ([`Work::Gather`]): each body's rows
/// counted, scanned and scattered ([`Pass::Gather`]), then ranked and the first k kept
/// ([`Pass::Rank`]). Its buffers hold the rows of a world's candidate capacity.
pub(crate) struct Gather<'a> {
    program: &'a Program,
    group: wgpu::BindGroup,
    counts: wgpu::Buffer,
    /// Row starts, kept starts, the rank pass's arguments, then each row's body.
    pub starts: wgpu::Buffer,
    /// The rank pass's arguments, copied out of `starts` (a dispatch cannot read its arguments
    /// from a buffer it writes).
    args: wgpu::Buffer,
    pub kept: wgpu::Buffer,
    totals: wgpu::Buffer,
    n: u64,
}

impl<'a> Gather<'a> {
    /// The gather, by `program`, of the pairs of a frame (its `totals` and `contacts`, the
    /// frame's resident buffers; `candidates` its candidate capacity) for `params`, each
    /// instance's body in `body_of`.
    pub fn new(
        gpu: &Gpu,
        program: &'a Program,
        (totals, contacts, candidates): (&wgpu::Buffer, &wgpu::Buffer, u32),
        params: &Params,
        body_of: &[u32],
    ) -> Result<Gather<'a>> {
        use wgpu::BufferUsages as U;
        let (device, n) = (gpu.device(), u64::from(params.bodies));
        let rows_cap = 2 * u64::from(candidates);
        gpu.scoped(|| {
            let buffer = |label, words: u64| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: (4 * words).max(16),
                    usage: U::STORAGE | U::COPY_SRC,
                    mapped_at_creation: false,
                })
            };
            let params = init_buffer(device, "satgpu.gather.params", bytemuck::bytes_of(params), U::UNIFORM);
            let body_of = init_buffer(device, "satgpu.gather.body_of", bytemuck::cast_slice(body_of), U::STORAGE);
            let counts =
                init_buffer(device, "satgpu.gather.counts", &vec![0u8; 8 * n as usize], U::STORAGE | U::COPY_DST);
            let args = init_buffer(device, "satgpu.gather.args", &[0u8; 16], U::INDIRECT | U::COPY_DST);
            let starts = buffer("satgpu.gather.starts", 2 * n + 5 + rows_cap);
            let rows = buffer("satgpu.gather.rows", 4 * rows_cap);
            let kept = buffer("satgpu.gather.kept", 4 * rows_cap);
            let totals = totals.clone();
            let bound = [&params, &totals, contacts, &body_of, &counts, &starts, &rows, &kept];
            let group = program.bind(device, &bound);
            Gather { program, group, counts, starts, args, kept, totals, n }
        })
    }

    /// Records the gather after the frame's steps.
    pub fn encode(&self, rec: &mut Recorder<'_>) {
        rec.encoder().clear_buffer(&self.counts, 0, None);
        let [count, scan, scatter, rank] = [0, 1, 2, 3].map(|k| self.program.pipeline(k));
        let pass = rec.pass(Pass::Gather);
        pass.set_bind_group(0, &self.group, &[]);
        pass.set_pipeline(count);
        pass.dispatch_workgroups_indirect(&self.totals, 16);
        pass.set_pipeline(scan);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(scatter);
        pass.dispatch_workgroups_indirect(&self.totals, 16);
        rec.encoder().copy_buffer_to_buffer(&self.starts, 4 * (2 * self.n + 2), &self.args, 0, 12);
        let pass = rec.pass(Pass::Rank);
        pass.set_bind_group(0, &self.group, &[]);
        pass.set_pipeline(rank);
        pass.dispatch_workgroups_indirect(&self.args, 0);
    }
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
