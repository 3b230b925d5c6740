// Radix sort of a short length (at most 65,535 keys; Tuning::tile_keys picks the sorts that use
// it) in one workgroup and one dispatch: every 4-bit pass of the multi-tile sort (radix_hist.wgsl,
// the histogram scan, radix_scatter.wgsl) runs here in turn, with workgroup and storage barriers
// in place of dispatch boundaries. Each pass counts each invocation's run of consecutive keys per
// digit, takes a workgroup prefix sum over the invocations, and writes the keys in order of
// digit, then of input position: stable, as the multi-tile sort, so the result is the same. Passes
// alternate between (keys, values) and the scratch pair; an even number of passes leaves the
// result in (keys, values). On software adapters this replaces 3 dispatches per pass and 2 of
// setup (about 20 for 24-bit keys) by one.

#import constants
#import digits

// TILE_WG: few invocations with long chunks. A software adapter runs the one workgroup on one
// core and pays for every barrier per group of invocations, and the prefix sum over invocations
// takes 2 * log2(TILE_WG) barriers a pass.

var<workgroup> tile_low: array<vec4<u32>, TILE_WG>;  // digits 0..7, 16 bits each
var<workgroup> tile_high: array<vec4<u32>, TILE_WG>; // digits 8..15

@group(0) @binding(0) var<uniform> shape: vec4<u32>; // x = passes
@group(0) @binding(1) var<storage, read> control: array<u32>; // [RADIX] = length
@group(0) @binding(2) var<storage, read_write> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;
@group(0) @binding(4) var<storage, read_write> keys_b: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_b: array<u32>;

var<workgroup> first: array<u32, 16>; // each digit's first slot in this pass

// Key i of the pass's input: (keys, values) on even passes, the scratch pair on odd ones.
fn key_in(odd: bool, i: u32) -> u32 {
    if odd {
        return keys_b[i];
    }
    return keys[i];
}

fn move_to(odd: bool, src: u32, dst: u32, key: u32) {
    if odd {
        keys[dst] = key;
        values[dst] = values_b[src];
    } else {
        keys_b[dst] = key;
        values_b[dst] = values[src];
    }
}

@compute @workgroup_size(TILE_WG)
fn main(@builtin(local_invocation_index) lid: u32) {
    // Every invocation takes an equal run of consecutive keys, whatever the length.
    let n = control[RADIX];
    let chunk = (n + TILE_WG - 1u) / TILE_WG;
    let start = lid * chunk;
    let count = select(0u, min(chunk, n - start), start < n);
    for (var p = 0u; p < shape.x; p++) {
        let odd = (p & 1u) == 1u;
        let shift = 4u * p;
        var own_lo = vec4<u32>(0u);
        var own_hi = vec4<u32>(0u);
        for (var k = 0u; k < count; k++) {
            let d = (key_in(odd, start + k) >> shift) & 15u;
            let bit = one_hot(d);
            if d < 8u {
                own_lo += bit;
            } else {
                own_hi += bit;
            }
        }
        tile_low[lid] = own_lo;
        tile_high[lid] = own_hi;
        workgroupBarrier();
        for (var off = 1u; off < TILE_WG; off *= 2u) {
            var lo = vec4<u32>(0u);
            var hi = vec4<u32>(0u);
            if lid >= off {
                lo = tile_low[lid - off];
                hi = tile_high[lid - off];
            }
            workgroupBarrier();
            tile_low[lid] += lo;
            tile_high[lid] += hi;
            workgroupBarrier();
        }
        // The last invocation's inclusive sums are the tile's digit totals.
        if lid == 0u {
            var slot = 0u;
            for (var d = 0u; d < 16u; d++) {
                first[d] = slot;
                slot += field(tile_low[TILE_WG - 1u], tile_high[TILE_WG - 1u], d);
            }
        }
        workgroupBarrier();
        var run_lo = tile_low[lid] - own_lo;
        var run_hi = tile_high[lid] - own_hi;
        for (var k = 0u; k < count; k++) {
            let key = key_in(odd, start + k);
            let d = (key >> shift) & 15u;
            move_to(odd, start + k, first[d] + field(run_lo, run_hi, d), key);
            let bit = one_hot(d);
            if d < 8u {
                run_lo += bit;
            } else {
                run_hi += bit;
            }
        }
        // Every write of this pass lands before the next pass reads, and every read of `tile_low`
        // and `first` before the next pass writes them.
        storageBarrier();
        workgroupBarrier();
    }
}
