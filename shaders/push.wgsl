// The crowd simulation's own passes (src/sim/mod.rs), run around satgpu's frame the way any
// embedding program would: they read World::contacts_buffer and World::totals_buffer, and write
// World::transforms_buffer, with nothing read back per frame.
//
// Frame: integrate -> K x (detect, push, apply) -> finish -> [detect, guard, measure].
// Determinism: each body's displacement is summed with integer atomics on fixed-point values
// (integer addition is associative), so the order in which the GPU runs the pairs cannot change
// the result. Nothing else is shared between invocations.

#import records
#import constants
#import index

struct PushParams {
    bodies: u32,         // number of bodies, walls included
    frame: u32,          // frame index within the current stats window
    reuse: u32,          // 1: the iteration reuses the last detection's contacts (see push)
    wrap: u32,           // in a periodic box, the axes that wrap (bit 0: x, bit 1: y)
    dt: f32,             // seconds per frame
    fixed: f32,          // fixed-point units per world unit of the displacement sums
    margin: f32,         // extra separation each push aims for (world units)
    relax: f32,          // fraction of the averaged correction applied per iteration
    tau: f32,            // seconds a body takes to reach its preferred velocity
    max_speed: f32,      // cap on the velocity a push-out may leave behind
    pad1: f32,
    pad2: f32,
    box_lo: vec2<f32>,   // the periodic box's lower corner
    period: vec2<f32>,   // and its size
}

// Per body, 32 bytes. Walls have inv_mass 0 and speed 0 and never move.
struct Agent {
    goal: vec2<f32>,
    velocity: vec2<f32>,
    speed: f32,          // preferred walking speed
    inv_mass: f32,
    radius: f32,         // the body's bounding radius (slows it down near its goal)
    pad: f32,
}

@group(0) @binding(0) var<uniform> params: PushParams;
@group(0) @binding(1) var<storage, read_write> transforms: array<vec4<f32>>; // World: x, y, cos, sin
@group(0) @binding(2) var<storage, read_write> agents: array<Agent>;
// Per body: xy where the frame started, zw where the bodies were at the last detection.
@group(0) @binding(3) var<storage, read_write> marks: array<vec4<f32>>;
// Per body: dx, dy (fixed point), and the number of pushes summed.
@group(0) @binding(4) var<storage, read_write> moves: array<atomic<i32>>;
@group(0) @binding(5) var<storage, read> totals: array<u32>;                 // World: [2] colliding
@group(0) @binding(6) var<storage, read> contacts: array<Contact>;           // World
// [0] largest strip-entry total, [1] largest candidate total seen since the host last looked;
// then 4 words per frame: largest depth (f32 bits), total depth (f32 bits), colliding pairs, 0.
@group(0) @binding(7) var<storage, read_write> stats: array<atomic<u32>>;

const MEASURE_WG: u32 = 256u;

// `p` moved by whole boxes into the periodic box along the axes that wrap.
fn wrapped(p: vec2<f32>) -> vec2<f32> {
    var q = p;
    if (params.wrap & 1u) != 0u {
        q.x -= params.period.x * floor((q.x - params.box_lo.x) / params.period.x);
    }
    if (params.wrap & 2u) != 0u {
        q.y -= params.period.y * floor((q.y - params.box_lo.y) / params.period.y);
    }
    return q;
}

// Walk: relax the velocity toward the preferred one (toward the goal, slowing within a radius
// of it), move, and remember where the frame started. In a periodic box each body is first
// moved back into it (where the last frame took it past an edge): within a frame it moves on
// unwrapped, so that its way and its pushes are what they look like.
@compute @workgroup_size(64)
fn integrate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.bodies {
        return;
    }
    var t = transforms[i];
    if params.wrap != 0u {
        t = vec4<f32>(wrapped(t.xy), t.zw);
    }
    marks[i] = vec4<f32>(t.xy, t.xy);
    var agent = agents[i];
    if agent.inv_mass == 0.0 {
        return;
    }
    let to_goal = agent.goal - t.xy;
    let distance = length(to_goal);
    var preferred = vec2<f32>(0.0);
    if distance > 1e-6 {
        preferred = to_goal / distance * agent.speed * min(1.0, distance / max(agent.radius, 1e-6));
    }
    agent.velocity += (preferred - agent.velocity) * min(1.0, params.dt / params.tau);
    agents[i] = agent;
    transforms[i] = vec4<f32>(t.xy + agent.velocity * params.dt, t.zw);
}

