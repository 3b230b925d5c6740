//! Issue 25: compound bodies in the reference and the validator. Pairs are between bodies; a
//! pair carries its deepest part pair's normal and depth; parts of one body never collide; a
//! body's filter applies to all its parts; one part per body is the plain reference.

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use satgpu::geometry::MAX_PARTS;
use satgpu::gpu::{self, ContactDetail, ContactOrder, World, WorldOptions};
use satgpu::{reference, validate};

use satgpu::scene::{generate, SceneKind};

use satgpu::DetectOptions;
use satgpu::{Body, Contact, Error, Filter, Polygon, PolygonError, Transform};
use std::f64::consts::TAU;

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

/// An L: a 4 x 1 foot along y = 0 and a 1 x 4 upright at x = 0, as a concave outline.
fn ell(x: f64, y: f64) -> Body {
    Body::concave(&[[x, y], [x + 4.0, y], [x + 4.0, y + 1.0], [x + 1.0, y + 1.0], [x + 1.0, y + 4.0], [x, y + 4.0]])
        .unwrap()
}

/// The reference's pairs of `bodies`, each with its deepest shape pair.
fn deepest_shapes(bodies: &[Body]) -> Vec<(Contact, [u32; 2])> {
    let found = reference::detect(bodies, &DetectOptions::default());
    found.contacts.into_iter().zip(found.shapes).collect()
}

#[test]
fn compounds_are_made_from_parts_or_outlines() {
    assert_eq!(Body::new(vec![]), Err(PolygonError::NoParts));
    let many = vec![rect(0.0, 0.0, 1.0, 1.0); MAX_PARTS + 1];
    assert_eq!(Body::new(many), Err(PolygonError::TooManyParts { count: MAX_PARTS + 1, max: MAX_PARTS }));
    let l = ell(0.0, 0.0);
    assert_eq!(l.shapes().len(), 2);
    let aabb = l.aabb();
    assert_eq!((aabb.min, aabb.max), ([0.0, 0.0], [4.0, 4.0]));
    let moved = l.transformed(&Transform { x: 10.0, y: -1.0, angle: 0.0 });
    assert_eq!((moved.aabb().min, moved.aabb().max), ([10.0, -1.0], [14.0, 3.0]));
    let one: Body = rect(0.0, 0.0, 1.0, 1.0).into();
    assert_eq!(one.shapes().len(), 1);
    let mixed = Body::new(vec![
        Polygon::circle([0.0, 0.0], 1.0).unwrap(),
        Polygon::capsule([0.0, 0.0], [3.0, 0.0], 0.5).unwrap(),
        Polygon::rounded(vec![[3.0, 0.0], [4.0, 0.0], [4.0, 1.0]], 0.1).unwrap(),
    ])
    .unwrap();
    assert_eq!(mixed.into_shapes().len(), 3);
}

#[test]
fn a_pair_of_bodies_carries_its_deepest_part_pair() {
    // A square over the L's corner: 0.25 into the foot's top, 0.5 into the upright's side.
    let bodies = vec![ell(0.0, 0.0), Body::from(rect(0.5, 0.75, 1.75, 1.5)), Body::from(rect(9.0, 9.0, 10.0, 10.0))];
    let got = deepest_shapes(&bodies);
    assert_eq!(got.len(), 1, "{got:?}");
    let (c, parts) = &got[0];
    assert_eq!((c.a, c.b), (0, 1));
    // The deepest part pair is the one the square enters least shallowly: the reference's
    // depth of that part pair, and no other.
    let (depths, best): (Vec<f64>, _) = {
        let l = &bodies[0];
        let d: Vec<f64> = l
            .shapes()
            .iter()
            .map(|p| satgpu::reference::contact(p, &bodies[1].shapes()[0]).map_or(f64::NEG_INFINITY, |c| c.1))
            .collect();
        let best = (0..d.len()).max_by(|&i, &j| d[i].total_cmp(&d[j]).then(j.cmp(&i))).unwrap();
        (d, best)
    };
    assert!(depths.iter().filter(|d| d.is_finite()).count() == 2, "the square meets both parts: {depths:?}");
    assert_eq!(c.depth, depths[best]);
    assert_eq!(*parts, [best as u32, 0]);
}

