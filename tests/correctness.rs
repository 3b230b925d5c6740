//! Right answers for every valid input: any vertex count from 3 to 1024 in any order, pair sizes
//! over the f32 range, pile-ups larger than one buffer binding, and typed errors (never a wrong
//! answer) for what f32 cannot hold. Property tests compare the GPU with the reference on random
//! polygons, and the scene parser on mutated files.

mod common;

use proptest::prelude::*;
use satgpu::gpu::{self, World, WorldOptions};
use satgpu::scene::{generate, parse_scene, SceneKind};
use satgpu::validate;

use satgpu::DetectOptions;
use satgpu::{reference, Contact, Error, Polygon, PolygonError, Transform, MAX_VERTICES};

fn gpu_contacts(gpu: &gpu::Gpu, polygons: &[Polygon]) -> Vec<Contact> {
    common::gpu_contacts(gpu, polygons, &WorldOptions::default()).0
}

use common::{agree, bits, small_device};

/// A regular `k`-gon of radius `r` around `c`, starting at angle `phase`.
fn ngon(k: usize, c: [f64; 2], r: f64, phase: f64) -> Polygon {
    let v = (0..k)
        .map(|i| {
            let t = phase + std::f64::consts::TAU * i as f64 / k as f64;
            [c[0] + r * t.cos(), c[1] + r * t.sin()]
        })
        .collect();
    Polygon::new(v).expect("regular polygon")
}

const COUNTS: [usize; 16] = [3, 4, 5, 8, 9, 16, 31, 64, 127, 128, 129, 255, 256, 500, 1023, MAX_VERTICES];

#[test]
fn every_mix_of_vertex_counts_in_every_order() {
    let gpu = common::gpu();
    // Each ordered pair of counts overlaps in its own cell (both orders, so each count is once a
    // and once b), at three depths: deep, shallow and just apart.
    let mut polygons = vec![];
    for (i, &ka) in COUNTS.iter().enumerate() {
        for (j, &kb) in COUNTS.iter().enumerate() {
            let cell = [10.0 * i as f64, 10.0 * j as f64];
            let gap = [1.0, 1.9, 2.05][(i + j) % 3];
            polygons.push(ngon(ka, cell, 1.0, 0.1 * i as f64));
            polygons.push(ngon(kb, [cell[0] + gap, cell[1] + 0.3], 1.0, 0.2 * j as f64));
        }
    }
    let (pairs, _) = agree(&gpu, &polygons, "vertex counts 3..1024");
    assert!(pairs > 150, "only {pairs} colliding pairs");
    // The textbook case of the issue: two 256-gons of radius 1, centres 1.5 apart.
    let two = [ngon(256, [0.0, 0.0], 1.0, 0.0), ngon(256, [1.5, 0.0], 1.0, 0.0)];
    let got = gpu_contacts(&gpu, &two);
    assert_eq!(got.len(), 1, "two overlapping 256-gons collide");
    assert!((got[0].depth - 0.49996).abs() < 1e-4, "depth {}", got[0].depth);
    // The same counts as shared shapes of spinning bodies: the transform pass boxes a shape of more
    // than 8 vertices from its rotated local box, and the narrow phase bins its pairs by cost.
    let shapes: Vec<Polygon> = COUNTS.iter().map(|&k| ngon(k, [0.0, 0.0], 1.0, 0.0)).collect();
    let pairs = common::spinning_bodies_agree(&gpu, &shapes, 320, 7, "spinning bodies of 3..1024 vertices");
    assert!(pairs > 300, "only {pairs} pairs");
}

/// A `k`-gon of radius `r` round `c` squashed to `aspect` of its height along y, then turned by
/// `angle`: far from its inscribed circle, so the narrow phase's arc of faces is wide.
fn squashed(k: usize, c: [f64; 2], r: f64, aspect: f64, angle: f64) -> Polygon {
    let (s, co) = angle.sin_cos();
    let v = (0..k)
        .map(|i| {
            let t = std::f64::consts::TAU * i as f64 / k as f64;
            let (x, y) = (r * t.cos(), aspect * r * t.sin());
            [c[0] + co * x - s * y, c[1] + s * x + co * y]
        })
        .collect();
    Polygon::new(v).expect("squashed polygon")
}

