//! Layer 1, the kernels: the WGSL composer and the pipelines built from it, with everything Rust
//! and WGSL must agree on (the shared constants, the control buffer's word offsets, the GPU
//! records) and the buffer helpers. Knows no device beyond a `wgpu::Device`, and nothing of the
//! frame's stages.

pub(crate) mod bindings;
pub(crate) mod buffers;
pub(crate) mod control;
pub mod layout;
pub(crate) mod pipelines;
pub(crate) mod shaders;
pub(crate) mod shared;
