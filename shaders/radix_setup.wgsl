// Radix sort setup: one invocation. Reads the length to sort, and writes the number of
// TILE-key tiles (RADIX_WG * CHUNK of the histogram and scatter kernels), their indirect dispatch arguments, and the length of the histogram scan.

#import constants
#import index

override TILE: u32 = 1024u; // keys per workgroup (src/gpu/kernels/pipelines.rs picks it per adapter)

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let tiles = (control[RADIX] + TILE - 1u) / TILE;
    let args = folded(tiles, control[RADIX + FOLD]);
    control[RADIX + 1u] = tiles;
    control[RADIX + 4u] = args.x;
    control[RADIX + 5u] = args.y;
    control[RADIX + 6u] = args.z;
    control[HIST_SCAN] = RADIX_BINS * tiles;
}
