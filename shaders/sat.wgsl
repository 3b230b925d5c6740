// Narrow phase: one invocation per candidate pair (a, b). Separating axis test over the edge
// normals of both polygons, in a frame centred on a's anchor: each shape is rotated here, relative
// to its own anchor, and b's vertices are shifted by the difference of the two anchors. Precision
// is therefore set by the size of the pair, not by its distance from the origin.
//
// Support-point SAT: polygons are convex and counter-clockwise, so for an edge e of P (vertex p,
// unnormalised outward normal axis) the separation of Q is the minimum over Q's vertices q of
// dot(axis, q - p), reached at Q's support point against the axis. As e walks counter-clockwise
// round P, that support point walks counter-clockwise round Q, so it is found by hill climbing
// from the previous one: O(n_P + n_Q) per polygon, not O(n_P * n_Q). The climb decides each step
// on dot(axis, q[j+1] - q[j]), an edge vector of Q, so tiny edges cannot stop it early. After a
// turn of P sharper than 90 degrees the old support point may sit at Q's far side, so the support
// point is found again by a full scan there (a convex polygon has at most three such turns).
//
// The largest separation over the faces of a (moving b along +normal) and of b (moving b along
// -normal) is the SAT minimum translation: depth = -separation. This equals the least penetration
// over every edge normal in both directions (the reference's definition): a direction that is not
// a face normal of the Minkowski difference never gives less. Ties go to the first face (a's
// edges, then b's, counter-clockwise), so results are deterministic.
//
// The verdict uses unnormalised edge normals computed from the vertices: with small integer
// coordinates every product and sum is exact in f32, so touching polygons are found exactly. Each
// pair is first scaled by a power of two chosen from its size (exact, so integers stay exact), so
// products neither overflow nor underflow for pair sizes anywhere from 1e-30 to 1e30.

#import constants
#import body
#import index

@group(0) @binding(0) var<storage, read> control: array<u32>;         // [PAIRS] = candidates to test
@group(0) @binding(1) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> bodies: array<Body>;
@group(0) @binding(3) var<storage, read> shapes: array<vec4<f32>>;    // (vertex.xy, unit normal.xy), local
@group(0) @binding(4) var<storage, read> transforms: array<vec4<f32>>; // anchor = (x, y), cos, sin
@group(0) @binding(5) var<storage, read_write> results: array<vec4<f32>>; // (normal.xy, depth, hit)
@group(0) @binding(6) var<storage, read_write> flags: array<u32>;     // 1 if the pair collides

// Polygons of at most SMALL vertices each (most scenes) are copied into private arrays once and
// tested by brute force over fixed-length loops: lanes of a SIMD software adapter then never wait
// for each other. Padding repeats vertex 0, which changes no minimum.
const SMALL: u32 = 8u;
var<private> cache_a: array<vec2<f32>, 8>;
var<private> cache_b: array<vec2<f32>, 8>;

// One side of the pair as the narrow phase sees it: where its shape lives, its rotation and the
// offset and scale that put it in the pair's frame.
struct Side {
    start: u32,
    count: u32,
    rotation: vec2<f32>, // (cos, sin)
    offset: vec2<f32>,   // anchor relative to a's anchor (zero for a)
    scale: f32,
}

// Vertex k of a side in the pair's scaled frame, and its edge's unit outward normal.
fn vertex(s: Side, k: u32) -> vec2<f32> {
    return (rotate(s.rotation, shapes[s.start + k].xy) + s.offset) * s.scale;
}

// Q's edge vector from vertex j to vertex k in the pair's frame, from the local coordinates: the
// offset cancels before any rounding, so even a tiny edge far from a's anchor keeps its direction.
fn edge(s: Side, j: u32, k: u32) -> vec2<f32> {
    return rotate(s.rotation, shapes[s.start + k].xy - shapes[s.start + j].xy) * s.scale;
}

fn normal(s: Side, k: u32) -> vec2<f32> {
    return rotate(s.rotation, shapes[s.start + k].zw);
}

fn next(k: u32, n: u32) -> u32 {
    return select(k + 1u, 0u, k + 1u == n);
}

// The exponent k = -e for the exponent e of m, so that m * 2^k lies in [1, 2), kept within the
// normal range so that 2^k and 2^-k are both exact f32 values.
fn scale_exponent(m: f32) -> i32 {
    let e = i32((bitcast<u32>(m) >> 23u) & 0xffu) - 127;
    return clamp(-e, -126, 126);
}

fn pow2(k: i32) -> f32 {
    return bitcast<f32>(u32(k + 127) << 23u);
}

// The best face of P against Q: (largest separation over P's edges as a unit-normal distance,
// index of that edge, 1 if some edge separates exactly). The separation of edge e is the minimum of
// dot(axis, q - p) over Q, found by the support-point walk described above.
struct Face {
    separation: f32,
    edge: u32,
    apart: bool,
}

