//! The persistent collision pipeline: shapes uploaded once, bodies moved by per-frame
//! transforms, buffers and bind groups kept across frames. A frame, top to bottom:
//!
//! ```text
//! transform -> broad phase (strips: entries, sort, sweep | all pairs) -> narrow phase (SAT)
//!           -> compaction -> totals -> readback, ordered by (a, b)
//! ```
//!
//! One module per stage owns its buffers, bind groups and `encode`; this file only wires them
//! and runs the frame: one submission (one compute pass unless timestamps are asked for) that
//! also copies the totals and as many contacts as the last frame had to mappable buffers, one
//! wait, then growth and rerun (a buffer was too small), a second copy (more pairs than the last
//! frame) or batches (the candidates outgrow what one binding holds), so no pair is ever dropped.

use std::time::Instant;

use crate::error::{Error, Result};
use crate::geometry::{Contact, Filter, Manifold, Polygon, Transform};
use crate::gpu::broad::Broad;
use crate::gpu::frame::{ContactDetail, ContactOrder, Frame, FrameStats, WorldOptions, STRIP_HEIGHT_FACTOR};
use crate::gpu::layout::{GpuContact, GpuManifold, GpuParams};
use crate::gpu::pack::{self, Packed};
use crate::gpu::pass::{Pass, PassTime, Recorder};
use crate::gpu::readback::{Readback, Totals};
use crate::gpu::sized::{Capacity, Sized};
use crate::gpu::transform::TransformStage;
use crate::gpu::{control, init, order, Gpu};
use crate::memory::{self, grouped, SceneSize, Work};

/// A frame's contacts and manifolds in GPU order, the colliding total and the batches run.
type Batches = (Vec<GpuContact>, Vec<GpuManifold>, u64, u32);

/// A frame submitted by [`World::submit`] and not yet collected.
struct InFlight {
    submission: wgpu::SubmissionIndex,
    start: Instant,
    reruns: u32,
}

/// A persistent collision pipeline over bodies that share uploaded shapes.
///
/// Create it once, then per frame call [`set_transforms`](World::set_transforms) (16 bytes per
/// body) and [`step`](World::step). Pipelines are created once per [`Gpu`]; buffers and bind
/// groups once per world, and again only when a frame outgrows them (see
/// [`generation`](World::generation)).
pub struct World {
    gpu: Gpu,
    options: WorldOptions,
    packed: Packed,
    /// The previous polygons' packing, whose memory the next [`set_polygons`](World::set_polygons)
    /// reuses.
    spare: Packed,
    fold: u32,
    strip_height: f32,
    params: wgpu::Buffer,
    control: wgpu::Buffer,
    transform: TransformStage,
    sized: Sized,
    readback: Readback,
    generation: u64,
    in_flight: Option<InFlight>,
    /// Per body collision filters; empty while every body has the default.
    filters: Vec<Filter>,
    /// Some body is a circle or a capsule or has a radius: the narrow phase's rounded variant runs.
    rounded: bool,
    /// Some body has more vertices than the narrow phase's small path takes: its binning and
    /// large-pair passes run.
    large: bool,
    /// The last frame's manifolds ([`ContactDetail::Full`]), in the order of its contacts.
    manifolds: Vec<Manifold>,
    /// Test hook: the next frame records an invalid copy (see `testing`).
    pub(crate) poison: bool,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("bodies", &self.len())
            .field("broad_phase", &self.sized.broad.name())
            .field("entry_capacity", &self.sized.capacity.entries)
            .field("candidate_capacity", &self.sized.capacity.candidates)
            .finish()
    }
}

impl World {
    /// One body per polygon: the one-shot case. Each polygon becomes a shape relative to its
    /// first vertex (rounded to f32), and that vertex becomes the body's translation, so the GPU
    /// holds every polygon to the precision of its own size wherever it lies.
    ///
    /// Polygons whose world would not fit in memory are [`Error::NotEnoughMemory`], before
    /// anything is allocated (see [`memory`](crate::memory)).
    pub fn from_polygons(gpu: &Gpu, polygons: &[Polygon], options: &WorldOptions) -> Result<World> {
        let vertices = polygons.iter().map(|p| p.vertices().len()).sum();
        check_memory(gpu, polygons.len(), vertices, options)?;
        World::build(gpu, Packed::from_polygons(polygons)?, options)
    }

    /// Uploads `shapes` (in local coordinates, best centred near their own origin) and creates
    /// one body per entry of `body_shapes`, which names each body's shape. Every body starts at
    /// the identity transform.
    ///
    /// A world that would not fit in memory is [`Error::NotEnoughMemory`], before anything is
    /// allocated (see [`memory`](crate::memory)).
    pub fn new(gpu: &Gpu, shapes: &[Polygon], body_shapes: &[u32], options: &WorldOptions) -> Result<World> {
        let vertices = shapes.iter().map(|p| p.vertices().len()).sum();
        check_memory(gpu, body_shapes.len(), vertices, options)?;
        World::build(gpu, Packed::from_shapes(shapes, body_shapes)?, options)
    }

