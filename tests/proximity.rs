//! Issue 26, neighbours within a margin: the f64 reference (`reference::detect_within`,
//! `reference::signed_distance`) against hand-computed distances, brute force over every pair,
//! and `detect` at margin 0; at 1e-30 and 1e30 scale, and with no pair in reach.

mod common;

use satgpu::gpu::{ContactDetail, World, WorldOptions};
use satgpu::reference;
use satgpu::reference::signed_distance;
use satgpu::scene::{generate, SceneKind};
use satgpu::validate;

use satgpu::DetectOptions;
use satgpu::{Body, Error, Filter, Polygon, Transform};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

fn close(x: f64, want: f64, what: &str) {
    assert!((x - want).abs() <= 1e-12 * want.abs().max(1.0), "{what}: {x} against {want}");
}

#[test]
fn distances_are_those_of_the_closed_shapes() {
    let unit = rect(0.0, 0.0, 1.0, 1.0);
    let cases: [(&str, Polygon, f64, [f64; 2]); 6] = [
        ("face to face", rect(3.0, 0.0, 4.0, 1.0), 2.0, [1.0, 0.0]),
        ("corner to corner", rect(2.0, 2.0, 3.0, 3.0), 2f64.sqrt(), [0.5f64.sqrt(), 0.5f64.sqrt()]),
        ("touching", rect(1.0, 0.5, 2.0, 1.5), 0.0, [1.0, 0.0]),
        ("overlapping by 0.25", rect(0.75, 0.0, 1.75, 1.0), -0.25, [1.0, 0.0]),
        ("a circle above", Polygon::circle([0.5, 4.0], 1.0).unwrap(), 2.0, [0.0, 1.0]),
        ("a capsule beside", Polygon::capsule([5.0, 0.0], [5.0, 1.0], 0.5).unwrap(), 3.5, [1.0, 0.0]),
    ];
    for (what, other, want, normal) in cases {
        let (n, d) = signed_distance(&unit, &other);
        close(d, want, what);
        close(n[0], normal[0], what);
        close(n[1], normal[1], what);
        // Reported within a margin of at least the distance, and not under it.
        let pair = [unit.clone(), other.clone()];
        let got = reference::detect(&pair, &DetectOptions::default().with_margin(want.max(0.0))).contacts;
        assert_eq!(got.len(), 1, "{what}");
        assert_eq!((got[0].a, got[0].b), (0, 1));
        close(got[0].depth, -want, what);
        if want > 0.0 {
            assert!(
                reference::detect(&pair, &DetectOptions::default().with_margin(want * (1.0 - 1e-9)))
                    .contacts
                    .is_empty(),
                "{what} under its distance"
            );
        }
    }
    // Two circles: centres 5 apart, radii 1 and 2.
    let (n, d) =
        signed_distance(&Polygon::circle([0.0, 0.0], 1.0).unwrap(), &Polygon::circle([3.0, 4.0], 2.0).unwrap());
    close(d, 2.0, "circles");
    close(n[0], 0.6, "circles");
    close(n[1], 0.8, "circles");
}

