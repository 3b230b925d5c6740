// Region queries (src/gpu/stages/query.rs): which bodies share a point with each query box (a
// point is a box of no size), through the frame's own sorted strip entries (the transform, entry
// and sort passes run first, and the grid and the entry count are copied into `qp`), as the
// casts read them (strip_index.wgsl). Two steps (QUERY_STEP, a pipeline constant):
//
// 0. One workgroup per strip (of every world): where it starts and its widest box.
// 1. One invocation per query: it walks the strips its box spans (of its own world, where the
//    bodies are in several); in each, two binary searches over the sorted keys find the entries
//    whose left edge can reach the box, and each body whose box meets it, taken in one strip
//    only (the first both span), seen through the filters, gets the exact test in its own frame:
//    the separating axes of the query box and the body's core, and where they are apart, the
//    distance between them against the body's radius. Each hit takes the next slot of the hits
//    (an atomic count, which goes on past the room the host gave: it then asks again with room
//    for all); the host groups them by query and sorts each query's bodies. Without strips (the
//    all-pairs broad phase, few bodies) a query tests every body of its world.
//
// Windows: Mesa's software adapters end an invocation's loops after 65,535 iterations in all
// (loops.wgsl). A walk there stops before `qp.window_steps` steps (its loops' iterations,
// counted from above) and keeps its place in a cursor; the host dispatches the step again
// until no walk asks for more.
//
// Eight storage buffers at most (WebGPU's default): the hits' count, the strips' widths, the
// queries, the walks' cursors and the hits share one (`io`), and the grid travels in the uniform.

#import constants
#import loops
#import index
#import instance
#import strip_index
#import local_shape
#import exact
#import candidate

// A query box, 16 words in `io` from `qp.queries_at`. Twin of GpuQuery in src/gpu/stages/query.rs.
struct Query {
    lo: vec2<f32>, // the corners rounded to f32
    hi: vec2<f32>,
    category: u32,
    mask: u32,
    group: i32,
    world: u32, // the world it looks into
    lo_rest: vec4<f32>, // what rounding left of lo (x, y), then of that (x, y): exact sums
    hi_rest: vec4<f32>,
}

// Twin of GpuQueryParams in src/gpu/stages/query.rs.
struct QueryParams {
    queries: u32,
    bodies: u32,
    filtered: u32,     // the bodies' filters differ from the default
    strips: u32,       // the world sorts strip entries (else: every body is tested)
    two: u32,          // 2, for `loops_cut`
    worlds: u32,       // the bodies' worlds (1: one)
    window_steps: u32, // a walk's loop iterations per dispatch (at least ENTRY_MOST)
    index_at: u32,     // the word in `io` of the strips' widths, then their starts
    queries_at: u32,   // of the first query
    cursors_at: u32,   // of the first walk's cursor (4 words each)
    hits_at: u32,      // of the first hit (2 words each)
    room: u32,         // hits the io buffer holds
    grid: Grid,        // copied from the control buffer after the sort
    entries: u32,      // likewise: the sorted entries
    zero: u32,         // 0, for `keep`
    images: u32,       // in a periodic box: the entries carry their images (candidate.wgsl)
    pad2: u32,
    map: array<vec4<u32>, MAP_WORDS / 4u>, // the grid's map, likewise
}

@group(0) @binding(0) var<uniform> qp: QueryParams;
@group(0) @binding(1) var<storage, read> keys: array<u32>;   // sorted entries
@group(0) @binding(2) var<storage, read> values: array<u32>; // body of each entry (no strips: world of each body)
#paged entries 3 read boxes vec4<f32> // AABB of each entry (no strips: of each body)
#paged instances 4 read instances Instance
#paged shapes 5 read shapes vec4<f32> // (vertex.xy, unit normal.xy), local
#paged instances 6 read transforms vec4<f32> // (x, y, cos, sin)
#paged instances 7 read filters vec4<u32>
// The hits found (HIT_COUNT), the cut flag (a loop was cut short), the more flag (a walk asks for
// another window); from `qp.index_at` the strips' widths and starts; from `qp.queries_at` the
// queries; from `qp.cursors_at` per walk (strips done, next entry, done); from `qp.hits_at` the
// hits, `(query, body)`. Atomic, for the hits' count; each other word has one writer, or all
// writers write the same.
@group(0) @binding(8) var<storage, read_write> io: array<atomic<u32>>;

