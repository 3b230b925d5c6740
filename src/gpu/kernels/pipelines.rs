//! The compute pipelines, created once per device from the composed shaders (shaders.rs). Layouts are explicit so that a binding a
//! specialised pipeline does not touch (the count variant of the sweep) keeps its slot.

use std::sync::{Arc, Mutex};

use crate::gpu::kernels::shaders::{self, Pages, PAGE_BINDING, RADIX_WG, SCAN_WG};

/// How a shader uses one binding.
#[derive(Clone, Copy)]
pub(crate) enum Slot {
    Uniform,
    UniformDynamic,
    Read,
    ReadWrite,
}

/// The layout of `slots`, one binding each from 0, then the packed shapes' pages after the first
/// (read, from [`PAGE_BINDING`]).
fn layout(device: &wgpu::Device, label: &str, slots: &[Slot], pages: Pages) -> wgpu::BindGroupLayout {
    let more = (1..pages.count).map(|p| (PAGE_BINDING + p - 1, &Slot::Read));
    let entries: Vec<_> = (0u32..)
        .zip(slots)
        .chain(more)
        .map(|(binding, slot)| wgpu::BindGroupLayoutEntry {
            binding,
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
        Kernel::paged(device, label, source, slots, constants, Pages::ONE)
    }

    /// [`Kernel::new`] for a kernel that reads the packed shapes in `pages`.
    fn paged(
        device: &wgpu::Device,
        label: &str,
        source: &str,
        slots: &[Slot],
        constants: &[(&str, f64)],
        pages: Pages,
    ) -> Kernel {
        let layout = layout(device, label, slots, pages);
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
        self.bind_pages(device, label, buffers, &[])
    }

    /// [`Kernel::bind`] for a kernel that reads the packed shapes: `pages` are every page of
    /// them, the first of which `buffers` holds where the kernel declares `shapes`.
    pub fn bind_pages(
        &self,
        device: &wgpu::Device,
        label: &str,
        buffers: &[wgpu::BindingResource],
        pages: &[wgpu::Buffer],
    ) -> wgpu::BindGroup {
        let more = (PAGE_BINDING..).zip(pages.iter().skip(1).map(|b| b.as_entire_binding()));
        let entries: Vec<_> = (0u32..)
            .zip(buffers.iter().cloned())
            .chain(more)
            .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &self.layout,
            entries: &entries,
        })
    }
}

/// Work per invocation of the scan and radix kernels. CPU adapters (lavapipe, llvmpipe) run a
/// workgroup on one core and pay for every workgroup barrier, so they get long serial chunks and
/// few, large workgroups; GPUs want many workgroups, so short chunks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tuning {
    /// Elements per invocation of scan_blocks.wgsl and scan_add.wgsl (SCAN_WG invocations).
    pub scan_chunk: u32,
    /// Keys per invocation of radix_hist.wgsl and radix_scatter.wgsl (RADIX_WG invocations).
    pub radix_chunk: u32,
    /// The most keys the one-workgroup sort (radix_tile.wgsl) takes: sorts whose capacity fits
    /// run in one dispatch instead of three per pass. On lavapipe it beat the multi-tile sort up
    /// to 13,000 entries and the rank sort at 300 and 500 bodies, and lost at 49,000
    /// (docs/benchmarks-history.md); on a GPU its one workgroup's serial runs of keys would wait on memory,
    /// so only the smallest sorts use it there (not measured on a GPU yet).
    pub tile_keys: u32,
    /// The fewest vertices in all of a many-vertex pair whose narrow phase walks only the arc of
    /// faces that can still win (sat.wgsl: `PRUNE_FROM`); smaller pairs walk every face. On
    /// lavapipe 64, 96 and 128 gave `round`'s narrow phase within noise of each other (about
    /// 1.5x faster than no pruning), and 64 made `shapes` (rounded polygons of 9 to 64
    /// vertices) about 20 % slower, 128 not (docs/benchmarks-history.md). GPUs take 128 too. They
    /// took 0 (every pair pruned), and so an NVIDIA H200 found the bug the smaller pairs hid: a
    /// walk that started inside its arc (sat.wgsl, mended); whether pruning small pairs pays on a
    /// GPU is still to be measured there. Tests prune every pair too
    /// (`testing::open_pruning_every_pair`).
    pub prune_from: u32,
}

impl Tuning {
    pub fn for_device(device_type: wgpu::DeviceType) -> Tuning {
        match device_type {
            wgpu::DeviceType::Cpu => Tuning { scan_chunk: 16, radix_chunk: 32, tile_keys: 16_384, prune_from: 128 },
            _ => Tuning { scan_chunk: 2, radix_chunk: 8, tile_keys: 1024, prune_from: 128 },
        }
    }

