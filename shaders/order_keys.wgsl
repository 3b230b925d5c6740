// GPU ordering by (a, b), step 1, in place of the compaction's write (compact.wgsl): one invocation
// per tested candidate. After the scan, offsets[i] is the number of colliding pairs before
// candidate i; each colliding pair writes its first sort key and its candidate index at that
// offset. The key is (a << shift) | b when both indices fit 32 bits together, otherwise b alone
// (a second sort by a follows, order_gather.wgsl). The last invocation hands the colliding count
// to the sort (order[RADIX]) and writes the same dispatch arguments as the compaction.

#import constants
#import index
#import candidate

@group(0) @binding(0) var<storage, read> control: array<u32>; // [PAIRS] = candidates tested
@group(0) @binding(1) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> results: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> order: array<u32>; // the sort's control buffer
@group(0) @binding(5) var<storage, read_write> keys: array<u32>;
@group(0) @binding(6) var<storage, read_write> values: array<u32>;
@group(0) @binding(7) var<storage, read_write> contact_args: array<u32, 4>; // (x, y, z, colliding)

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= control[PAIRS] {
        return;
    }
    let hit = results[i].w != 0.0;
    if i + 1u == control[PAIRS] {
        let colliding = offsets[i] + select(0u, 1u, hit);
        let args = folded((colliding + WG - 1u) / WG, control[PAIR_SCAN + FOLD]);
        contact_args[0] = args.x;
        contact_args[1] = args.y;
        contact_args[2] = args.z;
        contact_args[3] = colliding;
        order[RADIX] = colliding;
    }
    if hit {
        let pair = candidate_bodies(candidates[i]);
        let one_sort = order[ORDER_SHIFT] < 32u;
        keys[offsets[i]] = select(pair.y, (pair.x << order[ORDER_SHIFT]) | pair.y, one_sort);
        values[offsets[i]] = i;
    }
}
