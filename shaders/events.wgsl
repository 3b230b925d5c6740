// Contact events (src/gpu/stages/events.rs): the pairs that began and ended touching since the
// previous frame, from the two frames' pair lists, both sorted by (a, b). Each pair of one list
// looks itself up in the other by binary search; those missing there are events. One exclusive
// scan over the flags of both lists (this frame's first) places every event, so the output is
// the began pairs in order, then the ended pairs in order, with no atomics. After the setup
// (events_setup.wgsl), in two dispatches (EVENT_STEP, a pipeline constant):
//   1: per pair of either list (and one past them), its flag; this frame's pairs are also copied
//      into `next`, the list the next frame compares against;
//   2: (after the scan) per pair, written at its offset if it is an event; the last invocation
//      writes the totals and the indirect arguments of a pass over the events.
// `prev` and `next` hold their count in word 0 of record 0, their pairs from record 1 on.

#import constants
#import index
#import records

@group(0) @binding(0) var<storage, read> control: array<u32>; // the stage's own
@group(0) @binding(1) var<storage, read> contact_args: array<u32, 4>; // (x, y, z, colliding)
@group(0) @binding(2) var<storage, read> contacts: array<Contact>; // sorted by (a, b)
@group(0) @binding(3) var<storage, read> prev: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> next: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> offsets: array<u32>;
@group(0) @binding(6) var<storage, read_write> events: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> event_totals: array<u32, 8>;

override EVENT_STEP: u32 = 1u;

fn less(p: vec2<u32>, q: vec2<u32>) -> bool {
    return p.x < q.x || (p.x == q.x && p.y < q.y);
}

fn current(i: u32) -> vec2<u32> {
    let c = contacts[i];
    return vec2<u32>(c.a, c.b);
}

// Whether `key` is among this frame's `n` pairs.
fn in_current(key: vec2<u32>, n: u32) -> bool {
    var lo = 0u;
    var hi = n;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if less(current(mid), key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo < n && all(current(lo) == key);
}

// Whether `key` is among the previous frame's `n` pairs.
fn in_previous(key: vec2<u32>, n: u32) -> bool {
    var lo = 0u;
    var hi = n;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if less(prev[mid + 1u], key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo < n && all(prev[lo + 1u] == key);
}

// Pair `i` of both lists: this frame's first, then the previous frame's.
fn pair(i: u32, n_cur: u32) -> vec2<u32> {
    if i < n_cur {
        return current(i);
    }
    return prev[i - n_cur + 1u];
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    let n_cur = control[EVENT_CURRENT];
    let length = control[EVENT_LENGTH];
    if i > length {
        return;
    }
    if EVENT_STEP == 1u {
        if i == length {
            offsets[i] = 0u;
        } else if i < n_cur {
            let key = current(i);
            next[i + 1u] = key;
            offsets[i] = select(1u, 0u, in_previous(key, length - n_cur));
        } else {
            offsets[i] = select(1u, 0u, in_current(pair(i, n_cur), n_cur));
        }
        return;
    }
    if i == length {
        let total = offsets[length];
        let began = offsets[n_cur];
        event_totals[0] = began;
        event_totals[1] = total - began;
        event_totals[2] = total;
        event_totals[3] = 0u;
        let args = folded((total + WG - 1u) / WG, control[PAIR_SCAN + FOLD]);
        event_totals[4] = args.x;
        event_totals[5] = args.y;
        event_totals[6] = args.z;
        event_totals[7] = 0u;
    } else if offsets[i + 1u] != offsets[i] {
        events[offsets[i]] = pair(i, n_cur);
    }
}
