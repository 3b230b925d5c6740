// Region queries (src/gpu/stages/query.rs): which bodies share a point with each query box (a
// point is a box of no size). One invocation per body. The queries come binned into horizontal
// strips (a query in every strip it spans), each strip's sorted by left edge with the largest
// right edge so far (`reach`), so a body finds, in each strip its box spans, the queries that can
// meet its box by two binary searches: those whose left edge is at most its right edge, from the
// first whose `reach` is at least its left edge. A pair is taken in one strip only: the first
// both span. Each such query meeting
// the body's box, and seeing the body through the filters, gets the exact test, in the body's
// own frame: the separating axes of the query box and the body's core, and where they are
// apart, the distance between them against the body's radius. Where the bodies are in several
// worlds, a query sees its own world's alone. Two dispatches (QUERY_STEP, a
// pipeline constant): count each body's hits, then (after a scan of the counts) write them.

#import constants
#import index
#import body
#import filter
#import local_shape
#import exact
#import loops

struct Query {
    lo: vec2<f32>, // the corners rounded to f32
    hi: vec2<f32>,
    reach: f32, // the largest right edge of the strip's queries up to this one
    index: u32, // the query's index in the caller's list (a header: where the strip starts)
    category: u32,
    mask: u32,
    group: i32,
    first: u32, // the first strip the query spans
    world: u32, // the world it looks into
    pad: u32,
    lo_rest: vec4<f32>, // what rounding left of lo (x, y), then of that (x, y): exact sums
    hi_rest: vec4<f32>,
}

struct QueryParams {
    bodies: u32,
    strips: u32, // `queries` starts with strips + 1 headers, then the entries
    filtered: u32, // the bodies' filters differ from the default
    worlds: u32,   // the bodies' worlds (1: one; more: each body's follows the counts)
    y0: f32,         // the strips' bottom
    inv_height: f32, // strips per unit of y
    zero: u32,       // 0, for `keep`
    two: u32,        // 2, for `loops_cut`
}

@group(0) @binding(0) var<uniform> qp: QueryParams;
#paged bodies 1 read bodies Body
#paged shapes 2 read shapes vec4<f32>    // (vertex.xy, unit normal.xy), local
#paged bodies 3 read transforms vec4<f32> // (x, y, cos, sin)
#paged bodies 4 read aabbs vec4<f32>
@group(0) @binding(5) var<storage, read> queries: array<Query>;
#paged bodies 6 read filters vec4<u32>
@group(0) @binding(7) var<storage, read_write> counts: array<u32>;     // then their offsets, the total, the cut flag, each body's world
@group(0) @binding(8) var<storage, read_write> hits: array<vec2<u32>>; // (query, body)

override QUERY_STEP: u32 = 0u;

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
    let b = bodies_at(i);
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

fn strip_of(y: f32) -> u32 {
    return u32(clamp(floor((y - qp.y0) * qp.inv_height), 0.0, f32(qp.strips - 1u)));
}

// The first entry in [start, stop) whose left edge is past `x`.
fn first_past(x: f32, start: u32, stop: u32) -> u32 {
    var lo = start;
    var hi = stop;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if queries[mid].lo.x <= x {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The first entry in [start, stop) whose reach (largest right edge so far) is at least `x`.
fn first_reaching(x: f32, start: u32, stop: u32) -> u32 {
    var lo = start;
    var hi = stop;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if queries[mid].reach < x {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= qp.bodies {
        return;
    }
    let box = aabbs_at(i);
    var at = 0u;
    if QUERY_STEP == 1u {
        at = counts[i];
    }
    var found = 0u;
    let base = qp.strips + 1u;
    let s0 = strip_of(box.y);
    for (var s = s0; s <= strip_of(box.w); s++) {
        let start = base + queries[s].index;
        let stop = base + queries[s + 1u].index;
        let end = first_past(box.z, start, stop);
        for (var j = first_reaching(box.x, start, end); j < end; j++) {
            let q = queries[j];
            if q.hi.x < box.x || q.hi.y < box.y || q.lo.y > box.w || max(s0, q.first) != s {
                continue;
            }
            if qp.worlds > 1u && counts[qp.bodies + 2u + i] != q.world {
                continue;
            }
            if qp.filtered != 0u || q.category != 1u || q.mask != 0xffffffffu || q.group != 0 {
                let f = select(vec4<u32>(1u, 0xffffffffu, 0u, 0u), filters_at(i), qp.filtered != 0u);
                if !may_collide(vec4<u32>(q.category, q.mask, bitcast<u32>(q.group), 0u), f) {
                    continue;
                }
            }
            if !meets(i, q) {
                continue;
            }
            if QUERY_STEP == 1u {
                hits[at + found] = vec2<u32>(q.index, i);
            }
            found++;
        }
    }
    if QUERY_STEP == 0u {
        counts[i] = found;
        // Some loop was cut short (loops.wgsl): the host refuses the answer.
        if loops_cut(qp.two) {
            counts[qp.bodies + 1u] = 1u;
        }
    }
}
