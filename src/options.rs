//! What a detection reports, on either side: the contact detail and the order that
//! [`WorldOptions`](crate::gpu::WorldOptions) (and through it [`DetectOptions`](crate::DetectOptions))
//! name, and that [`reference::detect`](crate::reference::detect) reads too.

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
