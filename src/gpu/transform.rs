//! Stage 1, `transform.wgsl`: each body's shape to world space (relative to the body's anchor),
//! its AABB rounded outward, and the scene bounds. Owns the per-body buffers.

use crate::gpu::layout::GpuBody;
use crate::gpu::pack::Packed;
use crate::gpu::pass::{Pass, Recorder};
use crate::gpu::{dispatch, init, storage, Gpu, WG};

pub(crate) struct TransformStage {
    /// Where each body finds its shape (`Body` in the shaders).
    pub bodies: wgpu::Buffer,
    /// Shape vertices and edge normals, local.
    pub shapes: wgpu::Buffer,
    /// Per body, its core's box in local coordinates (min.xy, max.xy).
    pub boxes: wgpu::Buffer,
    /// Per body (x, y, cos, sin).
    pub transforms: wgpu::Buffer,
    /// Per body world AABB (min.xy, max.xy).
    pub aabbs: wgpu::Buffer,
    /// Scene bounds as sortable u32 (~min.x, ~min.y, max.x, max.y).
    pub bounds: wgpu::Buffer,
    /// Per body collision filter (category, mask, group, 0), read by the broad phase only when
    /// some filter differs from the default.
    pub filters: wgpu::Buffer,
    group: wgpu::BindGroup,
    n: u32,
    fold: u32,
}

impl TransformStage {
    pub fn new(gpu: &Gpu, params: &wgpu::Buffer, packed: &Packed, fold: u32) -> Self {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        use wgpu::BufferUsages as U;
        let n = packed.bodies.len();
        let bodies = init(
            device,
            "satgpu.bodies",
            bytemuck::cast_slice::<GpuBody, u8>(&packed.bodies),
            U::STORAGE | U::COPY_DST,
        );
        let filters = storage(device, "satgpu.filters", 16 * n.max(1) as u64, U::COPY_DST);
        let transforms = init(
            device,
            "satgpu.transforms",
            bytemuck::cast_slice(&packed.transforms),
            U::STORAGE | U::COPY_DST | U::COPY_SRC,
        );
        let shapes = init(device, "satgpu.shapes", bytemuck::cast_slice(&packed.shape_data), U::STORAGE | U::COPY_DST);
        let boxes = init(device, "satgpu.boxes", bytemuck::cast_slice(&packed.boxes), U::STORAGE | U::COPY_DST);
        let aabbs = storage(device, "satgpu.aabbs", 16 * n as u64, U::COPY_SRC);
        let bounds = storage(device, "satgpu.bounds", 16, U::COPY_DST);
        let group = kernels.transform.bind(
            device,
            "satgpu.transform",
            &[
                params.as_entire_binding(),
                bodies.as_entire_binding(),
                transforms.as_entire_binding(),
                shapes.as_entire_binding(),
                aabbs.as_entire_binding(),
                bounds.as_entire_binding(),
                boxes.as_entire_binding(),
            ],
        );
        TransformStage { bodies, shapes, boxes, transforms, aabbs, bounds, filters, group, n: n as u32, fold }
    }

    /// Overwrites the vertex data, radii and transforms of a layout with the same bodies.
    pub fn write(&self, queue: &wgpu::Queue, packed: &Packed) {
        queue.write_buffer(&self.bodies, 0, bytemuck::cast_slice(&packed.bodies));
        queue.write_buffer(&self.shapes, 0, bytemuck::cast_slice(&packed.shape_data));
        queue.write_buffer(&self.boxes, 0, bytemuck::cast_slice(&packed.boxes));
        queue.write_buffer(&self.transforms, 0, bytemuck::cast_slice(&packed.transforms));
    }

    /// Number of bodies.
    pub fn len(&self) -> u32 {
        self.n
    }

    pub fn encode(&self, rec: &mut Recorder<'_>) {
        rec.encoder().clear_buffer(&self.bounds, 0, None);
        let k = rec.kernels;
        let pass = rec.pass(Pass::Transform);
        pass.set_pipeline(&k.transform.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        dispatch(pass, self.n, WG, self.fold);
    }
}