#[test]
fn large_pairs_at_every_angle_and_depth_match_the_reference() {
    // (name, polygons, least colliding pairs), run on both tunings below.
    let mut cases: Vec<(&str, Vec<Polygon>, usize)> = vec![];
    // The narrow phase walks only the faces of the Minkowski difference whose bound (from two
    // inner circles) can still beat the best face found: pairs of many-vertex polygons, squashed
    // and turned, at 48 directions and five distances (concentric, deep, shallow, nearly touching
    // and apart), each in its own cell, against a triangle, a square and polygons up to 300.
    let mut polygons = vec![];
    let mut cell = 0.0;
    for (ka, kb) in [(64, 64), (300, 3), (17, 4), (129, 200), (9, 9)] {
        for step in 0..48 {
            let t = std::f64::consts::TAU * f64::from(step) / 48.0;
            for (m, dist) in [0.0, 0.4, 1.1, 1.45, 1.62].into_iter().enumerate() {
                let c = [cell, 0.0];
                polygons.push(squashed(ka, c, 1.0, 0.5, 0.3 * m as f64));
                let b = [c[0] + dist * t.cos(), c[1] + dist * t.sin()];
                polygons.push(squashed(kb, b, 0.8, 0.6 + 0.1 * m as f64, t + 0.7));
                cell += 10.0;
            }
        }
    }
    cases.push(("large pairs at every angle", polygons, 800));
    // Half discs (40 vertices on the arc and one long edge, so two turns of 90 degrees between
    // neighbouring normals) deep in 24-gons at every turn and offset: the arc is the whole turn,
    // the walk may start far on the counter-clockwise side of d, and it must not stop before it
    // has come through d.
    let mut polygons = vec![];
    for (arc, turn) in (0..3).flat_map(|a| (0..12).map(move |t| (a, t))) {
        let phi = std::f64::consts::TAU * turn as f64 / 12.0;
        let span = std::f64::consts::PI * [0.5, 1.0, 1.4][arc];
        for step in 0..16 {
            let psi = std::f64::consts::TAU * step as f64 / 16.0;
            for (m, dist) in [0.0, 0.2, 0.45].into_iter().enumerate() {
                let c = [10.0 * (turn + 12 * arc) as f64, 10.0 * (step + 16 * m) as f64];
                let fan: Vec<[f64; 2]> = (0..40)
                    .map(|i| {
                        let t = phi + span * f64::from(i) / 39.0;
                        [c[0] + t.cos(), c[1] + t.sin()]
                    })
                    .collect();
                polygons.push(Polygon::new(fan).unwrap());
                let b = [c[0] + dist * psi.cos(), c[1] + dist * psi.sin()];
                polygons.push(squashed(24, b, 0.5, 0.8, psi));
            }
        }
    }
    cases.push(("arcs deep in 24-gons", polygons, 1000));
    // Polygons with vertices at random angles on ellipses (so some turns between neighbouring
    // normals are wide), 32 to 64 vertices against 3 to 40, mostly deep in each other.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut ellipse = |k: usize, c: [f64; 2], r: f64| {
        let mut angles: Vec<f64> = (0..k).map(|_| std::f64::consts::TAU * random()).collect();
        angles.sort_by(f64::total_cmp);
        let (aspect, turn) = (0.5 + 0.5 * random(), std::f64::consts::TAU * random());
        let (s, co) = turn.sin_cos();
        let v = angles.iter().map(|t| {
            let (x, y) = (r * t.cos(), aspect * r * t.sin());
            [c[0] + co * x - s * y, c[1] + s * x + co * y]
        });
        Polygon::new(v.collect()).ok()
    };
    let mut polygons = vec![];
    for i in 0..1500 {
        let c = [10.0 * (i % 40) as f64, 10.0 * (i / 40) as f64];
        let (ka, kb) = (32 + i % 33, 3 + (i * 7) % 38);
        let (t, dist) = (std::f64::consts::TAU * (i as f64 * 0.618).fract(), 0.6 * (i as f64 * 0.377).fract());
        if let (Some(a), Some(b)) =
            (ellipse(ka, c, 1.0), ellipse(kb, [c[0] + dist * t.cos(), c[1] + dist * t.sin()], 0.9))
        {
            polygons.push(a);
            polygons.push(b);
        }
    }
    // The same at 2^-95 and 2^100 of their size, far from the origin (powers of two: the
    // reference's answers scale exactly).
    for (name, scale, at) in
        [("random ellipse polygons at 2^-95", -95, [3e-23, -1e-24]), ("at 2^100", 100, [-7e33, 2e34])]
    {
        let s = 2f64.powi(scale);
        let moved = polygons.iter().map(|p| {
            let v = p.vertices().iter().map(|v| [at[0] + s * v[0], at[1] + s * v[1]]).collect();
            Polygon::new(v).expect("a scaled convex polygon")
        });
        cases.push((name, moved.collect(), 1000));
    }
    cases.push(("random ellipse polygons deep in each other", polygons, 1000));
    // A 9-gon deep in an 8-gon (`scales`, 114 polygons, seed 29), a pair the random scenes found
    // when the walk could stop before coming through d.
    let eight = [
        [3454.960693359375, 2048.35302734375],
        [3453.58544921875, 2046.3336181640625],
        [3453.804443359375, 2043.9466552734375],
        [3455.489013671875, 2042.5902099609375],
        [3457.652587890625, 2043.0589599609375],
        [3459.027587890625, 2045.0782470703125],
        [3458.808837890625, 2047.46533203125],
        [3457.124267578125, 2048.82177734375],
    ];
    let nine = [
        [3459.085205078125, 2048.383544921875],
        [3458.20068359375, 2049.379638671875],
        [3456.453369140625, 2048.96435546875],
        [3454.660888671875, 2047.33251953125],
        [3453.661865234375, 2045.2471923828125],
        [3453.923828125, 2043.6844482421875],
        [3455.323974609375, 2043.3753662109375],
        [3457.20751953125, 2044.4644775390625],
        [3458.69287109375, 2046.4423828125],
    ];
    let pair = vec![Polygon::new(eight.to_vec()).unwrap(), Polygon::new(nine.to_vec()).unwrap()];
    cases.push(("a 9-gon deep in an 8-gon", pair, 1));
    // A tiny polygon deep inside a huge one, and the other way round.
    let two = vec![squashed(500, [0.0, 0.0], 1e4, 0.5, 0.2), squashed(40, [300.0, 100.0], 1e-2, 0.7, 1.0)];
    // Issue 46: circular segments (an arc of 12 vertices spanning 100 to 160 degrees, and its
    // chord, whose normal is half a turn from the arc's) against triangles all round them, turned
    // at every step: where the walk's arc ends just clockwise of the segment's first face, P's
    // last face before it is the chord, and the walk once started one face earlier still, inside
    // the arc, and stopped before the deepest face (an H200 reported a pair 0.41 deep, not 0.074).
    let mut segments = vec![];
    let mut cell = 0.0;
    for span in [100.0f64, 140.0, 160.0] {
        for step in 0..36 {
            let turn = f64::from(step) * 10.0f64.to_radians();
            let arc: Vec<[f64; 2]> = (0..12)
                .map(|k| turn + (span * f64::from(k) / 11.0).to_radians())
                .map(|a| [cell + 0.8 * a.cos(), 0.8 * a.sin()])
                .collect();
            segments.push(Polygon::new(arc).unwrap());
            let mid = turn + (span / 2.0).to_radians();
            let (dx, dy) = (0.75 * mid.cos(), 0.75 * mid.sin());
            let tri = [[0.0, 0.0], [0.15, -0.2], [0.17, 0.02]];
            segments.push(Polygon::new(tri.iter().map(|p| [cell + dx + p[0], dy + p[1]]).collect()).unwrap());
            cell += 10.0;
        }
    }
    cases.push(("circular segments against triangles", segments, 100));
    cases.push(("huge round tiny", vec![two[1].clone(), two[0].clone()], 1));
    cases.push(("tiny inside huge", two, 1));
    // Both tunings walk every face of pairs under 128 vertices in all; a device that prunes
    // every pair proves the pruned walk on every case too.
    let main = common::gpu();
    for tuning in ["CPU", "GPU", "pruning every pair"] {
        let gpu = match tuning {
            "CPU" => None,
            "GPU" => Some(common::gpu_tuned_for_gpus()),
            _ => Some(common::gpu_pruning_every_pair()),
        };
        let gpu = gpu.as_deref().unwrap_or(&main);
        for (name, polygons, least) in &cases {
            let (pairs, _) = agree(gpu, polygons, &format!("{name}, {tuning} tuning"));
            assert!(pairs >= *least, "{name}: only {pairs} colliding pairs");
        }
    }
}

