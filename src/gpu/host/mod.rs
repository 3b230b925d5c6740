//! Beside the device, below the frame: host-side work on the GPU's records. `pack` turns
//! polygons into the GPU layout; `order` sorts a frame's pairs by (a, b) after the readback;
//! `events` compares two frames' sorted pairs where the GPU's events stage cannot.

pub(crate) mod events;
pub(crate) mod order;
pub(crate) mod pack;
