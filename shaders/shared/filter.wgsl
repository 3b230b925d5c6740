// Collision filtering (Box2D's b2Filter), per body (category, mask, group as i32 bits, owner):
// parts of one compound body (the same nonzero owner, set by CompoundWorld) never collide;
// bodies of the same nonzero group collide if it is positive and never if it is negative;
// otherwise each one's category must be in the other's mask. Twin of Filter::should_collide.
fn may_collide(fa: vec4<u32>, fb: vec4<u32>) -> bool {
    if fa.w != 0u && fa.w == fb.w {
        return false;
    }
    let ga = bitcast<i32>(fa.z);
    let gb = bitcast<i32>(fb.z);
    if ga == gb && ga != 0 {
        return ga > 0;
    }
    return (fa.x & fb.y) != 0u && (fb.x & fa.y) != 0u;
}

// Whether a broad-phase kernel reads the collision filters: a constant, so that a world without
// filters runs its kernels without them (src/gpu/kernels/pipelines.rs builds both variants).
override FILTERED: bool = false;
