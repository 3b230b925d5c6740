//! The persistent pipeline in a simulation loop: shapes uploaded once, 16 bytes per body per
//! frame, pipelines and buffers reused, results read back (or left on the GPU for your own passes).
//!
//! cargo run --release --example simulation

use satgpu::gpu::{Gpu, GpuOptions, World, WorldOptions};
use satgpu::{Polygon, Transform};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Two shapes in local coordinates, centred on their own origin.
    let shapes = vec![
        Polygon::new(vec![[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])?,
        Polygon::new(vec![[-0.6, -0.4], [0.6, -0.4], [0.0, 0.6]])?,
    ];
    // 10,000 bodies on a 100 x 100 lattice, alternating shapes.
    let side = 100;
    let body_shapes: Vec<u32> = (0..side * side).map(|i| (i % 2) as u32).collect();
    let gpu = Gpu::new(&GpuOptions::default())?;
    let mut world = World::new(&gpu, &shapes, &body_shapes, &WorldOptions::default())?;
    for frame in 0..5 {
        // Bodies drift towards each other and spin a little more every frame.
        let t = frame as f64 * 0.05;
        let transforms: Vec<Transform> = (0..side * side)
            .map(|i| Transform {
                x: (i % side) as f64 * (1.2 - t),
                y: (i / side) as f64 * (1.2 - t),
                angle: t * (i % 7) as f64,
            })
            .collect();
        world.set_transforms(&transforms)?;
        let result = world.step()?;
        println!(
            "frame {frame}: {} candidates, {} colliding, {:.2} ms",
            result.stats.candidates, result.stats.colliding, result.stats.frame_ms
        );
    }
    // For your own GPU passes: world.encode(&mut encoder) or world.dispatch(), then bind
    // world.contacts_buffer() (GpuContact records) and world.totals_buffer() ([candidates, colliding]).
    Ok(())
}