#[test]
fn round_pile_and_scales_scenes_match_the_reference() {
    let gpu = common::gpu();
    for kind in [SceneKind::Round, SceneKind::Pile, SceneKind::Scales] {
        let mut pairs = 0;
        for seed in 0..6 {
            pairs += agree(&gpu, &generate(kind, 600, seed), &format!("{kind} seed {seed}")).0;
        }
        assert!(pairs > 500, "{kind}: only {pairs} colliding pairs");
    }
}

/// A scene over sixty orders of magnitude lays its strips and x buckets out over its sampled
/// centres (a uniform grid put most of `scales` in one strip and one bucket), a crowd keeps the
/// uniform grid, and both still find every pair, including with many strips' worth of bodies.
#[test]
fn scenes_over_many_magnitudes_map_the_grid_and_find_every_pair() {
    let gpu = common::gpu();
    for (kind, n, mapped) in [(SceneKind::Scales, 5000, 3), (SceneKind::Crowd, 5000, 0)] {
        let polygons = generate(kind, n, 3);
        let (pairs, _) = agree(&gpu, &polygons, &format!("{kind} {n}"));
        assert!(pairs > n / 4, "{kind} {n}: only {pairs} pairs");
        let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
        world.step().unwrap();
        assert_eq!(gpu::testing::grid_mapped(&world).unwrap(), mapped, "{kind} {n}");
        let [_, _, strips, ..] = gpu::testing::strip_grid(&world).unwrap();
        if mapped != 0 {
            assert!(strips > 100.0, "{kind} {n}: {strips} strips");
        }
    }
}

