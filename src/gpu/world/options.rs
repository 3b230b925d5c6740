//! What a caller passes to a [`World`](crate::gpu::World) and gets back from a frame: options,
//! counts and timings.

use crate::geometry::{Contact, Filter, Periodic};
use crate::gpu::device::pass::{HostSpan, PassTime};
use crate::gpu::world::broad::BroadPhase;
pub use crate::options::{ContactDetail, ContactOrder};

pub use crate::gpu::kernels::shared::STRIP_HEIGHT_FACTOR;

/// The most worlds one [`World`](crate::gpu::World) holds ([`World::set_worlds`](crate::gpu::World::set_worlds)):
/// each world has strips of its own, and the broad phase has this many in all.
pub const MAX_WORLDS: u32 = crate::gpu::kernels::shared::MAX_STRIPS;

/// Options for a [`World`](crate::gpu::World): `WorldOptions::default().with_candidate_capacity(1 << 20)`.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct WorldOptions {
    /// Candidate pairs to make room for up front (default: 6 per body, at least 1024, at most
    /// what one buffer binding holds). Buffers grow by themselves when a frame needs more;
    /// reserving avoids that frame's rerun.
    pub candidate_capacity: Option<u32>,
    /// Strip entries to make room for up front (default: 3 per body plus 1024).
    pub entry_capacity: Option<u32>,
    /// Most workgroups per dispatch dimension (default: the device limit). Larger dispatches
    /// fold into a 2D grid; tests lower this to exercise the folding at small sizes.
    pub max_workgroups_per_dimension: Option<u32>,
    /// The broad phase.
    pub broad_phase: BroadPhase,
    /// Height of a broad-phase strip (default: [`STRIP_HEIGHT_FACTOR`] times the typical AABB height
    /// of the shapes over all bodies). Smaller strips mean more entries and shorter sweeps.
    pub strip_height: Option<f64>,
    /// Time every pass with GPU timestamps, reported in [`FrameStats::passes`] (default off: each
    /// timed pass is a compute pass of its own, while an untimed frame records one compute pass).
    /// Needs an adapter with timestamp queries; without them the option reports wall clock.
    pub timestamps: bool,
    /// What each colliding pair reports (default [`ContactDetail::Basic`]).
    pub contact_detail: ContactDetail,
    /// Where the colliding pairs are ordered by (a, b) (default [`ContactOrder::Auto`]).
    pub order: ContactOrder,
    /// Neighbours within a distance (default 0: colliding pairs only). With a margin `d > 0`
    /// every pair at most `d` apart is reported, with `depth` minus its signed distance: as
    /// today for colliding pairs, and negative, down to `-d`, for pairs apart, whose normal points
    /// from `a`'s closest point to `b`'s (see [`reference::detect`](crate::reference::detect)).
    /// Must be finite and at least 0 ([`Error::InvalidSetting`](crate::Error::InvalidSetting)
    /// otherwise). With [`ContactDetail::Full`], a pair apart gets the points midway between its
    /// closest features (see [`ContactPoint`](crate::ContactPoint)). With bodies of several
    /// shapes, each pair of bodies at most `d` apart, with its least separated part pair.
    pub margin: f64,
    /// Contact events (default off): after each frame read back,
    /// [`World::events`](crate::gpu::World::events) holds the pairs that began and ended since
    /// the previous frame read back, computed on the GPU from the two frames' sorted pairs; for
    /// frames left on the GPU, [`World::encode_with_events`](crate::gpu::World::encode_with_events)
    /// records them into [`World::events_buffer`](crate::gpu::World::events_buffer). Frames with
    /// events order their pairs on the GPU by default, also on CPU adapters, and each candidate
    /// costs 40 bytes more. With [`ContactOrder::Host`], and in worlds of bodies of several shapes
    /// ([`World::from_bodies`](crate::gpu::World::from_bodies)), the host computes them instead from the
    /// pairs it read back, the same pairs with the same bits; frames left on the GPU then have
    /// none (their pairs are not sorted, or name shapes), and `events_buffer` is `None`. From
    /// the first frame in batches (more candidates than one binding holds) on, the host computes
    /// them in every world, from the pairs the GPU kept of the frame before: the same events;
    /// `events_buffer` is then `None`.
    pub events: bool,
    /// Continuous collision (default off): each frame read back also sweeps every body from its
    /// pose at the last frame (before the first frame: its pose before the last
    /// [`set_transforms`](crate::gpu::World::set_transforms), or none) to its pose now, position
    /// and angle linearly in time (the angle the shorter way round: a body turns less than half
    /// a turn per frame), and reports in
    /// [`Frame::impacts`] each pair of bodies that touches at some moment of it, with the first
    /// (see [`reference::sweep`](crate::reference::sweep)). A fast small body that passes through
    /// a thin wall between two frames is caught there. The frame's contacts are unchanged; its
    /// broad phase sees each body's swept box; each body keeps 32 bytes of poses, and each
    /// candidate pair 16 bytes for its impact. Frames left on the GPU compute none. Where a body
    /// turns, the first touch comes from conservative advancement, which the GPU stops after
    /// 1,000 steps (on Mesa's software adapters, as many as their loop limit pays for: about
    /// 30,000 / (n_a + n_b); the reference after 100,000), counting a touch where it got to: a
    /// pair that stays near touching for much of the frame while it turns may be reported (on a
    /// software adapter, with few steps for bodies of hundreds of vertices, one that passes
    /// within a fraction of its size).
    pub continuous: bool,
    /// A periodic box (default none; see [`Periodic`]): bodies anywhere, each pair judged
    /// between `a` and the image of `b` that touches it, as
    /// [`reference::detect`](crate::reference::detect) does. The GPU side is being built (issue
    /// 65): a [`World`](crate::gpu::World) refuses it for now, as
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) (`"periodic box"`).
    pub periodic: Option<Periodic>,
}

