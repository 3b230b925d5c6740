//! The persistent collision pipeline: shapes uploaded once, bodies moved by per-frame transforms,
//! every pass on the GPU, buffers and bind groups kept across frames.
//!
//! A frame runs these passes (shaders/*.wgsl), then reads back two totals and the contacts:
//!
//! 1. `transform`: shapes to world space, AABBs rounded outward, sort keys (AABB min.x, body).
//! 2. `sort`: bitonic sort of the keys.
//! 3. `sweep_count`: per sorted body, how many later bodies overlap it (sort-and-sweep on x).
//! 4. `scan_candidates`: exclusive prefix sum of the counts; the grand total is the candidate count.
//! 5. `sweep_write`: each body writes its pairs at its offset, guarded by the buffer's capacity.
//! 6. `sat`: pair arguments (clamp to capacity, indirect dispatch sizes), then SAT per candidate.
//! 7. `compact`: prefix sum of the collision flags, then each colliding pair is written at its offset.
//!
//! If the candidate total exceeds the capacity, nothing downstream reads past the buffer; the host
//! sees the true total, grows the buffers to fit and runs the frame again. No pair is dropped.

use std::time::Instant;

use wgpu::util::DeviceExt;

use crate::error::{Error, Result};
use crate::geometry::{Contact, Polygon, Transform};
use crate::gpu::dispatch;
use crate::gpu::kernels::Kernels;
use crate::gpu::layout::{GpuBody, GpuContact, GpuParams};
use crate::gpu::readback;
use crate::gpu::scan::Scan;
use crate::gpu::sort::Sorter;
use crate::gpu::timing::{PassTime, Timestamps, PASSES};
use crate::gpu::Gpu;

/// Options for a [`World`].
#[derive(Debug, Clone, Default)]
pub struct WorldOptions {
    /// Candidate pairs to make room for up front (default: 4 per body, at least 1024). The
    /// buffers grow by themselves when a frame needs more; reserving avoids that frame's rerun.
    pub candidate_capacity: Option<u32>,
    /// Most workgroups per dispatch dimension (default: the device limit). Larger dispatches
    /// fold into a 2D grid; tests lower this to exercise the folding at small sizes.
    pub max_workgroups_per_dimension: Option<u32>,
}

/// Counts and timings of one frame.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct FrameStats {
    /// Broad-phase candidate pairs (AABB overlaps).
    pub candidates: u64,
    /// Colliding pairs.
    pub colliding: u64,
    /// Per-pass times: GPU timestamps for the compute passes when the device has them,
    /// otherwise one wall-clock entry for all of them; `readback` is always wall clock.
    pub passes: Vec<PassTime>,
    /// Wall-clock time of the whole frame, from encoding to contacts in host memory.
    pub frame_ms: f64,
    /// Times the frame was rerun because the candidate buffer had to grow.
    pub reruns: u32,
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

/// Buffers and bind groups that depend only on the bodies.
struct Statics {
    params: wgpu::Buffer,
    bodies: wgpu::Buffer,
    transforms: wgpu::Buffer,
    world: wgpu::Buffer,
    aabbs: wgpu::Buffer,
    keys: wgpu::Buffer,
    counts: wgpu::Buffer,
    body_scan: Scan,
    sorter: Sorter,
    transform_group: wgpu::BindGroup,
    _shapes: wgpu::Buffer,
}

/// Buffers and bind groups sized by the candidate capacity.
struct Pairs {
    capacity: u32,
    candidates: wgpu::Buffer,
    contacts: wgpu::Buffer,
    dispatch: wgpu::Buffer,
    pair_scan: Scan,
    sweep_group: wgpu::BindGroup,
    args_group: wgpu::BindGroup,
    sat_group: wgpu::BindGroup,
    compact_group: wgpu::BindGroup,
}

/// A persistent collision pipeline over bodies that share uploaded shapes.
///
/// Create it once, then per frame call [`set_transforms`](World::set_transforms) (16 bytes per
/// body) and [`step`](World::step). Pipelines are created once per [`Gpu`]; buffers and bind
/// groups once per world (and again only when the candidate buffer has to grow).
pub struct World {
    gpu: Gpu,
    n_bodies: u32,
    fold: u32,
    n_padded: u32,
    max_capacity: u64,
    statics: Statics,
    pairs: Pairs,
    totals: wgpu::Buffer,
    status_read: wgpu::Buffer,
    contacts_read: Option<wgpu::Buffer>,
    timestamps: Option<Timestamps>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("bodies", &self.n_bodies)
            .field("candidate_capacity", &self.pairs.capacity)
            .finish()
    }
}

