//! The persistent collision pipeline: shapes uploaded once, bodies moved by per-frame transforms,
//! every pass on the GPU, buffers and bind groups kept across frames.
//!
//! A frame is one submission of these passes (shaders/*.wgsl), then a readback of three totals and
//! of the contacts:
//!
//! 1. `transform`: shapes to world space (vertices relative to each body's anchor), AABBs rounded
//!    outward, scene bounds.
//! 2. `entries`: the strip grid from the bounds; one entry per (strip, body) the AABB spans,
//!    counted, scanned and written, keyed by strip then quantised min.x.
//! 3. `sort`: stable radix sort of the entries.
//! 4. `sweep_count`: per entry, how many later entries of its strip overlap it (sort and sweep).
//! 5. `scan_candidates`: exclusive prefix sum of those counts; the total is the candidate count.
//! 6. `sweep_write`: each entry writes its pairs at its offset, guarded by the buffer's capacity.
//! 7. `sat`: clamp the count to the capacity, then SAT per candidate pair.
//! 8. `compact`: prefix sum of the collision flags; each colliding pair written at its offset.
//!
//! Small scenes use an all-pairs broad phase instead of steps 2 to 6 (count, scan, write).
//! If a total exceeds its buffer, nothing reads or writes past the buffer; the host sees the true
//! total, grows the buffers to fit and runs the frame again. No pair is dropped.

use std::time::Instant;

use wgpu::util::DeviceExt;

use crate::error::{Error, Result};
use crate::geometry::{Contact, Polygon, Transform, MAX_COORDINATE};
use crate::gpu::control;
use crate::gpu::dispatch;
use crate::gpu::kernels::Kernels;
use crate::gpu::layout::{GpuBody, GpuContact, GpuParams};
use crate::gpu::radix::RadixSort;
use crate::gpu::readback;
use crate::gpu::scan::Scan;
use crate::gpu::timing::{PassTime, Timestamps, PASSES};
use crate::gpu::Gpu;

/// Which broad phase finds the candidate pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BroadPhase {
    /// All pairs up to [`ALL_PAIRS_MAX`] bodies, strips above.
    #[default]
    Auto,
    /// Sort and sweep within horizontal strips, over radix-sorted keys: about N log N plus the
    /// pairs, whatever the mix of sizes.
    Strips,
    /// Every pair of AABBs tested: N^2 / 2, for small scenes and cross-checks.
    AllPairs,
}

/// Default strip height in mean AABB heights of the bodies' shapes. Taller strips mean fewer
/// entries to sort but longer sweeps; on lavapipe at 100,000 polygons of every scene kind, frames
/// were fastest between 4 and 6 (1.3 entries per body instead of 2 at 1), see BENCHMARKS.md.
pub const STRIP_HEIGHT_FACTOR: f64 = 4.0;

/// Largest scene [`BroadPhase::Auto`] tests all pairs for.
pub const ALL_PAIRS_MAX: usize = 256;

/// Options for a [`World`].
#[derive(Debug, Clone, Default)]
pub struct WorldOptions {
    /// Candidate pairs to make room for up front (default: 6 per body, at least 1024, at most what
    /// one buffer binding holds). The
    /// buffers grow by themselves when a frame needs more; reserving avoids that frame's rerun.
    pub candidate_capacity: Option<u32>,
    /// Most workgroups per dispatch dimension (default: the device limit). Larger dispatches
    /// fold into a 2D grid; tests lower this to exercise the folding at small sizes.
    pub max_workgroups_per_dimension: Option<u32>,
    /// The broad phase.
    pub broad_phase: BroadPhase,
    /// Height of a broad-phase strip (default: [`STRIP_HEIGHT_FACTOR`] times the mean AABB height
    /// of the shapes over all bodies). Smaller strips mean more entries and shorter sweeps.
    pub strip_height: Option<f64>,
}

/// Counts and timings of one frame.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct FrameStats {
    /// Broad phase used: `"strips"` or `"all_pairs"`.
    pub broad_phase: &'static str,
    /// Strip entries (bodies counted once per strip they span; 0 for all pairs).
    pub entries: u64,
    /// Broad-phase candidate pairs (AABB overlaps).
    pub candidates: u64,
    /// Colliding pairs.
    pub colliding: u64,
    /// Per-pass times: GPU timestamps for the compute passes when the device has them,
    /// otherwise one wall-clock entry for all of them; `readback` is always wall clock.
    pub passes: Vec<PassTime>,
    /// Wall-clock time of the whole frame, from encoding to contacts in host memory.
    pub frame_ms: f64,
    /// Times the frame was rerun because a buffer had to grow.
    pub reruns: u32,
    /// Batches the narrow phase ran in: 1, or more when the candidates outgrew what one buffer
    /// binding of the device holds.
    pub batches: u32,
}

/// The result of [`World::step`].
#[derive(Debug, Clone)]
pub struct Frame {
    /// Colliding pairs, sorted by (a, b).
    pub contacts: Vec<Contact>,
    /// Counts and timings.
    pub stats: FrameStats,
}

const WG: u32 = 64;
/// Bits of a strip entry key (control_grid.wgsl: KEY_BITS): 6 radix passes.
const STRIP_KEY_BITS: u32 = 24;
const STATUS_BYTES: u64 = 256 + Timestamps::BYTES;

fn storage(device: &wgpu::Device, label: &str, size: u64, extra: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16).next_multiple_of(4),
        usage: wgpu::BufferUsages::STORAGE | extra,
        mapped_at_creation: false,
    })
}

