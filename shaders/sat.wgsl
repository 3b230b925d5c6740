// Narrow phase: one invocation per candidate pair (a, b). Separating axis test over the edge
// normals of both polygons, in a frame centred on a's anchor: each shape is rotated here, relative
// to its own anchor, and b's vertices are shifted by the difference of the two anchors. Precision
// is therefore set by the size of the pair, not by its distance from the origin.
//
// Support-point SAT: polygons are convex and counter-clockwise, so for an edge e of P (vertex p,
// unnormalised outward normal axis) the separation of Q is the minimum over Q's vertices q of
// dot(axis, q - p), reached at Q's support point against the axis. As e walks counter-clockwise
// round P, that support point walks counter-clockwise round Q. Pairs of two polygons of at least
// 3 vertices follow both polygons' faces at once in angle order (best_faces, below): n_P + n_Q
// steps. A point or a segment core against a polygon uses best_face, one polygon at a time: the
// support point is found by hill climbing from the previous one, deciding each step on
// dot(axis, q[j+1] - q[j]), an edge vector of Q, so tiny edges cannot stop it early; after a turn
// of P sharper than 90 degrees the support point is found again by a full scan.
//
// The largest separation over the faces of a (moving b along +normal) and of b (moving b along
// -normal) is the SAT minimum translation: depth = -separation. This equals the least penetration
// over every edge normal in both directions (the reference's definition): a direction that is not
// a face normal of the Minkowski difference never gives less. Ties go to the first face (a's
// edges, then b's, counter-clockwise), so results are deterministic.
//
// Rounded shapes (a convex core plus a radius; circles and capsules are cores of 1 and 2 points):
// the faces are the cores' edges, and with reach = r_a + r_b a face separates the pair only when
// its separation exceeds the reach. Where the cores meet, depth = reach - separation along the
// best face's normal. Where they are apart (best separation > 0), the closest points of the cores
// lie on the best face and the other core's support feature (a point of a convex set outside a
// convex polygon is nearest to the face of largest separation), so the distance d between that
// edge and the two edges at the support vertex is the cores' distance: depth = reach - d along the
// line between the closest points. Where neither core has area (point and point, point and
// segment, two segments), the faces need not bound the difference of the cores, so unless two
// segments cross, the distance between the whole cores is used instead.
//
// The verdict uses unnormalised edge normals computed from the vertices: with small integer
// coordinates every product and sum is exact in f32, so touching polygons are found exactly. Each
// pair is first scaled by a power of two chosen from its size (exact, so integers stay exact), so
// products neither overflow nor underflow for pair sizes anywhere from 1e-30 to 1e30.

#import constants
#import params
#import instance
#import index
#import side
#import image
#import near

@group(0) @binding(0) var<storage, read> control: array<u32>;         // [PAIRS] = candidates to test
@group(0) @binding(1) var<storage, read> candidates: array<vec2<u32>>;
#paged instances 2 read instances Instance
#paged shapes 3 read shapes vec4<f32>    // (vertex.xy, unit normal.xy), local
#paged instances 4 read transforms vec4<f32> // anchor = (x, y), cos, sin
@group(0) @binding(5) var<storage, read_write> results: array<vec4<f32>>; // (normal.xy, depth, hit)
@group(0) @binding(6) var<storage, read_write> flags: array<u32>;     // 1 if the pair collides
// The large pairs (the contacts buffer, free until the compaction): per cost bin their count
// (words 0..COST_BINS), then per bin those listed so far, then the total listed (these zeroed by
// control_pairs.wgsl); from word LARGE_LIST, their candidate indices by bin, costliest first.
@group(0) @binding(7) var<storage, read_write> large: array<atomic<u32>>;
@group(0) @binding(8) var<uniform> params: Params; // the margin (WorldOptions::margin)

