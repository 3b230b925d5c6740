// Contact events, setup (src/gpu/stages/events.rs, before events.wgsl): one invocation reads this
// frame's pair count and the previous frame's, then writes the lengths, the plan of the scan over
// both lists' flags (one element more than the pairs, so its last offset is the total), the
// dispatch arguments of the per-pair passes, and the count of the list this frame writes.

#import constants
#import index
#import scan_plan

@group(0) @binding(0) var<storage, read_write> control: array<u32>; // the events stage's own
@group(0) @binding(1) var<storage, read> contact_args: array<u32, 4>; // (x, y, z, colliding)
@group(0) @binding(2) var<storage, read> prev: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read_write> next: array<vec2<u32>>;

@compute @workgroup_size(1)
fn main() {
    let n_cur = contact_args[3];
    let n_prev = prev[0].x;
    control[EVENT_CURRENT] = n_cur;
    control[EVENT_LENGTH] = n_cur + n_prev;
    control[PAIR_SCAN] = n_cur + n_prev + 1u;
    plan_scan(PAIR_SCAN);
    let args = folded((n_cur + n_prev + 1u + WG - 1u) / WG, control[PAIR_SCAN + FOLD]);
    control[EVENT_ARGS] = args.x;
    control[EVENT_ARGS + 1u] = args.y;
    control[EVENT_ARGS + 2u] = args.z;
    next[0] = vec2<u32>(n_cur, 0u);
}
