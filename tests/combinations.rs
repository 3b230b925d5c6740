//! Issue 41: every option of a detection with every other, walls among the shapes (issue 42:
//! every tenth shape a segment, the last body a chain where bodies have several). For {one
//! shape, several shapes per body} x {margin 0, > 0} x {basic, full contacts} x {events off, on} x {GPU, host ordering} x
//! {filters on the first and the last body, none} x {one batch, several}, the GPU equals the
//! reference with the same options under the numerics contract: the same pairs outside the band,
//! depths and normals within it, manifolds that pass the contract's checks, and no pair the
//! filters exclude. Without events, the one-shot `detect`; with events, a world's two frames (the
//! bodies moved in between), whose events are the set difference of its frames' pairs.

mod common;

use satgpu::gpu::{self, Frame, Gpu, World};
use satgpu::reference::contact_events;
use satgpu::scene::{generate, SceneKind};
use satgpu::{
    reference, validate, Body, ContactDetail, ContactEvents, ContactOrder, DetectOptions, Filter, Polygon, ShapeKind,
    Transform,
};

/// `n` shapes of every kind: spread out (about 6 candidates per shape), or piled into one spot,
/// where every pair is a candidate (past what one binding of the small device holds). Every
/// tenth shape, and the last, is a wall: a segment of radius 0 across its box.
fn shapes(n: usize, piled: bool) -> Vec<Polygon> {
    let mut spread = generate(SceneKind::Shapes, n, 11);
    for i in (0..n).step_by(10).chain([n - 1]) {
        let b = spread[i].aabb();
        spread[i] = Polygon::segment(b.min, b.max, 0.0).unwrap();
    }
    if !piled {
        return spread;
    }
    spread
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // Each shape's box centre moved to within 0.3 of the origin.
            let b = p.aabb();
            let c = [(b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0];
            let at = [(i % 7) as f64 * 0.05, (i % 5) as f64 * 0.06];
            p.transformed(&Transform { x: at[0] - c[0], y: at[1] - c[1], angle: 0.0 })
        })
        .collect()
}

/// The shapes grouped into bodies of 1 to 3 consecutive shapes, then a chain (an open zigzag of
/// 41 points) across the middle of their box as the last body.
fn grouped(shapes: &[Polygon]) -> Vec<Body> {
    let mut out = vec![];
    let mut rest = shapes;
    let mut k = 0;
    while !rest.is_empty() {
        let take = (k % 3 + 1).min(rest.len());
        out.push(Body::new(rest[..take].to_vec()).unwrap());
        rest = &rest[take..];
        k += 1;
    }
    let b = shapes.iter().map(Polygon::aabb).reduce(|a, b| satgpu::Aabb {
        min: [a.min[0].min(b.min[0]), a.min[1].min(b.min[1])],
        max: [a.max[0].max(b.max[0]), a.max[1].max(b.max[1])],
    });
    let b = b.expect("shapes");
    let (mid, h) = ((b.min[1] + b.max[1]) / 2.0, (b.max[1] - b.min[1]) / 8.0);
    let points: Vec<[f64; 2]> = (0..=40)
        .map(|k| [b.min[0] + (b.max[0] - b.min[0]) * k as f64 / 40.0, mid + if k % 2 == 0 { h } else { -h }])
        .collect();
    out.push(Body::chain(&points, false, 0.0).unwrap());
    out
}

/// The bodies of a cell: the grouped ones, or one per shape.
fn bodies_of(several: bool, bodies: &[Body], polygons: &[Polygon]) -> Vec<Body> {
    match several {
        true => bodies.to_vec(),
        false => polygons.iter().map(|p| Body::new(vec![p.clone()]).unwrap()).collect(),
    }
}

/// One cell of the matrix: the GPU's answer against the reference's; returns the GPU's batches.
fn cell<B: AsRef<[Polygon]>>(gpu: &Gpu, bodies: &[B], options: &DetectOptions, what: &str) -> u32 {
    let frame = gpu::detect(gpu, bodies, options).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = reference::detect(bodies, options);
    assert!(!want.contacts.is_empty(), "{what}: the scene has pairs");
    let report = validate::compare(bodies, &frame.contacts, &want.contacts, options);
    assert!(report.ok(), "{what}: {} disagreements, first {}", report.disagreements.len(), report.disagreements[0]);
    // The last body is a wall (a segment, or a chain where bodies have several shapes).
    let last = bodies.len() as u32 - 1;
    assert!(bodies[last as usize].as_ref().iter().all(|p| p.kind() == ShapeKind::Segment), "{what}: a wall last");
    assert!(frame.contacts.iter().any(|c| c.b == last), "{what}: the last body, a wall, meets nothing");
    let several = bodies.iter().any(|b| b.as_ref().len() > 1);
    assert_eq!(frame.shapes.len(), if several { frame.contacts.len() } else { 0 }, "{what}: shape pairs");
    match options.world.contact_detail {
        ContactDetail::Full => {
            assert_eq!(frame.manifolds.len(), frame.contacts.len(), "{what}: one manifold per pair");
            let wrong = validate::compare_manifolds(bodies, &frame.contacts, &frame.shapes, &frame.manifolds, options);
            assert!(wrong.is_empty(), "{what}: {} manifolds wrong, first {:?}", wrong.len(), wrong[0]);
        }
        _ => assert!(frame.manifolds.is_empty(), "{what}: no manifolds asked for"),
    }
    if let Some(filter) = options.filters.first() {
        // The first and the last body share a negative group: never a pair, with each other.
        assert_eq!(filter.group, -7);
        assert!(!frame.contacts.iter().any(|c| (c.a, c.b) == (0, last)), "{what}: a filtered pair");
        assert!(!want.contacts.iter().any(|c| (c.a, c.b) == (0, last)), "{what}: the reference's filtered pair");
    }
    frame.stats.batches
}