    /// Replaces every polygon of a world made by [`from_polygons`](World::from_polygons), for a
    /// one-shot scene that changes every frame. When the number of polygons and each one's vertex
    /// count are unchanged, only the vertex data (16 bytes per vertex and 48 per polygon) is
    /// uploaded into the existing buffers; otherwise the world is rebuilt, keeping its capacities.
    /// A rebuild that would not fit in memory is [`Error::NotEnoughMemory`], and the world keeps
    /// its old polygons.
    pub fn set_polygons(&mut self, polygons: &[Polygon]) -> Result<()> {
        self.gpu.check_lost()?;
        let mut packed = std::mem::take(&mut self.spare);
        packed.repack(polygons)?;
        if packed.same_layout(&self.packed) {
            self.transform.write(self.gpu.queue(), &packed);
            self.rounded = packed.rounded();
            self.large = packed.large();
            self.spare = std::mem::replace(&mut self.packed, packed);
            return Ok(());
        }
        let c = self.sized.capacity;
        let options = WorldOptions {
            candidate_capacity: Some(c.candidates),
            entry_capacity: Some(c.entries),
            strip_height: None,
            ..self.options.clone()
        };
        let generation = self.generation + 1;
        check_memory(&self.gpu, packed.bodies.len(), packed.shape_data.len(), &options)?;
        let filters = std::mem::take(&mut self.filters);
        *self = World::build(&self.gpu, packed, &options)?;
        self.generation = generation;
        if filters.len() == self.len() {
            self.set_filters(&filters)?;
        }
        Ok(())
    }

    /// Sets every body's collision filter (see [`Filter`]) from the next frame on. Pairs that the
    /// filters exclude never become candidates. A world starts with [`Filter::DEFAULT`]
    /// everywhere, and while every filter is the default the broad phase does not read them. The
    /// filters survive [`set_polygons`](World::set_polygons) when the number of bodies stays.
    pub fn set_filters(&mut self, filters: &[Filter]) -> Result<()> {
        self.gpu.check_lost()?;
        if filters.len() != self.len() {
            return Err(Error::FilterCount { got: filters.len(), expected: self.len() });
        }
        if filters.iter().all(|f| *f == Filter::DEFAULT) {
            self.filters.clear();
        } else {
            self.filters = filters.to_vec();
            let words: Vec<[u32; 4]> = filters.iter().map(|f| [f.category, f.mask, f.group as u32, 0]).collect();
            self.gpu.queue().write_buffer(&self.transform.filters, 0, bytemuck::cast_slice(&words));
        }
        self.sized.broad.set_filtered(!self.filters.is_empty());
        Ok(())
    }

    /// The collision filters, empty while every body has the default.
    pub fn filters(&self) -> &[Filter] {
        &self.filters
    }

    fn build(gpu: &Gpu, packed: Packed, options: &WorldOptions) -> Result<World> {
        let (rounded, large) = (packed.rounded(), packed.large());
        let limits = gpu.device().limits();
        let binding_limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let n = packed.bodies.len();
        check_bindings(gpu, n as u64, packed.shape_data.len() as u64)?;
        let fold = options
            .max_workgroups_per_dimension
            .unwrap_or(limits.max_compute_workgroups_per_dimension)
            .clamp(1, limits.max_compute_workgroups_per_dimension);
        let strips = options.broad_phase.strips(n);
        let strip_height = options.strip_height.unwrap_or(STRIP_HEIGHT_FACTOR * packed.typical_height) as f32;
        // The largest per-entry buffer is the gathered AABBs, 16 bytes each.
        let max_entries = (binding_limit / 16).min(u64::from(u32::MAX / 2));
        // Per candidate, the largest record is a manifold (32 bytes; a contact takes 24).
        let record = std::mem::size_of::<GpuManifold>().max(std::mem::size_of::<GpuContact>()) as u64;
        let max_candidates = (binding_limit / record).min(u64::from(u32::MAX / 2));
        let candidates = options.candidate_capacity.unwrap_or((6 * n as u32).max(1024));
        let entries = options.entry_capacity.unwrap_or((3 * n as u32).saturating_add(1024));
        let capacity = Capacity {
            entries: if strips { u64::from(entries).clamp(1, max_entries) as u32 } else { 1 },
            candidates: u64::from(candidates).clamp(1, max_candidates) as u32,
            max_entries,
            max_candidates,
        };
        gpu.scoped(|| {
            use wgpu::BufferUsages as U;
            let device = gpu.device();
            let control = control::buffer(device, "satgpu.control", fold);
            let params =
                init(device, "satgpu.params", &[0; std::mem::size_of::<GpuParams>()], U::UNIFORM | U::COPY_DST);
            let transform = TransformStage::new(gpu, &params, &packed, fold);
            let mut sized = Sized::new(gpu, &params, &control, &transform, strips, capacity, fold);
            add_stages(gpu, options, &control, (&transform, fold), &mut sized);
            let world = World {
                gpu: gpu.clone(),
                options: options.clone(),
                packed,
                spare: Packed::default(),
                fold,
                strip_height,
                params,
                control,
                transform,
                sized,
                readback: Readback::new(gpu),
                generation: 0,
                in_flight: None,
                filters: vec![],
                rounded,
                large,
                manifolds: vec![],
                poison: false,
            };
            world.write_params(0);
            world
        })
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.packed.bodies.len()
    }

