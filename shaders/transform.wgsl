// Transform pass: one invocation per body. Rotates the body's shape (past SMALL vertices, its local
// box) and writes its world AABB, rounded outward, then folds the AABB into the scene bounds. No world-space vertices are stored:
// the narrow phase rotates the few vertices of each pair itself, relative to the bodies' anchors
// (their translations), which keeps precision at the scale of the pair wherever it is. In one-shot
// mode the anchor is the polygon's first vertex and the rotation is the identity.
//
// Continuous collision (params.continuous): the box holds the body's whole path from its start
// pose to its pose now. Not turning, that is the box of both poses; turning, the box of the
// anchor's path grown by the reach of the core's vertices from the anchor (a point that turns
// about the anchor stays within its distance).

#import constants
#import params
#import instance
#import index
#import sortable
#import image

@group(0) @binding(0) var<uniform> params: Params;
#paged instances 1 read instances Instance
#paged instances 2 read transforms vec4<f32> // (x, y, cos, sin)
#paged shapes 3 read shapes vec4<f32>     // (vertex.xy, unit normal.xy), local
#paged instances 4 read_write aabbs vec4<f32> // (min.xy, max.xy)
@group(0) @binding(5) var<storage, read_write> bounds: array<atomic<u32>, 4>; // ~min.x, ~min.y, max.x, max.y (sortable)
#paged instances 6 read boxes vec4<f32>     // the core's local box (min.xy, max.xy)
#paged instances 7 read starts vec4<f32>    // continuous: the pose at the start of the frame

var<workgroup> wg_bounds: array<atomic<u32>, 4>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if lid < 4u {
        atomicStore(&wg_bounds[lid], 0u);
    }
    workgroupBarrier();
    let i = linear_index(gid, nwg);
    if i < params.n_bodies {
        let body = instances_at(i);
        let t = transforms_at(i);
        var lo = vec2<f32>(3.0e38);
        var hi = vec2<f32>(-3.0e38);
        var radius = 0.0;
        if body.count <= SMALL {
            for (var k = 0u; k < body.count; k++) {
                let s = shapes_at(body.shape_start + k);
                let p = rotate(t.zw, s.xy);
                lo = min(lo, p);
                hi = max(hi, p);
                radius = max(radius, max(abs(s.x), abs(s.y)));
            }
        } else {
            // Many vertices: the box of the rotated local box, which is the exact box when the
            // rotation is the identity (one-shot worlds) and at most sqrt(2) wider otherwise,
            // cut down to the disc of the body's radius. One body of 1,024 vertices would
            // otherwise hold up every lane of its SIMD group for 1,024 steps.
            let b = boxes_at(i);
            for (var c = 0u; c < 4u; c++) {
                let corner = select(b.xy, b.zw, vec2<bool>((c & 1u) != 0u, (c & 2u) != 0u));
                let p = rotate(t.zw, corner);
                lo = min(lo, p);
                hi = max(hi, p);
            }
            lo = max(lo, vec2<f32>(-body.radius));
            hi = min(hi, vec2<f32>(body.radius));
            radius = max(max(abs(b.x), abs(b.y)), max(abs(b.z), abs(b.w)));
        }
        var anchor_lo = t.xy;
        var anchor_hi = t.xy;
        var at = abs(t.xy);
        if params.continuous != 0u {
            // In a periodic box, the start moved by whole boxes to within half a box of now.
            var s = starts_at(i);
            s = vec4<f32>(s.xy + start_steps(s.xy, t.xy) * vec2<f32>(params.period_x, params.period_y), s.zw);
            anchor_lo = min(anchor_lo, s.xy);
            anchor_hi = max(anchor_hi, s.xy);
            at = max(at, abs(s.xy));
            if any(s.zw != t.zw) {
                // How far the core's vertices reach from the anchor (computed in f64 when
                // packed, rounded up: no square of an f32 to overflow or flush to zero).
                lo = vec2<f32>(-body.radius);
                hi = vec2<f32>(body.radius);
                radius = max(radius, body.radius);
            }
        }
        // Round outward by far more than the rounding of the input to f32, of the rotation and of
        // the translation, so every pair whose exact (f64) boxes overlap is a candidate. Extra
        // candidates cost only time.
        // A rounded shape reaches its radius beyond the core.
        // A margin (WorldOptions::margin) reaches that much further.
        let reach = body.round + params.margin;
        let margin = (at.x + at.y + radius + reach) * 2.0e-6 + reach;
        lo += anchor_lo - vec2<f32>(margin);
        hi += anchor_hi + vec2<f32>(margin);
        aabbs_set(i, vec4<f32>(lo, hi));
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
