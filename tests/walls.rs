//! Issue 42, walls: segments (two points and a radius >= 0; radius 0 is the line segment
//! itself, above 0 a capsule) and chains (one body of segments through a polyline, open or a
//! loop). Made and refused by name, read and written in scene files, and on the GPU the same
//! pairs as the reference: at random among every kind of shape, exactly touching on a grid, on a
//! vertex and across strips, chains among agents as the first and last body, at scales 1e-20 to
//! 1e20, with a margin, with manifolds and both orderings; a body pressed into a flat chain's
//! joint is pushed off the wall, not along it.

mod common;

use std::path::Path;

use satgpu::geometry::MAX_CHAIN_POINTS;
use satgpu::gpu::{self, World, WorldOptions};
use satgpu::scene::{generate, parse_scene, scene_to_json, SceneKind};
use satgpu::{
    reference, validate, Body, ContactDetail, ContactOrder, DetectOptions, Error, Polygon, PolygonError, ShapeKind,
};

fn segment(a: [f64; 2], b: [f64; 2]) -> Polygon {
    Polygon::segment(a, b, 0.0).unwrap()
}

/// Why a scene whose second entry is `entry` is refused: the error must name entry 1.
fn refusal(entry: &str) -> PolygonError {
    let text = format!(r#"{{"polygons": [{{"segment": {{"a": [0, 0], "b": [1, 0]}}}}, {entry}]}}"#);
    match parse_scene(&text, Path::new("walls.json")) {
        Err(Error::InvalidPolygon { index: 1, reason }) => reason,
        other => panic!("{entry}: expected an error naming entry 1, got {other:?}"),
    }
}

#[test]
fn segments_are_made_and_refused_by_name() {
    let s = segment([0.0, 0.0], [3.0, 4.0]);
    assert_eq!((s.kind(), s.vertices().len(), s.radius()), (ShapeKind::Segment, 2, 0.0));
    assert_eq!(Polygon::segment([0.0, 0.0], [3.0, 4.0], 0.5).unwrap().kind(), ShapeKind::Capsule);
    assert_eq!(Polygon::from_core(vec![[0.0, 0.0], [3.0, 4.0]], 0.0).unwrap(), s);
    assert_eq!(Polygon::segment([1.0, 2.0], [1.0, 2.0], 0.0), Err(PolygonError::DegenerateSegment { x: 1.0, y: 2.0 }));
    assert!(matches!(Polygon::segment([0.0, f64::NAN], [1.0, 0.0], 0.0), Err(PolygonError::NonFinite { .. })));
    assert!(matches!(Polygon::segment([0.0, 0.0], [1.0, 0.0], -1.0), Err(PolygonError::BadRadius { .. })));
    assert!(matches!(Polygon::segment([0.0, 0.0], [1e-31, 0.0], 0.0), Err(PolygonError::TooSmall { .. })));
    // A capsule still needs a radius above 0.
    assert!(matches!(Polygon::capsule([0.0, 0.0], [1.0, 0.0], 0.0), Err(PolygonError::BadRadius { .. })));
    // Scene files: radius optional (0), written back as segments; a bad one names its entry.
    let text = r#"{"polygons": [{"vertices": [[0, 0], [1, 0], [0, 1]]},
        {"segment": {"a": [0, 0], "b": [2, 0]}}, {"segment": {"a": [0, 1], "b": [2, 1], "radius": 0.25}}]}"#;
    let scene = parse_scene(text, Path::new("walls.json")).unwrap();
    let kinds: Vec<ShapeKind> = scene.shapes().map(|p| p.kind()).collect();
    assert_eq!(kinds, [ShapeKind::Polygon, ShapeKind::Segment, ShapeKind::Capsule]);
    let again = parse_scene(&scene_to_json(&scene), Path::new("again.json")).unwrap();
    assert_eq!(again, scene);
    assert_eq!(
        refusal(r#"{"segment": {"a": [5, 5], "b": [5, 5]}}"#),
        PolygonError::DegenerateSegment { x: 5.0, y: 5.0 }
    );
    assert!(matches!(
        refusal(r#"{"segment": {"a": [0, 0], "b": [1, 0], "radius": -2}}"#),
        PolygonError::BadRadius { .. }
    ));
    assert!(matches!(
        refusal(r#"{"segment": {"a": [0, 0], "b": [1, 0]}, "vertices": [[0, 0], [1, 0], [0, 1]]}"#),
        PolygonError::ConflictingShapes { .. }
    ));
}

/// `polygons` with every third shape from the 20th to the 10th last replaced by a segment along
/// its first edge, and every capsule by its segment: walls among every kind of shape.
fn with_segments(polygons: &[Polygon]) -> Vec<Polygon> {
    let n = polygons.len();
    polygons
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let v = p.vertices();
            match (v.len(), i % 3 == 0 && (20..n - 10).contains(&i)) {
                (2, _) => segment(v[0], v[1]),
                (k, true) if k > 2 => segment(v[0], v[1]),
                _ => p.clone(),
            }
        })
        .collect()
}

