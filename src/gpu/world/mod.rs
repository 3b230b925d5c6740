//! The persistent collision pipeline: shapes uploaded once, bodies moved by per-frame
//! transforms, buffers and bind groups kept across frames. A frame, top to bottom:
//!
//! ```text
//! transform -> broad phase (strips: entries, sort, sweep | all pairs) -> narrow phase (SAT)
//!           -> compaction -> totals -> readback, ordered by (a, b)
//! ```
//!
//! The stages (`stages/`) take the buffers they read and write from `resources.rs`; this file
//! makes those buffers, wires the stages to them (with `sized.rs` and `broad.rs`) and runs the
//! frame: one submission (one compute pass unless timestamps are asked for) that
//! also copies the totals and as many contacts as the last frame had to mappable buffers, one
//! wait, then growth and rerun (a buffer was too small), a second copy (more pairs than the last
//! frame) or batches (the candidates outgrow what one binding holds), so no pair is ever dropped.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use crate::error::Result;
use crate::geometry::{Contact, ContactEvents, Filter, Manifold};
use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, SpanLog};
use crate::gpu::host::events::HostEvents;
use crate::gpu::host::order;
use crate::gpu::host::pack::Packed;
use crate::gpu::kernels::layout::{GpuContact, GpuParams};
use crate::gpu::resources::{BodyBuffers, Wiring};
use crate::gpu::stages::readback::Readback;
use crate::gpu::stages::transform::TransformStage;
use crate::gpu::world::options::{ContactDetail, Frame, FrameStats, WorldOptions};
use crate::gpu::world::plan::{Plans, Question};
use crate::gpu::world::sized::CapacityStages;

mod bodies;
pub(crate) mod broad;
mod build;
mod collect;
mod detect;
mod fits;
pub(crate) mod growth;
mod inputs;
mod neighbours;
pub(crate) mod options;
mod periodic;
pub(crate) mod plan;
mod queries;
mod rays;
mod record;
mod resident;
pub(crate) mod sized;
pub(crate) mod view;

pub use detect::{detect, neighbours};
pub use fits::check_fits;

/// A frame submitted by [`World::submit`] and not yet collected.
struct InFlight {
    submission: wgpu::SubmissionIndex,
    start: Instant,
    reruns: u32,
}

