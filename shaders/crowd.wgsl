// A crowd's step under JuPedSim's collision-free speed model (`step`, src/crowd/mod.rs has the
// rules) or its anticipation velocity model (`step_avm`, crowd::Anticipation), one invocation
// per agent, all from the state before the step. Each step: clear the cell counts, bin the walking
// agents into cells the size of the cutoff, scan the counts, scatter the agents into their
// cells, sort each cell by agent index (so that every sum below runs in one fixed order, and
// the result does not depend on the order the atomics ran), step every agent, tick the clock.

#import constants
#import index
#import segment
#import workgroup_scan
#import crowd_ground

struct CfsmParams {
    n: u32,              // agents
    cells: u32,          // gx * gy
    gx: u32,
    gy: u32,
    origin: vec2<f32>,   // the grid's lower corner
    cell: f32,           // cell side, at least the cutoff
    cutoff: f32,
    dt: f32,
    stages: u32,
    journeys: u32,
    corners: u32,        // the points of the ways round inner corners
    segments: u32,       // walls
    list_off: u32,       // ground: where the cells' wall lists start
    seg_off: u32,        // ground: where the walls start (4 words each)
    way_off: u32,        // ground: the corners' points (x, y, 0, 0), then their stand-offs (corner, point)
    agents_off: u32,     // grid: the agents by cell
    slot_off: u32,       // grid: each agent's slot in its cell (0xffffffff once it left)
    exited_off: u32,     // grid: the step after which each agent left (0 while it walks)
    to_off: u32,         // ground: per stage, per corner, the way on from the corner to it (-1: none)
    stage_off: u32,      // ground: per stage 8 words: kind (0 waypoint, 1 exit), target, distance, polygon start and length
    poly_off: u32,       // ground: the exits' vertices (x, y), counterclockwise
    node_off: u32,       // ground: per journey, per stage, its node (0xffffffff: not in the journey); then the nodes
    movers_off: u32,     // counts: one bit per agent that reached its waypoint this step
    targeting_off: u32,  // counts: per stage, the agents heading for it
    routed: u32,         // 1: some stage has a transition (the reach and route passes run)
    stride: u32,         // vec4s of state per agent: 1 (x, y, orientation), 2 (then the velocity, 0, 0)
    pushout: f32,        // the anticipation velocity model's pushout strength
    seed_lo: u32,        // and its coin's seed
    seed_hi: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: CfsmParams;
// Per agent x, y, orientation; under the anticipation velocity model then its velocity, 0, 0.
@group(0) @binding(1) var<storage, read> state_in: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> state_out: array<vec4<f32>>;
// Two per agent: v0, radius, time gap, 0; then its repulsion: strength and range from
// neighbours, strength and range from walls. Under the anticipation velocity model: v0,
// radius, time gap, reaction time; strength and range from neighbours, wall buffer,
// anticipation time.
@group(0) @binding(3) var<storage, read> agents: array<vec4<f32>>;
// [0] steps run, [1] agents walking at the last binning, then one count per cell, the movers'
// bits (these cleared every step), and the agents heading for each stage.
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;
// cell starts (cells + 1), agents by cell (n), slots (n), exited (n).
@group(0) @binding(5) var<storage, read_write> grid: array<u32>;
// wall list starts (cells + 1), wall lists, walls (4 words each), corners (4 words each),
// their stand-offs (4 words each: corner, point), the ways on, stages, exits' vertices, nodes.
@group(0) @binding(6) var<storage, read> ground: array<u32>;
// Per agent the stage it heads for (n), the movers of this step in index order (n), per agent
// its journey (n), and each node's round robin counter.
@group(0) @binding(7) var<storage, read_write> route: array<u32>;

const GONE: u32 = 0xffffffffu;
// exp's argument is capped here (its value below 1.1e13), so that no sum overflows f32.
const MAX_EXPONENT: f32 = 30.0;
const NEAR_MAX: u32 = 48u;

fn cell_xy(p: vec2<f32>) -> vec2<i32> {
    let c = floor((p - params.origin) / params.cell);
    let hi = vec2<f32>(f32(params.gx - 1u), f32(params.gy - 1u));
    return vec2<i32>(clamp(c, vec2<f32>(0.0), hi));
}

fn position_of(i: u32) -> vec2<f32> {
    return state_in[params.stride * i].xy;
}

fn cell_of(p: vec2<f32>) -> u32 {
    let c = cell_xy(p);
    return u32(c.y) * params.gx + u32(c.x);
}

@compute @workgroup_size(64)
fn bin(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.n {
        return;
    }
    if grid[params.exited_off + i] != 0u {
        grid[params.slot_off + i] = GONE;
        return;
    }
    grid[params.slot_off + i] = atomicAdd(&counts[2u + cell_of(position_of(i))], 1u);
    atomicAdd(&counts[1], 1u);
}

// One workgroup: each invocation sums a run of cells, the workgroup scans the runs, and each
// invocation writes its run's starts.
@compute @workgroup_size(256)
fn scan(@builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let run = (params.cells + SCAN_WG - 1u) / SCAN_WG;
    let first = min(t * run, params.cells);
    let end = min(first + run, params.cells);
    var total = 0u;
    for (var c = first; c < end; c++) {
        total += atomicLoad(&counts[2u + c]);
    }
    let inclusive = workgroup_scan(t, total);
    var start = inclusive - total;
    for (var c = first; c < end; c++) {
        grid[c] = start;
        start += atomicLoad(&counts[2u + c]);
    }
    if t == SCAN_WG - 1u {
        grid[params.cells] = inclusive;
    }
}

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let slot = grid[params.slot_off + i];
    if slot != GONE {
        grid[params.agents_off + grid[cell_of(position_of(i))] + slot] = i;
    }
}

