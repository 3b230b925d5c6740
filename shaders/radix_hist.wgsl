// Radix sort, histogram: one workgroup per tile of RADIX_WG * CHUNK keys counts the keys of each 4-bit
// digit (at the pass's shift) and stores the counts digit-major, hist[digit * tiles + tile], so
// that one exclusive scan over the whole array gives every (digit, tile) its first output slot.
// Each invocation counts its own CHUNK consecutive keys into 16-bit fields (16 digits packed in
// two vec4<u32>), then 16 invocations sum the fields: two workgroup barriers per tile.

#import constants
#import index
#import digits

@group(0) @binding(0) var<uniform> digit: vec4<u32>; // x = shift of this pass
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> hist: array<u32>;


@compute @workgroup_size(RADIX_WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = tile_index(wid, nwg);
    let n = control[RADIX];
    let tiles = control[RADIX + 1u];
    let start = (tile * RADIX_WG + lid) * CHUNK;
    var count = 0u;
    if tile < tiles && start < n {
        count = min(CHUNK, n - start);
    }
    var lo = vec4<u32>(0u);
    var hi = vec4<u32>(0u);
    for (var k = 0u; k < count; k++) {
        let d = (keys[start + k] >> digit.x) & 15u;
        let bit = one_hot(d);
        if d < 8u {
            lo += bit;
        } else {
            hi += bit;
        }
    }
    low[lid] = lo;
    high[lid] = hi;
    workgroupBarrier();
    if lid < 16u && tile < tiles {
        var sum = 0u;
        for (var t = 0u; t < RADIX_WG; t++) {
            sum += field(low[t], high[t], lid);
        }
        hist[lid * tiles + tile] = sum;
    }
}
