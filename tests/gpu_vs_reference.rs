//! The GPU pipeline against the CPU reference, under the numerics contract (docs/numerics.md), on
//! every generated scene kind and on hand-made edge cases.

mod common;

use common::{agree as check_scene, bits, gpu_contacts};
use satgpu::gpu::{self, BroadPhase, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::validate;

use satgpu::DetectOptions;
use satgpu::{reference, Polygon, Transform};

fn translated(polygons: &[Polygon], dx: f64, dy: f64) -> Vec<Polygon> {
    let t = Transform { x: dx, y: dy, angle: 0.0 };
    polygons.iter().map(|p| p.transformed(&t)).collect()
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
        assert!(
            gpu::detect(&gpu, &apart, &DetectOptions::default()).map(|f| f.contacts).unwrap().is_empty(),
            "gap of 1e-3 at ({x}, {y})"
        );
        let overlapping = [square(x, y), square(x + 0.999, y + 0.5)];
        let got = gpu::detect(&gpu, &overlapping, &DetectOptions::default()).map(|f| f.contacts).unwrap();
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
        let expected = reference::detect(&polygons, &DetectOptions::default()).contacts;
        let report = validate::compare(&polygons, &contacts, &expected, &DetectOptions::default());
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
fn textbook_squares_on_the_gpu() {
    let gpu = common::gpu();
    let square = |x: f64, y: f64| Polygon::new(vec![[x, y], [x + 1.0, y], [x + 1.0, y + 1.0], [x, y + 1.0]]).unwrap();
    let contacts = gpu::detect(&gpu, &[square(0.0, 0.0), square(2.0, 2.0)], &DetectOptions::default())
        .map(|f| f.contacts)
        .unwrap();
    assert!(contacts.is_empty(), "unit squares at (0,0) and (2,2) do not collide");
    let contacts = gpu::detect(&gpu, &[square(0.0, 0.0), square(1.0, 0.0)], &DetectOptions::default())
        .map(|f| f.contacts)
        .unwrap();
    assert_eq!(contacts.len(), 1, "unit squares sharing an edge collide");
    assert_eq!((contacts[0].a, contacts[0].b, contacts[0].depth), (0, 1, 0.0));
    assert_eq!(contacts[0].normal, [1.0, 0.0], "normal points from a to b");
    let contacts = gpu::detect(&gpu, &[square(0.5, 0.25), square(0.0, 0.0)], &DetectOptions::default())
        .map(|f| f.contacts)
        .unwrap();
    assert_eq!(contacts.len(), 1);
    assert_eq!(contacts[0].normal, [-1.0, 0.0], "b lies to the left of a, so the normal points left");
    assert_eq!(contacts[0].depth, 0.5);
}

#[test]
fn gpu_candidates_cover_the_reference_broad_phase() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 1500, 11);
        let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
        let mut got = gpu::testing::candidates(&mut world).unwrap();
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
fn strip_and_all_pairs_broad_phases_find_the_same_pairs() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        for (n, seed) in [(50usize, 1u64), (700, 2), (2500, 3)] {
            let polygons = generate(kind, n, seed);
            let run = |broad_phase, strip_height| {
                let mut options = WorldOptions::default().with_broad_phase(broad_phase);
                options.strip_height = strip_height;
                let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
                let mut candidates = gpu::testing::candidates(&mut world).unwrap();
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
