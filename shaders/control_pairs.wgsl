// Pair control: one invocation, after the candidate scan. Clamps the candidate total to the
// candidate buffer's capacity (the host sees the unclamped total, grows the buffer and reruns,
// or, past what one binding holds, runs the rest in batches from `candidate_base`),
// hands the count to the compaction scan and writes the indirect dispatch arguments of the SAT
// and compaction passes.

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
const PAIRS: u32 = 24u;       // candidate pairs to test
const PAIR_ARGS: u32 = 28u;   // (x, y, z) for 64-wide passes over the pairs
const PAIR_SCAN: u32 = 320u;  // compaction scan region: [0] = length

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> total: array<u32>; // [0] = candidate total
@group(0) @binding(2) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    // The pairs of this batch: [base, base + capacity) of the candidate total.
    let m = min(total[0] - min(total[0], params.candidate_base), params.candidate_capacity);
    control[PAIRS] = m;
    let groups = (m + 63u) / 64u;
    control[PAIR_ARGS] = min(groups, params.fold_width);
    control[PAIR_ARGS + 1u] = (groups + params.fold_width - 1u) / params.fold_width;
    control[PAIR_ARGS + 2u] = 1u;
    control[PAIR_SCAN] = m;
}
