// Transform pass: one invocation per body. Rotates the body's shape and writes its world AABB,
// rounded outward, then folds the AABB into the scene bounds. No world-space vertices are stored:
// the narrow phase rotates the few vertices of each pair itself, relative to the bodies' anchors
// (their translations), which keeps precision at the scale of the pair wherever it is. In one-shot
// mode the anchor is the polygon's first vertex and the rotation is the identity.

// keep in sync with GpuBody in src/gpu/layout.rs
struct Body {
    shape_start: u32, // first vertex of the shape in `shapes`
    count: u32,       // vertices in the shape
    radius: f32,      // largest distance of a vertex from the body's anchor (rounded up)
    pad: u32,
}

// keep in sync with GpuParams in src/gpu/layout.rs
struct Params {
    n_bodies: u32,
    entry_capacity: u32,
    candidate_capacity: u32,
    fold_width: u32,
    strip_height: f32,
    candidate_base: u32, // first candidate of this batch (0 unless a frame runs in batches)
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bodies: array<Body>;
@group(0) @binding(2) var<storage, read> transforms: array<vec4<f32>>; // (x, y, cos, sin)
@group(0) @binding(3) var<storage, read> shapes: array<vec4<f32>>;     // (vertex.xy, unit normal.xy), local
@group(0) @binding(4) var<storage, read_write> aabbs: array<vec4<f32>>; // (min.xy, max.xy)
@group(0) @binding(5) var<storage, read_write> bounds: array<atomic<u32>, 4>; // ~min.x, ~min.y, max.x, max.y (sortable)

const WG: u32 = 64u;
var<workgroup> wg_bounds: array<atomic<u32>, 4>;

// Maps a float to a u32 whose unsigned order is the float order (-0.0 is folded onto +0.0).
fn sortable(f: f32) -> u32 {
    let b = bitcast<u32>(select(f, 0.0, f == 0.0));
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if lid < 4u {
        atomicStore(&wg_bounds[lid], 0u);
    }
    workgroupBarrier();
    let i = gid.x + gid.y * nwg.x * WG;
    if i < params.n_bodies {
        let body = bodies[i];
        let t = transforms[i];
        var lo = vec2<f32>(3.0e38);
        var hi = vec2<f32>(-3.0e38);
        var radius = 0.0;
        for (var k = 0u; k < body.count; k++) {
            let s = shapes[body.shape_start + k];
            let p = vec2<f32>(t.z * s.x - t.w * s.y, t.w * s.x + t.z * s.y); // keep in sync with sat.wgsl
            lo = min(lo, p);
            hi = max(hi, p);
            radius = max(radius, max(abs(s.x), abs(s.y)));
        }
        // Round outward by far more than the rounding of the input to f32, of the rotation and of
        // the translation, so every pair whose exact (f64) boxes overlap is a candidate. Extra
        // candidates cost only time.
        let margin = (abs(t.x) + abs(t.y) + radius) * 2.0e-6;
        lo += t.xy - vec2<f32>(margin);
        hi += t.xy + vec2<f32>(margin);
        aabbs[i] = vec4<f32>(lo, hi);
        atomicMax(&wg_bounds[0], ~sortable(lo.x));
        atomicMax(&wg_bounds[1], ~sortable(lo.y));
        atomicMax(&wg_bounds[2], sortable(hi.x));
        atomicMax(&wg_bounds[3], sortable(hi.y));
    }
    workgroupBarrier();
    if lid < 4u {
        atomicMax(&bounds[lid], atomicLoad(&wg_bounds[lid]));
    }
}
