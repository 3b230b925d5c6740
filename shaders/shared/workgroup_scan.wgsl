// The one workgroup prefix sum of the scan kernels (scan_blocks.wgsl), the crowd model's cell
// scan (cfsm.wgsl) and the neighbours' row scan (neighbours.wgsl): over a workgroup of SCAN_WG
// invocations, invocation t gets the sum of `own` of invocations 0 to t (inclusive;
// Hillis-Steele, 17 workgroup barriers). Every invocation of the workgroup calls it, in uniform
// control flow; calls may follow each other.

var<workgroup> scan_partial: array<u32, SCAN_WG>;

fn workgroup_scan(t: u32, own: u32) -> u32 {
    scan_partial[t] = own;
    workgroupBarrier();
    for (var off = 1u; off < SCAN_WG; off *= 2u) {
        var v = 0u;
        if t >= off {
            v = scan_partial[t - off];
        }
        workgroupBarrier();
        scan_partial[t] += v;
        workgroupBarrier();
    }
    return scan_partial[t];
}
