// The strip grid control_grid.wgsl writes at control[GRID..] (see strips.wgsl), read from the
// control buffer, which the importing shader binds as `control`.

#import strips

fn frame_grid() -> Grid {
    return Grid(
        bitcast<f32>(control[GRID]),
        bitcast<f32>(control[GRID + 1u]),
        control[GRID + 2u],
        control[GRID + 3u],
        bitcast<f32>(control[GRID + 4u]),
        bitcast<f32>(control[GRID + 5u]),
        control[GRID + 6u],
        0u
    );
}

// The strip holding height y.
fn strip(y: f32) -> u32 {
    return grid_strip(frame_grid(), y);
}

// The sort key of an entry in strip s whose AABB starts at x.
fn key(s: u32, x: f32) -> u32 {
    return grid_key(frame_grid(), s, x);
}
