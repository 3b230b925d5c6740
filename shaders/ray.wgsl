// Ray and shape casts (src/gpu/stages/ray.rs): the nearest body each ray, or each shape moved
// along a line, meets, through the frame's own
// sorted strip entries (the transform, entry and sort passes run first, and the grid and the
// entry count are copied into `rp`). Two steps (RAY_STEP, a pipeline constant):
//
// 0. One workgroup per strip (of every world): the widest box among its entries (a contiguous run of the sorted
//    keys), so that in a strip the entries whose box may reach x are those whose left edge lies
//    in [x - width, x].
// 1. One invocation per ray: it walks the strips it crosses in the order it crosses them; in
//    each, two binary searches over the sorted keys find the entries whose left edge can reach
//    the part of the ray inside the strip, and each body there that the ray's filter sees gets
//    the exact test in its own frame. It stops at the first strip past which no nearer hit can
//    lie: a body hit at distance t holds that point, so it has an entry in the point's strip.
//    Without strips (the all-pairs broad phase, few bodies) it tests every body. Where the
//    bodies are in several worlds, a ray walks its own world's strips (world w's strip s is
//    strip w * strips + s of the keys), and without strips tests its own world's bodies.
//
// The exact test, in the body's frame: a ray starting in the shape (within the radius of its
// core) hits at 0 with no normal; otherwise, for a plain polygon, the entering edge of the
// Cyrus-Beck clip; for a rounded shape, the nearest of its core's sides pushed out by the radius
// (those the ray meets from outside) and the circles of that radius around its vertices. Of
// equal distances the lowest body wins, whatever order the bodies are visited in.
//
// A shape cast is a ray from the shape's anchor that sees every body grown by the shape's extent
// (how far its points reach from the anchor). Its exact test is a ray too: from the anchor
// against the Minkowski difference of the two cores (the body's core plus the shape's core
// reflected) grown by both radii, whose edges are walked once, merged by angle (cast_shape). A
// circle's is the ray from its centre against the body grown by its radius.
//
// Eight storage buffers at most (WebGPU's default): the strips' widths, the rays and their
// answers share one (`io`), and the grid travels in the uniform.

#import constants
#import loops
#import index
#import instance
#import strip_index
#import local_shape
#import cast
#import candidate

// A ray, or a shape cast (`count` above 0). Twin of GpuRay in src/gpu/stages/ray.rs.
struct Ray {
    origin: vec2<f32>,
    dir: vec2<f32>, // unit
    length: f32,
    category: u32,
    mask: u32,
    group: i32,
    start: u32,     // the word in `io` of the cast shape's first vertex
    count: u32,     // the cast shape's core vertices; 0 for a ray
    radius: f32,    // the cast shape's radius around its core
    extent: f32,    // how far the cast shape's points reach from the origin (0 for a ray)
    turn: vec2<f32>, // the cast shape's rotation (cos, sin)
    world: u32,      // the world it looks into
    pad: u32,
}

// Twin of GpuRayParams in src/gpu/stages/ray.rs.
struct RayParams {
    rays: u32,
    bodies: u32,
    filtered: u32, // the bodies' filters differ from the default
    strips: u32,   // the world sorts strip entries (else: every body is tested)
    two: u32,      // 2, for `loops_cut`
    rays_at: u32,  // the word in `io` of the first ray
    worlds: u32,   // the bodies' worlds (1: one)
    pad0: u32,
    grid: Grid,    // copied from the control buffer after the sort
    entries: u32,  // likewise: the sorted entries
    images: u32, // in a periodic box: the entries carry their images (candidate.wgsl)
    pad2: u32,
    pad3: u32,
    map: array<vec4<u32>, MAP_WORDS / 4u>, // the grid's map, likewise
}

// A ray's answer, over the first words of its record in `io`. Twin of GpuRayHit in
// src/gpu/stages/ray.rs.
struct RayHit {
    body: u32,       // NONE, CUT, or the body hit
    t: f32,          // the distance along the ray
    normal: vec2<f32>,
    point: vec2<f32>,
    pad: vec2<u32>,  // not written: the ray's own words
}

