//! The compute pipelines, created once per device from the composed shaders (shaders.rs). Layouts are explicit so that a binding a
//! specialised pipeline does not touch (the count variant of the sweep) keeps its slot.

use std::sync::{Arc, OnceLock};

use crate::gpu::kernels::bindings::{slots, Slot};
use crate::gpu::kernels::shaders::{self, page_binding, Paging, RADIX_WG, SCAN_WG};

/// Every binding of `slots` with `paging`: slot `i` at binding `i`, and page `p` of a paged
/// slot at [`page_binding`]`(i, p)`.
/// Yields (binding, slot index, page, slot).
fn bindings(slots: &[Slot], paging: Paging) -> impl Iterator<Item = (u32, usize, u32, &Slot)> {
    (0u32..).zip(slots).flat_map(move |(i, slot)| {
        let pages = slot.kind().map_or(1, |kind| paging.of(kind).count);
        (0..pages).map(move |p| (if p == 0 { i } else { page_binding(i, p) }, i as usize, p, slot))
    })
}

fn layout(device: &wgpu::Device, label: &str, slots: &[Slot], paging: Paging) -> wgpu::BindGroupLayout {
    let entries: Vec<_> = bindings(slots, paging)
        .map(|(binding, _, _, slot)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: match slot {
                Slot::Uniform | Slot::UniformDynamic => wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: matches!(slot, Slot::UniformDynamic),
                    min_binding_size: None,
                },
                _ => wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: matches!(slot, Slot::Read | Slot::Paged(_)) },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries: &entries })
}

/// A kernel of several entry points over one bind group layout, slot `i` at binding `i` (no
/// paging): the passes that run beside a frame (the simulations', the neighbours' gather), one
/// pipeline per entry point (each compiled when first recorded), composed from `shaders/` like
/// every other kernel.
pub(crate) struct Program {
    pub layout: wgpu::BindGroupLayout,
    /// One per entry point, in the order asked for.
    kernels: Vec<Kernel>,
    label: String,
}

impl Program {
    /// The pipelines of `entries` of the kernel `file` (`shaders/FILE`).
    pub fn new(device: &wgpu::Device, label: &str, file: &str, entries: &[&'static str]) -> Program {
        let first = Kernel::new(device, Paging::ONE, label, &shaders::source(file), slots(file), &[]);
        let kernels = entries
            .iter()
            .map(|&entry| Kernel { entry, ..Kernel::sharing(&format!("{label}.{entry}"), &first, &[]) })
            .collect();
        Program { layout: first.layout, kernels, label: label.to_string() }
    }

    /// The pipeline of entry point `k` (in the order given to [`Program::new`]).
    pub fn pipeline(&self, k: usize) -> &wgpu::ComputePipeline {
        self.kernels[k].pipeline()
    }

    /// A bind group of whole `buffers`, in slot order.
    pub fn bind(&self, device: &wgpu::Device, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let entries: Vec<_> = (0u32..)
            .zip(buffers)
            .map(|(binding, b)| wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&self.label),
            layout: &self.layout,
            entries: &entries,
        })
    }
}

/// A composed shader and, once a pipeline of it is first made, its module: the variants of one
/// kernel (count and write, the filtered ones, the narrow phase's) share both.
struct Source {
    label: String,
    text: String,
    module: OnceLock<wgpu::ShaderModule>,
}

impl Source {
    fn new(label: &str, text: &str) -> Arc<Source> {
        Arc::new(Source { label: label.to_string(), text: text.to_string(), module: OnceLock::new() })
    }
}

