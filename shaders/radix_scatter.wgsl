// Radix sort, scatter: one workgroup per 1024-key tile moves each (key, value) to its place for
// this pass's 4-bit digit. Invocation t owns keys [8t, 8t + 8) of the tile: it counts its digits
// privately, a workgroup prefix sum over those counts (16 digits packed 16 bits each into two
// vec4<u32>; a tile has at most 1024 keys, so no field overflows) gives each invocation its
// first slot per digit, and it writes its keys in order. Equal digits keep their input order:
// the sort is stable, so the whole 8-pass sort is deterministic. One prefix sum per tile keeps
// workgroup barriers, which software adapters pay dearly for, to 15 per tile.

// keep in sync with src/gpu/control.rs
const RADIX: u32 = 128u;
const CHUNK: u32 = 8u;
const WG: u32 = 128u;

@group(0) @binding(0) var<uniform> digit: vec4<u32>; // x = shift of this pass
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> keys_in: array<u32>;
@group(0) @binding(3) var<storage, read> values_in: array<u32>;
@group(0) @binding(4) var<storage, read> offsets: array<u32>; // scanned histogram
@group(0) @binding(5) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> values_out: array<u32>;

var<workgroup> low: array<vec4<u32>, 128>;  // digits 0..7, 16 bits each
var<workgroup> high: array<vec4<u32>, 128>; // digits 8..15
var<workgroup> base: array<u32, 16>;

fn field(lo: vec4<u32>, hi: vec4<u32>, d: u32) -> u32 {
    var w = hi;
    if d < 8u {
        w = lo;
    }
    return (w[(d & 7u) >> 1u] >> ((d & 1u) * 16u)) & 0xffffu;
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = wid.x + wid.y * nwg.x;
    let n = control[RADIX];
    let tiles = control[RADIX + 1u];
    if lid < 16u && tile < tiles {
        base[lid] = offsets[lid * tiles + tile];
    }
    let start = (tile * WG + lid) * CHUNK;
    var count = 0u;
    if tile < tiles && start < n {
        count = min(CHUNK, n - start);
    }
    var own_lo = vec4<u32>(0u);
    var own_hi = vec4<u32>(0u);
    for (var k = 0u; k < count; k++) {
        let d = (keys_in[start + k] >> digit.x) & 15u;
        let add = 1u << ((d & 1u) * 16u);
        if d < 8u {
            own_lo[d >> 1u] += add;
        } else {
            own_hi[(d - 8u) >> 1u] += add;
        }
    }
    low[lid] = own_lo;
    high[lid] = own_hi;
    workgroupBarrier();
    for (var off = 1u; off < WG; off *= 2u) {
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
    let before_lo = low[lid] - own_lo;
    let before_hi = high[lid] - own_hi;
    var next: array<u32, 16>;
    for (var d = 0u; d < 16u; d++) {
        next[d] = base[d] + field(before_lo, before_hi, d);
    }
    for (var k = 0u; k < count; k++) {
        let key = keys_in[start + k];
        let d = (key >> digit.x) & 15u;
        keys_out[next[d]] = key;
        values_out[next[d]] = values_in[start + k];
        next[d] += 1u;
    }
}