// Pairs of two polygons of at most SMALL vertices each (most scenes) are copied into private
// arrays once and tested by brute force over fixed-length loops: lanes of a SIMD software adapter
// then never wait for each other. Padding repeats vertex 0, which changes no minimum.
//
// Larger pairs cost about n_a + n_b + min(n_a, n_b) steps, from 12 to 3,000 in one scene, and the
// lanes of one SIMD group (8 on lavapipe) wait for the costliest pair among them. So the narrow phase
// runs in up to three passes (src/gpu/stages/narrow.rs), picked by PHASE:
//   SMALL_PAIRS: one invocation per candidate; pairs of two small polygons are tested here, and
//                each larger pair is counted in its cost bin (by the bit length of n_a + n_b);
//   BIN:         one invocation per candidate; each larger pair is listed in `large` within
//                its bin, costliest bin first (the order within a bin does not matter: results
//                are written per candidate);
//   LARGE_PAIRS: one invocation per listed pair, so neighbouring lanes have similar work (it is
//                dispatched over all candidates: a dispatch may not read its arguments from a
//                buffer it writes, so invocations past the listed total return at once).
// A world without polygons of more than SMALL vertices runs only the first pass.
override PHASE: u32 = 0u;
const SMALL_PAIRS: u32 = 0u;
const BIN: u32 = 1u;
const LARGE_PAIRS: u32 = 2u;

// Whether some body is rounded (a circle, a capsule, a radius): only then is the distance between
// cores measured. A constant, so that scenes of plain polygons run the SAT without that code
// (src/gpu/kernels/pipelines.rs builds both variants).
override ROUNDED: bool = false;
var<private> cache_a: array<vec2<f32>, 8>;
var<private> cache_b: array<vec2<f32>, 8>;

// The best face of P against Q: (largest separation over P's edges as a unit-normal distance,
// index of that edge, 1 if some edge separates exactly). The separation of edge e is the minimum of
// dot(axis, q - p) over Q, found by the support-point walk described above.
struct Face {
    separation: f32,
    edge: u32,
    support: u32, // Q's support vertex against that edge
    apart: bool,
}

// Records edge e, whose separation along its unnormalised outward normal `axis` is s with Q's
// support vertex j, in the best face so far; true when the edge separates the pair by more than
// the reach (then nothing else matters). Squared, so that it stays exact on small integers.
fn consider(face: ptr<function, Face>, s: f32, axis: vec2<f32>, e: u32, j: u32, reach: f32) -> bool {
    if s > 0.0 && (reach == 0.0 || s * s > reach * reach * dot(axis, axis)) {
        (*face).apart = true;
        return true;
    }
    // Ties go to the lowest edge index, whatever order the edges are visited in.
    let unit = s / length(axis);
    if unit > (*face).separation || (unit == (*face).separation && e < (*face).edge) {
        (*face).separation = unit;
        (*face).edge = e;
        (*face).support = j;
    }
    return false;
}

fn best_face(p: Side, q: Side, reach: f32) -> Face {
    var face = Face(-3.0e38, 0u, 0u, false);
    var j = 0u;
    var previous = vec2<f32>(0.0);
    var v = vertex(p, 0u);
    for (var e = 0u; e < faces(p.count); e++) {
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
        if consider(&face, dot(axis, vertex(q, j) - v), axis, e, j, reach) {
            return face;
        }
        v = w;
    }
    return face;
}

// Both best faces in one walk, for polygons of at least 3 vertices each: P's edge normals and
// the reversed normals of Q's edges, merged in angle order, are the edge normals of the Minkowski
// difference P - Q. From P's edge e and Q's support vertex j against it, each step takes whichever
// comes next: Q's edge j, when its end is no higher than its start along P's current axis (Q's
// support then moves on to its end, and P's current vertex v is P's support against that edge of
// Q), or else P's current edge (Q's vertex j its support). The same few operations in every step,
// so lanes with similar vertex counts stay in step, and no rescan after sharp turns. Decisions use
// the same products as best_face: dot(P's axis, Q's edge) here is exactly minus dot(Q's axis, P's
// edge) there, so both polygons' faces see the same order. Ties between equal separations go to
// the lowest edge (consider), so the result does not depend on where the walk starts.
//
// Only an arc of directions is walked. With c_P, c_Q the centres of circles of radii r_P, r_Q
// inside P and Q (`inner`) and d = c_Q - c_P, a face of either polygon whose direction in the
// merged order is the unit vector u separates the pair by at most dot(u, d) - r_P - r_Q: P's
// support along u is at least dot(u, c_P) + r_P, and Q's least point along u at most
// dot(u, c_Q) - r_Q. That bound peaks at u = d / |d| and falls on both sides. So P's face nearest
// that direction is tested first; its separation L0 bounds the best one from below, and the walk
// starts where the bound falls to L0 (less a margin) on the clockwise side, found by binary
// searches, and stops once past d, on the counter-clockwise side, the bound falls below the best
// separation found (less the margin). The margin, PRUNE_MARGIN in the pair's frame (whose extent
// is at most 2), exceeds the rounding of every quantity compared by far, so no face that could
// win or tie is ever left out, and the result is the whole walk's. About log(n) + the arc's faces
// steps; the whole n_P + n_Q when the arc is everything (deep overlaps, or c_P = c_Q). Pairs of
// fewer than PRUNE_FROM vertices in all walk every face from P's edge 0 (on CPU adapters, where
// the searches and bounds of such pairs cost about what they save; Tuning::prune_from).
struct Faces {
    p: Face,
    q: Face,
}

