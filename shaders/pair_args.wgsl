// Pair arguments: one invocation. Reads the broad phase's candidate total, clamps it to the
// candidate buffer's capacity (the host sees the unclamped total, grows the buffer and reruns),
// hands the count to the compaction scan and writes the indirect dispatch arguments of the SAT
// and compaction passes.

// keep in sync with GpuParams in src/gpu/layout.rs
struct Params {
    n_bodies: u32,
    n_padded: u32,
    max_candidates: u32,
    fold_width: u32,      // most workgroups per dispatch dimension; more fold into y
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> total: array<u32>;          // [0] = candidate total
@group(0) @binding(2) var<storage, read_write> pair_meta: array<u32>; // compaction scan: [0] = n
@group(0) @binding(3) var<storage, read_write> dispatch: array<u32>;  // (x, y, z) for 64-wide passes

const WG: u32 = 64u;

@compute @workgroup_size(1)
fn main() {
    let m = min(total[0], params.max_candidates);
    pair_meta[0] = m;
    let groups = (m + WG - 1u) / WG;
    dispatch[0] = min(groups, params.fold_width);
    dispatch[1] = (groups + params.fold_width - 1u) / params.fold_width;
    dispatch[2] = 1u;
}