fn init(device: &wgpu::Device, label: &str, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let mut bytes = contents.to_vec();
    bytes.resize(bytes.len().max(16).next_multiple_of(4), 0);
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents: &bytes, usage })
}

/// What the host uploads: shape vertices with their unit edge normals, where each body finds its
/// shape and world vertices, and the initial transforms.
struct Layout {
    shape_data: Vec<[f32; 4]>,
    bodies: Vec<GpuBody>,
    transforms: Vec<[f32; 4]>,
    height_sum: f64,
}

impl Layout {
    /// Shared shapes, bodies at the identity transform.
    fn from_shapes(shapes: &[Polygon], body_shapes: &[u32]) -> Result<Layout> {
        let mut shape_start = Vec::with_capacity(shapes.len());
        let mut shape_height = Vec::with_capacity(shapes.len());
        let mut shape_data = vec![];
        for shape in shapes {
            shape_start.push(shape_data.len() as u32);
            let b = shape.aabb();
            shape_height.push(b.max[1] - b.min[1]);
            push_shape(&mut shape_data, shape);
        }
        let mut bodies = Vec::with_capacity(body_shapes.len());
        let mut height_sum = 0.0;
        for (i, &s) in body_shapes.iter().enumerate() {
            let shape = shapes.get(s as usize).ok_or(Error::UnknownShape {
                body: i,
                shape: s as usize,
                shapes: shapes.len(),
            })?;
            let start = shape_start[s as usize] as usize;
            let local = &shape_data[start..start + shape.vertices().len()];
            bodies.push(GpuBody::new(start as u32, local));
            height_sum += shape_height[s as usize];
        }
        let transforms = vec![[0.0, 0.0, 1.0, 0.0]; bodies.len()];
        Ok(Layout { shape_data, bodies, transforms, height_sum })
    }

    /// One shape and one body per polygon; the shape is relative to the polygon's first vertex
    /// rounded to f32, which becomes the body's translation. One pass, no allocation per polygon.
    /// Packs on every core (the GPU is idle meanwhile); the result does not depend on how many.
    fn from_polygons(polygons: &[Polygon]) -> Layout {
        use rayon::prelude::*;
        let n = polygons.len();
        let mut bodies = Vec::with_capacity(n);
        let mut start = 0u32;
        for p in polygons {
            let count = p.vertices().len() as u32;
            bodies.push(GpuBody { shape_start: start, count, radius: 0.0, pad: 0 });
            start += count;
        }
        let mut shape_data = vec![[0.0f32; 4]; start as usize];
        let mut slices = Vec::with_capacity(n);
        let mut rest = shape_data.as_mut_slice();
        for b in &bodies {
            let (mine, tail) = rest.split_at_mut(b.count as usize);
            slices.push(mine);
            rest = tail;
        }
        let mut transforms = vec![[0.0f32; 4]; n];
        let mut heights = vec![0.0f64; n];
        polygons.par_iter().zip(slices).zip(&mut transforms).zip(&mut heights).zip(&mut bodies).for_each(
            |((((p, out), t), h), body)| {
                let v = p.vertices();
                let anchor = [f64::from(v[0][0] as f32), f64::from(v[0][1] as f32)];
                *t = [anchor[0] as f32, anchor[1] as f32, 1.0, 0.0];
                let (lo, hi) =
                    v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| (lo.min(q[1]), hi.max(q[1])));
                *h = hi - lo;
                for ((o, v), n) in out.iter_mut().zip(v).zip(p.edge_normals()) {
                    *o = [(v[0] - anchor[0]) as f32, (v[1] - anchor[1]) as f32, n[0] as f32, n[1] as f32];
                }
                *body = GpuBody::new(body.shape_start, out);
            },
        );
        // Summed in order, so the strip height is the same whatever the number of threads.
        let height_sum = heights.iter().sum();
        Layout { shape_data, bodies, transforms, height_sum }
    }
}

/// Appends the vertices of a polygon, each with the unit outward normal of the edge that starts at
/// it.
fn push_shape(out: &mut Vec<[f32; 4]>, polygon: &Polygon) {
    let normals = polygon.edge_normals();
    out.extend(
        polygon.vertices().iter().zip(normals).map(|(v, n)| [v[0] as f32, v[1] as f32, n[0] as f32, n[1] as f32]),
    );
}

/// Buffers and bind groups that depend only on the bodies.
struct Statics {
    params: wgpu::Buffer,
    bodies: wgpu::Buffer,
    transforms: wgpu::Buffer,
    aabbs: wgpu::Buffer,
    bounds: wgpu::Buffer,
    control: wgpu::Buffer,
    body_counts: wgpu::Buffer,
    /// Over `body_counts`: entries per body (strips) or candidates per body (all pairs).
    body_scan: Scan,
    transform_group: wgpu::BindGroup,
    grid_group: wgpu::BindGroup,
    shapes: wgpu::Buffer,
}

/// The strip broad phase's buffers, sized by the entry capacity.
struct Strips {
    _keys: wgpu::Buffer,
    _values: wgpu::Buffer,
    radix: RadixSort,
    /// Over per-entry candidate counts.
    cand_scan: Scan,
    entries_group: wgpu::BindGroup,
    control_entries_group: wgpu::BindGroup,
    gather_group: wgpu::BindGroup,
    sweep_group: wgpu::BindGroup,
}

