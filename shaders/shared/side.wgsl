// One body of a pair as the narrow phase and the manifold pass see it, in the pair's frame: centred
// on a's anchor and scaled by a power of two chosen from the pair's size (exact, so integers stay
// integers), so that precision follows the size of the pair, not its distance from the origin.
// The importing kernel reads the packed shapes through `shapes_at(i)` (vertex.xy, unit normal.xy, local; a `#paged` array) and imports `body`.

// One side of the pair as the narrow phase sees it: where its shape lives, its rotation and the
// offset and scale that put it in the pair's frame.
struct Side {
    start: u32,
    count: u32,
    rotation: vec2<f32>, // (cos, sin)
    offset: vec2<f32>,   // anchor relative to a's anchor (zero for a)
    scale: f32,
}

// Vertex k of a side in the pair's scaled frame, and its edge's unit outward normal.
fn vertex(s: Side, k: u32) -> vec2<f32> {
    return placed(s, shapes_at(s.start + k).xy);
}

// A point of the side's shape, given in local coordinates, in the pair's scaled frame.
fn placed(s: Side, local: vec2<f32>) -> vec2<f32> {
    return (rotate(s.rotation, local) + s.offset) * s.scale;
}

// Q's edge vector from vertex j to vertex k in the pair's frame, from the local coordinates: the
// offset cancels before any rounding, so even a tiny edge far from a's anchor keeps its direction.
fn edge(s: Side, j: u32, k: u32) -> vec2<f32> {
    return rotate(s.rotation, shapes_at(s.start + k).xy - shapes_at(s.start + j).xy) * s.scale;
}

fn normal(s: Side, k: u32) -> vec2<f32> {
    return rotate(s.rotation, shapes_at(s.start + k).zw);
}

fn next(k: u32, n: u32) -> u32 {
    return select(k + 1u, 0u, k + 1u == n);
}

// The exponent k = -e for the exponent e of m, so that m * 2^k lies in [1, 2), kept within the
// normal range so that 2^k and 2^-k are both exact f32 values.
fn scale_exponent(m: f32) -> i32 {
    let e = i32((bitcast<u32>(m) >> 23u) & 0xffu) - 127;
    return clamp(-e, -126, 126);
}

fn pow2(k: i32) -> f32 {
    return bitcast<f32>(u32(k + 127) << 23u);
}

// A core of one point (a circle's) has no edge.
fn faces(count: u32) -> u32 {
    return select(count, 0u, count == 1u);
}

fn prev(k: u32, n: u32) -> u32 {
    return select(k - 1u, n - 1u, k == 0u);
}

// The first vertex of Q lowest along `axis`.
fn support_scan(q: Side, axis: vec2<f32>) -> u32 {
    var best = 0u;
    var lowest = dot(axis, vertex(q, 0u));
    for (var k = 1u; k < q.count; k++) {
        let d = dot(axis, vertex(q, k));
        if d < lowest {
            lowest = d;
            best = k;
        }
    }
    return best;
}

// The two sides of the pair (a, b) and the exponent k of its scale 2^k: a's anchor is the origin,
// and the pair's extent lies in [1, 2) after scaling.
struct Pair {
    a: Side,
    b: Side,
    k: i32,
}

// `shift`: b's anchor in a's frame (tb.xy - ta.xy, or an image's: image.wgsl).
fn pair_frame(ba: Instance, bb: Instance, ta: vec4<f32>, tb: vec4<f32>, shift: vec2<f32>) -> Pair {
    let extent = max(ba.radius + ba.round, bb.radius + bb.round + max(abs(shift.x), abs(shift.y)));
    let k = scale_exponent(extent);
    let scale = pow2(k);
    return Pair(Side(ba.shape_start, ba.count, ta.zw, vec2<f32>(0.0), scale), Side(bb.shape_start, bb.count, tb.zw, shift, scale), k);
}
