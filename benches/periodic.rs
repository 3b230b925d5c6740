//! What a periodic box costs a frame (issue 65): the same `crowd` scene detected in a world
//! without a box and in a world in the box its centres span (`satgpu gen --periodic`'s), the two
//! frames alternated in one run, their whole-frame medians (wall clock: the frame's GPU passes and
//! its readback) side by side. The goal is a periodic frame at most 1.2 times the plain one.
//!
//! `cargo bench --bench periodic` runs 100,000 and 1,000,000 polygons (`SATGPU_BENCH_N=a,b` for
//! others, `SATGPU_BENCH_FRAMES` frames each, default 7). Run without `--bench` (as `cargo test
//! --benches` does) it runs 2,000 polygons for 2 frames. Either way it checks that the box keeps
//! every pair of the plain scene (each is the pair of an image) and adds some across its edges.

use std::time::Instant;

use satgpu::gpu::{Gpu, GpuOptions, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::{Periodic, Polygon};

/// The box the polygons' centres span.
fn centres_box(polygons: &[Polygon]) -> Periodic {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in polygons {
        let b = p.aabb();
        let c = [(b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0];
        lo = [lo[0].min(c[0]), lo[1].min(c[1])];
        hi = [hi[0].max(c[0]), hi[1].max(c[1])];
    }
    Periodic::new([lo[0], lo[1], hi[0], hi[1]], [true, true]).expect("a box")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let sizes: Vec<usize> = match std::env::var("SATGPU_BENCH_N") {
        Ok(list) => list.split(',').map(|n| n.trim().parse().expect("SATGPU_BENCH_N: numbers")).collect(),
        Err(_) if bench => vec![100_000, 1_000_000],
        Err(_) => vec![2_000],
    };
    let frames: usize = match std::env::var("SATGPU_BENCH_FRAMES") {
        Ok(f) => f.parse().expect("SATGPU_BENCH_FRAMES: a number"),
        Err(_) if bench => 7,
        Err(_) => 2,
    };
    let gpu = Gpu::new(&GpuOptions::default()).expect("an adapter");
    println!("adapter {}", gpu.describe());
    println!(
        "{:>10} {:>12} {:>12} {:>7} {:>9} {:>9}",
        "polygons", "plain ms", "periodic ms", "ratio", "pairs", "in box"
    );
    for n in sizes {
        let polygons = generate(SceneKind::Crowd, n, 1);
        let periodic = centres_box(&polygons);
        let mut plain = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).expect("plain world");
        let options = WorldOptions::default().with_periodic(periodic);
        let mut boxed = World::from_polygons(&gpu, &polygons, &options).expect("periodic world");
        // The first frames size the buffers and compile the kernels.
        let (first_plain, first_boxed) = (plain.step().expect("frame").contacts, boxed.step().expect("frame").contacts);
        let (mut a, mut b) = (vec![], vec![]);
        for _ in 0..frames {
            let t = Instant::now();
            plain.step().expect("frame");
            a.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            boxed.step().expect("frame");
            b.push(t.elapsed().as_secs_f64() * 1e3);
        }
        // The box keeps every pair of the plain scene (the pair of an image) and adds some across
        // its edges.
        let boxed_pairs: std::collections::BTreeSet<(u32, u32)> = first_boxed.iter().map(|c| (c.a, c.b)).collect();
        assert!(first_plain.iter().all(|c| boxed_pairs.contains(&(c.a, c.b))), "a plain pair lost in the box");
        assert!(first_boxed.len() > first_plain.len(), "no pair across an edge");
        let (ma, mb) = (median(a), median(b));
        println!("{n:>10} {ma:>12.2} {mb:>12.2} {:>7.2} {:>9} {:>9}", mb / ma, first_plain.len(), first_boxed.len());
    }
}
