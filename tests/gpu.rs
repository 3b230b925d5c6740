//! The GPU pipeline against the CPU reference, under the numerics contract in the README.

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use satgpu::gpu::{self, BroadPhase, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::validate::compare;
use satgpu::{reference, Contact, Error, Polygon, Transform};

fn gpu_contacts(gpu: &gpu::Gpu, polygons: &[Polygon], options: &WorldOptions) -> (Vec<Contact>, u32) {
    let mut world = World::from_polygons(gpu, polygons, options).expect("world");
    let frame = world.step().expect("frame");
    (frame.contacts, frame.stats.reruns)
}

fn bits(contacts: &[Contact]) -> Vec<(u32, u32, u64, u64, u64)> {
    contacts.iter().map(|c| (c.a, c.b, c.normal[0].to_bits(), c.normal[1].to_bits(), c.depth.to_bits())).collect()
}

fn translated(polygons: &[Polygon], dx: f64, dy: f64) -> Vec<Polygon> {
    let t = Transform { x: dx, y: dy, angle: 0.0 };
    polygons.iter().map(|p| p.transformed(&t)).collect()
}

/// Checks one scene; returns (colliding pairs, pairs inside the band).
fn check_scene(gpu: &gpu::Gpu, polygons: &[Polygon], what: &str) -> (usize, usize) {
    let (contacts, _) = gpu_contacts(gpu, polygons, &WorldOptions::default());
    let expected = reference::detect(polygons);
    let report = compare(polygons, &contacts, &expected);
    assert!(
        report.ok(),
        "{what}: {} disagreements outside the band, first: {}",
        report.disagreements.len(),
        report.disagreements[0]
    );
    (expected.len(), report.in_band)
}

#[test]
fn gpu_matches_reference_on_thousands_of_random_scenes() {
    let gpu = common::gpu();
    let mut scenes = 0;
    let mut pairs = 0;
    let mut in_band = 0;
    for kind in SceneKind::ALL {
        for seed in 0..300u64 {
            let n = 1 + (seed as usize * 37) % 240;
            let polygons = generate(kind, n, seed);
            let (p, b) = check_scene(&gpu, &polygons, &format!("{kind} n={n} seed={seed}"));
            scenes += 1;
            pairs += p;
            in_band += b;
        }
    }
    eprintln!("{scenes} scenes, {pairs} colliding pairs, {in_band} inside the band");
    assert!(scenes >= 2000);
    // The scenes must actually collide, or agreement proves nothing.
    assert!(pairs > 20 * scenes, "only {pairs} colliding pairs in {scenes} scenes");
}

#[test]
fn gpu_matches_reference_far_from_the_origin() {
    let gpu = common::gpu();
    for (i, offset) in [(1.0e4, -3.0e4), (-2.5e5, 1.0e5), (3.0e6, 3.0e6)].into_iter().enumerate() {
        for kind in [SceneKind::Crowd, SceneKind::Mixed, SceneKind::Clustered] {
            let polygons = translated(&generate(kind, 400, 100 + i as u64), offset.0, offset.1);
            check_scene(&gpu, &polygons, &format!("{kind} at {offset:?}"));
        }
    }
}

#[test]
fn precision_does_not_collapse_far_from_the_origin() {
    let gpu = common::gpu();
    let square = |x: f64, y: f64| Polygon::new(vec![[x, y], [x + 1.0, y], [x + 1.0, y + 1.0], [x, y + 1.0]]).unwrap();
    // At 1e6 an f32 step is 0.0625, yet a gap or an overlap of 1e-3 between unit squares (the band
    // is 1.5e-5 there) must be seen, with the depth right to the band.
    for (x, y) in [(1.0e6, 0.0), (-3.0e6, 2.5e6), (0.1, 0.1)] {
        let apart = [square(x, y), square(x + 1.001, y + 0.5)];
        assert!(gpu::detect(&gpu, &apart).unwrap().is_empty(), "gap of 1e-3 at ({x}, {y})");
        let overlapping = [square(x, y), square(x + 0.999, y + 0.5)];
        let got = gpu::detect(&gpu, &overlapping).unwrap();
        assert_eq!(got.len(), 1, "overlap of 1e-3 at ({x}, {y})");
        let band = satgpu::validate::band(&overlapping[0], &overlapping[1]);
        assert!((got[0].depth - 1.0e-3).abs() <= band, "depth {} at ({x}, {y})", got[0].depth);
        assert!(band < 2.0e-5);
    }
}

#[test]
fn integer_grids_agree_exactly_with_depth_zero() {
    let gpu = common::gpu();
    for (seed, n) in [(1u64, 50usize), (2, 400), (3, 2000), (4, 5000)] {
        let polygons = generate(SceneKind::Grid, n, seed);
        let (contacts, _) = gpu_contacts(&gpu, &polygons, &WorldOptions::default());
        let expected = reference::detect(&polygons);
        let report = compare(&polygons, &contacts, &expected);
        assert!(report.ok(), "grid seed {seed}: {}", report.disagreements[0]);
        assert_eq!(report.in_band, 0, "grid seed {seed}: the integer verdict must be exact, with no band");
        let got: Vec<_> = contacts.iter().map(|c| (c.a, c.b)).collect();
        let want: Vec<_> = expected.iter().map(|c| (c.a, c.b)).collect();
        assert_eq!(got, want, "grid seed {seed}: pair lists differ");
        assert!(!contacts.is_empty());
        for c in &contacts {
            assert_eq!(c.depth, 0.0, "grid seed {seed}: pair ({}, {}) only touches, depth must be exactly 0", c.a, c.b);
        }
    }
}

#[test]
fn gpu_tuning_gives_bitwise_the_same_pairs() {
    let cpu_tuned = common::gpu();
    let gpu_tuned = common::gpu_tuned_for_gpus();
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 6000, 21);
        let (a, _) = gpu_contacts(&cpu_tuned, &polygons, &WorldOptions::default());
        let (b, _) = gpu_contacts(&gpu_tuned, &polygons, &WorldOptions::default());
        assert_eq!(bits(&a), bits(&b), "{kind}");
        assert!(compare(&polygons, &b, &reference::detect(&polygons)).ok(), "{kind}");
    }
}

