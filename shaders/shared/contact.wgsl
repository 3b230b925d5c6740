// A colliding pair as the compaction writes it; twin of GpuContact in src/gpu/layout.rs.
struct Contact {
    a: u32,
    b: u32,
    normal_x: f32,
    normal_y: f32,
    depth: f32,
    pad: u32,
}
