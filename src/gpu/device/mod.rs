//! Layer 2, the device: the adapter and its checks, the device and queue, error scopes, loss and
//! timeouts ([`Gpu`](context::Gpu), which builds the pipelines once), and the passes of a frame
//! with their timestamps ([`Pass`](pass::Pass), `Recorder`).

pub(crate) mod adapter;
pub(crate) mod context;
pub(crate) mod pass;