#[test]
fn parts_of_one_body_never_collide_and_filters_cover_every_part() {
    // One body of two overlapping squares, another far away: no pair.
    let overlapping = Body::new(vec![rect(0.0, 0.0, 2.0, 2.0), rect(1.0, 1.0, 3.0, 3.0)]).unwrap();
    let bodies = vec![overlapping.clone(), Body::from(rect(10.0, 0.0, 11.0, 1.0))];
    assert!(reference::detect(&bodies, &DetectOptions::default()).contacts.is_empty());
    // A third body touching the second part of the first: one pair, unless filtered out.
    let bodies = vec![overlapping, Body::from(rect(10.0, 0.0, 11.0, 1.0)), Body::from(rect(2.5, 2.5, 4.0, 4.0))];
    let pairs: Vec<(u32, u32)> =
        reference::detect(&bodies, &DetectOptions::default()).contacts.iter().map(|c| (c.a, c.b)).collect();
    assert_eq!(pairs, [(0, 2)]);
    let mut filters = [Filter::DEFAULT; 3];
    filters[0].mask = 0; // the first body, all of its parts
    assert!(reference::detect(&bodies, &DetectOptions::default().with_filters(filters.to_vec())).contacts.is_empty());
}

#[test]
fn one_part_per_body_is_the_plain_reference() {
    for kind in [SceneKind::Crowd, SceneKind::Shapes, SceneKind::Grid] {
        let polygons = generate(kind, 3000, 2);
        let bodies: Vec<Body> = polygons.iter().cloned().map(Body::from).collect();
        let mut filters = vec![Filter::DEFAULT; polygons.len()];
        filters[0].group = -1;
        filters[1].group = -1;
        let want = reference::detect(&polygons, &DetectOptions::default().with_filters(filters.to_vec())).contacts;
        assert!(want.len() > 100, "{kind}");
        assert_eq!(
            reference::detect(&bodies, &DetectOptions::default().with_filters(filters.to_vec())).contacts,
            want,
            "{kind}"
        );
    }
}

/// Random bodies of one to four parts (generated crowd polygons grouped in runs), moved apart.
fn random_bodies(n: usize, seed: u64) -> Vec<Body> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let polygons = generate(SceneKind::Shapes, 4 * n, seed);
    let mut parts = polygons.into_iter();
    (0..n)
        .map(|_| {
            let k = rng.random_range(1..=4);
            Body::new(parts.by_ref().take(k).collect()).unwrap()
        })
        .collect()
}

#[test]
fn the_validator_accepts_the_reference_and_catches_wrong_answers() {
    let bodies = random_bodies(1500, 3);
    let want = reference::detect(&bodies, &DetectOptions::default()).contacts;
    assert!(want.len() > 100, "{} pairs", want.len());
    let report = validate::compare(&bodies, &want, &want, &DetectOptions::default());
    assert!(report.ok() && report.in_band == 0, "{:?}", report.disagreements.first());
    // A missing pair, a wrong depth, a turned normal and an invented pair are each caught.
    let first = want[0];
    let wrong: [(&str, Vec<Contact>); 4] = [
        ("missing", want[1..].to_vec()),
        (
            "depth",
            [Contact { depth: first.depth + 0.1, ..first }].into_iter().chain(want[1..].iter().copied()).collect(),
        ),
        ("normal", {
            let mut w = want.clone();
            w[0].normal = [-first.normal[1], first.normal[0]];
            w
        }),
        ("invented", {
            let mut w = want.clone();
            let far = (1..bodies.len() as u32).rev().find(|&b| !want.iter().any(|c| (c.a, c.b) == (0, b))).unwrap();
            w.push(Contact { a: 0, b: far, normal: [1.0, 0.0], depth: 0.5 });
            w.sort_by_key(|c| (c.a, c.b));
            w
        }),
    ];
    for (what, contacts) in wrong {
        assert!(!validate::compare(&bodies, &contacts, &want, &DetectOptions::default()).ok(), "{what} not caught");
    }
}

