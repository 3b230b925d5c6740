//! The one-shot call: shapes in, sorted colliding pairs out; then the same scene with collision
//! filters, as Box2D's `b2Filter`; then with containment flags and contact points; then bodies
//! of several shapes.
//!
//! cargo run --release --example one_shot

use satgpu::gpu::{self, Gpu, GpuOptions};
use satgpu::{Body, ContactDetail, DetectOptions, Filter, Polygon};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Every shape is a convex core plus a radius; each is validated here, once. Either winding
    // is accepted for polygons.
    let shapes = vec![
        Polygon::new(vec![[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])?, // 0: a square
        Polygon::new(vec![[1.5, 0.5], [3.0, 1.0], [1.5, 1.5]])?,             // 1: a triangle into it
        Polygon::new(vec![[2.0, 2.0], [3.0, 2.0], [3.0, 3.0], [2.0, 3.0]])?, // 2: touches 0 at a corner
        Polygon::circle([3.5, 1.0], 0.75)?,                                  // 3: an agent
        Polygon::capsule([-1.0, 1.0], [0.5, 1.0], 0.25)?,                    // 4: a capsule into 0
        Polygon::rounded(vec![[10.0, 10.0], [11.0, 10.0], [10.5, 11.0]], 0.1)?, // 5: alone
    ];
    let gpu = Gpu::new(&GpuOptions::default())?;
    println!("adapter: {}", gpu.describe());
    let print = |c: &satgpu::Contact| {
        println!("  {} - {}: normal ({:+.3}, {:+.3}) depth {:.3}", c.a, c.b, c.normal[0], c.normal[1], c.depth)
    };
    println!("every pair:");
    let frame = gpu::detect(&gpu, &shapes, &DetectOptions::default())?;
    frame.contacts.iter().for_each(print);

    // Agents (category 2) ignore one another but still hit walls (category 1); the square and
    // the capsule share group -1, so they never collide with each other.
    let wall = Filter { category: 1, ..Filter::DEFAULT };
    let agent = Filter { category: 2, mask: 1, group: 0 };
    let filters = vec![Filter { group: -1, ..wall }, agent, wall, agent, Filter { group: -1, ..wall }, wall];
    println!("with filters:");
    let options = DetectOptions::default().with_filters(filters);
    gpu::detect(&gpu, &shapes, &options)?.contacts.iter().for_each(print);

    // The full detail: per pair, whether one shape lies inside the other, and one or two contact
    // points (midway between the surfaces) with their own depths.
    println!("with filters, contact points and containment:");
    let frame = gpu::detect(&gpu, &shapes, &options.with_contact_detail(ContactDetail::Full))?;
    for (c, m) in frame.contacts.iter().zip(&frame.manifolds) {
        print(c);
        println!("    a_in_b {} b_in_a {}", m.a_in_b, m.b_in_a);
        for p in m.points() {
            println!("    point ({:+.3}, {:+.3}) depth {:.3}", p.point[0], p.point[1], p.depth);
        }
    }

    // Bodies of several shapes: a concave L split at the door, and a square on its corner. The
    // pair is between bodies, with the contact of its deepest shape pair.
    let ell = Body::concave(&[[0.0, 0.0], [4.0, 0.0], [4.0, 1.0], [1.0, 1.0], [1.0, 4.0], [0.0, 4.0]])?;
    let square = Body::from(Polygon::new(vec![[0.5, 0.75], [1.75, 0.75], [1.75, 1.5], [0.5, 1.5]])?);
    println!("an L of {} shapes and a square:", ell.shapes().len());
    let frame = gpu::detect(&gpu, &[ell, square], &DetectOptions::default())?;
    for (c, [ka, kb]) in frame.contacts.iter().zip(&frame.shapes) {
        print(c);
        println!("    shape {ka} of {} and shape {kb} of {}", c.a, c.b);
    }
    Ok(())
}