const HIT_COUNT: u32 = 0u;
const CUT_FLAG: u32 = 1u;
const MORE_FLAG: u32 = 2u;

override QUERY_STEP: u32 = 1u;

fn io_get(at: u32) -> u32 {
    return atomicLoad(&io[at]);
}

fn io_set(at: u32, v: u32) {
    atomicStore(&io[at], v);
}

fn grid_map(w: u32) -> u32 {
    return qp.map[w / 4u][w % 4u];
}

// The most loop iterations one strip or one entry takes (its binary searches; its exact test,
// 7 per vertex of a core of at most 1,024): a walk takes no step past `window_steps` less this.
const ENTRY_MOST: u32 = 7300u;

// x unchanged, in a way no compiler can see through (exact.wgsl): its bits XOR a uniform 0.
fn keep(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ qp.zero);
}

// Whether `to` (from an edge's start) lies strictly right of the edge's direction `along`:
// the cross product's sign, as its two products compared.
fn beyond(along: vec2<f32>, to: vec2<f32>) -> bool {
    return along.x * to.y < along.y * to.x;
}

// Whether body `i` (its core grown by its radius) shares a point with the box `q`.
fn meets(i: u32, q: Query) -> bool {
    let b = instances_at(i);
    let t = transforms_at(i);
    // The box's corners relative to the body's translation, each coordinate rounded once from
    // the caller's f64 (as the host rounds the vertices: the same numbers give the same f32),
    // then in the body's frame (rotated back by (cos, sin)), counter-clockwise.
    let dlo = vec2<f32>(to_frame(vec3<f32>(q.lo.x, q.lo_rest.xz), t.x), to_frame(vec3<f32>(q.lo.y, q.lo_rest.yw), t.y));
    let dhi = vec2<f32>(to_frame(vec3<f32>(q.hi.x, q.hi_rest.xz), t.x), to_frame(vec3<f32>(q.hi.y, q.hi_rest.yw), t.y));
    let back = vec2<f32>(t.z, -t.w);
    var c = array<vec2<f32>, 4>(
        rotate(back, dlo),
        rotate(back, vec2<f32>(dhi.x, dlo.y)),
        rotate(back, dhi),
        rotate(back, vec2<f32>(dlo.x, dhi.y))
    );
    let u = rotate(back, vec2<f32>(1.0, 0.0));
    let v = rotate(back, vec2<f32>(0.0, 1.0));
    // Every point of the shape lies within `size` of the anchor, so the box cut to 2 sizes
    // around it meets the shape where the box does; in units of that (a power of two, exact) no
    // product overflows or underflows, whatever the scale. `lo`, `hi`: the cut box in world axes
    // about the anchor, `cut`: its corners in the body's frame, both in those units.
    let k = frexp(b.radius + b.round).exp;
    let inv = ldexp(1.0, -k);
    let reach = ldexp(2.0, k);
    let lo = clamp(dlo, vec2<f32>(-reach), vec2<f32>(reach)) * inv;
    let hi = clamp(dhi, vec2<f32>(-reach), vec2<f32>(reach)) * inv;
    var cut = array<vec2<f32>, 4>(
        rotate(back, lo),
        rotate(back, vec2<f32>(hi.x, lo.y)),
        rotate(back, hi),
        rotate(back, vec2<f32>(lo.x, hi.y))
    );
    // Separating axes: the box's two, then the core's edges (for a segment, both sides). Whether
    // one separates is decided without the unit normals: the box's axes by comparing intervals,
    // an edge from v to w by the side of each corner c of the cut box, (w - v) x (c - v) < 0 in
    // the units above, compared as its two products so that no fused multiply-add rounds one of
    // them alone. A point equal to a vertex (the same numbers in the body's frame) is then never
    // outside the edges through it, where dot(v_k, n) - dot(v_k-1, n) was zero only in exact
    // arithmetic. `sep`, the largest separation along unit axes, measures rounded bodies'
    // distance as before. Loops are few (one pass over the vertices for both box axes, the
    // corners written out): Mesa's software adapters stop an invocation's after 65,535
    // iterations in all.
    var body_lo = vec2<f32>(3.0e38);
    var body_hi = vec2<f32>(-3.0e38);
    for (var k = 0u; k < b.count; k++) {
        let p = local_vertex(b, k);
        let d = vec2<f32>(dot(p, u), dot(p, v));
        body_lo = min(body_lo, d);
        body_hi = max(body_hi, d);
    }
    let q0 = vec2<f32>(dot(c[0], u), dot(c[0], v));
    let q2 = vec2<f32>(dot(c[2], u), dot(c[2], v));
    let qlo = min(q0, q2);
    let qhi = max(q0, q2);
    var apart = any(qlo > body_hi) || any(body_lo > qhi);
    let gap = max(qlo - body_hi, body_lo - qhi);
    var sep = max(gap.x, gap.y);
    if b.count >= 2u {
        for (var e = 0u; e < b.count; e++) {
            let n = shapes_at(b.shape_start + e).zw;
            let start = local_vertex(b, e);
            let from_start = start * inv;
            let along = local_vertex(b, (e + 1u) % b.count) * inv - from_start;
            let qmin = min(min(dot(c[0], n), dot(c[1], n)), min(dot(c[2], n), dot(c[3], n)));
            let outside = beyond(along, cut[0] - from_start) && beyond(along, cut[1] - from_start)
                && beyond(along, cut[2] - from_start) && beyond(along, cut[3] - from_start);
            apart = apart || outside;
            sep = max(sep, qmin - dot(start, n));
        }
    }
    if !apart {
        return true;
    }
    if b.round <= 0.0 || sep > b.round {
        return false;
    }
    // Apart: the distance between the core and the cut box, vertex to box and box corner to
    // edge, in world axes about the body's anchor, in the units above.
    let corners = array<vec2<f32>, 4>(lo, vec2<f32>(hi.x, lo.y), hi, vec2<f32>(lo.x, hi.y));
    var d2 = 3.0e38;
    for (var v = 0u; v < b.count; v++) {
        let p = rotate(t.zw, local_vertex(b, v)) * inv;
        let x = clamp(p, lo, hi) - p;
        d2 = min(d2, dot(x, x));
        if b.count >= 2u {
            let w = rotate(t.zw, local_vertex(b, (v + 1u) % b.count)) * inv;
            for (var j = 0u; j < 4u; j++) {
                let y = closest_on(corners[j], p, w) - corners[j];
                d2 = min(d2, dot(y, y));
            }
        }
    }
    let r = b.round * inv;
    return d2 <= r * r;
}