// Each cell's agents in index order (insertion sort: cells hold tens of agents).
@compute @workgroup_size(64)
fn sort(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_index(gid, nwg);
    if c >= params.cells {
        return;
    }
    let first = params.agents_off + grid[c];
    let end = params.agents_off + grid[c + 1u];
    for (var k = first + 1u; k < end; k++) {
        let v = grid[k];
        var m = k;
        while m > first && grid[m - 1u] > v {
            grid[m] = grid[m - 1u];
            m--;
        }
        grid[m] = v;
    }
}

fn journey_of(i: u32) -> u32 {
    return route[2u * params.n + i];
}

// The node of stage s in journey j (0xffffffff where it is not in it).
fn node_of(j: u32, s: u32) -> u32 {
    return ground[params.node_off + j * params.stages + s];
}

// A node's 4 words: kind (0 none, 1 fixed, 2 round robin, 3 least targeted), where its list of
// (stage, weight) starts in ground, its length, and the weights' sum.
fn node_word(node: u32, k: u32) -> u32 {
    return ground[params.node_off + params.journeys * params.stages + 4u * node + k];
}

// Each walking agent that has reached its waypoint, where a transition leads on, sets its bit.
@compute @workgroup_size(64)
fn reach(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.n || grid[params.slot_off + i] == GONE {
        return;
    }
    let s = route[i];
    if is_exit(s) || node_word(node_of(journey_of(i), s), 0u) == 0u {
        return;
    }
    if reached(s, position_of(i)) {
        atomicOr(&counts[params.movers_off + i / 32u], 1u << (i % 32u));
    }
}

var<workgroup> movers: u32;

