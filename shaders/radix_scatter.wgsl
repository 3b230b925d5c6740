// Radix sort, scatter: one workgroup per tile of RADIX_WG * CHUNK keys moves each (key, value) to its
// place for this pass's 4-bit digit. Invocation t owns CHUNK consecutive keys of the tile: it
// counts its digits into 16-bit fields (16 digits packed in two vec4<u32>; a tile has at most
// 4096 keys, so no field overflows), a workgroup prefix sum over those counts gives each
// invocation its first slot per digit, and it writes its keys in order. Equal digits keep their
// input order: the sort is stable, so the whole multi-pass sort is deterministic. One prefix sum
// per tile keeps workgroup barriers, which software adapters pay dearly for, to 15 per tile.

#import constants
#import index
#import digits

@group(0) @binding(0) var<uniform> digit: vec4<u32>; // x = shift of this pass
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> keys_in: array<u32>;
@group(0) @binding(3) var<storage, read> values_in: array<u32>;
@group(0) @binding(4) var<storage, read> offsets: array<u32>; // scanned histogram
@group(0) @binding(5) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> values_out: array<u32>;

var<workgroup> base: array<u32, 16>;

@compute @workgroup_size(RADIX_WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = tile_index(wid, nwg);
    let n = control[RADIX];
    let tiles = control[RADIX + 1u];
    if lid < 16u && tile < tiles {
        base[lid] = offsets[lid * tiles + tile];
    }
    let start = (tile * RADIX_WG + lid) * CHUNK;
    var count = 0u;
    if tile < tiles && start < n {
        count = min(CHUNK, n - start);
    }
    var own_lo = vec4<u32>(0u);
    var own_hi = vec4<u32>(0u);
    for (var k = 0u; k < count; k++) {
        let d = (keys_in[start + k] >> digit.x) & 15u;
        let bit = one_hot(d);
        if d < 8u {
            own_lo += bit;
        } else {
            own_hi += bit;
        }
    }
    low[lid] = own_lo;
    high[lid] = own_hi;
    workgroupBarrier();
    for (var off = 1u; off < RADIX_WG; off *= 2u) {
        var lo = vec4<u32>(0u);
        var hi = vec4<u32>(0u);
        if lid >= off {
            lo = low[lid - off];
            hi = high[lid - off];
        }
        workgroupBarrier();
        low[lid] += lo;
        high[lid] += hi;
        workgroupBarrier();
    }
    // Slots taken by earlier invocations, then by this invocation's earlier keys.
    var run_lo = low[lid] - own_lo;
    var run_hi = high[lid] - own_hi;
    for (var k = 0u; k < count; k++) {
        let key = keys_in[start + k];
        let d = (key >> digit.x) & 15u;
        let dst = base[d] + field(run_lo, run_hi, d);
        keys_out[dst] = key;
        values_out[dst] = values_in[start + k];
        let bit = one_hot(d);
        if d < 8u {
            run_lo += bit;
        } else {
            run_hi += bit;
        }
    }
}
