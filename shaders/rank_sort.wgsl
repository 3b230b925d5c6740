// Small sort: for worlds of at most SMALL_SORT entries, one invocation per strip entry counts the
// entries that sort before it (a smaller key, or an equal key and a smaller index) and writes its
// entry at that rank, into the radix sort's scratch buffers. A stable sort in one dispatch with no
// barrier: O(n^2) comparisons, which for a few thousand entries cost less on a software adapter
// than the 21 dispatches of the radix sort (src/gpu/sort.rs). rank_gather.wgsl moves the result
// back and gathers the boxes.

#import constants
#import index

@group(0) @binding(0) var<storage, read> control: array<u32>;       // [ENTRIES] = entries to sort
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> values: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(4) var<storage, read_write> values_out: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    let n = control[ENTRIES];
    if i >= n {
        return;
    }
    // Only the low KEY_BITS bits order the entries, as in the radix sort.
    let mask = (1u << KEY_BITS) - 1u;
    let key = keys[i] & mask;
    var rank = 0u;
    for (var j = 0u; j < i; j++) {
        rank += select(0u, 1u, (keys[j] & mask) <= key);
    }
    for (var j = i + 1u; j < n; j++) {
        rank += select(0u, 1u, (keys[j] & mask) < key);
    }
    keys_out[rank] = keys[i];
    values_out[rank] = values[i];
}
