// The scan kernels' bindings (src/gpu/primitives/scan.rs binds them the same way for both).

#import chunk

@group(0) @binding(0) var<uniform> level: vec4<u32>; // x = level index
@group(0) @binding(1) var<storage, read> scan_info: array<u32>; // [l] = length of level l
@group(0) @binding(2) var<storage, read_write> data: array<u32>;
@group(0) @binding(3) var<storage, read_write> sums: array<u32>;