/// A world's two frames with events: `bodies` as given, then each moved by a step of sixteenths
/// (exact in f32 beside the bodies' coordinates), the last far away; each frame's events against the set difference
/// of its pairs and the last's, the second frame's pairs against the reference; returns the
/// second frame's batches.
fn events_cell<B: AsRef<[Polygon]>>(gpu: &Gpu, bodies: &[B], options: &DetectOptions, what: &str) -> u32 {
    let world_options = options.world.clone().with_events(true);
    // The last body leaves (a pile's pairs end), the others shift.
    let last = bodies.len() - 1;
    let step = |i: usize| match i == last {
        true => [1000.0, 0.0],
        false => [((i * 7) % 5) as f64 / 16.0 - 0.125, ((i * 3) % 5) as f64 / 16.0 - 0.125],
    };
    let moved: Vec<Body> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let [x, y] = step(i);
            Body::new(b.as_ref().iter().map(|p| p.transformed(&Transform { x, y, angle: 0.0 })).collect()).unwrap()
        })
        .collect();
    let filters = &options.filters;
    let frames: [(Frame, ContactEvents); 2] = if bodies.iter().any(|b| b.as_ref().len() > 1) {
        let mut world = World::from_bodies(gpu, bodies, &world_options).unwrap();
        if !filters.is_empty() {
            world.set_filters(filters).unwrap();
        }
        let first = world.step().unwrap_or_else(|e| panic!("{what}: {e}"));
        let first = (first, world.events().unwrap().clone());
        // Each body is placed at its first vertex rounded to f32 (World::from_bodies).
        let poses: Vec<Transform> = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let at = b.as_ref()[0].vertices()[0].map(|c| f64::from(c as f32));
                Transform { x: at[0] + step(i)[0], y: at[1] + step(i)[1], angle: 0.0 }
            })
            .collect();
        world.set_transforms(&poses).unwrap();
        let second = world.step().unwrap_or_else(|e| panic!("{what}: {e}"));
        [first, (second, world.events().unwrap().clone())]
    } else {
        let one = |bodies: &[Body]| bodies.iter().map(|b| b.shapes()[0].clone()).collect::<Vec<_>>();
        let polygons: Vec<Polygon> = bodies.iter().map(|b| b.as_ref()[0].clone()).collect();
        let mut world = World::from_polygons(gpu, &polygons, &world_options).unwrap();
        if !filters.is_empty() {
            world.set_filters(filters).unwrap();
        }
        let first = world.step().unwrap_or_else(|e| panic!("{what}: {e}"));
        let first = (first, world.events().unwrap().clone());
        world.set_polygons(&one(&moved)).unwrap();
        let second = world.step().unwrap_or_else(|e| panic!("{what}: {e}"));
        [first, (second, world.events().unwrap().clone())]
    };
    let [(first, began), (second, events)] = frames;
    assert_eq!(began, contact_events(&[], &first.contacts), "{what}: the first frame's events");
    assert_eq!(events, contact_events(&first.contacts, &second.contacts), "{what}: the second frame's events");
    assert!(!events.ended.is_empty(), "{what}: the move ends pairs");
    let want = reference::detect(&moved, options);
    let report = validate::compare(&moved, &second.contacts, &want.contacts, options);
    assert!(report.ok(), "{what}: {} disagreements, first {}", report.disagreements.len(), report.disagreements[0]);
    if let Some(filter) = options.filters.first() {
        assert_eq!(filter.group, -7);
        let filtered = |c: &satgpu::Contact| (c.a, c.b) == (0, last as u32);
        assert!(!first.contacts.iter().any(filtered), "{what}: a filtered pair");
    }
    second.stats.batches
}

#[test]
fn every_option_with_every_other_agrees_with_the_reference() {
    let gpu = common::gpu();
    let small = common::small_device();
    let mut cells = 0;
    for (piled, device) in [(false, &*gpu), (true, &small)] {
        let polygons = shapes(300, piled);
        let bodies = grouped(&polygons);
        for several in [false, true] {
            let n = if several { bodies.len() } else { polygons.len() };
            // The first and last body in one negative group, and each near the other in a pile.
            let mut filters = vec![Filter::DEFAULT; n];
            (filters[0].group, filters[n - 1].group) = (-7, -7);
            for margin in [0.0, 0.25] {
                for detail in [ContactDetail::Basic, ContactDetail::Full] {
                    for (order, events) in
                        [ContactOrder::Gpu, ContactOrder::Host].into_iter().flat_map(|o| [(o, false), (o, true)])
                    {
                        for filtered in [false, true] {
                            let mut options = DetectOptions::default()
                                .with_margin(margin)
                                .with_contact_detail(detail)
                                .with_order(order);
                            if filtered {
                                options = options.with_filters(filters.clone());
                            }
                            let what = format!(
                                "piled {piled}, several shapes {several}, margin {margin}, {detail:?}, events {events}, {order:?}, filters {filtered}"
                            );
                            let batches = match (several, events) {
                                (true, false) => cell(device, &bodies, &options, &what),
                                (false, false) => cell(device, &polygons, &options, &what),
                                (_, true) => {
                                    events_cell(device, &bodies_of(several, &bodies, &polygons), &options, &what)
                                }
                            };
                            assert_eq!(batches > 1, piled, "{what}: {batches} batches");
                            cells += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(cells, 128);
}