const PRUNE_MARGIN: f32 = 0.000244140625; // 2^-12
// cos and sin of 2^-8 rad: how much further clockwise than the arc's end the walk starts.
const COS_SAFE: f32 = 0.99999237;
const SIN_SAFE: f32 = 0.0039062400;
// Set from src/gpu/kernels/pipelines.rs (Tuning::prune_from).
override PRUNE_FROM: u32 = 128u;

// The inner circle of a side in its local frame: (centre, radius). A shape of more than SMALL
// vertices carries it in the record after its vertices (src/gpu/host/pack.rs: inner_circle); for
// smaller ones it is computed here the same way: the centre is the mean of vertices 0, count / 4,
// count / 2 and 3 count / 4 (inside: the shape is convex), the radius the least distance from it
// to an edge's line.
fn inner(s: Side) -> vec3<f32> {
    if s.count > SMALL {
        return shapes_at(s.start + s.count).xyz;
    }
    let m = s.count;
    let c = 0.25 * (shapes_at(s.start).xy + shapes_at(s.start + m / 4u).xy + shapes_at(s.start + m / 2u).xy + shapes_at(s.start + 3u * m / 4u).xy);
    var r = 3.0e38;
    for (var k = 0u; k < s.count; k++) {
        let v = shapes_at(s.start + k);
        r = min(r, dot(v.zw, v.xy - c));
    }
    return vec3<f32>(c, max(r, 0.0));
}

// How far x is turned counter-clockwise from the unit vector n0, as a number in [0, 4) that grows
// with the angle (exact enough for a binary search whose result is checked afterwards).
fn turn(n0: vec2<f32>, x: vec2<f32>) -> f32 {
    let c = dot(n0, x);
    return select(3.0 + c, 1.0 - c, n0.x * x.y - n0.y * x.x >= 0.0);
}

