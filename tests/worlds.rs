//! Issue 45: many worlds in one `World` (`World::set_worlds`). Worlds of generated scenes that
//! overlap in space, their bodies interleaved, give per world what the world gives alone, bit
//! for bit: the pairs, shape pairs, manifolds, events and impacts of two frames with every body moved,
//! with margins, filters, full contacts, bodies of several shapes, both broad phases, growth and
//! a rebuild on the device; no pair crosses worlds; rays, shape casts and box and point queries
//! see their own world alone; refusals name what is wrong.

mod common;

use common::{gpu, small_device};
use satgpu::gpu::{BroadPhase, Frame, Gpu, World, WorldOptions, MAX_WORLDS};
use satgpu::scene::{generate, generate_bodies, SceneKind};
use satgpu::{
    Aabb, Body, BoxQuery, ContactDetail, ContactEvents, Error, Filter, PointQuery, Polygon, Ray, ShapeCast, Transform,
};

/// One frame's answer in local indices: pairs with their bits, shape pairs, manifolds (their
/// Debug text, which writes every f64 exactly), and the events since the frame before.
#[derive(Debug, PartialEq)]
struct Answer {
    contacts: Vec<(u32, u32, u64, u64, u64)>,
    shapes: Vec<[u32; 2]>,
    manifolds: Vec<String>,
    events: Option<ContactEvents>,
    impacts: Vec<(u32, u32, u64)>,
}

/// The part of `frame` (and `world`'s events) among the bodies `members` (sorted), renumbered
/// by their rank; pairs of any other body are left out.
fn answer(frame: &Frame, world: &World, members: &[u32]) -> Answer {
    let local = |g: u32| members.binary_search(&g).ok().map(|i| i as u32);
    let mut out = Answer { contacts: vec![], shapes: vec![], manifolds: vec![], events: None, impacts: vec![] };
    for (k, c) in frame.contacts.iter().enumerate() {
        let (Some(a), Some(b)) = (local(c.a), local(c.b)) else { continue };
        out.contacts.push((a, b, c.normal[0].to_bits(), c.normal[1].to_bits(), c.depth.to_bits()));
        if !frame.shapes.is_empty() {
            out.shapes.push(frame.shapes[k]);
        }
        if !frame.manifolds.is_empty() {
            out.manifolds.push(format!("{:?}", frame.manifolds[k]));
        }
    }
    let pairs = |list: &[[u32; 2]]| -> Vec<[u32; 2]> {
        list.iter().filter_map(|&[a, b]| Some([local(a)?, local(b)?])).collect()
    };
    out.events = world.events().map(|e| ContactEvents { began: pairs(&e.began), ended: pairs(&e.ended) });
    for i in &frame.impacts {
        if let (Some(a), Some(b)) = (local(i.a), local(i.b)) {
            out.impacts.push((a, b, i.toi.to_bits()));
        }
    }
    out
}

/// Body `i`'s filter: three categories, each missing the next, and every seventh body in a
/// group that never collides.
fn filter(i: u32) -> Filter {
    let group = if i % 7 == 3 { -2 } else { 0 };
    Filter { category: 1 << (i % 3), mask: !(1 << ((i + 1) % 3)), group }
}

/// Body `i`'s move between the two frames.
fn moved(i: u32) -> Transform {
    Transform { x: 0.05 * f64::from(i % 5), y: -0.04 * f64::from(i % 3), angle: 0.02 * f64::from(i % 4) }
}

/// What one world is given: its bodies, each one's world (or none), filters and second poses.
struct Setup<'a> {
    bodies: &'a [Body],
    worlds: Option<&'a [u32]>,
    filters: Option<Vec<Filter>>,
    poses: Vec<Transform>,
}

