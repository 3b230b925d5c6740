//! The compute pipelines, created once per device. Layouts are explicit so that a binding a
//! specialised pipeline does not touch (the count variant of the sweep) keeps its slot.

/// How a shader uses one binding.
#[derive(Clone, Copy)]
pub(crate) enum Slot {
    Uniform,
    UniformDynamic,
    Read,
    ReadWrite,
}

fn layout(device: &wgpu::Device, label: &str, slots: &[Slot]) -> wgpu::BindGroupLayout {
    let entries: Vec<_> = slots
        .iter()
        .enumerate()
        .map(|(i, slot)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: match slot {
                Slot::Uniform | Slot::UniformDynamic => wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: matches!(slot, Slot::UniformDynamic),
                    min_binding_size: None,
                },
                Slot::Read | Slot::ReadWrite => wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: matches!(slot, Slot::Read) },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries: &entries })
}

/// One compute pipeline and its bind group layout.
pub(crate) struct Kernel {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

impl Kernel {
    fn new(device: &wgpu::Device, label: &str, source: &str, slots: &[Slot], constants: &[(&str, f64)]) -> Kernel {
        let layout = layout(device, label, slots);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = Self::pipeline(device, label, &module, &layout, constants);
        Kernel { pipeline, layout }
    }

    /// A second pipeline from `source` with `other`'s bind group layout, so one bind group
    /// serves both.
    fn sharing(device: &wgpu::Device, label: &str, source: &str, other: &Kernel, constants: &[(&str, f64)]) -> Kernel {
        let layout = other.layout.clone();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = Self::pipeline(device, label, &module, &layout, constants);
        Kernel { pipeline, layout }
    }

    fn pipeline(
        device: &wgpu::Device,
        label: &str,
        module: &wgpu::ShaderModule,
        layout: &wgpu::BindGroupLayout,
        constants: &[(&str, f64)],
    ) -> wgpu::ComputePipeline {
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(layout)],
            immediate_size: 0,
        });
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: Some(&pipeline_layout),
            module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions { constants, ..Default::default() },
            cache: None,
        })
    }

    /// A bind group over `buffers`, in binding order.
    pub fn bind(&self, device: &wgpu::Device, label: &str, buffers: &[wgpu::BindingResource]) -> wgpu::BindGroup {
        let entries: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(i, r)| wgpu::BindGroupEntry { binding: i as u32, resource: r.clone() })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &self.layout,
            entries: &entries,
        })
    }
}

/// Every pipeline of the collision pipeline.
pub(crate) struct Kernels {
    pub transform: Kernel,
    pub sort: Kernel,
    pub sweep_count: Kernel,
    pub sweep_write: Kernel,
    pub scan_setup: Kernel,
    pub scan_blocks: Kernel,
    pub scan_add: Kernel,
    pub pair_args: Kernel,
    pub sat: Kernel,
    pub compact: Kernel,
}

/// The WGSL sources, one file per pass, by file name (used by the naga validation test too).
pub const SHADERS: [(&str, &str); 9] = [
    ("transform.wgsl", include_str!("../../shaders/transform.wgsl")),
    ("sort.wgsl", include_str!("../../shaders/sort.wgsl")),
    ("sweep.wgsl", include_str!("../../shaders/sweep.wgsl")),
    ("scan_setup.wgsl", include_str!("../../shaders/scan_setup.wgsl")),
    ("scan_blocks.wgsl", include_str!("../../shaders/scan_blocks.wgsl")),
    ("scan_add.wgsl", include_str!("../../shaders/scan_add.wgsl")),
    ("pair_args.wgsl", include_str!("../../shaders/pair_args.wgsl")),
    ("sat.wgsl", include_str!("../../shaders/sat.wgsl")),
    ("compact.wgsl", include_str!("../../shaders/compact.wgsl")),
];

impl Kernels {
    pub fn new(device: &wgpu::Device) -> Kernels {
        use Slot::*;
        let src = |name: &str| SHADERS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s).unwrap_or_default();
        let sweep_count = Kernel::new(
            device,
            "satgpu.sweep.count",
            src("sweep.wgsl"),
            &[Uniform, Read, Read, ReadWrite, ReadWrite],
            &[("WRITE", 0.0)],
        );
        let sweep_write =
            Kernel::sharing(device, "satgpu.sweep.write", src("sweep.wgsl"), &sweep_count, &[("WRITE", 1.0)]);
        let scan_blocks = Kernel::new(
            device,
            "satgpu.scan.blocks",
            src("scan_blocks.wgsl"),
            &[Uniform, Read, ReadWrite, ReadWrite],
            &[],
        );
        let scan_add = Kernel::sharing(device, "satgpu.scan.add", src("scan_add.wgsl"), &scan_blocks, &[]);
        Kernels {
            sweep_count,
            sweep_write,
            scan_blocks,
            scan_add,
            transform: Kernel::new(
                device,
                "satgpu.transform",
                src("transform.wgsl"),
                &[Uniform, Read, Read, Read, ReadWrite, ReadWrite, ReadWrite],
                &[],
            ),
            sort: Kernel::new(device, "satgpu.sort", src("sort.wgsl"), &[UniformDynamic, ReadWrite], &[]),
            scan_setup: Kernel::new(device, "satgpu.scan.setup", src("scan_setup.wgsl"), &[ReadWrite], &[]),
            pair_args: Kernel::new(
                device,
                "satgpu.pair_args",
                src("pair_args.wgsl"),
                &[Uniform, Read, ReadWrite, ReadWrite],
                &[],
            ),
            sat: Kernel::new(
                device,
                "satgpu.sat",
                src("sat.wgsl"),
                &[Read, Read, Read, Read, Read, ReadWrite, ReadWrite],
                &[],
            ),
            compact: Kernel::new(
                device,
                "satgpu.compact",
                src("compact.wgsl"),
                &[Read, Read, Read, Read, ReadWrite],
                &[],
            ),
        }
    }
}
