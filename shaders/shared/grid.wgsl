// The strip grid control_grid.wgsl writes at control[GRID..]: y0, strips per unit y, strips, key
// bits for x, x0, x buckets per unit x, x bits kept. The importing shader binds `control`.

// The strip holding height y.
fn strip(y: f32) -> u32 {
    let s = floor((y - bitcast<f32>(control[GRID])) * bitcast<f32>(control[GRID + 1u]));
    return min(u32(max(s, 0.0)), control[GRID + 2u] - 1u);
}

// The sort key of an entry in strip s whose AABB starts at x: strip in the high bits, x
// quantised below it.
fn key(s: u32, x: f32) -> u32 {
    let x_bits = control[GRID + 3u];
    let kept = control[GRID + 6u];
    let max_q = f32((1u << kept) - 1u);
    let q = u32(clamp(floor((x - bitcast<f32>(control[GRID + 4u])) * bitcast<f32>(control[GRID + 5u])), 0.0, max_q));
    return (s << x_bits) | (q << (x_bits - kept));
}