/// A concave outline star-shaped about its centre: `k` points, every other one pulled in.
fn star_outline(k: usize, inner: f64, size: f64) -> Vec<[f64; 2]> {
    (0..k)
        .map(|i| {
            let (a, r) = (i as f64 * TAU / k as f64, if i % 2 == 0 { size } else { size * inner });
            [r * a.cos(), r * a.sin()]
        })
        .collect()
}

#[test]
fn gpu_compound_pairs_agree_with_the_reference() {
    let gpu = common::gpu();
    let bodies = random_bodies(3000, 4);
    let want = reference::detect(&bodies, &DetectOptions::default()).contacts;
    assert!(want.len() > 200, "{} pairs", want.len());
    let frame = gpu::detect(&gpu, &bodies, &DetectOptions::default()).unwrap();
    let report = validate::compare(&bodies, &frame.contacts, &want, &DetectOptions::default());
    assert!(report.ok(), "{}", report.disagreements[0]);
    assert_eq!(frame.shapes.len(), frame.contacts.len());
    assert_eq!(frame.stats.colliding, frame.contacts.len() as u64);
    // Where the deepest part pair is clear, the GPU names the reference's.
    let parts = deepest_shapes(&bodies);
    let mut same = 0;
    for (c, p) in frame.contacts.iter().zip(&frame.shapes) {
        if let Ok(i) = parts.binary_search_by_key(&(c.a, c.b), |(r, _)| (r.a, r.b)) {
            same += usize::from(parts[i].1 == *p);
        }
    }
    assert!(same * 10 >= frame.contacts.len() * 9, "{same} of {} part pairs match", frame.contacts.len());
    // One part per body is the plain world's frame.
    let polygons = generate(SceneKind::Shapes, 2000, 5);
    let singles: Vec<Body> = polygons.iter().cloned().map(Body::from).collect();
    let plain = satgpu::gpu::detect(&gpu, &polygons, &DetectOptions::default()).map(|f| f.contacts).unwrap();
    let compound = gpu::detect(&gpu, &singles, &DetectOptions::default()).unwrap();
    assert_eq!(common::bits(&compound.contacts), common::bits(&plain));
    assert!(compound.shapes.is_empty(), "bodies of one shape name no shape pairs");
    // Bodies as any list of shapes: a body of none is refused by index, not skipped.
    let lists: Vec<Vec<Polygon>> = vec![vec![rect(0.0, 0.0, 1.0, 1.0)], vec![], vec![rect(0.5, 0.0, 1.5, 1.0)]];
    match gpu::detect(&gpu, &lists, &DetectOptions::default()) {
        Err(Error::InvalidPolygon { index: 1, reason: PolygonError::NoParts }) => {}
        other => panic!("a body of no shapes: {:?}", other.map(|f| f.contacts)),
    }
    let lists = [lists[0].clone(), lists[2].clone(), vec![rect(5.0, 5.0, 6.0, 6.0), rect(5.5, 5.0, 6.5, 6.0)]];
    let frame = gpu::detect(&gpu, &lists, &DetectOptions::default()).unwrap();
    assert_eq!((frame.contacts.len(), frame.shapes.as_slice()), (1, &[[0, 0]][..]));
}

#[test]
fn a_world_of_concave_bodies_follows_its_transforms() {
    let gpu = common::gpu();
    concave_bodies_follow_their_transforms(&gpu);
    // The tuning for GPUs, and the narrow phase's pruned walk on every pair: the H200, which
    // then pruned every pair, reported a pair too deep here (the walk over a 12-vertex part, an
    // arc of the 60-point star, against a triangle started inside its arc and stopped early).
    concave_bodies_follow_their_transforms(&common::gpu_tuned_for_gpus());
    concave_bodies_follow_their_transforms(&common::gpu_pruning_every_pair());
}

