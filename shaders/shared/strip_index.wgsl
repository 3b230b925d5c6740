// The frame's sorted strip entries read as an index (ray.wgsl, query.wgsl): where each strip's
// entries start and its widest box, so that in a strip the entries whose box may reach x are
// those whose left edge lies in [x - width, x]. The importing shader binds the sorted `keys`,
// the entries' `boxes` and a read-write `io` of u32 whose words from `at` hold the widths
// (MAX_STRIPS, f32 bits), then the starts (MAX_STRIPS + 1, the last: the end), and the bodies'
// `filters`; it writes `io` through `io_set`.
// needs: io_set

#import strips
#import filter

// Whether a question asked with filter `f` (category, mask, group as bits) sees body `i`;
// `filtered`: the bodies' filters differ from the default (else they are not read).
fn sees_body(f: vec3<u32>, filtered: u32, i: u32) -> bool {
    if filtered == 0u && f.x == 1u && f.y == 0xffffffffu && f.z == 0u {
        return true;
    }
    let b = select(vec4<u32>(1u, 0xffffffffu, 0u, 0u), filters_at(i), filtered != 0u);
    return may_collide(vec4<u32>(f, 0u), b);
}

// The first entry in [start, stop) whose key is at least `k` (keys have 24 bits: k + 1 fits).
fn first_from(k: u32, start: u32, stop: u32) -> u32 {
    var lo = start;
    var hi = stop;
    while lo < hi {
        let mid = lo + (hi - lo) / 2u;
        if (keys[mid] & KEY_MASK) < k {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

var<workgroup> widest: array<f32, WG>;

// Where strip `s` (of every world's, of the `entries` sorted ones) starts and its widest box,
// into `io` from word `at`: one workgroup's invocations striding over its entries.
fn strip_width(g: Grid, entries: u32, s: u32, lid: u32, at: u32) {
    let start = first_from(s << g.x_bits, 0u, entries);
    let stop = first_from((s + 1u) << g.x_bits, start, entries);
    if lid == 0u {
        io_set(at + MAX_STRIPS + s, start);
        if s + 1u == g.strips * g.worlds {
            io_set(at + MAX_STRIPS + s + 1u, stop);
        }
    }
    var w = 0.0;
    for (var k = start + lid; k < stop; k += WG) {
        let box = boxes_at(k);
        w = max(w, box.z - box.x);
    }
    widest[lid] = w;
    for (var half = WG / 2u; half > 0u; half /= 2u) {
        workgroupBarrier();
        if lid < half {
            widest[lid] = max(widest[lid], widest[lid + half]);
        }
    }
    if lid == 0u {
        io_set(at + s, bitcast<u32>(widest[0]));
    }
}
