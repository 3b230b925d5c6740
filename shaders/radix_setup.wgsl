// Radix sort setup: one invocation. Reads the length to sort, and writes the number of
// 1024-element tiles, their indirect dispatch arguments, and the length of the histogram scan.

// keep in sync with src/gpu/control.rs
const RADIX: u32 = 128u;      // [0] length, [1] tiles, [4..7) tile dispatch, [15] fold width
const HIST_SCAN: u32 = 192u;  // histogram scan region: [0] = length
override TILE: u32 = 1024u; // keys per workgroup (src/gpu/kernels.rs picks it per adapter)
const BINS: u32 = 16u;

@group(0) @binding(0) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let tiles = (control[RADIX] + TILE - 1u) / TILE;
    let fold = control[RADIX + 15u];
    control[RADIX + 1u] = tiles;
    control[RADIX + 4u] = min(tiles, fold);
    control[RADIX + 5u] = (tiles + fold - 1u) / fold;
    control[RADIX + 6u] = 1u;
    control[HIST_SCAN] = BINS * tiles;
}
