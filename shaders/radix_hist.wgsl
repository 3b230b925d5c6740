// Radix sort, histogram: one workgroup per 1024-key tile counts the keys of each 4-bit digit
// (at the pass's shift) and stores the counts digit-major, hist[digit * tiles + tile], so that one
// exclusive scan over the whole array gives every (digit, tile) its first output position.
// Each invocation counts its own 8 consecutive keys privately, then adds its counts to the tile's.

// keep in sync with src/gpu/control.rs
const RADIX: u32 = 128u;
const CHUNK: u32 = 8u;  // keys per invocation; TILE = WG * CHUNK = 1024
const WG: u32 = 128u;

@group(0) @binding(0) var<uniform> digit: vec4<u32>; // x = shift of this pass
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> hist: array<u32>;

var<workgroup> counts: array<atomic<u32>, 16>;

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    let n = control[RADIX];
    let tiles = control[RADIX + 1u];
    if lid < 16u {
        atomicStore(&counts[lid], 0u);
    }
    workgroupBarrier();
    var own: array<u32, 16>;
    let start = (tile * WG + lid) * CHUNK;
    if tile < tiles {
        for (var k = 0u; k < CHUNK; k++) {
            if start + k < n {
                let d = (keys[start + k] >> digit.x) & 15u;
                own[d] += 1u;
            }
        }
    }
    for (var d = 0u; d < 16u; d++) {
        if own[d] != 0u {
            atomicAdd(&counts[d], own[d]);
        }
    }
    workgroupBarrier();
    if lid < 16u && tile < tiles {
        hist[lid * tiles + tile] = atomicLoad(&counts[lid]);
    }
}