    /// Whether the world has no bodies.
    pub fn is_empty(&self) -> bool {
        self.packed.bodies.is_empty()
    }

    /// The candidate pairs the buffers currently hold room for.
    pub fn candidate_capacity(&self) -> u32 {
        self.sized.capacity.candidates
    }

    /// The strip entries the buffers currently hold room for (1 with the all-pairs broad phase).
    pub fn entry_capacity(&self) -> u32 {
        self.sized.capacity.entries
    }

    /// The device this world runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Makes every later wait of this world time out after `timeout`.
    pub fn set_timeout(&mut self, timeout: std::time::Duration) {
        self.gpu = self.gpu.with_timeout(timeout);
    }

    /// Turns per-pass GPU timestamps on or off from the next frame (see
    /// [`WorldOptions::timestamps`]).
    pub fn set_timestamps(&mut self, on: bool) {
        self.options.timestamps = on;
    }

    /// Sets what each colliding pair reports from the next frame on (see [`ContactDetail`]).
    /// [`ContactDetail::Full`] adds a pass and a buffer of 32 bytes per candidate the first time.
    pub fn set_contact_detail(&mut self, detail: ContactDetail) -> Result<()> {
        self.options.contact_detail = detail;
        if self.full() && self.sized.manifold.is_none() {
            let (gpu, transform, sized) = (&self.gpu, &self.transform, &mut self.sized);
            gpu.scoped(|| sized.add_manifolds(gpu, transform))?;
        }
        Ok(())
    }

    /// Whether this world orders the pairs of the frames it reads back on the GPU (see
    /// [`ContactOrder`]; `Auto` resolved for its adapter).
    pub fn orders_on_gpu(&self) -> bool {
        self.sized.order.is_some()
    }

    fn full(&self) -> bool {
        self.options.contact_detail == ContactDetail::Full
    }

    /// The manifolds of the last frame collected with [`step_into`](World::step_into) or
    /// [`collect_into`](World::collect_into), at the same index as its contacts; empty unless
    /// the world runs with [`ContactDetail::Full`]. ([`step`](World::step) moves them into
    /// [`Frame::manifolds`].)
    pub fn manifolds(&self) -> &[Manifold] {
        &self.manifolds
    }

    /// How many times the sized buffers ([`contacts_buffer`](World::contacts_buffer),
    /// [`candidates_buffer`](World::candidates_buffer)) were replaced since the world was made.
    /// A caller that binds them rebuilds its bind groups when this changes. The other buffers
    /// live as long as the world.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Makes room for at least `entries` strip entries and `candidates` candidate pairs (and as
    /// many contacts), so that no frame up to that size pays for a rerun.
    pub fn reserve(&mut self, entries: u64, candidates: u64) -> Result<()> {
        self.gpu.check_lost()?;
        let c = self.sized.capacity;
        let strips = matches!(self.sized.broad, Broad::Strips { .. });
        let capacity = c.grown(entries, candidates, strips)?;
        if (capacity.entries, capacity.candidates) == (c.entries, c.candidates) {
            return Ok(());
        }
        // The new buffers are made while the old ones still exist: refused before either changes.
        let (e, k) = (u64::from(capacity.entries), u64::from(capacity.candidates));
        let device = crate::memory::capacity_bytes(e, k);
        let what = || format!("{} candidate pairs and {} strip entries", grouped(k), grouped(e));
        self.gpu.check_memory(what, crate::memory::MemoryEstimate { host: 0, device })?;
        self.sized = self.gpu.scoped(|| {
            let mut sized =
                Sized::new(&self.gpu, &self.params, &self.control, &self.transform, strips, capacity, self.fold);
            add_stages(&self.gpu, &self.options, &self.control, (&self.transform, self.fold), &mut sized);
            sized
        })?;
        self.sized.broad.set_filtered(!self.filters.is_empty());
        self.generation += 1;
        self.write_params(0);
        Ok(())
    }