#[test]
fn textbook_squares_on_the_gpu() {
    let gpu = common::gpu();
    let square = |x: f64, y: f64| Polygon::new(vec![[x, y], [x + 1.0, y], [x + 1.0, y + 1.0], [x, y + 1.0]]).unwrap();
    let contacts = gpu::detect(&gpu, &[square(0.0, 0.0), square(2.0, 2.0)]).unwrap();
    assert!(contacts.is_empty(), "unit squares at (0,0) and (2,2) do not collide");
    let contacts = gpu::detect(&gpu, &[square(0.0, 0.0), square(1.0, 0.0)]).unwrap();
    assert_eq!(contacts.len(), 1, "unit squares sharing an edge collide");
    assert_eq!((contacts[0].a, contacts[0].b, contacts[0].depth), (0, 1, 0.0));
    assert_eq!(contacts[0].normal, [1.0, 0.0], "normal points from a to b");
    let contacts = gpu::detect(&gpu, &[square(0.5, 0.25), square(0.0, 0.0)]).unwrap();
    assert_eq!(contacts.len(), 1);
    assert_eq!(contacts[0].normal, [-1.0, 0.0], "b lies to the left of a, so the normal points left");
    assert_eq!(contacts[0].depth, 0.5);
}

#[test]
fn repeated_runs_are_bitwise_identical() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Clustered, 3000, 7);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let first = bits(&world.step().unwrap().contacts);
    assert!(first.len() > 1000);
    for _ in 0..3 {
        assert_eq!(bits(&world.step().unwrap().contacts), first, "same world, next frame");
    }
    let (fresh, _) = gpu_contacts(&gpu, &polygons, &WorldOptions::default());
    assert_eq!(bits(&fresh), first, "fresh world");
    let sorted = first.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1));
    assert!(sorted, "pairs are sorted by (a, b) and unique");
}