// One workgroup: gathers the movers in index order (each invocation a run of the bits), then
// one invocation takes their transitions in that order, so that each sees the choices before it
// (journey::Routing::next).
@compute @workgroup_size(256)
fn route_movers(@builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let words = (params.n + 31u) / 32u;
    let run = (words + SCAN_WG - 1u) / SCAN_WG;
    let first = min(t * run, words);
    let end = min(first + run, words);
    var total = 0u;
    for (var w = first; w < end; w++) {
        total += countOneBits(atomicLoad(&counts[params.movers_off + w]));
    }
    let inclusive = workgroup_scan(t, total);
    var at = params.n + inclusive - total;
    for (var w = first; w < end; w++) {
        var bits = atomicLoad(&counts[params.movers_off + w]);
        while bits != 0u {
            route[at] = 32u * w + firstTrailingBit(bits);
            at++;
            bits &= bits - 1u;
        }
    }
    if t == SCAN_WG - 1u {
        movers = inclusive;
    }
    storageBarrier();
    workgroupBarrier();
    if t != 0u {
        return;
    }
    let counters = 3u * params.n;
    for (var k = 0u; k < movers; k++) {
        let i = route[params.n + k];
        let s = route[i];
        let node = node_of(journey_of(i), s);
        let kind = node_word(node, 0u);
        let list = node_word(node, 1u);
        let len = node_word(node, 2u);
        var next = ground[list];
        if kind == 2u {
            let called = route[counters + node];
            var sum = 0u;
            for (var e = 0u; e < len && sum <= called; e++) {
                next = ground[list + 2u * e];
                sum += ground[list + 2u * e + 1u];
            }
            route[counters + node] = (called + 1u) % node_word(node, 3u);
        } else if kind == 3u {
            for (var e = 1u; e < len; e++) {
                let c = ground[list + 2u * e];
                if atomicLoad(&counts[params.targeting_off + c]) < atomicLoad(&counts[params.targeting_off + next]) {
                    next = c;
                }
            }
        }
        atomicSub(&counts[params.targeting_off + s], 1u);
        atomicAdd(&counts[params.targeting_off + next], 1u);
        route[i] = next;
    }
}

// Where agent i stands and what is around it: its cell's walls and the 3 x 3 cells about it.
struct Around {
    p: vec2<f32>,
    walls_first: u32,
    walls_end: u32,
    lo: vec2<i32>,
    hi: vec2<i32>,
}

fn around(p: vec2<f32>) -> Around {
    let home = cell_of(p);
    let c = cell_xy(p);
    let lo = max(c - vec2<i32>(1), vec2<i32>(0));
    let hi = min(c + vec2<i32>(1), vec2<i32>(i32(params.gx) - 1, i32(params.gy) - 1));
    return Around(p, params.list_off + ground[home], params.list_off + ground[home + 1u], lo, hi);
}

// The neighbours near enough to slow an agent down: a spacing s of more than v0 * T gives v0
// whichever neighbour it is (the margin covers f32's rounding of s / T), so the speed needs
// only these. Past NEAR_MAX of them, `spacing_ahead` looks at every neighbour again.
struct Slowing {
    at: array<vec3<f32>, NEAR_MAX>, // offset to the neighbour, sum of the radii
    count: u32,
}

fn keep_slowing(near: ptr<function, Slowing>, offset: vec2<f32>, reach: f32) {
    if (*near).count < NEAR_MAX {
        (*near).at[(*near).count] = vec3<f32>(offset, reach);
    }
    (*near).count++;
}

// The spacing to the nearest neighbour ahead of agent i (radius r) along `direction`: in front
// and within the corridor of the two radii.
fn spacing_ahead(i: u32, r: f32, a: Around, direction: vec2<f32>, near: ptr<function, Slowing>) -> f32 {
    let p = a.p;
    let side = vec2<f32>(-direction.y, direction.x);
    var spacing = 3.4e38;
    for (var k = 0u; k < min((*near).count, NEAR_MAX); k++) {
        let d = (*near).at[k].xy;
        if dot(direction, d) >= 0.0 && abs(dot(side, d)) <= (*near).at[k].z {
            spacing = min(spacing, length(d) - (*near).at[k].z);
        }
    }
    for (var y = a.lo.y; y <= a.hi.y && (*near).count > NEAR_MAX; y++) {
        for (var x = a.lo.x; x <= a.hi.x; x++) {
            let cell = u32(y) * params.gx + u32(x);
            for (var k = grid[cell]; k < grid[cell + 1u]; k++) {
                let j = grid[params.agents_off + k];
                let q = position_of(j);
                let d = q - p;
                // The cheap tests first: most candidates are behind or beside the corridor ahead.
                if j == i || dot(direction, d) < 0.0 {
                    continue;
                }
                let reach = r + agents[2u * j].y;
                if abs(dot(side, d)) > reach || length(d) > params.cutoff {
                    continue;
                }
                if sees_listed(p, q, a.walls_first, a.walls_end) {
                    spacing = min(spacing, length(d) - reach);
                }
            }
        }
    }
    return spacing;
}