/// `polygons` scaled by `s` about the origin.
fn scaled(polygons: &[Polygon], s: f64) -> Vec<Polygon> {
    polygons
        .iter()
        .map(|p| {
            let v = p.vertices().iter().map(|v| [v[0] * s, v[1] * s]).collect();
            Polygon::from_core(v, p.radius() * s).unwrap()
        })
        .collect()
}

#[test]
fn segments_agree_with_the_reference_among_every_kind_at_every_scale() {
    let gpu = common::gpu();
    for kind in [SceneKind::Shapes, SceneKind::Crowd, SceneKind::Mixed] {
        let polygons = with_segments(&generate(kind, 3000, 5));
        let walls = polygons.iter().filter(|p| p.kind() == ShapeKind::Segment).count();
        assert!(walls > 500, "{kind:?}: {walls} segments");
        for s in [1.0, 1e-20, 1e20] {
            let what = format!("{kind:?} with segments at scale {s:e}");
            let (pairs, _) = common::agree(&gpu, &scaled(&polygons, s), &what);
            assert!(pairs > 100, "{what}: {pairs} pairs");
        }
        // A margin, and manifolds, judged as every other shape's.
        for options in [
            DetectOptions::default().with_margin(0.05),
            DetectOptions::default().with_contact_detail(ContactDetail::Full),
        ] {
            let got = gpu::detect(&gpu, &polygons, &options).unwrap();
            let want = reference::detect(&polygons, &options);
            let report = validate::compare(&polygons, &got.contacts, &want.contacts, &options);
            assert!(report.ok(), "{kind:?} {options:?}: {}", report.disagreements[0]);
            if options.world.contact_detail == ContactDetail::Full {
                let wrong = validate::compare_manifolds(&polygons, &got.contacts, &[], &got.manifolds, &options);
                assert!(wrong.is_empty(), "{kind:?}: manifolds: {:?}", wrong[0]);
            }
        }
    }
}