/// Two frames of `setup` under `options` (the second with the bodies moved), each answered
/// among `members`. Every pair of the shared world is checked to lie within one world.
fn run(gpu: &Gpu, setup: Setup<'_>, options: &WorldOptions, members: &[u32]) -> Vec<Answer> {
    let mut world = World::from_bodies(gpu, setup.bodies, options).unwrap();
    if let Some(worlds) = setup.worlds {
        world.set_worlds(worlds).unwrap();
        assert_eq!(world.worlds(), worlds);
    }
    if let Some(filters) = &setup.filters {
        world.set_filters(filters).unwrap();
    }
    let first = world.step().unwrap();
    let mut answers = vec![answer(&first, &world, members)];
    world.set_transforms(&setup.poses).unwrap();
    let second = world.step().unwrap();
    answers.push(answer(&second, &world, members));
    if let Some(worlds) = setup.worlds {
        for c in first.contacts.iter().chain(&second.contacts) {
            assert_eq!(worlds[c.a as usize], worlds[c.b as usize], "pair {c:?} crosses worlds");
        }
    }
    answers
}

/// `count` worlds of `n` bodies of `kind` each (seeds 10, 11, ...), overlapping in space, their
/// bodies interleaved (for each i, body i of every world, the worlds in a turning order): the
/// bodies, and each one's world.
fn interleaved(kind: SceneKind, n: usize, count: u32) -> (Vec<Body>, Vec<u32>) {
    interleave((0..count).map(|w| generate_bodies(kind, n, 10 + u64::from(w))).collect())
}

/// The worlds `scenes` (of one size) interleaved as [`interleaved`] does.
fn interleave(scenes: Vec<Vec<Body>>) -> (Vec<Body>, Vec<u32>) {
    let (n, count) = (scenes[0].len(), scenes.len() as u32);
    let picks = (0..n).flat_map(|i| (0..count).map(move |k| (i, (k + i as u32) % count)));
    picks.map(|(i, w)| (scenes[w as usize][i].clone(), w)).unzip()
}

/// Each world of the interleaved scene answers in one `World` as it does alone.
fn each_world_answers_as_alone(
    gpu: &Gpu,
    what: &str,
    (bodies, worlds): &(Vec<Body>, Vec<u32>),
    filters: bool,
    options: &WorldOptions,
) {
    let count = worlds.iter().max().map_or(0, |&w| w + 1);
    let everyone: Vec<u32> = (0..bodies.len() as u32).collect();
    let mut touching = 0;
    for w in 0..count {
        let members: Vec<u32> = everyone.iter().copied().filter(|&g| worlds[g as usize] == w).collect();
        let shared = Setup {
            bodies,
            worlds: Some(worlds),
            filters: filters.then(|| everyone.iter().map(|&g| filter(g)).collect()),
            poses: everyone.iter().map(|&g| moved(g)).collect(),
        };
        let mine = run(gpu, shared, options, &members);
        let own: Vec<Body> = members.iter().map(|&g| bodies[g as usize].clone()).collect();
        let alone = Setup {
            bodies: &own,
            worlds: None,
            filters: filters.then(|| members.iter().map(|&g| filter(g)).collect()),
            poses: members.iter().map(|&g| moved(g)).collect(),
        };
        let all: Vec<u32> = (0..own.len() as u32).collect();
        assert_eq!(mine, run(gpu, alone, options, &all), "{what}: world {w} differs from its lone run");
        touching += mine.iter().map(|a| a.contacts.len()).sum::<usize>();
    }
    assert!(touching > 0, "{what}: no world has a pair; the test tests nothing");
}

#[test]
fn each_world_answers_as_it_does_alone() {
    let events = WorldOptions::default().with_events(true);
    let cases = [
        (SceneKind::Shapes, false, events.clone().with_broad_phase(BroadPhase::Strips)),
        (SceneKind::Crowd, true, events.clone().with_margin(0.3).with_contact_detail(ContactDetail::Full)),
        (SceneKind::Round, true, events.clone().with_broad_phase(BroadPhase::AllPairs)),
        (SceneKind::Mixed, false, events.clone().with_margin(0.2).with_broad_phase(BroadPhase::AllPairs)),
        // Buffers that grow in the first frame.
        (SceneKind::Dense, true, events.clone().with_candidate_capacity(16).with_entry_capacity(16)),
        // Bodies of several shapes (walls and pillars among agents).
        (SceneKind::Rooms, false, events.clone().with_contact_detail(ContactDetail::Full)),
        (SceneKind::Rooms, true, events.clone().with_broad_phase(BroadPhase::AllPairs).with_margin(0.1)),
        (SceneKind::Grid, false, events.clone().with_broad_phase(BroadPhase::Strips).with_margin(0.1)),
        (SceneKind::Pile, true, events.clone().with_contact_detail(ContactDetail::Full)),
        (SceneKind::Clustered, false, events.clone().with_continuous(true)),
    ];
    let gpu = gpu();
    for (kind, filters, options) in cases {
        each_world_answers_as_alone(&gpu, &format!("{kind:?}"), &interleaved(kind, 60, 5), filters, &options);
    }
}