fn concave_bodies_follow_their_transforms(gpu: &satgpu::gpu::Gpu) {
    let shapes = vec![
        Body::concave(&star_outline(10, 0.4, 1.2)).unwrap(),
        ell(-2.0, -2.0),
        Body::new(vec![
            Polygon::circle([0.0, 0.0], 0.5).unwrap(),
            Polygon::capsule([0.0, 0.0], [1.5, 0.0], 0.2).unwrap(),
            Polygon::rounded(vec![[-1.0, -0.3], [-0.4, -0.3], [-0.4, 0.3]], 0.1).unwrap(),
        ])
        .unwrap(),
        Body::concave(&star_outline(60, 0.8, 1.0)).unwrap(),
    ];
    assert!(shapes[0].shapes().len() >= 3 && shapes[3].shapes().len() >= 3);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let n = 1500;
    let body_shapes: Vec<u32> = (0..n).map(|_| rng.random_range(0..shapes.len() as u32)).collect();
    let options = WorldOptions::default().with_contact_detail(ContactDetail::Full);
    let mut world = World::new(gpu, &shapes, &body_shapes, &options).unwrap();
    assert_eq!((world.len(), world.is_empty()), (n, false));
    // The same world with the deepest part pairs kept on the GPU (where it orders).
    let mut on_gpu = World::new(gpu, &shapes, &body_shapes, &options.clone().with_order(ContactOrder::Gpu)).unwrap();
    let side = (n as f64).sqrt() * 2.6;
    let mut total = 0;
    for frame in 0..3 {
        let transforms: Vec<Transform> = (0..n)
            .map(|_| Transform {
                x: rng.random_range(0.0..side),
                y: rng.random_range(0.0..side),
                angle: rng.random_range(0.0..TAU),
            })
            .collect();
        world.set_transforms(&transforms).unwrap();
        let got = world.step().unwrap();
        on_gpu.set_transforms(&transforms).unwrap();
        let reduced = on_gpu.step().unwrap();
        assert_eq!(common::bits(&reduced.contacts), common::bits(&got.contacts), "frame {frame}: reduced on the GPU");
        assert_eq!((&reduced.shapes, &reduced.manifolds), (&got.shapes, &got.manifolds), "frame {frame}");
        // The same poses as separate arrays give the same frame.
        let xy: Vec<[f64; 2]> = transforms.iter().map(|t| [t.x, t.y]).collect();
        let angle: Vec<f64> = transforms.iter().map(|t| t.angle).collect();
        world.set_pose_arrays(satgpu::gpu::PoseArrays { xy: &xy, angle: &angle }).unwrap();
        assert_eq!(common::bits(&world.step().unwrap().contacts), common::bits(&got.contacts), "pose arrays");
        let placed: Vec<Body> =
            body_shapes.iter().zip(&transforms).map(|(&s, t)| shapes[s as usize].transformed(t)).collect();
        let want = reference::detect(&placed, &DetectOptions::default()).contacts;
        let report = validate::compare(&placed, &got.contacts, &want, &DetectOptions::default());
        assert!(report.ok(), "frame {frame}: {}", report.disagreements[0]);
        assert_eq!(got.manifolds.len(), got.contacts.len());
        // Each manifold is its part pair's, checked as the plain world's are.
        for ((c, p), m) in got.contacts.iter().zip(&got.shapes).zip(&got.manifolds).take(200) {
            let (pa, pb) =
                (&placed[c.a as usize].shapes()[p[0] as usize], &placed[c.b as usize].shapes()[p[1] as usize]);
            if let Some(problem) = satgpu::validate::check_manifold(pa, pb, c, m) {
                panic!("frame {frame}, pair ({}, {}): {problem}", c.a, c.b);
            }
        }
        total += got.contacts.len();
    }
    assert!(total > 300, "{total} pairs");
}

