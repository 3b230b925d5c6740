// Continuous collision (src/gpu/stages/impact.rs): one invocation per candidate pair (a, b) of the
// frame's broad phase, whose boxes hold each body's whole path (transform.wgsl). Each body moves
// from its start pose to its pose now, position and angle linearly in time (the angle the
// shorter way round); the pair's first touch in [0, 1], if any, is appended to `impacts`.
//
// - Neither body's turn moves its core (the angle is unchanged, or the core is one point at the
//   anchor): b moves along a line relative to a, and its first touch is the shape cast of b's
//   core against a's (shared/cast.wgsl, as World::cast_shapes; a circle's: the ray from its
//   centre), exact but for f32 rounding.
// - Otherwise conservative advancement, as reference::sweep: at time t the cores lie g apart
//   beyond both radii, and they close no faster than k = |v| + |turn a| R_a + |turn b| R_b per
//   unit of time (R: the reach of the core from the anchor), so they cannot touch before
//   t + g / k. It stops where g is within a few roundings at the pair's scale (a touch), past 1 (no
//   touch), or after STEPS steps, fewer on software adapters (counted as a touch where it got to,
//   never a missed one).
//
// Each pair is taken in a's frame, scaled by a power of two chosen from the pair's size (exact),
// as ray.wgsl does.

#import constants
#import params
#import loops
#import index
#import instance
#import local_shape
#import cast
#import candidate
#import image

@group(0) @binding(0) var<storage, read> control: array<u32>; // [PAIRS] = candidates to test
@group(0) @binding(1) var<storage, read> candidates: array<vec2<u32>>;
#paged instances 2 read instances Instance
#paged shapes 3 read shapes vec4<f32>    // (vertex.xy, unit normal.xy), local
#paged instances 4 read transforms vec4<f32> // the pose now: (x, y, cos, sin)
#paged instances 5 read starts vec4<f32>     // the pose at the start of the frame

// Twin of the impacts buffer in src/gpu/stages/impact.rs: a count, then one record per pair
// that touches, (a, b, toi as f32 bits, 0), in no order.
struct Impacts {
    count: atomic<u32>,
    cut: atomic<u32>, // 1: some invocation's loops were cut short (loops.wgsl)
    pad1: u32,
    pad2: u32,
    records: array<vec4<u32>>,
}
@group(0) @binding(6) var<storage, read_write> impacts: Impacts;
@group(0) @binding(7) var<uniform> params: Params; // `two` (loops_cut), `window_steps`

// Most steps of conservative advancement for one pair. On Mesa's software adapters (whose
// invocations stop every loop after 65,535 iterations in all; params.window_steps is then not
// u32::MAX) fewer, as many as that budget pays for: each step walks both cores about twice.
const STEPS: u32 = 1000u;
const SOFTWARE_BUDGET: u32 = 60000u;

// A convex core in a's frame, scaled by `inv`: a body's shape from `start` in `shapes`, turned
// by `turn`.
struct Core {
    start: u32,
    count: u32,
    inv: f32,
    turn: vec2<f32>,
}

fn vertex_in(c: Core, k: u32) -> vec2<f32> {
    return rotate(c.turn, shapes_at(c.start + k).xy) * c.inv;
}

fn normal_in(c: Core, k: u32) -> vec2<f32> {
    return rotate(c.turn, shapes_at(c.start + k).zw);
}

// The length of `v`, with no square to overflow or flush to zero at any scale.
fn safe_length(v: vec2<f32>) -> f32 {
    let m = max(abs(v.x), abs(v.y));
    if m == 0.0 {
        return 0.0;
    }
    return m * length(v / m);
}

// The rotation `r` undone.
fn back(r: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(r.x, -r.y);
}

// The angle from rotation r0 to r1, in (-pi, pi].
fn turn_between(r0: vec2<f32>, r1: vec2<f32>) -> f32 {
    return atan2(r0.x * r1.y - r0.y * r1.x, dot(r0, r1));
}

// The pair's frame: what both ways of finding the first touch share.
struct Sweep {
    a: Instance,
    b: Instance,
    sa: vec4<f32>,
    sb: vec4<f32>,
    offset: vec2<f32>, // b's anchor at the start in a's frame (the image met, in a periodic box)
    k: i32,       // the scale's exponent
    inv: f32,     // 2^-k
    edge: f32,    // within this (scaled) counts as touching
}

