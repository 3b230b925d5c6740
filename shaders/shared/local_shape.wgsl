// Shapes read in a body's own frame, by the kernels that read the packed shapes through `shapes_at(i)` (a `#paged` array)
// ((vertex.xy, unit normal.xy) per vertex) and import `body`.

#import segment

// Vertex k of body b's core, local.
fn local_vertex(b: Instance, k: u32) -> vec2<f32> {
    return shapes_at(b.shape_start + k).xy;
}

