// Gather: one invocation per sorted entry copies its body's AABB next to it, so the two sweeps
// read boxes in sorted order from contiguous memory instead of gathering them at random.

// keep in sync with src/gpu/control.rs
const ENTRIES: u32 = 36u;

@group(0) @binding(0) var<storage, read> control: array<u32>;
@group(0) @binding(1) var<storage, read> values: array<u32>; // body of each sorted entry
@group(0) @binding(2) var<storage, read> aabbs: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> boxes: array<vec4<f32>>; // aabbs[values[i]]

const WG: u32 = 64u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i < control[ENTRIES] {
        boxes[i] = aabbs[values[i]];
    }
}
