// Contact manifolds and containment flags (ContactDetail::Full): one invocation per colliding
// pair, after the compaction, over the first contact_args[3] contacts. Runs only when asked for,
// so the default frame pays nothing for it. Works in the narrow phase's pair frame (side.wgsl).
//
// The manifold, after Box2D's b2ClipPolygons. The reference face is the edge, of a or of b, whose
// outward normal is most aligned with the pair's normal n (from a to b; for b's edges, with -n;
// ties go to a). The incident edge is the other core's edge most aligned with the opposite
// direction. When the reference face's normal m agrees with n to within ALIGNED, the incident
// edge is clipped to the slab of the reference face, and each clipped end whose separation s from
// the reference face is within the reach r_a + r_b (plus the margin, WorldOptions::margin) gives a
// point with depth r_a + r_b - s, placed midway between the two surfaces (its depth along m, half
// on each side; for a pair apart the depth is negative and the point midway between the closest
// points). Otherwise (a circle, a
// vertex against a vertex, or nothing left after clipping) the manifold is one point with the
// pair's depth: the deepest point of b's surface along -n moved by half the depth along n, or,
// where b's face is the better aligned, of a's surface along n moved back by half the depth.
//
// Containment: every point of a rounded shape P (core C_P, radius r_P) lies in Q when, with
// delta = r_P - r_Q, either delta >= 0 and every vertex of C_P lies at least delta inside every
// half-plane bounding C_Q, or delta < 0 and every vertex of C_P lies within -delta of C_Q. Both
// are decided on squared quantities of vertex differences: exact on small integers.

#import constants
#import params
#import instance
#import index
#import side
#import image
#import near
#import contact


@group(0) @binding(0) var<storage, read> contact_args: array<u32, 4>; // [3] = colliding pairs
@group(0) @binding(1) var<storage, read> contacts: array<Contact>;
#paged instances 2 read instances Instance
#paged shapes 3 read shapes vec4<f32>    // (vertex.xy, unit normal.xy), local
#paged instances 4 read transforms vec4<f32> // anchor = (x, y), cos, sin
@group(0) @binding(5) var<storage, read_write> manifolds: array<Manifold>;
@group(0) @binding(6) var<uniform> params: Params;

// How far (1 - cos) the reference face's normal may turn from the pair's normal for clipping.
const ALIGNED: f32 = 1.0e-4;

// The edge of P whose unit outward normal is most aligned with `dir` (the first of equals), and
// that cosine; -2 where P's core has no edge.
struct Aligned {
    edge: u32,
    cos: f32,
}

fn most_aligned(p: Side, dir: vec2<f32>) -> Aligned {
    var best = Aligned(0u, -2.0);
    for (var e = 0u; e < faces(p.count); e++) {
        let c = dot(normal(p, e), dir);
        if c > best.cos {
            best = Aligned(e, c);
        }
    }
    return best;
}

// Up to two points of a manifold in the pair's frame, with their depths.
struct Points {
    count: u32,
    p1: vec2<f32>,
    d1: f32,
    p2: vec2<f32>,
    d2: f32,
}

// Where the segment from w1 (at u1 along the slab's axis) to w2 (at u2) crosses the slab's
// boundary u = bound.
fn cut(w1: vec2<f32>, w2: vec2<f32>, u1: f32, u2: f32, bound: f32) -> vec2<f32> {
    return w1 + (w2 - w1) * ((bound - u1) / (u2 - u1));
}

// Q's edge j clipped to the slab of P's edge e (the reference face), keeping the ends within the
// reach and the margin (depth at least -margin); see the top of the file.
fn clip(p: Side, e: u32, q: Side, j: u32, rq: f32, reach: f32, margin: f32) -> Points {
    var out = Points(0u, vec2<f32>(0.0), 0.0, vec2<f32>(0.0), 0.0);
    let v1 = vertex(p, e);
    let t = vertex(p, next(e, p.count)) - v1;
    let len2 = dot(t, t);
    let m = normal(p, e);
    let w1 = vertex(q, j);
    let w2 = vertex(q, next(j, q.count));
    let u1 = dot(w1 - v1, t);
    let u2 = dot(w2 - v1, t);
    if max(u1, u2) < 0.0 || min(u1, u2) > len2 {
        return out;
    }
    var ends = array<vec2<f32>, 2>(w1, w2);
    let us = array<f32, 2>(u1, u2);
    for (var k = 0u; k < 2u; k++) {
        if us[k] < 0.0 {
            ends[k] = cut(w1, w2, u1, u2, 0.0);
        } else if us[k] > len2 {
            ends[k] = cut(w1, w2, u1, u2, len2);
        }
        let depth = reach - dot(ends[k] - v1, m);
        if depth < -margin {
            continue;
        }
        let at = ends[k] - m * rq + m * (0.5 * depth);
        if out.count == 0u {
            out = Points(1u, at, depth, vec2<f32>(0.0), 0.0);
        } else if length(ends[1] - ends[0]) <= NEAR_VERTICES {
            // Both ends clipped to one point: keep the deeper.
            if depth > out.d1 {
                out.p1 = at;
                out.d1 = depth;
            }
        } else {
            out.count = 2u;
            out.p2 = at;
            out.d2 = depth;
        }
    }
    return out;
}

// The half-planes bounding Q's core: its edges, then for a segment its two end caps, for a point
// the four axis directions. Half-plane h is (a point on its line, its unnormalised outward normal).
fn half_planes(count: u32) -> u32 {
    return select(count, 4u, count <= 2u);
}

