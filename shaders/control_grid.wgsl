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
//
// The map (strips.wgsl): along an axis where more than SKEWED of the samples fall in one of
// CELLS equal parts of the box, the centres crowd into a small part of it (a scene spread over
// many orders of magnitude): uniform strips and buckets would put most bodies in one strip and one
// bucket, where the sweep compares each with all the rest. That axis is mapped: laid out over a
// value's place among the samples sorted, the knots, the first and last replaced by the scene's
// bounds. A mapped y has STRIP_FACTOR times the median sample's height in places per strip (the
// host's strip height, a mean, means little where sizes differ by orders of magnitude).

#import constants
#import params
#import sortable
#import scan_plan
#import grid

const SAMPLES: u32 = 256u;      // AABBs sampled at a fixed stride, one per invocation: the knots
const LOW_RANK: u32 = 4u;       // the 1.5th percentile of SAMPLES
const HIGH_RANK: u32 = 251u;    // the 98.5th
const CELLS: u32 = 16u;         // parts of the box along an axis, for the test of crowding
const SKEWED: u32 = 96u;        // samples in one part that make an axis mapped

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bounds: array<u32, 4>;
@group(0) @binding(2) var<storage, read_write> control: array<u32>;
#paged instances 3 read aabbs vec4<f32>

var<workgroup> sampled: array<vec4<f32>, SAMPLES>;
var<workgroup> picked: array<f32, 5>; // x low, x high, y low, y high percentile; median height
var<workgroup> cells: array<atomic<u32>, 32>; // samples per part of the box: x's, then y's
var<workgroup> heights: array<f32, SAMPLES>;  // each sample's height in places of the y map

@compute @workgroup_size(SAMPLES)
fn main(@builtin(local_invocation_index) lid: u32) {
    let n = params.n_bodies;
    var own = vec2<f32>(0.0);
    var b = vec4<f32>(0.0);
    if n > 0u {
        // Body lid * n / SAMPLES, without overflow.
        let body = (n / SAMPLES) * lid + (n % SAMPLES) * lid / SAMPLES;
        b = aabbs_at(body);
        sampled[lid] = b;
        own = b.xy * 0.5 + b.zw * 0.5;
    }
    workgroupBarrier();
    if n > 0u {
        // The rank of this sample along each axis; equal values share the ranks they span, so
        // exactly one value is picked for each percentile (written by every sample holding it).
        var less = vec2<u32>(0u);
        var at_most = vec2<u32>(0u);
        var before = vec2<u32>(0u); // equal samples of lower invocations
        for (var m = 0u; m < SAMPLES; m++) {
            let s = sampled[m];
            let c = s.xy * 0.5 + s.zw * 0.5;
            less += vec2<u32>(c < own);
            at_most += vec2<u32>(c <= own);
            if m < lid {
                before += vec2<u32>(c == own);
            }
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
        // The knots: the samples sorted, equal ones in invocation order.
        let k = less + before;
        control[GRID_MAP + 4u + k.x] = bitcast<u32>(own.x);
        control[GRID_MAP + 4u + MAP_KNOTS + k.y] = bitcast<u32>(own.y);
    }
    storageBarrier();
    workgroupBarrier();
    // The robust box (every invocation alike).
    var lo = vec2<f32>(0.0);
    var size = vec2<f32>(0.0);
    if n > 0u {
        let half = 0.5 * vec2<f32>(picked[1] - picked[0], picked[3] - picked[2]);
        let low = vec2<f32>(unsortable(~bounds[0]), unsortable(~bounds[1]));
        let high = vec2<f32>(unsortable(bounds[2]), unsortable(bounds[3]));
        lo = max(low, vec2<f32>(picked[0], picked[2]) - half);
        size = max(min(high, vec2<f32>(picked[1], picked[3]) + half) - lo, vec2<f32>(0.0));
        // Where the samples fall in the box, and the knots' ends at the scene's bounds.
        for (var axis = 0u; axis < 2u; axis++) {
            if size[axis] > 0.0 {
                let cell = clamp(floor((own[axis] - lo[axis]) * (f32(CELLS) / size[axis])), 0.0, f32(CELLS - 1u));
                atomicAdd(&cells[axis * CELLS + u32(cell)], 1u);
            }
        }
        if lid == 0u {
            control[GRID_MAP + 4u] = bitcast<u32>(low.x);
            control[GRID_MAP + 4u + MAP_KNOTS - 1u] = bitcast<u32>(high.x);
            control[GRID_MAP + 4u + MAP_KNOTS] = bitcast<u32>(low.y);
            control[GRID_MAP + 4u + 2u * MAP_KNOTS - 1u] = bitcast<u32>(high.y);
        }
    }
    storageBarrier();
    workgroupBarrier();
    if n > 0u {
        // Each sample's height in places of the y map, and their median.
        heights[lid] = grid_place(1u, b.w) - grid_place(1u, b.y);
    }
    workgroupBarrier();
    if n > 0u {
        let h = heights[lid];
        var less = 0u;
        var at_most = 0u;
        for (var m = 0u; m < SAMPLES; m++) {
            less += u32(heights[m] < h);
            at_most += u32(heights[m] <= h);
        }
        if less <= SAMPLES / 2u && SAMPLES / 2u < at_most {
            picked[4] = h;
        }
    }
    workgroupBarrier();
    if lid != 0u {
        return;
    }
    // The entry scan's length is the body count, known from the start: its levels are planned
    // here, which saves the scan its setup dispatch.
    plan_scan(ENTRY_SCAN);
    var mapped = 0u;
    for (var axis = 0u; axis < 2u; axis++) {
        for (var c = 0u; c < CELLS; c++) {
            if atomicLoad(&cells[axis * CELLS + c]) > SKEWED {
                mapped |= 1u << axis;
            }
        }
    }
    // Each world's bodies get strips of their own, MAX_STRIPS in all (the host refuses more
    // worlds than that).
    let worlds = max(params.worlds, 1u);
    let most = MAX_STRIPS / worlds;
    var strips = 1u;
    var y0 = lo.y;
    var per_y = 0.0;
    let places = f32(MAP_KNOTS - 1u);
    if (mapped & 2u) != 0u {
        y0 = 0.0;
        strips = most;
        let per_strip = f32(STRIP_FACTOR) * picked[4];
        if per_strip > 0.0 {
            strips = u32(clamp(ceil(places / per_strip), 1.0, f32(most)));
        }
        per_y = f32(strips) / places;
    } else if size.y > 0.0 && params.strip_height > 0.0 {
        strips = u32(clamp(ceil(size.y / params.strip_height), 1.0, f32(most)));
        per_y = f32(strips) / size.y;
    }
    var strip_bits = 0u;
    if strips * worlds > 1u {
        strip_bits = 32u - countLeadingZeros(strips * worlds - 1u);
    }
    let x_bits = KEY_BITS - strip_bits;
    let kept = x_bits; // at most 24: f32 counts exactly up to 2^24
    var x0 = lo.x;
    var width = size.x;
    if (mapped & 1u) != 0u {
        x0 = 0.0;
        width = places;
    }
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
    control[GRID_MAP] = mapped;
}