const STATUS_BYTES: u64 = 256 + Timestamps::BYTES;

impl World {
    /// One body per polygon: the one-shot case. Each polygon becomes a shape relative to its
    /// first vertex (rounded to f32), and that vertex becomes the body's translation, so the GPU
    /// holds every polygon to the precision of its own size wherever it lies.
    pub fn from_polygons(gpu: &Gpu, polygons: &[Polygon], options: &WorldOptions) -> Result<World> {
        let anchors: Vec<Transform> = polygons
            .iter()
            .map(|p| {
                let v = p.vertices()[0];
                Transform { x: f64::from(v[0] as f32), y: f64::from(v[1] as f32), angle: 0.0 }
            })
            .collect();
        let shapes: Vec<Polygon> = polygons
            .iter()
            .zip(&anchors)
            .map(|(p, a)| p.transformed(&Transform { x: -a.x, y: -a.y, angle: 0.0 }))
            .collect();
        let bodies: Vec<u32> = (0..polygons.len() as u32).collect();
        let mut world = World::new(gpu, &shapes, &bodies, options)?;
        world.set_transforms(&anchors)?;
        Ok(world)
    }

    /// Uploads `shapes` (in local coordinates) and creates one body per entry of `body_shapes`,
    /// which names each body's shape. Every body starts at the identity transform.
    pub fn new(gpu: &Gpu, shapes: &[Polygon], body_shapes: &[u32], options: &WorldOptions) -> Result<World> {
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
        let n = body_shapes.len();
        if n >= (1 << 31) {
            return Err(Error::TooLarge { what: "bodies", needed: n as u64, limit: 1 << 31 });
        }
        let mut shape_start = Vec::with_capacity(shapes.len());
        let mut shape_data: Vec<[f32; 4]> = vec![];
        for shape in shapes {
            shape_start.push(shape_data.len() as u32);
            for (v, nrm) in shape.vertices().iter().zip(shape.edge_normals()) {
                shape_data.push([v[0] as f32, v[1] as f32, nrm[0] as f32, nrm[1] as f32]);
            }
        }
        let mut bodies = Vec::with_capacity(n);
        let mut world_len: u64 = 0;
        for (i, &s) in body_shapes.iter().enumerate() {
            let shape = shapes.get(s as usize).ok_or(Error::UnknownShape {
                body: i,
                shape: s as usize,
                shapes: shapes.len(),
            })?;
            let count = shape.vertices().len() as u32;
            bodies.push(GpuBody { shape_start: shape_start[s as usize], count, world_start: world_len as u32, pad: 0 });
            world_len += u64::from(count);
        }
        let n_padded = (n as u32).next_power_of_two();
        check("shape vertices", 16 * shape_data.len() as u64)?;
        check("world vertices", 16 * world_len)?;
        check("sort keys", 8 * u64::from(n_padded))?;
        let fold = options
            .max_workgroups_per_dimension
            .unwrap_or(limits.max_compute_workgroups_per_dimension)
            .clamp(1, limits.max_compute_workgroups_per_dimension);
        let max_capacity = (binding_limit / std::mem::size_of::<GpuContact>() as u64).min(u64::from(u32::MAX / 2));
        let capacity = options.candidate_capacity.unwrap_or((4 * n as u32).max(1024)).clamp(1, max_capacity as u32);

        use wgpu::BufferUsages as U;
        let params = init(
            device,
            "satgpu.params",
            bytemuck::bytes_of(&GpuParams { n_bodies: n as u32, n_padded, max_candidates: capacity, fold_width: fold }),
            U::UNIFORM | U::COPY_DST,
        );
        let bodies_buf = init(device, "satgpu.bodies", bytemuck::cast_slice(&bodies), U::STORAGE);
        let identity = vec![[0.0f32, 0.0, 1.0, 0.0]; n];
        let transforms = init(device, "satgpu.transforms", bytemuck::cast_slice(&identity), U::STORAGE | U::COPY_DST);
        let shapes_buf = init(device, "satgpu.shapes", bytemuck::cast_slice(&shape_data), U::STORAGE);
        let world = storage(device, "satgpu.world", 16 * world_len, U::empty());
        let aabbs = storage(device, "satgpu.aabbs", 16 * n as u64, U::COPY_SRC);
        let keys = storage(device, "satgpu.keys", 8 * u64::from(n_padded), U::COPY_SRC);
        let counts = storage(device, "satgpu.counts", 4 * n as u64, U::COPY_SRC);
        let body_scan = Scan::new(device, kernels, &counts, n as u64, fold, "satgpu.scan_candidates");
        gpu.queue().write_buffer(&body_scan.meta, 0, bytemuck::bytes_of(&(n as u32)));

        let sorter = Sorter::new(device, kernels, &keys, n_padded);

        let transform_group = kernels.transform.bind(
            device,
            "satgpu.transform",
            &[
                params.as_entire_binding(),
                bodies_buf.as_entire_binding(),
                transforms.as_entire_binding(),
                shapes_buf.as_entire_binding(),
                world.as_entire_binding(),
                aabbs.as_entire_binding(),
                keys.as_entire_binding(),
            ],
        );
        let statics = Statics {
            params,
            bodies: bodies_buf,
            transforms,
            world,
            aabbs,
            keys,
            counts,
            body_scan,
            sorter,
            transform_group,
            _shapes: shapes_buf,
        };
        let pairs = Self::make_pairs(gpu, kernels, &statics, capacity, fold);
        let totals = storage(device, "satgpu.totals", 8, U::COPY_SRC | U::COPY_DST);
        let status_read = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("satgpu.status.read"),
            size: STATUS_BYTES,
            usage: U::MAP_READ | U::COPY_DST,
            mapped_at_creation: false,
        });
        let timestamps = gpu.has_timestamps().then(|| Timestamps::new(device, gpu.queue()));
        let world = World {
            gpu: gpu.clone(),
            n_bodies: n as u32,
            fold,
            n_padded,
            max_capacity,
            statics,
            pairs,
            totals,
            status_read,
            contacts_read: None,
            timestamps,
        };
        gpu.check()?;
        Ok(world)
    }

    fn make_pairs(gpu: &Gpu, kernels: &Kernels, s: &Statics, capacity: u32, fold: u32) -> Pairs {
        use wgpu::BufferUsages as U;
        let device = gpu.device();
        let cap = u64::from(capacity);
        let candidates = storage(device, "satgpu.candidates", 8 * cap, U::COPY_SRC);
        let results = storage(device, "satgpu.sat.results", 16 * cap, U::empty());
        let flags = storage(device, "satgpu.sat.flags", 4 * cap, U::empty());
        let contacts = storage(device, "satgpu.contacts", 24 * cap, U::COPY_SRC);
        let dispatch = storage(device, "satgpu.pairs.dispatch", 16, U::INDIRECT);
        let pair_scan = Scan::new(device, kernels, &flags, cap, fold, "satgpu.scan_contacts");
        let sweep_group = kernels.sweep_count.bind(
            device,
            "satgpu.sweep",
            &[
                s.params.as_entire_binding(),
                s.keys.as_entire_binding(),
                s.aabbs.as_entire_binding(),
                s.counts.as_entire_binding(),
                candidates.as_entire_binding(),
            ],
        );
        let args_group = kernels.pair_args.bind(
            device,
            "satgpu.pair_args",
            &[
                s.params.as_entire_binding(),
                s.body_scan.total_binding(),
                pair_scan.meta.as_entire_binding(),
                dispatch.as_entire_binding(),
            ],
        );
        let sat_group = kernels.sat.bind(
            device,
            "satgpu.sat",
            &[
                pair_scan.meta.as_entire_binding(),
                candidates.as_entire_binding(),
                s.bodies.as_entire_binding(),
                s.world.as_entire_binding(),
                s.transforms.as_entire_binding(),
                results.as_entire_binding(),
                flags.as_entire_binding(),
            ],
        );
        let compact_group = kernels.compact.bind(
            device,
            "satgpu.compact",
            &[
                pair_scan.meta.as_entire_binding(),
                candidates.as_entire_binding(),
                results.as_entire_binding(),
                flags.as_entire_binding(),
                contacts.as_entire_binding(),
            ],
        );
        Pairs { capacity, candidates, contacts, dispatch, pair_scan, sweep_group, args_group, sat_group, compact_group }
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
        self.pairs.capacity
    }

    /// The device this world runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Makes room for at least `candidates` candidate pairs (and as many contacts).
    pub fn reserve_candidates(&mut self, candidates: u64) -> Result<()> {
        if candidates <= u64::from(self.pairs.capacity) {
            return Ok(());
        }
        if candidates > self.max_capacity {
            return Err(Error::TooLarge {
                what: "candidate pairs",
                needed: candidates * std::mem::size_of::<GpuContact>() as u64,
                limit: self.max_capacity * std::mem::size_of::<GpuContact>() as u64,
            });
        }
        let capacity = (candidates + candidates / 4 + 1024).min(self.max_capacity) as u32;
        let kernels = self.gpu.kernels()?;
        self.pairs = Self::make_pairs(&self.gpu, kernels, &self.statics, capacity, self.fold);
        let params = GpuParams {
            n_bodies: self.n_bodies,
            n_padded: self.n_padded,
            max_candidates: capacity,
            fold_width: self.fold,
        };
        self.gpu.queue().write_buffer(&self.statics.params, 0, bytemuck::bytes_of(&params));
        self.gpu.check()
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
            let (s, c) = t.angle.sin_cos();
            packed.push([t.x as f32, t.y as f32, c as f32, s as f32]);
        }
        if !packed.is_empty() {
            self.gpu.queue().write_buffer(&self.statics.transforms, 0, bytemuck::cast_slice(&packed));
        }
        Ok(())
    }

    /// Records every pass of a frame into `encoder`, then copies the two totals (candidates,
    /// colliding) into [`totals_buffer`](World::totals_buffer). After submission the contacts are in
    /// [`contacts_buffer`](World::contacts_buffer), in sweep order (not sorted), complete only if the
    /// candidate total is at most [`candidate_capacity`](World::candidate_capacity).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) -> Result<()> {
        let k = self.gpu.kernels()?;
        let s = &self.statics;
        let p = &self.pairs;
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
        {
            let mut pass = begin(encoder, ts, 0);
            pass.set_pipeline(&k.transform.pipeline);
            pass.set_bind_group(0, &s.transform_group, &[]);
            dispatch(&mut pass, self.n_padded, WG, fold);
        }
        {
            let mut pass = begin(encoder, ts, 1);
            s.sorter.encode(k, &mut pass, fold);
        }
        {
            let mut pass = begin(encoder, ts, 2);
            pass.set_pipeline(&k.sweep_count.pipeline);
            pass.set_bind_group(0, &p.sweep_group, &[]);
            dispatch(&mut pass, n, WG, fold);
        }
        {
            let mut pass = begin(encoder, ts, 3);
            s.body_scan.encode(k, &mut pass);
        }
        {
            let mut pass = begin(encoder, ts, 4);
            pass.set_pipeline(&k.sweep_write.pipeline);
            pass.set_bind_group(0, &p.sweep_group, &[]);
            dispatch(&mut pass, n, WG, fold);
        }
        {
            let mut pass = begin(encoder, ts, 5);
            pass.set_pipeline(&k.pair_args.pipeline);
            pass.set_bind_group(0, &p.args_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&k.sat.pipeline);
            pass.set_bind_group(0, &p.sat_group, &[]);
            pass.dispatch_workgroups_indirect(&p.dispatch, 0);
        }
        {
            let mut pass = begin(encoder, ts, 6);
            p.pair_scan.encode(k, &mut pass);
            pass.set_pipeline(&k.compact.pipeline);
            pass.set_bind_group(0, &p.compact_group, &[]);
            pass.dispatch_workgroups_indirect(&p.dispatch, 0);
        }
        let (buf, off) = s.body_scan.total();
        encoder.copy_buffer_to_buffer(buf, off, &self.totals, 0, 4);
        let (buf, off) = p.pair_scan.total();
        encoder.copy_buffer_to_buffer(buf, off, &self.totals, 4, 4);
        Ok(())
    }

    /// Runs a frame and leaves the results on the GPU (see [`encode`](World::encode)); returns the
    /// submission so a caller can order its own work after it.
    pub fn dispatch(&mut self) -> Result<wgpu::SubmissionIndex> {
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        self.encode(&mut encoder)?;
        Ok(self.gpu.queue().submit([encoder.finish()]))
    }

    /// Runs a frame and reads the colliding pairs back, sorted by (a, b). Grows the candidate
    /// buffers and reruns the frame when they were too small, so no pair is ever lost.
    pub fn step(&mut self) -> Result<Frame> {
        let start = Instant::now();
        let mut reruns = 0;
        loop {
            let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
            self.encode(&mut encoder)?;
            encoder.copy_buffer_to_buffer(&self.totals, 0, &self.status_read, 0, 8);
            if let Some(ts) = &self.timestamps {
                ts.resolve(&mut encoder);
                encoder.copy_buffer_to_buffer(&ts.resolve, 0, &self.status_read, 256, Timestamps::BYTES);
            }
            let gpu_start = Instant::now();
            let submission = self.gpu.queue().submit([encoder.finish()]);
            let status = readback::read(&self.gpu, &self.status_read, STATUS_BYTES, submission, "collision frame")?;
            let gpu_ms = gpu_start.elapsed().as_secs_f64() * 1e3;
            let totals: &[u32] = bytemuck::cast_slice(&status[..8]);
            let (candidates, colliding) = (u64::from(totals[0]), u64::from(totals[1]));
            if candidates > u64::from(self.pairs.capacity) {
                log::info!(
                    "{candidates} candidates exceed the capacity {}; growing and rerunning",
                    self.pairs.capacity
                );
                self.reserve_candidates(candidates)?;
                reruns += 1;
                continue;
            }
            let mut passes = match &self.timestamps {
                Some(ts) => ts.times(&status[256..]),
                None => vec![PassTime { name: "gpu_total", ms: gpu_ms, clock: "wall" }],
            };
            let read_start = Instant::now();
            let contacts = self.read_contacts(colliding)?;
            passes.push(PassTime { name: "readback", ms: read_start.elapsed().as_secs_f64() * 1e3, clock: "wall" });
            let stats =
                FrameStats { candidates, colliding, passes, frame_ms: start.elapsed().as_secs_f64() * 1e3, reruns };
            return Ok(Frame { contacts, stats });
        }
    }

    fn read_contacts(&mut self, count: u64) -> Result<Vec<Contact>> {
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
        encoder.copy_buffer_to_buffer(&self.pairs.contacts, 0, read_buf, 0, bytes);
        let submission = self.gpu.queue().submit([encoder.finish()]);
        let raw = readback::read(&self.gpu, read_buf, bytes, submission, "contacts")?;
        let gpu: &[GpuContact] = bytemuck::cast_slice(&raw);
        let mut contacts: Vec<Contact> = gpu
            .iter()
            .map(|c| Contact {
                a: c.a,
                b: c.b,
                // `+ 0.0` turns -0.0 into 0.0, as the reference does.
                normal: [f64::from(c.normal_x) + 0.0, f64::from(c.normal_y) + 0.0],
                depth: f64::from(c.depth),
            })
            .collect();
        contacts.sort_unstable_by_key(|c| (c.a, c.b));
        Ok(contacts)
    }

    /// `[candidates, colliding]` as two u32 after a frame (STORAGE | COPY_SRC).
    pub fn totals_buffer(&self) -> &wgpu::Buffer {
        &self.totals
    }

    /// The contacts of the last frame as [`GpuContact`] records, in sweep order
    /// (STORAGE | COPY_SRC). Valid for the first `totals[1]` entries.
    pub fn contacts_buffer(&self) -> &wgpu::Buffer {
        &self.pairs.contacts
    }

    /// The broad phase's candidate pairs `(a, b)` as `vec2<u32>`, for cross-checks
    /// (STORAGE | COPY_SRC). Valid for the first `totals[0]` entries when within capacity.
    pub fn candidates_buffer(&self) -> &wgpu::Buffer {
        &self.pairs.candidates
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
        encoder.copy_buffer_to_buffer(&self.pairs.candidates, 0, &read, 0, bytes.max(8));
        let submission = self.gpu.queue().submit([encoder.finish()]);
        let raw = readback::read(&self.gpu, &read, bytes, submission, "candidates")?;
        Ok(bytemuck::cast_slice::<u8, [u32; 2]>(&raw).iter().map(|p| (p[0], p[1])).collect())
    }

    /// World-space AABBs per body as `vec4<f32>` (min.x, min.y, max.x, max.y) (STORAGE | COPY_SRC).
    pub fn aabbs_buffer(&self) -> &wgpu::Buffer {
        &self.statics.aabbs
    }
}

/// Detects every colliding pair among `polygons` on the GPU: the one-shot call.
/// Returns the pairs sorted by (a, b), with a and b indices into `polygons`.
pub fn detect(gpu: &Gpu, polygons: &[Polygon]) -> Result<Vec<Contact>> {
    Ok(World::from_polygons(gpu, polygons, &WorldOptions::default())?.step()?.contacts)
}