#[test]
fn segments_touching_exactly_are_found_exactly() {
    let gpu = common::gpu();
    for s in [1.0, 2f64.powi(-66), 2f64.powi(66)] {
        // A grid of unit segments, every one touching its neighbours at its ends only: each pair
        // sharing an end point collides with depth 0. Then a box whose corner is a grid point
        // and one whose edge holds a segment's end, a segment ending on another's middle (a T)
        // and two collinear segments end to end; and a segment across many strips.
        let mut polygons = vec![];
        for i in 0..8 {
            for j in 0..8 {
                let (x, y) = (i as f64 * s, j as f64 * s);
                polygons.push(segment([x, y], [x + s, y]));
                polygons.push(segment([x, y], [x, y + s]));
            }
        }
        let at = |x: f64, y: f64| [x * s, y * s];
        polygons.push(Polygon::new(vec![at(9.0, 9.0), at(10.0, 9.0), at(10.0, 10.0), at(9.0, 10.0)]).unwrap());
        polygons.push(segment(at(8.0, 8.0), at(9.0, 9.0)));
        polygons.push(Polygon::new(vec![at(20.0, 0.0), at(21.0, 0.0), at(21.0, 2.0), at(20.0, 2.0)]).unwrap());
        polygons.push(segment(at(21.0, 1.0), at(23.0, 1.0)));
        polygons.push(segment(at(22.0, 1.0), at(22.0, 3.0)));
        polygons.push(segment(at(23.0, 1.0), at(25.0, 1.0)));
        polygons.push(segment(at(30.0, -50.0), at(30.0, 50.0)));
        polygons.push(Polygon::circle(at(31.0, 40.0), s).unwrap());
        let want = reference::detect(&polygons, &DetectOptions::default()).contacts;
        let got = gpu::detect(&gpu, &polygons, &DetectOptions::default()).unwrap().contacts;
        let pairs = |c: &[satgpu::Contact]| c.iter().map(|c| (c.a, c.b, c.depth)).collect::<Vec<_>>();
        assert_eq!(pairs(&got), pairs(&want), "scale {s:e}");
        // Each normal a minimum translation direction: at a T or a joint, never across it.
        for (g, w) in got.iter().zip(&want) {
            let (a, b) = (&polygons[g.a as usize], &polygons[g.b as usize]);
            let along = reference::penetration_along(a, b, g.normal);
            assert_eq!(
                along, w.depth,
                "scale {s:e}: ({}, {}) normal {:?}, reference {:?}",
                g.a, g.b, g.normal, w.normal
            );
        }
        let full = DetectOptions::default().with_contact_detail(ContactDetail::Full);
        let frame = gpu::detect(&gpu, &polygons, &full).unwrap();
        let wrong = validate::compare_manifolds(&polygons, &frame.contacts, &[], &frame.manifolds, &full);
        assert!(wrong.is_empty(), "scale {s:e}: manifolds: {:?}", wrong[0]);
        // The grid's 128 segments: 337 pairs of them share an end point.
        let grid = want.iter().filter(|c| c.b < 128).count();
        assert_eq!(grid, 337, "scale {s:e}: grid pairs");
        assert!(want.iter().all(|c| c.depth == 0.0), "scale {s:e}: every touch has depth 0");
        for pair in [(129, 128), (131, 130), (132, 131), (133, 131), (135, 134)] {
            let (a, b) = (pair.0.min(pair.1), pair.0.max(pair.1));
            assert!(want.iter().any(|c| (c.a, c.b) == (a, b)), "scale {s:e}: ({a}, {b}) not found");
        }
        // The same in a world whose bodies cross 1,000 strips.
        let options = WorldOptions::default().with_strip_height(s / 10.0);
        let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
        assert_eq!(pairs(&world.step().unwrap().contacts), pairs(&want), "scale {s:e}, thin strips");
    }
}

