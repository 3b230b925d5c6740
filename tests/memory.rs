//! Sizes that do not fit (issue 32): under an injected memory ceiling
//! (`Gpu::with_memory_limit`), every entry point that allocates a world refuses with
//! `Error::NotEnoughMemory` before allocating, and a world refused at growth or at new polygons
//! keeps working at its old size. The ceilings are small, so CI's memory is never at stake.

mod common;

use common::bits;
use satgpu::gpu::{self, World, WorldOptions};
use satgpu::memory::{self, MemoryEstimate, SceneSize, Work};
use satgpu::scene::{generate, SceneKind};
use satgpu::sim::{Scenario, SimKind, SimOptions, Simulation};
use satgpu::{reference, Error, Polygon, Transform};
use satgpu::{ContactDetail, DetectOptions};

/// The error's `what`, failing the test on any other outcome.
fn refused<T: std::fmt::Debug>(result: satgpu::Result<T>, context: &str) -> String {
    match result {
        Err(Error::NotEnoughMemory { what, needed, available, .. }) => {
            assert!(needed > available, "{context}: {needed} <= {available}");
            what
        }
        other => panic!("{context}: expected NotEnoughMemory, got {other:?}"),
    }
}

/// A ceiling just above what a world of `bodies` bodies and `vertices` vertices needs.
fn ceiling(bodies: usize, vertices: usize) -> u64 {
    let size = SceneSize { bodies: bodies as u64, vertices: vertices as u64, candidates: 0 };
    memory::estimate(size, Work::WORLD).total() + (256 << 10)
}

fn square() -> Polygon {
    Polygon::new(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]).unwrap()
}

/// `n` bodies on a grid 3 apart: no pair touches.
fn spread(n: usize) -> Vec<Transform> {
    (0..n).map(|i| Transform { x: 3.0 * (i % 100) as f64, y: 3.0 * (i / 100) as f64, angle: 0.0 }).collect()
}

#[test]
fn every_entry_point_refuses_a_world_that_does_not_fit() {
    let gpu = common::gpu();
    let tight = gpu.with_memory_limit(Some(1 << 20));
    let polygons = generate(SceneKind::Crowd, 20_000, 1);
    let options = WorldOptions::default();
    let what = refused(World::from_polygons(&tight, &polygons, &options), "from_polygons");
    assert_eq!(what, "20,000 bodies");
    refused(World::new(&tight, &[square()], &vec![0; 20_000], &options), "World::new");
    refused(gpu::detect(&tight, &polygons, &DetectOptions::default()).map(|_| ()), "detect");
    let full = DetectOptions::default().with_contact_detail(ContactDetail::Full);
    refused(gpu::detect(&tight, &polygons, &full).map(|_| ()), "detect, full contacts");
    let scenario = Scenario::crossing(SimKind::Agents, 20_000, 1).unwrap();
    refused(Simulation::new(&tight, &scenario, &SimOptions::default()).map(|_| ()), "Simulation::new");
    // The same calls without the ceiling work (the refusal was the ceiling's).
    let want = reference::detect(&polygons, &DetectOptions::default()).contacts;
    let got = gpu::detect(&gpu, &polygons, &DetectOptions::default()).unwrap().contacts;
    let report = satgpu::validate::compare(&polygons, &got, &want, &DetectOptions::default());
    assert!(report.ok(), "{}", report.disagreements[0]);
    // A ceiling of zero refuses even one body; the message names both sizes.
    let none = gpu.with_memory_limit(Some(0));
    let e = World::from_polygons(&none, &polygons[..1], &options).unwrap_err();
    assert!(e.to_string().starts_with("1 bodies need about "), "{e}");
    assert!(e.to_string().ends_with("; 0 bytes are available"), "{e}");
}

#[test]
fn a_world_refused_new_polygons_or_room_keeps_its_old_size() {
    let gpu = common::gpu();
    let small = generate(SceneKind::Crowd, 600, 2);
    let vertices = small.iter().map(|p| p.vertices().len()).sum();
    let limited = gpu.with_memory_limit(Some(ceiling(small.len(), vertices)));
    let mut world = World::from_polygons(&limited, &small, &WorldOptions::default()).unwrap();
    let before = bits(&world.step().unwrap().contacts);
    assert!(!before.is_empty());
    let (capacity, generation) = (world.candidate_capacity(), world.generation());

    // New polygons of another layout rebuild the world: refused, and the old polygons stay.
    let large = generate(SceneKind::Crowd, 30_000, 3);
    assert_eq!(refused(world.set_polygons(&large), "set_polygons"), "30,000 bodies");
    assert_eq!(world.len(), small.len());
    assert_eq!(bits(&world.step().unwrap().contacts), before, "after refused polygons");

    // Room asked for ahead: refused, nothing replaced.
    let what = refused(world.reserve(0, 10_000_000), "reserve");
    assert!(what.contains("candidate pairs"), "{what}");
    refused(world.reserve_candidates(10_000_000), "reserve_candidates");
    assert_eq!((world.candidate_capacity(), world.generation()), (capacity, generation));
    assert_eq!(bits(&world.step().unwrap().contacts), before, "after refused room");
}

#[test]
fn a_world_refused_growth_during_a_frame_works_at_its_old_size() {
    let gpu = common::gpu();
    let n = 3000;
    let limited = gpu.with_memory_limit(Some(ceiling(n, 4)));
    let mut world = World::new(&limited, &[square()], &vec![0; n], &WorldOptions::default()).unwrap();
    world.set_transforms(&spread(n)).unwrap();
    assert!(world.step().unwrap().contacts.is_empty());
    let capacity = world.candidate_capacity();

    // Every body on one spot: n (n - 1) / 2 candidates, far past the capacity and the ceiling.
    world.set_transforms(&vec![Transform { x: 0.0, y: 0.0, angle: 0.0 }; n]).unwrap();
    let what = refused(world.step(), "growth during a frame");
    assert!(what.contains("candidate pairs"), "{what}");
    assert_eq!(world.candidate_capacity(), capacity);

    // Back to a frame that fits: the same world answers, and agrees with the reference.
    let mut moved = spread(n);
    moved[1].x = moved[0].x + 0.5;
    moved[n - 1].x = moved[n - 2].x + 0.25;
    world.set_transforms(&moved).unwrap();
    let got = world.step().unwrap().contacts;
    let pairs: Vec<(u32, u32)> = got.iter().map(|c| (c.a, c.b)).collect();
    assert_eq!(pairs, [(0, 1), (n as u32 - 2, n as u32 - 1)]);

    // Without the ceiling the pile-up runs: the refusal was the ceiling's, not the device's.
    let mut free = World::new(&gpu, &[square()], &vec![0; 500], &WorldOptions::default()).unwrap();
    free.set_transforms(&vec![Transform { x: 0.0, y: 0.0, angle: 0.0 }; 500]).unwrap();
    assert_eq!(free.step().unwrap().contacts.len(), 500 * 499 / 2);
}

#[test]
fn the_estimate_counts_the_device_on_a_software_adapter_only() {
    let gpu = common::gpu();
    let estimate = MemoryEstimate { host: 1000, device: 1 << 30 };
    let limited = gpu.with_memory_limit(Some(1 << 20));
    let result = limited.check_memory(|| "a test".into(), estimate);
    if gpu.is_software() {
        assert_eq!(refused(result, "software"), "a test");
    } else {
        // On a GPU the device bytes are held against the ceiling as well.
        refused(result, "GPU");
    }
    assert!(limited.check_memory(|| "small".into(), MemoryEstimate { host: 1000, device: 1000 }).is_ok());
}
