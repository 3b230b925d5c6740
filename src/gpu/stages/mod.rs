//! Layer 5, the stages of a frame, in frame order. Each owns its pipelines' bind groups and
//! scratch and exposes `new` and `encode`; the buffers it reads and writes come from
//! [`resources`](super::resources), handed over by `world/`. No stage names another.

pub(crate) mod transform;
// The strip broad phase.
pub(crate) mod entries;
pub(crate) mod sort;
pub(crate) mod sweep;
// The all-pairs broad phase.
pub(crate) mod allpairs;
pub(crate) mod compact;
pub(crate) mod deepest;
pub(crate) mod events;
pub(crate) mod impact;
pub(crate) mod manifold;
pub(crate) mod narrow;
pub(crate) mod neighbours;
pub(crate) mod ordering;
pub(crate) mod query;
pub(crate) mod ray;
pub(crate) mod readback;
