// Scan, down-sweep: adds the scanned total of all earlier blocks (level l + 1) to every element
// of each block of level l. Same dispatch shape and CHUNK as scan_blocks.wgsl.

@group(0) @binding(0) var<uniform> level: vec4<u32>; // x = level index
@group(0) @binding(1) var<storage, read> scan_info: array<u32>;
@group(0) @binding(2) var<storage, read_write> data: array<u32>;
@group(0) @binding(3) var<storage, read_write> sums: array<u32>;

const WG: u32 = 256u;
override CHUNK: u32 = 2u; // elements per invocation (src/gpu/kernels.rs picks it per adapter)

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = scan_info[level.x];
    let block = wid.x + wid.y * nwg.x;
    let start = (block * WG + lid) * CHUNK;
    if start >= n {
        return;
    }
    let add = sums[block];
    for (var k = 0u; k < min(CHUNK, n - start); k++) {
        data[start + k] += add;
    }
}
