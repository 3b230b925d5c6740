// Scan setup: one invocation. The element count n is in scan_info[0] (written by the host, or by an
// earlier pass on the GPU). Computes every level's length and the indirect dispatch arguments of
// each level (one workgroup per block, at least one so the total is always written).

#import constants
#import index

override BLOCK: u32 = 512u; // elements per workgroup, 256 * CHUNK of scan_blocks.wgsl

@group(0) @binding(0) var<storage, read_write> scan_info: array<u32>;

@compute @workgroup_size(1)
fn main() {
    var n = scan_info[0];
    let max_x = scan_info[FOLD];
    for (var l = 0u; l < SCAN_LEVELS; l++) {
        scan_info[l] = n;
        let groups = max((n + BLOCK - 1u) / BLOCK, 1u);
        let args = folded(groups, max_x);
        scan_info[SCAN_ARGS + 3u * l] = args.x;
        scan_info[SCAN_ARGS + 3u * l + 1u] = args.y;
        scan_info[SCAN_ARGS + 3u * l + 2u] = args.z;
        n = (n + BLOCK - 1u) / BLOCK;
    }
}
