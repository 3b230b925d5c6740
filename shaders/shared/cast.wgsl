// Casts in a core's own frame, shared by rays and shape casts (ray.wgsl) and continuous
// collision (impact.wgsl): a point in a core grown by a radius, a ray against it, and a core
// cast against another (the ray against their Minkowski difference). The importer defines the
// cores, where they are read from (`count` vertices, each scaled alike), and imports
// `local_shape` (closest_on):
// needs: Core vertex_in normal_in

const BIG: f32 = 3.0e38;
// How far outside the boundary, in units of the shape's size, a point still counts as on it
// (beside the rounding of the world coordinates): a few f32 roundings of the shape's own.
const ON_EDGE: f32 = 4e-7;

// Whether the point `o` (scaled) lies in the shape: within `r` (scaled) of the core, or `edge`
// (scaled) outside.
fn inside(b: Core, r: f32, edge: f32, o: vec2<f32>) -> bool {
    if b.count >= 3u {
        var sep = -BIG;
        for (var e = 0u; e < b.count; e++) {
            sep = max(sep, dot(o - vertex_in(b, e), normal_in(b, e)));
        }
        if sep <= edge {
            return true;
        }
        if sep > r + edge {
            return false;
        }
    }
    let d2 = core_d2(b, o);
    return d2 <= (r + edge) * (r + edge);
}

// The nearest hit of the ray `o + t d` (t in [0, limit]; all scaled, as the radius `r`) on the
// core grown by `r` from outside it: (t, normal), or t < 0 for none.
fn cast_local(b: Core, r: f32, o: vec2<f32>, d: vec2<f32>, limit: f32) -> vec3<f32> {
    var best = vec3<f32>(-1.0, 0.0, 0.0);
    if r <= 0.0 && b.count >= 3u {
        // Cyrus-Beck: the ray's part inside every edge's half plane.
        var enter = 0.0;
        var leave = limit;
        var normal = vec2<f32>(0.0);
        for (var e = 0u; e < b.count; e++) {
            let n = normal_in(b, e);
            let gap = dot(vertex_in(b, e) - o, n); // < 0: o outside this edge
            let along = dot(d, n);
            if along < 0.0 {
                let t = gap / along;
                if t > enter || normal.x == 0.0 && normal.y == 0.0 && t >= enter {
                    enter = max(t, enter);
                    normal = n;
                }
            } else if along > 0.0 {
                leave = min(leave, gap / along);
            } else if gap < 0.0 {
                return best;
            }
        }
        if enter <= leave && (normal.x != 0.0 || normal.y != 0.0) {
            best = vec3<f32>(enter, normal);
        }
        return best;
    }
    var near = limit;
    // The core's sides pushed out by the radius (a segment's two sides are its two edges), where
    // the ray meets them from outside.
    if b.count >= 2u {
        for (var e = 0u; e < b.count; e++) {
            let u = vertex_in(b, e);
            let w = vertex_in(b, (e + 1u) % b.count);
            let n = normal_in(b, e);
            let along = dot(d, n);
            if along >= 0.0 {
                continue;
            }
            let t = dot(u + n * r - o, n) / along;
            if t < 0.0 || t > near {
                continue;
            }
            let p = o + d * t - u;
            let edge = w - u;
            let s = dot(p, edge);
            // (An edge rounded to nothing, of a body far smaller than a cast shape, is left to
            // the circles around its ends.)
            let ee = dot(edge, edge);
            if s >= 0.0 && s <= ee && ee > 0.0 {
                near = t;
                best = vec3<f32>(t, n);
            }
        }
    }
    if r > 0.0 {
        for (var k = 0u; k < b.count; k++) {
            let c = vertex_in(b, k);
            let oc = o - c;
            let along = dot(oc, d);
            // The squared distance of the circle's centre from the ray's line, without the
            // cancellation of |oc|^2 - along^2.
            let h = oc - d * along;
            let disc = r * r - dot(h, h);
            if disc < 0.0 {
                continue;
            }
            let t = -along - sqrt(disc);
            if t < 0.0 || t > near {
                continue;
            }
            near = t;
            let at = oc + d * t;
            let len = length(at);
            best = vec3<f32>(t, select(vec2<f32>(0.0), at / len, len > 0.0));
        }
    }
    return best;
}

// Whether the segments [p, q] and [u, w] cross (each one's ends on opposite sides of the other,
// or on it; not along one line, where M's edges decide).
fn crossing(p: vec2<f32>, q: vec2<f32>, u: vec2<f32>, w: vec2<f32>) -> bool {
    let e = q - p;
    let f = w - u;
    let o1 = e.x * (u.y - p.y) - e.y * (u.x - p.x);
    let o2 = e.x * (w.y - p.y) - e.y * (w.x - p.x);
    let o3 = f.x * (p.y - u.y) - f.y * (p.x - u.x);
    let o4 = f.x * (q.y - u.y) - f.y * (q.x - u.x);
    let apart = (o1 > 0.0 && o2 > 0.0) || (o1 < 0.0 && o2 < 0.0) || (o3 > 0.0 && o4 > 0.0) || (o3 < 0.0 && o4 < 0.0);
    return !apart && !(o1 == 0.0 && o2 == 0.0);
}