#[test]
fn candidate_overflow_grows_the_buffers_and_loses_nothing() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Dense, 2000, 3);
    let (want, reruns) = gpu_contacts(&gpu, &polygons, &WorldOptions::default());
    assert_eq!(reruns, 0);
    let small = WorldOptions { candidate_capacity: Some(1), ..Default::default() };
    let (got, reruns) = gpu_contacts(&gpu, &polygons, &small);
    assert_eq!(reruns, 1, "a frame that overflows is rerun once, with room for every candidate");
    assert_eq!(bits(&got), bits(&want));
    let mut world = World::from_polygons(&gpu, &polygons, &small).unwrap();
    world.step().unwrap();
    assert!(world.candidate_capacity() > 1);
    assert_eq!(world.step().unwrap().stats.reruns, 0, "the grown capacity is kept for later frames");
}

#[test]
fn dispatches_folded_into_2d_grids_give_the_same_pairs() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Mixed, 3000, 5);
    let (want, _) = gpu_contacts(&gpu, &polygons, &WorldOptions::default());
    for fold in [1, 3, 7] {
        let options = WorldOptions { max_workgroups_per_dimension: Some(fold), ..Default::default() };
        let (got, _) = gpu_contacts(&gpu, &polygons, &options);
        assert_eq!(bits(&got), bits(&want), "at most {fold} workgroups per row");
    }
}

#[test]
fn gpu_candidates_cover_the_reference_broad_phase() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 1500, 11);
        let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
        let mut got = world.step_candidates().unwrap();
        assert!(got.iter().all(|&(a, b)| a < b && (b as usize) < polygons.len()), "{kind}: malformed pair");
        got.sort_unstable();
        let unique = got.len();
        got.dedup();
        assert_eq!(got.len(), unique, "{kind}: a candidate pair was emitted twice");
        let missing: Vec<_> =
            reference::broad_phase(&polygons).into_iter().filter(|p| got.binary_search(p).is_err()).collect();
        assert!(missing.is_empty(), "{kind}: GPU broad phase missed {} pairs, first {:?}", missing.len(), missing[0]);
    }
}

#[test]
fn empty_and_single_polygon_scenes_have_no_pairs() {
    let gpu = common::gpu();
    assert!(gpu::detect(&gpu, &[]).unwrap().is_empty());
    let one = generate(SceneKind::Crowd, 1, 0);
    assert!(gpu::detect(&gpu, &one).unwrap().is_empty());
    let mut world = World::from_polygons(&gpu, &[], &WorldOptions::default()).unwrap();
    let frame = world.step().unwrap();
    assert_eq!((frame.stats.candidates, frame.stats.colliding), (0, 0));
}

fn random_transforms(rng: &mut ChaCha8Rng, n: usize, side: f64) -> Vec<Transform> {
    (0..n)
        // Translations are f32 on the GPU; give the reference the same positions.
        .map(|_| Transform {
            x: f64::from(rng.random_range(0.0..side) as f32),
            y: f64::from(rng.random_range(0.0..side) as f32),
            angle: rng.random_range(-std::f64::consts::PI..std::f64::consts::PI),
        })
        .collect()
}

