// Segments, shared by the shapes' kernels and the collision-free speed model's walls.

// The point of the segment [u, w] nearest p.
fn closest_on(p: vec2<f32>, u: vec2<f32>, w: vec2<f32>) -> vec2<f32> {
    let e = w - u;
    let ee = dot(e, e);
    var t = 0.0;
    if ee > 0.0 {
        t = clamp(dot(p - u, e) / ee, 0.0, 1.0);
    }
    return u + e * t;
}
