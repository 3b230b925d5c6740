//! Circles, capsules and rounded polygons on the GPU (issue 8): analytic cases, every pairing of
//! core sizes 1 to 1024 with and without a radius, the f32 range, generated `agents` and `shapes`
//! scenes against the reference, and collision filters in one-shot detection and in a `World`.

mod common;

use common::{agree, bits, gpu_contacts};
use proptest::prelude::*;
use satgpu::gpu::{self, BroadPhase, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::validate;
use satgpu::validate::band;
use satgpu::DetectOptions;
use satgpu::{reference, Filter, Polygon};

/// The one reported pair of a two-body scene, as (normal, depth).
fn gpu_pair(gpu: &gpu::Gpu, a: &Polygon, b: &Polygon) -> Option<([f64; 2], f64)> {
    let got = gpu::detect(gpu, &[a.clone(), b.clone()], &DetectOptions::default()).map(|f| f.contacts).unwrap();
    assert!(got.len() <= 1);
    got.first().map(|c| (c.normal, c.depth))
}

/// The case checked to the pair's band (see `common::check_case`).
fn check(what: &str, a: &Polygon, b: &Polygon, got: Option<([f64; 2], f64)>, want: Option<([f64; 2], f64)>) {
    common::check_case(what, a, b, got, want, band(a, b));
}

#[test]
fn analytic_cases_in_both_orders_near_and_far_and_at_every_scale() {
    let gpu = common::gpu();
    for (what, a, b, want) in common::rounded_cases() {
        check(what, &a, &b, gpu_pair(&gpu, &a, &b), want);
        let flipped = gpu_pair(&gpu, &b, &a).map(|(n, d)| ([-n[0], -n[1]], d));
        check(&format!("{what}, swapped"), &a, &b, flipped, want);
        // Far from the origin and scaled by powers of two (exact), the same answers.
        for (scale, offset) in [(1.0, 1.0e5), (2f64.powi(-90), 0.0), (2f64.powi(90), 0.0), (2f64.powi(-60), 3.0)] {
            let m = |p: &Polygon| scaled(p, scale, offset * scale);
            let want = want.map(|(n, d)| (n, d * scale));
            check(&format!("{what} x{scale:e} at {offset}"), &m(&a), &m(&b), gpu_pair(&gpu, &m(&a), &m(&b)), want);
        }
    }
}

/// `p` scaled by `s` about the origin, then moved by `(d, d)`.
fn scaled(p: &Polygon, s: f64, d: f64) -> Polygon {
    let v: Vec<[f64; 2]> = p.vertices().iter().map(|v| [v[0] * s + d, v[1] * s + d]).collect();
    Polygon::from_core(v, p.radius() * s).unwrap()
}

#[test]
fn integer_circles_touch_exactly_on_the_gpu() {
    let gpu = common::gpu();
    for (dx, dy, d) in [(3.0, 4.0, 5.0), (5.0, 12.0, 13.0), (8.0, 15.0, 17.0), (20.0, 21.0, 29.0)] {
        for ra in [1.0, 2.0, d - 1.0] {
            let a = Polygon::circle([7.0, -3.0], ra).unwrap();
            let b = Polygon::circle([7.0 + dx, -3.0 + dy], d - ra).unwrap();
            assert_eq!(gpu_pair(&gpu, &a, &b).map(|c| c.1), Some(0.0), "touching at {dx},{dy} r {ra}");
            let apart = Polygon::circle([7.0 + dx + 1.0, -3.0 + dy], d - ra).unwrap();
            assert_eq!(gpu_pair(&gpu, &a, &apart), None, "apart at {dx},{dy} r {ra}");
        }
    }
}

/// A regular `k`-gon core (1: a point, 2: a segment) of radius `size` around `c`, with `radius`.
fn shape(k: usize, c: [f64; 2], size: f64, phase: f64, radius: f64) -> Polygon {
    let v: Vec<[f64; 2]> = (0..k)
        .map(|i| {
            let t = phase + std::f64::consts::TAU * i as f64 / k as f64;
            [c[0] + size * t.cos(), c[1] + size * t.sin()]
        })
        .collect();
    Polygon::from_core(if k == 1 { vec![c] } else { v }, radius).unwrap()
}

#[test]
fn every_pairing_of_core_sizes_and_radii() {
    let gpu = common::gpu();
    let counts = [1usize, 2, 3, 4, 8, 9, 64, 129, 1024];
    let mut polygons = vec![];
    for (i, &ka) in counts.iter().enumerate() {
        for (j, &kb) in counts.iter().enumerate() {
            for (r, &gap) in [1.2, 1.9, 2.3, 2.9].iter().enumerate() {
                let cell = [12.0 * (4 * i + r) as f64, 12.0 * j as f64];
                let ra = [0.0f64, 0.25, 0.5, 0.3][(i + r) % 4].max(if ka <= 2 { 0.4 } else { 0.0 });
                let rb = [0.3f64, 0.0, 0.5, 0.25][(j + r) % 4].max(if kb <= 2 { 0.3 } else { 0.0 });
                polygons.push(shape(ka, cell, 1.0, 0.1 * i as f64, ra));
                polygons.push(shape(kb, [cell[0] + gap, cell[1] + 0.2], 1.0, 0.3 * j as f64, rb));
            }
        }
    }
    let (pairs, _) = agree(&gpu, &polygons, "core sizes 1..1024 with radii");
    assert!(pairs > 150, "only {pairs} colliding pairs");
    // The same in a simulation: shared shapes, rotated bodies (a circle turns in place).
    let shapes: Vec<Polygon> =
        counts.iter().map(|&k| shape(k, [0.0, 0.0], 1.0, 0.0, if k <= 2 { 0.4 } else { 0.2 })).collect();
    let pairs = common::spinning_bodies_agree(&gpu, &shapes, 200, 1, "simulation");
    assert!(pairs > 100, "only {pairs} pairs");
}

#[test]
fn agents_and_shapes_scenes_match_the_reference() {
    let gpu = common::gpu();
    for kind in [SceneKind::Agents, SceneKind::Shapes] {
        let (pairs, _) = agree(&gpu, &generate(kind, 10_000, 3), &format!("{kind} 10k"));
        assert!(pairs > 3000, "{kind}: only {pairs} pairs");
        for seed in 0..4 {
            agree(&gpu, &generate(kind, 700, seed), &format!("{kind} seed {seed}"));
        }
    }
}

/// Filters that exclude some pairs of every kind: categories, masks, and groups of both signs.
fn some_filters(n: usize) -> Vec<Filter> {
    (0..n)
        .map(|i| Filter {
            category: 1 << (i % 3),
            mask: if i % 5 == 0 { 0b011 } else { u32::MAX },
            group: [0, 0, 1, -1, 2, -1][i % 6],
        })
        .collect()
}

#[test]
fn filtered_pairs_are_exactly_the_unfiltered_minus_the_excluded() {
    let gpu = common::gpu();
    for kind in [SceneKind::Shapes, SceneKind::Dense, SceneKind::Agents] {
        for n in [150usize, 4000] {
            let polygons = generate(kind, n, 8);
            let filters = some_filters(n);
            let all = gpu::detect(&gpu, &polygons, &DetectOptions::default()).map(|f| f.contacts).unwrap();
            let keep = |c: &&satgpu::Contact| filters[c.a as usize].should_collide(&filters[c.b as usize]);
            let want: Vec<_> = all.iter().filter(keep).copied().collect();
            assert!(want.len() < all.len() && !want.is_empty(), "{kind}: the filters must matter");
            for broad_phase in [BroadPhase::Strips, BroadPhase::AllPairs] {
                let mut world =
                    World::from_polygons(&gpu, &polygons, &WorldOptions::default().with_broad_phase(broad_phase))
                        .unwrap();
                world.set_filters(&filters).unwrap();
                let frame = world.step().unwrap();
                assert_eq!(bits(&frame.contacts), bits(&want), "{kind} n={n} {broad_phase:?}");
                // Filtered pairs are not even candidates.
                let mut candidates = gpu::testing::candidates(&mut world).unwrap();
                candidates.retain(|&(a, b)| !filters[a as usize].should_collide(&filters[b as usize]));
                assert!(candidates.is_empty(), "{kind} {broad_phase:?}: {} filtered candidates", candidates.len());
                // Back to the defaults between frames: every pair again.
                world.set_filters(&vec![Filter::DEFAULT; n]).unwrap();
                assert_eq!(bits(&world.step().unwrap().contacts), bits(&all), "{kind} filters cleared");
            }
            let options = DetectOptions::default().with_filters(filters.to_vec());
            let reference = reference::detect(&polygons, &options).contacts;
            let got = gpu::detect(&gpu, &polygons, &options).unwrap().contacts;
            let report = validate::compare(&polygons, &got, &reference, &options);
            assert!(report.ok(), "{kind}: {}", report.disagreements[0]);
        }
    }
}

#[test]
fn filters_are_checked_and_survive_new_polygons() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Shapes, 500, 2);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    assert!(matches!(world.set_filters(&[Filter::DEFAULT]), Err(satgpu::Error::FilterCount { got: 1, expected: 500 })));
    let filters = some_filters(500);
    world.set_filters(&filters).unwrap();
    let before = bits(&world.step().unwrap().contacts);
    // New polygons with other vertex counts rebuild the world; the filters stay.
    let other = generate(SceneKind::Shapes, 500, 3);
    world.set_polygons(&other).unwrap();
    assert_eq!(world.filters(), filters.as_slice());
    let want = reference::detect(&other, &DetectOptions::default().with_filters(filters.to_vec())).contacts;
    let report = validate::compare(&other, &world.step().unwrap().contacts, &want, &DetectOptions::default());
    assert!(report.ok(), "{}", report.disagreements[0]);
    world.set_polygons(&polygons).unwrap();
    assert_eq!(bits(&world.step().unwrap().contacts), before);
    assert!(
        gpu_contacts(&gpu, &polygons, &WorldOptions::default()).0.len() > before.len(),
        "the filters excluded some pairs"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random cores of 1 to 48 points with random radii, in pairs at a power-of-two scale from
    /// 2^-90 to 2^90, placed to overlap, touch or miss: the GPU agrees with the reference.
    #[test]
    fn gpu_agrees_with_the_reference_on_random_rounded_pairs(
        pairs in prop::collection::vec(
            ((1usize..=48, 0.0..std::f64::consts::TAU, 0.0f64..0.6), (1usize..=48, 0.0..std::f64::consts::TAU, 0.0f64..0.6), -2.5f64..2.5, -2.5f64..2.5),
            1..24,
        ),
        exponent in -90i32..=90,
        offset in (-1.0e6f64..1.0e6, -1.0e6f64..1.0e6),
    ) {
        let gpu = common::gpu();
        let s = 2f64.powi(exponent);
        let mut polygons = vec![];
        for (i, ((ka, pa, ra), (kb, pb, rb), dx, dy)) in pairs.into_iter().enumerate() {
            let cell = [offset.0 * s + 10.0 * s * i as f64, offset.1 * s];
            // Circles and capsules need a radius above 0.
            let ra = if ka <= 2 { ra + 0.05 } else { ra };
            let rb = if kb <= 2 { rb + 0.05 } else { rb };
            polygons.push(shape(ka, cell, s, pa, ra * s));
            polygons.push(shape(kb, [cell[0] + dx * s, cell[1] + dy * s], s, pb, rb * s));
        }
        agree(&gpu, &polygons, &format!("scale 2^{exponent}"));
    }
}

