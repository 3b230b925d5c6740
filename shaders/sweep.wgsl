// Sweep pass of the strip broad phase: one invocation per sorted entry i (strip s, body a). Walks
// forward through the entries of the same strip while their quantised min.x is not past a's max.x,
// and keeps the bodies whose AABBs overlap a's (closed intervals: touching boxes are candidates).
// A pair that shares several strips is kept only in the strip holding the larger of the two
// min.y, so each overlapping pair is found exactly once, from its first entry in that strip.
//
// Run twice with the same loop: with WRITE = false it stores how many candidates entry i has; the
// scan turns those into offsets; with WRITE = true it writes entry i's pairs at its offset. The
// output order is fixed by the sort, with no atomics, and every write is guarded by the capacity.
//
// Mesa's software adapters (llvmpipe, lavapipe) end every loop of an invocation once its loops
// have run 65,535 iterations in all (loops.wgsl). A walk cut there is flagged in the word after
// the counts, which the host reads with the totals and reports as an error: never taken as
// complete.

#import constants
#import params
#import index
#import count_or_write
#import grid
#import filter
#import loops

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> keys: array<u32>;   // sorted
@group(0) @binding(3) var<storage, read> values: array<u32>; // body of each entry
@group(0) @binding(4) var<storage, read> boxes: array<vec4<f32>>; // AABB of each sorted entry
@group(0) @binding(5) var<storage, read_write> counts: array<u32>; // per entry: count, then offset; then the cut flag
@group(0) @binding(6) var<storage, read_write> candidates: array<vec2<u32>>; // (a, b), a < b
@group(0) @binding(7) var<storage, read> filters: array<vec4<u32>>; // per body, read if FILTERED

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    let n = control[ENTRIES];
    if i >= n {
        return;
    }
    let a = values[i];
    let box_a = boxes[i];
    let s = keys[i] >> control[GRID + 3u];
    let end = key(s, box_a.z);
    var filter_a = vec4<u32>(0u);
    if FILTERED {
        filter_a = filters[a];
    }
    var found = 0u;
    var out = 0u;
    if WRITE {
        out = counts[i];
    }
    for (var j = i + 1u; j < n; j++) {
        if keys[j] > end {
            break;
        }
        let box_b = boxes[j];
        let overlap = box_b.x <= box_a.z && box_a.x <= box_b.z && box_b.y <= box_a.w && box_a.y <= box_b.w;
        // Filtered pairs never become candidates, so they cost no narrow phase.
        if overlap && strip(max(box_a.y, box_b.y)) == s && (!FILTERED || may_collide(filter_a, filters[values[j]])) {
            if WRITE {
                let b = values[j];
                let slot = out + found;
                // Only the pairs of this batch, [base, base + capacity), are written.
                let local = slot - params.candidate_base;
                if slot >= params.candidate_base && local < params.candidate_capacity {
                    candidates[local] = vec2<u32>(min(a, b), max(a, b));
                }
            }
            found++;
        }
    }
    if !WRITE {
        counts[i] = found;
        if loops_cut(params.two) {
            counts[arrayLength(&counts) - 1u] = 1u;
        }
    }
}