/// Every pair of `polygons` at most `margin` apart, by brute force over all pairs.
fn brute(polygons: &[Polygon], margin: f64) -> Vec<(u32, u32)> {
    let mut out = vec![];
    for i in 0..polygons.len() {
        for j in i + 1..polygons.len() {
            if signed_distance(&polygons[i], &polygons[j]).1 <= margin {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

#[test]
fn every_pair_within_the_margin_and_margin_zero_is_detect() {
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 200, 6);
        let exact = reference::detect(&polygons, &DetectOptions::default()).contacts;
        let zero = reference::detect(&polygons, &DetectOptions::default()).contacts;
        assert_eq!(format!("{zero:?}"), format!("{exact:?}"), "{kind}: margin 0 is detect, bit for bit");
        // A margin of about one typical body, and a tenth of it.
        let size: f64 = polygons.iter().map(|p| p.aabb().max[0] - p.aabb().min[0]).sum::<f64>() / 200.0;
        for margin in [0.1 * size, size] {
            let got = reference::detect(&polygons, &DetectOptions::default().with_margin(margin)).contacts;
            let pairs: Vec<(u32, u32)> = got.iter().map(|c| (c.a, c.b)).collect();
            assert_eq!(pairs, brute(&polygons, margin), "{kind}, margin {margin}");
            assert!(got.len() >= exact.len(), "{kind}");
            for c in &got {
                assert!(c.depth >= -margin && c.depth.is_finite(), "{kind}: {c:?}");
                assert!((c.normal[0].hypot(c.normal[1]) - 1.0).abs() < 1e-9, "{kind}: {c:?}");
                // The colliding ones are detect's, unchanged.
                if let Ok(k) = exact.binary_search_by_key(&(c.a, c.b), |e| (e.a, e.b)) {
                    assert_eq!(format!("{c:?}"), format!("{:?}", exact[k]), "{kind}");
                } else {
                    assert!(c.depth <= 0.0, "{kind}: a pair apart with depth {}", c.depth);
                }
            }
            if kind != SceneKind::Pile && kind != SceneKind::Grid {
                assert!(got.len() > exact.len(), "{kind}, margin {margin}: no pair apart in reach");
            }
        }
    }
}

#[test]
fn margins_at_every_scale_filters_and_no_neighbours() {
    // The face-to-face and corner cases at 1e-30 and 1e30: the distance scales with them.
    for scale in [1e-30, 1e30] {
        let s = |p: Polygon| {
            let v: Vec<[f64; 2]> = p.vertices().iter().map(|v| [v[0] * scale, v[1] * scale]).collect();
            Polygon::new(v).unwrap()
        };
        let shapes = [s(rect(0.0, 0.0, 1.0, 1.0)), s(rect(3.0, 0.0, 4.0, 1.0)), s(rect(2.0, 2.0, 3.0, 3.0))];
        // Scaled coordinates are rounded: margins a relative 1e-12 past the distances.
        let got =
            reference::detect(&shapes, &DetectOptions::default().with_margin(2.0 * scale * (1.0 + 1e-12))).contacts;
        let found: Vec<(u32, u32)> = got.iter().map(|c| (c.a, c.b)).collect();
        assert_eq!(found, [(0, 1), (0, 2), (1, 2)], "scale {scale}");
        close(got[0].depth / scale, -2.0, "face to face");
        close(got[1].depth / scale, -(2f64.sqrt()), "corner to corner");
        let near = reference::detect(&shapes, &DetectOptions::default().with_margin(scale * (1.0 + 1e-12))).contacts;
        assert_eq!(near.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>(), [(1, 2)], "scale {scale}");
    }
    // Far apart: nothing within reach; none, one and no polygons.
    let far: Vec<Polygon> = (0..50)
        .map(|i| rect(0.0, 0.0, 1.0, 1.0).transformed(&Transform { x: 10.0 * i as f64, y: 0.0, angle: 0.0 }))
        .collect();
    assert!(reference::detect(&far, &DetectOptions::default().with_margin(8.999)).contacts.is_empty());
    assert_eq!(reference::detect(&far, &DetectOptions::default().with_margin(9.0)).contacts.len(), 49);
    assert!(reference::detect(&far[..1], &DetectOptions::default().with_margin(1e6)).contacts.is_empty());
    assert!(reference::detect::<Polygon>(&[], &DetectOptions::default().with_margin(1.0)).contacts.is_empty());
    // Filters exclude pairs within the margin as they exclude colliding ones: on the first body.
    let mut filters = vec![Filter::DEFAULT; 50];
    filters[0] = Filter { group: -1, ..Filter::DEFAULT };
    filters[1] = Filter { group: -1, ..Filter::DEFAULT };
    let got =
        reference::detect(&far, &DetectOptions::default().with_filters(filters.to_vec()).with_margin(9.0)).contacts;
    assert_eq!(got.len(), 48);
    assert!(got.iter().all(|c| (c.a, c.b) != (0, 1)));
}

#[test]
#[should_panic(expected = "the margin must be finite and at least 0")]
fn a_negative_margin_is_refused() {
    reference::detect(&[rect(0.0, 0.0, 1.0, 1.0)], &DetectOptions::default().with_margin(-1.0));
}

/// The mean width of the polygons' boxes.
fn typical_size(polygons: &[Polygon]) -> f64 {
    polygons.iter().map(|p| p.aabb().max[0] - p.aabb().min[0]).sum::<f64>() / polygons.len() as f64
}

fn gpu_within(gpu: &satgpu::gpu::Gpu, polygons: &[Polygon], margin: f64) -> Vec<satgpu::Contact> {
    satgpu::gpu::detect(gpu, polygons, &DetectOptions::default().with_margin(margin)).map(|f| f.contacts).unwrap()
}

#[test]
fn gpu_pairs_within_a_margin_agree_with_the_reference() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL.into_iter().filter(|&k| k != SceneKind::Scales) {
        let polygons = generate(kind, 600, 8);
        let size = typical_size(&polygons);
        for margin in [0.05 * size, 0.5 * size] {
            let got = gpu_within(&gpu, &polygons, margin);
            let want = reference::detect(&polygons, &DetectOptions::default().with_margin(margin)).contacts;
            let report = validate::compare(&polygons, &got, &want, &DetectOptions::default().with_margin(margin));
            assert!(report.ok(), "{kind}, margin {margin}: {}", report.disagreements[0]);
            let apart = got.iter().filter(|c| c.depth < 0.0).count();
            let touching = matches!(kind, SceneKind::Pile | SceneKind::Grid); // all within reach overlap or touch
            assert!(apart > 0 || touching, "{kind}, margin {margin}: no pair apart reported");
            assert!(got.iter().all(|c| c.depth >= -margin * (1.0 + 1e-6)), "{kind}: a pair beyond the margin");
        }
    }
    // The same scene at 1e-30 and 1e30 scale, with the margin scaled with it.
    let crowd = generate(SceneKind::Crowd, 600, 9);
    let size = typical_size(&crowd);
    for scale in [1e-30, 1e30] {
        let scaled: Vec<Polygon> = crowd
            .iter()
            .map(|p| Polygon::new(p.vertices().iter().map(|v| [v[0] * scale, v[1] * scale]).collect()).unwrap())
            .collect();
        let margin = 0.3 * size * scale;
        let got = gpu_within(&gpu, &scaled, margin);
        let want = reference::detect(&scaled, &DetectOptions::default().with_margin(margin)).contacts;
        let report = validate::compare(&scaled, &got, &want, &DetectOptions::default().with_margin(margin));
        assert!(report.ok(), "scale {scale}: {}", report.disagreements[0]);
        assert!(want.iter().any(|c| c.depth < 0.0), "scale {scale}");
    }
    // Shapes far apart: none within the margin; and a margin past all of them finds every pair.
    let far: Vec<Polygon> = (0..40)
        .map(|i| rect(0.0, 0.0, 1.0, 1.0).transformed(&Transform { x: 10.0 * i as f64, y: 0.0, angle: 0.0 }))
        .collect();
    assert!(gpu_within(&gpu, &far, 8.5).is_empty());
    let all = gpu_within(&gpu, &far, 400.0);
    assert_eq!(all.len(), 40 * 39 / 2);
    let report = validate::compare(
        &far,
        &all,
        &reference::detect(&far, &DetectOptions::default().with_margin(400.0)).contacts,
        &DetectOptions::default().with_margin(400.0),
    );
    assert!(report.ok(), "{}", report.disagreements[0]);
    // Filters on the first two bodies keep their pair out, within the margin as in contact.
    let mut filters = vec![Filter::DEFAULT; far.len()];
    filters[0].group = -1;
    filters[1].group = -1;
    let got =
        satgpu::gpu::detect(&gpu, &far, &DetectOptions::default().with_filters(filters.to_vec()).with_margin(10.0))
            .map(|f| f.contacts)
            .unwrap();
    let want =
        reference::detect(&far, &DetectOptions::default().with_filters(filters.to_vec()).with_margin(10.0)).contacts;
    assert_eq!(got.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>(), want.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>());
    assert!(want.len() == 38 && want.iter().all(|c| (c.a, c.b) != (0, 1)), "{} pairs", want.len());
}

#[test]
fn margin_zero_is_todays_output_and_bad_margins_are_refused() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Shapes, 800, 3);
    let today = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap().step().unwrap();
    assert_eq!(common::bits(&gpu_within(&gpu, &polygons, 0.0)), common::bits(&today.contacts));
    for bad in [-1.0, f64::NAN, f64::INFINITY, 1e39] {
        match World::from_polygons(&gpu, &polygons, &WorldOptions::default().with_margin(bad)) {
            Err(Error::InvalidSetting { what: "margin", .. }) => {}
            other => panic!("margin {bad}: expected InvalidSetting, got {:?}", other.map(|w| w.len())),
        }
    }
}

