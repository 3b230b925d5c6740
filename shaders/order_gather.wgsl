// GPU ordering by (a, b), after a stable radix sort of the keys that order_keys.wgsl wrote: one
// invocation per colliding pair, dispatched by the compaction's arguments (World::totals_buffer).
// Rekey (GATHER false), when the first sort was by b alone: each sorted pair's key becomes its a,
// for a second stable sort. Gather (GATHER true): each pair written in sorted order as a Contact,
// -0.0 in the normal made +0.0 by its bits (as the host ordering does), so that the order and the
// bits of the output are the host's.

#import constants
#import index
#import contact
#import candidate

override GATHER: bool = false;

@group(0) @binding(0) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> results: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> order: array<u32>; // [RADIX] = colliding
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read> values: array<u32>;
@group(0) @binding(5) var<storage, read_write> contacts: array<Contact>;

fn positive_zero(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    return bitcast<f32>(select(bits, 0u, bits == 0x80000000u));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = linear_index(gid, nwg);
    if j >= order[RADIX] {
        return;
    }
    let i = values[j];
    let pair = candidate_bodies(candidates[i]);
    if !GATHER {
        keys[j] = pair.x;
    } else {
        // `pad` keeps the image of b the pair was judged with, for the manifolds (candidate.wgsl).
        let r = results[i];
        let image = candidate_image(candidates[i]);
        contacts[j] = Contact(pair.x, pair.y, positive_zero(r.x), positive_zero(r.y), r.z, image);
    }
}