fn square(x: f64, y: f64, side: f64) -> Polygon {
    Polygon::new(vec![[x, y], [x + side, y], [x + side, y + side], [x, y + side]]).unwrap()
}

#[test]
fn pair_sizes_from_1e_minus_30_to_1e30() {
    let gpu = common::gpu();
    for e in (-29..=30).step_by(1) {
        let s = 10f64.powi(e);
        // Squares of side s at x = s and 1.5 s: overlap s / 2 along x.
        let pair = [square(s, 0.0, s), square(1.5 * s, 0.0, s)];
        let got = gpu_contacts(&gpu, &pair);
        assert_eq!(got.len(), 1, "side {s:e}");
        assert_eq!(got[0].normal, [1.0, 0.0], "side {s:e}");
        assert!((got[0].depth / (0.5 * s) - 1.0).abs() < 1e-5, "side {s:e}: depth {}", got[0].depth);
        // Just apart, by a millionth of their size, far from the origin.
        let apart = [square(1000.0 * s, 0.0, s), square(1000.0 * s + 1.000001 * s, 0.0, s)];
        assert!(gpu_contacts(&gpu, &apart).is_empty(), "side {s:e}: a gap of 1e-6 sizes is seen");
    }
}

#[test]
fn coordinates_f32_cannot_hold_are_typed_errors() {
    let err = Polygon::new(vec![[0.0, 0.0], [4e38, 0.0], [0.0, 1.0]]).unwrap_err();
    assert!(matches!(err, PolygonError::OutOfRange { vertex: 1, .. }), "{err:?}");
    assert!(err.to_string().contains("outside the supported range"), "{err}");
    let err = Polygon::new(vec![[0.0, 0.0], [1e-31, 0.0], [0.0, 1e-31]]).unwrap_err();
    assert!(matches!(err, PolygonError::TooSmall { .. }), "{err:?}");
    // A scene file names the polygon.
    let text = r#"{"polygons": [{"vertices": [[0,0],[1,0],[0,1]]}, {"vertices": [[0,0],[1e39,0],[0,1]]}]}"#;
    let err = parse_scene(text, "s.json".as_ref()).unwrap_err();
    assert!(err.to_string().starts_with("polygon 1 vertex 1"), "{err}");
    // Simulation transforms too.
    let gpu = common::gpu();
    let mut world = World::new(&gpu, &[square(0.0, 0.0, 1.0)], &[0, 0], &WorldOptions::default()).unwrap();
    let t = Transform { x: 1e39, y: 0.0, angle: 0.0 };
    match world.set_transforms(&[Transform::IDENTITY, t]) {
        Err(Error::TransformOutOfRange { body: 1, .. }) => {}
        other => panic!("expected TransformOutOfRange, got {other:?}"),
    }
    // The world is still usable.
    world.set_transforms(&[Transform::IDENTITY, Transform { x: 0.5, y: 0.0, angle: 0.0 }]).unwrap();
    assert_eq!(world.step().unwrap().contacts.len(), 1);
}

