// The strip grid of the broad phase as control_grid.wgsl lays it out at control[GRID..], and the
// functions every reader of the sorted strip entries computes from it.
// Where bodies are in several worlds (World::set_worlds), each world has `strips` strips of its
// own, world w's strip s being strip w * strips + s of the sort keys, so that the entries of
// different worlds never meet.
//
// The grid's map (control[GRID_MAP..], read through the importer's `grid_map`): along an axis
// whose sampled centres crowd into a small part of the robust box (a scene over many orders of
// magnitude), the grid is laid out not over the coordinate but over its place among the axis's
// knots, the sampled centres sorted (the first and last: the scene's bounds): a value between
// knots k and k + 1 is at k plus its fraction of the way, so that every stretch between knots gets
// as many strips (or x buckets) as any other. The place never decreases as the value grows, so
// strips and keys keep their order, and no pair is lost.
// needs: grid_map

// The bit above a sort key's KEY_BITS (which alone order the entries) that marks a body's entry
// in the first strip it spans, where a pair of bodies in several strips is kept (sweep.wgsl).
const KEY_FIRST: u32 = 1u << KEY_BITS;
const KEY_MASK: u32 = KEY_FIRST - 1u;

struct Grid {
    y0: f32,     // the grid's bottom (where y is mapped: 0)
    per_y: f32,  // strips per unit y (per knot)
    strips: u32, // strips (of each world)
    x_bits: u32, // key bits for x (below the strip index)
    x0: f32,     // the grid's left edge (where x is mapped: 0)
    per_x: f32,  // x buckets per unit x (per knot)
    kept: u32,   // x bits kept
    worlds: u32, // worlds (1: one)
}

// Bit of the map's first word saying that x (0) or y (1) is mapped.
fn grid_mapped(axis: u32) -> bool {
    return (grid_map(0u) & (1u << axis)) != 0u;
}

fn grid_knot(axis: u32, k: u32) -> f32 {
    return bitcast<f32>(grid_map(4u + axis * MAP_KNOTS + k));
}

// The place of v among the knots of `axis`, in [0, MAP_KNOTS - 1]: k + t where knot k is the last
// of the first MAP_KNOTS - 1 not above v (the first where none is) and t in [0, 1] is v's
// fraction of the way to knot k + 1.
fn grid_place(axis: u32, v: f32) -> f32 {
    var lo = 0u;
    var hi = MAP_KNOTS - 2u;
    while lo < hi {
        let mid = (lo + hi + 1u) / 2u;
        if grid_knot(axis, mid) <= v {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    let q0 = grid_knot(axis, lo);
    let q1 = grid_knot(axis, lo + 1u);
    var t = select(0.0, 1.0, v >= q1);
    if q1 > q0 {
        t = clamp((v - q0) / (q1 - q0), 0.0, 1.0);
    }
    return f32(lo) + t;
}

// The strip holding height y.
fn grid_strip(g: Grid, y: f32) -> u32 {
    var v = y;
    if grid_mapped(1u) {
        v = grid_place(1u, y);
    }
    let s = floor((v - g.y0) * g.per_y);
    return min(u32(max(s, 0.0)), g.strips - 1u);
}

// A height beyond the edge between strips s - 1 and s by more than grid_strip's rounding:
// below it where `out` is -1, above it where 1.
fn grid_edge(g: Grid, s: u32, out: f32) -> f32 {
    let u = g.y0 + f32(s) / g.per_y;
    if !grid_mapped(1u) {
        return u + out * (1e-3 / g.per_y + 1e-6 * abs(u));
    }
    let k = min(u32(max(u, 0.0)), MAP_KNOTS - 2u);
    let q0 = grid_knot(1u, k);
    let y = q0 + (u - f32(k)) * (grid_knot(1u, k + 1u) - q0);
    // A place is off by a few hundred-thousandths of a knot at most, in the stretch of either
    // neighbour as well.
    let span = grid_knot(1u, min(k + 2u, MAP_KNOTS - 1u)) - grid_knot(1u, max(k, 1u) - 1u);
    return y + out * (1e-3 * span + 1e-6 * abs(y));
}

// The sort key of an entry in strip s whose AABB starts at x: strip in the high bits, x
// quantised below it.
fn grid_key(g: Grid, s: u32, x: f32) -> u32 {
    var v = x;
    if grid_mapped(0u) {
        v = grid_place(0u, x);
    }
    let max_q = f32((1u << g.kept) - 1u);
    let q = u32(clamp(floor((v - g.x0) * g.per_x), 0.0, max_q));
    return (s << g.x_bits) | (q << (g.x_bits - g.kept));
}
