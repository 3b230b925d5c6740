// Entry control: one invocation, after the entry scan. Clamps the entry total to the capacity
// (the host reads the true total, grows the buffers and reruns when it does not fit) and hands the
// count to the radix sort, the sweep dispatches and the candidate scan, whose levels it plans.

#import constants
#import params
#import index
#import scan_plan

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> total: array<u32>; // [0] = entry total
@group(0) @binding(2) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let e = min(total[0], params.entry_capacity);
    control[ENTRIES] = e;
    let args = folded((e + WG - 1u) / WG, params.fold_width);
    control[ENTRY_ARGS] = args.x;
    control[ENTRY_ARGS + 1u] = args.y;
    control[ENTRY_ARGS + 2u] = args.z;
    control[RADIX] = e;
    control[CAND_SCAN] = e;
    plan_scan(CAND_SCAN);
}