fn half_plane(q: Side, h: u32) -> array<vec2<f32>, 2> {
    if q.count == 1u {
        let axes = array<vec2<f32>, 4>(vec2<f32>(1.0, 0.0), vec2<f32>(-1.0, 0.0), vec2<f32>(0.0, 1.0), vec2<f32>(0.0, -1.0));
        return array<vec2<f32>, 2>(vertex(q, 0u), axes[h]);
    }
    if q.count == 2u && h >= 2u {
        // The caps: beyond vertex 1 along v1 - v0 (h = 2), beyond vertex 0 along v0 - v1 (h = 3).
        let o = vertex(q, 3u - h);
        return array<vec2<f32>, 2>(o, o - vertex(q, h - 2u));
    }
    let v = vertex(q, h);
    let w = vertex(q, next(h, q.count));
    return array<vec2<f32>, 2>(v, vec2<f32>(w.y - v.y, v.x - w.x));
}

// Whether `v` lies within r of Q's core (inside it, for a core with area).
fn near_core(q: Side, v: vec2<f32>, r: f32) -> bool {
    if q.count <= 2u {
        return point_segment(v, vertex(q, 0u), vertex(q, q.count - 1u), r).within;
    }
    var inside = true;
    for (var e = 0u; e < q.count; e++) {
        let h = half_plane(q, e);
        if dot(h[1], v - h[0]) > 0.0 {
            inside = false;
            break;
        }
    }
    if inside {
        return true;
    }
    for (var e = 0u; e < q.count; e++) {
        if point_segment(v, vertex(q, e), vertex(q, next(e, q.count)), r).within {
            return true;
        }
    }
    return false;
}

// Whether every point of P (core plus rp) lies in Q (core plus rq); see the top of the file.
fn contained(p: Side, rp: f32, q: Side, rq: f32) -> bool {
    let delta = rp - rq;
    if delta >= 0.0 {
        for (var h = 0u; h < half_planes(q.count); h++) {
            let plane = half_plane(q, h);
            let bound = delta * delta * dot(plane[1], plane[1]);
            for (var k = 0u; k < p.count; k++) {
                let x = dot(plane[1], vertex(p, k) - plane[0]);
                if x > 0.0 || (delta > 0.0 && x * x < bound) {
                    return false;
                }
            }
        }
        return true;
    }
    for (var k = 0u; k < p.count; k++) {
        if !near_core(q, vertex(p, k), -delta) {
            return false;
        }
    }
    return true;
}

// The bounding box (min.xy, max.xy) of a side's core grown by r.
fn bounds(s: Side, r: f32) -> vec4<f32> {
    var lo = vertex(s, 0u);
    var hi = lo;
    for (var k = 1u; k < s.count; k++) {
        let v = vertex(s, k);
        lo = min(lo, v);
        hi = max(hi, v);
    }
    return vec4<f32>(lo - r, hi + r);
}

// Whether box x sticks out of box y by more than rounding can explain (the pair's frame has size 1
// to 2): then x's shape is not inside y's, and the exact test is skipped.
fn sticks_out(x: vec4<f32>, y: vec4<f32>) -> bool {
    let slack = 1.0e-5;
    return any(x.xy < y.xy - slack) || any(x.zw > y.zw + slack);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= contact_args[3] {
        return;
    }
    let c = contacts[i];
    let ba = instances_at(c.a);
    let bb = instances_at(c.b);
    let ta = transforms_at(c.a);
    let tb = transforms_at(c.b);
    // A pair in a periodic box is judged with the image of b its compaction names (in `pad`).
    let frame = pair_frame(ba, bb, ta, tb, image_shift(ta.xy, tb.xy, c.pad));
    let a = frame.a;
    let b = frame.b;
    let ra = ba.round * a.scale;
    let rb = bb.round * a.scale;
    let reach = ra + rb;
    let n = vec2<f32>(c.normal_x, c.normal_y);
    let depth = c.depth * a.scale;
    let margin = params.margin * a.scale;

    let fa = most_aligned(a, n);
    let fb = most_aligned(b, -n);
    var points = Points(0u, vec2<f32>(0.0), 0.0, vec2<f32>(0.0), 0.0);
    if fa.cos >= fb.cos {
        if fa.cos >= 1.0 - ALIGNED && fb.cos > -2.0 {
            points = clip(a, fa.edge, b, fb.edge, rb, reach, margin);
        }
    } else if fb.cos >= 1.0 - ALIGNED && fa.cos > -2.0 {
        points = clip(b, fb.edge, a, fa.edge, ra, reach, margin);
    }
    if points.count == 0u {
        // From the side whose support is a point, not a face: b's, unless b's face is the better
        // aligned (a circle on a box's face: the point under the circle, not a corner of the box).
        var surface = vertex(b, support_scan(b, n)) - n * rb;
        var half = n * (0.5 * depth);
        if fb.cos > fa.cos {
            surface = vertex(a, support_scan(a, -n)) + n * ra;
            half = -half;
        }
        points = Points(1u, surface + half, depth, vec2<f32>(0.0), 0.0);
    }

    let box_a = bounds(a, ra);
    let box_b = bounds(b, rb);
    let a_in_b = !sticks_out(box_a, box_b) && contained(a, ra, b, rb);
    let b_in_a = !sticks_out(box_b, box_a) && contained(b, rb, a, ra);

    // Back to world coordinates, exactly up to the final rounding.
    let unscale = pow2(-frame.k);
    let p1 = ta.xy + points.p1 * unscale;
    let p2 = ta.xy + points.p2 * unscale;
    let flags = select(0u, 1u, a_in_b) | select(0u, 2u, b_in_a) | (points.count << 2u);
    manifolds[i] = Manifold(flags, p1.x, p1.y, points.d1 * unscale, p2.x, p2.y, points.d2 * unscale, 0u);
}
