// Grid control: one invocation, after the transform pass. Turns the scene bounds into the strip
// grid of the broad phase: S horizontal strips of about the host's strip height, and the layout of
// the 24-bit entry keys, strip index in the high bits and the quantised AABB min.x below it.
// 24 bits sort in 6 radix passes; at most 4096 strips leaves at least 12 bits (4096 buckets
// across the scene) for x, finer than a polygon at a million polygons.

#import constants
#import params
#import sortable

const MAX_STRIPS: f32 = 4096.0;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bounds: array<u32, 4>;
@group(0) @binding(2) var<storage, read_write> control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    var y0 = 0.0;
    var x0 = 0.0;
    var height = 0.0;
    var width = 0.0;
    if params.n_bodies > 0u {
        x0 = unsortable(~bounds[0]);
        y0 = unsortable(~bounds[1]);
        width = unsortable(bounds[2]) - x0;
        height = unsortable(bounds[3]) - y0;
    }
    var strips = 1u;
    var per_y = 0.0;
    if height > 0.0 && params.strip_height > 0.0 {
        strips = u32(clamp(ceil(height / params.strip_height), 1.0, MAX_STRIPS));
        per_y = f32(strips) / height;
    }
    var strip_bits = 0u;
    if strips > 1u {
        strip_bits = 32u - countLeadingZeros(strips - 1u);
    }
    let x_bits = KEY_BITS - strip_bits;
    let kept = x_bits; // at most 24: f32 counts exactly up to 2^24
    var per_x = 0.0;
    if width > 0.0 {
        per_x = f32((1u << kept) - 1u) / width;
    }
    control[GRID + 0u] = bitcast<u32>(y0);
    control[GRID + 1u] = bitcast<u32>(per_y);
    control[GRID + 2u] = strips;
    control[GRID + 3u] = x_bits;
    control[GRID + 4u] = bitcast<u32>(x0);
    control[GRID + 5u] = bitcast<u32>(per_x);
    control[GRID + 6u] = kept;
}
