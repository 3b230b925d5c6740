// Periodic boxes (WorldOptions::periodic): the images of the bodies that reach an edge of the box,
// as strip entries of their own, and the offset of the image of b that a pair (a, b) is judged with.
//
// The host moves every body by whole boxes so that its anchor lies in the box. Along a wrapping
// axis, a body whose box reaches the box's lower edge (within a few of its roundings) has an image
// a box up, and one that reaches the upper edge an image a box down: never both, as the World
// checks that every body is narrower than half the box. Each image (on a torus, and the image
// across the corner) is a strip entry of its own. An entry's value holds the body in the low
// BODY_BITS (candidate.wgsl), then per axis whether the entry is the body's image along it
// (ENTRY_IMAGE) and whether the body's image lies up (ENTRY_UP; set on all its entries).
//
// Two bodies whose images touch across an edge meet in the sweep as the body of one and the image
// of the other: a body that reaches the upper edge meets the image (a box up) of one that reaches
// the lower edge, and its own image (a box down) meets that body itself. Along each axis a pair
// of entries is kept where at most one is an image, and an image only where it lies up or the
// other body has no image up: each way two bodies can meet is kept once. (Were both of a box's
// boxes short of the edge they face, b + L could not reach a: b's box starts past x0, a's ends
// before x1, so b + L starts past a's end.)
// needs: params

#import candidate
#import exact

// exact.wgsl's barrier to float algebra: an XOR with the uniform 0 of the params.
fn keep(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ params.zero);
}

const ENTRY_IMAGE: u32 = 1u << 28u; // along x; along y the bit above
const ENTRY_UP: u32 = 1u << 30u;    // along x; along y the bit above

// A few of f32's roundings of a box edge: a body this close to an edge gets an image.
fn edge_slack(lo: f32, hi: f32) -> f32 {
    return (abs(lo) + abs(hi)) * 4.0e-6;
}

// Where a body whose box is `box` has its images, per axis: 1 a box up, 2 a box down, 0 none.
fn body_images(box: vec4<f32>) -> vec2<u32> {
    var side = vec2<u32>(0u);
    if (params.wrap & 1u) != 0u {
        let s = edge_slack(params.box_x0, params.box_x1);
        side.x = select(select(0u, 2u, box.z >= params.box_x1 - s), 1u, box.x <= params.box_x0 + s);
    }
    if (params.wrap & 2u) != 0u {
        let s = edge_slack(params.box_y0, params.box_y1);
        side.y = select(select(0u, 2u, box.w >= params.box_y1 - s), 1u, box.y <= params.box_y0 + s);
    }
    return side;
}

// Whether `combo` (bit 0: the image along x, bit 1: along y) is an entry of a body whose images
// are `side`.
fn has_combo(combo: u32, side: vec2<u32>) -> bool {
    return ((combo & 1u) == 0u || side.x != 0u) && ((combo & 2u) == 0u || side.y != 0u);
}

// The value of the entry of `body` for `combo`.
fn entry_value(body: u32, combo: u32, side: vec2<u32>) -> u32 {
    return body | (combo << BODY_BITS) | select(0u, ENTRY_UP, side.x == 1u) | select(0u, ENTRY_UP << 1u, side.y == 1u);
}

// The whole boxes the entry of value v lies from its body, along `axis`: -1, 0 or 1.
fn entry_step(v: u32, axis: u32) -> i32 {
    if (v & (ENTRY_IMAGE << axis)) == 0u {
        return 0;
    }
    return select(-1, 1, (v & (ENTRY_UP << axis)) != 0u);
}

// The box of the entry of value v whose body's box is `box`: moved a box along each axis where
// the entry is an image, and grown there by far more than the sum's rounding.
fn entry_box(box: vec4<f32>, v: u32) -> vec4<f32> {
    var b = box;
    let step = vec2<f32>(f32(entry_step(v, 0u)), f32(entry_step(v, 1u)));
    if step.x != 0.0 {
        let pad = (abs(b.x) + abs(b.z) + params.period_x) * 4.0e-6;
        b.x = b.x + step.x * params.period_x - pad;
        b.z = b.z + step.x * params.period_x + pad;
    }
    if step.y != 0.0 {
        let pad = (abs(b.y) + abs(b.w) + params.period_y) * 4.0e-6;
        b.y = b.y + step.y * params.period_y - pad;
        b.w = b.w + step.y * params.period_y + pad;
    }
    return b;
}

// Along `axis`, whether the sweep keeps the pair of entries of values va and vb: at most one is
// an image, and an image only where it lies up or the other body has no image up.
fn axis_paired(va: u32, vb: u32, axis: u32) -> bool {
    let ia = (va & (ENTRY_IMAGE << axis)) != 0u;
    let ib = (vb & (ENTRY_IMAGE << axis)) != 0u;
    let ua = (va & (ENTRY_UP << axis)) != 0u;
    let ub = (vb & (ENTRY_UP << axis)) != 0u;
    return !((ia && ib) || (ia && !ua && ub) || (ib && !ub && ua));
}

