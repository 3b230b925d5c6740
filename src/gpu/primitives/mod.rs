//! Layer 3, the GPU primitives: a prefix sum and a stable radix sort, each owning its pipelines'
//! bind groups and scratch, knowing nothing of collisions, and each tested alone against a CPU
//! model.

pub(crate) mod radix;
pub(crate) mod scan;
