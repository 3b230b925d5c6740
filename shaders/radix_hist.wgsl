// Radix sort, histogram: one workgroup per 1024-key tile counts the keys of each 4-bit digit
// (at the pass's shift) and stores the counts digit-major, hist[digit * tiles + tile], so that one
// exclusive scan over the whole array gives every (digit, tile) its first output position.

// keep in sync with src/gpu/control.rs
const RADIX: u32 = 128u;
const ROUNDS: u32 = 8u; // TILE = WG * ROUNDS = 1024
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
    for (var r = 0u; r < ROUNDS; r++) {
        let i = (tile * ROUNDS + r) * WG + lid;
        if tile < tiles && i < n {
            atomicAdd(&counts[(keys[i] >> digit.x) & 15u], 1u);
        }
    }
    workgroupBarrier();
    if lid < 16u && tile < tiles {
        hist[lid * tiles + tile] = atomicLoad(&counts[lid]);
    }
}
