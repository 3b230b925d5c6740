//! Ray and shape casts (`ray.wgsl`), outside the frame: the nearest body each of many rays (or
//! shapes moved along a line) meets, found through the frame's sorted strip entries (the caller
//! records the transform, entry and sort passes first), or by testing every body where the world
//! has no strips. One invocation per ray writes `(body, t, normal, point)` over its own record,
//! `body` `u32::MAX` for none.

use std::mem::offset_of;

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::{dispatch, init, storage};
use crate::gpu::kernels::control;
use crate::gpu::kernels::shared::{MAX_STRIPS, WG};
use crate::gpu::resources::{BodyBuffers, StripBuffers};

/// One ray or shape cast as `ray.wgsl` reads it (64 bytes): a unit direction, its length
/// clamped to where bodies can lie; for a cast, its shape (`count` core vertices from word
/// `start` of the io buffer, 0 for a ray), radius, extent (how far its points reach from the
/// origin) and rotation.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuRay {
    pub origin: [f32; 2],
    pub dir: [f32; 2],
    pub length: f32,
    pub category: u32,
    pub mask: u32,
    pub group: i32,
    pub start: u32,
    pub count: u32,
    pub radius: f32,
    pub extent: f32,
    pub turn: [f32; 2],
    /// The world it looks into (of the world's several).
    pub world: u32,
    pub pad: u32,
}

/// A ray's `body` where its cast's loops were cut short (`ray.wgsl`).
pub(crate) const CUT: u32 = u32::MAX - 1;

/// One ray's answer (32 bytes): the body (`u32::MAX`: none; [`CUT`]: the cast's loops were cut
/// short, see `shaders/shared/loops.wgsl`), the distance along the ray, the body's outward unit
/// normal there (zero from inside) and, for a shape cast, the point of the body touched.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuRayHit {
    pub body: u32,
    pub t: f32,
    pub normal: [f32; 2],
    pub point: [f32; 2],
    pub pad: [u32; 2],
}

/// The batch's parameters as `ray.wgsl` reads them (`RayParams`): the host writes the first 32
/// bytes; the grid, the entry count and the grid's map are copied from the control buffer after
/// the sort.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuRayParams {
    pub rays: u32,
    pub bodies: u32,
    /// 1: the bodies' filters differ from the default.
    pub filtered: u32,
    /// 1: the world sorts strip entries (else every body is tested).
    pub strips: u32,
    /// 2, the bound of the loop that tells whether a cast's loops were cut short.
    pub two: u32,
    /// The word of `io` where the rays start.
    pub rays_at: u32,
    /// The bodies' worlds (1: one).
    pub worlds: u32,
    pub pad0: u32,
    /// The strip grid (`Grid`, 8 words), from the control buffer.
    pub grid: [u32; 8],
    /// The sorted entries, from the control buffer.
    pub entries: u32,
    /// 1: in a periodic box, the entries carry their images (shaders/shared/candidate.wgsl).
    pub images: u32,
    pub pad2: u32,
    pub pad3: u32,
    /// The grid's map, from the control buffer.
    pub map: [u32; control::MAP_WORDS as usize],
}

/// The buffers and bind group of one batch of rays.
pub(crate) struct RayCast {
    group: wgpu::BindGroup,
    params: wgpu::Buffer,
    io: wgpu::Buffer,
    rays: u32,
    rays_at: u32,
    strips: bool,
    /// Shapes are cast (else: rays alone, through the pipeline without the shapes' code).
    shapes: bool,
    fold: u32,
}

/// Words of the GPU's own ahead of the cast shapes' vertices in `io`: the strips' widths and
/// starts (twin of SHAPES_AT in ray.wgsl).
pub(crate) const HEADER_WORDS: u32 = 2 * MAX_STRIPS + 4;