    /// Makes room for at least `candidates` candidate pairs (and as many contacts).
    pub fn reserve_candidates(&mut self, candidates: u64) -> Result<()> {
        self.reserve(0, candidates)
    }

    /// Uploads the per-world constants, with the first candidate of the batch to run.
    fn write_params(&self, candidate_base: u32) {
        let c = self.sized.capacity;
        let params = GpuParams {
            n_bodies: self.len() as u32,
            entry_capacity: c.entries,
            candidate_capacity: c.candidates,
            fold_width: self.fold,
            strip_height: self.strip_height,
            candidate_base,
            pad: [0; 2],
        };
        self.gpu.queue().write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
    }

    /// Sets every body's position and rotation for the next frame: 16 bytes per body go to the
    /// GPU, rounded once to f32 (x, y, cos, sin). Checks every transform first: a bad one is an
    /// error naming the body, and nothing is uploaded.
    pub fn set_transforms(&mut self, transforms: &[Transform]) -> Result<()> {
        self.gpu.check_lost()?;
        if transforms.len() != self.len() {
            return Err(Error::TransformCount { got: transforms.len(), expected: self.len() });
        }
        // Kept on the host as uploaded, so that rebuild_on carries them to another device.
        self.packed.transforms = pack::transforms(transforms)?;
        if !self.packed.transforms.is_empty() {
            self.gpu.queue().write_buffer(&self.transform.transforms, 0, bytemuck::cast_slice(&self.packed.transforms));
        }
        Ok(())
    }

