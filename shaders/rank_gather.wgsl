// After rank_sort.wgsl: one invocation per sorted entry moves it from the scratch buffers back to
// where the sweep reads sorted entries, and copies its body's AABB next to it (as gather.wgsl
// does after the radix sort).

#import constants
#import index
#import candidate

@group(0) @binding(0) var<storage, read> control: array<u32>;
@group(0) @binding(1) var<storage, read> sorted_keys: array<u32>;
@group(0) @binding(2) var<storage, read> sorted_values: array<u32>;
#paged instances 3 read aabbs vec4<f32>
@group(0) @binding(4) var<storage, read_write> keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> values: array<u32>;
#paged entries 6 read_write boxes vec4<f32>

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if i < control[ENTRIES] {
        let body = sorted_values[i];
        keys[i] = sorted_keys[i];
        values[i] = body;
        boxes_set(i, aabbs_at(body & BODY_MASK)); // an image's box is moved where it is read (image.wgsl)
    }
}