/// With `ContactDetail::Full` under a margin, pairs apart get the points midway between their
/// closest features with negative depths: by hand, then on every kind against the reference
/// (`validate::compare_manifolds_within`), and switched on later by `set_contact_detail`.
#[test]
fn closest_points_of_pairs_apart() {
    let gpu = common::gpu();
    let full = WorldOptions::default().with_margin(1.0).with_contact_detail(ContactDetail::Full);
    // Faces 0.5 apart along x: two points at x = 1.25, the ends of the facing edges.
    let boxes = [rect(0.0, 0.0, 1.0, 1.0), rect(1.5, 0.0, 2.5, 1.0)];
    // Corners sqrt(0.5) apart diagonally, and a circle 0.5 above a box.
    let corners = [rect(0.0, 0.0, 1.0, 1.0), rect(1.5, 1.5, 2.5, 2.5)];
    let circle = [rect(0.0, 0.0, 1.0, 1.0), Polygon::circle([0.5, 2.0], 0.5).unwrap()];
    // Each case: its name, its shapes, and the points (x, y, depth) wanted.
    type Case<'a> = (&'a str, &'a [Polygon], Vec<[f64; 3]>);
    let cases: [Case; 3] = [
        ("faces", &boxes, vec![[1.25, 0.0, -0.5], [1.25, 1.0, -0.5]]),
        ("corners", &corners, vec![[1.25, 1.25, -0.5f64.sqrt()]]),
        ("a circle", &circle, vec![[0.5, 1.25, -0.5]]),
    ];
    for (what, polygons, want) in cases {
        let frame = World::from_polygons(&gpu, polygons, &full).unwrap().step().unwrap();
        assert_eq!(frame.contacts.len(), 1, "{what}");
        let points = frame.manifolds[0].points();
        assert_eq!(points.len(), want.len(), "{what}: {points:?}");
        for w in &want {
            let near = |p: &satgpu::ContactPoint| (p.point[0] - w[0]).hypot(p.point[1] - w[1]) < 1e-6;
            assert!(points.iter().any(|p| near(p) && (p.depth - w[2]).abs() < 1e-6), "{what}: {points:?} for {w:?}");
        }
        let (_, reference) = {
            let d = reference::detect(
                polygons,
                &DetectOptions::default().with_margin(1.0).with_contact_detail(ContactDetail::Full),
            );
            (d.contacts, d.manifolds)
        };
        assert_eq!(reference[0].points().len(), want.len(), "{what}: the reference's {:?}", reference[0]);
    }
    for kind in [SceneKind::Crowd, SceneKind::Round, SceneKind::Shapes, SceneKind::Grid, SceneKind::Mixed] {
        let polygons = generate(kind, 700, 6);
        let width = polygons.iter().map(|p| p.aabb().max[0] - p.aabb().min[0]).sum::<f64>() / polygons.len() as f64;
        // The grid's shapes touch or lie whole units apart.
        let margin = if kind == SceneKind::Grid { 1.5 } else { 0.5 } * width;
        let options = WorldOptions::default().with_margin(margin).with_contact_detail(ContactDetail::Full);
        let frame = World::from_polygons(&gpu, &polygons, &options).unwrap().step().unwrap();
        let (want, _) = {
            let d = reference::detect(
                &polygons,
                &DetectOptions::default().with_margin(margin).with_contact_detail(ContactDetail::Full),
            );
            (d.contacts, d.manifolds)
        };
        let report =
            validate::compare(&polygons, &frame.contacts, &want, &DetectOptions::default().with_margin(margin));
        assert!(report.ok(), "{kind:?}: {:?}", report.disagreements.first());
        let wrong = satgpu::validate::compare_manifolds(
            &polygons,
            &frame.contacts,
            &[],
            &frame.manifolds,
            &DetectOptions::default().with_margin(margin),
        );
        assert!(wrong.is_empty(), "{kind:?}: {} wrong manifolds, first {:?}", wrong.len(), wrong.first());
        let apart = frame.manifolds.iter().filter(|m| m.points().iter().any(|p| p.depth < 0.0)).count();
        assert!(apart > 50, "{kind:?}: {apart} manifolds of pairs apart");
        // Switched on later, the same manifolds.
        let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default().with_margin(margin)).unwrap();
        world.set_contact_detail(ContactDetail::Full).unwrap();
        assert_eq!(world.step().unwrap().manifolds, frame.manifolds, "{kind:?}");
    }
    // Compound bodies: each pair's manifold is its least separated part pair's.
    let bodies: Vec<Body> = generate(SceneKind::Shapes, 300, 3).into_iter().map(Body::from).collect();
    let frame = World::from_bodies(&gpu, &bodies, &full).unwrap().step().unwrap();
    assert_eq!(frame.manifolds.len(), frame.contacts.len());
}