#[test]
fn persistent_world_follows_per_frame_transforms() {
    let gpu = common::gpu();
    // Shapes centred on the origin, so a transform places and spins them.
    let shapes: Vec<Polygon> = generate(SceneKind::Mixed, 12, 9)
        .iter()
        .map(|p| {
            let c = p.vertices().iter().fold([0.0, 0.0], |s, v| [s[0] + v[0], s[1] + v[1]]);
            let k = p.vertices().len() as f64;
            p.transformed(&Transform { x: -c[0] / k, y: -c[1] / k, angle: 0.0 })
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let body_shapes: Vec<u32> = (0..800).map(|_| rng.random_range(0..shapes.len() as u32)).collect();
    let mut world = World::new(&gpu, &shapes, &body_shapes, &WorldOptions::default()).unwrap();
    let mut total = 0;
    for frame in 0..6 {
        let transforms = random_transforms(&mut rng, body_shapes.len(), 60.0);
        world.set_transforms(&transforms).unwrap();
        let got = world.step().unwrap().contacts;
        let placed: Vec<Polygon> =
            body_shapes.iter().zip(&transforms).map(|(&s, t)| shapes[s as usize].transformed(t)).collect();
        let report = compare(&placed, &got, &reference::detect(&placed));
        assert!(report.ok(), "frame {frame}: {}", report.disagreements[0]);
        total += got.len();
    }
    assert!(total > 100, "the frames should collide ({total} pairs)");
}

#[test]
fn bad_bodies_and_transforms_are_typed_errors() {
    let gpu = common::gpu();
    let shapes = generate(SceneKind::Crowd, 2, 1);
    match World::new(&gpu, &shapes, &[0, 1, 5], &WorldOptions::default()) {
        Err(Error::UnknownShape { body: 2, shape: 5, shapes: 2 }) => {}
        other => panic!("expected UnknownShape for body 2, got {other:?}"),
    }
    let mut world = World::new(&gpu, &shapes, &[0, 1, 1], &WorldOptions::default()).unwrap();
    match world.set_transforms(&[Transform::IDENTITY; 2]) {
        Err(Error::TransformCount { got: 2, expected: 3 }) => {}
        other => panic!("expected TransformCount, got {other:?}"),
    }
    let mut bad = [Transform::IDENTITY; 3];
    bad[1].angle = f64::NAN;
    match world.set_transforms(&bad) {
        Err(Error::NonFiniteTransform { body: 1, .. }) => {}
        other => panic!("expected NonFiniteTransform for body 1, got {other:?}"),
    }
}

fn read_back(gpu: &gpu::Gpu, buffer: &wgpu::Buffer, size: u64) -> Vec<u8> {
    let read = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test.read"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &read, 0, size);
    let index = gpu.queue().submit([encoder.finish()]);
    read.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    gpu.device()
        .poll(wgpu::PollType::Wait { submission_index: Some(index), timeout: Some(std::time::Duration::from_secs(60)) })
        .expect("poll");
    let bytes = read.slice(..).get_mapped_range().expect("mapped").to_vec();
    read.unmap();
    bytes
}

#[test]
fn results_can_stay_on_the_gpu() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Crowd, 2000, 4);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let want = world.step().unwrap().contacts;
    world.dispatch().unwrap();
    let totals: Vec<u32> = bytemuck::pod_collect_to_vec(&read_back(&gpu, world.totals_buffer(), 12));
    assert!(totals[0] <= world.entry_capacity() && totals[1] <= world.candidate_capacity());
    assert_eq!(totals[2] as usize, want.len());
    let raw = read_back(&gpu, world.contacts_buffer(), 24 * u64::from(totals[2]));
    let mut got: Vec<Contact> = bytemuck::pod_collect_to_vec::<u8, gpu::layout::GpuContact>(&raw)
        .iter()
        .map(|c| Contact { a: c.a, b: c.b, normal: [c.normal_x.into(), c.normal_y.into()], depth: c.depth.into() })
        .collect();
    got.sort_by_key(|c| (c.a, c.b));
    assert_eq!(bits(&got), bits(&want));
}

#[test]
fn a_device_with_too_few_storage_buffers_is_refused() {
    let _lock = common::gpu();
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).expect("adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: wgpu::Limits::downlevel_defaults(),
        ..Default::default()
    }))
    .expect("device");
    match gpu::Gpu::from_device(device, queue, adapter.get_info(), std::time::Duration::from_secs(60)) {
        Err(Error::UnsuitableAdapter { reason, .. }) => assert!(reason.contains("storage buffers"), "{reason}"),
        other => panic!("expected UnsuitableAdapter, got {other:?}"),
    }
}

#[test]
fn works_on_a_device_the_caller_owns() {
    let _lock = common::gpu();
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).expect("adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: wgpu::Limits { max_storage_buffers_per_shader_stage: 8, ..wgpu::Limits::downlevel_defaults() },
        ..Default::default()
    }))
    .expect("device");
    let own = gpu::Gpu::from_device(device, queue, adapter.get_info(), std::time::Duration::from_secs(60)).unwrap();
    let polygons = generate(SceneKind::Crowd, 500, 2);
    let got = gpu::detect(&own, &polygons).unwrap();
    assert!(compare(&polygons, &got, &reference::detect(&polygons)).ok());
    assert!(!got.is_empty());
}

