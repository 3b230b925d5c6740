//! Stage 7b, bodies of several shapes only ([`World::from_bodies`](crate::gpu::World::from_bodies)): of the colliding
//! part pairs of each pair of bodies, the deepest is kept (of equal depths, the first by part
//! index) and the others' collision flags cleared before the compaction (`deepest.wgsl`), so
//! that the compaction writes one pair per pair of bodies. Four passes over the candidates: clear
//! a hash table keyed by the pair of bodies, claim slots and raise their depth, raise the first
//! part pair at that depth, clear the rest. The table lives in the contacts buffer, which is free
//! between the narrow phase and the compaction, so the stage costs no memory.

use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::resources::{BodyBuffers, PairBuffers};

pub(crate) struct Deepest {
    group: wgpu::BindGroup,
    control: wgpu::Buffer,
}

impl Deepest {
    /// Reduces the colliding pairs of `pairs` (after the narrow phase) to the deepest per pair of
    /// bodies, reading each part's body from the filter records of `bodies`.
    pub fn new(gpu: &Gpu, control: &wgpu::Buffer, bodies: &BodyBuffers, pairs: &PairBuffers) -> Deepest {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let group = kernels.deepest[0].bind(
            device,
            "satgpu.deepest",
            &[
                control.as_entire_binding(),
                pairs.candidates.as_entire_binding(),
                pairs.results.as_entire_binding(),
                pairs.flags.as_entire_binding(),
                bodies.filters.as_entire_binding(),
                pairs.contacts.as_entire_binding(),
            ],
        );
        Deepest { group, control: control.clone() }
    }

    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_bind_group(0, &self.group, &[]);
        for phase in &k.deepest {
            pass.set_pipeline(phase.pipeline());
            pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
        }
    }
}