/// Buffers and bind groups sized by the entry and candidate capacities.
struct Sized {
    entry_capacity: u32,
    candidate_capacity: u32,
    candidates: wgpu::Buffer,
    contacts: wgpu::Buffer,
    strips: Option<Strips>,
    allpairs_group: Option<wgpu::BindGroup>,
    pair_scan: Scan,
    control_pairs_group: wgpu::BindGroup,
    sat_group: wgpu::BindGroup,
    compact_group: wgpu::BindGroup,
}

/// A persistent collision pipeline over bodies that share uploaded shapes.
///
/// Create it once, then per frame call [`set_transforms`](World::set_transforms) (16 bytes per
/// body) and [`step`](World::step). Pipelines are created once per [`Gpu`]; buffers and bind
/// groups once per world (and again only when a frame outgrows them).
pub struct World {
    gpu: Gpu,
    options: WorldOptions,
    bodies: Vec<GpuBody>,
    n_bodies: u32,
    fold: u32,
    strip_height: f32,
    strips: bool,
    max_entries: u64,
    max_candidates: u64,
    statics: Statics,
    sized: Sized,
    totals: wgpu::Buffer,
    status_read: wgpu::Buffer,
    contacts_read: Option<wgpu::Buffer>,
    timestamps: Option<Timestamps>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("bodies", &self.n_bodies)
            .field("broad_phase", &self.broad_phase_name())
            .field("entry_capacity", &self.sized.entry_capacity)
            .field("candidate_capacity", &self.sized.candidate_capacity)
            .finish()
    }
}

impl World {
    /// One body per polygon: the one-shot case. Each polygon becomes a shape relative to its
    /// first vertex (rounded to f32), and that vertex becomes the body's translation, so the GPU
    /// holds every polygon to the precision of its own size wherever it lies.
    pub fn from_polygons(gpu: &Gpu, polygons: &[Polygon], options: &WorldOptions) -> Result<World> {
        World::build(gpu, Layout::from_polygons(polygons), options)
    }

    /// Uploads `shapes` (in local coordinates, best centred near their own origin) and creates
    /// one body per entry of `body_shapes`, which names each body's shape. Every body starts at
    /// the identity transform.
    pub fn new(gpu: &Gpu, shapes: &[Polygon], body_shapes: &[u32], options: &WorldOptions) -> Result<World> {
        World::build(gpu, Layout::from_shapes(shapes, body_shapes)?, options)
    }

    /// Replaces every polygon of a world made by [`from_polygons`](World::from_polygons), for a
    /// one-shot scene that changes every frame. When the number of polygons and each one's vertex
    /// count are unchanged, only the vertex data (16 bytes per vertex and per polygon) is
    /// uploaded into the existing buffers; otherwise the world is rebuilt, keeping its capacities.
    pub fn set_polygons(&mut self, polygons: &[Polygon]) -> Result<()> {
        let layout = Layout::from_polygons(polygons);
        if layout.bodies.len() == self.bodies.len()
            && layout.bodies.iter().zip(&self.bodies).all(|(a, b)| (a.count, a.shape_start) == (b.count, b.shape_start))
        {
            let queue = self.gpu.queue();
            queue.write_buffer(&self.statics.shapes, 0, bytemuck::cast_slice(&layout.shape_data));
            queue.write_buffer(&self.statics.transforms, 0, bytemuck::cast_slice(&layout.transforms));
            return Ok(());
        }
        let options = WorldOptions {
            candidate_capacity: Some(self.sized.candidate_capacity),
            strip_height: None,
            ..self.options.clone()
        };
        *self = World::build(&self.gpu, layout, &options)?;
        Ok(())
    }

    fn build(gpu: &Gpu, layout: Layout, options: &WorldOptions) -> Result<World> {
        let device = gpu.device();
        let kernels = gpu.kernels()?;
        let limits = device.limits();
        let binding_limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let check = |what: &'static str, needed: u64| {
            if needed > binding_limit {
                Err(Error::TooLarge { what, needed, limit: binding_limit })
            } else {
                Ok(())
            }
        };
        let Layout { shape_data, bodies, transforms: initial_transforms, height_sum } = layout;
        let n = bodies.len();
        if n >= (1 << 31) {
            return Err(Error::TooLarge { what: "bodies", needed: n as u64, limit: 1 << 31 });
        }
        check("shape vertices", 16 * shape_data.len() as u64)?;
        check("AABBs", 16 * n as u64)?;
        let fold = options
            .max_workgroups_per_dimension
            .unwrap_or(limits.max_compute_workgroups_per_dimension)
            .clamp(1, limits.max_compute_workgroups_per_dimension);
        let strips = match options.broad_phase {
            BroadPhase::Auto => n > ALL_PAIRS_MAX,
            BroadPhase::Strips => true,
            BroadPhase::AllPairs => false,
        };
        let strip_height = options.strip_height.unwrap_or(STRIP_HEIGHT_FACTOR * height_sum / n.max(1) as f64) as f32;
        let max_candidates = (binding_limit / std::mem::size_of::<GpuContact>() as u64).min(u64::from(u32::MAX / 2));
        // The largest per-entry buffer is the gathered AABBs, 16 bytes each.
        let max_entries = (binding_limit / 16).min(u64::from(u32::MAX / 2));
        let candidate_capacity =
            u64::from(options.candidate_capacity.unwrap_or((6 * n as u32).max(1024))).clamp(1, max_candidates) as u32;
        let entry_capacity = if strips { (3 * n as u64 + 1024).min(max_entries) as u32 } else { 1 };