// The last edge of s, counting counter-clockwise from edge 0, whose outward normal is turned no
// further than the direction u (pair frame): binary search over the stored local unit normals.
fn edge_at(s: Side, u: vec2<f32>) -> u32 {
    let local = vec2<f32>(s.rotation.x * u.x + s.rotation.y * u.y, s.rotation.x * u.y - s.rotation.y * u.x);
    let n0 = shapes_at(s.start).zw;
    let key = turn(n0, local);
    var lo = 0u;
    var hi = s.count;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if turn(n0, shapes_at(s.start + mid).zw) <= key {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Q's vertex lowest along `axis` (pair frame): the binary search's candidate, then a climb in
// each direction on Q's edge vectors (edge), as the walk decides, so that rounding in the search
// cannot leave a higher vertex.
fn support_toward(q: Side, axis: vec2<f32>) -> u32 {
    var j = next(edge_at(q, -axis), q.count);
    for (var steps = 0u; steps < q.count; steps++) {
        let k = next(j, q.count);
        if dot(axis, edge(q, j, k)) >= 0.0 {
            break;
        }
        j = k;
    }
    for (var steps = 0u; steps < q.count; steps++) {
        let k = prev(j, q.count);
        if dot(axis, edge(q, k, j)) <= 0.0 {
            break;
        }
        j = k;
    }
    return j;
}

fn best_faces(p: Side, q: Side, reach: f32) -> Faces {
    var fp = Face(-3.0e38, 0u, 0u, false);
    var fq = Face(-3.0e38, 0u, 0u, false);
    var d = vec2<f32>(0.0);
    var radii = 0.0;
    let prune = p.count + q.count >= PRUNE_FROM;
    if prune {
        let ip = inner(p);
        let iq = inner(q);
        d = placed(q, iq.xy) - placed(p, ip.xy);
        radii = (ip.z + iq.z) * p.scale; // both sides share the pair's scale
    }
    let far = length(d);
    var e = 0u; // P's current edge, from v to w
    if far > 0.0 {
        // P's face nearest the direction of d, with Q's support against it: L0.
        let f = edge_at(p, d / far);
        let fv = vertex(p, f);
        let fw = vertex(p, next(f, p.count));
        let fa = vec2<f32>(fw.y - fv.y, fv.x - fw.x);
        let fj = support_toward(q, fa);
        if consider(&fp, dot(fa, vertex(q, fj) - fv), fa, f, fj, reach) {
            return Faces(fp, fq);
        }
        // Where the bound falls to L0: the arc's clockwise end, d turned clockwise by acos(c).
        let c = clamp((fp.separation - PRUNE_MARGIN + radii) / far, -1.0, 1.0);
        let s = sqrt(max(0.0, 1.0 - c * c));
        let u = vec2<f32>(d.x * c + d.y * s, d.y * c - d.x * s) / far;
        // P's last face before u turned a little further clockwise (by 2^-8 rad, far more than
        // the rounding of u and of the search): the walk never starts inside the arc. (Starting
        // one P edge before the face at u, as this did, could start it inside the arc, past the
        // whole clockwise half, where P's faces are sparse: a circular segment's chord spans
        // half a turn, and the walk then stopped after d without the faces between u and d.)
        let uc = vec2<f32>(u.x * COS_SAFE + u.y * SIN_SAFE, u.y * COS_SAFE - u.x * SIN_SAFE);
        e = edge_at(p, uc);
    }
    var v = vertex(p, e);
    var w = vertex(p, next(e, p.count));
    var axis = vec2<f32>(w.y - v.y, v.x - w.x);
    // Q's support against P's edge e: by binary search where the walk is pruned, else (small
    // polygons, mostly) by a scan.
    var j: u32;
    if prune {
        j = support_toward(q, axis);
    } else {
        j = support_scan(q, axis);
    }
    var k = next(j, q.count);
    var lj = shapes_at(q.start + j).xy;
    var lk = shapes_at(q.start + k).xy;
    var qj = placed(q, lj);
    var qk = placed(q, lk);
    var i = 0u; // P's faces done
    var done = 0u; // Q's faces done
    // Stopping is sound only after the walk has come through d from its clockwise side: `before`,
    // a face less than half a turn clockwise of d has come (the start may lie on either side when
    // the arc is the whole turn), and `passed`, after it one turned at least as far as d, by less
    // than a quarter turn.
    var before = false;
    var passed = false;
    for (var step = 0u; step < p.count + q.count; step++) {
        let along = rotate(q.rotation, lk - lj) * q.scale; // Q's edge j, as edge() computes it
        let q_next = i == p.count || (done < q.count && dot(axis, along) <= 0.0);
        if prune {
            // This face's direction in the merged order, and the bound on its separation.
            let u = select(axis, vec2<f32>(qj.y - qk.y, qk.x - qj.x), q_next);
            let toward = dot(u, d) / length(u);
            let cross = d.x * u.y - d.y * u.x;
            before = before || cross < 0.0 || (cross == 0.0 && toward < 0.0);
            passed = passed || (before && toward > 0.0 && cross >= 0.0);
            if passed && toward - radii < max(fp.separation, fq.separation) - PRUNE_MARGIN {
                break;
            }
        }
        if q_next {
            let axis_q = vec2<f32>(qk.y - qj.y, qj.x - qk.x);
            if consider(&fq, dot(axis_q, v - qj), axis_q, j, e, reach) {
                break;
            }
            done++;
            j = k;
            k = next(k, q.count);
            lj = lk;
            qj = qk;
            lk = shapes_at(q.start + k).xy;
            qk = placed(q, lk);
        } else {
            if consider(&fp, dot(axis, qj - v), axis, e, j, reach) {
                break;
            }
            i++;
            e = next(e, p.count);
            v = w;
            if i < p.count {
                w = vertex(p, next(e, p.count));
                axis = vec2<f32>(w.y - v.y, v.x - w.x);
            }
        }
    }
    return Faces(fp, fq);
}

// The small path: both polygons in private arrays, brute force over fixed-length loops. The same
// quantities as best_face, so the two paths agree wherever both apply.
fn best_face_small(p_is_a: bool, p: Side, reach: f32) -> Face {
    var face = Face(-3.0e38, 0u, 0u, false);
    for (var e = 0u; e < faces(p.count); e++) {
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
        // Only the separation here; the support vertex is found afterwards for the one face that
        // needs it (see support_of), which keeps this innermost loop a plain minimum.
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
        if consider(&face, s, axis, e, 0u, reach) {
            return face;
        }
    }
    return face;
}

// Q's support vertex against P's best face: known from the walk on the large path, found again
// on the small path, which does not track it (the first lowest vertex, as a scan would).
fn support_of(small: bool, p: Side, face: Face, q: Side) -> u32 {
    if !small {
        return face.support;
    }
    let v = vertex(p, face.edge);
    let w = vertex(p, next(face.edge, p.count));
    return support_scan(q, vec2<f32>(w.y - v.y, v.x - w.x));
}

// Whether the segments [p, q] and [u, v] cross at a point inside both (strict orientations).
fn segments_cross(p: vec2<f32>, q: vec2<f32>, u: vec2<f32>, v: vec2<f32>) -> bool {
    let e = q - p;
    let f = v - u;
    let d1 = e.x * (u.y - p.y) - e.y * (u.x - p.x);
    let d2 = e.x * (v.y - p.y) - e.y * (v.x - p.x);
    let d3 = f.x * (p.y - u.y) - f.y * (p.x - u.x);
    let d4 = f.x * (q.y - u.y) - f.y * (q.x - u.x);
    return ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0));
}