/// Compound bodies within a margin: each pair of bodies at most the margin apart once, with its
/// least separated part pair, as the reference finds them, on the GPU's reduction (where it
/// orders) and the host's; margin 0 is the plain compound detection bit for bit; one part per
/// body is the plain margin detection bit for bit.
#[test]
fn compound_bodies_within_a_margin() {
    let gpu = common::gpu();
    let bodies = satgpu::scene::generate_bodies(SceneKind::Rooms, 1500, 4);
    let today = World::from_bodies(&gpu, &bodies, &WorldOptions::default()).unwrap().step().unwrap();
    let zero = satgpu::gpu::detect(&gpu, &bodies, &DetectOptions::default()).unwrap();
    assert_eq!(common::bits(&zero.contacts), common::bits(&today.contacts));
    for margin in [0.05, 0.4] {
        let want = satgpu::reference::detect(&bodies, &DetectOptions::default().with_margin(margin)).contacts;
        assert!(want.iter().any(|c| c.depth < 0.0), "margin {margin}: no pair apart");
        for order in [satgpu::gpu::ContactOrder::Gpu, satgpu::gpu::ContactOrder::Host] {
            let options = WorldOptions::default().with_margin(margin).with_order(order);
            let frame = World::from_bodies(&gpu, &bodies, &options).unwrap().step().unwrap();
            let report = satgpu::validate::compare(
                &bodies,
                &frame.contacts,
                &want,
                &DetectOptions::default().with_margin(margin),
            );
            assert!(report.ok(), "margin {margin}, {order:?}: {:?}", report.disagreements.first());
            assert!(frame.contacts.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)), "one pair of bodies once");
            assert!(frame.contacts.iter().all(|c| c.depth >= -margin * (1.0 + 1e-6)));
        }
        // One part per body: the plain margin detection.
        let single: Vec<Body> = generate(SceneKind::Shapes, 600, 2).into_iter().map(Body::from).collect();
        let plain: Vec<Polygon> = single.iter().map(|c| c.shapes()[0].clone()).collect();
        let got = satgpu::gpu::detect(&gpu, &single, &DetectOptions::default().with_margin(margin)).unwrap();
        assert_eq!(common::bits(&got.contacts), common::bits(&gpu_within(&gpu, &plain, margin)));
    }
}

