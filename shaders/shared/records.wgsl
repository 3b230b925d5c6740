// The records a World leaves on the GPU for the caller's own passes, as satgpu::gpu::RECORDS_WGSL
// hands them out: one source for satgpu's kernels and the caller's (tests/shaders.rs checks them
// against the Rust types).

// A colliding pair as the compaction writes it (World::contacts_buffer); twin of GpuContact.
struct Contact {
    a: u32,
    b: u32,
    normal_x: f32,
    normal_y: f32,
    depth: f32,
    pad: u32, // 0; in a periodic box, b's image: 2 bits per axis (x low), 1 a box up, 2 down
}

// Its manifold (World::manifolds_buffer, ContactDetail::Full), at the contact's index; twin of
// GpuManifold.
struct Manifold {
    flags: u32, // bit 0: a_in_b, bit 1: b_in_a, bits 2 and up: the number of points (1 or 2)
    p1_x: f32,
    p1_y: f32,
    p1_depth: f32,
    p2_x: f32,
    p2_y: f32,
    p2_depth: f32,
    pad: u32,
}

// Words of World::totals_buffer after a frame: the totals, then the indirect dispatch arguments
// (x, y, z) of a 64-wide pass over the colliding pairs, from TOTAL_PAIR_ARGS on (byte 16).
const TOTAL_ENTRIES: u32 = 0u;
const TOTAL_CANDIDATES: u32 = 1u;
const TOTAL_COLLIDING: u32 = 2u;
// The sweep windows the frame's longest walk needs (more than run: the frame is incomplete; on
// Mesa's software adapters only), or 0xffffffff where a loop was cut short (see World::totals_buffer).
const TOTAL_NEED: u32 = 3u;
const TOTAL_PAIR_ARGS: u32 = 4u;