@group(0) @binding(0) var<uniform> rp: RayParams;
@group(0) @binding(1) var<storage, read> keys: array<u32>;       // sorted entries
@group(0) @binding(2) var<storage, read> values: array<u32>;     // body of each entry (no strips: world of each body)
#paged entries 3 read boxes vec4<f32> // AABB of each entry (no strips: of each body)
#paged instances 4 read instances Instance
#paged shapes 5 read shapes vec4<f32> // (vertex.xy, unit normal.xy), local
#paged instances 6 read transforms vec4<f32> // (x, y, cos, sin)
#paged instances 7 read filters vec4<u32>
// MAX_STRIPS widths (f32 bits), MAX_STRIPS + 1 strip starts (the last: the end), from SHAPES_AT
// the cast shapes' vertices, 4 words each (vertex.xy, unit normal.xy, local), then from
// `rp.rays_at` 16 words per ray, over whose first 6 its answer is written: (body, t, normal,
// point) bits.
@group(0) @binding(8) var<storage, read_write> io: array<u32>;

// Twin of HEADER_WORDS in src/gpu/stages/ray.rs.
const SHAPES_AT: u32 = 2u * MAX_STRIPS + 4u;

fn io_set(at: u32, v: u32) {
    io[at] = v;
}

fn grid_map(w: u32) -> u32 {
    return rp.map[w / 4u][w % 4u];
}

override RAY_STEP: u32 = 0u;
// Whether the batch casts shapes (else: rays alone). A pipeline of rays leaves the shapes' code
// out: ray casts on an H200 ran 2.25 times as long once it shared theirs (BENCHMARKS.md).
override SHAPE_CASTS: bool = true;

const NONE: u32 = 0xffffffffu;
// The answer of a ray whose invocation's loops were cut short (loops.wgsl).
const CUT: u32 = 0xfffffffeu;

// A convex core in a body's frame, scaled by `inv` (a power of two: exact): the body's own
// (`of_cast` 0; `start` its first vertex in `shapes`), or a cast shape's (`of_cast` 1; `start` its
// first vertex's word in `io`, turned by `turn` into the body's frame).
struct Core {
    of_cast: u32,
    start: u32,
    count: u32,
    inv: f32,
    turn: vec2<f32>,
}

fn body_core(b: Instance, inv: f32) -> Core {
    return Core(0u, b.shape_start, b.count, inv, vec2<f32>(1.0, 0.0));
}

// The core's vertex k (scaled).
fn vertex_in(c: Core, k: u32) -> vec2<f32> {
    if SHAPE_CASTS && c.of_cast != 0u {
        let at = c.start + 4u * k;
        return rotate(c.turn, bitcast<vec2<f32>>(vec2<u32>(io[at], io[at + 1u]))) * c.inv;
    }
    return shapes_at(c.start + k).xy * c.inv;
}

// The unit outward normal of the core's edge from vertex k.
fn normal_in(c: Core, k: u32) -> vec2<f32> {
    if SHAPE_CASTS && c.of_cast != 0u {
        let at = c.start + 4u * k + 2u;
        return rotate(c.turn, bitcast<vec2<f32>>(vec2<u32>(io[at], io[at + 1u])));
    }
    return shapes_at(c.start + k).zw;
}

