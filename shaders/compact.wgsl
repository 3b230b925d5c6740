// Compaction: one invocation per tested candidate. After the scan, offsets[i] is the number of
// colliding pairs before candidate i, so each colliding pair is written at its offset and the
// output keeps the candidates' order with no atomics. The last invocation also knows the colliding
// total, and writes the indirect arguments of a 64-wide pass over the colliding pairs for the
// caller's own passes (World::totals_buffer).

#import constants
#import index
#import contact
#import candidate

@group(0) @binding(0) var<storage, read> control: array<u32>; // [PAIRS] = candidates tested
@group(0) @binding(1) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> results: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> contacts: array<Contact>;
@group(0) @binding(5) var<storage, read_write> contact_args: array<u32, 4>; // (x, y, z, colliding); cleared before the pass

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i >= control[PAIRS] {
        return;
    }
    let r = results[i];
    if i + 1u == control[PAIRS] {
        let colliding = offsets[i] + select(0u, 1u, r.w != 0.0);
        let args = folded((colliding + WG - 1u) / WG, control[PAIR_SCAN + FOLD]);
        contact_args[0] = args.x;
        contact_args[1] = args.y;
        contact_args[2] = args.z;
        contact_args[3] = colliding;
    }
    if r.w != 0.0 {
        // `pad` keeps the image of b the pair was judged with, for the manifolds (candidate.wgsl).
        let pair = candidates[i];
        let bodies = candidate_bodies(pair);
        contacts[offsets[i]] = Contact(bodies.x, bodies.y, r.x, r.y, r.z, candidate_image(pair));
    }
}
