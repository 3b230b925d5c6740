// Small sort: for worlds of at most SMALL_SORT entries, each strip entry counts the entries that
// sort before it (a smaller key, or an equal key and a smaller index) and is written at that rank, into the radix sort's scratch buffers. A stable sort in one dispatch with no
// barrier: O(n^2) comparisons, which for a few thousand entries cost less on a software adapter
// than the 21 dispatches of the radix sort (src/gpu/stages/sort.rs). rank_gather.wgsl moves the result
// back and gathers the boxes.

#import constants
#import index

@group(0) @binding(0) var<storage, read> control: array<u32>;       // [ENTRIES] = entries to sort
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> values: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(4) var<storage, read_write> values_out: array<u32>;

// Each invocation ranks PER entries (PER * t .. PER * t + PER - 1), so every key loaded serves
// PER comparisons (measured 10 to 30 % faster than one entry per invocation on lavapipe), and
// every invocation runs the same loop, so the lanes of a SIMD software adapter stay together.
// The dispatch is the per-entry one; invocations past n / PER return at once.
const PER: u32 = 4u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_index(gid, nwg) * PER;
    let n = control[ENTRIES];
    if first >= n {
        return;
    }
    // Only the low KEY_BITS bits order the entries, as in the radix sort.
    let mask = (1u << KEY_BITS) - 1u;
    var key: array<u32, 4>;
    var rank: array<u32, 4>;
    for (var e = 0u; e < PER; e++) {
        key[e] = keys[min(first + e, n - 1u)] & mask;
        rank[e] = 0u;
    }
    for (var j = 0u; j < n; j++) {
        let other = keys[j] & mask;
        for (var e = 0u; e < PER; e++) {
            rank[e] += select(0u, 1u, other < key[e] || (other == key[e] && j < first + e));
        }
    }
    for (var e = 0u; e < PER; e++) {
        if first + e < n {
            keys_out[rank[e]] = keys[first + e];
            values_out[rank[e]] = values[first + e];
        }
    }
}