#[test]
fn chains_are_made_and_refused_by_name() {
    let points = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]];
    let open = Body::chain(&points, false, 0.0).unwrap();
    assert_eq!(open.shapes(), [segment(points[0], points[1]), segment(points[1], points[2])]);
    let closed = Body::chain(&points, true, 0.25).unwrap();
    assert_eq!(closed.shapes().len(), 3);
    assert_eq!(closed.shapes()[2], Polygon::segment(points[2], points[0], 0.25).unwrap(), "the loop closes");
    let count = |count: usize, closed: bool| Err(PolygonError::ChainPoints { count, closed, max: MAX_CHAIN_POINTS });
    assert_eq!(Body::chain(&points[..1], false, 0.0), count(1, false));
    assert_eq!(Body::chain(&points[..2], true, 0.0), count(2, true), "a loop of two");
    assert_eq!(Body::chain(&[], false, 0.0), count(0, false));
    let long = vec![[0.0, 0.0]; MAX_CHAIN_POINTS + 1];
    assert_eq!(Body::chain(&long, false, 0.0), count(MAX_CHAIN_POINTS + 1, false));
    // A repeated point is a segment of zero length, a NaN a bad vertex: each names its segment.
    let part = |part: usize, reason: PolygonError| Err(PolygonError::InPart { part, reason: Box::new(reason) });
    let repeated = [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [2.0, 0.0]];
    assert_eq!(Body::chain(&repeated, false, 0.0), part(1, PolygonError::DegenerateSegment { x: 1.0, y: 0.0 }));
    let nan = [[0.0, 0.0], [1.0, 0.0], [2.0, f64::NAN]];
    assert!(matches!(Body::chain(&nan, false, 0.0), Err(PolygonError::InPart { part: 1, .. })));
    assert!(matches!(Body::chain(&points, false, -1.0), Err(PolygonError::InPart { part: 0, .. })));
    // Scene files: one body; "loop" and "radius" optional; a bad chain names its entry.
    let text = r#"{"polygons": [{"chain": {"points": [[0, 0], [1, 0], [1, 1]]}},
        {"chain": {"points": [[0, 0], [1, 0], [1, 1]], "loop": true, "radius": 0.25}}]}"#;
    let scene = parse_scene(text, Path::new("walls.json")).unwrap();
    assert_eq!(scene.bodies, [open, closed]);
    let again = parse_scene(&scene_to_json(&scene), Path::new("again.json")).unwrap();
    assert_eq!(again, scene);
    assert_eq!(
        refusal(r#"{"chain": {"points": [[0, 0]]}}"#),
        PolygonError::ChainPoints { count: 1, closed: false, max: MAX_CHAIN_POINTS }
    );
    assert_eq!(
        refusal(r#"{"chain": {"points": [[0, 0], [1, 1]], "loop": true}}"#),
        PolygonError::ChainPoints { count: 2, closed: true, max: MAX_CHAIN_POINTS }
    );
    assert!(matches!(refusal(r#"{"chain": {"points": [[0, 0], [0, 0]]}}"#), PolygonError::InPart { part: 0, .. }));
}

/// Agents among chains: a zigzag across the whole scene first, square loops around ten areas
/// (one of radius 0.1), the agents, and a second zigzag last, all scaled by `s`.
fn agents_among_chains(s: f64) -> Vec<Body> {
    let agents = generate(SceneKind::Agents, 2000, 9);
    let b = agents.iter().map(|p| p.aabb()).fold(agents[0].aabb(), |a, b| satgpu::Aabb {
        min: [a.min[0].min(b.min[0]), a.min[1].min(b.min[1])],
        max: [a.max[0].max(b.max[0]), a.max[1].max(b.max[1])],
    });
    let (w, h) = (b.max[0] - b.min[0], b.max[1] - b.min[1]);
    let zigzag = |y: f64| {
        let points: Vec<[f64; 2]> =
            (0..=300).map(|k| [b.min[0] + w * k as f64 / 300.0, y + if k % 2 == 0 { 0.4 } else { -0.4 }]).collect();
        Body::chain(&points, false, 0.0).unwrap()
    };
    let mut bodies = vec![zigzag(b.min[1] + h / 3.0)];
    for k in 0..10 {
        let (x, y) = (b.min[0] + w * (0.05 + 0.09 * k as f64), b.min[1] + h * (0.1 + 0.08 * k as f64));
        let square = [[x, y], [x + 4.0, y], [x + 4.0, y + 4.0], [x, y + 4.0]];
        bodies.push(Body::chain(&square, true, if k == 3 { 0.1 } else { 0.0 }).unwrap());
    }
    bodies.extend(agents.into_iter().map(Body::from));
    bodies.push(zigzag(b.min[1] + 2.0 * h / 3.0));
    let scaled = |p: &Polygon| {
        let v = p.vertices().iter().map(|v| [v[0] * s, v[1] * s]).collect();
        Polygon::from_core(v, p.radius() * s).unwrap()
    };
    bodies.iter().map(|body| Body::new(body.shapes().iter().map(scaled).collect()).unwrap()).collect()
}

#[test]
fn chains_agree_with_the_reference_as_the_first_and_last_body() {
    let gpu = common::gpu();
    for s in [1.0, 1e-20, 1e20] {
        let bodies = agents_among_chains(s);
        let last = bodies.len() as u32 - 1;
        for (options, order) in [
            (DetectOptions::default(), ContactOrder::Host),
            (DetectOptions::default(), ContactOrder::Gpu),
            (DetectOptions::default().with_margin(0.05 * s), ContactOrder::Auto),
            (DetectOptions::default().with_contact_detail(ContactDetail::Full), ContactOrder::Gpu),
        ] {
            let options = options.with_order(order);
            let what = format!("scale {s:e}, {options:?}");
            let got = gpu::detect(&gpu, &bodies, &options).unwrap();
            let want = reference::detect(&bodies, &options);
            let report = validate::compare(&bodies, &got.contacts, &want.contacts, &options);
            assert!(report.ok(), "{what}: {}", report.disagreements[0]);
            let first = got.contacts.iter().filter(|c| c.a == 0).count();
            let on_last = got.contacts.iter().filter(|c| c.b == last).count();
            let loops = got.contacts.iter().filter(|c| (1..=10).contains(&c.a)).count();
            assert!(first > 10 && on_last > 10 && loops > 10, "{what}: {first}, {loops}, {on_last} pairs with chains");
            if options.world.contact_detail == ContactDetail::Full {
                let wrong = validate::compare_manifolds(&bodies, &got.contacts, &got.shapes, &got.manifolds, &options);
                assert!(wrong.is_empty(), "{what}: manifolds: {:?}", wrong[0]);
            }
        }
    }
}

#[test]
fn a_body_pressed_into_a_joint_is_pushed_off_the_wall_not_along_it() {
    let gpu = common::gpu();
    // A flat chain along y = 0 with joints at x = 1, 2, 3; boxes 0.5 wide pressed 0.125 into it
    // from above and below, their corners before, on and past each joint. Each pair of the chain
    // and a box takes its deepest segment's contact: the wall's normal, never one along the wall.
    let chain = Body::chain(&[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [4.0, 0.0]], false, 0.0).unwrap();
    let mut bodies = vec![chain];
    let mut want = vec![];
    for joint in [1.0, 2.0, 3.0] {
        for dx in [-0.375, -0.25, -0.0625, 0.0, 0.0625] {
            for (y0, normal) in [(-0.125, [0.0, 1.0]), (-0.375, [0.0, -1.0])] {
                let x0 = joint + dx;
                let square =
                    Polygon::new(vec![[x0, y0], [x0 + 0.5, y0], [x0 + 0.5, y0 + 0.5], [x0, y0 + 0.5]]).unwrap();
                want.push((0, bodies.len() as u32, normal, 0.125));
                bodies.push(Body::from(square));
            }
        }
    }
    for order in [ContactOrder::Host, ContactOrder::Gpu] {
        let options = DetectOptions::default().with_order(order);
        for (side, contacts) in [
            ("reference", reference::detect(&bodies, &options).contacts),
            ("gpu", gpu::detect(&gpu, &bodies, &options).unwrap().contacts),
        ] {
            // The boxes overlap each other too: the chain's pairs are the ones judged here.
            let got: Vec<_> = contacts.iter().filter(|c| c.a == 0).map(|c| (c.a, c.b, c.normal, c.depth)).collect();
            assert_eq!(got, want, "{side}, {order:?}");
        }
    }
}

#[test]
fn a_chain_of_a_million_points_agrees_with_the_reference() {
    let gpu = common::gpu();
    // A zigzag of the most points a chain takes, 0.01 apart along x, and 2,000 circles along it:
    // the even ones cross it, the odd ones lie above it.
    let points: Vec<[f64; 2]> =
        (0..MAX_CHAIN_POINTS).map(|k| [k as f64 * 0.01, if k % 2 == 0 { 0.0 } else { 0.005 }]).collect();
    let mut bodies = vec![Body::chain(&points, false, 0.0).unwrap()];
    for k in 0..2000 {
        let (x, y) = (k as f64 * 5.0 + 0.123, if k % 2 == 0 { 0.03 } else { 0.2 });
        bodies.push(Body::from(Polygon::circle([x, y], 0.05).unwrap()));
    }
    let options = DetectOptions::default();
    let got = gpu::detect(&gpu, &bodies, &options).unwrap();
    let want = reference::detect(&bodies, &options);
    // The same pairs, each depth within the band of the chain and a circle (computed once:
    // `validate::compare` measures every pair's bodies whole, a million shapes a pair).
    let band = validate::body_band(bodies[0].shapes(), bodies[1].shapes());
    let pairs = |c: &[satgpu::Contact]| c.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>();
    assert_eq!(pairs(&got.contacts), pairs(&want.contacts));
    for (g, w) in got.contacts.iter().zip(&want.contacts) {
        assert!((g.depth - w.depth).abs() <= band, "{g:?} against {w:?}, band {band}");
        assert!(g.normal[0] * w.normal[0] + g.normal[1] * w.normal[1] > 0.99, "{g:?} against {w:?}");
    }
    assert_eq!(got.contacts.len(), 1000);
    assert!(got.contacts.iter().all(|c| c.a == 0 && c.b % 2 == 1));
}

#[test]
fn chains_answer_rays_queries_and_events_as_one_body() {
    use satgpu::{Aabb, BoxQuery, ContactEvents, Filter, PointQuery, Ray, Transform};
    let gpu = common::gpu();
    // A square loop (an outline: its inside is free), an open wall, and two circles, one inside
    // the loop; each chain placed at its first point, each circle at its centre.
    let bodies = vec![
        Body::chain(&[[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]], true, 0.0).unwrap(),
        Body::chain(&[[10.0, 0.0], [10.0, 2.0], [12.0, 2.0]], false, 0.0).unwrap(),
        Body::from(Polygon::circle([2.0, 2.0], 0.5).unwrap()),
        Body::from(Polygon::circle([6.0, 1.0], 0.5).unwrap()),
    ];
    for order in [ContactOrder::Host, ContactOrder::Gpu] {
        let options = WorldOptions::default().with_events(true).with_order(order);
        let mut world = World::from_bodies(&gpu, &bodies, &options).unwrap();
        // Rays from inside the loop out, at the wall, and at nothing: each hit names the chain.
        let rays = [
            Ray::new([3.0, 1.0], [1.0, 0.0], 10.0),
            Ray::new([7.0, 1.5], [1.0, 0.0], 10.0),
            Ray::new([20.0, 20.0], [1.0, 0.0], 1.0),
        ];
        let hits = world.cast_rays(&rays).unwrap();
        let at = |k: usize| hits[k].map(|h| (h.body, (h.fraction * 1e6).round() / 1e6));
        assert_eq!((at(0), at(1), at(2)), (Some((0, 0.1)), Some((1, 0.3)), None), "{order:?}");
        // Points: inside the loop but on none of its segments, and on its edge; boxes across a
        // side of the loop and a joint of the wall.
        let point = |point| PointQuery { point, filter: Filter::DEFAULT, world: 0 };
        let found = world.query_points(&[point([1.0, 1.0]), point([2.0, 0.0])]).unwrap();
        assert_eq!(found, [vec![], vec![0]], "{order:?}");
        let bx = |min, max| BoxQuery { aabb: Aabb { min, max }, filter: Filter::DEFAULT, world: 0 };
        let found = world.query_boxes(&[bx([3.5, 1.0], [4.5, 1.5]), bx([9.5, 1.5], [10.5, 2.5])]).unwrap();
        assert_eq!(found, [vec![0], vec![1]], "{order:?}");
        // Events between bodies: nothing touches, then each circle crosses a chain, then not.
        let place = |circles: [[f64; 2]; 2]| {
            let mut t = vec![Transform { x: 0.0, y: 0.0, angle: 0.0 }, Transform { x: 10.0, y: 0.0, angle: 0.0 }];
            t.extend(circles.map(|[x, y]| Transform { x, y, angle: 0.0 }));
            t
        };
        let pairs = |e: &[[u32; 2]]| e.to_vec();
        let frame = world.step().unwrap();
        assert!(frame.contacts.is_empty(), "{order:?}: the circle inside the loop touches nothing");
        world.set_transforms(&place([[4.0, 2.0], [10.0, 1.0]])).unwrap();
        let frame = world.step().unwrap();
        let got: Vec<_> = frame.contacts.iter().map(|c| (c.a, c.b)).collect();
        assert_eq!((got, frame.shapes), (vec![(0, 2), (1, 3)], vec![[1, 0], [0, 0]]), "{order:?}");
        let began = ContactEvents { began: pairs(&[[0, 2], [1, 3]]), ended: vec![] };
        assert_eq!(world.events(), Some(&began), "{order:?}");
        world.set_transforms(&place([[2.0, 2.0], [6.0, 1.0]])).unwrap();
        world.step().unwrap();
        let ended = ContactEvents { began: vec![], ended: pairs(&[[0, 2], [1, 3]]) };
        assert_eq!(world.events(), Some(&ended), "{order:?}");
    }
}

#[test]
fn walkable_areas_are_read_from_wkt_and_refused_by_column() {
    use satgpu::scene::parse_wkt_polygon;
    let area = parse_wkt_polygon(" polygon((0 0, 10 0, 10 10, 0 10, 0 0),(4 4,6 4,6 6,4 4) , (1e-3 -2.5E1, 3 1, 2 2))")
        .unwrap();
    assert_eq!(area.exterior, vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0], [0.0, 0.0]]);
    assert_eq!(
        area.holes,
        vec![vec![[4.0, 4.0], [6.0, 4.0], [6.0, 6.0], [4.0, 4.0]], vec![[1e-3, -25.0], [3.0, 1.0], [2.0, 2.0]]]
    );
    // One closed chain per ring; the closing point repeated by WKT is dropped, an open ring kept.
    let walls = area.walls(0.0).unwrap();
    assert_eq!(walls.iter().map(|b| b.shapes().len()).collect::<Vec<_>>(), vec![4, 3, 3]);
    assert_eq!(walls[1].shapes()[2].vertices(), &[[6.0, 6.0], [4.0, 4.0]]);
    for (text, column, says) in [
        ("POLYGON EMPTY", 14, "has no walls"),
        ("POLYGON Z ((0 0 0, 1 0 0, 1 1 0, 0 0 0))", 10, "2D"),
        ("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)))", 1, "MULTIPOLYGON"),
        ("", 1, "found nothing"),
        ("POLYGON ((0 0, 1 0, 1 1 1, 0 0))", 25, "2D"),
        ("POLYGON ((0 0, 1 x, 1 1, 0 0))", 18, "\"x\""),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0)) extra", 32, "after the polygon"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0)", 30, "expected ')'"),
        ("POLYGON (0 0, 1 0, 1 1, 0 0)", 10, "expected '('"),
    ] {
        match parse_wkt_polygon(text) {
            Err(e @ Error::Wkt { column: c, .. }) if c == column && e.to_string().contains(says) => {}
            other => panic!("{text:?}: expected a WKT error at column {column} saying {says:?}, got {other:?}"),
        }
    }
    // Bad rings name the ring, then the segment inside it.
    for (text, says) in [
        ("POLYGON ((0 0, 1 0, 0 0))", "ring 0 (the exterior) is a chain of 2 points"),
        (
            "POLYGON ((0 0, 9 0, 9 9, 0 0), (1 1, 2 1, 2 2, 2 2, 1 1))",
            "ring 1 (a hole) part 2 is a segment of zero length",
        ),
        ("POLYGON ((0 0, 9 0, 9 nan, 0 0))", "ring 0 (the exterior) part 1 vertex 1 has a non-finite coordinate"),
    ] {
        let text = format!(r#"{{"polygons": [], "walls": {{"wkt": "{text}"}}}}"#);
        match parse_scene(&text, Path::new("area.json")) {
            Err(e @ Error::InvalidWalls { .. }) => {
                let message = e.to_string();
                assert!(message.starts_with("area.json: \"walls\": ") && message.contains(says), "{message}");
            }
            other => panic!("{text}: expected InvalidWalls saying {says:?}, got {other:?}"),
        }
    }
}

