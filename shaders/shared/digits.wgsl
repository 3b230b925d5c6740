// Radix digit counting in a workgroup: 16 counts of 16 bits packed in two vec4<u32> per
// invocation (a tile has at most 4096 keys, so no field overflows).

#import chunk

var<workgroup> low: array<vec4<u32>, RADIX_WG>;  // digits 0..7, 16 bits each
var<workgroup> high: array<vec4<u32>, RADIX_WG>; // digits 8..15

// A count of one for digit d (its field within the low or the high vector).
fn one_hot(d: u32) -> vec4<u32> {
    let bit = 1u << ((d & 1u) * 16u);
    let c = (d & 7u) >> 1u;
    return vec4<u32>(select(0u, bit, c == 0u), select(0u, bit, c == 1u), select(0u, bit, c == 2u),
                     select(0u, bit, c == 3u));
}

// The count of digit d.
fn field(lo: vec4<u32>, hi: vec4<u32>, d: u32) -> u32 {
    let w = select(hi, lo, d < 8u);
    let c = (d & 7u) >> 1u;
    let word = select(select(w.w, w.z, c == 2u), select(w.y, w.x, c == 0u), c < 2u);
    return (word >> ((d & 1u) * 16u)) & 0xffffu;
}
