// Sums of f32 decided exactly, with Shewchuk's error-free transformations, and a coordinate
// moved into a body's frame rounded once (geometry/frame.rs rounds vertices the same way).
// Drivers may rewrite float algebra they are not told to keep ((a + b) - a into b), so every
// intermediate passes through `keep`, which the importer defines as an XOR of its bits with a
// uniform 0: no change, and no float algebra can see through it.
// needs: keep

// a + b rounded, and its rounding error: their sum is a + b exactly.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = keep(a + b);
    let b_virtual = keep(s - a);
    let a_virtual = keep(s - b_virtual);
    return vec2<f32>(s, keep(a - a_virtual) + keep(b - b_virtual));
}

// The sign of the sum of the six terms, exactly: each term grows a nonoverlapping expansion of
// the sum (smallest component first; Shewchuk's grow-expansion), whose sign is that of its
// largest nonzero component. Written out without loops: Mesa's llvmpipe and lavapipe stop every
// invocation after 65,535 loop iterations in all, and this runs for every coordinate tested.
fn exact_sign(t: array<f32, 6>) -> f32 {
    var e0 = t[0];
    var s = two_sum(t[1], e0);
    e0 = s.y;
    var e1 = s.x;
    s = two_sum(t[2], e0);
    e0 = s.y;
    s = two_sum(s.x, e1);
    e1 = s.y;
    var e2 = s.x;
    s = two_sum(t[3], e0);
    e0 = s.y;
    s = two_sum(s.x, e1);
    e1 = s.y;
    s = two_sum(s.x, e2);
    e2 = s.y;
    var e3 = s.x;
    s = two_sum(t[4], e0);
    e0 = s.y;
    s = two_sum(s.x, e1);
    e1 = s.y;
    s = two_sum(s.x, e2);
    e2 = s.y;
    s = two_sum(s.x, e3);
    e3 = s.y;
    var e4 = s.x;
    s = two_sum(t[5], e0);
    e0 = s.y;
    s = two_sum(s.x, e1);
    e1 = s.y;
    s = two_sum(s.x, e2);
    e2 = s.y;
    s = two_sum(s.x, e3);
    e3 = s.y;
    s = two_sum(s.x, e4);
    e4 = s.y;
    let e5 = s.x;
    // The largest nonzero component's sign.
    var sign_of = sign(e0);
    sign_of = select(sign_of, sign(e1), e1 != 0.0);
    sign_of = select(sign_of, sign(e2), e2 != 0.0);
    sign_of = select(sign_of, sign(e3), e3 != 0.0);
    sign_of = select(sign_of, sign(e4), e4 != 0.0);
    return select(sign_of, sign(e5), e5 != 0.0);
}

// The next f32 above x (x finite).
fn next_up(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if x > 0.0 {
        return bitcast<f32>(b + 1u);
    }
    if x < 0.0 {
        return bitcast<f32>(b - 1u);
    }
    return bitcast<f32>(1u);
}

fn is_odd(x: f32) -> bool {
    return (bitcast<u32>(x) & 1u) == 1u;
}

// c, or its neighbour toward the f32 nearest the exact sum x.x + x.y + x.z - anchor (d: the
// first two, as `two_sum` gives them), where c is not that f32 already: the exact sum compared
// with the midpoints between c and its neighbours (on a midpoint, the even one is nearest).
fn toward_nearest(x: vec3<f32>, d: vec2<f32>, c: f32) -> f32 {
    let up = next_up(c);
    let above = exact_sign(array<f32, 6>(x.z, x.y, d.y, d.x, -c, keep(up - c) * -0.5));
    if above > 0.0 || (above == 0.0 && is_odd(c)) {
        return up;
    }
    let down = -next_up(-c);
    let below = exact_sign(array<f32, 6>(x.z, x.y, d.y, d.x, -c, keep(c - down) * 0.5));
    if below < 0.0 || (below == 0.0 && is_odd(c)) {
        return down;
    }
    return c;
}

// The f32 nearest x.x + x.y + x.z - anchor (ties to even), where the host split a coordinate
// exactly into three f32 (frame::split): for a vertex at that coordinate, the f32 the host
// stored (frame::to_frame), so that a query's corner and a vertex given as the same number are
// the same number in the body's frame. The sum rounded step by step is within two steps of it
// (tested on the host against integer arithmetic: frame.rs), so two moves settle it.
fn to_frame(x: vec3<f32>, anchor: f32) -> f32 {
    let d = two_sum(x.x, -anchor);
    let first = keep(d.x + keep(d.y + keep(x.y + x.z)));
    return toward_nearest(x, d, toward_nearest(x, d, first));
}