/// Agents in a walkable area given as WKT in a scene file at scale `s` (a power of two, so that
/// touching stays exact): a 60 x 40 room with a square, a triangular and a concave hole, then
/// agents (circles of radius 0.25) spread over it, the last four touching a wall, a hole's side,
/// the room's corner and a hole's vertex exactly; the walls last, one body per ring.
fn walkable_area(s: f64) -> Vec<Body> {
    let wkt = format!(
        "POLYGON (({0} {0}, {1} {0}, {1} {2}, {0} {2}, {0} {0}), ({3} {3}, {4} {3}, {4} {4}, {3} {4}, {3} {3}), \
         ({5} {3}, {6} {3}, {5} {4}, {5} {3}), ({7} {3}, {8} {3}, {8} {9}, {10} {9}, {10} {4}, {7} {4}, {7} {3}))",
        0.0,
        60.0 * s,
        40.0 * s,
        10.0 * s,
        20.0 * s,
        30.0 * s,
        40.0 * s,
        45.0 * s,
        55.0 * s,
        15.0 * s,
        50.0 * s,
    );
    // One filtered entry, so that the scene holds a filter list the walls must extend.
    let text = format!(
        r#"{{"polygons": [{{"circle": {{"center": [-5, -5], "radius": 1}}, "category": 2}}], "walls": {{"wkt": "{wkt}"}}}}"#
    );
    let scene = parse_scene(&text, Path::new("walkable.json")).unwrap();
    assert_eq!((scene.len(), scene.filters.len()), (5, 5));
    assert_eq!(scene.filters[1..], [satgpu::Filter::DEFAULT; 4]);
    let circle = |x: f64, y: f64| Body::from(Polygon::circle([x * s, y * s], 0.25 * s).unwrap());
    // The generated crowd stretched over the room, [1, 59] x [1, 39].
    let centres: Vec<[f64; 2]> = generate(SceneKind::Agents, 1500, 4).iter().map(|p| p.vertices()[0]).collect();
    let (lo, hi) = centres.iter().fold(([f64::MAX; 2], [f64::MIN; 2]), |(lo, hi), c| {
        ([lo[0].min(c[0]), lo[1].min(c[1])], [hi[0].max(c[0]), hi[1].max(c[1])])
    });
    let mut bodies: Vec<Body> = centres
        .iter()
        .map(|c| circle(1.0 + 58.0 * (c[0] - lo[0]) / (hi[0] - lo[0]), 1.0 + 38.0 * (c[1] - lo[1]) / (hi[1] - lo[1])))
        .collect();
    bodies.extend([[30.0, 0.25], [9.75, 12.0], [0.25, 0.25], [20.25, 20.0]].map(|[x, y]| circle(x, y)));
    bodies.extend(scene.bodies[1..].iter().cloned());
    bodies
}

