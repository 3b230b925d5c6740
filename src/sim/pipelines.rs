//! The simulation's side of the GPU: its uniform block, its per-body record (both laid out as in
//! shaders/push.wgsl) and the pipelines of its entry points.

use crate::error::Result;
use crate::gpu::Gpu;

/// The simulation's uniform block (`PushParams` in shaders/push.wgsl).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Params {
    pub(super) bodies: u32,
    pub(super) frame: u32,
    pub(super) reuse: u32,
    /// In a periodic box, which axes wrap (bit 0: x, bit 1: y).
    pub(super) wrap: u32,
    pub(super) dt: f32,
    pub(super) fixed: f32,
    pub(super) margin: f32,
    pub(super) relax: f32,
    pub(super) tau: f32,
    pub(super) max_speed: f32,
    pub(super) pad1: f32,
    pub(super) pad2: f32,
    /// The periodic box's lower corner and size (zero without one).
    pub(super) box_lo: [f32; 2],
    pub(super) period: [f32; 2],
}

/// Per body (`Agent` in shaders/push.wgsl).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Agent {
    pub(super) goal: [f32; 2],
    pub(super) velocity: [f32; 2],
    pub(super) speed: f32,
    pub(super) inv_mass: f32,
    pub(super) radius: f32,
    pub(super) pad: f32,
}

/// The entry points of shaders/push.wgsl.
pub(super) struct Pipelines {
    pub(super) integrate: wgpu::ComputePipeline,
    pub(super) anchor: wgpu::ComputePipeline,
    pub(super) push: wgpu::ComputePipeline,
    pub(super) apply: wgpu::ComputePipeline,
    pub(super) finish: wgpu::ComputePipeline,
    pub(super) guard: wgpu::ComputePipeline,
    pub(super) measure: wgpu::ComputePipeline,
    pub(super) layout: wgpu::BindGroupLayout,
}

impl Pipelines {
    /// The device's program of shaders/push.wgsl (made once per device), every entry point
    /// compiled (a simulation runs them all).
    pub(super) fn new(gpu: &Gpu) -> Result<Pipelines> {
        let entries = ["integrate", "anchor", "push", "apply", "finish", "guard", "measure"];
        let program = gpu.program("satgpu.sim", "push.wgsl", &entries)?;
        let mut k = 0;
        let mut next = || {
            k += 1;
            program.pipeline(k - 1).clone()
        };
        Ok(Pipelines {
            integrate: next(),
            anchor: next(),
            push: next(),
            apply: next(),
            finish: next(),
            guard: next(),
            measure: next(),
            layout: program.layout.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_match_their_wgsl_twins() {
        use crate::twins::assert_twin;
        assert_twin!(
            Params,
            "push.wgsl",
            "PushParams",
            [bodies, frame, reuse, wrap, dt, fixed, margin, relax, tau, max_speed, pad1, pad2, box_lo, period]
        );
        assert_twin!(Agent, "push.wgsl", "Agent", [goal, velocity, speed, inv_mass, radius, pad]);
    }
}