// The ray or cast `r` against body `i`: its nearest hit within `limit`.
fn cast_body(i: u32, r: Ray, limit: f32) -> Hit {
    let miss = Hit(-1.0, vec2<f32>(0.0), vec2<f32>(0.0));
    let b = instances_at(i);
    let t = transforms_at(i);
    let back = vec2<f32>(t.z, -t.w);
    let start = rotate(back, r.origin - t.xy);
    let d = rotate(back, r.dir);
    // Every point of the shape lies within `size` of the body's anchor, and every point of a
    // cast shape within its extent of the cast's origin: a ray whose line passes farther misses
    // it, and one from farther away starts afresh nearer, at most 2 sizes before its closest
    // approach (so that, scaled below, no coordinate is large).
    // (Across the ray from the cross product, which does not cancel; the start moved back by
    // the rounding of `closest` too, so that it never passes the shape.)
    let size = b.radius + b.round + r.extent;
    let closest = -dot(start, d);
    if abs(d.x * start.y - d.y * start.x) > 2.0 * size {
        return miss;
    }
    let skip = max(closest - 2.0 * size - 5e-7 * max(abs(start.x), abs(start.y)), 0.0);
    if skip > limit {
        return miss;
    }
    // In units of the shape's size, a power of two (exact), so that no square overflows or
    // underflows at any scale.
    let k = frexp(size).exp;
    let inv = ldexp(1.0, -k);
    let o = (start + d * skip) * inv;
    let body = body_core(b, inv);
    let round = b.round * inv;
    // An origin within rounding of the boundary counts as on it: the rounding of the world
    // coordinates (as f32) and of the shape's own.
    let world = max(max(max(abs(r.origin.x), abs(r.origin.y)), max(abs(t.x), abs(t.y))), r.extent);
    let edge = 4.0 * 1.2e-7 * world * inv + ON_EDGE;
    let at_start = Hit(0.0, vec2<f32>(0.0), r.origin);
    // The rest of the limit scaled, held below f32's largest.
    let reach = ldexp(min(limit - skip, ldexp(BIG, min(k, 0))), -k);
    var hit = vec3<f32>(-1.0, 0.0, 0.0);
    var at = vec2<f32>(0.0); // the point touched (scaled, in the body's frame)
    if !SHAPE_CASTS || r.count == 0u {
        if skip == 0.0 && inside(body, round, edge, o) {
            return at_start;
        }
        hit = cast_local(body, round, o, d, reach);
    } else {
        let shape = Core(1u, r.start, r.count, inv, rotate(back, r.turn));
        let own = r.radius * inv;
        if r.count == 1u {
            // A circle: the ray from its centre against the body grown by its radius.
            let centre = o + vertex_in(shape, 0u);
            if skip == 0.0 && inside(body, round + own, edge, centre) {
                return at_start;
            }
            hit = cast_local(body, round + own, centre, d, reach);
            at = centre + d * hit.x - hit.yz * own;
        } else {
            let h = cast_shape(body, shape, round, own, edge, o, d, reach, skip == 0.0);
            if h.t == 0.0 && h.normal.x == 0.0 && h.normal.y == 0.0 {
                return at_start;
            }
            hit = vec3<f32>(h.t, h.normal);
            at = h.point;
        }
    }
    if hit.x < 0.0 {
        return miss;
    }
    return Hit(skip + ldexp(hit.x, k), rotate(t.zw, hit.yz), t.xy + rotate(t.zw, ldexp(at, vec2<i32>(k))));
}

// Whether the ray may meet `box` (grown by a cast shape's extent) within `limit`: the slab test,
// widened by a millionth of the coordinates so that rounding never rejects a body the exact test
// would hit.
fn may_meet(r: Ray, box: vec4<f32>, limit: f32) -> bool {
    let slack = 1e-6 * (max(abs(box.xy), abs(box.zw)) + abs(r.origin)) + vec2<f32>(1e-30);
    let lo = box.xy - slack - r.extent;
    let hi = box.zw + slack + r.extent;
    var t0 = 0.0;
    var t1 = limit * (1.0 + 1e-6);
    for (var a = 0u; a < 2u; a++) {
        let o = r.origin[a];
        let d = r.dir[a];
        if d == 0.0 {
            if o < lo[a] || o > hi[a] {
                return false;
            }
        } else {
            let ta = (lo[a] - o) / d;
            let tb = (hi[a] - o) / d;
            t0 = max(t0, min(ta, tb));
            t1 = min(t1, max(ta, tb));
        }
    }
    return t0 <= t1;
}

struct Best {
    t: f32,
    body: u32,
    normal: vec2<f32>,
    point: vec2<f32>,
}

fn take_hit(best: ptr<function, Best>, i: u32, box: vec4<f32>, r: Ray) {
    let limit = min((*best).t, r.length);
    if !sees_body(vec3<u32>(r.category, r.mask, bitcast<u32>(r.group)), rp.filtered, i) || !may_meet(r, box, limit) {
        return;
    }
    let hit = cast_body(i, r, limit);
    if hit.t < 0.0 || hit.t > limit {
        return;
    }
    // hit.t <= best.t here: nearer, or as near and a lower body.
    if hit.t < (*best).t || i < (*best).body {
        *best = Best(hit.t, i, hit.normal, hit.point);
    }
}

fn read_ray(i: u32) -> Ray {
    let at = rp.rays_at + 16u * i;
    return Ray(
        bitcast<vec2<f32>>(vec2<u32>(io[at], io[at + 1u])),
        bitcast<vec2<f32>>(vec2<u32>(io[at + 2u], io[at + 3u])),
        bitcast<f32>(io[at + 4u]),
        io[at + 5u],
        io[at + 6u],
        bitcast<i32>(io[at + 7u]),
        io[at + 8u],
        io[at + 9u],
        bitcast<f32>(io[at + 10u]),
        bitcast<f32>(io[at + 11u]),
        bitcast<vec2<f32>>(vec2<u32>(io[at + 12u], io[at + 13u])),
        io[at + 14u],
        0u
    );
}