#[test]
fn scan_kernel_matches_a_cpu_model() {
    let _lock = common::gpu();
    scan_matches_cpu_model(&_lock);
    scan_matches_cpu_model(&common::gpu_tuned_for_gpus());
}

fn scan_matches_cpu_model(gpu: &gpu::Gpu) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let sizes = [0usize, 1, 2, 255, 511, 512, 513, 1024, 4097, 262_144, 262_145, 300_001];
    for &n in &sizes {
        let inputs: Vec<Vec<u32>> = vec![
            (0..n).map(|_| rng.random_range(0..5)).collect(),
            vec![0; n],
            vec![1; n],
            (0..n).map(|i| if i % 511 == 0 { 7 } else { 0 }).collect(),
            vec![u32::MAX / (n.max(1) as u32); n],
        ];
        for data in inputs {
            let mut want = Vec::with_capacity(n);
            let mut sum = 0u32;
            for &x in &data {
                want.push(sum);
                sum += x;
            }
            for fold in [65_535, 2] {
                let (got, total) = gpu::testing::exclusive_scan(gpu, &data, fold).unwrap();
                assert_eq!(total, sum, "n={n} fold={fold}: total");
                assert!(
                    got == want,
                    "n={n} fold={fold}: first difference at {:?}",
                    got.iter().zip(&want).position(|(a, b)| a != b)
                );
            }
        }
    }
}

#[test]
fn radix_sort_kernel_matches_a_stable_cpu_sort() {
    let _lock = common::gpu();
    radix_matches_stable_sort(&_lock);
    radix_matches_stable_sort(&common::gpu_tuned_for_gpus());
}

fn radix_matches_stable_sort(gpu: &gpu::Gpu) {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for n in [0usize, 1, 2, 127, 128, 1000, 1023, 1024, 1025, 5000, 70_000] {
        let inputs: Vec<Vec<u32>> = vec![
            (0..n).map(|_| rng.random()).collect(),
            vec![7; n],
            (0..n as u32).collect(),
            (0..n as u32).rev().collect(),
            (0..n).map(|i| if i % 2 == 0 { u32::MAX } else { 0 }).collect(),
            (0..n).map(|_| rng.random_range(0..4) << 28).collect(),
            (0..n).map(|_| rng.random_range(0..16)).collect(),
        ];
        for keys in inputs {
            // Values record the input position, so stability is checked too.
            let data: Vec<(u32, u32)> = keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
            for (bits, fold) in [(32, 65_535), (32, 2), (24, 65_535), (8, 3)] {
                let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
                let mut want = data.clone();
                want.sort_by_key(|p| p.0 & mask); // stable; bits above key_bits do not count
                let got = gpu::testing::radix_sort(gpu, &data, bits, fold).unwrap();
                assert_eq!(got, want, "n={n} bits={bits} fold={fold}");
            }
        }
    }
}

#[test]
fn strip_and_all_pairs_broad_phases_find_the_same_pairs() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        for (n, seed) in [(50usize, 1u64), (700, 2), (2500, 3)] {
            let polygons = generate(kind, n, seed);
            let run = |broad_phase, strip_height| {
                let options = WorldOptions { broad_phase, strip_height, ..Default::default() };
                let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
                let mut candidates = world.step_candidates().unwrap();
                candidates.sort_unstable();
                (candidates, bits(&world.step().unwrap().contacts))
            };
            let all = run(BroadPhase::AllPairs, None);
            assert!(!all.0.is_empty() || n < 100, "{kind} n={n}: no candidates");
            // Default strips, very thin strips (bodies span many) and one strip for everything.
            for height in [None, Some(0.05), Some(1.0e9)] {
                let strips = run(BroadPhase::Strips, height);
                assert_eq!(strips.0, all.0, "{kind} n={n} strip height {height:?}: candidate sets differ");
                assert_eq!(strips.1, all.1, "{kind} n={n} strip height {height:?}: contacts differ");
            }
        }
    }
}
