// Gather: one invocation per sorted entry copies its body's AABB next to it, so the two sweeps
// read boxes in sorted order from contiguous memory instead of gathering them at random.

#import constants
#import index
#import candidate

@group(0) @binding(0) var<storage, read> control: array<u32>;
@group(0) @binding(1) var<storage, read> values: array<u32>; // body of each sorted entry
#paged instances 2 read aabbs vec4<f32>
#paged entries 3 read_write boxes vec4<f32> // aabbs_at(values[i])

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i < control[ENTRIES] {
        boxes_set(i, aabbs_at(values[i] & BODY_MASK)); // an image's box is moved where it is read (image.wgsl)
    }
}
