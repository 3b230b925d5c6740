//! Stage 1, `transform.wgsl`: each body's shape to world space (relative to the body's anchor),
//! its AABB rounded outward, and the scene bounds.

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::dispatch;
use crate::gpu::kernels::shared::WG;
use crate::gpu::resources::BodyBuffers;

pub(crate) struct TransformStage {
    group: wgpu::BindGroup,
    /// The scene bounds, cleared before each frame.
    bounds: wgpu::Buffer,
    n: u32,
    fold: u32,
}

impl TransformStage {
    pub fn new(gpu: &Gpu, params: &wgpu::Buffer, bodies: &BodyBuffers, fold: u32) -> Self {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let group = kernels.transform.bind(
            device,
            "satgpu.transform",
            &[
                params.as_entire_binding(),
                bodies.bodies.as_entire_binding(),
                bodies.transforms.as_entire_binding(),
                bodies.shapes.as_entire_binding(),
                bodies.aabbs.as_entire_binding(),
                bodies.bounds.as_entire_binding(),
                bodies.boxes.as_entire_binding(),
                bodies.starts().as_entire_binding(),
            ],
        );
        TransformStage { group, bounds: bodies.bounds.clone(), n: bodies.len(), fold }
    }

    pub fn encode(&self, rec: &mut Recorder<'_>) {
        rec.encoder().clear_buffer(&self.bounds, 0, None);
        let k = rec.kernels;
        let pass = rec.pass(Pass::Transform);
        pass.set_pipeline(k.transform.pipeline());
        pass.set_bind_group(0, &self.group, &[]);
        dispatch(pass, self.n, WG, self.fold);
    }
}
