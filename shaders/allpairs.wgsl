// All-pairs broad phase, for small scenes and as a cross-check of the strip sweep: one invocation
// per body a tests every body b > a (closed intervals: touching boxes are candidates). Counting and
// writing work as in sweep.wgsl (WRITE = false counts, the scan makes offsets, WRITE = true writes
// at the offset, guarded by the capacity), so the output order is by a, then b.
//
// In a periodic box, b's box is tried where it is and a box either side along each wrapping axis:
// the World keeps every body narrower than half the box, so at most one of them meets a's, and the
// candidate names it (candidate.wgsl).

#import constants
#import params
#import index
#import count_or_write
#import filter
#import image

@group(0) @binding(0) var<uniform> params: Params;
#paged instances 1 read aabbs vec4<f32>
@group(0) @binding(2) var<storage, read_write> counts: array<u32>; // per body: count, then offset
@group(0) @binding(3) var<storage, read_write> candidates: array<vec2<u32>>;
#paged instances 4 read filters vec4<u32> // per body, read if FILTERED
@group(0) @binding(5) var<storage, read> worlds: array<u32>; // per body, read if params.worlds > 1

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let a = linear_index(gid, nwg);
    let n = params.n_bodies;
    if a >= n {
        return;
    }
    let box_a = aabbs_at(a);
    var found = 0u;
    var out = 0u;
    if WRITE {
        out = counts[a];
    }
    for (var b = a + 1u; b < n; b++) {
        let box_b = aabbs_at(b);
        var overlap = box_b.x <= box_a.z && box_a.x <= box_b.z && box_b.y <= box_a.w && box_a.y <= box_b.w;
        var image = 0u;
        if params.wrap != 0u {
            image = image_meeting(box_a, box_b);
            overlap = image != NO_IMAGE;
        }
        let apart = params.worlds > 1u && worlds[a] != worlds[b];
        if overlap && !apart && (!FILTERED || may_collide(filters_at(a), filters_at(b))) {
            if WRITE {
                let slot = out + found;
                // Only the pairs of this batch, [base, base + capacity), are written.
                let local = slot - params.candidate_base;
                if slot >= params.candidate_base && local < params.candidate_capacity {
                    candidates[local] = vec2<u32>(a, b | (image << BODY_BITS));
                }
            }
            found++;
        }
    }
    if !WRITE {
        counts[a] = found;
    }
}
