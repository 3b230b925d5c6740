//! `#[repr(C)]` twins of the structs the shaders read and write. Each WGSL struct carries a
//! comment naming its twin here; the size assertions catch a field added on one side only.

use bytemuck::{Pod, Zeroable};

/// Where a body's shape and world-space vertices live (shaders: `Body`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct GpuBody {
    /// First vertex of the body's shape in the shape buffer.
    pub shape_start: u32,
    /// Number of vertices.
    pub count: u32,
    /// First vertex of the body in the world buffer.
    pub world_start: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// Per-world constants (shaders: `Params`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct GpuParams {
    /// Number of bodies.
    pub n_bodies: u32,
    /// Power of two >= n_bodies: the length of the sort.
    pub n_padded: u32,
    /// Capacity of the candidate buffer.
    pub max_candidates: u32,
    /// Most workgroups per dispatch dimension; larger dispatches fold into y.
    pub fold_width: u32,
}

/// One bitonic sort step (sort.wgsl: `Step`), stored at a 256-byte stride for dynamic offsets.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub struct GpuSortStep {
    /// Size of the bitonic sequences being merged.
    pub k: u32,
    /// Compare distance.
    pub j: u32,
    /// Number of compare-exchanges (half the padded length).
    pub half: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// A colliding pair as the GPU leaves it in [`World::contacts_buffer`](super::World::contacts_buffer)
/// (compact.wgsl: `Contact`): `a < b`, unit normal from a to b, depth >= 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuContact {
    /// Lower body index.
    pub a: u32,
    /// Higher body index.
    pub b: u32,
    /// Normal, x component.
    pub normal_x: f32,
    /// Normal, y component.
    pub normal_y: f32,
    /// Penetration depth.
    pub depth: f32,
    /// Padding.
    pub pad: u32,
}

const _: () = assert!(std::mem::size_of::<GpuBody>() == 16);
const _: () = assert!(std::mem::size_of::<GpuParams>() == 16);
const _: () = assert!(std::mem::size_of::<GpuSortStep>() == 16);
const _: () = assert!(std::mem::size_of::<GpuContact>() == 24);

/// Bytes per candidate pair across the per-candidate buffers: the pair (8), the SAT result (16),
/// the flag/offset (4) and the contact slot (24).
pub const BYTES_PER_CANDIDATE: u64 = 8 + 16 + 4 + 24;
