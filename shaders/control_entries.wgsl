// Entry control: one invocation, after the entry scan. Clamps the entry total to the capacity
// (the host reads the true total, grows the buffers and reruns when it does not fit) and hands the
// count to the radix sort, the sweep dispatches and the candidate scan.

// keep in sync with GpuParams in src/gpu/layout.rs
struct Params {
    n_bodies: u32,
    entry_capacity: u32,
    candidate_capacity: u32,
    fold_width: u32,
    strip_height: f32,
    candidate_base: u32, // first candidate of this batch (0 unless a frame runs in batches)
    pad1: u32,
    pad2: u32,
}

// keep in sync with src/gpu/control.rs
const ENTRIES: u32 = 36u;       // entries to sort and sweep
const ENTRY_ARGS: u32 = 32u;    // (x, y, z) for 64-wide passes over the entries
const RADIX: u32 = 128u;        // radix sort region: [0] = length
const CAND_SCAN: u32 = 256u;    // candidate scan region: [0] = length

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> total: array<u32>; // [0] = entry total
@group(0) @binding(2) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let e = min(total[0], params.entry_capacity);
    control[ENTRIES] = e;
    let groups = (e + 63u) / 64u;
    control[ENTRY_ARGS] = min(groups, params.fold_width);
    control[ENTRY_ARGS + 1u] = (groups + params.fold_width - 1u) / params.fold_width;
    control[ENTRY_ARGS + 2u] = 1u;
    control[RADIX] = e;
    control[CAND_SCAN] = e;
}