impl WorldOptions {
    /// Whether a world can be made with these options, checked before anything is made:
    /// [`margin`](WorldOptions::margin) finite, at least 0 and at most f32's largest;
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) naming it otherwise.
    pub fn check(&self) -> crate::Result<()> {
        let m = self.margin;
        if !(m >= 0.0 && m.is_finite() && m <= f64::from(f32::MAX)) {
            let detail = format!("{m}: must be finite, at least 0 and at most 3.4e38");
            return Err(crate::Error::InvalidSetting { what: "margin", detail });
        }
        Ok(())
    }

    /// With room for `candidates` candidate pairs up front.
    pub fn with_candidate_capacity(mut self, candidates: u32) -> Self {
        self.candidate_capacity = Some(candidates);
        self
    }

    /// With the colliding pairs ordered where `order` says.
    pub fn with_order(mut self, order: ContactOrder) -> Self {
        self.order = order;
        self
    }

    /// With room for `entries` strip entries up front.
    pub fn with_entry_capacity(mut self, entries: u32) -> Self {
        self.entry_capacity = Some(entries);
        self
    }

    /// With at most `groups` workgroups per dispatch dimension.
    pub fn with_max_workgroups_per_dimension(mut self, groups: u32) -> Self {
        self.max_workgroups_per_dimension = Some(groups);
        self
    }

    /// With `broad_phase`.
    pub fn with_broad_phase(mut self, broad_phase: BroadPhase) -> Self {
        self.broad_phase = broad_phase;
        self
    }

    /// With per-pass GPU timestamps (see [`timestamps`](WorldOptions::timestamps)).
    pub fn with_timestamps(mut self, timestamps: bool) -> Self {
        self.timestamps = timestamps;
        self
    }

    /// With `detail` per colliding pair.
    pub fn with_contact_detail(mut self, detail: ContactDetail) -> Self {
        self.contact_detail = detail;
        self
    }

    /// With strips `height` world units tall.
    pub fn with_strip_height(mut self, height: f64) -> Self {
        self.strip_height = Some(height);
        self
    }

    /// Reporting every pair at most `margin` apart (see [`WorldOptions::margin`]).
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// With contact events (see [`WorldOptions::events`]).
    pub fn with_events(mut self, events: bool) -> Self {
        self.events = events;
        self
    }

    /// With continuous collision (see [`WorldOptions::continuous`]).
    pub fn with_continuous(mut self, continuous: bool) -> Self {
        self.continuous = continuous;
        self
    }

    /// In the periodic box `periodic` (see [`WorldOptions::periodic`]).
    pub fn with_periodic(mut self, periodic: Periodic) -> Self {
        self.periodic = Some(periodic);
        self
    }
}