// Before an iteration that runs a fresh detection: the contacts' depths are current, so the
// positions at detection are the positions now.
@compute @workgroup_size(64)
fn anchor(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.bodies {
        return;
    }
    marks[i] = vec4<f32>(marks[i].xy, transforms[i].xy);
}

fn add_move(body: u32, d: vec2<f32>) {
    let q = vec2<i32>(round(d * params.fixed));
    atomicAdd(&moves[3u * body], q.x);
    atomicAdd(&moves[3u * body + 1u], q.y);
    atomicAdd(&moves[3u * body + 2u], 1);
}

// One push per colliding pair: a moves against the normal and b along it, by the depth plus the
// margin, shared by inverse mass. With `reuse`, the depth is the detected one less how far the
// two bodies have since moved apart along the normal (the contact's separation, updated).
@compute @workgroup_size(64)
fn push(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_index(gid, nwg);
    if k >= totals[TOTAL_COLLIDING] {
        return;
    }
    let c = contacts[k];
    let wa = agents[c.a].inv_mass;
    let wb = agents[c.b].inv_mass;
    if wa + wb == 0.0 {
        return;
    }
    let n = vec2<f32>(c.normal_x, c.normal_y);
    var depth = c.depth;
    if params.reuse == 1u {
        let moved_a = transforms[c.a].xy - marks[c.a].zw;
        let moved_b = transforms[c.b].xy - marks[c.b].zw;
        depth -= dot(n, moved_b - moved_a);
    }
    let correction = depth + params.margin;
    if correction <= 0.0 {
        return;
    }
    let step = n * (correction / (wa + wb));
    if wa > 0.0 {
        add_move(c.a, -step * wa);
    }
    if wb > 0.0 {
        add_move(c.b, step * wb);
    }
}

// Each body moves by the average of its pushes (Jacobi iteration with averaging: a body pressed
// from both sides is not pushed twice), scaled by `relax`; the sums are cleared for the next.
@compute @workgroup_size(64)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.bodies {
        return;
    }
    let count = atomicExchange(&moves[3u * i + 2u], 0);
    let q = vec2<i32>(atomicExchange(&moves[3u * i], 0), atomicExchange(&moves[3u * i + 1u], 0));
    if count == 0 {
        return;
    }
    let d = vec2<f32>(q) / params.fixed * (params.relax / f32(count));
    let t = transforms[i];
    transforms[i] = vec4<f32>(t.xy + d, t.zw);
}

// The velocity is what the frame actually moved the body (position-based dynamics), capped so a
// deep push-out does not launch it.
@compute @workgroup_size(64)
fn finish(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.bodies {
        return;
    }
    var agent = agents[i];
    if agent.inv_mass == 0.0 {
        return;
    }
    var v = (transforms[i].xy - marks[i].xy) / params.dt;
    let speed = length(v);
    if speed > params.max_speed {
        v *= params.max_speed / speed;
    }
    agent.velocity = v;
    agents[i] = agent;
}

// After every detection: the largest totals seen, so the host can tell whether a frame
// outgrew the world's buffers (its contacts would then be incomplete) and rerun it.
@compute @workgroup_size(1)
fn guard() {
    atomicMax(&stats[0], totals[TOTAL_ENTRIES]);
    atomicMax(&stats[1], totals[TOTAL_CANDIDATES]);
    // The frame's fourth word: the most sweep windows a detection needed (software adapters).
    atomicMax(&stats[2u + 4u * params.frame + 3u], totals[TOTAL_NEED]);
}

var<workgroup> largest: array<f32, MEASURE_WG>;
var<workgroup> sum: array<f32, MEASURE_WG>;

// One workgroup: the largest and the total depth of the colliding pairs. Each invocation walks
// its own stride in order and the tree below always pairs the same slots, so the f32 sum is the
// same on every run.
@compute @workgroup_size(256)
fn measure(@builtin(local_invocation_index) lid: u32) {
    let count = totals[TOTAL_COLLIDING];
    var m = 0.0;
    var s = 0.0;
    for (var k = lid; k < count; k += MEASURE_WG) {
        let d = max(contacts[k].depth, 0.0);
        m = max(m, d);
        s += d;
    }
    largest[lid] = m;
    sum[lid] = s;
    workgroupBarrier();
    for (var half = MEASURE_WG / 2u; half > 0u; half /= 2u) {
        if lid < half {
            largest[lid] = max(largest[lid], largest[lid + half]);
            sum[lid] += sum[lid + half];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        let at = 2u + 4u * params.frame;
        atomicStore(&stats[at], bitcast<u32>(largest[0]));
        atomicStore(&stats[at + 1u], bitcast<u32>(sum[0]));
        atomicStore(&stats[at + 2u], count);
    }
}
