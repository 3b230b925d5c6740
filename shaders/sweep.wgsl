// Sweep pass of the strip broad phase: one invocation per sorted entry i (strip s, body a). Walks
// forward through the entries of the same strip while their quantised min.x is not past a's max.x,
// and keeps the bodies whose AABBs overlap a's (closed intervals: touching boxes are candidates).
// A pair that shares several strips is kept only in the strip holding the larger of the two
// min.y, so each overlapping pair is found exactly once, from its first entry in that strip.
//
// Run twice with the same loop: with WRITE = false it stores how many candidates entry i has; the
// scan turns those into offsets; with WRITE = true it writes entry i's pairs at its offset. The
// output order is fixed by the sort (no atomic decides anything), and every write is guarded by
// the capacity.
//
// Windows: Mesa's software adapters (llvmpipe, lavapipe) end every loop of an invocation once its
// loops have run 65,535 iterations in all (loops.wgsl), so there a walk takes at most
// `params.window_steps` steps per dispatch. Dispatch 0 starts every walk, stores the count (or
// writes the pairs at the entry's offset) and, where the walk goes on, raises the word after the
// counts to the windows the walk needs; each further dispatch, `params.window` = w, takes the
// walks' next window: adds to the count, or writes at the cursor the previous window left
// (`cursor`, after that word) and moves it. The host runs as many windows as the word asks
// (rerunning the frame where it asked for more), so the pairs and their order are those of one
// walk. A loop cut short all the same sets the word to 0xffffffff: the host refuses the answer.
//
// In a periodic box an entry may be a body's image (image.wgsl): its box is the body's moved by
// whole boxes, the pair is kept as entries_paired says, and the candidate names the image.

#import constants
#import params
#import index
#import count_or_write
#import grid
#import filter
#import loops
#import image

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> keys: array<u32>;   // sorted
@group(0) @binding(3) var<storage, read> values: array<u32>; // body of each entry (and its image bits)
#paged entries 4 read boxes vec4<f32> // AABB of each sorted entry
// Per entry its count, then its offset; then the windows word; then (windows only) the cursors.
@group(0) @binding(5) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> candidates: array<vec2<u32>>; // (a, b), a < b
#paged instances 7 read filters vec4<u32> // per body, read if FILTERED

// The first entry in [lo, hi) whose key is past `end`.
fn walk_end(end: u32, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if (keys[mid] & KEY_MASK) <= end {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    let n = control[ENTRIES];
    if i >= n {
        return;
    }
    let value_a = values[i];
    let a = value_a & BODY_MASK;
    let periodic = params.wrap != 0u;
    var box_a = boxes_at(i);
    if periodic {
        box_a = entry_box(box_a, value_a);
    }
    let s = (keys[i] & KEY_MASK) >> control[GRID + 3u];
    let end = key(s, box_a.z);
    // The pair's strip is the larger of the two bodies' first strips (strip() never decreases),
    // and neither is past this one: where a starts here every pair is kept, else those whose b
    // starts here (KEY_FIRST, entries.wgsl).
    let a_starts = (keys[i] & KEY_FIRST) != 0u;
    let steps = params.window_steps;
    let window = params.window;
    // This window's first step; past the entries (checked before the product could overflow)
    // or past the walk, nothing to do.
    var first = i + 1u;
    if window > 0u {
        if window > (n - first) / steps {
            return;
        }
        first += window * steps;
        if first >= n || (keys[first] & KEY_MASK) > end {
            return;
        }
    }
    let words = params.entry_capacity;
    var filter_a = vec4<u32>(0u);
    if FILTERED {
        filter_a = filters_at(a);
    }
    var found = 0u;
    var out = 0u;
    if WRITE {
        out = select(atomicLoad(&counts[i]), atomicLoad(&counts[words + 1u + i]), window > 0u);
    }
    var j = first;
    var taken = 0u;
    for (; j < n && taken < steps; j++) {
        let key_b = keys[j];
        if (key_b & KEY_MASK) > end {
            break;
        }
        taken++;
        var box_b = boxes_at(j);
        let value_b = values[j];
        var paired = true;
        if periodic {
            box_b = entry_box(box_b, value_b);
            paired = (value_b & BODY_MASK) != a && entries_paired(value_a, value_b);
        }
        let overlap = box_b.x <= box_a.z && box_a.x <= box_b.z && box_b.y <= box_a.w && box_a.y <= box_b.w;
        // Filtered pairs never become candidates, so they cost no narrow phase.
        if overlap && paired && (a_starts || (key_b & KEY_FIRST) != 0u) && (!FILTERED || may_collide(filter_a, filters_at(value_b & BODY_MASK))) {
            if WRITE {
                let slot = out + found;
                // Only the pairs of this batch, [base, base + capacity), are written.
                let local = slot - params.candidate_base;
                if slot >= params.candidate_base && local < params.candidate_capacity {
                    candidates[local] = entries_candidate(value_a, value_b);
                }
            }
            found++;
        }
    }
    if WRITE {
        if steps != 0xffffffffu {
            atomicStore(&counts[words + 1u + i], out + found);
        }
        return;
    }
    if window == 0u {
        atomicStore(&counts[i], found);
    } else {
        atomicAdd(&counts[i], found);
    }
    if window == 0u && j < n && (keys[j] & KEY_MASK) <= end {
        // The windows this walk needs in all.
        let length = walk_end(end, j, n) - i - 1u;
        atomicMax(&counts[words], (length - 1u) / steps + 1u);
    }
    if loops_cut(params.two) {
        atomicStore(&counts[words], 0xffffffffu);
    }
}
