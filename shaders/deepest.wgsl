// Compound bodies only (src/gpu/stages/deepest.rs): of the colliding part pairs of each pair of
// bodies, keep the deepest (of equal depths the first by part index) and clear the others'
// collision flags before the compaction's scan, so that one pair per pair of bodies is written.
// One invocation per tested candidate, in four dispatches (STEP, a pipeline constant):
//   0: clear the two table slots of this candidate (the table has 2 slots per candidate);
//   1: find or claim the slot of the pair of bodies (open addressing, linear probing), and raise
//      its deepest depth;
//   2: of the pairs at that depth, raise the slot's part word to the first part pair;
//   3: clear the flag and result of every pair that is not its slot's winner.
// A part's body is named by its first part (the filter record's fourth word, first part + 1, or
// 0 for a body of one part, which is its own first part). The table lives in the contacts
// buffer, free between the narrow phase and the compaction: 2 slots of 3 words (claimer + 1,
// depth bits, !part key) per candidate, 6 words, the size of a contact record.

#import constants
#import index
#import candidate

@group(0) @binding(0) var<storage, read> control: array<u32>; // [PAIRS] = candidates tested
@group(0) @binding(1) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> results: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> flags: array<u32>;
#paged instances 4 read filters vec4<u32>
@group(0) @binding(5) var<storage, read_write> table: array<atomic<u32>>;

override STEP: u32 = 0u;

// The first part of the body that part `p` belongs to.
fn body_of(p: u32) -> u32 {
    let w = filters_at(p).w;
    return select(p, w - 1u, w != 0u);
}

fn bodies_of(i: u32) -> vec2<u32> {
    let pair = candidate_bodies(candidates[i]);
    return vec2<u32>(body_of(pair.x), body_of(pair.y));
}

// A depth's bits, ordered as the depths are: negative depths (pairs apart within a margin) below
// zero, and -0.0 as 0.0.
fn depth_key(i: u32) -> u32 {
    let d = results[i].z;
    let bits = bitcast<u32>(d);
    if d == 0.0 {
        return 0x80000000u;
    }
    return select(bits | 0x80000000u, ~bits, d < 0.0);
}

// The part pair within its pair of bodies, complemented so that the largest is the first.
fn part_key(i: u32, bodies: vec2<u32>) -> u32 {
    let pair = candidate_bodies(candidates[i]);
    return ~(((pair.x - bodies.x) << PART_BITS) | (pair.y - bodies.y));
}

// The slot of candidate `i`'s pair of bodies: claimed if `claim` and no slot holds it yet.
fn slot_of(i: u32, bodies: vec2<u32>, slots: u32, claim: bool) -> u32 {
    var h = ((bodies.x * 0x9e3779b1u) ^ (bodies.y * 0x85ebca77u));
    h = (h ^ (h >> 15u)) * 0x2c1b3c6du;
    var s = (h ^ (h >> 12u)) % slots;
    loop {
        var holder = atomicLoad(&table[3u * s]);
        if holder == 0u && claim {
            let r = atomicCompareExchangeWeak(&table[3u * s], 0u, i + 1u);
            if r.exchanged {
                return s;
            }
            holder = r.old_value;
            if holder == 0u {
                continue; // a spurious failure: try the same slot again
            }
        }
        // A slot that was never claimed ends the probe only when claiming; a lookup finds the
        // slot its own claim made, so it never reaches an empty one.
        if holder != 0u && all(bodies_of(holder - 1u) == bodies) {
            return s;
        }
        s = select(s + 1u, 0u, s + 1u == slots);
    }
    return s;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    let n = control[PAIRS];
    if i >= n {
        return;
    }
    if STEP == 0u {
        for (var w = 6u * i; w < 6u * i + 6u; w++) {
            atomicStore(&table[w], 0u);
        }
        return;
    }
    if flags[i] == 0u {
        return;
    }
    // A pair of two bodies of one part each is its pair of bodies' only part pair.
    let pair = candidate_bodies(candidates[i]);
    if filters_at(pair.x).w == 0u && filters_at(pair.y).w == 0u {
        return;
    }
    let bodies = bodies_of(i);
    let s = slot_of(i, bodies, 2u * n, STEP == 1u);
    if STEP == 1u {
        atomicMax(&table[3u * s + 1u], depth_key(i));
    } else if STEP == 2u {
        if atomicLoad(&table[3u * s + 1u]) == depth_key(i) {
            atomicMax(&table[3u * s + 2u], part_key(i, bodies));
        }
    } else if atomicLoad(&table[3u * s + 2u]) != part_key(i, bodies) {
        flags[i] = 0u;
        results[i].w = 0.0;
    }
}