#[test]
fn pile_ups_larger_than_a_binding_run_in_batches_with_identical_output() {
    let lock = common::gpu();
    let small = small_device();
    // 700 triangles on one spot (244,650 pairs) and a pile scene (about 20 candidates each).
    let triangle = Polygon::new(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]).unwrap();
    let stack: Vec<Polygon> =
        (0..700).map(|i| triangle.transformed(&Transform { x: (i % 7) as f64 * 0.01, y: 0.0, angle: 0.0 })).collect();
    // 600 circles, capsules and rounded triangles on one spot (179,700 pairs), filters off.
    let rounded: Vec<Polygon> = (0..600)
        .map(|i| {
            let x = (i % 5) as f64 * 0.01;
            match i % 3 {
                0 => Polygon::circle([x, 0.0], 0.5),
                1 => Polygon::capsule([x, 0.0], [x + 1.0, 0.5], 0.25),
                _ => Polygon::rounded(vec![[x, 0.0], [x + 1.0, 0.0], [x, 1.0]], 0.125),
            }
            .unwrap()
        })
        .collect();
    // 300 polygons of 3 to 40 vertices on one spot (44,850 pairs, most through the narrow
    // phase's binned large-pair passes, whose list shares the contacts buffer).
    let counts = [3, 9, 12, 16, 24, 40];
    let many: Vec<Polygon> =
        (0..300).map(|i| ngon(counts[i % counts.len()], [(i % 7) as f64 * 0.01, 0.0], 1.0, 0.1 * i as f64)).collect();
    let piles = [
        ("stack", stack),
        ("rounded stack", rounded),
        ("many-vertex stack", many),
        ("pile", generate(SceneKind::Pile, 6000, 3)),
    ];
    for (what, polygons) in piles {
        let want = gpu_contacts(&lock, &polygons);
        let mut world = World::from_polygons(&small, &polygons, &WorldOptions::default()).unwrap();
        let frame = world.step().unwrap();
        assert!(frame.stats.batches > 1, "{what}: {} candidates ran in one batch", frame.stats.candidates);
        assert_eq!(bits(&frame.contacts), bits(&want), "{what}: batched output differs");
        // A second frame of the same world, and the reference.
        assert_eq!(bits(&world.step().unwrap().contacts), bits(&want), "{what}: second batched frame differs");
        let report = validate::compare(
            &polygons,
            &want,
            &reference::detect(&polygons, &DetectOptions::default()).contacts,
            &DetectOptions::default(),
        );
        assert!(report.ok(), "{what}: {}", report.disagreements[0]);
    }
    // Too many bodies for the binding is still refused up front, by name.
    match World::from_polygons(&small, &generate(SceneKind::Crowd, 70_000, 1), &WorldOptions::default()) {
        Err(Error::TooLarge { what, .. }) => assert_eq!(what, "shape vertices"),
        other => panic!("expected TooLarge for the shape vertices, got {other:?}"),
    }
}

