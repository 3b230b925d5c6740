// Shapes read in a body's own frame, by the kernels that read the packed shapes through `shapes_at(i)` (a `#paged` array)
// ((vertex.xy, unit normal.xy) per vertex) and import `body`.

// Vertex k of body b's core, local.
fn local_vertex(b: Body, k: u32) -> vec2<f32> {
    return shapes_at(b.shape_start + k).xy;
}

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
