// Per-world constants; twin of GpuParams in src/gpu/kernels/layout.rs (the size check there and naga's
// layout in tests/shaders.rs keep them equal).
struct Params {
    n_bodies: u32,
    entry_capacity: u32,
    candidate_capacity: u32,
    fold_width: u32,
    strip_height: f32,
    candidate_base: u32, // first candidate of this batch (0 unless a frame runs in batches)
    margin: f32, // pairs at most this far apart are reported (WorldOptions::margin)
    two: u32, // 2, the bound of loops_cut (loops.wgsl)
    window: u32, // which window of each sweep walk this dispatch runs (sweep.wgsl)
    window_steps: u32, // steps of a walk per window (0xffffffff: one window)
    continuous: u32, // 1: boxes swept from the start poses (WorldOptions::continuous)
    worlds: u32, // how many worlds the bodies are in (World::set_worlds; 0 or 1: one)
    wrap: u32, // the periodic box's wrapping axes (bit 0: x, bit 1: y; 0: none; image.wgsl)
    box_x0: f32, // the periodic box, each edge rounded to f32
    box_y0: f32,
    box_x1: f32,
    box_y1: f32,
    period_x: f32, // its size rounded to f32, and the rest of the f64 size in the next two
    period_y: f32,
    period_x_lo: f32,
    period_y_lo: f32,
    zero: u32, // 0, which `keep` (exact.wgsl) XORs with, from a uniform so that no compiler sees through it
    pad1: u32,
    pad2: u32,
}
