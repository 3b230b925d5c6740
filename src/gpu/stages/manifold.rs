//! Stage 9, only with [`ContactDetail::Full`](crate::gpu::ContactDetail::Full): per colliding pair,
//! its contact manifold and containment flags (`manifold.wgsl`), at the same index as its contact.
//! One invocation per colliding pair, dispatched with the arguments the compaction's last
//! invocation wrote, which also hold the colliding count.

use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::buffers::storage;
use crate::gpu::kernels::layout::GpuManifold;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::resources::{BodyBuffers, PairBuffers};

pub(crate) struct ManifoldStage {
    /// Per colliding pair: a [`GpuManifold`].
    pub manifolds: wgpu::Buffer,
    group: wgpu::BindGroup,
    args: wgpu::Buffer,
}

impl ManifoldStage {
    /// Per colliding pair of `pairs.contacts` (as many as `pairs.args` says), its manifold; with
    /// the margin of `params`, the closest points of pairs apart within it.
    pub fn new(gpu: &Gpu, params: &wgpu::Buffer, bodies: &BodyBuffers, pairs: &PairBuffers) -> ManifoldStage {
        let capacity = pairs.capacity;
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let record = std::mem::size_of::<GpuManifold>() as u64;
        let manifolds = storage(device, "satgpu.manifolds", record * u64::from(capacity), wgpu::BufferUsages::COPY_SRC);
        let group = kernels.manifold.bind(
            device,
            "satgpu.manifold",
            &[
                pairs.args.as_entire_binding(),
                pairs.contacts.as_entire_binding(),
                bodies.bodies.as_entire_binding(),
                bodies.shapes.as_entire_binding(),
                bodies.transforms.as_entire_binding(),
                manifolds.as_entire_binding(),
                params.as_entire_binding(),
            ],
        );
        ManifoldStage { manifolds, group, args: pairs.args.clone() }
    }

    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(k.manifold.pipeline());
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups_indirect(&self.args, 0);
    }
}
