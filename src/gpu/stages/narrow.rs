//! Stage 7, the narrow phase: the candidate count clamped to the current batch
//! (`control_pairs.wgsl`), then SAT with the minimum translation vector per candidate pair
//! (`sat.wgsl`), leaving per pair a result and a collision flag.
//!
//! Pairs of two small polygons (at most [`SMALL`] vertices each) are tested in one pass over the
//! candidates. When some body has more vertices, two more passes follow: one lists the larger
//! pairs by cost bin, and one tests them, so that the lanes of a SIMD group get pairs of similar
//! cost (see sat.wgsl). The list lives in the compaction's contacts buffer, which is free until the
//! compaction, so it costs no memory in all but the tiniest worlds.

use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::primitives::scan::Total;
use crate::gpu::resources::{PairBuffers, Wiring};

pub(crate) struct NarrowPhase {
    control_group: wgpu::BindGroup,
    sat_group: wgpu::BindGroup,
    control: wgpu::Buffer,
}

impl NarrowPhase {
    /// Tests `pairs.candidates` (as many as `candidate_total` says) and writes `pairs.results`
    /// and `pairs.flags`; lists its large pairs in `pairs.contacts`, free until the compaction.
    pub fn new(gpu: &Gpu, wiring: &Wiring<'_>, pairs: &PairBuffers, candidate_total: &Total) -> NarrowPhase {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let (bodies, scratch) = (wiring.bodies, &pairs.contacts);
        let control_group = kernels.control_pairs.bind(
            device,
            "satgpu.control.pairs",
            &[
                wiring.params.as_entire_binding(),
                candidate_total.binding(),
                wiring.control.as_entire_binding(),
                scratch.as_entire_binding(),
            ],
        );
        let sat_group = kernels.sat.small[0].bind(
            device,
            "satgpu.sat",
            &[
                wiring.control.as_entire_binding(),
                pairs.candidates.as_entire_binding(),
                bodies.bodies.as_entire_binding(),
                bodies.shapes.as_entire_binding(),
                bodies.transforms.as_entire_binding(),
                pairs.results.as_entire_binding(),
                pairs.flags.as_entire_binding(),
                scratch.as_entire_binding(),
                wiring.params.as_entire_binding(),
            ],
        );
        NarrowPhase { control_group, sat_group, control: wiring.control.clone() }
    }

    /// `rounded`: some body is a circle, a capsule or has a radius, so the kernel variants that
    /// measure the distance between cores run; otherwise the plain SAT, which pays nothing for
    /// it. `large`: some body has more than [`SMALL`] vertices, so the binning and large-pair
    /// passes run.
    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, rounded: bool, large: bool) {
        pass.set_pipeline(k.control_pairs.pipeline());
        pass.set_bind_group(0, &self.control_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_bind_group(0, &self.sat_group, &[]);
        pass.set_pipeline(k.sat.small[usize::from(rounded)].pipeline());
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
        if large {
            pass.set_pipeline(k.sat.bin.pipeline());
            pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
            pass.set_pipeline(k.sat.large[usize::from(rounded)].pipeline());
            pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
        }
    }
}