/// One compute pipeline and its bind group layout. The layout is made at once; the pipeline
/// when a pass first records it ([`Kernel::pipeline`]), since compiling it is most of what
/// opening a device costs on a software adapter (lavapipe compiles each with LLVM) and a frame
/// records only the variants its world needs. A first recording happens inside the error scopes
/// of [`Gpu::scoped`](crate::gpu::Gpu), so a driver that rejects a shader is reported there.
pub(crate) struct Kernel {
    pub layout: wgpu::BindGroupLayout,
    device: wgpu::Device,
    label: String,
    source: Arc<Source>,
    constants: Vec<(&'static str, f64)>,
    entry: &'static str,
    pipeline: OnceLock<wgpu::ComputePipeline>,
    slots: Vec<Slot>,
    paging: Paging,
}

impl Kernel {
    fn new(
        device: &wgpu::Device,
        paging: Paging,
        label: &str,
        source: &str,
        slots: &[Slot],
        constants: &[(&'static str, f64)],
    ) -> Kernel {
        let layout = layout(device, label, slots, paging);
        let source = Source::new(label, source);
        Kernel {
            layout,
            device: device.clone(),
            label: label.to_string(),
            source,
            constants: constants.to_vec(),
            entry: "main",
            pipeline: OnceLock::new(),
            slots: slots.to_vec(),
            paging,
        }
    }

    /// A second pipeline of `other`'s shader with other `constants`, and `other`'s bind group
    /// layout, so one bind group serves both.
    fn sharing(label: &str, other: &Kernel, constants: &[(&'static str, f64)]) -> Kernel {
        Kernel {
            layout: other.layout.clone(),
            device: other.device.clone(),
            label: label.to_string(),
            source: other.source.clone(),
            constants: constants.to_vec(),
            entry: other.entry,
            pipeline: OnceLock::new(),
            slots: other.slots.clone(),
            paging: other.paging,
        }
    }

    /// A pipeline of another shader, `source`, with `other`'s bind group layout.
    fn beside(label: &str, source: &str, other: &Kernel, constants: &[(&'static str, f64)]) -> Kernel {
        let source = Source::new(label, source);
        Kernel { source, ..Kernel::sharing(label, other, constants) }
    }

    /// The pipeline, compiled the first time it is asked for.
    pub fn pipeline(&self) -> &wgpu::ComputePipeline {
        self.pipeline.get_or_init(|| {
            let source = &self.source;
            let module = source.module.get_or_init(|| {
                self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(&source.label),
                    source: wgpu::ShaderSource::Wgsl(source.text.as_str().into()),
                })
            });
            let pipeline_layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&self.label),
                bind_group_layouts: &[Some(&self.layout)],
                immediate_size: 0,
            });
            self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&self.label),
                layout: Some(&pipeline_layout),
                module,
                entry_point: Some(self.entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &self.constants,
                    ..Default::default()
                },
                cache: None,
            })
        })
    }

    /// A bind group over `buffers`, in slot order. A paged slot's buffer binding is bound in
    /// windows of its pages (all of it from its offset, unless its size is given).
    pub fn bind(&self, device: &wgpu::Device, label: &str, buffers: &[wgpu::BindingResource]) -> wgpu::BindGroup {
        let entries: Vec<_> = bindings(&self.slots, self.paging)
            .map(|(binding, i, p, slot)| {
                let resource = match (slot.kind(), &buffers[i]) {
                    (Some(kind), wgpu::BindingResource::Buffer(b)) if self.paging.of(kind).count > 1 => {
                        let page = self.paging.of(kind).bytes();
                        let size = b.size.map_or(b.buffer.size() - b.offset, |s| s.get());
                        // (A window past the end, which no index reaches, repeats the last page.)
                        let start = (u64::from(p) * page).min(size.saturating_sub(1) / page * page);
                        let len = page.min(size - start);
                        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: b.buffer,
                            offset: b.offset + start,
                            size: std::num::NonZeroU64::new(len),
                        })
                    }
                    (_, r) => r.clone(),
                };
                wgpu::BindGroupEntry { binding, resource }
            })
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
    /// How the large arrays are bound (and the kernels that read them composed).
    pub paging: Paging,
    pub transform: Kernel,
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
    /// The narrow phase's passes (see sat.wgsl, `PHASE`): small pairs, then binning and large
    /// pairs; small and large each for plain polygons and for scenes with rounded shapes
    /// (`ROUNDED`).
    pub sat: Sat,
    /// Continuous collision (impact.rs): each candidate pair's first touch.
    pub impact: Kernel,
    /// Compound worlds: the deepest part pair per pair of bodies, in four phases (see deepest.rs).
    pub deepest: [Kernel; 4],
    pub compact: Kernel,
    /// The GPU ordering (ordering.rs): keys in place of the compaction's write, then after the
    /// sort the rekey by `a` and the gather.
    pub order_keys: Kernel,
    pub order: [Kernel; 2],
    pub manifold: Kernel,
    /// Contact events (events.rs): setup, flags, write.
    pub events: [Kernel; 3],
    /// Region queries (query.rs): the strips' widths, the walks.
    pub query: [Kernel; 2],
    /// Ray casts (ray.rs): the strips' widest boxes, then the casts of rays, or of shapes.
    pub ray: [Kernel; 3],
}

