// Pair control: one invocation, after the candidate scan. Clamps the candidate total to the
// candidate buffer's capacity (the host sees the unclamped total, grows the buffer and reruns,
// or, past what one binding holds, runs the rest in batches from `candidate_base`),
// hands the count to the compaction scan (and plans its levels) and writes the indirect dispatch arguments of the SAT
// and compaction passes. Clears the narrow phase's large-pair bins (sat.wgsl).

#import constants
#import params
#import index
#import scan_plan

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> total: array<u32>; // [0] = candidate total
@group(0) @binding(2) var<storage, read_write> control: array<u32>;
@group(0) @binding(3) var<storage, read_write> large: array<u32>; // see sat.wgsl

@compute @workgroup_size(1)
fn main() {
    // The pairs of this batch: [base, base + capacity) of the candidate total.
    let m = min(total[0] - min(total[0], params.candidate_base), params.candidate_capacity);
    control[PAIRS] = m;
    let args = folded((m + WG - 1u) / WG, params.fold_width);
    control[PAIR_ARGS] = args.x;
    control[PAIR_ARGS + 1u] = args.y;
    control[PAIR_ARGS + 2u] = args.z;
    control[PAIR_SCAN] = m;
    plan_scan(PAIR_SCAN);
    for (var w = 0u; w <= 2u * COST_BINS; w++) {
        large[w] = 0u;
    }
}