    /// Elements per scan block.
    pub fn scan_block(&self) -> u64 {
        u64::from(SCAN_WG * self.scan_chunk)
    }

    /// Keys per radix tile.
    pub fn radix_tile(&self) -> u64 {
        u64::from(RADIX_WG * self.radix_chunk)
    }
}

/// Every pipeline of the collision pipeline.
pub(crate) struct Kernels {
    pub tuning: Tuning,
    device: wgpu::Device,
    /// The kernels that read the packed shapes, for shapes in one binding.
    pub one_page: Arc<ShapeKernels>,
    /// The same for shapes in more pages, compiled when a world first needs them.
    paged: Mutex<Vec<Arc<ShapeKernels>>>,
    pub control_grid: Kernel,
    pub entries_count: Kernel,
    pub entries_write: Kernel,
    pub control_entries: Kernel,
    pub radix_setup: Kernel,
    pub radix_hist: Kernel,
    pub radix_scatter: Kernel,
    /// Every pass of a sort that fits one tile, in one workgroup (see `radix.rs`).
    pub radix_tile: Kernel,
    pub gather: Kernel,
    /// The small sort: ranks by counting, then back and gathered (see `sort.rs`).
    pub rank_sort: Kernel,
    pub rank_gather: Kernel,
    /// Count and write, then the same two reading the collision filters (see [`Kernels::pick`]).
    pub sweep: [Kernel; 4],
    pub allpairs: [Kernel; 4],
    pub control_pairs: Kernel,
    pub scan_setup: Kernel,
    pub scan_blocks: Kernel,
    pub scan_add: Kernel,
    /// Compound worlds: the deepest part pair per pair of bodies, in four phases (see deepest.rs).
    pub deepest: [Kernel; 4],
    pub compact: Kernel,
    /// The GPU ordering (ordering.rs): keys in place of the compaction's write, then after the
    /// sort the rekey by `a` and the gather.
    pub order_keys: Kernel,
    pub order: [Kernel; 2],
    /// Contact events (events.rs): setup, flags, write.
    pub events: [Kernel; 3],
}

/// The kernels that read the packed shapes, for one way of binding them ([`Pages`]).
pub(crate) struct ShapeKernels {
    pub pages: Pages,
    pub transform: Kernel,
    /// The narrow phase's passes (see sat.wgsl, `PHASE`): small pairs, then binning and large
    /// pairs; small and large each for plain polygons and for scenes with rounded shapes
    /// (`ROUNDED`).
    pub sat: Sat,
    pub manifold: Kernel,
    /// Region queries (query.rs): count, then write.
    pub query: [Kernel; 2],
    /// Ray casts (ray.rs): the strips' widest boxes, then the casts.
    pub ray: [Kernel; 2],
}

impl ShapeKernels {
    fn new(device: &wgpu::Device, tuning: Tuning, pages: Pages) -> ShapeKernels {
        use Slot::*;
        let src = |name: &str| shaders::source_paged(name, pages);
        let paged = |label: &str, source: &str, slots: &[Slot], constants: &[(&str, f64)]| {
            Kernel::paged(device, label, source, slots, constants, pages)
        };
        let pair = |label: &str, file: &str, slots: &[Slot], constant: &str, names: [&str; 2]| {
            let source = src(file);
            let first = paged(&format!("{label}.{}", names[0]), &source, slots, &[(constant, 0.0)]);
            let second = Kernel::sharing(device, &format!("{label}.{}", names[1]), &source, &first, &[(constant, 1.0)]);
            [first, second]
        };
        ShapeKernels {
            pages,
            transform: paged(
                "satgpu.transform",
                &src("transform.wgsl"),
                &[Uniform, Read, Read, Read, ReadWrite, ReadWrite, Read],
                &[],
            ),
            sat: {
                let source = src("sat.wgsl");
                let slots = [Read, Read, Read, Read, Read, ReadWrite, ReadWrite, ReadWrite, Uniform];
                let prune = f64::from(tuning.prune_from);
                let plain =
                    paged("satgpu.sat", &source, &slots, &[("PHASE", 0.0), ("ROUNDED", 0.0), ("PRUNE_FROM", prune)]);
                let variant = |label: &str, phase: f64, rounded: f64| {
                    let constants = [("PHASE", phase), ("ROUNDED", rounded), ("PRUNE_FROM", prune)];
                    Kernel::sharing(device, label, &source, &plain, &constants)
                };
                let rounded = variant("satgpu.sat.rounded", 0.0, 1.0);
                Sat {
                    bin: variant("satgpu.sat.bin", 1.0, 0.0),
                    large: [variant("satgpu.sat.large", 2.0, 0.0), variant("satgpu.sat.large.rounded", 2.0, 1.0)],
                    small: [plain, rounded],
                }
            },
            manifold: paged(
                "satgpu.manifold",
                &src("manifold.wgsl"),
                &[Read, Read, Read, Read, Read, ReadWrite, Uniform],
                &[],
            ),
            query: pair(
                "satgpu.query",
                "query.wgsl",
                &[Uniform, Read, Read, Read, Read, Read, Read, ReadWrite, ReadWrite],
                "QUERY_STEP",
                ["count", "write"],
            ),
            ray: pair(
                "satgpu.ray",
                "ray.wgsl",
                &[Uniform, Read, Read, Read, Read, Read, Read, Read, ReadWrite],
                "RAY_STEP",
                ["widths", "cast"],
            ),
        }
    }
}

