//! Stage 7, the narrow phase: the candidate count clamped to the current batch
//! (`control_pairs.wgsl`), then SAT with the minimum translation vector per candidate pair
//! (`sat.wgsl`), leaving per pair a result and a collision flag.

use crate::gpu::control;
use crate::gpu::kernels::Kernels;
use crate::gpu::scan::Total;
use crate::gpu::transform::TransformStage;
use crate::gpu::{storage, Gpu};

pub(crate) struct NarrowPhase {
    /// Per candidate: (normal.xy, depth, hit).
    pub results: wgpu::Buffer,
    /// Per candidate: 1 if the pair collides; scanned in place by the compaction.
    pub flags: wgpu::Buffer,
    control_group: wgpu::BindGroup,
    sat_group: wgpu::BindGroup,
    control: wgpu::Buffer,
}

impl NarrowPhase {
    pub fn new(
        gpu: &Gpu,
        params: &wgpu::Buffer,
        control: &wgpu::Buffer,
        bodies: &TransformStage,
        candidates: &wgpu::Buffer,
        candidate_total: &Total,
        capacity: u32,
    ) -> NarrowPhase {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let cap = u64::from(capacity);
        let results = storage(device, "satgpu.sat.results", 16 * cap, wgpu::BufferUsages::empty());
        let flags = storage(device, "satgpu.sat.flags", 4 * cap, wgpu::BufferUsages::empty());
        let control_group = kernels.control_pairs.bind(
            device,
            "satgpu.control.pairs",
            &[params.as_entire_binding(), candidate_total.binding(), control.as_entire_binding()],
        );
        let sat_group = kernels.sat[0].bind(
            device,
            "satgpu.sat",
            &[
                control.as_entire_binding(),
                candidates.as_entire_binding(),
                bodies.bodies.as_entire_binding(),
                bodies.shapes.as_entire_binding(),
                bodies.transforms.as_entire_binding(),
                results.as_entire_binding(),
                flags.as_entire_binding(),
            ],
        );
        NarrowPhase { results, flags, control_group, sat_group, control: control.clone() }
    }

    /// `rounded`: some body is a circle, a capsule or has a radius, so the kernel variant that
    /// measures the distance between cores runs; otherwise the plain SAT, which pays nothing for it.
    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, rounded: bool) {
        pass.set_pipeline(&k.control_pairs.pipeline);
        pass.set_bind_group(0, &self.control_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&k.sat[usize::from(rounded)].pipeline);
        pass.set_bind_group(0, &self.sat_group, &[]);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
    }
}
