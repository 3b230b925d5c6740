// The strip grid control_grid.wgsl writes at control[GRID..] and its map at control[GRID_MAP..]
// (see strips.wgsl), read from the control buffer, which the importing shader binds as
// `control`. Each function loads only the words it uses (the sweep calls strip() in its inner
// loop).

#import strips

fn grid_map(w: u32) -> u32 {
    return control[GRID_MAP + w];
}

// The strip holding height y.
fn strip(y: f32) -> u32 {
    let g = Grid(bitcast<f32>(control[GRID]), bitcast<f32>(control[GRID + 1u]), control[GRID + 2u], 0u, 0.0, 0.0, 0u, 0u);
    return grid_strip(g, y);
}

// The sort key of an entry in strip s whose AABB starts at x.
fn key(s: u32, x: f32) -> u32 {
    let g = Grid(
        0.0,
        0.0,
        0u,
        control[GRID + 3u],
        bitcast<f32>(control[GRID + 4u]),
        bitcast<f32>(control[GRID + 5u]),
        control[GRID + 6u],
        0u
    );
    return grid_key(g, s, x);
}
