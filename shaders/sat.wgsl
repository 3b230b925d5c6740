// Narrow phase: one invocation per candidate pair (a, b). Separating axis test over the edge
// normals of both polygons, in a frame centred on a's anchor: a's vertices are stored relative to
// it already, b's are its own relative vertices plus the difference of the two anchors. Precision
// is therefore set by the size of the pair, not by its distance from the origin.
//
// The verdict uses unnormalised edge normals computed from the vertices: with small integer
// coordinates every product and sum is exact in f32, so touching polygons are found exactly. The
// depth along an axis is the overlap divided by the normal's length; the minimum translation
// vector is the axis with the least such depth, oriented from a to b (moving b by depth * normal
// separates the pair). Ties go to the first axis (a's edges, then b's), so results are deterministic.

// keep in sync with GpuBody in src/gpu/layout.rs
struct Body {
    shape_start: u32,
    count: u32,
    world_start: u32,
    pad: u32,
}

@group(0) @binding(0) var<storage, read> control: array<u32>;         // [PAIRS] = candidates to test
@group(0) @binding(1) var<storage, read> candidates: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> bodies: array<Body>;
@group(0) @binding(3) var<storage, read> world: array<vec4<f32>>;     // (vertex - anchor, unit normal)
@group(0) @binding(4) var<storage, read> transforms: array<vec4<f32>>; // anchor = (x, y), cos, sin
@group(0) @binding(5) var<storage, read_write> results: array<vec4<f32>>; // (normal.xy, depth, hit)
@group(0) @binding(6) var<storage, read_write> flags: array<u32>;     // 1 if the pair collides

const WG: u32 = 64u;
// keep in sync with src/gpu/control.rs
const PAIRS: u32 = 24u;

struct Interval {
    lo: f32,
    hi: f32,
}

// Projection of `body`, shifted by `offset`, onto `axis`.
fn project(body: Body, offset: vec2<f32>, axis: vec2<f32>) -> Interval {
    var r = Interval(3.0e38, -3.0e38);
    for (var k = 0u; k < body.count; k++) {
        let d = dot(world[body.world_start + k].xy + offset, axis);
        r.lo = min(r.lo, d);
        r.hi = max(r.hi, d);
    }
    return r;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if i >= control[PAIRS] {
        return;
    }
    let pair = candidates[i];
    let ba = bodies[pair.x];
    let bb = bodies[pair.y];
    let shift = transforms[pair.y].xy - transforms[pair.x].xy; // b's anchor in a's frame
    var best = 3.0e38;
    var best_normal = vec2<f32>(0.0, 0.0);
    var hit = true;
    for (var side = 0u; side < 2u && hit; side++) {
        var owner = ba;
        if side == 1u {
            owner = bb;
        }
        for (var e = 0u; e < owner.count; e++) {
            // The edge from relative vertices: the anchor cancels, so integer edges stay exact.
            let p = world[owner.world_start + e].xy;
            let q = world[owner.world_start + (e + 1u) % owner.count].xy;
            let axis = vec2<f32>(q.y - p.y, p.x - q.x);
            let ia = project(ba, vec2<f32>(0.0), axis);
            let ib = project(bb, shift, axis);
            if ib.lo > ia.hi || ia.lo > ib.hi {
                hit = false;
                break;
            }
            let inv_len = 1.0 / length(axis);
            let unit = world[owner.world_start + e].zw;
            let push = (ia.hi - ib.lo) * inv_len; // move b along +unit
            let pull = (ib.hi - ia.lo) * inv_len; // move b along -unit
            if push < best {
                best = push;
                best_normal = unit;
            }
            if pull < best {
                best = pull;
                best_normal = -unit;
            }
        }
    }
    if hit {
        results[i] = vec4<f32>(best_normal, max(best, 0.0), 1.0);
        flags[i] = 1u;
    } else {
        results[i] = vec4<f32>(0.0);
        flags[i] = 0u;
    }
}
