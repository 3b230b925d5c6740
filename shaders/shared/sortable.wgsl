// A float as a u32 whose unsigned order is the float order (-0.0 is folded onto +0.0), so
// atomicMax can fold bounds; and back.
fn sortable(f: f32) -> u32 {
    let b = bitcast<u32>(select(f, 0.0, f == 0.0));
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn unsortable(u: u32) -> f32 {
    return bitcast<f32>(select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u));
}
