//! The one-shot call: polygons in, sorted colliding pairs out.
//!
//! cargo run --release --example one_shot

use satgpu::gpu::{detect, Gpu, GpuOptions};
use satgpu::Polygon;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Either winding is accepted; polygons are validated here, once.
    let polygons = vec![
        Polygon::new(vec![[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])?,
        Polygon::new(vec![[1.5, 0.5], [3.0, 1.0], [1.5, 1.5]])?,
        Polygon::new(vec![[2.0, 2.0], [3.0, 2.0], [3.0, 3.0], [2.0, 3.0]])?, // touches the first at a corner
        Polygon::new(vec![[10.0, 10.0], [11.0, 10.0], [10.5, 11.0]])?,
    ];
    let gpu = Gpu::new(&GpuOptions::default())?;
    println!("adapter: {}", gpu.describe());
    for c in detect(&gpu, &polygons)? {
        println!("{} - {}: normal ({:+.3}, {:+.3}) depth {:.3}", c.a, c.b, c.normal[0], c.normal[1], c.depth);
    }
    Ok(())
}