// Whether the edge of outward normal `n` points within the first half turn from +x (its
// angle in [0, pi)).
fn first_half(n: vec2<f32>) -> bool {
    return n.x > 0.0 || (n.x == 0.0 && n.y < 0.0);
}

// The edge of a core (its normals times `sign`) from its lowest vertex: the first whose
// direction lies in the first half turn after one that does not; ordered by the unit normals,
// which a core far smaller than the frame's unit keeps where its vertices round together.
fn first_edge(c: Core, sign: f32) -> u32 {
    for (var k = 0u; k < c.count; k++) {
        let before = normal_in(c, (k + c.count - 1u) % c.count) * sign;
        if first_half(normal_in(c, k) * sign) && !first_half(before) {
            return k;
        }
    }
    return 0u;
}

// An edge of the Minkowski difference M = body core + (-shape core) (its edges are the two
// cores' edges merged by the angle of their normals, from each core's lowest vertex: `p`, `q`
// count from there, `more_p`, `more_q` whether a core has edges left): the body's edge from its
// vertex pi (`take_p`), the shape's reflected edge from -its vertex qj, or both at once where
// they are parallel (`both`); from pi + qj along e (e from the cores' own edges: where one core
// is far smaller than the other, w - u would round its edges away), outward normal n.
struct MEdge {
    take_p: bool,
    both: bool,
    pi: vec2<f32>,
    qj: vec2<f32>,
    ep: vec2<f32>,
    e: vec2<f32>,
    n: vec2<f32>,
}

fn m_edge(body: Core, shape: Core, p: u32, q: u32, more_p: bool, more_q: bool) -> MEdge {
    let np = body.count;
    let nq = shape.count;
    let pi = vertex_in(body, p % np);
    let qj = -vertex_in(shape, q % nq);
    let ep = vertex_in(body, (p + 1u) % np) - pi;
    let eq = -vertex_in(shape, (q + 1u) % nq) - qj;
    let np_i = normal_in(body, p % np);
    let nq_j = -normal_in(shape, q % nq);
    let c = np_i.x * nq_j.y - np_i.y * nq_j.x;
    // The body's edge first where its angle is smaller (or the same: both at once); of
    // opposite edges, the one in the first half turn.
    let same = c == 0.0 && dot(np_i, nq_j) > 0.0;
    let take_p = !more_q || (more_p && (c > 0.0 || same || (c == 0.0 && first_half(np_i))));
    let both = take_p && more_q && same;
    var e = eq;
    var n = nq_j;
    if take_p {
        e = select(ep, ep + eq, both);
        n = np_i;
    }
    return MEdge(take_p, both, pi, qj, ep, e, n);
}

// How far apart the body's core and the shape's core with its anchor at `o` lie (scaled): 0
// where they overlap (o in M, or two segments that cross), otherwise the distance from o to M.
fn core_gap(body: Core, shape: Core, o: vec2<f32>) -> f32 {
    if shape.count == 1u {
        return point_gap(body, o + vertex_in(shape, 0u));
    }
    if body.count == 1u {
        return point_gap(shape, vertex_in(body, 0u) - o);
    }
    let ip = first_edge(body, 1.0);
    let iq = first_edge(shape, -1.0);
    var sep = -BIG;
    var d2 = BIG;
    var i = 0u;
    var j = 0u;
    loop {
        if i >= body.count && j >= shape.count {
            break;
        }
        let m = m_edge(body, shape, ip + i, iq + j, i < body.count, j < shape.count);
        let u = m.pi + m.qj;
        sep = max(sep, dot(o - u, m.n));
        let x = closest_on(o, u, u + m.e) - o;
        d2 = min(d2, dot(x, x));
        if m.take_p {
            i++;
        }
        if !m.take_p || m.both {
            j++;
        }
    }
    if (body.count >= 3u || shape.count >= 3u) && sep <= 0.0 {
        return 0.0;
    }
    if body.count == 2u && shape.count == 2u {
        let p = o + vertex_in(shape, 0u);
        let q = o + vertex_in(shape, 1u);
        if crossing(p, q, vertex_in(body, 0u), vertex_in(body, 1u)) {
            return 0.0;
        }
    }
    return sqrt(d2);
}

// How far the point `o` lies from the core (scaled): 0 inside it.
fn point_gap(b: Core, o: vec2<f32>) -> f32 {
    if b.count >= 3u {
        var sep = -BIG;
        for (var e = 0u; e < b.count; e++) {
            sep = max(sep, dot(o - vertex_in(b, e), normal_in(b, e)));
        }
        if sep <= 0.0 {
            return 0.0;
        }
    }
    return sqrt(core_d2(b, o));
}

// The squared distance of the point `o` from the core's boundary (a segment's: from the segment).
fn core_d2(b: Core, o: vec2<f32>) -> f32 {
    var d2 = BIG;
    if b.count == 1u {
        let x = o - vertex_in(b, 0u);
        d2 = dot(x, x);
    } else {
        let sides = select(b.count, 1u, b.count == 2u);
        for (var e = 0u; e < sides; e++) {
            let x = closest_on(o, vertex_in(b, e), vertex_in(b, (e + 1u) % b.count)) - o;
            d2 = min(d2, dot(x, x));
        }
    }
    return d2;
}

