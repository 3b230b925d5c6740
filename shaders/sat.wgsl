// Narrow phase: one invocation per candidate pair (a, b). Separating axis test over the edge
// normals of both polygons, in a frame centred on a's anchor: each shape is rotated here, relative
// to its own anchor, and b's vertices are shifted by the difference of the two anchors. Precision
// is therefore set by the size of the pair, not by its distance from the origin.
//
// The verdict uses unnormalised edge normals computed from the vertices: with small integer
// coordinates every product and sum is exact in f32, so touching polygons are found exactly. The
// depth along an axis is the overlap divided by the normal's length; the minimum translation
// vector is the axis with the least such depth, oriented from a to b (moving b by depth * normal
// separates the pair). Ties go to the first axis (a's edges, then b's), so results are deterministic.

// keep in sync with GpuBody in src/gpu/layout.rs
struct Body {
    shape_start: u32, // first vertex of the shape in `shapes`
    count: u32,       // vertices in the shape
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<storage, read> control: array<u32>;         // [PAIRS] = candidates to test
@group(0) @binding(1) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> bodies: array<Body>;
@group(0) @binding(3) var<storage, read> shapes: array<vec4<f32>>;    // (vertex.xy, unit normal.xy), local
@group(0) @binding(4) var<storage, read> transforms: array<vec4<f32>>; // anchor = (x, y), cos, sin
@group(0) @binding(5) var<storage, read_write> results: array<vec4<f32>>; // (normal.xy, depth, hit)
@group(0) @binding(6) var<storage, read_write> flags: array<u32>;     // 1 if the pair collides

const WG: u32 = 64u;
// keep in sync with src/gpu/control.rs
const PAIRS: u32 = 24u;

struct Interval {
    lo: f32,
    hi: f32,
}

// Pairs of polygons with at most SMALL vertices each (all generated scenes) are copied into
// private arrays once, so the O((n_a + n_b)^2) projection loop reads registers, not storage.
const SMALL: u32 = 8u;
var<private> cached: bool;
var<private> rotation_a: vec2<f32>; // (cos, sin)
var<private> rotation_b: vec2<f32>;

// Shape vertex and normal rotated by (cos, sin); the same arithmetic as transform.wgsl.
fn rotate(v: vec4<f32>, r: vec2<f32>) -> vec4<f32> {
    return vec4<f32>(r.x * v.x - r.y * v.y, r.y * v.x + r.x * v.y, r.x * v.z - r.y * v.w, r.y * v.z + r.x * v.w);
}
var<private> cache_a: array<vec4<f32>, 8>;
var<private> cache_b: array<vec4<f32>, 8>;

// Vertex k of `body` (side 0 is a, side 1 is b), rotated, relative to the body's own anchor,
// with its edge's unit normal.
fn vertex(body: Body, side: u32, k: u32) -> vec4<f32> {
    if cached {
        if side == 0u {
            return cache_a[k];
        }
        return cache_b[k];
    }
    return rotate(shapes[body.shape_start + k], select(rotation_b, rotation_a, side == 0u));
}

// Projection of `body` onto `axis`, relative to the body's anchor. Cached polygons are padded to
// SMALL vertices with copies of vertex 0, which leave the projection unchanged, so the loop has a
// fixed length: lanes of a SIMD software adapter then never wait for each other.
fn project(body: Body, side: u32, axis: vec2<f32>) -> Interval {
    var r = Interval(3.0e38, -3.0e38);
    var count = body.count;
    if cached {
        count = SMALL;
    }
    for (var k = 0u; k < count; k++) {
        let d = dot(vertex(body, side, k).xy, axis);
        r.lo = min(r.lo, d);
        r.hi = max(r.hi, d);
    }
    return r;
}

// The small path: both polygons cached and padded to SMALL vertices; straight-line loops of fixed
// length over private arrays. Same arithmetic, in the same order, as the general path.
fn project_cached_a(axis: vec2<f32>) -> Interval {
    var r = Interval(3.0e38, -3.0e38);
    for (var k = 0u; k < SMALL; k++) {
        let d = dot(cache_a[k].xy, axis);
        r.lo = min(r.lo, d);
        r.hi = max(r.hi, d);
    }
    return r;
}

fn project_cached_b(axis: vec2<f32>) -> Interval {
    var r = Interval(3.0e38, -3.0e38);
    for (var k = 0u; k < SMALL; k++) {
        let d = dot(cache_b[k].xy, axis);
        r.lo = min(r.lo, d);
        r.hi = max(r.hi, d);
    }
    return r;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= control[PAIRS] {
        return;
    }
    let pair = candidates[i];
    let ba = bodies[pair.x];
    let bb = bodies[pair.y];
    let ta = transforms[pair.x];
    let tb = transforms[pair.y];
    rotation_a = ta.zw;
    rotation_b = tb.zw;
    cached = ba.count <= SMALL && bb.count <= SMALL;
    if cached {
        for (var k = 0u; k < SMALL; k++) {
            cache_a[k] = rotate(shapes[ba.shape_start + select(0u, k, k < ba.count)], rotation_a);
            cache_b[k] = rotate(shapes[bb.shape_start + select(0u, k, k < bb.count)], rotation_b);
        }
    }
    let shift = tb.xy - ta.xy; // b's anchor in a's frame
    var best = 3.0e38;
    var best_normal = vec2<f32>(0.0, 0.0);
    var hit = true;
    for (var side = 0u; side < 2u && hit; side++) {
        var owner = ba;
        if side == 1u {
            owner = bb;
        }
        var p = vertex(owner, side, 0u);
        for (var e = 0u; e < owner.count; e++) {
            // The edge from anchor-relative vertices: the anchor cancels, so integer edges stay
            // exact.
            let q = vertex(owner, side, select(e + 1u, 0u, e + 1u == owner.count));
            let axis = vec2<f32>(q.y - p.y, p.x - q.x);
            var ia: Interval;
            var ib: Interval;
            if cached {
                ia = project_cached_a(axis);
                ib = project_cached_b(axis);
            } else {
                ia = project(ba, 0u, axis);
                ib = project(bb, 1u, axis);
            }
            let s = dot(shift, axis);
            ib.lo += s;
            ib.hi += s;
            if ib.lo > ia.hi || ia.lo > ib.hi {
                hit = false;
                break;
            }
            let inv_len = 1.0 / length(axis);
            let push = (ia.hi - ib.lo) * inv_len; // move b along +unit
            let pull = (ib.hi - ia.lo) * inv_len; // move b along -unit
            if push < best {
                best = push;
                best_normal = p.zw;
            }
            if pull < best {
                best = pull;
                best_normal = -p.zw;
            }
            p = q;
        }
    }
    if hit {
        results[i] = vec4<f32>(best_normal, max(best, 0.0), 1.0);
        flags[i] = 1u;
    } else {
        results[i] = vec4<f32>(0.0);
        flags[i] = 0u;
    }
}
