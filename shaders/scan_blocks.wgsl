// Scan, up-sweep: each workgroup turns one 512-element block of `data` into its exclusive prefix
// sum in place and stores the block's total in `sums`. The host runs it level by level: level 0
// scans the input, level l + 1 scans the block totals of level l; the single block of the top
// level stores the grand total.

@group(0) @binding(0) var<uniform> level: vec4<u32>; // x = level index
@group(0) @binding(1) var<storage, read> scan_info: array<u32>;   // scan_info[l] = length of level l
@group(0) @binding(2) var<storage, read_write> data: array<u32>;
@group(0) @binding(3) var<storage, read_write> sums: array<u32>;

const WG: u32 = 256u;
var<workgroup> partial: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = scan_info[level.x];
    let block = wid.x + wid.y * nwg.x;
    let i0 = block * 2u * WG + 2u * lid;
    var x0 = 0u;
    var x1 = 0u;
    if i0 < n {
        x0 = data[i0];
    }
    if i0 + 1u < n {
        x1 = data[i0 + 1u];
    }
    partial[lid] = x0 + x1;
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
    let inclusive = partial[lid];
    let exclusive = inclusive - x0 - x1;
    if i0 < n {
        data[i0] = exclusive;
    }
    if i0 + 1u < n {
        data[i0 + 1u] = exclusive + x0;
    }
    if lid == WG - 1u && block * 2u * WG < max(n, 1u) {
        sums[block] = inclusive;
    }
}
