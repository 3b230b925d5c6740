// A shape instance: one shape of one body as the GPU places it (a body of several shapes has
// one per shape; a frame's pairs are of instances until the host maps them to bodies). Where its
// shape lives; twin of GpuInstance in src/gpu/kernels/layout.rs.
struct Instance {
    shape_start: u32, // first vertex of the shape in the packed shapes
    count: u32,       // vertices in the shape
    radius: f32,      // largest distance of a vertex from the body's anchor (rounded up)
    round: f32,       // the shape's radius around its core (0 for a plain polygon)
}

// `v` rotated by the rotation (cos, sin) `r`: the one rotation every kernel uses.
fn rotate(r: vec2<f32>, v: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(r.x * v.x - r.y * v.y, r.y * v.x + r.x * v.y);
}