// Step 1: the nearest hit of ray `i`.
fn cast_ray(i: u32) {
    let r = read_ray(i);
    // `t` above the length: no hit yet.
    var best = Best(BIG, NONE, vec2<f32>(0.0), vec2<f32>(0.0));
    if rp.strips == 0u {
        for (var b = 0u; b < rp.bodies; b++) {
            if rp.worlds <= 1u || values[b] == r.world {
                take_hit(&best, b, boxes_at(b), r);
            }
        }
    } else {
        let g = rp.grid;
        // The first of the ray's world's strips in the keys.
        let first = r.world * g.strips;
        let e = r.extent;
        let end = r.origin + r.dir * r.length;
        let up = end.y >= r.origin.y;
        // A cast shape's points lie within its extent of the ray: strips that far further.
        var s = grid_strip(g, select(r.origin.y + e, r.origin.y - e, up));
        let last = grid_strip(g, select(end.y - e, end.y + e, up));
        loop {
            // The part of the ray inside strip s (its edges moved out past the rounding of
            // grid_strip, so that no body is lost, and by a cast shape's extent), up to the
            // nearest hit so far.
            var t0 = 0.0;
            var t1 = min(best.t, r.length);
            if g.strips > 1u && r.dir.y != 0.0 {
                var y_lo = -BIG;
                var y_hi = BIG;
                if s > 0u {
                    y_lo = grid_edge(g, s, -1.0) - e;
                }
                if s + 1u < g.strips {
                    y_hi = grid_edge(g, s + 1u, 1.0) + e;
                }
                let ta = (y_lo - r.origin.y) / r.dir.y;
                let tb = (y_hi - r.origin.y) / r.dir.y;
                t0 = max(t0, min(ta, tb));
                t1 = min(t1, max(ta, tb));
            }
            if t0 <= t1 {
                let xa = r.origin.x + r.dir.x * t0;
                let xb = r.origin.x + r.dir.x * t1;
                let slack = 1e-6 * (abs(xa) + abs(xb)) + 1e-30;
                let lo = min(xa, xb) - slack - e;
                let hi = max(xa, xb) + slack + e;
                let w = first + s;
                let width = bitcast<f32>(io[w]);
                let strip_end = io[MAX_STRIPS + w + 1u];
                let start = first_from(grid_key(g, w, lo - width), io[MAX_STRIPS + w], strip_end);
                let stop = first_from(grid_key(g, w, hi) + 1u, start, strip_end);
                for (var k = start; k < stop; k++) {
                    let box = boxes_at(k);
                    let body = entry_body(values[k], rp.images);
                    if box.z >= lo && body != NOT_A_BODY {
                        take_hit(&best, body, box, r);
                    }
                }
            }
            if s == last {
                break;
            }
            // No nearer hit lies past the strip of the nearest so far (for a cast shape, past
            // its extent beyond).
            if best.body != NONE {
                let y = r.origin.y + r.dir.y * best.t;
                let at = grid_strip(g, select(y - e, y + e, up));
                if (up && at <= s) || (!up && at >= s) {
                    break;
                }
            }
            if up {
                s++;
            } else {
                s--;
            }
        }
    }
    let hit = RayHit(select(best.body, CUT, loops_cut(rp.two)), best.t, best.normal, best.point, vec2<u32>(0u));
    let at = rp.rays_at + 16u * i;
    io[at] = hit.body;
    io[at + 1u] = bitcast<u32>(hit.t);
    io[at + 2u] = bitcast<u32>(hit.normal.x);
    io[at + 3u] = bitcast<u32>(hit.normal.y);
    io[at + 4u] = bitcast<u32>(hit.point.x);
    io[at + 5u] = bitcast<u32>(hit.point.y);
}

@compute @workgroup_size(WG)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if RAY_STEP == 0u {
        // Uniform control flow for the barriers: the whole workgroup returns or none of it.
        let s = tile_index(wid, nwg);
        if s < rp.grid.strips * rp.grid.worlds {
            strip_width(rp.grid, rp.entries, s, lid, 0u);
        }
        return;
    }
    let i = linear_index(gid, nwg);
    if i < rp.rays {
        cast_ray(i);
    }
}