        use wgpu::BufferUsages as U;
        let control = control::buffer(device, "satgpu.control", fold);
        let params = init(
            device,
            "satgpu.params",
            bytemuck::bytes_of(&GpuParams {
                n_bodies: n as u32,
                entry_capacity,
                candidate_capacity,
                fold_width: fold,
                strip_height,
                candidate_base: 0,
                pad: [0; 2],
            }),
            U::UNIFORM | U::COPY_DST,
        );
        let bodies_buf = init(device, "satgpu.bodies", bytemuck::cast_slice(&bodies), U::STORAGE);
        let transforms =
            init(device, "satgpu.transforms", bytemuck::cast_slice(&initial_transforms), U::STORAGE | U::COPY_DST);
        let shapes_buf = init(device, "satgpu.shapes", bytemuck::cast_slice(&shape_data), U::STORAGE | U::COPY_DST);
        let aabbs = storage(device, "satgpu.aabbs", 16 * n as u64, U::COPY_SRC);
        let bounds = storage(device, "satgpu.bounds", 16, U::COPY_DST);
        let body_counts = storage(device, "satgpu.body_counts", 4 * n as u64, U::empty());
        let scan_region = if strips { control::ENTRY_SCAN } else { control::CAND_SCAN };
        let body_scan = Scan::new(device, kernels, &body_counts, n as u64, &control, scan_region, "satgpu.scan_bodies");
        gpu.queue().write_buffer(&control, 4 * scan_region, bytemuck::bytes_of(&(n as u32)));
        let transform_group = kernels.transform.bind(
            device,
            "satgpu.transform",
            &[
                params.as_entire_binding(),
                bodies_buf.as_entire_binding(),
                transforms.as_entire_binding(),
                shapes_buf.as_entire_binding(),
                aabbs.as_entire_binding(),
                bounds.as_entire_binding(),
            ],
        );
        let grid_group = kernels.control_grid.bind(
            device,
            "satgpu.control.grid",
            &[params.as_entire_binding(), bounds.as_entire_binding(), control.as_entire_binding()],
        );
        let statics = Statics {
            params,
            bodies: bodies_buf,
            transforms,
            aabbs,
            bounds,
            control,
            body_counts,
            body_scan,
            transform_group,
            grid_group,
            shapes: shapes_buf,
        };
        let sized = Self::make_sized(gpu, kernels, &statics, strips, entry_capacity, candidate_capacity);
        let totals = storage(device, "satgpu.totals", 16, U::COPY_SRC | U::COPY_DST);
        let status_read = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("satgpu.status.read"),
            size: STATUS_BYTES,
            usage: U::MAP_READ | U::COPY_DST,
            mapped_at_creation: false,
        });
        let timestamps = gpu.has_timestamps().then(|| Timestamps::new(device, gpu.queue()));
        let world = World {
            gpu: gpu.clone(),
            options: options.clone(),
            bodies,
            n_bodies: n as u32,
            fold,
            strip_height,
            strips,
            max_entries,
            max_candidates,
            statics,
            sized,
            totals,
            status_read,
            contacts_read: None,
            timestamps,
        };
        gpu.check()?;
        Ok(world)
    }

    fn make_sized(
        gpu: &Gpu,
        kernels: &Kernels,
        s: &Statics,
        strips: bool,
        entry_capacity: u32,
        candidate_capacity: u32,
    ) -> Sized {
        use wgpu::BufferUsages as U;
        let device = gpu.device();
        let cap = u64::from(candidate_capacity);
        let candidates = storage(device, "satgpu.candidates", 8 * cap, U::COPY_SRC);
        let results = storage(device, "satgpu.sat.results", 16 * cap, U::empty());
        let flags = storage(device, "satgpu.sat.flags", 4 * cap, U::empty());
        let contacts = storage(device, "satgpu.contacts", 24 * cap, U::COPY_SRC);
        let pair_scan = Scan::new(device, kernels, &flags, cap, &s.control, control::PAIR_SCAN, "satgpu.scan_contacts");
        let (strips, allpairs_group, cand_total) = if strips {
            let entries = u64::from(entry_capacity);
            let keys = storage(device, "satgpu.entries.keys", 4 * entries, U::COPY_SRC);
            let values = storage(device, "satgpu.entries.values", 4 * entries, U::COPY_SRC);
            let entry_counts = storage(device, "satgpu.entries.counts", 4 * entries, U::empty());
            let boxes = storage(device, "satgpu.entries.boxes", 16 * entries, U::empty());
            let gather_group = kernels.gather.bind(
                device,
                "satgpu.gather",
                &[
                    s.control.as_entire_binding(),
                    values.as_entire_binding(),
                    s.aabbs.as_entire_binding(),
                    boxes.as_entire_binding(),
                ],
            );
            let radix = RadixSort::new(device, kernels, &keys, &values, entries, STRIP_KEY_BITS, &s.control);
            let cand_scan = Scan::new(
                device,
                kernels,
                &entry_counts,
                entries,
                &s.control,
                control::CAND_SCAN,
                "satgpu.scan_candidates",
            );
            let entries_group = kernels.entries_count.bind(
                device,
                "satgpu.entries",
                &[
                    s.params.as_entire_binding(),
                    s.control.as_entire_binding(),
                    s.aabbs.as_entire_binding(),
                    s.body_counts.as_entire_binding(),
                    keys.as_entire_binding(),
                    values.as_entire_binding(),
                ],
            );
            let entries_total = s.body_scan.total_slot();
            let control_entries_group = kernels.control_entries.bind(
                device,
                "satgpu.control.entries",
                &[s.params.as_entire_binding(), entries_total.binding(), s.control.as_entire_binding()],
            );
            let sweep_group = kernels.sweep_count.bind(
                device,
                "satgpu.sweep",
                &[
                    s.params.as_entire_binding(),
                    s.control.as_entire_binding(),
                    keys.as_entire_binding(),
                    values.as_entire_binding(),
                    boxes.as_entire_binding(),
                    entry_counts.as_entire_binding(),
                    candidates.as_entire_binding(),
                ],
            );
            let total = cand_scan.total_slot();
            let strips = Strips {
                _keys: keys,
                _values: values,
                radix,
                cand_scan,
                entries_group,
                control_entries_group,
                gather_group,
                sweep_group,
            };
            (Some(strips), None, total)
        } else {
            let group = kernels.allpairs_count.bind(
                device,
                "satgpu.allpairs",
                &[
                    s.params.as_entire_binding(),
                    s.aabbs.as_entire_binding(),
                    s.body_counts.as_entire_binding(),
                    candidates.as_entire_binding(),
                ],
            );
            (None, Some(group), s.body_scan.total_slot())
        };
        let control_pairs_group = kernels.control_pairs.bind(
            device,
            "satgpu.control.pairs",
            &[s.params.as_entire_binding(), cand_total.binding(), s.control.as_entire_binding()],
        );
        let sat_group = kernels.sat.bind(
            device,
            "satgpu.sat",
            &[
                s.control.as_entire_binding(),
                candidates.as_entire_binding(),
                s.bodies.as_entire_binding(),
                s.shapes.as_entire_binding(),
                s.transforms.as_entire_binding(),
                results.as_entire_binding(),
                flags.as_entire_binding(),
            ],
        );
        let compact_group = kernels.compact.bind(
            device,
            "satgpu.compact",
            &[
                s.control.as_entire_binding(),
                candidates.as_entire_binding(),
                results.as_entire_binding(),
                flags.as_entire_binding(),
                contacts.as_entire_binding(),
            ],
        );
        Sized {
            entry_capacity,
            candidate_capacity,
            candidates,
            contacts,
            strips,
            allpairs_group,
            pair_scan,
            control_pairs_group,
            sat_group,
            compact_group,
        }
    }

    fn broad_phase_name(&self) -> &'static str {
        if self.strips {
            "strips"
        } else {
            "all_pairs"
        }
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.n_bodies as usize
    }

    /// Whether the world has no bodies.
    pub fn is_empty(&self) -> bool {
        self.n_bodies == 0
    }

    /// The candidate pairs the buffers currently hold room for.
    pub fn candidate_capacity(&self) -> u32 {
        self.sized.candidate_capacity
    }

    /// The strip entries the buffers currently hold room for (1 with the all-pairs broad phase).
    pub fn entry_capacity(&self) -> u32 {
        self.sized.entry_capacity
    }

    /// The device this world runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Makes room for at least `candidates` candidate pairs (and as many contacts).
    pub fn reserve_candidates(&mut self, candidates: u64) -> Result<()> {
        self.reserve(u64::from(self.sized.entry_capacity), candidates)
    }

    /// Grows the entry and candidate buffers to hold at least `entries` and `candidates`, with a
    /// quarter to spare, or fails when the device's buffer size limit cannot hold them.
    fn reserve(&mut self, entries: u64, candidates: u64) -> Result<()> {
        let grow = |needed: u64, have: u32, max: u64, what: &'static str, bytes: u64| {
            if needed <= u64::from(have) {
                Ok(have)
            } else if needed > max {
                Err(Error::TooLarge { what, needed: needed * bytes, limit: max * bytes })
            } else {
                Ok((needed + needed / 4 + 1024).min(max) as u32)
            }
        };
        let entry_capacity = if self.strips {
            grow(entries, self.sized.entry_capacity, self.max_entries, "strip entries", 4)?
        } else {
            self.sized.entry_capacity
        };
        // Past what one binding holds, the frame runs in batches of the largest capacity.
        let candidate_capacity = grow(
            candidates.min(self.max_candidates),
            self.sized.candidate_capacity,
            self.max_candidates,
            "candidate pairs",
            24,
        )?;
        if (entry_capacity, candidate_capacity) == (self.sized.entry_capacity, self.sized.candidate_capacity) {
            return Ok(());
        }
        let kernels = self.gpu.kernels()?;
        self.sized =
            Self::make_sized(&self.gpu, kernels, &self.statics, self.strips, entry_capacity, candidate_capacity);
        self.write_params(0);
        self.gpu.check()
    }

    /// Uploads the per-world constants, with the first candidate of the batch to run.
    fn write_params(&self, candidate_base: u32) {
        let params = GpuParams {
            n_bodies: self.n_bodies,
            entry_capacity: self.sized.entry_capacity,
            candidate_capacity: self.sized.candidate_capacity,
            fold_width: self.fold,
            strip_height: self.strip_height,
            candidate_base,
            pad: [0; 2],
        };
        self.gpu.queue().write_buffer(&self.statics.params, 0, bytemuck::bytes_of(&params));
    }

    /// Sets every body's position and rotation for the next frame: 16 bytes per body go to the
    /// GPU (x, y, cos, sin as f32); world vertices and AABBs are computed there.
    pub fn set_transforms(&mut self, transforms: &[Transform]) -> Result<()> {
        if transforms.len() != self.n_bodies as usize {
            return Err(Error::TransformCount { got: transforms.len(), expected: self.n_bodies as usize });
        }
        let mut packed = Vec::with_capacity(transforms.len());
        for (body, t) in transforms.iter().enumerate() {
            if !(t.x.is_finite() && t.y.is_finite() && t.angle.is_finite()) {
                return Err(Error::NonFiniteTransform { body, x: t.x, y: t.y, angle: t.angle });
            }
            if t.x.abs() > MAX_COORDINATE || t.y.abs() > MAX_COORDINATE {
                return Err(Error::TransformOutOfRange { body, x: t.x, y: t.y, max: MAX_COORDINATE });
            }
            let (s, c) = t.angle.sin_cos();
            packed.push([t.x as f32, t.y as f32, c as f32, s as f32]);
        }
        if !packed.is_empty() {
            self.gpu.queue().write_buffer(&self.statics.transforms, 0, bytemuck::cast_slice(&packed));
        }
        Ok(())
    }

    /// Records every pass of a frame into `encoder`, then copies the three totals (strip
    /// entries, candidates, colliding) into [`totals_buffer`](World::totals_buffer). After submission
    /// the contacts are in [`contacts_buffer`](World::contacts_buffer), in sweep order (not sorted),
    /// complete only if the entry and candidate totals are within
    /// [`entry_capacity`](World::entry_capacity) and [`candidate_capacity`](World::candidate_capacity).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) -> Result<()> {
        let k = self.gpu.kernels()?;
        let s = &self.statics;
        let z = &self.sized;
        let n = self.n_bodies;
        let fold = self.fold;
        let ts = self.timestamps.as_ref();
        fn begin<'e>(
            encoder: &'e mut wgpu::CommandEncoder,
            ts: Option<&Timestamps>,
            i: usize,
        ) -> wgpu::ComputePass<'e> {
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(PASSES[i]),
                timestamp_writes: ts.map(|t| t.writes(i)),
            })
        }
        let entry_args = 4 * control::ENTRY_ARGS;
        let pair_args = 4 * control::PAIR_ARGS;
        encoder.clear_buffer(&s.bounds, 0, None);
        {
            let mut pass = begin(encoder, ts, 0);
            pass.set_pipeline(&k.transform.pipeline);
            pass.set_bind_group(0, &s.transform_group, &[]);
            dispatch(&mut pass, n, WG, fold);
        }
        if let Some(st) = &z.strips {
            {
                let mut pass = begin(encoder, ts, 1);
                pass.set_pipeline(&k.control_grid.pipeline);
                pass.set_bind_group(0, &s.grid_group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_pipeline(&k.entries_count.pipeline);
                pass.set_bind_group(0, &st.entries_group, &[]);
                dispatch(&mut pass, n, WG, fold);
                s.body_scan.encode(k, &mut pass);
                pass.set_pipeline(&k.control_entries.pipeline);
                pass.set_bind_group(0, &st.control_entries_group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_pipeline(&k.entries_write.pipeline);
                pass.set_bind_group(0, &st.entries_group, &[]);
                dispatch(&mut pass, n, WG, fold);
            }
            {
                let mut pass = begin(encoder, ts, 2);
                st.radix.encode(k, &mut pass);
                pass.set_pipeline(&k.gather.pipeline);
                pass.set_bind_group(0, &st.gather_group, &[]);
                pass.dispatch_workgroups_indirect(&s.control, entry_args);
            }
            {
                let mut pass = begin(encoder, ts, 3);
                pass.set_pipeline(&k.sweep_count.pipeline);
                pass.set_bind_group(0, &st.sweep_group, &[]);
                pass.dispatch_workgroups_indirect(&s.control, entry_args);
            }
            {
                let mut pass = begin(encoder, ts, 4);
                st.cand_scan.encode(k, &mut pass);
            }
            {
                let mut pass = begin(encoder, ts, 5);
                pass.set_pipeline(&k.sweep_write.pipeline);
                pass.set_bind_group(0, &st.sweep_group, &[]);
                pass.dispatch_workgroups_indirect(&s.control, entry_args);
            }
        } else if let Some(group) = &z.allpairs_group {
            {
                let mut pass = begin(encoder, ts, 3);
                pass.set_pipeline(&k.allpairs_count.pipeline);
                pass.set_bind_group(0, group, &[]);
                dispatch(&mut pass, n, WG, fold);
            }
            {
                let mut pass = begin(encoder, ts, 4);
                s.body_scan.encode(k, &mut pass);
            }
            {
                let mut pass = begin(encoder, ts, 5);
                pass.set_pipeline(&k.allpairs_write.pipeline);
                pass.set_bind_group(0, group, &[]);
                dispatch(&mut pass, n, WG, fold);
            }
        }
        {
            let mut pass = begin(encoder, ts, 6);
            pass.set_pipeline(&k.control_pairs.pipeline);
            pass.set_bind_group(0, &z.control_pairs_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&k.sat.pipeline);
            pass.set_bind_group(0, &z.sat_group, &[]);
            pass.dispatch_workgroups_indirect(&s.control, pair_args);
        }
        {
            let mut pass = begin(encoder, ts, 7);
            z.pair_scan.encode(k, &mut pass);
            pass.set_pipeline(&k.compact.pipeline);
            pass.set_bind_group(0, &z.compact_group, &[]);
            pass.dispatch_workgroups_indirect(&s.control, pair_args);
        }
        let candidate_scan = match &z.strips {
            Some(st) => {
                let (buf, off) = s.body_scan.total();
                encoder.copy_buffer_to_buffer(buf, off, &self.totals, 0, 4);
                &st.cand_scan
            }
            None => {
                encoder.clear_buffer(&self.totals, 0, Some(4));
                &s.body_scan
            }
        };
        let (buf, off) = candidate_scan.total();
        encoder.copy_buffer_to_buffer(buf, off, &self.totals, 4, 4);
        let (buf, off) = z.pair_scan.total();
        encoder.copy_buffer_to_buffer(buf, off, &self.totals, 8, 4);
        Ok(())
    }

    /// Runs a frame and leaves the results on the GPU (see [`encode`](World::encode)); returns the
    /// submission so a caller can order its own work after it.
    pub fn dispatch(&mut self) -> Result<wgpu::SubmissionIndex> {
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        self.encode(&mut encoder)?;
        Ok(self.gpu.queue().submit([encoder.finish()]))
    }

    /// Runs a frame and reads the colliding pairs back, sorted by (a, b). Grows the buffers and
    /// reruns the frame when they were too small, so no pair is ever lost.
    pub fn step(&mut self) -> Result<Frame> {
        let start = Instant::now();
        let mut reruns = 0;
        loop {
            let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
            self.encode(&mut encoder)?;
            encoder.copy_buffer_to_buffer(&self.totals, 0, &self.status_read, 0, 16);
            if let Some(ts) = &self.timestamps {
                ts.resolve(&mut encoder);
                encoder.copy_buffer_to_buffer(&ts.resolve, 0, &self.status_read, 256, Timestamps::BYTES);
            }
            let gpu_start = Instant::now();
            let submission = self.gpu.queue().submit([encoder.finish()]);
            let status = readback::read(&self.gpu, &self.status_read, STATUS_BYTES, submission, "collision frame")?;
            let gpu_ms = gpu_start.elapsed().as_secs_f64() * 1e3;
            let totals: Vec<u32> = bytemuck::pod_collect_to_vec(&status[..12]);
            let (entries, candidates, colliding) = (u64::from(totals[0]), u64::from(totals[1]), u64::from(totals[2]));
            // Candidates past the largest capacity one binding allows are not a rerun but batches.
            let room = u64::from(self.sized.candidate_capacity);
            if entries > u64::from(self.sized.entry_capacity) || (candidates > room && room < self.max_candidates) {
                log::info!(
                    "{entries} entries / {candidates} candidates exceed the capacity {} / {}; growing and rerunning",
                    self.sized.entry_capacity,
                    self.sized.candidate_capacity
                );
                // Candidates counted from a truncated entry list are a lower bound: the rerun
                // grows again if it must.
                self.reserve(entries, candidates)?;
                reruns += 1;
                continue;
            }
            let mut passes = match &self.timestamps {
                Some(ts) => ts.times(&status[256..], self.strips),
                None => vec![PassTime { name: "gpu_total", ms: gpu_ms, clock: "wall" }],
            };
            let read_start = Instant::now();
            let mut raw = self.read_gpu_contacts(colliding)?;
            let mut colliding = colliding;
            // More candidates than one binding holds: the rest in batches of the capacity. The
            // offsets of the sweep are still on the GPU, so each batch reruns only the sweep's
            // write, the narrow phase and the compaction for its window of candidates.
            let capacity = u64::from(self.sized.candidate_capacity);
            let mut batches = 1;
            let mut base = capacity;
            while base < candidates {
                let result = self.run_batch(base as u32);
                self.write_params(0);
                let batch = result?;
                colliding += batch.len() as u64;
                raw.try_reserve(batch.len())
                    .map_err(|_| Error::HostMemory { what: "contacts", needed: 24 * colliding })?;
                raw.extend_from_slice(&batch);
                base += capacity;
                batches += 1;
            }
            let contacts = sorted_contacts(&raw, self.n_bodies as usize)?;
            passes.push(PassTime { name: "readback", ms: read_start.elapsed().as_secs_f64() * 1e3, clock: "wall" });
            let stats = FrameStats {
                broad_phase: self.broad_phase_name(),
                entries,
                candidates,
                colliding,
                passes,
                frame_ms: start.elapsed().as_secs_f64() * 1e3,
                reruns,
                batches,
            };
            return Ok(Frame { contacts, stats });
        }
    }

    /// One batch of a frame whose candidates outgrow one binding: the sweep (or all-pairs) write
    /// for candidates `[base, base + capacity)`, the narrow phase and the compaction over them,
    /// then their contacts read back.
    fn run_batch(&mut self, base: u32) -> Result<Vec<GpuContact>> {
        self.write_params(base);
        let k = self.gpu.kernels()?;
        let s = &self.statics;
        let z = &self.sized;
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("satgpu.batch"),
                timestamp_writes: None,
            });
            if let Some(st) = &z.strips {
                pass.set_pipeline(&k.sweep_write.pipeline);
                pass.set_bind_group(0, &st.sweep_group, &[]);
                pass.dispatch_workgroups_indirect(&s.control, 4 * control::ENTRY_ARGS);
            } else if let Some(group) = &z.allpairs_group {
                pass.set_pipeline(&k.allpairs_write.pipeline);
                pass.set_bind_group(0, group, &[]);
                dispatch(&mut pass, self.n_bodies, WG, self.fold);
            }
            self.encode_narrow_phase(k, &mut pass);
        }
        let (buf, off) = z.pair_scan.total();
        encoder.copy_buffer_to_buffer(buf, off, &self.totals, 8, 4);
        encoder.copy_buffer_to_buffer(&self.totals, 0, &self.status_read, 0, 16);
        let submission = self.gpu.queue().submit([encoder.finish()]);
        let status = readback::read(&self.gpu, &self.status_read, 16, submission, "collision batch")?;
        let colliding: Vec<u32> = bytemuck::pod_collect_to_vec(&status[8..12]);
        self.read_gpu_contacts(u64::from(colliding[0]))
    }

    /// The pair control, the narrow phase and the compaction, into one pass.
    fn encode_narrow_phase(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        let s = &self.statics;
        let z = &self.sized;
        let pair_args = 4 * control::PAIR_ARGS;
        pass.set_pipeline(&k.control_pairs.pipeline);
        pass.set_bind_group(0, &z.control_pairs_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&k.sat.pipeline);
        pass.set_bind_group(0, &z.sat_group, &[]);
        pass.dispatch_workgroups_indirect(&s.control, pair_args);
        z.pair_scan.encode(k, pass);
        pass.set_pipeline(&k.compact.pipeline);
        pass.set_bind_group(0, &z.compact_group, &[]);
        pass.dispatch_workgroups_indirect(&s.control, pair_args);
    }

    fn read_gpu_contacts(&mut self, count: u64) -> Result<Vec<GpuContact>> {
        let bytes = count * std::mem::size_of::<GpuContact>() as u64;
        if bytes == 0 {
            return Ok(vec![]);
        }
        if self.contacts_read.as_ref().is_none_or(|b| b.size() < bytes) {
            self.contacts_read = Some(self.gpu.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("satgpu.contacts.read"),
                size: (bytes + bytes / 2).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let read_buf = self.contacts_read.as_ref().expect("allocated above");
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.sized.contacts, 0, read_buf, 0, bytes);
        let submission = self.gpu.queue().submit([encoder.finish()]);
        readback::read_as(&self.gpu, read_buf, bytes, submission, "contacts")
    }

    /// `[entries, candidates, colliding]` as three u32 after a frame (STORAGE | COPY_SRC).
    pub fn totals_buffer(&self) -> &wgpu::Buffer {
        &self.totals
    }

    /// The contacts of the last frame as [`GpuContact`] records, in sweep order
    /// (STORAGE | COPY_SRC). Valid for the first `totals[2]` entries.
    pub fn contacts_buffer(&self) -> &wgpu::Buffer {
        &self.sized.contacts
    }

    /// The broad phase's candidate pairs `(a, b)` as `vec2<u32>`, for cross-checks
    /// (STORAGE | COPY_SRC). Valid for the first `totals[1]` entries when within capacity.
    pub fn candidates_buffer(&self) -> &wgpu::Buffer {
        &self.sized.candidates
    }

    /// Runs a frame and reads back the broad phase's candidate pairs, in sweep order, for
    /// cross-checks against the reference broad phase. Not part of the stable API.
    #[doc(hidden)]
    pub fn step_candidates(&mut self) -> Result<Vec<(u32, u32)>> {
        let frame = self.step()?;
        let bytes = 8 * frame.stats.candidates;
        let read = self.gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("satgpu.candidates.read"),
            size: bytes.max(8),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.sized.candidates, 0, &read, 0, bytes.max(8));
        let submission = self.gpu.queue().submit([encoder.finish()]);
        let raw = readback::read(&self.gpu, &read, bytes, submission, "candidates")?;
        Ok(bytemuck::pod_collect_to_vec::<u8, [u32; 2]>(&raw).iter().map(|p| (p[0], p[1])).collect())
    }

    /// World-space AABBs per body as `vec4<f32>` (min.x, min.y, max.x, max.y) (STORAGE | COPY_SRC).
    pub fn aabbs_buffer(&self) -> &wgpu::Buffer {
        &self.statics.aabbs
    }
}