fn read_query(i: u32) -> Query {
    let at = qp.queries_at + 16u * i;
    var w: array<u32, 16>;
    for (var k = 0u; k < 16u; k++) {
        w[k] = io_get(at + k);
    }
    let f = bitcast<vec4<f32>>(vec4<u32>(w[0], w[1], w[2], w[3]));
    let lo_rest = bitcast<vec4<f32>>(vec4<u32>(w[8], w[9], w[10], w[11]));
    let hi_rest = bitcast<vec4<f32>>(vec4<u32>(w[12], w[13], w[14], w[15]));
    return Query(f.xy, f.zw, w[4], w[5], bitcast<i32>(w[6]), w[7], lo_rest, hi_rest);
}

// Whether the query's box and a body's share a point (closed), in f32.
fn boxes_meet(q: Query, box: vec4<f32>) -> bool {
    return q.lo.x <= box.z && q.hi.x >= box.x && q.lo.y <= box.w && q.hi.y >= box.y;
}

// Body `i` tested against query `q` (its box met): the steps it took. A hit takes the next
// slot, where there is room.
fn test_body(i: u32, q: Query, query: u32) -> u32 {
    if !sees_body(vec3<u32>(q.category, q.mask, bitcast<u32>(q.group)), qp.filtered, i) {
        return 1u;
    }
    let steps = 7u * instances_at(i).count + 8u;
    if meets(i, q) {
        let slot = atomicAdd(&io[HIT_COUNT], 1u);
        if slot < qp.room {
            io_set(qp.hits_at + 2u * slot, query);
            io_set(qp.hits_at + 2u * slot + 1u, i);
        }
    }
    return steps;
}

