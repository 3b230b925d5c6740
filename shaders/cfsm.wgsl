// The collision-free speed model's step (src/crowd/mod.rs has the rules), one invocation per
// agent, all from the state before the step. Each step: clear the cell counts, bin the walking
// agents into cells the size of the cutoff, scan the counts, scatter the agents into their
// cells, sort each cell by agent index (so that every sum below runs in one fixed order, and
// the result does not depend on the order the atomics ran), step every agent, tick the clock.

#import constants
#import index
#import segment
#import workgroup_scan

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
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: CfsmParams;
@group(0) @binding(1) var<storage, read> state_in: array<vec4<f32>>;        // x, y, direction
@group(0) @binding(2) var<storage, read_write> state_out: array<vec4<f32>>;
// Two per agent: v0, radius, time gap, 0; then its repulsion: strength and
// range from neighbours, strength and range from walls.
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
    grid[params.slot_off + i] = atomicAdd(&counts[2u + cell_of(state_in[i].xy)], 1u);
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
        grid[params.agents_off + grid[cell_of(state_in[i].xy)] + slot] = i;
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

fn cross2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.y - a.y * b.x;
}

fn within(p: vec2<f32>, q: vec2<f32>, r: vec2<f32>) -> bool {
    return all(r >= min(p, q)) && all(r <= max(p, q));
}

fn opposite(x: f32, y: f32) -> bool {
    return (x > 0.0 && y < 0.0) || (x < 0.0 && y > 0.0);
}

// Whether segments p-q and a-b meet (touching counts).
fn segments_meet(p: vec2<f32>, q: vec2<f32>, a: vec2<f32>, b: vec2<f32>) -> bool {
    let d1 = cross2(q - p, a - p);
    let d2 = cross2(q - p, b - p);
    let d3 = cross2(b - a, p - a);
    let d4 = cross2(b - a, q - a);
    if opposite(d1, d2) && opposite(d3, d4) {
        return true;
    }
    return (d1 == 0.0 && within(p, q, a)) || (d2 == 0.0 && within(p, q, b))
        || (d3 == 0.0 && within(a, b, p)) || (d4 == 0.0 && within(a, b, q));
}

fn wall(k: u32) -> vec4<f32> {
    let at = params.seg_off + 4u * k;
    return bitcast<vec4<f32>>(vec4<u32>(ground[at], ground[at + 1u], ground[at + 2u], ground[at + 3u]));
}

// Whether no wall meets p-q: every wall (for the way out), or the cell's list (for neighbours,
// whose sight lines lie within the cutoff of p, as every wall on the list does).
fn sees_all(p: vec2<f32>, q: vec2<f32>) -> bool {
    for (var k = 0u; k < params.segments; k++) {
        let w = wall(k);
        if segments_meet(p, q, w.xy, w.zw) {
            return false;
        }
    }
    return true;
}

fn sees_listed(p: vec2<f32>, q: vec2<f32>, first: u32, end: u32) -> bool {
    for (var k = first; k < end; k++) {
        let w = wall(ground[k]);
        if segments_meet(p, q, w.xy, w.zw) {
            return false;
        }
    }
    return true;
}

fn unit(v: vec2<f32>) -> vec2<f32> {
    let len = length(v);
    if len > 0.0 {
        return v / len;
    }
    return vec2<f32>(0.0);
}

// Whether p-q crosses corner k's stand-off (from the corner to its point) anywhere but at the
// point itself (Geometry::passes_clear).
fn cuts(p: vec2<f32>, q: vec2<f32>, k: u32) -> bool {
    let at = params.way_off + 4u * (params.corners + k);
    let s = bitcast<vec4<f32>>(vec4<u32>(ground[at], ground[at + 1u], ground[at + 2u], ground[at + 3u]));
    return segments_meet(p, q, s.xy, s.zw) && !(cross2(q - p, s.zw - p) == 0.0 && cross2(q - p, s.xy - p) != 0.0);
}

// Whether p-q meets no wall and, when `clear`, cuts no corner's stand-off.
fn passes(p: vec2<f32>, q: vec2<f32>, clear: bool) -> bool {
    if !sees_all(p, q) {
        return false;
    }
    if clear {
        for (var k = 0u; k < params.corners; k++) {
            if cuts(p, q, k) {
                return false;
            }
        }
    }
    return true;
}

fn stage_word(s: u32, k: u32) -> u32 {
    return ground[params.stage_off + 8u * s + k];
}

fn stage_target(s: u32) -> vec2<f32> {
    return vec2<f32>(bitcast<f32>(stage_word(s, 1u)), bitcast<f32>(stage_word(s, 2u)));
}

fn is_exit(s: u32) -> bool {
    return stage_word(s, 0u) == 1u;
}

