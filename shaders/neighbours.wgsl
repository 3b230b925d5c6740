// Each body's neighbours from a resident frame's pairs (World::contacts_buffer, a < b, in sweep
// order): count the rows of each body (both ends of every pair), scan the counts, scatter the
// rows, then rank each row within its body's rows by (distance, neighbour) and keep the first k
// in that order. Keys are unique (one pair per two bodies), so the ranks are a permutation and
// the result does not depend on the order the atomics ran.

#import records
#import constants
#import index
#import workgroup_scan

struct NeighbourParams {
    bodies: u32,
    k: u32,          // rows kept per body (0xffffffff: all)
    pad0: u32,
    pad1: u32,
}

// A row: the neighbour (bit 31 set where the body is the pair's b, whose normal is flipped),
// the pair's depth (minus the distance), the normal from the body toward the neighbour.
struct Row {
    neighbour: u32,
    depth: f32,
    normal_x: f32,
    normal_y: f32,
}

@group(0) @binding(0) var<uniform> params: NeighbourParams;
@group(0) @binding(1) var<storage, read> totals: array<u32>;
@group(0) @binding(2) var<storage, read> contacts: array<Contact>;
@group(0) @binding(3) var<storage, read> body_of: array<u32>;              // per instance
// Per body: rows, then cursors (2 x bodies).
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;
// Row starts (bodies + 1), kept starts (bodies + 1), the rank pass's indirect arguments (3),
// then each row's body (from ROW_BODY = 2 bodies + 5 on).
@group(0) @binding(5) var<storage, read_write> starts: array<u32>;
@group(0) @binding(6) var<storage, read_write> rows: array<Row>;
@group(0) @binding(7) var<storage, read_write> kept: array<Row>;

const B_SIDE: u32 = 0x80000000u;

@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = linear_index(gid, nwg);
    if p >= totals[TOTAL_COLLIDING] {
        return;
    }
    let c = contacts[p];
    atomicAdd(&counts[body_of[c.a]], 1u);
    atomicAdd(&counts[body_of[c.b]], 1u);
}

// One workgroup: the row starts and the kept starts (at most k a body), and the rank pass's
// indirect arguments over all rows.
@compute @workgroup_size(256)
fn scan(@builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    let n = params.bodies;
    let run = (n + SCAN_WG - 1u) / SCAN_WG;
    let first = min(t * run, n);
    let end = min(first + run, n);
    var total = vec2<u32>(0u);
    for (var b = first; b < end; b++) {
        let c = atomicLoad(&counts[b]);
        total += vec2<u32>(c, min(c, params.k));
    }
    let inclusive = vec2<u32>(workgroup_scan(t, total.x), workgroup_scan(t, total.y));
    var at = inclusive - total;
    for (var b = first; b < end; b++) {
        starts[b] = at.x;
        starts[n + 1u + b] = at.y;
        let c = atomicLoad(&counts[b]);
        at += vec2<u32>(c, min(c, params.k));
    }
    if t == SCAN_WG - 1u {
        starts[n] = inclusive.x;
        starts[2u * n + 1u] = inclusive.y;
        let groups = max((inclusive.x + WG - 1u) / WG, 1u);
        starts[2u * n + 2u] = min(groups, 65535u);
        starts[2u * n + 3u] = (groups + 65534u) / 65535u;
        starts[2u * n + 4u] = 1u;
    }
}

fn put(body: u32, row: Row) {
    let at = starts[body] + atomicAdd(&counts[params.bodies + body], 1u);
    rows[at] = row;
    starts[2u * params.bodies + 5u + at] = body;
}

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = linear_index(gid, nwg);
    if p >= totals[TOTAL_COLLIDING] {
        return;
    }
    let c = contacts[p];
    let a = body_of[c.a];
    let b = body_of[c.b];
    put(a, Row(b, c.depth, c.normal_x, c.normal_y));
    // The flipped normal by its sign bits, not by arithmetic (which could fold -0.0).
    let flipped = bitcast<vec2<f32>>(bitcast<vec2<u32>>(vec2<f32>(c.normal_x, c.normal_y)) ^ vec2<u32>(B_SIDE));
    put(b, Row(a | B_SIDE, c.depth, flipped.x, flipped.y));
}

// The distance (minus the depth) as a u32 in f64's total order of the same values: -0.0
// before 0.0, negatives before positives.
fn distance_key(depth: f32) -> u32 {
    let bits = bitcast<u32>(depth) ^ B_SIDE; // the bits of -depth
    if (bits & B_SIDE) != 0u {
        return ~bits;
    }
    return bits | B_SIDE;
}

fn before(x: Row, y: Row) -> bool {
    let kx = distance_key(x.depth);
    let ky = distance_key(y.depth);
    return kx < ky || (kx == ky && (x.neighbour & ~B_SIDE) < (y.neighbour & ~B_SIDE));
}

@compute @workgroup_size(64)
fn rank(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let r = linear_index(gid, nwg);
    let n = params.bodies;
    if r >= starts[n] {
        return;
    }
    let body = starts[2u * n + 5u + r];
    let me = rows[r];
    var place = 0u;
    for (var s = starts[body]; s < starts[body + 1u]; s++) {
        if before(rows[s], me) {
            place++;
        }
    }
    if place < params.k {
        kept[starts[n + 1u + body] + place] = me;
    }
}