#[path = "../examples/social_force.rs"]
mod social_force;

/// The social-force example: its own pass reads the neighbours within two radii from
/// `contacts_buffer` on the GPU; the forces of its first frame are those the f64 reference's
/// neighbours give (every pair at most the margin apart, with its distance and direction), the
/// overlaps shrink, and two runs end in the same positions.
#[test]
fn a_social_force_step_reads_the_neighbours_from_the_gpu() {
    let gpu = common::gpu();
    let n = 1500;
    let s = social_force::run(&gpu, n, 30).unwrap();
    let polygons: Vec<Polygon> =
        s.start.iter().map(|t| Polygon::circle([t.x, t.y], social_force::RADIUS).unwrap()).collect();
    let neighbours = reference::detect(&polygons, &DetectOptions::default().with_margin(social_force::MARGIN)).contacts;
    assert!(neighbours.iter().filter(|c| c.depth < 0.0).count() > n / 4, "few neighbours apart");
    let (a, b, m) = (social_force::A, social_force::B, social_force::MARGIN);
    let repulsion = |d: f64| a * ((-d / b).exp() - (-m / b).exp()).max(0.0) + social_force::K * (-d).max(0.0);
    let scale = s.start.iter().map(|t| t.x.abs().max(t.y.abs())).fold(1.0, f64::max);
    let mut want = vec![[0.0f64; 2]; n];
    let mut slack = vec![0.0f64; n];
    for c in &neighbours {
        let f = repulsion(-c.depth);
        for (i, sign) in [(c.a as usize, -1.0), (c.b as usize, 1.0)] {
            want[i][0] += sign * c.normal[0] * f;
            want[i][1] += sign * c.normal[1] * f;
            // Rounding to 1/4096 per pair; f32 (relative 1e-4 covers the exponential); and the
            // direction between centres `centres` apart, known to f32 at the scene's scale.
            let centres = 2.0 * social_force::RADIUS - c.depth;
            let direction = 8.0 * f64::from(f32::EPSILON) * scale / centres.max(1e-9);
            slack[i] += 1.0 / 4096.0 + (1e-4 + direction) * f.abs();
        }
    }
    let mut pushed_apart_only = 0;
    for i in 0..n {
        let got = s.first_forces[i];
        for k in 0..2 {
            let off = (f64::from(got[k]) - want[i][k]).abs();
            assert!(off <= slack[i] + 1e-6, "agent {i}: force {got:?}, reference {:?} (slack {})", want[i], slack[i]);
        }
        let mine = neighbours.iter().filter(|c| c.a as usize == i || c.b as usize == i);
        if mine.clone().count() > 0 && mine.clone().all(|c| c.depth < 0.0) && want[i][0].hypot(want[i][1]) > 0.01 {
            pushed_apart_only += 1;
        }
    }
    assert!(pushed_apart_only > n / 10, "only {pushed_apart_only} agents pushed by neighbours apart alone");
    assert!(s.depth.1 < s.depth.0, "overlaps {} -> {}", s.depth.0, s.depth.1);
    let again = social_force::run(&gpu, n, 30).unwrap();
    let bits = |p: &[[f32; 2]]| p.iter().map(|q| (q[0].to_bits(), q[1].to_bits())).collect::<Vec<_>>();
    assert_eq!(bits(&s.positions), bits(&again.positions), "two runs moved the agents differently");
}