// Whether p has reached stage s: within a waypoint's distance, or in an exit (its boundary
// counts; the host gives its vertices counterclockwise).
fn reached(s: u32, p: vec2<f32>) -> bool {
    if !is_exit(s) {
        return distance(p, stage_target(s)) <= bitcast<f32>(stage_word(s, 3u));
    }
    let first = params.poly_off + 2u * stage_word(s, 4u);
    let len = stage_word(s, 5u);
    for (var k = 0u; k < len; k++) {
        let at = first + 2u * k;
        let next = first + 2u * ((k + 1u) % len);
        let a = bitcast<vec2<f32>>(vec2<u32>(ground[at], ground[at + 1u]));
        let b = bitcast<vec2<f32>>(vec2<u32>(ground[next], ground[next + 1u]));
        if cross2(b - a, p - a) < 0.0 {
            return false;
        }
    }
    return true;
}

// Stage s's target when the way there passes clear of the corners, else the corner so reached
// that starts the shortest way; where none is, the same by sight alone (Geometry::destination);
// p itself when no way leads there.
fn destination(p: vec2<f32>, s: u32) -> vec2<f32> {
    let goal = stage_target(s);
    for (var attempt = 0u; attempt < 2u; attempt++) {
        let clear = attempt == 0u;
        if passes(p, goal, clear) {
            return goal;
        }
        var best = p;
        var best_length = 3.4e38;
        for (var k = 0u; k < params.corners; k++) {
            let at = params.way_off + 4u * k;
            let w = bitcast<vec2<f32>>(vec2<u32>(ground[at], ground[at + 1u]));
            let to = bitcast<f32>(ground[params.to_off + s * params.corners + k]);
            if to < 0.0 {
                continue;
            }
            let length_via = distance(p, w) + to;
            if length_via < best_length && passes(p, w, clear) {
                best = w;
                best_length = length_via;
            }
        }
        if best_length < 3.4e38 {
            return best;
        }
    }
    return p;
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
    if reached(s, state_in[i].xy) {
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
    let home = cell_of(p);
    let walls_first = params.list_off + ground[home];
    let walls_end = params.list_off + ground[home + 1u];
    let c = cell_xy(p);
    let lo = max(c - vec2<i32>(1), vec2<i32>(0));
    let hi = min(c + vec2<i32>(1), vec2<i32>(i32(params.gx) - 1, i32(params.gy) - 1));
    var push = vec2<f32>(0.0);
    // The neighbours near enough to slow the agent down: a spacing s of more than v0 * T gives
    // v0 whichever neighbour it is (the margin covers f32's rounding of s / T), so the speed
    // below needs only these. Past NEAR_MAX of them, it looks at every neighbour again.
    var near: array<vec3<f32>, NEAR_MAX>;
    var near_count = 0u;
    let slow = me.x * me.z * 1.001 + 1e-6;
    for (var y = lo.y; y <= hi.y; y++) {
        for (var x = lo.x; x <= hi.x; x++) {
            let cell = u32(y) * params.gx + u32(x);
            for (var k = grid[cell]; k < grid[cell + 1u]; k++) {
                let j = grid[params.agents_off + k];
                let q = state_in[j].xy;
                let d = distance(p, q);
                if j == i || d > params.cutoff || !sees_listed(p, q, walls_first, walls_end) {
                    continue;
                }
                let reach = me.y + agents[2u * j].y;
                let exponent = min((reach - d) / repulsion.y, MAX_EXPONENT);
                push -= unit(q - p) * repulsion.x * exp(exponent);
                if d - reach <= slow {
                    if near_count < NEAR_MAX {
                        near[near_count] = vec3<f32>(q - p, reach);
                    }
                    near_count++;
                }
            }
        }
    }
    for (var k = walls_first; k < walls_end; k++) {
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
    let side = vec2<f32>(-direction.y, direction.x);
    var spacing = 3.4e38;
    for (var k = 0u; k < min(near_count, NEAR_MAX); k++) {
        let d = near[k].xy;
        if dot(direction, d) >= 0.0 && abs(dot(side, d)) <= near[k].z {
            spacing = min(spacing, length(d) - near[k].z);
        }
    }
    for (var y = lo.y; y <= hi.y && near_count > NEAR_MAX; y++) {
        for (var x = lo.x; x <= hi.x; x++) {
            let cell = u32(y) * params.gx + u32(x);
            for (var k = grid[cell]; k < grid[cell + 1u]; k++) {
                let j = grid[params.agents_off + k];
                let q = state_in[j].xy;
                let d = q - p;
                // The cheap tests first: most candidates are behind or beside the corridor ahead.
                if j == i || dot(direction, d) < 0.0 {
                    continue;
                }
                let reach = me.y + agents[2u * j].y;
                if abs(dot(side, d)) > reach || length(d) > params.cutoff {
                    continue;
                }
                if sees_listed(p, q, walls_first, walls_end) {
                    spacing = min(spacing, length(d) - reach);
                }
            }
        }
    }
    let speed = min(max(spacing / me.z, 0.0), me.x);
    let moved = p + direction * speed * params.dt;
    state_out[i] = vec4<f32>(moved, direction);
    if is_exit(stage) && reached(stage, moved) {
        grid[params.exited_off + i] = atomicLoad(&counts[0]) + 1u;
        atomicSub(&counts[params.targeting_off + stage], 1u);
    }
}

@compute @workgroup_size(1)
fn tick() {
    atomicAdd(&counts[0], 1u);
}
