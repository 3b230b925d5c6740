// Radix sort, histogram: one workgroup per tile of WG * CHUNK keys counts the keys of each 4-bit
// digit (at the pass's shift) and stores the counts digit-major, hist[digit * tiles + tile], so
// that one exclusive scan over the whole array gives every (digit, tile) its first output slot.
// Each invocation counts its own CHUNK consecutive keys into 16-bit fields (16 digits packed in
// two vec4<u32>), then 16 invocations sum the fields: two workgroup barriers per tile.

// keep in sync with src/gpu/control.rs
const RADIX: u32 = 128u;
const WG: u32 = 128u;
override CHUNK: u32 = 8u; // keys per invocation (src/gpu/kernels.rs picks it per adapter)

@group(0) @binding(0) var<uniform> digit: vec4<u32>; // x = shift of this pass
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> hist: array<u32>;

var<workgroup> low: array<vec4<u32>, 128>;  // digits 0..7, 16 bits each
var<workgroup> high: array<vec4<u32>, 128>; // digits 8..15

// keep in sync with radix_scatter.wgsl
fn one_hot(d: u32) -> vec4<u32> {
    let bit = 1u << ((d & 1u) * 16u);
    let c = (d & 7u) >> 1u;
    return vec4<u32>(select(0u, bit, c == 0u), select(0u, bit, c == 1u), select(0u, bit, c == 2u),
                     select(0u, bit, c == 3u));
}

fn field(lo: vec4<u32>, hi: vec4<u32>, d: u32) -> u32 {
    let w = select(hi, lo, d < 8u);
    let c = (d & 7u) >> 1u;
    let word = select(select(w.w, w.z, c == 2u), select(w.y, w.x, c == 0u), c < 2u);
    return (word >> ((d & 1u) * 16u)) & 0xffffu;
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    let n = control[RADIX];
    let tiles = control[RADIX + 1u];
    let start = (tile * WG + lid) * CHUNK;
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
        for (var t = 0u; t < WG; t++) {
            sum += field(low[t], high[t], lid);
        }
        hist[lid * tiles + tile] = sum;
    }
}
