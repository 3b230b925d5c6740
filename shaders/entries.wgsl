// Strip entries: one invocation per body. Each body gets one entry per strip its AABB spans.
// With WRITE = false it stores how many; the host's scan turns those into offsets; with
// WRITE = true it writes the entries (key, body) at its offset, guarded by the capacity. The key
// is the strip index in the high bits and the AABB min.x quantised below it, so sorting the keys
// orders entries by strip, then by min.x; the bit above them (KEY_FIRST) marks the body's entry
// in its first strip.
//
// In a periodic box a body that reaches an edge also has entries for its images (image.wgsl),
// each image's entries after the body's own.

#import constants
#import params
#import index
#import count_or_write
#import grid
#import image

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> control: array<u32>;
#paged instances 2 read aabbs vec4<f32>
@group(0) @binding(3) var<storage, read_write> counts: array<u32>; // per body: count, then offset
@group(0) @binding(4) var<storage, read_write> keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> values: array<u32>;
@group(0) @binding(6) var<storage, read> worlds: array<u32>; // per body, read if params.worlds > 1

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= params.n_bodies {
        return;
    }
    let body_box = aabbs_at(i);
    var side = vec2<u32>(0u);
    if params.wrap != 0u {
        side = body_images(body_box);
    }
    // The body's world's first strip.
    var first = 0u;
    if WRITE && params.worlds > 1u {
        first = worlds[i] * control[GRID + 2u];
    }
    var slot = select(0u, counts[i], WRITE);
    // The body itself (combo 0), then (in a periodic box) its images along x, y and both.
    let combos = select(1u, 4u, params.wrap != 0u);
    for (var combo = 0u; combo < combos; combo++) {
        if combo != 0u && !has_combo(combo, side) {
            continue;
        }
        let value = entry_value(i, combo, side);
        let box = entry_box(body_box, value);
        let s0 = strip(box.y);
        let s1 = strip(box.w);
        if !WRITE {
            slot += s1 - s0 + 1u;
            continue;
        }
        // The key's x bits, alike in every strip.
        let x_key = key(0u, box.x);
        let x_bits = control[GRID + 3u];
        for (var s = s0; s <= s1; s++) {
            if slot < params.entry_capacity {
                keys[slot] = ((first + s) << x_bits) | x_key | select(0u, KEY_FIRST, s == s0);
                values[slot] = value;
            }
            slot++;
        }
    }
    if !WRITE {
        counts[i] = slot;
    }
}