impl RayCast {
    /// `rays` against the bodies of `bodies` (`filtered`: their filters differ from the default;
    /// `worlds`: how many worlds they are in), through `strip`'s sorted entries (each world's
    /// strips its own), or every body where there is no `strip` (of the ray's world where there
    /// are several). `shapes`: the
    /// cast shapes' vertices (vertex, unit normal), which the casts' `start`s index from word
    /// [`HEADER_WORDS`] of the io buffer, 4 words each.
    pub fn new(
        gpu: &Gpu,
        strip: Option<&StripBuffers>,
        bodies: &BodyBuffers,
        (rays, shapes): (&[GpuRay], &[[f32; 4]]),
        (filtered, worlds, images): (bool, u32, bool),
        fold: u32,
    ) -> RayCast {
        use wgpu::BufferUsages as U;
        let device = gpu.device();
        let n = rays.len() as u32;
        let rays_at = HEADER_WORDS + 4 * shapes.len() as u32;
        let params = GpuRayParams {
            rays: n,
            bodies: bodies.len(),
            filtered: u32::from(filtered),
            strips: u32::from(strip.is_some()),
            two: 2,
            rays_at,
            worlds,
            images: u32::from(images),
            ..bytemuck::Zeroable::zeroed()
        };
        let params = init(device, "satgpu.ray.params", bytemuck::bytes_of(&params), U::UNIFORM | U::COPY_DST);
        // The strips' widths and starts (written by the GPU), the cast shapes, then the rays.
        let mut words = vec![0u32; HEADER_WORDS as usize];
        words.extend_from_slice(bytemuck::cast_slice(shapes));
        words.extend_from_slice(bytemuck::cast_slice(rays));
        let io = init(device, "satgpu.ray.io", bytemuck::cast_slice(&words), U::STORAGE | U::COPY_SRC);
        let none = storage(device, "satgpu.ray.no_strips", 16, U::empty());
        // Without strips the bodies' worlds take the entries' place (`values`).
        let (keys, values, boxes) = match strip {
            Some(s) => (&s.keys, &s.values, &s.boxes),
            None => (&none, &bodies.worlds, &bodies.aabbs),
        };
        let b = bodies;
        let buffers = [&params, keys, values, boxes, &b.bodies, &b.shapes, &b.transforms, &b.filters, &io];
        let resources: Vec<_> = buffers.iter().map(|b| b.as_entire_binding()).collect();
        let group = gpu.kernels().ray[1].bind(device, "satgpu.ray", &resources);
        RayCast { group, params, io, rays: n, rays_at, strips: strip.is_some(), shapes: !shapes.is_empty(), fold }
    }

    /// Records the copy of the grid and the entry count from `control` (after the sorted
    /// entries, which must be recorded before), the strips' widest boxes and the casts
    /// ([`Pass::Cast`]).
    pub fn encode(&self, rec: &mut Recorder<'_>, control: &wgpu::Buffer) {
        let kernels = rec.kernels;
        if self.strips {
            let at = [offset_of!(GpuRayParams, grid), offset_of!(GpuRayParams, entries), offset_of!(GpuRayParams, map)];
            control::copy_index(rec.encoder(), control, &self.params, at.map(|o| o as u64));
        }
        let pass = rec.pass(Pass::Cast);
        pass.set_bind_group(0, &self.group, &[]);
        if self.strips {
            pass.set_pipeline(kernels.ray[0].pipeline());
            dispatch(pass, MAX_STRIPS * WG, WG, self.fold);
        }
        pass.set_pipeline(kernels.ray[if self.shapes { 2 } else { 1 }].pipeline());
        dispatch(pass, self.rays, WG, self.fold);
    }

    /// Where the answers lie: 64 bytes per ray from this offset of this buffer (COPY_SRC), each
    /// a [`GpuRayHit`] then 32 bytes of the ray.
    pub fn hits(&self) -> (&wgpu::Buffer, u64) {
        (&self.io, 4 * u64::from(self.rays_at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_match_their_wgsl_twins() {
        use crate::twins::assert_twin;
        let fields = "Ray";
        assert_twin!(
            GpuRay,
            "ray.wgsl",
            fields,
            [origin, dir, length, category, mask, group, start, count, radius, extent, turn, world, pad]
        );
        assert_twin!(GpuRayHit, "ray.wgsl", "RayHit", [body, t, normal, point, pad]);
        assert_twin!(
            GpuRayParams,
            "ray.wgsl",
            "RayParams",
            [rays, bodies, filtered, strips, two, rays_at, worlds, pad0, grid, entries, images, pad2, pad3, map]
        );
    }
}