impl Kernels {
    pub fn new(device: &wgpu::Device, tuning: Tuning, paging: Paging) -> Kernels {
        let scan_chunk = [("CHUNK", f64::from(tuning.scan_chunk))];
        let radix_chunk = [("CHUNK", f64::from(tuning.radix_chunk))];
        // Every kernel that plans a scan (shared/scan_plan.wgsl) needs its block length.
        let scan_block = [("BLOCK", tuning.scan_block() as f64)];
        let src = |name: &str| shaders::source_paged(name, paging);
        let k = |label: &str, file: &str| Kernel::new(device, paging, label, &src(file), slots(file), &[]);
        let tuned = |label: &str, file: &str, constants: &[(&'static str, f64)]| {
            Kernel::new(device, paging, label, &src(file), slots(file), constants)
        };
        let pair = |label: &str, file: &str| {
            let (source, slots) = (src(file), slots(file));
            let count = Kernel::new(device, paging, &format!("{label}.count"), &source, slots, &[("WRITE", 0.0)]);
            let write = Kernel::sharing(&format!("{label}.write"), &count, &[("WRITE", 1.0)]);
            (count, write)
        };
        let (entries_count, entries_write) = pair("satgpu.entries", "entries.wgsl");
        // The broad phases come in four variants: count or write, without or with the filters, so
        // that a world without filters pays nothing for them (a constant, not a uniform, decides).
        let quad = |label: &str, file: &str| {
            let (source, slots) = (src(file), slots(file));
            let first = Kernel::new(
                device,
                paging,
                &format!("{label}.count"),
                &source,
                slots,
                &[("WRITE", 0.0), ("FILTERED", 0.0)],
            );
            let more = [("write", 1.0, 0.0), ("count.filtered", 0.0, 1.0), ("write.filtered", 1.0, 1.0)].map(
                |(name, w, f)| Kernel::sharing(&format!("{label}.{name}"), &first, &[("WRITE", w), ("FILTERED", f)]),
            );
            let [a, b, c] = more;
            [first, a, b, c]
        };
        let sweep = quad("satgpu.sweep", "sweep.wgsl");
        let allpairs = quad("satgpu.allpairs", "allpairs.wgsl");
        let scan_blocks = tuned("satgpu.scan.blocks", "scan_blocks.wgsl", &scan_chunk);
        let scan_add = Kernel::beside("satgpu.scan.add", &src("scan_add.wgsl"), &scan_blocks, &scan_chunk);
        Kernels {
            tuning,
            paging,
            impact: k("satgpu.impact", "impact.wgsl"),
            transform: k("satgpu.transform", "transform.wgsl"),
            control_grid: tuned("satgpu.control.grid", "control_grid.wgsl", &scan_block),
            entries_count,
            entries_write,
            control_entries: tuned("satgpu.control.entries", "control_entries.wgsl", &scan_block),
            radix_setup: tuned("satgpu.radix.setup", "radix_setup.wgsl", &[("TILE", tuning.radix_tile() as f64)]),
            radix_hist: tuned("satgpu.radix.hist", "radix_hist.wgsl", &radix_chunk),
            radix_scatter: tuned("satgpu.radix.scatter", "radix_scatter.wgsl", &radix_chunk),
            radix_tile: k("satgpu.radix.tile", "radix_tile.wgsl"),
            gather: k("satgpu.gather", "gather.wgsl"),
            rank_sort: k("satgpu.rank_sort", "rank_sort.wgsl"),
            rank_gather: k("satgpu.rank_gather", "rank_gather.wgsl"),
            sweep,
            allpairs,
            control_pairs: tuned("satgpu.control.pairs", "control_pairs.wgsl", &scan_block),
            scan_setup: tuned("satgpu.scan.setup", "scan_setup.wgsl", &scan_block),
            scan_blocks,
            scan_add,
            sat: {
                let (source, slots) = (src("sat.wgsl"), slots("sat.wgsl"));
                let prune = f64::from(tuning.prune_from);
                let plain = Kernel::new(
                    device,
                    paging,
                    "satgpu.sat",
                    &source,
                    slots,
                    &[("PHASE", 0.0), ("ROUNDED", 0.0), ("PRUNE_FROM", prune)],
                );
                let variant = |label: &str, phase: f64, rounded: f64| {
                    let constants = [("PHASE", phase), ("ROUNDED", rounded), ("PRUNE_FROM", prune)];
                    Kernel::sharing(label, &plain, &constants)
                };
                let rounded = variant("satgpu.sat.rounded", 0.0, 1.0);
                Sat {
                    bin: variant("satgpu.sat.bin", 1.0, 0.0),
                    large: [variant("satgpu.sat.large", 2.0, 0.0), variant("satgpu.sat.large.rounded", 2.0, 1.0)],
                    small: [plain, rounded],
                }
            },
            deepest: {
                let (source, slots) = (src("deepest.wgsl"), slots("deepest.wgsl"));
                let first = Kernel::new(device, paging, "satgpu.deepest.clear", &source, slots, &[("STEP", 0.0)]);
                let more = [("claim", 1.0), ("part", 2.0), ("keep", 3.0)]
                    .map(|(name, step)| Kernel::sharing(&format!("satgpu.deepest.{name}"), &first, &[("STEP", step)]));
                let [a, b, c] = more;
                [first, a, b, c]
            },
            compact: k("satgpu.compact", "compact.wgsl"),
            order_keys: k("satgpu.order.keys", "order_keys.wgsl"),
            order: {
                let (source, slots) = (src("order_gather.wgsl"), slots("order_gather.wgsl"));
                let rekey = Kernel::new(device, paging, "satgpu.order.rekey", &source, slots, &[("GATHER", 0.0)]);
                let gather = Kernel::sharing("satgpu.order.gather", &rekey, &[("GATHER", 1.0)]);
                [rekey, gather]
            },
            manifold: k("satgpu.manifold", "manifold.wgsl"),
            events: {
                let setup = tuned("satgpu.events.setup", "events_setup.wgsl", &scan_block);
                let (source, slots) = (src("events.wgsl"), slots("events.wgsl"));
                let flags = Kernel::new(device, paging, "satgpu.events.flags", &source, slots, &[("EVENT_STEP", 1.0)]);
                let write = Kernel::sharing("satgpu.events.write", &flags, &[("EVENT_STEP", 2.0)]);
                [setup, flags, write]
            },
            query: {
                let (source, slots) = (src("query.wgsl"), slots("query.wgsl"));
                let widths = Kernel::new(device, paging, "satgpu.query.widths", &source, slots, &[("QUERY_STEP", 0.0)]);
                let walks = Kernel::sharing("satgpu.query.walks", &widths, &[("QUERY_STEP", 1.0)]);
                [widths, walks]
            },
            ray: {
                let (source, slots) = (src("ray.wgsl"), slots("ray.wgsl"));
                let widths = Kernel::new(device, paging, "satgpu.ray.widths", &source, slots, &[("RAY_STEP", 0.0)]);
                let casts =
                    |label, shapes| Kernel::sharing(label, &widths, &[("RAY_STEP", 1.0), ("SHAPE_CASTS", shapes)]);
                let rays = casts("satgpu.ray.rays", 0.0);
                let shapes = casts("satgpu.ray.shapes", 1.0);
                [widths, rays, shapes]
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
    /// The variant of a broad-phase kernel quad: the count or the write, without or with filters.
    pub fn pick(quad: &[Kernel; 4], write: bool, filtered: bool) -> &Kernel {
        &quad[usize::from(write) + 2 * usize::from(filtered)]
    }
}