fn support_scan(q: Side, axis: vec2<f32>) -> u32 {
    var best = 0u;
    var lowest = dot(axis, vertex(q, 0u));
    for (var k = 1u; k < q.count; k++) {
        let d = dot(axis, vertex(q, k));
        if d < lowest {
            lowest = d;
            best = k;
        }
    }
    return best;
}

// Records edge e, whose separation along its unnormalised outward normal `axis` is s, in the
// best face so far; true when the edge separates the pair (then nothing else matters).
fn consider(face: ptr<function, Face>, s: f32, axis: vec2<f32>, e: u32) -> bool {
    if s > 0.0 {
        (*face).apart = true;
        return true;
    }
    let unit = s / length(axis);
    if unit > (*face).separation {
        (*face).separation = unit;
        (*face).edge = e;
    }
    return false;
}

fn best_face(p: Side, q: Side) -> Face {
    var face = Face(-3.0e38, 0u, false);
    var j = 0u;
    var previous = vec2<f32>(0.0);
    var v = vertex(p, 0u);
    for (var e = 0u; e < p.count; e++) {
        let w = vertex(p, next(e, p.count));
        let axis = vec2<f32>(w.y - v.y, v.x - w.x);
        let n = normal(p, e);
        if e == 0u || dot(n, previous) < 0.0 {
            j = support_scan(q, axis);
        } else {
            // Climb while the next vertex of Q is not higher along the axis; bounded by n_Q steps.
            for (var steps = 0u; steps < q.count; steps++) {
                let k = next(j, q.count);
                if dot(axis, edge(q, j, k)) > 0.0 {
                    break;
                }
                j = k;
            }
        }
        previous = n;
        if consider(&face, dot(axis, vertex(q, j) - v), axis, e) {
            return face;
        }
        v = w;
    }
    return face;
}

// The small path: both polygons in private arrays, brute force over fixed-length loops. The same
// quantities as best_face, so the two paths agree wherever both apply.
fn best_face_small(p_is_a: bool, p: Side) -> Face {
    var face = Face(-3.0e38, 0u, false);
    for (var e = 0u; e < p.count; e++) {
        var v: vec2<f32>;
        var w: vec2<f32>;
        if p_is_a {
            v = cache_a[e];
            w = cache_a[next(e, p.count)];
        } else {
            v = cache_b[e];
            w = cache_b[next(e, p.count)];
        }
        let axis = vec2<f32>(w.y - v.y, v.x - w.x);
        var s = 3.0e38;
        for (var k = 0u; k < SMALL; k++) {
            var q: vec2<f32>;
            if p_is_a {
                q = cache_b[k];
            } else {
                q = cache_a[k];
            }
            s = min(s, dot(axis, q - v));
        }
        if consider(&face, s, axis, e) {
            return face;
        }
    }
    return face;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= control[PAIRS] {
        return;
    }
    let pair = candidates[i];
    let ba = bodies[pair.x];
    let bb = bodies[pair.y];
    let ta = transforms[pair.x];
    let tb = transforms[pair.y];
    let shift = tb.xy - ta.xy; // b's anchor in a's frame
    let extent = max(ba.radius, bb.radius + max(abs(shift.x), abs(shift.y)));
    let k = scale_exponent(extent);
    let scale = pow2(k);
    let a = Side(ba.shape_start, ba.count, ta.zw, vec2<f32>(0.0), scale);
    let b = Side(bb.shape_start, bb.count, tb.zw, shift, scale);
    var fa: Face;
    var fb: Face;
    if ba.count <= SMALL && bb.count <= SMALL {
        for (var k = 0u; k < SMALL; k++) {
            cache_a[k] = vertex(a, select(0u, k, k < ba.count));
            cache_b[k] = vertex(b, select(0u, k, k < bb.count));
        }
        fa = best_face_small(true, a);
        if !fa.apart {
            fb = best_face_small(false, b);
        }
    } else {
        fa = best_face(a, b);
        if !fa.apart {
            fb = best_face(b, a);
        }
    }
    if fa.apart || fb.apart {
        results[i] = vec4<f32>(0.0);
        flags[i] = 0u;
        return;
    }
    // Ties go to a's faces: b's face wins only with a strictly larger separation.
    var best_normal = normal(a, fa.edge);
    var best = fa.separation;
    if fb.separation > best {
        best = fb.separation;
        best_normal = -normal(b, fb.edge);
    }
    // Back from the scaled frame, exactly.
    let depth = max(-best, 0.0) * pow2(-k);
    results[i] = vec4<f32>(best_normal, depth, 1.0);
    flags[i] = 1u;
}