/// A convex polygon: a regular k-gon squashed along a direction, rotated, scaled and moved.
fn random_polygon() -> impl Strategy<Value = (usize, f64, f64, f64, f64)> {
    (3usize..=64, 0.0..std::f64::consts::TAU, 0.3f64..1.0, -1.0f64..1.0, -1.0f64..1.0)
}

fn build(k: usize, phase: f64, aspect: f64, scale: f64, at: [f64; 2]) -> Option<Polygon> {
    let v = (0..k)
        .map(|i| {
            let t = phase + std::f64::consts::TAU * i as f64 / k as f64;
            let (x, y) = (t.cos(), aspect * t.sin());
            let (c, s) = (phase.cos(), phase.sin());
            [at[0] + scale * (c * x - s * y), at[1] + scale * (s * x + c * y)]
        })
        .collect();
    Polygon::new(v).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random convex polygons of 3 to 64 vertices in pairs at a random power-of-two scale from
    /// 2^-90 to 2^90 and a random offset of up to 2^20 of their size, placed to overlap, touch or
    /// miss: the GPU agrees with the reference under the contract.
    #[test]
    fn gpu_agrees_with_the_reference_on_random_pairs(
        pairs in prop::collection::vec((random_polygon(), random_polygon(), -1.2f64..1.2, -1.2f64..1.2), 1..24),
        exponent in -90i32..=90,
        offset in (-1.0e6f64..1.0e6, -1.0e6f64..1.0e6),
    ) {
        let gpu = common::gpu();
        let s = 2f64.powi(exponent);
        let mut polygons = vec![];
        for (i, ((ka, pa, aa, _, _), (kb, pb, ab, _, _), dx, dy)) in pairs.into_iter().enumerate() {
            let cell = [offset.0 * s + 10.0 * s * i as f64, offset.1 * s];
            let a = build(ka, pa, aa, s, cell);
            let b = build(kb, pb, ab, s, [cell[0] + dx * s, cell[1] + dy * s]);
            if let (Some(a), Some(b)) = (a, b) {
                polygons.push(a);
                polygons.push(b);
            }
        }
        agree(&gpu, &polygons, &format!("scale 2^{exponent}"));
    }

    /// Squares an exact number of ulps apart, touching, or overlapping by a few ulps: touching
    /// collides with depth 0, and every verdict agrees with the reference under the contract.
    #[test]
    fn squares_a_few_ulps_apart(exponent in -60i32..=60, ulps in -4i64..=4, at in -1000.0f64..1000.0) {
        let gpu = common::gpu();
        let s = 2f64.powi(exponent);
        let x = (at * s) as f32 as f64;
        let right = f64::from_bits(((x + s) as f32 as f64).to_bits().wrapping_add_signed(ulps));
        let pair = [square(x, 0.0, s), square(right, 0.0, s)];
        let got = gpu_contacts(&gpu, &pair);
        agree(&gpu, &pair, &format!("{ulps} ulps at 2^{exponent}"));
        if right == x + s {
            prop_assert_eq!(got.len(), 1);
            prop_assert_eq!(got[0].depth, 0.0);
        }
    }

    /// Nearly collinear vertices: a square's edge bent outward by a tiny amount is either
    /// rejected with the same typed error every time, or accepted and handled like any polygon.
    #[test]
    fn nearly_collinear_vertices_are_handled_or_rejected(bend in -30i32..=-1, x in 0.01f64..0.99) {
        let lift = 2f64.powi(bend);
        let v = vec![[0.0, 0.0], [x, -lift], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let first = Polygon::new(v.clone());
        prop_assert_eq!(&first, &Polygon::new(v));
        match first {
            Ok(p) => {
                let gpu = common::gpu();
                agree(&gpu, &[p, square(0.5, -0.5, 1.0)], "bent square");
            }
            Err(e) => prop_assert!(matches!(e, PolygonError::Collinear { .. }), "{:?}", e),
        }
    }

    /// Every mutation of a valid scene file (truncation, a replaced span, NaN and huge numbers,
    /// wrong types, deep nesting, long arrays) parses to a scene or a typed error: never a panic.
    /// The base file has filters on its first and its last shape.
    #[test]
    fn the_scene_parser_never_panics(
        cut in 0usize..400,
        at in 0usize..400,
        insert in prop::sample::select(vec![
            "NaN", "1e400", "-1e39", "\"x\"", "null", "[", "]", "{", "}", ",", "[[0,0],[1,0]]", "true",
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
            "0.0000000000000000000000000000000000000000000000000000001", "1e-320", "-0", "{\"vertices\": 5}",
            "{\"circle\": 5}", "\"radius\": -1,", "{\"capsule\": {\"a\": [0, 0]}}", "\"group\": 4294967296,",
        ]),
        repeat in 0usize..3000,
    ) {
        let base = r#"{"polygons": [{"vertices": [[0, 0], [1, 0], [1, 1], [0, 1]], "category": 4}, {"vertices": [[2, 0], [3, 0], [2.5, 1]], "radius": 0.5, "group": -2}, {"circle": {"center": [1, 2], "radius": 0.5}, "mask": 3}, {"capsule": {"a": [0.5, 0.5], "b": [1.5, 0.5], "radius": 0.25}, "category": 2}]}"#;
        let mut text: String = base.chars().take(base.len().min(cut.max(at))).collect();
        let at = at.min(text.len());
        text.insert_str(at, insert);
        text.push_str(&base[base.len().min(cut.max(at))..]);
        let long = format!(r#"{{"polygons": [{}]}}"#, vec![r#"{"vertices": [[0,0],[1,0],[0,1]]}"#; repeat].join(","));
        for t in [text.as_str(), &base[..cut.min(base.len())], long.as_str()] {
            // Filters on the first and the last shape: a scene that parses has one per shape or none.
            if let Ok(scene) = parse_scene(t, "fuzz.json".as_ref()) {
                prop_assert!(scene.filters.is_empty() || scene.filters.len() == scene.len());
            }
        }
    }
}

/// Strays far outside the strip grid's robust box are clamped into its edge strips and buckets:
/// pairs among them, and between a stray and the crowd's edge, must still all be found.
#[test]
fn pairs_among_clamped_strays_are_all_found() {
    let gpu = common::gpu();
    let mut polygons = generate(SceneKind::Crowd, 3000, 6);
    // Piles of overlapping squares far out in every direction, and one long bar from the crowd
    // out to 1e6 that overlaps crowd polygons and a far pile.
    for (x, y) in [(1e6, 1e6), (-1e5, 30.0), (50.0, -3e7), (2e4, 2e4)] {
        for k in 0..6 {
            polygons.push(square(x + 0.3 * f64::from(k), y + 0.2 * f64::from(k), 1.0));
        }
    }
    polygons.push(Polygon::new(vec![[100.0, 100.0], [1e6 + 1.0, 1e6], [1e6, 1e6 + 1.0], [100.0, 101.0]]).unwrap());
    let (pairs, _) = agree(&gpu, &polygons, "clamped strays");
    // The strays really lie outside the grid: it spans the crowd, not the scene's bounds.
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    world.step().unwrap();
    let [y0, per_y, strips, _, x0, per_x, kept] = gpu::testing::strip_grid(&world).unwrap();
    let (width, height) = (2f64.powf(kept) / per_x, strips / per_y);
    assert!(x0 > -1e3 && x0 + width < 1e4 && y0 > -1e3 && y0 + height < 1e4, "grid {x0} {width} {y0} {height}");
    let strays = reference::detect(&polygons, &DetectOptions::default())
        .contacts
        .iter()
        .filter(|c| c.b as usize >= 3000)
        .count();
    assert!(strays >= 4 * 15, "the far piles must collide among themselves: {strays} pairs");
    assert!(pairs > strays);
}