// The first touch of b moving by `v` relative to a, neither turning: the cast of b's core
// against a's in a's frame; t in [0, 1], or -1 for none.
fn along_line(p: Sweep, v: vec2<f32>) -> f32 {
    let undo = back(p.sa.zw);
    let speed = safe_length(v);
    var d = vec2<f32>(1.0, 0.0);
    if speed > 0.0 {
        d = rotate(undo, v / speed);
    }
    let start = rotate(undo, p.offset);
    // From at most two sizes before the closest approach, as cast_body (ray.wgsl).
    let size = p.a.radius + p.a.round + p.b.radius + p.b.round;
    if abs(d.x * start.y - d.y * start.x) > 2.0 * size {
        return -1.0;
    }
    let skip = max(-dot(start, d) - 2.0 * size - 5e-7 * max(abs(start.x), abs(start.y)), 0.0);
    if skip > speed {
        return -1.0;
    }
    let o = (start + d * skip) * p.inv;
    let reach = ldexp(min(speed - skip, ldexp(BIG, min(p.k, 0))), -p.k);
    let core_a = Core(p.a.shape_start, p.a.count, p.inv, vec2<f32>(1.0, 0.0));
    let core_b = Core(p.b.shape_start, p.b.count, p.inv, rotate(undo, p.sb.zw));
    let grown = (p.a.round + p.b.round) * p.inv;
    let at_start = skip == 0.0;
    var t = -1.0;
    if p.b.count == 1u {
        // b a circle: the ray from its centre against a grown by both radii.
        let centre = o + vertex_in(core_b, 0u);
        if at_start && inside(core_a, grown, p.edge, centre) {
            return 0.0;
        }
        t = cast_local(core_a, grown, centre, d, reach).x;
    } else if p.a.count == 1u {
        // a a circle: the ray from its centre, moving back along d, against b.
        let centre = vertex_in(core_a, 0u) - o;
        if at_start && inside(core_b, grown, p.edge, centre) {
            return 0.0;
        }
        t = cast_local(core_b, grown, centre, -d, reach).x;
    } else {
        let h = cast_shape(core_a, core_b, p.a.round * p.inv, p.b.round * p.inv, p.edge, o, d, reach, at_start);
        if h.t == 0.0 && h.normal.x == 0.0 && h.normal.y == 0.0 {
            return 0.0;
        }
        t = h.t;
    }
    if t < 0.0 {
        return -1.0;
    }
    if speed == 0.0 {
        return 0.0;
    }
    return min((skip + ldexp(t, p.k)) / speed, 1.0);
}

// The first touch by conservative advancement (see the top): a turning by `ta`, b by `tb`, b
// moving by `v` relative to a; t in [0, 1], or -1 for none.
fn advancing(p: Sweep, v: vec2<f32>, ta: f32, tb: f32) -> f32 {
    let closing = safe_length(v) + abs(ta) * p.a.radius + abs(tb) * p.b.radius;
    let grown = (p.a.round + p.b.round) * p.inv;
    var steps = STEPS;
    if params.window_steps != 0xffffffffu {
        steps = min(STEPS, SOFTWARE_BUDGET / (2u * (p.a.count + p.b.count) + 4u));
    }
    var t = 0.0;
    for (var step = 0u; step < steps; step++) {
        let ra = rotate(p.sa.zw, vec2<f32>(cos(t * ta), sin(t * ta)));
        let rb = rotate(p.sb.zw, vec2<f32>(cos(t * tb), sin(t * tb)));
        let undo = back(ra);
        let o = rotate(undo, p.offset + v * t) * p.inv;
        let core_a = Core(p.a.shape_start, p.a.count, p.inv, vec2<f32>(1.0, 0.0));
        let core_b = Core(p.b.shape_start, p.b.count, p.inv, rotate(undo, rb));
        let gap = core_gap(core_a, core_b, o) - grown;
        if gap <= p.edge {
            return t;
        }
        t += ldexp(gap, p.k) / closing;
        if t > 1.0 {
            return -1.0;
        }
    }
    return t;
}

// The first touch of candidate pair (a, b) in [0, 1], or -1 for none; `image` the image of b
// the broad phase met (0 without a periodic box, candidate.wgsl).
fn first_touch(a: u32, b: u32, image: u32) -> f32 {
    let ba = instances_at(a);
    let bb = instances_at(b);
    let sa = starts_at(a);
    let sb = starts_at(b);
    let ea = transforms_at(a);
    let eb = transforms_at(b);
    let size = ba.radius + ba.round + bb.radius + bb.round;
    let k = frexp(max(size, 1e-30)).exp;
    let inv = ldexp(1.0, -k);
    // Within a few roundings at the pair's own scale: every length below comes from differences
    // of the two bodies' f32 poses (exact where they lie near each other), never from the world
    // coordinates themselves, so the pair is decided on its f32 poses as the narrow phase
    // decides it, wherever it lies.
    let edge = 4.0 * ON_EDGE;
    // In a periodic box each start moved by whole boxes to within half a box of now, and b's
    // whole way moved to the image met: as exact sums (image.wgsl). Without one, the plain
    // differences.
    let na = start_steps(sa.xy, ea.xy);
    let nb = start_steps(sb.xy, eb.xy);
    let offset = image_shift_by(sa.xy, sb.xy, image_steps(image) + nb - na);
    let p = Sweep(ba, bb, sa, sb, offset, k, inv, edge);
    // b's motion relative to a's.
    let v = image_shift_by(sb.xy, eb.xy, -nb) - image_shift_by(sa.xy, ea.xy, -na);
    // A turn moves a core that reaches beyond the anchor; an unchanged rotation is no turn,
    // whatever the rounding of turn_between.
    let ta = select(0.0, turn_between(sa.zw, ea.zw), ba.radius > 0.0 && any(sa.zw != ea.zw));
    let tb = select(0.0, turn_between(sb.zw, eb.zw), bb.radius > 0.0 && any(sb.zw != eb.zw));
    if ta == 0.0 && tb == 0.0 {
        return along_line(p, v);
    }
    return advancing(p, v, ta, tb);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= control[PAIRS] {
        return;
    }
    let pair = candidate_bodies(candidates[i]);
    let toi = first_touch(pair.x, pair.y, candidate_image(candidates[i]));
    if toi >= 0.0 {
        let slot = atomicAdd(&impacts.count, 1u);
        if slot < arrayLength(&impacts.records) {
            impacts.records[slot] = vec4<u32>(pair.x, pair.y, bitcast<u32>(toi), 0u);
        }
    }
    if loops_cut(params.two) {
        atomicStore(&impacts.cut, 1u);
    }
}
