// A candidate pair (a, b), a < b, as the broad phase writes it: b's index in the low BODY_BITS of
// the second word, and above them, in a periodic box (WorldOptions::periodic), which image of b the
// pair is judged with, relative to a: 2 bits per axis (x in bits 0-1, y in bits 2-3): 0 b itself,
// 1 its image a box up (along +x, +y), 2 a box down. Every reader of candidates takes b here.
// See image.wgsl.

const BODY_BITS: u32 = 28u;
const BODY_MASK: u32 = (1u << BODY_BITS) - 1u;

// The pair's two bodies.
fn candidate_bodies(pair: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(pair.x, pair.y & BODY_MASK);
}

// The pair's image code (0 without a periodic box).
fn candidate_image(pair: vec2<u32>) -> u32 {
    return pair.y >> BODY_BITS;
}

// The whole boxes an image code moves b by, per axis: -1, 0 or 1.
fn image_steps(code: u32) -> vec2<f32> {
    let up = vec2<bool>((code & 1u) != 0u, (code & 4u) != 0u);
    let down = vec2<bool>((code & 2u) != 0u, (code & 8u) != 0u);
    return select(vec2<f32>(0.0), vec2<f32>(1.0), up) - select(vec2<f32>(0.0), vec2<f32>(1.0), down);
}

// Not a body: an entry a search other than the sweep passes over.
const NOT_A_BODY: u32 = 0xffffffffu;

// The body of the strip entry of value `v` (`images`: the world is in a periodic box, whose
// entries carry their images, image.wgsl), or NOT_A_BODY where the entry is one of its body's
// images: queries and rays see each body once, where it is, and are laid at its images instead.
fn entry_body(v: u32, images: u32) -> u32 {
    if images == 0u {
        return v;
    }
    if (v & (3u << BODY_BITS)) != 0u {
        return NOT_A_BODY;
    }
    return v & BODY_MASK;
}
