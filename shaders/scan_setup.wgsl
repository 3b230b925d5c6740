// Scan setup: one invocation. The element count n is in scan_info[0] (written by the host, or by an
// earlier pass on the GPU). Computes every level's length and the indirect dispatch arguments of
// each level (one workgroup per block, at least one so the total is always written).

// keep in sync with ScanMeta in src/gpu/scan.rs
override BLOCK: u32 = 512u; // elements per workgroup, 256 * CHUNK of scan_blocks.wgsl
const ARGS: u32 = 16u;      // word where level 0's (x, y, z) dispatch arguments start
const FOLD: u32 = 15u;     // word holding the most workgroups per dimension; more fold into y

const LEVELS: u32 = 5u;    // enough for 512^5 elements; the host dispatches only the levels it has

@group(0) @binding(0) var<storage, read_write> scan_info: array<u32>;

@compute @workgroup_size(1)
fn main() {
    var n = scan_info[0];
    let max_x = scan_info[FOLD];
    for (var l = 0u; l < LEVELS; l++) {
        scan_info[l] = n;
        let groups = max((n + BLOCK - 1u) / BLOCK, 1u);
        scan_info[ARGS + 3u * l] = min(groups, max_x);
        scan_info[ARGS + 3u * l + 1u] = (groups + max_x - 1u) / max_x;
        scan_info[ARGS + 3u * l + 2u] = 1u;
        n = (n + BLOCK - 1u) / BLOCK;
    }
}
