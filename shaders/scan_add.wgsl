// Scan, down-sweep: adds the scanned total of all earlier blocks (level l + 1) to every element
// of each block of level l. Same dispatch shape and CHUNK as scan_blocks.wgsl.

#import constants
#import index
#import scan


@compute @workgroup_size(SCAN_WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = scan_info[level.x];
    let block = tile_index(wid, nwg);
    let start = (block * SCAN_WG + lid) * CHUNK;
    if start >= n {
        return;
    }
    let add = sums[block];
    for (var k = 0u; k < min(CHUNK, n - start); k++) {
        data[start + k] += add;
    }
}