// The nearest points between P's edge e and Q's two edges at its support vertex j, with the
// points of P in `on_a` and those of Q in `on_b`.
fn face_distance(p: Side, e: u32, q: Side, j: u32, reach: f32) -> Near {
    let p0 = vertex(p, e);
    let p1 = vertex(p, next(e, p.count));
    let q0 = vertex(q, prev(j, q.count));
    let q1 = vertex(q, j);
    let q2 = vertex(q, next(j, q.count));
    return nearer(segment_segment(p0, p1, q0, q1, reach), segment_segment(p0, p1, q1, q2, reach));
}

// The cost bin of a pair of polygons with n vertices in all: 0 for n >= 2048, then one bin per
// halving, the last one for n < 32.
fn cost_bin(n: u32) -> u32 {
    return min(COST_BINS - 1u, 11u - min(11u, firstLeadingBit(n)));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = linear_index(gid, nwg);
    if PHASE == LARGE_PAIRS {
        if t < atomicLoad(&large[2u * COST_BINS]) {
            test(atomicLoad(&large[LARGE_LIST + t]), false);
        }
        return;
    }
    if t >= control[PAIRS] {
        return;
    }
    let pair = candidate_bodies(candidates[t]);
    let n = vec2<u32>(instances_at(pair.x).count, instances_at(pair.y).count);
    if n.x <= SMALL && n.y <= SMALL {
        if PHASE == SMALL_PAIRS {
            test(t, true);
        }
        return;
    }
    let bin = cost_bin(n.x + n.y);
    if PHASE == SMALL_PAIRS {
        atomicAdd(&large[bin], 1u);
    } else {
        var slot = atomicAdd(&large[COST_BINS + bin], 1u);
        for (var b = 0u; b < bin; b++) {
            slot += atomicLoad(&large[b]);
        }
        atomicStore(&large[LARGE_LIST + slot], t);
        atomicAdd(&large[2u * COST_BINS], 1u);
    }
}

