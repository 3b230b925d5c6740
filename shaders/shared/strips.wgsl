// The strip grid of the broad phase as control_grid.wgsl lays it out at control[GRID..], and the
// two functions every reader of the sorted strip entries computes from it.
// Where bodies are in several worlds (World::set_worlds), each world has `strips` strips of its
// own, world w's strip s being strip w * strips + s of the sort keys, so that the entries of
// different worlds never meet.
struct Grid {
    y0: f32,     // the grid's bottom
    per_y: f32,  // strips per unit y
    strips: u32, // strips (of each world)
    x_bits: u32, // key bits for x (below the strip index)
    x0: f32,     // the grid's left edge
    per_x: f32,  // x buckets per unit x
    kept: u32,   // x bits kept
    worlds: u32, // worlds (1: one)
}

// The strip holding height y.
fn grid_strip(g: Grid, y: f32) -> u32 {
    let s = floor((y - g.y0) * g.per_y);
    return min(u32(max(s, 0.0)), g.strips - 1u);
}

// The sort key of an entry in strip s whose AABB starts at x: strip in the high bits, x
// quantised below it.
fn grid_key(g: Grid, s: u32, x: f32) -> u32 {
    let max_q = f32((1u << g.kept) - 1u);
    let q = u32(clamp(floor((x - g.x0) * g.per_x), 0.0, max_q));
    return (s << g.x_bits) | (q << (g.x_bits - g.kept));
}