// The shape cast `shape` (its anchor at `o`, moved along `d`) against the body's core `body`:
// the ray from `o` against their Minkowski difference M = body core + (-shape core) grown by
// `grown` (both radii): a point p of M grown lies within both radii of the body's core exactly
// when the shape's core moved to p does. M's edges are the two cores' edges merged by the angle
// of their normals (from each core's lowest vertex), walked once: O(n + m). (t, body's outward normal, point of
// the body touched, scaled, in its frame); t < 0 for none, t = 0 where they touch at the start
// (`start`: check).
fn cast_shape(body: Core, shape: Core, round: f32, own: f32, edge: f32, o: vec2<f32>, d: vec2<f32>, limit: f32, start: bool) -> Hit {
    let grown = round + own;
    let np = body.count;
    let nq = shape.count;
    let ip = first_edge(body, 1.0);
    let iq = first_edge(shape, -1.0);
    // M is the intersection of its edges' half planes where a core has an area. Two segments'
    // M is a parallelogram, thin or flat where they are near parallel: the ray meets its sides
    // (no clipping), and at the start the segments touch where they cross or M's edges come
    // within both radii.
    let solid = np >= 3u || nq >= 3u;
    let clip = grown <= 0.0 && solid;
    var sep = -BIG;
    var d2 = BIG;
    var enter = 0.0;
    var leave = limit;
    var near = limit;
    var best = Hit(-1.0, vec2<f32>(0.0), vec2<f32>(0.0));
    var i = 0u;
    var j = 0u;
    loop {
        if i >= np && j >= nq {
            break;
        }
        let m = m_edge(body, shape, ip + i, iq + j, i < np, j < nq);
        let take_p = m.take_p;
        let both = m.both;
        let pi = m.pi;
        let qj = m.qj;
        let ep = m.ep;
        let u = pi + qj;
        let e = m.e;
        let n = m.n;
        let w = u + e;
        let gap = dot(o - u, n);
        sep = max(sep, gap);
        if start {
            let x = closest_on(o, u, w) - o;
            d2 = min(d2, dot(x, x));
        }
        let along = dot(d, n);
        if clip {
            // Cyrus-Beck, as cast_local.
            if along < 0.0 {
                let t = -gap / along;
                if t > enter || best.normal.x == 0.0 && best.normal.y == 0.0 && t >= enter {
                    enter = max(t, enter);
                    best.normal = n;
                    best.point = select(pi, closest_on(o + d * t - qj, pi, pi + ep), take_p);
                }
            } else if along > 0.0 {
                leave = min(leave, -gap / along);
            } else if gap > 0.0 {
                leave = -1.0;
            }
        } else {
            if along < 0.0 {
                let t = dot(u + n * grown - o, n) / along;
                let p = o + d * t - u;
                let s = dot(p, e);
                let ee = dot(e, e);
                if t >= 0.0 && t <= near && s >= 0.0 && s <= ee && ee > 0.0 {
                    near = t;
                    // (Of parallel edges, the point of the body's edge nearest.)
                    let on_p = closest_on(o + d * t - qj - n * grown, pi, pi + ep) + n * round;
                    best = Hit(t, n, select(pi + n * round, on_p, take_p));
                }
            }
            if grown > 0.0 {
                // The circle around M's vertex u: the body's vertex pi against the shape's qj.
                let ou = o - u;
                let a = dot(ou, d);
                let h = ou - d * a;
                let disc = grown * grown - dot(h, h);
                if disc >= 0.0 {
                    let t = -a - sqrt(disc);
                    if t >= 0.0 && t <= near {
                        near = t;
                        let at = ou + d * t;
                        let len = length(at);
                        let nn = select(vec2<f32>(0.0), at / len, len > 0.0);
                        best = Hit(t, nn, pi + nn * round);
                    }
                }
            }
        }
        if take_p {
            i++;
        }
        if !take_p || both {
            j++;
        }
    }
    if start {
        let reach = grown + edge;
        var touching = (solid && sep <= edge) || (sep <= reach && d2 <= reach * reach);
        if np == 2u && nq == 2u {
            let p = o + vertex_in(shape, 0u);
            let q = o + vertex_in(shape, 1u);
            touching = touching || crossing(p, q, vertex_in(body, 0u), vertex_in(body, 1u));
        }
        if touching {
            return Hit(0.0, vec2<f32>(0.0), vec2<f32>(0.0));
        }
    }
    if clip {
        if enter <= leave && (best.normal.x != 0.0 || best.normal.y != 0.0) {
            best.t = enter;
        } else {
            best.t = -1.0;
        }
    }
    return best;
}

// A hit on one body: t < 0 for none; the body's outward normal and (shape casts) the point of
// its boundary touched, in the world.
struct Hit {
    t: f32,
    normal: vec2<f32>,
    point: vec2<f32>,
}