// Step 1: query `i`'s walk, from its cursor, for at most a window's steps.
fn walk(i: u32) {
    let cursor = qp.cursors_at + 4u * i;
    if io_get(cursor + 2u) == 0u {
        let q = read_query(i);
        let last = qp.window_steps - ENTRY_MOST;
        var steps = 0u;
        var done = true;
        var next = io_get(cursor + 1u);
        var strips_done = io_get(cursor);
        if qp.strips == 0u {
            for (var b = next; b < qp.bodies; b++) {
                if steps > last {
                    next = b;
                    done = false;
                    break;
                }
                steps += 1u;
                if (qp.worlds <= 1u || values[b] == q.world) && boxes_meet(q, boxes_at(b)) {
                    steps += test_body(b, q, i);
                }
            }
        } else {
            let g = qp.grid;
            // The first of the query's world's strips in the keys.
            let first = q.world * g.strips;
            let s0 = grid_strip(g, q.lo.y);
            let s1 = grid_strip(g, q.hi.y);
            var s = s0 + strips_done;
            while s <= s1 {
                if steps > last {
                    done = false;
                    break;
                }
                steps += 70u;
                let w = first + s;
                let width = bitcast<f32>(io_get(qp.index_at + w));
                let strip_end = io_get(qp.index_at + MAX_STRIPS + w + 1u);
                // Left edges from the box's less the widest, less a millionth of both (so that
                // rounding loses no body), to the box's right edge.
                let left = q.lo.x - width - (1e-6 * (abs(q.lo.x) + width) + 1e-30);
                let start = first_from(grid_key(g, w, left), io_get(qp.index_at + MAX_STRIPS + w), strip_end);
                let stop = first_from(grid_key(g, w, q.hi.x) + 1u, start, strip_end);
                var k = max(start, next);
                while k < stop && steps <= last {
                    steps += 1u;
                    let box = boxes_at(k);
                    let body = entry_body(values[k], qp.images);
                    // A pair is taken in the first strip both span.
                    if body != NOT_A_BODY && boxes_meet(q, box) && max(s0, grid_strip(g, box.y)) == s {
                        steps += test_body(body, q, i);
                    }
                    k++;
                }
                if k < stop {
                    next = k;
                    done = false;
                    break;
                }
                next = 0u;
                s++;
            }
            strips_done = s - s0;
        }
        io_set(cursor, strips_done);
        io_set(cursor + 1u, next);
        if done {
            io_set(cursor + 2u, 1u);
        } else {
            io_set(MORE_FLAG, 1u);
        }
        // Some loop was cut short (loops.wgsl): the host refuses the answer.
        if loops_cut(qp.two) {
            io_set(CUT_FLAG, 1u);
        }
    }
}

@compute @workgroup_size(WG)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if QUERY_STEP == 0u {
        // Uniform control flow for the barriers: the whole workgroup returns or none of it.
        let s = tile_index(wid, nwg);
        if s < qp.grid.strips * qp.grid.worlds {
            strip_width(qp.grid, qp.entries, s, lid, qp.index_at);
        }
        return;
    }
    let i = linear_index(gid, nwg);
    if i < qp.queries {
        walk(i);
    }
}