#[test]
fn compound_worlds_filter_every_part_and_refuse_bad_input_by_body() {
    let gpu = common::gpu();
    // Three L's overlapping in a row; the first and the last filtered out in turn.
    let bodies: Vec<Body> = (0..3).map(|i| ell(i as f64 * 3.0, 0.0)).collect();
    let mut world = World::from_bodies(&gpu, &bodies, &WorldOptions::default()).unwrap();
    let pairs =
        |world: &mut World| -> Vec<(u32, u32)> { world.step().unwrap().contacts.iter().map(|c| (c.a, c.b)).collect() };
    assert_eq!(pairs(&mut world), [(0, 1), (1, 2)]);
    let mut filters = vec![Filter::DEFAULT; 3];
    filters[0].mask = 0;
    world.set_filters(&filters).unwrap();
    assert_eq!(pairs(&mut world), [(1, 2)]);
    filters[0].mask = u32::MAX;
    filters[2].group = -4;
    filters[1].group = -4;
    world.set_filters(&filters).unwrap();
    assert_eq!(pairs(&mut world), [(0, 1)]);
    assert!(matches!(world.set_filters(&filters[..2]), Err(Error::FilterCount { got: 2, expected: 3 })));
    let mut transforms = vec![Transform::IDENTITY; 3];
    transforms[2].x = f64::NAN;
    assert!(matches!(world.set_transforms(&transforms), Err(Error::NonFiniteTransform { body: 2, .. })));
    transforms[2].x = 0.0;
    transforms[0].y = 1e38;
    assert!(matches!(world.set_transforms(&transforms), Err(Error::TransformOutOfRange { body: 0, .. })));
    assert!(matches!(world.set_transforms(&transforms[1..]), Err(Error::TransformCount { got: 2, expected: 3 })));
    let angle = [0.0, 0.0, f64::NAN];
    let xy = [[0.0; 2]; 3];
    assert!(matches!(
        world.set_pose_arrays(satgpu::gpu::PoseArrays { xy: &xy, angle: &angle }),
        Err(Error::NonFiniteTransform { body: 2, .. })
    ));
    assert!(matches!(
        world.set_pose_arrays(satgpu::gpu::PoseArrays { xy: &xy[..2], angle: &angle }),
        Err(Error::TransformCount { got: 2, expected: 3 })
    ));
    world.reserve(0, 1000).unwrap();
    assert_eq!(pairs(&mut world), [(0, 1)], "a refused upload changed the frame");
    match World::new(&gpu, &bodies, &[0, 3], &WorldOptions::default()) {
        Err(Error::UnknownShape { body: 1, shape: 3, shapes: 3 }) => {}
        other => panic!("expected UnknownShape, got {:?}", other.map(|w| w.len())),
    }
    // Parts of one body never become candidates: the broad phase drops them.
    let overlapping =
        Body::new(vec![rect(0.0, 0.0, 2.0, 2.0), rect(1.0, 1.0, 3.0, 3.0), rect(0.5, 0.5, 1.5, 1.5)]).unwrap();
    let mut one = World::from_bodies(
        &gpu,
        &[overlapping.clone(), Body::from(rect(2.5, 2.5, 4.0, 4.0))],
        &WorldOptions::default(),
    )
    .unwrap();
    let frame = one.step().unwrap();
    assert_eq!(frame.contacts.len(), 1);
    assert_eq!(frame.stats.candidates, 1, "only the pair between the bodies is a candidate");
    one.set_filters(&[Filter::DEFAULT, Filter { group: 3, ..Filter::DEFAULT }]).unwrap();
    assert_eq!(one.step().unwrap().stats.candidates, 1, "new filters keep the parts apart");
    let empty = World::from_bodies::<Body>(&gpu, &[], &WorldOptions::default()).unwrap();
    assert!(empty.is_empty());
}

#[test]
fn rooms_are_walls_pillars_and_agents_and_agree_on_the_gpu() {
    use satgpu::scene::generate_bodies;
    let bodies = generate_bodies(SceneKind::Rooms, 6000, 3);
    assert_eq!(bodies.len(), 6000);
    assert_eq!(bodies, generate_bodies(SceneKind::Rooms, 6000, 3), "deterministic");
    let walls = bodies.iter().filter(|b| b.shapes().len() > 1).count();
    assert!(walls >= 10, "{walls} compound bodies");
    assert!(SceneKind::Rooms.is_compound() && !SceneKind::ALL.contains(&SceneKind::Rooms));
    assert_eq!("rooms".parse::<SceneKind>(), Ok(SceneKind::Rooms));
    // generate() gives the parts one by one.
    let parts: usize = bodies.iter().map(|b| b.shapes().len()).sum();
    assert_eq!(generate(SceneKind::Rooms, 6000, 3).len(), parts);
    let want = reference::detect(&bodies, &DetectOptions::default()).contacts;
    let walls_hit = want.iter().filter(|c| bodies[c.a as usize].shapes().len() > 1).count();
    assert!(want.len() > 1000 && walls_hit > 50, "{} pairs, {walls_hit} with a wall", want.len());
    let gpu = common::gpu();
    let got = gpu::detect(&gpu, &bodies, &DetectOptions::default()).unwrap();
    let report = validate::compare(&bodies, &got.contacts, &want, &DetectOptions::default());
    assert!(report.ok(), "{}", report.disagreements[0]);
    // The deepest part pairs kept on the GPU (where it orders) give the same bits.
    for order in [ContactOrder::Gpu, ContactOrder::Host] {
        let frame = ordered(&gpu, &bodies, order, 1024).step().unwrap();
        assert_eq!(common::bits(&frame.contacts), common::bits(&got.contacts), "{order:?}");
        assert_eq!(frame.shapes, got.shapes, "{order:?}");
    }
}

