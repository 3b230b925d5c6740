// Planning a scan (scan.rs) on the GPU: from the length in word 0 of its control region, every
// level's length and the indirect dispatch arguments of each level (one workgroup per block, at
// least one so the total is always written). scan_setup.wgsl does this for a scan on its own;
// the control kernels that hand a scan its length (control_grid, control_entries, control_pairs)
// do it on the spot, which saves the scan its setup dispatch. The caller binds the control buffer,
// or one region of it, as `control`.

#import index

override BLOCK: u32 = 512u; // elements per workgroup, 256 * CHUNK of scan_blocks.wgsl

fn plan_scan(region: u32) {
    var n = control[region];
    let max_x = control[region + FOLD];
    for (var l = 0u; l < SCAN_LEVELS; l++) {
        control[region + l] = n;
        let groups = max((n + BLOCK - 1u) / BLOCK, 1u);
        let args = folded(groups, max_x);
        control[region + SCAN_ARGS + 3u * l] = args.x;
        control[region + SCAN_ARGS + 3u * l + 1u] = args.y;
        control[region + SCAN_ARGS + 3u * l + 2u] = args.z;
        n = (n + BLOCK - 1u) / BLOCK;
    }
}
