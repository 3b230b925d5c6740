//! The simulation's side of the GPU: its uniform block, its per-body record (both laid out as in
//! crowd.wgsl) and the pipelines of crowd.wgsl's entry points.

use crate::sim::shader;

/// The simulation's uniform block (`Params` in crowd.wgsl).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Params {
    pub(super) bodies: u32,
    pub(super) frame: u32,
    pub(super) reuse: u32,
    pub(super) pad0: u32,
    pub(super) dt: f32,
    pub(super) fixed: f32,
    pub(super) margin: f32,
    pub(super) relax: f32,
    pub(super) tau: f32,
    pub(super) max_speed: f32,
    pub(super) pad1: [f32; 2],
}

/// Per body (`Agent` in crowd.wgsl).
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

/// The entry points of crowd.wgsl.
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
    pub(super) fn new(device: &wgpu::Device) -> Pipelines {
        use wgpu::{BindingType, BufferBindingType};
        let storage = |read_only| BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let uniform =
            BindingType::Buffer { ty: BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None };
        let types = [
            uniform,
            storage(false),
            storage(false),
            storage(false),
            storage(false),
            storage(true),
            storage(true),
            storage(false),
        ];
        let entries: Vec<_> = types
            .iter()
            .enumerate()
            .map(|(i, ty)| wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: *ty,
                count: None,
            })
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("satgpu.sim"),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("satgpu.sim"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("satgpu.sim"),
            source: wgpu::ShaderSource::Wgsl(shader().into()),
        });
        let pipeline = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&format!("satgpu.sim.{entry}")),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Pipelines {
            integrate: pipeline("integrate"),
            anchor: pipeline("anchor"),
            push: pipeline("push"),
            apply: pipeline("apply"),
            finish: pipeline("finish"),
            guard: pipeline("guard"),
            measure: pipeline("measure"),
            layout,
        }
    }
}
