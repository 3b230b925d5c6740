// Scan, up-sweep: each workgroup turns one block of 256 * CHUNK elements of `data` into its
// exclusive prefix sum in place and stores the block's total in `sums`. Each invocation sums its
// own CHUNK consecutive elements serially, a workgroup prefix sum over those sums gives its
// offset, and it writes its elements' prefixes: 17 workgroup barriers per block. The host runs it
// level by level: level 0 scans the input, level l + 1 scans the block totals of level l; the
// single block of the top level stores the grand total.

#import constants
#import index
#import scan
#import workgroup_scan

@compute @workgroup_size(SCAN_WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = scan_info[level.x];
    let block = tile_index(wid, nwg);
    let start = (block * SCAN_WG + lid) * CHUNK;
    var count = 0u;
    if start < n {
        count = min(CHUNK, n - start);
    }
    var own = 0u;
    for (var k = 0u; k < count; k++) {
        own += data[start + k];
    }
    let inclusive = workgroup_scan(lid, own);
    var running = inclusive - own;
    for (var k = 0u; k < count; k++) {
        let x = data[start + k];
        data[start + k] = running;
        running += x;
    }
    if lid == SCAN_WG - 1u && block * SCAN_WG * CHUNK < max(n, 1u) {
        sums[block] = inclusive;
    }
}