/// Where gathering code breaks (issue 22): a filter on the first body only, on the last only, on
/// a one-body world, and a change at index 0 between frames, in one-shot detection and in a
/// `World` on both broad phases, against the filtered reference.
#[test]
fn filters_on_the_first_and_last_body_and_a_change_at_index_0() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Dense, 300, 4);
    let n = polygons.len();
    let all = reference::detect(&polygons, &DetectOptions::default()).contacts;
    let touches = |i: u32| all.iter().filter(|c| c.a == i || c.b == i).count();
    assert!(touches(0) > 0 && touches(n as u32 - 1) > 0, "the first and last bodies must collide");
    let alone = Filter { category: 2, mask: 2, group: 0 };
    let mut first = vec![Filter::DEFAULT; n];
    first[0] = alone;
    let mut last = vec![Filter::DEFAULT; n];
    last[n - 1] = alone;
    for (what, filters) in [("first", &first), ("last", &last)] {
        let options = DetectOptions::default().with_filters(filters.to_vec());
        let want = reference::detect(&polygons, &options).contacts;
        assert_eq!(want.len(), all.len() - touches(if what == "first" { 0 } else { n as u32 - 1 }), "{what}");
        let got = gpu::detect(&gpu, &polygons, &options).unwrap().contacts;
        let report = validate::compare(&polygons, &got, &want, &options);
        assert!(report.ok(), "{what}: {}", report.disagreements[0]);
    }
    for broad_phase in [BroadPhase::Strips, BroadPhase::AllPairs] {
        let options = WorldOptions::default().with_broad_phase(broad_phase);
        let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
        let unfiltered = bits(&world.step().unwrap().contacts);
        // Frame by frame: the filter appears at index 0, moves to the last body, comes back to
        // index 0, then every filter is the default again.
        for (what, filters) in [("first", &first), ("last", &last), ("first again", &first)] {
            world.set_filters(filters).unwrap();
            let want = reference::detect(&polygons, &DetectOptions::default().with_filters(filters.to_vec())).contacts;
            let report =
                validate::compare(&polygons, &world.step().unwrap().contacts, &want, &DetectOptions::default());
            assert!(report.ok(), "{what} {broad_phase:?}: {}", report.disagreements[0]);
        }
        world.set_filters(&vec![Filter::DEFAULT; n]).unwrap();
        assert_eq!(bits(&world.step().unwrap().contacts), unfiltered, "{broad_phase:?}: filters cleared");
    }
    // One body: its filter is kept and nothing collides.
    let mut one = World::from_polygons(&gpu, &polygons[..1], &WorldOptions::default()).unwrap();
    one.set_filters(&[alone]).unwrap();
    assert_eq!(one.filters(), [alone]);
    assert!(one.step().unwrap().contacts.is_empty());
}