#[test]
fn every_way_of_reading_a_world_of_bodies_names_bodies() {
    let gpu = common::gpu();
    let bodies = satgpu::scene::generate_bodies(SceneKind::Rooms, 3000, 5);
    let f32_of = |records: &[gpu::GpuContact]| records.iter().map(|c| (c.a, c.b, c.depth)).collect::<Vec<_>>();
    for order in [ContactOrder::Host, ContactOrder::Gpu] {
        let options = WorldOptions::default().with_contact_detail(ContactDetail::Full).with_order(order);
        let mut world = World::from_bodies(&gpu, &bodies, &options).unwrap();
        assert_eq!(world.len(), 3000);
        assert!(world.shape_count() > 3000, "{} shapes", world.shape_count());
        let want = world.step().unwrap();
        let n = want.contacts.len();
        assert!(n > 100 && want.shapes.len() == n && want.manifolds.len() == n, "{order:?}: {n} pairs");
        assert_eq!(want.stats.colliding as usize, n);
        // Into a caller's vector: the shape pairs and manifolds beside it.
        let mut contacts = vec![];
        world.step_into(&mut contacts).unwrap();
        assert_eq!(common::bits(&contacts), common::bits(&want.contacts), "{order:?}");
        assert_eq!((world.shape_pairs(), world.manifolds()), (&want.shapes[..], &want.manifolds[..]));
        // As f32 records, copied and lent: the same pairs of bodies.
        let want_f32: Vec<_> = want.contacts.iter().map(|c| (c.a, c.b, c.depth as f32)).collect();
        let mut records = vec![];
        world.step_f32_into(&mut records).unwrap();
        assert_eq!(f32_of(&records), want_f32, "{order:?}");
        let view = world.step_view().unwrap();
        assert!(!view.is_mapped(), "pairs of shapes are named by body on the host");
        assert_eq!(
            (f32_of(&view), view.shapes(), view.manifolds()),
            (want_f32.clone(), &want.shapes[..], &want.manifolds[..])
        );
        drop(view);
        // Filters are one per body; a rebuild on another device keeps them and the bodies.
        let mut filters = vec![Filter::DEFAULT; 3000];
        let first = want.contacts[0].a as usize;
        filters[first].mask = 0;
        world.set_filters(&filters).unwrap();
        assert_eq!(world.filters(), filters.as_slice());
        let filtered = world.step().unwrap();
        assert!(filtered.contacts.iter().all(|c| c.a as usize != first && c.b as usize != first));
        assert!(filtered.contacts.len() < n);
        let mut again = world.rebuild_on(&gpu).unwrap();
        let rebuilt = again.step().unwrap();
        assert_eq!(common::bits(&rebuilt.contacts), common::bits(&filtered.contacts), "{order:?}");
        assert_eq!((again.len(), again.filters()), (3000, filters.as_slice()));
        assert_eq!(rebuilt.shapes, filtered.shapes);
        // New polygons: every body one polygon, as a world made from them (the filters kept).
        let polygons: Vec<Polygon> = bodies.iter().map(|b| b.shapes()[0].clone()).collect();
        world.set_polygons(&polygons).unwrap();
        assert_eq!((world.len(), world.shape_count(), world.filters()), (3000, 3000, filters.as_slice()));
        let mut plain = World::from_polygons(&gpu, &polygons, &options).unwrap();
        plain.set_filters(&filters).unwrap();
        let (got, want) = (world.step().unwrap(), plain.step().unwrap());
        assert_eq!(common::bits(&got.contacts), common::bits(&want.contacts), "{order:?}");
        assert!(got.shapes.is_empty());
    }
}