// Agent i, heading for `stage`, leaves when that is an exit and it ended the step in it.
fn leave(i: u32, stage: u32, moved: vec2<f32>) {
    if is_exit(stage) && reached(stage, moved) {
        grid[params.exited_off + i] = atomicLoad(&counts[0]) + 1u;
        atomicSub(&counts[params.targeting_off + stage], 1u);
    }
}

// The collision-free speed model's step (one vec4 of state per agent).
@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let s = state_in[i];
    if grid[params.slot_off + i] == GONE {
        state_out[i] = s;
        return;
    }
    let p = s.xy;
    let me = agents[2u * i];
    let repulsion = agents[2u * i + 1u];
    let a = around(p);
    var push = vec2<f32>(0.0);
    var near: Slowing;
    near.count = 0u;
    let slow = me.x * me.z * 1.001 + 1e-6;
    for (var y = a.lo.y; y <= a.hi.y; y++) {
        for (var x = a.lo.x; x <= a.hi.x; x++) {
            let cell = u32(y) * params.gx + u32(x);
            for (var k = grid[cell]; k < grid[cell + 1u]; k++) {
                let j = grid[params.agents_off + k];
                let q = state_in[j].xy;
                let d = distance(p, q);
                if j == i || d > params.cutoff || !sees_listed(p, q, a.walls_first, a.walls_end) {
                    continue;
                }
                let reach = me.y + agents[2u * j].y;
                let exponent = min((reach - d) / repulsion.y, MAX_EXPONENT);
                push -= unit(q - p) * repulsion.x * exp(exponent);
                if d - reach <= slow {
                    keep_slowing(&near, q - p, reach);
                }
            }
        }
    }
    for (var k = a.walls_first; k < a.walls_end; k++) {
        let w = wall(ground[k]);
        let closest = closest_on(p, w.xy, w.zw);
        let d = distance(p, closest);
        if d <= params.cutoff {
            let exponent = min((me.y - d) / repulsion.w, MAX_EXPONENT);
            push -= unit(closest - p) * repulsion.z * exp(exponent);
        }
    }
    let stage = route[i];
    let e0 = unit(destination(p, stage) - p);
    var direction = unit(e0 + push);
    if all(direction == vec2<f32>(0.0)) {
        direction = s.zw;
    }
    let spacing = spacing_ahead(i, me.y, a, direction, &near);
    let speed = min(max(spacing / me.z, 0.0), me.x);
    let moved = p + direction * speed * params.dt;
    state_out[i] = vec4<f32>(moved, direction);
    leave(i, stage, moved);
}

fn hash_mix(h: u32) -> u32 {
    var x = h;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    return x ^ (x >> 16u);
}

// crowd::coin: whether agent i turns right of neighbour j's way straight ahead, this step.
fn coin(i: u32, j: u32) -> bool {
    let step = atomicLoad(&counts[0]);
    return (hash_mix(hash_mix(hash_mix(hash_mix(hash_mix(params.seed_lo) ^ params.seed_hi) ^ step) ^ i) ^ j) & 1u) == 0u;
}