    /// This world on another device, for a program that carries on after
    /// [`Error::DeviceLost`]: the same shapes, bodies, filters, options, capacities and last
    /// transforms (as they were uploaded), from the copies the world keeps on the host. Its
    /// frames give the same pairs as this world's would have.
    ///
    /// ```no_run
    /// # use satgpu::gpu::{Gpu, GpuOptions, World};
    /// # fn frame(world: &mut World) -> satgpu::Result<()> { world.step().map(|_| ()) }
    /// # fn main() -> satgpu::Result<()> {
    /// # let (shapes, body_shapes) = (vec![], vec![]);
    /// let mut world = World::new(&Gpu::new(&GpuOptions::default())?, &shapes, &body_shapes, &Default::default())?;
    /// loop {
    ///     match frame(&mut world) {
    ///         Err(satgpu::Error::DeviceLost(why)) => {
    ///             eprintln!("GPU lost ({why}); carrying on with a new device");
    ///             world = world.rebuild_on(&Gpu::new(&GpuOptions::default())?)?;
    ///         }
    ///         other => other?,
    ///     }
    /// #   break;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn rebuild_on(&self, gpu: &Gpu) -> Result<World> {
        let c = self.sized.capacity;
        let options = WorldOptions {
            candidate_capacity: Some(c.candidates),
            entry_capacity: Some(c.entries),
            ..self.options.clone()
        };
        check_memory(gpu, self.len(), self.packed.shape_data.len(), &options)?;
        let mut world = World::build(gpu, self.packed.clone(), &options)?;
        (world.strip_height, world.generation) = (self.strip_height, self.generation);
        world.write_params(0);
        if !self.filters.is_empty() {
            world.set_filters(&self.filters)?;
        }
        Ok(world)
    }

    /// Records every pass of a frame into `encoder`, then copies the three totals (strip
    /// entries, candidates, colliding) into [`totals_buffer`](World::totals_buffer). After
    /// submission the contacts are in [`contacts_buffer`](World::contacts_buffer), in sweep order
    /// (sorted by (a, b) with [`ContactOrder::Gpu`]), complete only if the entry and candidate totals are within
    /// [`entry_capacity`](World::entry_capacity) and [`candidate_capacity`](World::candidate_capacity).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        // Auto leaves a resident frame's pairs in sweep order: no caller of its own passes needs
        // them sorted, and the sort would be most of a GPU frame.
        self.record(encoder, false, self.options.order == ContactOrder::Gpu);
    }

    fn record(&self, encoder: &mut wgpu::CommandEncoder, timed: bool, ordered: bool) {
        let timestamps = self.readback.timestamps.as_ref().filter(|_| timed);
        let mut rec = Recorder::new(encoder, self.gpu.kernels(), timestamps);
        let (s, k) = (&self.sized, rec.kernels);
        // Compaction's last invocation writes the colliding pairs' dispatch arguments; a frame
        // without candidates runs none, and must read zeros.
        rec.encoder().clear_buffer(&s.compact.args, 0, None);
        self.transform.encode(&mut rec);
        s.broad.encode(&mut rec);
        s.narrow.encode(k, rec.pass(Pass::Sat), self.rounded, self.large);
        s.encode_compact(k, rec.pass(Pass::Compact), ordered);
        if let Some(order) = s.order.as_ref().filter(|_| ordered) {
            order.encode(k, rec.pass(Pass::Order));
        }
        if let Some(m) = s.manifold.as_ref().filter(|_| self.full()) {
            m.encode(k, rec.pass(Pass::Manifold));
        }
        self.readback.encode_totals(rec.encoder(), &s.broad, &s.compact);
    }

    /// The passes a frame of this world that is read back runs, in order (a frame left on the GPU
    /// under [`ContactOrder::Auto`] skips [`Pass::Order`]).
    pub fn passes(&self) -> Vec<Pass> {
        let mut passes = vec![Pass::Transform];
        passes.extend_from_slice(self.sized.broad.passes());
        passes.extend([Pass::Sat, Pass::Compact]);
        if self.sized.order.is_some() {
            passes.push(Pass::Order);
        }
        if self.full() {
            passes.push(Pass::Manifold);
        }
        passes
    }

    /// Runs a frame and leaves the results on the GPU (see [`encode`](World::encode)); returns the
    /// submission so a caller can order its own work after it. Nothing is waited for.
    pub fn dispatch(&mut self) -> Result<wgpu::SubmissionIndex> {
        self.gpu.scoped(|| {
            let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
            self.encode(&mut encoder);
            self.gpu.queue().submit([encoder.finish()])
        })
    }

    /// Runs a frame and reads the colliding pairs back, sorted by (a, b). Grows the buffers and
    /// reruns the frame when they were too small, so no pair is ever lost. Blocks until the
    /// frame is done, at most the [`Gpu`]'s timeout per wait.
    pub fn step(&mut self) -> Result<Frame> {
        let mut contacts = Vec::new();
        let stats = self.step_into(&mut contacts)?;
        Ok(Frame { contacts, manifolds: std::mem::take(&mut self.manifolds), stats })
    }

    /// As [`step`](World::step), into `contacts` (cleared first), reusing its allocation.
    pub fn step_into(&mut self, contacts: &mut Vec<Contact>) -> Result<FrameStats> {
        self.submit()?;
        self.collect_into(contacts)
    }

    /// Starts a frame and returns at once, so the caller can work on the CPU meanwhile; then
    /// [`collect_into`](World::collect_into) waits for it. A second `submit` before collecting
    /// starts a new frame in place of the first.
    pub fn submit(&mut self) -> Result<()> {
        let start = Instant::now();
        self.in_flight = None;
        let submission = self.submit_frame()?;
        self.in_flight = Some(InFlight { submission, start, reruns: 0 });
        Ok(())
    }

    fn submit_frame(&mut self) -> Result<wgpu::SubmissionIndex> {
        let poison = std::mem::take(&mut self.poison);
        let gpu = self.gpu.clone();
        gpu.scoped(|| {
            let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
            self.record(&mut encoder, self.options.timestamps, true);
            let capacity = u64::from(self.sized.capacity.candidates);
            self.readback.encode_contacts(&self.gpu, &mut encoder, &self.sized.compact.contacts, capacity);
            self.readback.encode_status(&mut encoder, self.options.timestamps);
            if poison {
                // An unaligned copy: a validation error in satgpu's own submission.
                encoder.copy_buffer_to_buffer(&self.readback.totals, 1, &self.readback.totals, 8, 3);
            }
            self.gpu.queue().submit([encoder.finish()])
        })
    }

    /// Waits for the frame [`submit`](World::submit) started (or runs one if none is in
    /// flight) and reads its pairs into `contacts`, sorted by (a, b). After any error the world
    /// stays usable: buffers are unmapped and the next frame starts afresh.
    pub fn collect_into(&mut self, contacts: &mut Vec<Contact>) -> Result<FrameStats> {
        self.collect_sink(contacts)
    }

    /// As [`step_into`](World::step_into), with each pair as the GPU computed it: f32
    /// [`GpuContact`] records (24 bytes) sorted by (a, b), -0.0 in a normal made 0.0. With the
    /// ordering on the GPU ([`ContactOrder::Gpu`], the default on GPUs) the readback is one copy
    /// into a vector and nothing more; `contacts` is replaced by it.
    pub fn step_f32_into(&mut self, contacts: &mut Vec<GpuContact>) -> Result<FrameStats> {
        self.submit()?;
        self.collect_f32_into(contacts)
    }

    /// As [`collect_into`](World::collect_into), into f32 records (see
    /// [`step_f32_into`](World::step_f32_into)).
    pub fn collect_f32_into(&mut self, contacts: &mut Vec<GpuContact>) -> Result<FrameStats> {
        self.collect_sink(contacts)
    }

    fn collect_sink(&mut self, contacts: &mut Vec<impl order::Record>) -> Result<FrameStats> {
        if self.in_flight.is_none() {
            self.submit()?;
        }
        let gpu = self.gpu.clone();
        let result = gpu.scoped(|| self.finish(contacts)).and_then(|r| r);
        self.in_flight = None;
        if result.is_err() {
            // A batch may have been cut short: the next frame starts from the first candidate.
            self.write_params(0);
        }
        result
    }

    fn finish(&mut self, contacts: &mut Vec<impl order::Record>) -> Result<FrameStats> {
        loop {
            let flight = self.in_flight.as_ref().expect("a frame is in flight");
            let (start, reruns, submission) = (flight.start, flight.reruns, flight.submission.clone());
            let (totals, ticks) =
                self.readback.status(&self.gpu, submission.clone(), self.options.timestamps, "collision frame")?;
            let gpu_ms = start.elapsed().as_secs_f64() * 1e3;
            let c = self.sized.capacity;
            let room = u64::from(c.candidates);
            // Candidates past the largest capacity one binding allows are not a rerun but batches.
            if totals.entries > u64::from(c.entries) || (totals.candidates > room && room < c.max_candidates) {
                log::info!(
                    "{} entries / {} candidates exceed the capacity {} / {}; growing and rerunning",
                    totals.entries,
                    totals.candidates,
                    c.entries,
                    c.candidates
                );
                // Candidates counted from a truncated entry list are a lower bound: the rerun
                // grows again if it must.
                self.reserve(totals.entries, totals.candidates)?;
                let submission = self.submit_frame()?;
                self.in_flight = Some(InFlight { submission, start, reruns: reruns + 1 });
                continue;
            }
            let mut passes = match self.readback.timestamps.as_ref().filter(|_| self.options.timestamps) {
                Some(ts) => ts.times(&ticks, &self.passes()),
                None => vec![PassTime { name: "gpu_total", ms: gpu_ms, clock: "wall" }],
            };
            let read_start = Instant::now();
            let (raw, manifolds, colliding, batches) = self.read_contacts(totals, submission)?;
            // Batches were ordered each on its own: they are merged on the host.
            let ordered = self.sized.order.is_some() && batches == 1;
            deliver(contacts, raw, &manifolds, (ordered, self.len()), &mut self.manifolds)?;
            passes.push(PassTime { name: "readback", ms: read_start.elapsed().as_secs_f64() * 1e3, clock: "wall" });
            return Ok(FrameStats {
                broad_phase: self.sized.broad.name(),
                entries: totals.entries,
                candidates: totals.candidates,
                colliding,
                passes,
                frame_ms: start.elapsed().as_secs_f64() * 1e3,
                reruns,
                batches,
            });
        }
    }

    /// The frame's contacts, then, when there were more candidates than one binding holds, the
    /// rest in batches of the capacity. The sweep's offsets are still on the GPU, so each batch
    /// reruns only the candidate write, the narrow phase and the compaction for its window.
    fn read_contacts(&mut self, totals: Totals, frame: wgpu::SubmissionIndex) -> Result<Batches> {
        let mut raw = self.readback.contacts(&self.gpu, &self.sized.compact.contacts, totals.colliding, Some(frame))?;
        let mut manifolds = self.read_manifolds(totals.colliding)?;
        let mut colliding = totals.colliding;
        let capacity = u64::from(self.sized.capacity.candidates);
        let mut batches = 1;
        let mut base = capacity;
        while base < totals.candidates {
            let batch = self.run_batch(base as u32);
            self.write_params(0);
            let (batch, batch_manifolds) = batch?;
            colliding += batch.len() as u64;
            raw.try_reserve(batch.len()).map_err(|_| Error::HostMemory { what: "contacts", needed: 24 * colliding })?;
            raw.extend_from_slice(&batch);
            manifolds
                .try_reserve(batch_manifolds.len())
                .map_err(|_| Error::HostMemory { what: "manifolds", needed: 32 * colliding })?;
            manifolds.extend_from_slice(&batch_manifolds);
            base += capacity;
            batches += 1;
        }
        Ok((raw, manifolds, colliding, batches))
    }

    /// The first `count` manifolds of the last frame or batch (none unless [`ContactDetail::Full`]).
    fn read_manifolds(&mut self, count: u64) -> Result<Vec<GpuManifold>> {
        match self.sized.manifold.as_ref().filter(|_| self.full()) {
            Some(m) => self.readback.manifolds(&self.gpu, &m.manifolds, count),
            None => Ok(vec![]),
        }
    }

    /// One batch: the candidate write for `[base, base + capacity)`, the narrow phase and the
    /// compaction over it, then its contacts read back.
    fn run_batch(&mut self, base: u32) -> Result<(Vec<GpuContact>, Vec<GpuManifold>)> {
        self.write_params(base);
        let s = &self.sized;
        let k = self.gpu.kernels();
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("satgpu.batch"),
                timestamp_writes: None,
            });
            s.broad.encode_write(k, &mut pass);
            s.narrow.encode(k, &mut pass, self.rounded, self.large);
            s.encode_compact(k, &mut pass, true);
            if let Some(order) = &s.order {
                order.encode(k, &mut pass);
            }
            if let Some(m) = s.manifold.as_ref().filter(|_| self.full()) {
                m.encode(k, &mut pass);
            }
        }
        self.readback.encode_colliding(&mut encoder, &s.compact);
        self.readback.encode_status(&mut encoder, false);
        let submission = self.gpu.queue().submit([encoder.finish()]);
        let (totals, _) = self.readback.status(&self.gpu, submission, false, "collision batch")?;
        let contacts = self.readback.contacts(&self.gpu, &self.sized.compact.contacts, totals.colliding, None)?;
        Ok((contacts, self.read_manifolds(totals.colliding)?))
    }

    /// Eight u32 after a frame (STORAGE | COPY_SRC | INDIRECT): `[entries, candidates,
    /// colliding, 0]`, then at byte 16 the indirect arguments `(x, y, z)` of a pass over the
    /// colliding pairs with `@workgroup_size(64)`: `dispatch_workgroups_indirect(totals, 16)`.
    /// Large counts fold into y, so the pair index is `gid.x + gid.y * nwg.x * 64`, and pairs
    /// at or past `totals[2]` must be skipped. Lives as long as the world.
    pub fn totals_buffer(&self) -> &wgpu::Buffer {
        &self.readback.totals
    }

    /// The contacts of the last frame as [`GpuContact`] records (STORAGE | COPY_SRC): in sweep
    /// order, or sorted by (a, b) after a frame read back with the ordering on the GPU and after
    /// every frame with [`ContactOrder::Gpu`]. Valid for the first `totals[2]` records. Replaced when the
    /// [`generation`](World::generation) changes.
    pub fn contacts_buffer(&self) -> &wgpu::Buffer {
        &self.sized.compact.contacts
    }

    /// With [`ContactDetail::Full`], the manifolds of the last frame as [`GpuManifold`] records
    /// (STORAGE | COPY_SRC), at the same index as their contacts in
    /// [`contacts_buffer`](World::contacts_buffer); `None` before the detail is first asked for.
    /// Replaced when the [`generation`](World::generation) changes.
    pub fn manifolds_buffer(&self) -> Option<&wgpu::Buffer> {
        self.sized.manifold.as_ref().map(|m| &m.manifolds)
    }

    /// The broad phase's candidate pairs `(a, b)` as `vec2<u32>` (STORAGE | COPY_SRC). Valid for
    /// the first `totals[1]` entries when within capacity. Replaced when the
    /// [`generation`](World::generation) changes.
    pub fn candidates_buffer(&self) -> &wgpu::Buffer {
        &self.sized.candidates
    }

    /// Per body `(x, y, cos, sin)` as `vec4<f32>` (STORAGE | COPY_DST | COPY_SRC), read by the next frame.
    /// A caller's own pass may write it on the GPU instead of calling
    /// [`set_transforms`](World::set_transforms); it must keep |x|, |y| <= 1e37. Lives as long as
    /// the world.
    pub fn transforms_buffer(&self) -> &wgpu::Buffer {
        &self.transform.transforms
    }

    /// The control buffer (test hooks read the strip grid from it).
    pub(crate) fn control_buffer(&self) -> &wgpu::Buffer {
        &self.control
    }

    /// World-space AABBs per body as `vec4<f32>` (min.x, min.y, max.x, max.y) (STORAGE |
    /// COPY_SRC). Lives as long as the world.
    pub fn aabbs_buffer(&self) -> &wgpu::Buffer {
        &self.transform.aabbs
    }
}

