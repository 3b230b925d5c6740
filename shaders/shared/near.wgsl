// Nearest points between the features of two cores (points and segments), in the pair's frame,
// with the verdicts on squared quantities so that they stay exact on small integers.

// The closest pair of points between a point and a segment, and the segment and another, as
// the narrow phase compares them: `d2` the squared distance (for choosing), `within` whether the
// distance is at most the reach, decided on squared quantities (exact on small integers).
struct Near {
    d2: f32,
    on_a: vec2<f32>,
    on_b: vec2<f32>,
    within: bool,
    // Where the nearest point lies inside an edge: that edge's unit normal, from a to b. The
    // normal then comes from the edge, not from the difference of two nearby points, whose
    // direction rounding spoils when they are close. Zero where both nearest points are vertices.
    dir: vec2<f32>,
}

// The Near with a and b swapped (the normal flips).
fn swapped(x: Near) -> Near {
    return Near(x.d2, x.on_b, x.on_a, x.within, -x.dir);
}

// Point p against the segment [u, v] (u == v for a point).
fn point_segment(p: vec2<f32>, u: vec2<f32>, v: vec2<f32>, reach: f32) -> Near {
    let e = v - u;
    let w = p - u;
    let ee = dot(e, e);
    let t = dot(w, e);
    var c: vec2<f32>;
    var within: bool;
    var dir = vec2<f32>(0.0);
    if ee == 0.0 || t <= 0.0 {
        c = u;
        within = dot(w, w) <= reach * reach;
    } else if t >= ee {
        c = v;
        within = dot(p - v, p - v) <= reach * reach;
    } else {
        c = u + e * (t / ee);
        let x = e.x * w.y - e.y * w.x;
        within = x * x <= reach * reach * ee;
        // The edge's normal on p's side. Where p lies on the edge (x = 0: an end of a segment on
        // another's middle, a T) the cores touch and p has no side: none, so that the caller
        // takes the best face's normal rather than one across the edge.
        if x != 0.0 {
            dir = select(vec2<f32>(e.y, -e.x), vec2<f32>(-e.y, e.x), x > 0.0) / sqrt(ee);
        }
    }
    let d = p - c;
    return Near(dot(d, d), c, p, within, dir);
}

// Below this distance (in the pair's scaled frame, where the pair's size is 1 to 2) two nearest
// vertices do not give their direction to within the band.
const NEAR_VERTICES: f32 = 1.0e-6;

// Keeps the nearer of two candidates; `within` is true if either is. Candidates whose distances
// differ by rounding only (NEAR_VERTICES) prefer one inside an edge, whose edge normal is exact:
// there the nearest point lies at an edge's end, where the edge's normal and the direction
// between the vertices agree up to rounding, but that direction's rounding error tilts the
// normal against the other shape's face. Otherwise the first wins ties.
fn nearer(x: Near, y: Near) -> Near {
    var out = x;
    let tie = abs(y.d2 - x.d2) <= 2.0 * NEAR_VERTICES * sqrt(max(x.d2, y.d2));
    let y_on_edge = any(y.dir != vec2<f32>(0.0)) && all(x.dir == vec2<f32>(0.0));
    if (tie && y_on_edge) || (!tie && y.d2 < x.d2) {
        out = y;
    }
    out.within = x.within || y.within;
    return out;
}

// Two segments that do not cross (or are collinear): the nearest of the four endpoint-to-segment
// distances. `on_a` lies on [a0, a1] and `on_b` on [b0, b1].
fn segment_segment(a0: vec2<f32>, a1: vec2<f32>, b0: vec2<f32>, b1: vec2<f32>, reach: f32) -> Near {
    var best = point_segment(b0, a0, a1, reach);
    best = nearer(best, point_segment(b1, a0, a1, reach));
    // Here the point lies on a: swap the roles back.
    best = nearer(best, swapped(point_segment(a0, b0, b1, reach)));
    return nearer(best, swapped(point_segment(a1, b0, b1, reach)));
}