// `direction` by the wall nearest p (the first of the nearest on its cell's list): within
// `buffer` slid along it and pushed off; heading toward it within twice that, its part toward
// the wall faded linearly to none at `buffer` (reference::cfsm's `slide`).
fn slide(a: Around, direction: vec2<f32>, buffer: f32) -> vec2<f32> {
    var best = 3.4e38;
    var closest = a.p;
    var nearest = vec4<f32>(0.0);
    for (var k = a.walls_first; k < a.walls_end; k++) {
        let w = wall(ground[k]);
        let c = closest_on(a.p, w.xy, w.zw);
        let d = distance(a.p, c);
        if d < best {
            best = d;
            closest = c;
            nearest = w;
        }
    }
    let away = unit(a.p - closest);
    let along = unit(nearest.zw - nearest.xy);
    let parallel = along * dot(direction, along);
    if best < buffer {
        return unit(parallel + away * params.pushout);
    }
    if best < 2.0 * buffer && dot(direction, away) < 0.0 {
        let keep = 1.0 - (2.0 * buffer - best) / buffer;
        return unit(parallel + (direction - parallel) * keep);
    }
    return direction;
}

// The anticipation velocity model's step (crowd::Anticipation; two vec4s of state per agent).
@compute @workgroup_size(64)
fn step_avm(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let s = state_in[2u * i];
    let v = state_in[2u * i + 1u].xy;
    if grid[params.slot_off + i] == GONE {
        state_out[2u * i] = s;
        state_out[2u * i + 1u] = state_in[2u * i + 1u];
        return;
    }
    let p = s.xy;
    let e = s.zw;
    let me = agents[2u * i];       // v0, radius, time gap, reaction time
    let own = agents[2u * i + 1u]; // strength, range, wall buffer, anticipation time
    let a = around(p);
    let stage = route[i];
    let desired = unit(destination(p, stage) - p);
    let left = unit(vec2<f32>(-desired.y, desired.x));
    var push = vec2<f32>(0.0);
    var near: Slowing;
    near.count = 0u;
    let slow = me.x * me.z * 1.001 + 1e-6;
    for (var y = a.lo.y; y <= a.hi.y; y++) {
        for (var x = a.lo.x; x <= a.hi.x; x++) {
            let cell = u32(y) * params.gx + u32(x);
            for (var k = grid[cell]; k < grid[cell + 1u]; k++) {
                let j = grid[params.agents_off + k];
                let other = state_in[2u * j];
                let q = other.xy;
                let d = distance(p, q);
                if j == i || d > params.cutoff || !sees_listed(p, q, a.walls_first, a.walls_end) {
                    continue;
                }
                let reach = me.y + agents[2u * j].y;
                if d - reach <= slow {
                    keep_slowing(&near, q - p, reach);
                }
                let u = unit(q - p);
                if dot(desired, u) < 0.0 && dot(e, u) < 0.0 {
                    continue;
                }
                let vj = state_in[2u * j + 1u].xy;
                let apart = max(d - reach - dot(v - vj, u) * own.w, 0.0);
                let strength = own.x * (1.0 + 0.5 * (1.0 - dot(desired, other.zw))) * exp(-apart / own.y);
                let ahead = dot(left, q - p + vj * agents[2u * j + 1u].w);
                var right = ahead > 0.0;
                if abs(ahead) < 1e-3 {
                    right = coin(i, j);
                }
                push += left * select(strength, -strength, right);
            }
        }
    }
    var direction = unit(desired + push);
    if all(direction == vec2<f32>(0.0)) {
        direction = e;
    }
    // Toward it at the reaction time, or at once from the other side of the desired direction.
    if dot(desired, direction) * dot(desired, e) >= 0.0 {
        direction = unit(e + (direction - e) * (params.dt / me.w));
    }
    direction = slide(a, direction, me.y + own.z);
    let spacing = spacing_ahead(i, me.y, a, direction, &near);
    let speed = min(max(spacing / me.z, 0.0), me.x);
    let velocity = direction * speed;
    let moved = p + velocity * params.dt;
    state_out[2u * i] = vec4<f32>(moved, direction);
    state_out[2u * i + 1u] = vec4<f32>(velocity, 0.0, 0.0);
    leave(i, stage, moved);
}

@compute @workgroup_size(1)
fn tick() {
    atomicAdd(&counts[0], 1u);
}
