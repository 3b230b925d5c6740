// Grid control: one workgroup, after the transform pass. Lays out the strip grid of the broad
// phase: S horizontal strips of about the host's strip height, and the layout of the 24-bit
// entry keys, strip index in the high bits and the quantised AABB min.x below it. 24 bits sort
// in 6 radix passes; at most 4096 strips leaves at least 12 bits (4096 buckets across the grid)
// for x, finer than a polygon at a million polygons.
//
// The grid covers a robust box, not the scene's bounds, so a few stray bodies far away cannot
// stretch every strip and bucket: the box spans the 1.5th to 98.5th percentiles of a fixed
// sample of AABB centres, widened by half that span on each side, and cut to the bounds. Bodies
// outside it are clamped into the edge strips and buckets by strip() and key() (shared/grid.wgsl);
// clamping keeps the keys in min.x order, so no pair is lost, and only the strays share a bucket.

#import constants
#import params
#import sortable
#import scan_plan

const SAMPLES: u32 = 256u;      // AABB centres sampled at a fixed stride, one per invocation
const LOW_RANK: u32 = 4u;       // the 1.5th percentile of SAMPLES
const HIGH_RANK: u32 = 251u;    // the 98.5th

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bounds: array<u32, 4>;
@group(0) @binding(2) var<storage, read_write> control: array<u32>;
#paged instances 3 read aabbs vec4<f32>

var<workgroup> centres: array<vec2<f32>, SAMPLES>;
var<workgroup> picked: array<f32, 4>; // x low, x high, y low, y high percentile

@compute @workgroup_size(SAMPLES)
fn main(@builtin(local_invocation_index) lid: u32) {
    let n = params.n_bodies;
    if n > 0u {
        // Body lid * n / SAMPLES, without overflow.
        let body = (n / SAMPLES) * lid + (n % SAMPLES) * lid / SAMPLES;
        let b = aabbs_at(body);
        centres[lid] = b.xy * 0.5 + b.zw * 0.5;
    }
    workgroupBarrier();
    if n > 0u {
        // The rank of this sample along each axis; equal values share the ranks they span, so
        // exactly one value is picked for each percentile (written by every sample holding it).
        let own = centres[lid];
        var less = vec2<u32>(0u);
        var at_most = vec2<u32>(0u);
        for (var m = 0u; m < SAMPLES; m++) {
            let c = centres[m];
            less += vec2<u32>(c < own);
            at_most += vec2<u32>(c <= own);
        }
        if less.x <= LOW_RANK && LOW_RANK < at_most.x {
            picked[0] = own.x;
        }
        if less.x <= HIGH_RANK && HIGH_RANK < at_most.x {
            picked[1] = own.x;
        }
        if less.y <= LOW_RANK && LOW_RANK < at_most.y {
            picked[2] = own.y;
        }
        if less.y <= HIGH_RANK && HIGH_RANK < at_most.y {
            picked[3] = own.y;
        }
    }
    workgroupBarrier();
    if lid != 0u {
        return;
    }
    // The entry scan's length is the body count, known from the start: its levels are planned
    // here, which saves the scan its setup dispatch.
    plan_scan(ENTRY_SCAN);
    var y0 = 0.0;
    var x0 = 0.0;
    var height = 0.0;
    var width = 0.0;
    if n > 0u {
        let half_x = 0.5 * (picked[1] - picked[0]);
        let half_y = 0.5 * (picked[3] - picked[2]);
        x0 = max(unsortable(~bounds[0]), picked[0] - half_x);
        y0 = max(unsortable(~bounds[1]), picked[2] - half_y);
        width = max(min(unsortable(bounds[2]), picked[1] + half_x) - x0, 0.0);
        height = max(min(unsortable(bounds[3]), picked[3] + half_y) - y0, 0.0);
    }
    // Each world's bodies get strips of their own, MAX_STRIPS in all (the host refuses more
    // worlds than that).
    let worlds = max(params.worlds, 1u);
    var strips = 1u;
    var per_y = 0.0;
    if height > 0.0 && params.strip_height > 0.0 {
        strips = u32(clamp(ceil(height / params.strip_height), 1.0, f32(MAX_STRIPS / worlds)));
        per_y = f32(strips) / height;
    }
    var strip_bits = 0u;
    if strips * worlds > 1u {
        strip_bits = 32u - countLeadingZeros(strips * worlds - 1u);
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
    control[GRID + 7u] = worlds;
}