// Tests candidate i; `small`: both polygons have at most SMALL vertices.
fn test(i: u32, small: bool) {
    let candidate = candidates[i];
    let pair = candidate_bodies(candidate);
    let ba = instances_at(pair.x);
    let bb = instances_at(pair.y);
    let ta = transforms_at(pair.x);
    let tb = transforms_at(pair.y);
    let frame = pair_frame(ba, bb, ta, tb, image_shift(ta.xy, tb.xy, candidate_image(candidate)));
    let a = frame.a;
    let b = frame.b;
    let k = frame.k;
    // `radii` makes the depth; `reach` decides which pairs are reported: the radii and the
    // margin (WorldOptions::margin, 0 unless neighbours within a distance are asked for).
    let radii = select(0.0, (ba.round + bb.round) * a.scale, ROUNDED);
    let reach = select(0.0, (ba.round + bb.round + params.margin) * a.scale, ROUNDED);
    var fa = Face(-3.0e38, 0u, 0u, false);
    var fb = Face(-3.0e38, 0u, 0u, false);
    if small {
        for (var k = 0u; k < SMALL; k++) {
            cache_a[k] = vertex(a, select(0u, k, k < ba.count));
            cache_b[k] = vertex(b, select(0u, k, k < bb.count));
        }
        fa = best_face_small(true, a, reach);
        if !fa.apart {
            fb = best_face_small(false, b, reach);
        }
    } else if min(ba.count, bb.count) >= 3u {
        // Q is the polygon with fewer vertices: the walk scans it once.
        if ba.count >= bb.count {
            let f = best_faces(a, b, reach);
            fa = f.p;
            fb = f.q;
        } else {
            let f = best_faces(b, a, reach);
            fa = f.q;
            fb = f.p;
        }
    } else {
        // A point or a segment (circles, capsules) against a larger polygon: no turn to follow.
        fa = best_face(a, b, reach);
        if !fa.apart {
            fb = best_face(b, a, reach);
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
    var from_b = false;
    if fb.separation > best {
        best = fb.separation;
        best_normal = -normal(b, fb.edge);
        from_b = true;
    }
    // Neither core has area (points and segments): unless two segments cross, the cores' distance
    // is that of the whole cores. Deciding this on orientations rather than on the faces also keeps
    // nearly collinear segments right, whose faces are nearly parallel lines.
    var flat = ROUNDED && ba.count <= 2u && bb.count <= 2u;
    if flat && ba.count == 2u && bb.count == 2u {
        flat = !segments_cross(vertex(a, 0u), vertex(a, 1u), vertex(b, 0u), vertex(b, 1u));
    }
    var depth = radii - best;
    if ROUNDED && (flat || best > 0.0) {
        var near: Near;
        if flat {
            near = segment_segment(vertex(a, 0u), vertex(a, ba.count - 1u), vertex(b, 0u), vertex(b, bb.count - 1u), reach);
        } else if from_b {
            near = swapped(face_distance(b, fb.edge, a, support_of(small, b, fb, a), reach));
        } else {
            near = face_distance(a, fa.edge, b, support_of(small, a, fa, b), reach);
        }
        if !near.within {
            results[i] = vec4<f32>(0.0);
            flags[i] = 0u;
            return;
        }
        let d = sqrt(near.d2);
        depth = radii - d;
        // The normal: an edge's where a nearest point lies inside an edge; else the direction
        // between two vertices, unless they are too close for rounding to leave it accurate: then
        // the best face's normal, whose depth differs by at most d (far inside the band), or for
        // two circles (no face) (1, 0) by convention. Where a point lies on an edge (a T), the
        // cores touch and `near` has no edge normal: the best face's.
        if any(near.dir != vec2<f32>(0.0)) {
            best_normal = near.dir;
        } else if d > NEAR_VERTICES {
            best_normal = (near.on_b - near.on_a) / d;
        } else if ba.count == 1u && bb.count == 1u {
            best_normal = vec2<f32>(1.0, 0.0);
        }
    }
    // Back from the scaled frame, exactly. Without a margin every reported pair collides: depth
    // >= 0. With one, a pair apart has a negative depth, minus its distance.
    if params.margin == 0.0 {
        depth = max(depth, 0.0);
    }
    depth *= pow2(-k);
    results[i] = vec4<f32>(best_normal, depth, 1.0);
    flags[i] = 1u;
}