impl Kernels {
    pub fn new(device: &wgpu::Device, tuning: Tuning) -> Kernels {
        use Slot::*;
        let scan_chunk = [("CHUNK", f64::from(tuning.scan_chunk))];
        let radix_chunk = [("CHUNK", f64::from(tuning.radix_chunk))];
        // Every kernel that plans a scan (shared/scan_plan.wgsl) needs its block length.
        let scan_block = [("BLOCK", tuning.scan_block() as f64)];
        let src = |name: &str| shaders::source(name);
        let k = |label: &str, file: &str, slots: &[Slot]| Kernel::new(device, label, &src(file), slots, &[]);
        let tuned = |label: &str, file: &str, slots: &[Slot], constants: &[(&str, f64)]| {
            Kernel::new(device, label, &src(file), slots, constants)
        };
        let pair = |label: &str, file: &str, slots: &[Slot]| {
            let source = src(file);
            let count = Kernel::new(device, &format!("{label}.count"), &source, slots, &[("WRITE", 0.0)]);
            let write = Kernel::sharing(device, &format!("{label}.write"), &source, &count, &[("WRITE", 1.0)]);
            (count, write)
        };
        let (entries_count, entries_write) =
            pair("satgpu.entries", "entries.wgsl", &[Uniform, Read, Read, ReadWrite, ReadWrite, ReadWrite]);
        // The broad phases come in four variants: count or write, without or with the filters, so
        // that a world without filters pays nothing for them (a constant, not a uniform, decides).
        let quad = |label: &str, file: &str, slots: &[Slot]| {
            let source = src(file);
            let first =
                Kernel::new(device, &format!("{label}.count"), &source, slots, &[("WRITE", 0.0), ("FILTERED", 0.0)]);
            let more = [("write", 1.0, 0.0), ("count.filtered", 0.0, 1.0), ("write.filtered", 1.0, 1.0)].map(
                |(name, w, f)| {
                    Kernel::sharing(
                        device,
                        &format!("{label}.{name}"),
                        &source,
                        &first,
                        &[("WRITE", w), ("FILTERED", f)],
                    )
                },
            );
            let [a, b, c] = more;
            [first, a, b, c]
        };
        let sweep = quad("satgpu.sweep", "sweep.wgsl", &[Uniform, Read, Read, Read, Read, ReadWrite, ReadWrite, Read]);
        let allpairs = quad("satgpu.allpairs", "allpairs.wgsl", &[Uniform, Read, ReadWrite, ReadWrite, Read]);
        let scan_blocks =
            tuned("satgpu.scan.blocks", "scan_blocks.wgsl", &[Uniform, Read, ReadWrite, ReadWrite], &scan_chunk);
        let scan_add = Kernel::sharing(device, "satgpu.scan.add", &src("scan_add.wgsl"), &scan_blocks, &scan_chunk);
        Kernels {
            tuning,
            device: device.clone(),
            one_page: Arc::new(ShapeKernels::new(device, tuning, Pages::ONE)),
            paged: Mutex::new(vec![]),
            control_grid: tuned(
                "satgpu.control.grid",
                "control_grid.wgsl",
                &[Uniform, Read, ReadWrite, Read],
                &scan_block,
            ),
            entries_count,
            entries_write,
            control_entries: tuned(
                "satgpu.control.entries",
                "control_entries.wgsl",
                &[Uniform, Read, ReadWrite],
                &scan_block,
            ),
            radix_setup: tuned(
                "satgpu.radix.setup",
                "radix_setup.wgsl",
                &[ReadWrite],
                &[("TILE", tuning.radix_tile() as f64)],
            ),
            radix_hist: tuned(
                "satgpu.radix.hist",
                "radix_hist.wgsl",
                &[UniformDynamic, Read, Read, ReadWrite],
                &radix_chunk,
            ),
            radix_scatter: tuned(
                "satgpu.radix.scatter",
                "radix_scatter.wgsl",
                &[UniformDynamic, Read, Read, Read, Read, ReadWrite, ReadWrite],
                &radix_chunk,
            ),
            radix_tile: k(
                "satgpu.radix.tile",
                "radix_tile.wgsl",
                &[Uniform, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite],
            ),
            gather: k("satgpu.gather", "gather.wgsl", &[Read, Read, Read, ReadWrite]),
            rank_sort: k("satgpu.rank_sort", "rank_sort.wgsl", &[Read, Read, Read, ReadWrite, ReadWrite]),
            rank_gather: k(
                "satgpu.rank_gather",
                "rank_gather.wgsl",
                &[Read, Read, Read, Read, ReadWrite, ReadWrite, ReadWrite],
            ),
            sweep,
            allpairs,
            control_pairs: tuned(
                "satgpu.control.pairs",
                "control_pairs.wgsl",
                &[Uniform, Read, ReadWrite, ReadWrite],
                &scan_block,
            ),
            scan_setup: tuned("satgpu.scan.setup", "scan_setup.wgsl", &[ReadWrite], &scan_block),
            scan_blocks,
            scan_add,
            deepest: {
                let source = src("deepest.wgsl");
                let slots = [Read, Read, ReadWrite, ReadWrite, Read, ReadWrite];
                let first = Kernel::new(device, "satgpu.deepest.clear", &source, &slots, &[("STEP", 0.0)]);
                let more = [("claim", 1.0), ("part", 2.0), ("keep", 3.0)].map(|(name, step)| {
                    Kernel::sharing(device, &format!("satgpu.deepest.{name}"), &source, &first, &[("STEP", step)])
                });
                let [a, b, c] = more;
                [first, a, b, c]
            },
            compact: k("satgpu.compact", "compact.wgsl", &[Read, Read, Read, Read, ReadWrite, ReadWrite]),
            order_keys: k(
                "satgpu.order.keys",
                "order_keys.wgsl",
                &[Read, Read, Read, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite],
            ),
            order: {
                let source = src("order_gather.wgsl");
                let slots = [Read, Read, Read, ReadWrite, Read, ReadWrite];
                let rekey = Kernel::new(device, "satgpu.order.rekey", &source, &slots, &[("GATHER", 0.0)]);
                let gather = Kernel::sharing(device, "satgpu.order.gather", &source, &rekey, &[("GATHER", 1.0)]);
                [rekey, gather]
            },
            events: {
                let setup =
                    tuned("satgpu.events.setup", "events_setup.wgsl", &[ReadWrite, Read, Read, ReadWrite], &scan_block);
                let source = src("events.wgsl");
                let slots = [Read, Read, Read, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite];
                let flags = Kernel::new(device, "satgpu.events.flags", &source, &slots, &[("EVENT_STEP", 1.0)]);
                let write = Kernel::sharing(device, "satgpu.events.write", &source, &flags, &[("EVENT_STEP", 2.0)]);
                [setup, flags, write]
            },
        }
    }
}

/// The narrow phase's pipelines, all with one bind group layout.
/// `small` and `large` are each without and with the rounded code.
pub(crate) struct Sat {
    pub small: [Kernel; 2],
    pub bin: Kernel,
    pub large: [Kernel; 2],
}

impl Kernels {
    /// The kernels that read shapes bound in `pages`, compiled on first use (call inside
    /// [`Gpu::scoped`](crate::gpu::Gpu::scoped), which catches a failed compilation).
    pub fn reading(&self, pages: Pages) -> Arc<ShapeKernels> {
        if pages == Pages::ONE {
            return self.one_page.clone();
        }
        let mut paged = self.paged.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = paged.iter().find(|k| k.pages == pages) {
            return k.clone();
        }
        let k = Arc::new(ShapeKernels::new(&self.device, self.tuning, pages));
        paged.push(k.clone());
        k
    }

    /// The variant of a broad-phase kernel quad: the count or the write, without or with filters.
    pub fn pick(quad: &[Kernel; 4], write: bool, filtered: bool) -> &Kernel {
        &quad[usize::from(write) + 2 * usize::from(filtered)]
    }
}