/// Converts GPU contacts (in sweep order) to [`Contact`]s sorted by (a, b): a counting sort by
/// `a` that writes each contact in place in one sequential pass, then each body's few pairs by
/// `b`. Pairs are unique, so the order is fully determined.
fn sorted_contacts(gpu: &[GpuContact], bodies: usize) -> Result<Vec<Contact>> {
    let mut next = vec![0u32; bodies + 1];
    for c in gpu {
        next[c.a as usize + 1] += 1;
    }
    for i in 0..bodies {
        next[i + 1] += next[i];
    }
    let empty = Contact { a: 0, b: 0, normal: [0.0; 2], depth: 0.0 };
    let mut out = Vec::new();
    out.try_reserve_exact(gpu.len()).map_err(|_| Error::HostMemory {
        what: "contacts",
        needed: (gpu.len() * std::mem::size_of::<Contact>()) as u64,
    })?;
    out.resize(gpu.len(), empty);
    for c in gpu {
        let slot = &mut next[c.a as usize];
        // `+ 0.0` turns -0.0 into 0.0, as the reference does.
        out[*slot as usize] = Contact {
            a: c.a,
            b: c.b,
            normal: [f64::from(c.normal_x) + 0.0, f64::from(c.normal_y) + 0.0],
            depth: f64::from(c.depth),
        };
        *slot += 1;
    }
    // `next[a]` is now the end of a's run: usually a handful of pairs, thousands in a pile-up.
    let mut begin = 0;
    for &end in &next[..bodies] {
        out[begin..end as usize].sort_unstable_by_key(|c| c.b);
        begin = end as usize;
    }
    Ok(out)
}

/// Detects every colliding pair among `polygons` on the GPU: the one-shot call.
/// Returns the pairs sorted by (a, b), with a and b indices into `polygons`.
pub fn detect(gpu: &Gpu, polygons: &[Polygon]) -> Result<Vec<Contact>> {
    Ok(World::from_polygons(gpu, polygons, &WorldOptions::default())?.step()?.contacts)
}
