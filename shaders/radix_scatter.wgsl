// Radix sort, scatter: one workgroup per 1024-key tile moves each (key, value) to its place for
// this pass's 4-bit digit. Keys are handled 128 at a time in input order; an element's rank among
// the earlier elements of its round with the same digit comes from a workgroup prefix sum of
// one-hot counters packed 8 bits per digit into a vec4<u32> (a round has at most 128 elements, so
// no field overflows). Equal digits keep their input order: the sort is stable, so the full
// 8-pass sort is deterministic.

// keep in sync with src/gpu/control.rs
const RADIX: u32 = 128u;
const ROUNDS: u32 = 8u;
const WG: u32 = 128u;

@group(0) @binding(0) var<uniform> digit: vec4<u32>; // x = shift of this pass
@group(0) @binding(1) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> keys_in: array<u32>;
@group(0) @binding(3) var<storage, read> values_in: array<u32>;
@group(0) @binding(4) var<storage, read> offsets: array<u32>; // scanned histogram
@group(0) @binding(5) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> values_out: array<u32>;

var<workgroup> prefix: array<vec4<u32>, 128>;
var<workgroup> base: array<u32, 16>;

fn field(v: vec4<u32>, d: u32) -> u32 {
    return (v[d >> 2u] >> ((d & 3u) * 8u)) & 0xffu;
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
    workgroupBarrier();
    for (var r = 0u; r < ROUNDS; r++) {
        let i = (tile * ROUNDS + r) * WG + lid;
        let valid = tile < tiles && i < n;
        var key = 0u;
        var value = 0u;
        var d = 0u;
        var one = vec4<u32>(0u);
        if valid {
            key = keys_in[i];
            value = values_in[i];
            d = (key >> digit.x) & 15u;
            one[d >> 2u] = 1u << ((d & 3u) * 8u);
        }
        prefix[lid] = one;
        workgroupBarrier();
        for (var off = 1u; off < WG; off *= 2u) {
            var v = vec4<u32>(0u);
            if lid >= off {
                v = prefix[lid - off];
            }
            workgroupBarrier();
            prefix[lid] += v;
            workgroupBarrier();
        }
        if valid {
            let dst = base[d] + field(prefix[lid] - one, d);
            keys_out[dst] = key;
            values_out[dst] = value;
        }
        workgroupBarrier();
        if lid < 16u {
            base[lid] += field(prefix[WG - 1u], lid);
        }
        workgroupBarrier();
    }
}