#[test]
fn a_walkable_area_from_wkt_agrees_with_the_reference() {
    let gpu = common::gpu();
    for s in [1.0, 2f64.powi(-66), 2f64.powi(66)] {
        let bodies = walkable_area(s);
        assert_eq!(bodies.len(), 1508);
        assert_eq!((bodies[1504].shapes().len(), bodies[1507].shapes().len()), (4, 6));
        for options in [
            DetectOptions::default(),
            DetectOptions::default().with_contact_detail(ContactDetail::Full).with_order(ContactOrder::Gpu),
            DetectOptions::default().with_margin(0.1 * s),
        ] {
            let what = format!("scale {s:e}, {options:?}");
            let got = gpu::detect(&gpu, &bodies, &options).unwrap();
            let want = reference::detect(&bodies, &options);
            let report = validate::compare(&bodies, &got.contacts, &want.contacts, &options);
            assert!(report.ok(), "{what}: {}", report.disagreements[0]);
            for wall in 1504..1508 {
                assert!(got.contacts.iter().any(|c| c.b == wall), "{what}: nothing meets ring {}", wall - 1504);
            }
            // The four agents placed touching a wall exactly: found, at depth 0 (or the margin).
            for agent in 1500..1504 {
                let touching = got.contacts.iter().find(|c| c.a == agent && c.b >= 1504);
                assert!(
                    touching.is_some_and(|c| c.depth == 0.0 || options.world.margin > 0.0),
                    "{what}: agent {agent}: {touching:?}"
                );
            }
        }
    }
}