/// A margin in a frame that runs in batches (more candidates than one binding holds): the same
/// pairs, bit for bit, as in one batch.
#[test]
fn a_margin_in_batches_gives_the_same_pairs() {
    let lock = common::gpu();
    let small = common::small_device();
    // A pile of 400 squares within reach of each other: about 80,000 candidates.
    let polygons: Vec<Polygon> = (0..400)
        .map(|i| {
            rect((i % 20) as f64 * 0.3, (i / 20) as f64 * 0.3, (i % 20) as f64 * 0.3 + 1.0, (i / 20) as f64 * 0.3 + 1.0)
        })
        .collect();
    let options = WorldOptions::default().with_margin(1.5);
    let want = World::from_polygons(&lock, &polygons, &options).unwrap().step().unwrap();
    let frame = World::from_polygons(&small, &polygons, &options).unwrap().step().unwrap();
    assert!(frame.stats.batches > 1, "{} candidates ran in one batch", frame.stats.candidates);
    assert!(frame.contacts.iter().any(|c| c.depth < 0.0));
    assert_eq!(common::bits(&frame.contacts), common::bits(&want.contacts));
    let report = validate::compare(
        &polygons,
        &frame.contacts,
        &reference::detect(&polygons, &DetectOptions::default().with_margin(1.5)).contacts,
        &DetectOptions::default().with_margin(1.5),
    );
    assert!(report.ok(), "{:?}", report.disagreements.first());
}
