// Scan, up-sweep: each workgroup turns one block of 256 * CHUNK elements of `data` into its
// exclusive prefix sum in place and stores the block's total in `sums`. Each invocation sums its
// own CHUNK consecutive elements serially, a workgroup prefix sum over those sums gives its
// offset, and it writes its elements' prefixes: 17 workgroup barriers per block. The host runs it
// level by level: level 0 scans the input, level l + 1 scans the block totals of level l; the
// single block of the top level stores the grand total.

@group(0) @binding(0) var<uniform> level: vec4<u32>; // x = level index
@group(0) @binding(1) var<storage, read> scan_info: array<u32>; // [l] = length of level l
@group(0) @binding(2) var<storage, read_write> data: array<u32>;
@group(0) @binding(3) var<storage, read_write> sums: array<u32>;

const WG: u32 = 256u;
override CHUNK: u32 = 2u; // elements per invocation (src/gpu/kernels.rs picks it per adapter)
var<workgroup> partial: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = scan_info[level.x];
    let block = wid.x + wid.y * nwg.x;
    let start = (block * WG + lid) * CHUNK;
    var count = 0u;
    if start < n {
        count = min(CHUNK, n - start);
    }
    var own = 0u;
    for (var k = 0u; k < count; k++) {
        own += data[start + k];
    }
    partial[lid] = own;
    workgroupBarrier();
    for (var off = 1u; off < WG; off *= 2u) {
        var v = 0u;
        if lid >= off {
            v = partial[lid - off];
        }
        workgroupBarrier();
        partial[lid] += v;
        workgroupBarrier();
    }
    var running = partial[lid] - own;
    for (var k = 0u; k < count; k++) {
        let x = data[start + k];
        data[start + k] = running;
        running += x;
    }
    if lid == WG - 1u && block * WG * CHUNK < max(n, 1u) {
        sums[block] = partial[lid];
    }
}