/// A persistent collision pipeline over bodies that share uploaded shapes: each body has one
/// shape or several ([`Body`](crate::Body)), and a pair is a pair of bodies (see
/// [`from_bodies`](World::from_bodies)).
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
    /// The transforms before the last [`set_transforms`](World::set_transforms), whose memory the
    /// next one converts into.
    spare_transforms: Vec<[f32; 4]>,
    /// With continuous collision: the start poses hold the poses of the last frame (copied
    /// there after each, `keep_poses`). Until the first frame, each upload sets them to the
    /// upload before (`uploaded`), or at the first to itself (the poses the world was made with
    /// are no one's).
    frame_poses: AtomicBool,
    uploaded: bool,
    /// The host ordering's counts per body, whose memory the next frame reuses.
    order_scratch: order::Scratch,
    /// The host ordering's input: a frame's records in GPU order, in memory the next frame reuses.
    raw: Vec<GpuContact>,
    /// The records a [`ContactView`](crate::gpu::ContactView) lends when they are not mapped.
    view: Vec<GpuContact>,
    fold: u32,
    strip_height: f32,
    params: wgpu::Buffer,
    control: wgpu::Buffer,
    bodies: BodyBuffers,
    transform: TransformStage,
    sized: CapacityStages,
    readback: Readback,
    generation: u64,
    in_flight: Option<InFlight>,
    /// Per body collision filters; empty while every body has the default.
    filters: Vec<Filter>,
    /// Each body's world (`set_worlds`), empty while every body is in world 0, and how many
    /// worlds there are (1: one).
    worlds: Vec<u32>,
    world_count: u32,
    /// The first part of each body's compound body plus one (see `set_owners`; 0: a body of
    /// its own), or empty.
    owners: Vec<u32>,
    /// Some body is a circle or a capsule or has a radius: the narrow phase's rounded variant runs.
    rounded: bool,
    /// Some body has more vertices than the narrow phase's small path takes: its binning and
    /// large-pair passes run.
    large: bool,
    /// [`WorldOptions::margin`], rounded up to f32 (0: colliding pairs only).
    margin: f32,
    /// The last frame's manifolds ([`ContactDetail::Full`](crate::gpu::ContactDetail::Full)), in the order of its contacts.
    manifolds: Vec<Manifold>,
    /// With [`WorldOptions::continuous`], the impact records of the frame being collected, batch
    /// by batch (instances, toi bits), then its impacts by body.
    impact_records: Vec<[u32; 4]>,
    impacts: Vec<crate::Impact>,
    /// With [`WorldOptions::events`], the last collected frame's contact events.
    contact_events: Option<ContactEvents>,
    /// With events and the pairs ordered on the host, the last collected frame's pairs, from
    /// which the host computes the next frame's events (the GPU's events stage does otherwise).
    host_events: Option<HostEvents>,
    /// Which of the events stage's two pair lists holds the previous frame's pairs: turned by
    /// every complete frame whose events were computed.
    parity: AtomicUsize,
    /// The parity when the events' previous pairs were saved (see `save_events`).
    saved_parity: usize,
    /// The steps of each kind of frame (see `plan.rs`), rebuilt when the stages or options change.
    plans: Plans,
    /// Host spans since the last collected frame, reported in its [`FrameStats::host`].
    spans: SpanLog,
    /// Test hook: the next frame records an invalid copy (see `testing`).
    pub(crate) poison: bool,
    /// Where some body has several shapes: which body each instance (a shape on the GPU)
    /// belongs to (see `bodies.rs`).
    pub(crate) map: Option<bodies::BodyMap>,
    /// The last frame's shape pairs, at the index of its pairs of bodies (empty without `map`).
    shape_pairs: Vec<[u32; 2]>,
    /// Hits the last batch of region queries found: the room the next starts with.
    query_hits: u64,
    /// In a periodic box, whether every body was found to fit it at any angle (checked at the
    /// first turned pose, again after new polygons).
    turns_fit: bool,
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
    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(self.packed.bodies.len(), |m| m.bodies())
    }

    /// Bytes of the records the host packs and uploads when the world's polygons are set
    /// ([`set_polygons`](World::set_polygons)): shape vertices, bodies, boxes and transforms.
    /// A benchmark's floor for that packing is one copy of this many bytes.
    pub fn packed_bytes(&self) -> u64 {
        self.packed.bytes()
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

    /// Whether this world orders the pairs of the frames it reads back on the GPU (see
    /// [`ContactOrder`](crate::gpu::ContactOrder); `Auto` resolved for its adapter).
    pub fn orders_on_gpu(&self) -> bool {
        self.sized.order.is_some()
    }

    fn full(&self) -> bool {
        self.options.contact_detail == ContactDetail::Full
    }

    /// How many times the sized buffers ([`contacts_buffer`](World::contacts_buffer),
    /// [`candidates_buffer`](World::candidates_buffer)) were replaced since the world was made.
    /// A caller that binds them rebuilds its bind groups when this changes. The other buffers
    /// live as long as the world.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// With continuous collision, a frame's poses become the next frame's start poses: a frame
    /// left on the GPU's, copied in its `encoder` after it; a frame read back's (`None`), from
    /// the copy its own commands made (`ends`), in a submission of their own (no wait). A frame
    /// read back before the first upload keeps nothing: the poses a world was made with are no
    /// one's.
    pub(crate) fn keep_poses(&self, encoder: Option<&mut wgpu::CommandEncoder>) {
        let (Some(starts), Some(ends)) = (&self.bodies.starts, &self.bodies.ends) else { return };
        let transforms = &self.bodies.transforms;
        match encoder {
            Some(encoder) => encoder.copy_buffer_to_buffer(transforms, 0, starts, 0, transforms.size()),
            None if self.uploaded => {
                let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(ends, 0, starts, 0, ends.size());
                self.gpu.queue().submit([encoder.finish()]);
            }
            None => return,
        }
        self.frame_poses.store(self.uploaded, Ordering::Relaxed);
    }

    /// The events stage's parity for the next frame.
    fn parity(&self) -> usize {
        self.parity.load(Ordering::Relaxed)
    }

    /// A frame's events are complete: the next frame compares against its pairs.
    fn turn_parity(&self) {
        self.parity.fetch_xor(1, Ordering::Relaxed);
    }

    /// What the stages of this world bind and dispatch by.
    fn wiring(&self) -> Wiring<'_> {
        Wiring { params: &self.params, control: &self.control, bodies: &self.bodies, fold: self.fold }
    }

    /// Uploads the per-world constants, with the first candidate of the batch to run.
    fn write_params(&self, candidate_base: u32) {
        let c = self.sized.capacity;
        let params = GpuParams {
            n_bodies: self.shape_count() as u32,
            entry_capacity: c.entries,
            candidate_capacity: c.candidates,
            fold_width: self.fold,
            strip_height: self.strip_height,
            candidate_base,
            margin: self.margin,
            two: 2,
            window: 0,
            window_steps: match self.gpu.is_software() {
                true => crate::gpu::stages::sweep::SOFTWARE_WINDOW,
                false => u32::MAX,
            },
            continuous: u32::from(self.options.continuous),
            worlds: self.world_count,
            ..bytemuck::Zeroable::zeroed()
        }
        .with_periodic(self.options.periodic.as_ref());
        self.gpu.queue().write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
    }

    /// The plans again, after the stages or the options changed.
    fn replan(&mut self) {
        self.plans = Plans::new(&self.sized, &self.options);
    }

    /// The passes a frame of this world that is read back runs, in order: its plan's (a frame
    /// left on the GPU under [`ContactOrder::Auto`](crate::gpu::ContactOrder::Auto) skips
    /// [`Pass::Order`]).
    pub fn passes(&self) -> Vec<Pass> {
        self.passes_of(Question::Frame)
    }

    /// The passes `question` runs, in order, as its plan records them (`passes()` is a frame's).
    pub fn passes_of(&self, question: Question) -> Vec<Pass> {
        self.plans.of(question).passes()
    }

    /// Runs a frame and reads the colliding pairs back, sorted by (a, b). Grows the buffers and
    /// reruns the frame when they were too small, so no pair is ever lost. Blocks until the
    /// frame is done, at most the [`Gpu`]'s timeout per wait.
    pub fn step(&mut self) -> Result<Frame> {
        let mut contacts = Vec::new();
        let stats = self.step_into(&mut contacts)?;
        let (shapes, manifolds) = (std::mem::take(&mut self.shape_pairs), std::mem::take(&mut self.manifolds));
        let impacts = self.impacts.clone();
        Ok(Frame { contacts, shapes, manifolds, impacts, stats })
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
        let start = Instant::now();
        let submitted = gpu.scoped(|| {
            let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
            // A frame of bodies of several shapes keeps each pair of bodies' deepest shape pair
            // on the GPU with the ordering there; the host names them by body (`collect.rs`).
            let events = self.sized.events.as_ref();
            self.record(&mut encoder, &self.plans.read_back);
            if let Some(ends) = &self.bodies.ends {
                // The poses this frame ran with, for the next one's sweep (`keep_poses`).
                encoder.copy_buffer_to_buffer(&self.bodies.transforms, 0, ends, 0, ends.size());
            }
            let capacity = u64::from(self.sized.capacity.candidates);
            self.readback.encode_contacts(&self.gpu, &mut encoder, &self.sized.pairs.contacts, capacity);
            self.readback.encode_status(&mut encoder, self.options.timestamps, events.map(|e| &e.totals));
            if poison {
                // An unaligned copy: a validation error in satgpu's own submission.
                encoder.copy_buffer_to_buffer(&self.readback.totals, 1, &self.readback.totals, 8, 3);
            }
            self.gpu.queue().submit([encoder.finish()])
        });
        self.spans.record("submit", start);
        submitted
    }

    /// Waits for the frame [`submit`](World::submit) started (or runs one if none is in
    /// flight) and reads its pairs into `contacts`, sorted by (a, b). After any error the world
    /// stays usable: buffers are unmapped and the next frame starts afresh.
    pub fn collect_into(&mut self, contacts: &mut Vec<Contact>) -> Result<FrameStats> {
        self.collect_sink(contacts, false).map(|(stats, _)| stats)
    }

    /// As [`step_into`](World::step_into), with each pair as the GPU computed it: f32
    /// [`GpuContact`](crate::gpu::GpuContact) records (24 bytes) sorted by (a, b), -0.0 in a normal made 0.0. With the
    /// ordering on the GPU ([`ContactOrder::Gpu`](crate::gpu::ContactOrder::Gpu), the default on GPUs) the readback is one copy
    /// into a vector and nothing more; `contacts` is replaced by it.
    pub fn step_f32_into(&mut self, contacts: &mut Vec<GpuContact>) -> Result<FrameStats> {
        self.submit()?;
        self.collect_f32_into(contacts)
    }

    /// As [`collect_into`](World::collect_into), into f32 records (see
    /// [`step_f32_into`](World::step_f32_into)).
    pub fn collect_f32_into(&mut self, contacts: &mut Vec<GpuContact>) -> Result<FrameStats> {
        self.collect_sink(contacts, false).map(|(stats, _)| stats)
    }
}