/// Adds the stages `options` ask for to `sized`: the GPU ordering and the manifolds.
fn add_stages(
    gpu: &Gpu,
    options: &WorldOptions,
    control: &wgpu::Buffer,
    (transform, fold): (&TransformStage, u32),
    sized: &mut Sized,
) {
    let on_gpu = match options.order {
        ContactOrder::Gpu => true,
        ContactOrder::Host => false,
        ContactOrder::Auto => gpu.adapter_info().device_type != wgpu::DeviceType::Cpu,
    };
    if on_gpu {
        sized.add_order(gpu, control, transform.len() as usize, fold);
    }
    if options.contact_detail == ContactDetail::Full {
        sized.add_manifolds(gpu, transform);
    }
}

/// A frame's pairs `raw` (with `manifolds` at the same index when there are any) into `out`
/// sorted by (a, b), as [`Contact`]s or as f32 [`GpuContact`]s, and the manifolds into
/// `out_manifolds` in the same order. `ordered`: the GPU sorted `raw` already.
fn deliver<T: order::Record>(
    out: &mut Vec<T>,
    raw: Vec<GpuContact>,
    manifolds: &[GpuManifold],
    (ordered, bodies): (bool, usize),
    out_manifolds: &mut Vec<Manifold>,
) -> Result<()> {
    out_manifolds.clear();
    if !ordered {
        return match manifolds.is_empty() {
            true => order::sorted_contacts_into(&raw, bodies, out),
            false => order::sorted_with_manifolds_into(&raw, manifolds, bodies, out, out_manifolds),
        };
    }
    T::from_sorted(raw, out)?;
    out_manifolds.extend(manifolds.iter().map(GpuManifold::to_manifold));
    Ok(())
}

