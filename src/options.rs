//! What a detection reports, on either side: the options that [`gpu::detect`](crate::gpu::detect)
//! and [`reference::detect`](crate::reference::detect) share (and a
//! [`World`](crate::gpu::World)'s [`WorldOptions`](crate::gpu::WorldOptions) repeat per frame).

use crate::geometry::Filter;

/// What one detection reports: filters, margin, contact detail and order, for
/// [`gpu::detect`](crate::gpu::detect) and [`reference::detect`](crate::reference::detect).
///
/// ```
/// use satgpu::{ContactDetail, DetectOptions};
/// let options = DetectOptions::default().with_margin(0.5).with_contact_detail(ContactDetail::Full);
/// assert_eq!(options.margin, 0.5);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct DetectOptions {
    /// One collision filter per body, or empty (the default): [`Filter::DEFAULT`] everywhere. A
    /// pair is reported only where [`Filter::should_collide`] allows it.
    pub filters: Vec<Filter>,
    /// Neighbours within a distance (default 0: colliding pairs only); see
    /// [`WorldOptions::margin`](crate::gpu::WorldOptions::margin). Finite and at least 0.
    pub margin: f64,
    /// What each pair reports (default [`ContactDetail::Basic`]).
    pub contact_detail: ContactDetail,
    /// Where the GPU orders the pairs (default [`ContactOrder::Auto`]). Every choice gives the same
    /// pairs in the same order; the reference, which sorts its own, ignores it.
    pub order: ContactOrder,
}

impl DetectOptions {
    /// With one filter per body (see [`filters`](DetectOptions::filters)).
    pub fn with_filters(mut self, filters: Vec<Filter>) -> Self {
        self.filters = filters;
        self
    }

    /// Reporting every pair at most `margin` apart.
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// With `detail` per pair.
    pub fn with_contact_detail(mut self, detail: ContactDetail) -> Self {
        self.contact_detail = detail;
        self
    }

    /// With the pairs ordered where `order` says.
    pub fn with_order(mut self, order: ContactOrder) -> Self {
        self.order = order;
        self
    }
}

/// Where a frame's colliding pairs are ordered by (a, b). Every choice gives the same pairs, in
/// the same order, with the same bits; they differ only in time, and in the order
/// [`World::contacts_buffer`](crate::gpu::World::contacts_buffer) holds after a frame left on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContactOrder {
    /// Frames read back ([`World::step`](crate::gpu::World::step) and the like) order on the GPU on a
    /// GPU adapter and on the host on a CPU adapter (lavapipe, llvmpipe), where the GPU's radix
    /// passes run on the same cores and cost several times the host's counting sort
    /// (docs/benchmarks-history.md). Frames left on the GPU ([`World::dispatch`](crate::gpu::World::dispatch),
    /// [`World::encode`](crate::gpu::World::encode)) are not sorted: their pairs stay in sweep order,
    /// which is deterministic too.
    #[default]
    Auto,
    /// On the host after the readback: a counting sort by `a`, then each body's pairs by `b`.
    Host,
    /// On the GPU, every frame, by a stable radix sort of the pairs' keys (4 to 12 radix passes, 16
    /// more bytes per candidate): the contacts buffer holds the pairs sorted by (a, b), also after
    /// a frame left on the GPU, and a readback through
    /// [`World::step_f32_into`](crate::gpu::World::step_f32_into) is one copy. A frame that runs in
    /// batches (more candidates than one binding holds) merges its batches on the host.
    Gpu,
}

crate::named::named!(
    ContactOrder,
    "order",
    [
        (ContactOrder::Auto, "auto", "On the GPU on a GPU, on the host on a CPU adapter"),
        (ContactOrder::Host, "host", "On the host after the readback"),
        (ContactOrder::Gpu, "gpu", "On the GPU by a radix sort; the readback is a copy"),
    ]
);

/// What a frame reports per colliding pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContactDetail {
    /// The pair, its normal and its depth ([`Contact`](crate::Contact)): the fast default.
    #[default]
    Basic,
    /// Also a [`Manifold`](crate::Manifold) per pair in [`Frame::manifolds`](crate::gpu::Frame::manifolds): the containment
    /// flags and one or two contact points, computed on the GPU by one more pass over the
    /// colliding pairs.
    Full,
}

crate::named::named!(
    ContactDetail,
    "contacts",
    [
        (ContactDetail::Basic, "basic", "The pair, its normal and its depth"),
        (ContactDetail::Full, "full", "Also containment flags and a contact manifold"),
    ]
);
