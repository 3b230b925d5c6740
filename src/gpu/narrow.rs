//! Stage 7, the narrow phase: the candidate count clamped to the current batch
//! (`control_pairs.wgsl`), then SAT with the minimum translation vector per candidate pair
//! (`sat.wgsl`), leaving per pair a result and a collision flag.
//!
//! Pairs of two small polygons (at most [`SMALL`] vertices each) are tested in one pass over the
//! candidates. When some body has more vertices, two more passes follow: one lists the larger
//! pairs by cost bin, and one tests them, so that the lanes of a SIMD group get pairs of similar
//! cost (see sat.wgsl). The list lives in the compaction's contacts buffer, which is free until the
//! compaction, so it costs no memory in all but the tiniest worlds.

use crate::gpu::control;
use crate::gpu::kernels::Kernels;
use crate::gpu::scan::Total;
use crate::gpu::shared::LARGE_LIST;
use crate::gpu::transform::TransformStage;
use crate::gpu::{storage, Gpu};

/// Bytes of scratch the narrow phase needs for `capacity` candidates.
pub(crate) fn scratch_bytes(capacity: u64) -> u64 {
    4 * (u64::from(LARGE_LIST) + capacity)
}

pub(crate) struct NarrowPhase {
    /// Per candidate: (normal.xy, depth, hit).
    pub results: wgpu::Buffer,
    /// Per candidate: 1 if the pair collides; scanned in place by the compaction.
    pub flags: wgpu::Buffer,
    control_group: wgpu::BindGroup,
    sat_group: wgpu::BindGroup,
    control: wgpu::Buffer,
}

/// The buffers the narrow phase reads, and where it lists its large pairs.
pub(crate) struct NarrowInputs<'a> {
    pub params: &'a wgpu::Buffer,
    pub control: &'a wgpu::Buffer,
    pub bodies: &'a TransformStage,
    pub candidates: &'a wgpu::Buffer,
    pub candidate_total: &'a Total,
    /// [`scratch_bytes`] or more, unused during the narrow phase.
    pub scratch: &'a wgpu::Buffer,
}

impl NarrowPhase {
    pub fn new(gpu: &Gpu, inputs: &NarrowInputs<'_>, capacity: u32) -> NarrowPhase {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let cap = u64::from(capacity);
        let results = storage(device, "satgpu.sat.results", 16 * cap, wgpu::BufferUsages::empty());
        let flags = storage(device, "satgpu.sat.flags", 4 * cap, wgpu::BufferUsages::empty());
        let control_group = kernels.control_pairs.bind(
            device,
            "satgpu.control.pairs",
            &[
                inputs.params.as_entire_binding(),
                inputs.candidate_total.binding(),
                inputs.control.as_entire_binding(),
                inputs.scratch.as_entire_binding(),
            ],
        );
        let sat_group = kernels.sat.small[0].bind(
            device,
            "satgpu.sat",
            &[
                inputs.control.as_entire_binding(),
                inputs.candidates.as_entire_binding(),
                inputs.bodies.bodies.as_entire_binding(),
                inputs.bodies.shapes.as_entire_binding(),
                inputs.bodies.transforms.as_entire_binding(),
                results.as_entire_binding(),
                flags.as_entire_binding(),
                inputs.scratch.as_entire_binding(),
            ],
        );
        NarrowPhase { results, flags, control_group, sat_group, control: inputs.control.clone() }
    }

    /// `rounded`: some body is a circle, a capsule or has a radius, so the kernel variants that
    /// measure the distance between cores run; otherwise the plain SAT, which pays nothing for
    /// it. `large`: some body has more than [`SMALL`] vertices, so the binning and large-pair
    /// passes run.
    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, rounded: bool, large: bool) {
        pass.set_pipeline(&k.control_pairs.pipeline);
        pass.set_bind_group(0, &self.control_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_bind_group(0, &self.sat_group, &[]);
        pass.set_pipeline(&k.sat.small[usize::from(rounded)].pipeline);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
        if large {
            pass.set_pipeline(&k.sat.bin.pipeline);
            pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
            pass.set_pipeline(&k.sat.large[usize::from(rounded)].pipeline);
            pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
        }
    }
}