/// Detects every colliding pair among `polygons` on the GPU: the one-shot call.
/// Returns the pairs sorted by (a, b), with a and b indices into `polygons`.
pub fn detect(gpu: &Gpu, polygons: &[Polygon]) -> Result<Vec<Contact>> {
    Ok(World::from_polygons(gpu, polygons, &WorldOptions::default())?.step()?.contacts)
}

/// [`Error::TooLarge`] unless `bodies` bodies and `records` shape records (vertices, and one
/// more per shape of more than 8) fit in one buffer binding each.
fn check_bindings(gpu: &Gpu, bodies: u64, records: u64) -> Result<()> {
    let limits = gpu.device().limits();
    let binding_limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
    if bodies >= (1 << 31) {
        return Err(Error::TooLarge { what: "bodies", needed: bodies, limit: 1 << 31 });
    }
    for (what, needed) in [("shape vertices", records.saturating_mul(16)), ("AABBs", 16 * bodies)] {
        if needed > binding_limit {
            return Err(Error::TooLarge { what, needed, limit: binding_limit });
        }
    }
    Ok(())
}

/// Whether `work` on a scene of `size` fits `gpu`, checked before anything is allocated: the
/// buffer bindings a world's bodies and vertices need ([`Error::TooLarge`]) and the memory of
/// [`memory::estimate`] against what `gpu` may use ([`Error::NotEnoughMemory`], naming `what`).
/// Every [`World`] checks its own size; call this before work that comes first, such as
/// generating or reading the scene.
pub fn check_fits(gpu: &Gpu, size: SceneSize, work: Work, what: impl Fn() -> String) -> Result<()> {
    gpu.check_memory(what, memory::estimate(size, work))?;
    if work.world {
        check_bindings(gpu, size.bodies, size.vertices)?;
    }
    Ok(())
}

