// Dispatches wider than the device's per-dimension limit fold into a 2D grid (src/gpu/mod.rs:
// dispatch); these recover the linear index.

// The invocation index of a WG-wide kernel.
fn linear_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// The workgroup index of a kernel with one workgroup per tile or block.
fn tile_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}

// Indirect dispatch arguments (x, y, z) for `groups` workgroups, at most `fold` per row.
fn folded(groups: u32, fold: u32) -> vec3<u32> {
    return vec3<u32>(min(groups, fold), (groups + fold - 1u) / fold, 1u);
}