/// Piles whose pairs outgrow one binding of a small device, so that frames run in batches: each
/// world still answers as alone.
#[test]
fn piles_past_one_binding_answer_as_alone() {
    let gpu = small_device();
    let options = WorldOptions::default().with_events(true);
    // Each world's shapes moved to within 0.3 of the origin: every pair a candidate.
    let piled = |w: u64| -> Vec<Body> {
        let shapes = generate(SceneKind::Shapes, 300, 10 + w);
        let at = |i: usize, p: &Polygon| {
            let b = p.aabb();
            let c = [(b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0];
            Transform { x: (i % 7) as f64 * 0.05 - c[0], y: (i % 5) as f64 * 0.06 - c[1], angle: 0.0 }
        };
        shapes.iter().enumerate().map(|(i, p)| Body::from(p.transformed(&at(i, p)))).collect()
    };
    let scene = interleave(vec![piled(0), piled(1)]);
    let mut world = World::from_bodies(&gpu, &scene.0, &options).unwrap();
    world.set_worlds(&scene.1).unwrap();
    let frame = world.step().unwrap();
    assert!(frame.stats.batches > 1, "{} batch: the test does not reach batches", frame.stats.batches);
    each_world_answers_as_alone(&gpu, "piles", &scene, true, &options);
}

/// Every world a copy of one scene, as many worlds as there may be (one strip each): each
/// world's pairs are the scene's alone.
#[test]
fn the_most_worlds_are_copies_of_one_scene() {
    let scene = generate_bodies(SceneKind::Crowd, 12, 3);
    let gpu = gpu();
    let mut alone = World::from_bodies(&gpu, &scene, &WorldOptions::default()).unwrap();
    let want = alone.step().unwrap().contacts;
    assert!(!want.is_empty(), "a scene with no pairs tests nothing");
    let copies = MAX_WORLDS as usize;
    let bodies: Vec<Body> = (0..copies).flat_map(|_| scene.iter().cloned()).collect();
    let worlds: Vec<u32> = (0..bodies.len()).map(|g| (g / scene.len()) as u32).collect();
    let mut world = World::from_bodies(&gpu, &bodies, &WorldOptions::default()).unwrap();
    world.set_worlds(&worlds).unwrap();
    let got = world.step().unwrap().contacts;
    assert_eq!(got.len(), copies * want.len());
    let m = scene.len() as u32;
    for (k, c) in got.iter().enumerate() {
        let (w, one) = ((k / want.len()) as u32, &want[k % want.len()]);
        assert_eq!((c.a, c.b), (one.a + w * m, one.b + w * m));
        assert_eq!((c.normal, c.depth), (one.normal, one.depth));
    }
}

/// The worlds survive a rebuild on the device, and new polygons of the same count.
#[test]
fn worlds_survive_a_rebuild_and_new_polygons() {
    let (bodies, worlds) = interleaved(SceneKind::Shapes, 40, 3);
    let gpu = gpu();
    let polygons: Vec<_> = bodies.iter().map(|b| b.shapes()[0].clone()).collect();
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    world.set_worlds(&worlds).unwrap();
    let want = world.step().unwrap().contacts;
    assert!(want.iter().all(|c| worlds[c.a as usize] == worlds[c.b as usize]) && !want.is_empty());
    let mut again = world.rebuild_on(&gpu).unwrap();
    assert_eq!(again.worlds(), &worlds[..]);
    assert_eq!(again.step().unwrap().contacts, want);
    // The same polygons again; then in reverse order, whose vertex counts differ: a rebuild.
    world.set_polygons(&polygons).unwrap();
    assert_eq!(world.step().unwrap().contacts, want);
    let reversed: Vec<_> = polygons.iter().rev().cloned().collect();
    world.set_polygons(&reversed).unwrap();
    assert_eq!(world.worlds(), &worlds[..]);
    let mut fresh = World::from_polygons(&gpu, &reversed, &WorldOptions::default()).unwrap();
    fresh.set_worlds(&worlds).unwrap();
    assert_eq!(world.step().unwrap().contacts, fresh.step().unwrap().contacts);
    // One world again: the pairs of a world never given worlds.
    world.set_worlds(&[]).unwrap();
    assert!(world.worlds().is_empty());
    let mut one = World::from_polygons(&gpu, &reversed, &WorldOptions::default()).unwrap();
    let all = one.step().unwrap().contacts;
    assert!(all.iter().any(|c| worlds[c.a as usize] != worlds[c.b as usize]));
    assert_eq!(world.step().unwrap().contacts, all);
}

#[test]
fn bad_worlds_are_refused_by_name() {
    let bodies = generate_bodies(SceneKind::Crowd, 10, 1);
    let gpu = gpu();
    let mut world = World::from_bodies(&gpu, &bodies, &WorldOptions::default()).unwrap();
    let refused = |r: satgpu::Result<()>| match r {
        Err(Error::InvalidSetting { what: "worlds", detail }) => detail,
        other => panic!("expected InvalidSetting on worlds, got {other:?}"),
    };
    assert_eq!(refused(world.set_worlds(&[0; 9])), "9 world indices for 10 bodies");
    let mut worlds = vec![0; 10];
    worlds[7] = MAX_WORLDS;
    assert_eq!(
        refused(world.set_worlds(&worlds)),
        format!("body 7 is in world {MAX_WORLDS}; worlds are numbered from 0 to {}", MAX_WORLDS - 1)
    );
    assert!(world.worlds().is_empty(), "a refusal changes nothing");
    worlds[7] = 1;
    world.set_worlds(&worlds).unwrap();
    let ray = Ray { world: 2, ..Ray::new([0.0, 0.0], [1.0, 0.0], 10.0) };
    let detail = match world.cast_rays(&[Ray::new([0.0, 0.0], [1.0, 0.0], 10.0), ray]) {
        Err(Error::InvalidSetting { what: "ray", detail }) => detail,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(detail, "ray 1 looks into world 2; this world has 2 (0 to 1)");
    let point = PointQuery { world: 9, ..PointQuery::new([0.0, 0.0]) };
    match world.query_points(&[point]) {
        Err(Error::InvalidSetting { what: "query", detail }) => {
            assert_eq!(detail, "point 0 looks into world 9; this world has 2 (0 to 1)")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// What a world's rays, casts and queries find, in local indices: each hit's body and bits.
type Seen = (Vec<Option<(u32, u64, u64, u64, u64, u64)>>, Vec<Vec<u32>>);

/// `world`'s answers to rays, disc and triangle casts, boxes and points spread over `bounds`,
/// each looking into world `w`, with the bodies found renumbered by `local`.
fn seen(world: &mut World, bounds: Aabb, w: u32, local: impl Fn(u32) -> u32) -> Seen {
    let [x0, y0] = bounds.min;
    let (dx, dy) = (bounds.max[0] - x0, bounds.max[1] - y0);
    let at = |k: u32, m: u32| [x0 + dx * f64::from(k % m) / f64::from(m), y0 + dy * f64::from(k * 7 % 11) / 11.0];
    let way = |k: u32| [f64::from(k).cos(), f64::from(k).sin()];
    let rays: Vec<Ray> = (0..40).map(|k| Ray { world: w, ..Ray::new(at(k, 13), way(k), dx) }).collect();
    let shapes =
        [Polygon::circle([0.0, 0.0], 0.2).unwrap(), Polygon::new(vec![[0.0, 0.0], [0.4, 0.0], [0.1, 0.3]]).unwrap()];
    let casts: Vec<ShapeCast> =
        (0..40).map(|k| ShapeCast { world: w, ..ShapeCast::new(k % 2, at(k, 9), way(k + 3), dx / 2.0) }).collect();
    let mut hits: Vec<_> = world.cast_rays(&rays).unwrap();
    hits.extend(world.cast_shapes(&shapes, &casts).unwrap());
    let hits = hits
        .into_iter()
        .map(|h| {
            h.map(|h| {
                let bits = [h.fraction, h.point[0], h.point[1], h.normal[0], h.normal[1]].map(f64::to_bits);
                (local(h.body), bits[0], bits[1], bits[2], bits[3], bits[4])
            })
        })
        .collect();
    let boxes: Vec<BoxQuery> = (0..30)
        .map(|k| {
            let min = at(k, 7);
            BoxQuery { world: w, ..BoxQuery::new(Aabb { min, max: [min[0] + dx / 8.0, min[1] + dy / 10.0] }) }
        })
        .collect();
    let points: Vec<PointQuery> = (0..60).map(|k| PointQuery { world: w, ..PointQuery::new(at(k, 17)) }).collect();
    let mut found = world.query_boxes(&boxes).unwrap();
    found.extend(world.query_points(&points).unwrap());
    let found = found.into_iter().map(|list| list.into_iter().map(&local).collect()).collect();
    (hits, found)
}

/// Rays, shape casts and box and point queries that look into a world see its bodies alone:
/// each world's answers are those it gives alone, bit for bit (strips, bodies of several shapes,
/// and without strips, where the bodies' worlds are read directly).
#[test]
fn rays_casts_and_queries_see_their_own_world_alone() {
    let gpu = gpu();
    let cases = [
        (SceneKind::Shapes, BroadPhase::Strips),
        (SceneKind::Rooms, BroadPhase::Strips),
        (SceneKind::Mixed, BroadPhase::AllPairs),
    ];
    for (kind, broad) in cases {
        let options = WorldOptions::default().with_broad_phase(broad);
        let (bodies, worlds) = interleaved(kind, 60, 5);
        let poses: Vec<Transform> = (0..bodies.len() as u32).map(moved).collect();
        let mut bounds = bodies[0].aabb();
        for b in &bodies {
            let a = b.aabb();
            bounds = Aabb {
                min: [bounds.min[0].min(a.min[0]), bounds.min[1].min(a.min[1])],
                max: [bounds.max[0].max(a.max[0]), bounds.max[1].max(a.max[1])],
            };
        }
        let mut shared = World::from_bodies(&gpu, &bodies, &options).unwrap();
        shared.set_worlds(&worlds).unwrap();
        shared.set_transforms(&poses).unwrap();
        let mut blind = World::from_bodies(&gpu, &bodies, &options).unwrap();
        blind.set_transforms(&poses).unwrap();
        let (mut hits, mut crossed) = (0, 0);
        for w in 0..5 {
            let members: Vec<u32> = (0..bodies.len() as u32).filter(|&g| worlds[g as usize] == w).collect();
            let rank = |g: u32| members.binary_search(&g).map_or(u32::MAX, |i| i as u32);
            let own: Vec<Body> = members.iter().map(|&g| bodies[g as usize].clone()).collect();
            let mut alone = World::from_bodies(&gpu, &own, &options).unwrap();
            alone.set_transforms(&members.iter().map(|&g| poses[g as usize]).collect::<Vec<_>>()).unwrap();
            let mine = seen(&mut shared, bounds, w, rank);
            assert!(mine.0.iter().flatten().all(|h| h.0 != u32::MAX), "{kind:?}: world {w} sees another world's body");
            assert_eq!(mine, seen(&mut alone, bounds, 0, |i| i), "{kind:?}: world {w} differs from its lone run");
            hits += mine.0.iter().flatten().count() + mine.1.iter().map(Vec::len).sum::<usize>();
            // Without worlds the same rays and queries see other worlds' bodies: the test can fail.
            let all = seen(&mut blind, bounds, 0, |g| g);
            crossed += all.1.iter().flatten().filter(|&&g| worlds[g as usize] != w).count();
        }
        assert!(hits > 0 && crossed > 0, "{kind:?}: {hits} hits, {crossed} of other worlds: the test tests nothing");
    }
}