/// One detection: the filters of its bodies and the options of the world it makes, for
/// [`gpu::detect`](crate::gpu::detect), which makes that world and steps it once, and
/// [`reference::detect`](crate::reference::detect), which reads the filters, the margin and the
/// contact detail (every other option changes no answer).
///
/// ```
/// use satgpu::{ContactDetail, DetectOptions};
/// let options = DetectOptions::default().with_margin(0.5).with_contact_detail(ContactDetail::Full);
/// assert_eq!(options.world.margin, 0.5);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct DetectOptions {
    /// One collision filter per body, or empty (the default): [`Filter::DEFAULT`] everywhere. A
    /// pair is reported only where [`Filter::should_collide`] allows it.
    pub filters: Vec<Filter>,
    /// The world's options: [`margin`](WorldOptions::margin),
    /// [`contact_detail`](WorldOptions::contact_detail), [`order`](WorldOptions::order) (every
    /// choice gives the same pairs in the same order; the reference sorts its own) and the GPU's
    /// own (capacities, broad phase, strip height, timestamps).
    pub world: WorldOptions,
}

impl DetectOptions {
    /// With one filter per body (see [`filters`](DetectOptions::filters)).
    pub fn with_filters(mut self, filters: Vec<Filter>) -> Self {
        self.filters = filters;
        self
    }

    /// With `world` as the world's options.
    pub fn with_world(mut self, world: WorldOptions) -> Self {
        self.world = world;
        self
    }

    /// Reporting every pair at most `margin` apart (see [`WorldOptions::margin`]).
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.world.margin = margin;
        self
    }

    /// In the periodic box `periodic` (see [`WorldOptions::periodic`]).
    pub fn with_periodic(mut self, periodic: Periodic) -> Self {
        self.world.periodic = Some(periodic);
        self
    }

    /// With `detail` per pair.
    pub fn with_contact_detail(mut self, detail: ContactDetail) -> Self {
        self.world.contact_detail = detail;
        self
    }

    /// With the pairs ordered where `order` says.
    pub fn with_order(mut self, order: ContactOrder) -> Self {
        self.world.order = order;
        self
    }
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
    /// Per-pass times: GPU timestamps for the compute passes ([`Pass::name`](crate::gpu::Pass::name))
    /// when [`WorldOptions::timestamps`] asks and the device has them, otherwise one wall-clock
    /// `gpu_total`; `readback` is always wall clock.
    pub passes: Vec<PassTime>,
    /// Wall-clock time of the whole frame, from encoding to contacts in host memory.
    pub frame_ms: f64,
    /// Times the frame was rerun because a buffer had to grow.
    pub reruns: u32,
    /// Batches the narrow phase ran in: 1, or more when the candidates outgrew what one buffer
    /// binding of the device holds.
    pub batches: u32,
    /// The host's work for this frame, on the wall clock, in order: what the calls before it
    /// did ([`World::set_polygons`](crate::gpu::World::set_polygons): `pack`, `staging_write`;
    /// [`World::set_transforms`](crate::gpu::World::set_transforms): `staging_write`, then
    /// `transform_conversion`, which writes into the staging memory), then `submit`, `wait`, `map`, `copy_out`, `order` or `widen`, and `events` where the host computes them (see
    /// [`HostSpan`]). A span may repeat (a rerun, a second copy, batches).
    pub host: Vec<HostSpan>,
}

/// The result of [`World::step`](crate::gpu::World::step).
#[derive(Debug, Clone, Default)]
pub struct Frame {
    /// Colliding pairs of bodies, sorted by (a, b); for bodies of several shapes, each with the
    /// normal (from `a` to `b`) and depth of its deepest colliding shape pair (of equal depths,
    /// the first by shape index).
    pub contacts: Vec<Contact>,
    /// That shape pair, at the same index: `[shape of a, shape of b]`, each counted within its
    /// body. Empty when every body has one shape.
    pub shapes: Vec<[u32; 2]>,
    /// With [`ContactDetail::Full`], each pair's manifold (of its shape pair), at the same index
    /// as its contact; otherwise empty.
    pub manifolds: Vec<crate::Manifold>,
    /// With [`WorldOptions::continuous`], each pair of bodies that touches at some moment
    /// between the previous transforms and these, with the first moment, sorted by (a, b);
    /// otherwise empty.
    pub impacts: Vec<crate::Impact>,
    /// Counts and timings.
    pub stats: FrameStats,
}