// Whether the sweep keeps the pair of entries of values va and vb (of two bodies), along both
// axes. (No loops here or below: the sweep's walk counts against Mesa's loop limit, loops.wgsl.)
fn entries_paired(va: u32, vb: u32) -> bool {
    return axis_paired(va, vb, 0u) && axis_paired(va, vb, 1u);
}

// Along `axis`, the image code bits of the entry vb's body relative to va's (candidate.wgsl),
// `flip`ped where the pair is written the other way round.
fn axis_code(va: u32, vb: u32, axis: u32, flip: bool) -> u32 {
    var r = entry_step(vb, axis) - entry_step(va, axis);
    if flip {
        r = -r;
    }
    return select(select(0u, 2u, r < 0), 1u, r > 0) << (2u * axis);
}

// The candidate of entries va and vb: the lower body, then the higher with its image relative to
// the lower (candidate.wgsl).
fn entries_candidate(va: u32, vb: u32) -> vec2<u32> {
    let a = va & BODY_MASK;
    let b = vb & BODY_MASK;
    let code = axis_code(va, vb, 0u, b < a) | axis_code(va, vb, 1u, b < a);
    return vec2<u32>(min(a, b), max(a, b) | (code << BODY_BITS));
}

// One coordinate of b's image's anchor in a's frame: tb - ta + step * (period + lo), taken as an
// exact sum of f32 and rounded once more (the plain difference where step is 0).
fn image_offset(ta: f32, tb: f32, step: f32, period: f32, lo: f32) -> f32 {
    if step == 0.0 {
        return tb - ta;
    }
    let d = two_sum(tb, -ta);
    let s = two_sum(d.x, step * period);
    return s.x + keep(keep(s.y + d.y) + step * lo);
}

// b's anchor in a's frame for a candidate's image code.
fn image_shift(ta: vec2<f32>, tb: vec2<f32>, code: u32) -> vec2<f32> {
    return image_shift_by(ta, tb, image_steps(code));
}

// tb - ta + step L, per axis (`step` whole boxes, at most a few), as image_offset takes it.
fn image_shift_by(ta: vec2<f32>, tb: vec2<f32>, step: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(
        image_offset(ta.x, tb.x, step.x, params.period_x, params.period_x_lo),
        image_offset(ta.y, tb.y, step.y, params.period_y, params.period_y_lo)
    );
}

// Continuous collision: the whole boxes, per axis, that move a body's start position `s` to
// within half a box of its position now `e`, so that it goes the shortest way, across an edge
// where it left the box (0 on an axis that does not wrap, and without a box). The World checks
// that each body's way, with its extent, is narrower than half the box.
fn start_steps(s: vec2<f32>, e: vec2<f32>) -> vec2<f32> {
    var n = vec2<f32>(0.0);
    if (params.wrap & 1u) != 0u {
        n.x = round((e.x - s.x) / params.period_x);
    }
    if (params.wrap & 2u) != 0u {
        n.y = round((e.y - s.y) / params.period_y);
    }
    return n;
}

// No image of b meets a (image_meeting).
const NO_IMAGE: u32 = 0xffffffffu;

// Along `axis` (0: x, 1: y), the image code bits of the image of b whose interval [lo_b, hi_b]
// meets a's, [lo_a, hi_a], or NO_IMAGE.
fn axis_meeting(lo_a: f32, hi_a: f32, lo_b: f32, hi_b: f32, axis: u32) -> u32 {
    if lo_b <= hi_a && lo_a <= hi_b {
        return 0u;
    }
    if (params.wrap & (1u << axis)) == 0u {
        return NO_IMAGE;
    }
    let period = select(params.period_x, params.period_y, axis == 1u);
    let pad = (abs(lo_b) + abs(hi_b) + period) * 4.0e-6;
    if lo_b + period - pad <= hi_a && lo_a <= hi_b + period + pad {
        return 1u << (2u * axis);
    }
    if lo_b - period - pad <= hi_a && lo_a <= hi_b - period + pad {
        return 2u << (2u * axis);
    }
    return NO_IMAGE;
}

// For the all-pairs broad phase, where no entries hold images: the image of b (itself, or a box
// either side along each wrapping axis) whose box meets a's, as a candidate's image code, or
// NO_IMAGE. At most one can: the World keeps every body narrower than half the box.
fn image_meeting(a: vec4<f32>, b: vec4<f32>) -> u32 {
    let x = axis_meeting(a.x, a.z, b.x, b.z, 0u);
    let y = axis_meeting(a.y, a.w, b.y, b.w, 1u);
    if x == NO_IMAGE || y == NO_IMAGE {
        return NO_IMAGE;
    }
    return x | y;
}
