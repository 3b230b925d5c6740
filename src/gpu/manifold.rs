//! Stage 9, only with [`ContactDetail::Full`](super::ContactDetail::Full): per colliding pair,
//! its contact manifold and containment flags (`manifold.wgsl`), at the same index as its contact.
//! One invocation per colliding pair, dispatched with the arguments the compaction's last
//! invocation wrote, which also hold the colliding count.

use crate::gpu::compact::Compact;
use crate::gpu::kernels::Kernels;
use crate::gpu::layout::GpuManifold;
use crate::gpu::transform::TransformStage;
use crate::gpu::{storage, Gpu};

pub(crate) struct ManifoldStage {
    /// Per colliding pair: a [`GpuManifold`].
    pub manifolds: wgpu::Buffer,
    group: wgpu::BindGroup,
    args: wgpu::Buffer,
}

impl ManifoldStage {
    pub fn new(gpu: &Gpu, bodies: &TransformStage, compact: &Compact, capacity: u32) -> ManifoldStage {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let record = std::mem::size_of::<GpuManifold>() as u64;
        let manifolds = storage(device, "satgpu.manifolds", record * u64::from(capacity), wgpu::BufferUsages::COPY_SRC);
        let group = kernels.manifold.bind(
            device,
            "satgpu.manifold",
            &[
                compact.args.as_entire_binding(),
                compact.contacts.as_entire_binding(),
                bodies.bodies.as_entire_binding(),
                bodies.shapes.as_entire_binding(),
                bodies.transforms.as_entire_binding(),
                manifolds.as_entire_binding(),
            ],
        );
        ManifoldStage { manifolds, group, args: compact.args.clone() }
    }

    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&k.manifold.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups_indirect(&self.args, 0);
    }
}