/// A compound world ordering its pairs as `order` says.
fn ordered(gpu: &satgpu::gpu::Gpu, bodies: &[Body], order: ContactOrder, capacity: u32) -> World {
    let options = WorldOptions::default().with_order(order).with_candidate_capacity(capacity);
    World::from_bodies(gpu, bodies, &options).unwrap()
}

#[test]
fn the_gpu_keeps_one_part_pair_per_pair_of_bodies() {
    use satgpu::gpu::testing::compound_part_pairs;
    let gpu = common::gpu();
    // Equal depths: body 0's first two parts are the same square, each overlapping body 1 as
    // deep; the first part pair is kept, on the GPU where the world orders there. Ordered on the
    // host, every colliding part pair comes back and the host keeps the same one.
    let twin = Body::new(vec![rect(0.0, 0.0, 2.0, 2.0), rect(0.0, 0.0, 2.0, 2.0), rect(5.0, 0.0, 6.0, 1.0)]).unwrap();
    // Sides of powers of two: the depths are exact in f32 on every GPU (a division or square
    // root that a GPU rounds approximately would break the tie otherwise, as NVIDIA's did).
    let two = Body::new(vec![rect(5.5, 0.5, 7.5, 1.5), rect(5.5, 0.5, 6.5, 2.5)]).unwrap();
    let bodies = [twin, Body::from(rect(1.5, 0.5, 3.0, 1.5)), two];
    let want = reference::detect(&bodies, &DetectOptions::default()).contacts;
    let mut frames = vec![];
    for (order, kept_pairs) in
        [(ContactOrder::Gpu, vec![(0, 3), (2, 4)]), (ContactOrder::Host, vec![(0, 3), (1, 3), (2, 4), (2, 5)])]
    {
        let mut world = ordered(&gpu, &bodies, order, 1024);
        let kept = compound_part_pairs(&mut world).unwrap();
        assert_eq!(kept.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>(), kept_pairs, "{order:?}");
        let frame = world.step().unwrap();
        assert_eq!(frame.shapes, [[0, 0], [2, 0]], "{order:?}");
        let report = validate::compare(&bodies, &frame.contacts, &want, &DetectOptions::default());
        assert!(report.ok(), "{order:?}: {}", report.disagreements[0]);
        frames.push(frame);
    }
    assert_eq!(common::bits(&frames[0].contacts), common::bits(&frames[1].contacts));
    // Many pairs of bodies (the table's probing), in a world that grows from 16 candidates
    // (the reduction is rebuilt with the buffers): one part pair per pair of bodies, and the
    // host ordering's frame bit for bit.
    let many = random_bodies(3000, 7);
    let want = reference::detect(&many, &DetectOptions::default()).contacts;
    let mut grown = ordered(&gpu, &many, ContactOrder::Gpu, 16);
    let kept = compound_part_pairs(&mut grown).unwrap();
    assert_eq!(kept.len(), want.len(), "part pairs kept after growth");
    let frame = grown.step().unwrap();
    assert!(frame.stats.reruns == 0 && frame.stats.candidates > 16);
    let bodies_span = frame.stats.host.iter().filter(|s| s.name == "bodies").count();
    assert_eq!(bodies_span, 1, "the host's share is a span: {:?}", frame.stats.host);
    let report = validate::compare(&many, &frame.contacts, &want, &DetectOptions::default());
    assert!(report.ok(), "{}", report.disagreements[0]);
    let host = ordered(&gpu, &many, ContactOrder::Host, 16).step().unwrap();
    assert_eq!(common::bits(&frame.contacts), common::bits(&host.contacts));
    assert_eq!(frame.shapes, host.shapes);
    // 100 bodies of three parts on one spot: 4,950 pairs of bodies, 44,550 part pairs, in
    // batches on a device whose bindings hold 1 MiB (32,768 candidates): each batch keeps one
    // part pair per pair of bodies, and the host merges them.
    let small = common::small_device();
    let pile: Vec<Body> = (0..100)
        .map(|i| {
            let x = (i % 7) as f64 * 0.01;
            Body::new(vec![
                rect(x, 0.0, x + 1.0, 1.0),
                rect(x + 0.5, 0.0, x + 1.5, 2.0),
                ell(x, 0.2).shapes()[0].clone(),
            ])
            .unwrap()
        })
        .collect();
    let want = reference::detect(&pile, &DetectOptions::default()).contacts;
    assert_eq!(want.len(), 100 * 99 / 2);
    let one = ordered(&gpu, &pile, ContactOrder::Host, 1024).step().unwrap();
    let mut batched = ordered(&small, &pile, ContactOrder::Gpu, 1024);
    let frame = batched.step().unwrap();
    assert!(frame.stats.batches > 1, "{} candidates ran in one batch", frame.stats.candidates);
    assert_eq!(common::bits(&frame.contacts), common::bits(&one.contacts), "batched output differs");
    assert_eq!(frame.shapes, one.shapes);
    let report = validate::compare(&pile, &frame.contacts, &want, &DetectOptions::default());
    assert!(report.ok(), "{}", report.disagreements[0]);
    let kept = compound_part_pairs(&mut batched).unwrap();
    assert!(kept.len() >= want.len() && kept.len() <= want.len() * frame.stats.batches as usize);
}