/// [`check_fits`] for a world of `bodies` bodies and `vertices` shape vertices, with the
/// capacities `options` ask for.
fn check_memory(gpu: &Gpu, bodies: usize, vertices: usize, options: &WorldOptions) -> Result<()> {
    let size = SceneSize {
        bodies: bodies as u64,
        vertices: vertices as u64,
        candidates: options.candidate_capacity.map_or(0, u64::from),
    };
    check_fits(gpu, size, Work::WORLD, || format!("{} bodies", grouped(size.bodies)))
}

/// As [`detect`], with one collision filter per polygon (`filters` empty: the default
/// everywhere): pairs the filters exclude are never reported.
pub fn detect_filtered(gpu: &Gpu, polygons: &[Polygon], filters: &[Filter]) -> Result<Vec<Contact>> {
    let mut world = World::from_polygons(gpu, polygons, &WorldOptions::default())?;
    if !filters.is_empty() {
        world.set_filters(filters)?;
    }
    Ok(world.step()?.contacts)
}

/// As [`detect_filtered`], with [`ContactDetail::Full`]: each pair's manifold and containment
/// flags too, at the same index as its contact.
pub fn detect_full(gpu: &Gpu, polygons: &[Polygon], filters: &[Filter]) -> Result<(Vec<Contact>, Vec<Manifold>)> {
    let options = WorldOptions::default().with_contact_detail(ContactDetail::Full);
    let mut world = World::from_polygons(gpu, polygons, &options)?;
    if !filters.is_empty() {
        world.set_filters(filters)?;
    }
    let frame = world.step()?;
    Ok((frame.contacts, frame.manifolds))
}
