// The crowd's walkable area on the GPU: walls, sight lines, stages and the way to them round
// inner corners (crowd::Geometry's rules in f32). Reads `params` and `ground` of crowd.wgsl.
fn cross2(a: vec2<f32>, b: vec2<f32>) -> f32 {
    return a.x * b.y - a.y * b.x;
}

fn within(p: vec2<f32>, q: vec2<f32>, r: vec2<f32>) -> bool {
    return all(r >= min(p, q)) && all(r <= max(p, q));
}

fn opposite(x: f32, y: f32) -> bool {
    return (x > 0.0 && y < 0.0) || (x < 0.0 && y > 0.0);
}

// Whether segments p-q and a-b meet (touching counts).
fn segments_meet(p: vec2<f32>, q: vec2<f32>, a: vec2<f32>, b: vec2<f32>) -> bool {
    let d1 = cross2(q - p, a - p);
    let d2 = cross2(q - p, b - p);
    let d3 = cross2(b - a, p - a);
    let d4 = cross2(b - a, q - a);
    if opposite(d1, d2) && opposite(d3, d4) {
        return true;
    }
    return (d1 == 0.0 && within(p, q, a)) || (d2 == 0.0 && within(p, q, b))
        || (d3 == 0.0 && within(a, b, p)) || (d4 == 0.0 && within(a, b, q));
}

fn wall(k: u32) -> vec4<f32> {
    let at = params.seg_off + 4u * k;
    return bitcast<vec4<f32>>(vec4<u32>(ground[at], ground[at + 1u], ground[at + 2u], ground[at + 3u]));
}

// Whether no wall meets p-q: every wall (for the way out), or the cell's list (for neighbours,
// whose sight lines lie within the cutoff of p, as every wall on the list does).
fn sees_all(p: vec2<f32>, q: vec2<f32>) -> bool {
    for (var k = 0u; k < params.segments; k++) {
        let w = wall(k);
        if segments_meet(p, q, w.xy, w.zw) {
            return false;
        }
    }
    return true;
}

fn sees_listed(p: vec2<f32>, q: vec2<f32>, first: u32, end: u32) -> bool {
    for (var k = first; k < end; k++) {
        let w = wall(ground[k]);
        if segments_meet(p, q, w.xy, w.zw) {
            return false;
        }
    }
    return true;
}

fn unit(v: vec2<f32>) -> vec2<f32> {
    let len = length(v);
    if len > 0.0 {
        return v / len;
    }
    return vec2<f32>(0.0);
}

// Whether p-q crosses corner k's stand-off (from the corner to its point) anywhere but at the
// point itself (Geometry::passes_clear).
fn cuts(p: vec2<f32>, q: vec2<f32>, k: u32) -> bool {
    let at = params.way_off + 4u * (params.corners + k);
    let s = bitcast<vec4<f32>>(vec4<u32>(ground[at], ground[at + 1u], ground[at + 2u], ground[at + 3u]));
    return segments_meet(p, q, s.xy, s.zw) && !(cross2(q - p, s.zw - p) == 0.0 && cross2(q - p, s.xy - p) != 0.0);
}

// Whether p-q meets no wall and, when `clear`, cuts no corner's stand-off.
fn passes(p: vec2<f32>, q: vec2<f32>, clear: bool) -> bool {
    if !sees_all(p, q) {
        return false;
    }
    if clear {
        for (var k = 0u; k < params.corners; k++) {
            if cuts(p, q, k) {
                return false;
            }
        }
    }
    return true;
}

fn stage_word(s: u32, k: u32) -> u32 {
    return ground[params.stage_off + 8u * s + k];
}

fn stage_target(s: u32) -> vec2<f32> {
    return vec2<f32>(bitcast<f32>(stage_word(s, 1u)), bitcast<f32>(stage_word(s, 2u)));
}

fn is_exit(s: u32) -> bool {
    return stage_word(s, 0u) == 1u;
}

// Whether p has reached stage s: within a waypoint's distance, or in an exit (its boundary
// counts; the host gives its vertices counterclockwise).
fn reached(s: u32, p: vec2<f32>) -> bool {
    if !is_exit(s) {
        return distance(p, stage_target(s)) <= bitcast<f32>(stage_word(s, 3u));
    }
    let first = params.poly_off + 2u * stage_word(s, 4u);
    let len = stage_word(s, 5u);
    for (var k = 0u; k < len; k++) {
        let at = first + 2u * k;
        let next = first + 2u * ((k + 1u) % len);
        let a = bitcast<vec2<f32>>(vec2<u32>(ground[at], ground[at + 1u]));
        let b = bitcast<vec2<f32>>(vec2<u32>(ground[next], ground[next + 1u]));
        if cross2(b - a, p - a) < 0.0 {
            return false;
        }
    }
    return true;
}

// Stage s's target when the way there passes clear of the corners, else the corner so reached
// that starts the shortest way; where none is, the same by sight alone (Geometry::destination);
// p itself when no way leads there.
fn destination(p: vec2<f32>, s: u32) -> vec2<f32> {
    let goal = stage_target(s);
    for (var attempt = 0u; attempt < 2u; attempt++) {
        let clear = attempt == 0u;
        if passes(p, goal, clear) {
            return goal;
        }
        var best = p;
        var best_length = 3.4e38;
        for (var k = 0u; k < params.corners; k++) {
            let at = params.way_off + 4u * k;
            let w = bitcast<vec2<f32>>(vec2<u32>(ground[at], ground[at + 1u]));
            let to = bitcast<f32>(ground[params.to_off + s * params.corners + k]);
            if to < 0.0 {
                continue;
            }
            let length_via = distance(p, w) + to;
            if length_via < best_length && passes(p, w, clear) {
                best = w;
                best_length = length_via;
            }
        }
        if best_length < 3.4e38 {
            return best;
        }
    }
    return p;
}