/// Issue 47: combs whose tooth tips and roots lie on two lines (collinear vertices that are not
/// neighbours), rotated by many angles, were refused by the splitter. Split exactly now, a scene
/// of them among plain shapes gives the reference's pairs on the GPU, and reads back from its
/// own JSON as the same bodies.
#[test]
fn rotated_combs_split_collide_and_read_back() {
    let gpu = common::gpu();
    let mut rng = ChaCha8Rng::seed_from_u64(47);
    // A saw of five teeth, tips at y = 2 and roots at y = 0.5, about 1 wide once scaled.
    let mut saw = vec![[0.0, 0.0], [10.0, 0.0]];
    for t in (0..5).rev() {
        let x = 2.0 * t as f64;
        saw.extend([[x + 2.0, 2.0], [x + 1.0, 0.5]]);
    }
    saw.push([0.0, 2.0]);
    let mut bodies = vec![];
    for k in 0..400 {
        let (sin, cos) = (k as f64 * 0.7301).sin_cos();
        let (cx, cy) = ((k % 20) as f64 * 0.9, (k / 20) as f64 * 0.9);
        let outline: Vec<[f64; 2]> =
            saw.iter().map(|p| [cx + 0.1 * (p[0] * cos - p[1] * sin), cy + 0.1 * (p[0] * sin + p[1] * cos)]).collect();
        bodies.push(Body::concave(&outline).unwrap_or_else(|e| panic!("comb {k}: {e}")));
        if k % 3 == 0 {
            let (x, y) = (cx + rng.random_range(0.0..0.9), cy + rng.random_range(0.0..0.9));
            bodies.push(Body::from(Polygon::circle([x, y], 0.2).unwrap()));
        }
    }
    let want = reference::detect(&bodies, &DetectOptions::default()).contacts;
    assert!(want.len() > 300, "{} pairs", want.len());
    for order in [ContactOrder::Gpu, ContactOrder::Host] {
        let frame = ordered(&gpu, &bodies, order, 1024).step().unwrap();
        let report = validate::compare(&bodies, &frame.contacts, &want, &DetectOptions::default());
        assert!(report.ok(), "{order:?}: {}", report.disagreements[0]);
    }
    // Written out as parts and read back: the same bodies (parts with corners that turn by less
    // than Polygon::new's margin included).
    let scene = satgpu::scene::Scene::from_bodies(bodies.clone());
    let text = satgpu::scene::scene_to_json(&scene);
    let back = satgpu::scene::parse_scene(&text, std::path::Path::new("combs.json")).unwrap();
    assert_eq!(back.bodies, bodies);
}
