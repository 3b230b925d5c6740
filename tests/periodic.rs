//! Periodic boxes (issue 65): the reference's pairs across the box's edges, judged by hand on
//! exact cases and against brute force over every image on generated scenes; the GPU's against
//! the reference on every scene kind, both broad phases, bodies straddling every edge and corner.

use satgpu::gpu::{World, WorldOptions};
use satgpu::reference::{self, Detection};
use satgpu::scene::{generate, generate_bodies, SceneKind};
use satgpu::{Body, Contact, ContactDetail, DetectOptions, Error, Periodic, Polygon, Transform};

mod common;

use common::periodic::{boxed, extent, scene_box};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).expect("a valid rectangle")
}

fn torus(x0: f64, y0: f64, x1: f64, y1: f64) -> Periodic {
    Periodic::new([x0, y0, x1, y1], [true, true]).expect("a valid box")
}

fn in_box(p: Periodic) -> DetectOptions {
    DetectOptions::default().with_periodic(p)
}

fn detect(polygons: &[Polygon], options: &DetectOptions) -> Vec<Contact> {
    reference::detect(polygons, options).contacts
}

fn moved(p: &Polygon, x: f64, y: f64) -> Polygon {
    p.transformed(&Transform { x, y, angle: 0.0 })
}

#[test]
fn a_pair_across_an_edge_is_the_same_pair_in_the_middle() {
    let p = torus(0.0, 0.0, 10.0, 10.0);
    // a straddles the right edge; b's image one box to the right overlaps it by a half.
    let (a, b) = (rect(8.5, 4.0, 10.5, 5.0), rect(0.0, 4.25, 1.0, 5.25));
    let across = detect(&[a.clone(), b.clone()], &in_box(p));
    let middle = detect(&[moved(&a, -5.0, 0.0), moved(&b, 5.0, 0.0)], &DetectOptions::default());
    assert_eq!(across, middle);
    assert_eq!(across, vec![Contact { a: 0, b: 1, normal: [1.0, 0.0], depth: 0.5 }]);
    // The other way round the normal still points from a to b: b is now on a's left.
    let swapped = detect(&[b, a], &in_box(p));
    assert_eq!(swapped, vec![Contact { a: 0, b: 1, normal: [-1.0, 0.0], depth: 0.5 }]);
    // Along y too, and not without the box.
    let (c, d) = (rect(4.0, -0.5, 5.0, 0.5), rect(4.0, 9.25, 5.0, 10.0));
    assert_eq!(
        detect(&[c.clone(), d.clone()], &in_box(p)),
        vec![Contact { a: 0, b: 1, normal: [0.0, -1.0], depth: 0.5 }]
    );
    assert!(detect(&[c, d], &DetectOptions::default()).is_empty());
}

#[test]
fn touching_across_edges_and_corners_is_exact() {
    let p = torus(0.0, 0.0, 10.0, 10.0);
    // A unit square in each corner: each touches the other three across an edge or the corner.
    let corners =
        [rect(0.0, 0.0, 1.0, 1.0), rect(9.0, 0.0, 10.0, 1.0), rect(0.0, 9.0, 1.0, 10.0), rect(9.0, 9.0, 10.0, 10.0)];
    let found = detect(&corners, &in_box(p));
    let pairs: Vec<(u32, u32)> = found.iter().map(|c| (c.a, c.b)).collect();
    assert_eq!(pairs, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
    assert!(found.iter().all(|c| c.depth == 0.0), "{found:?}");
    // Across x, b lies left of a (its image at x = -1): a to b points along -x.
    assert_eq!(found[0].normal, [-1.0, 0.0]);
    assert_eq!(found[1].normal, [0.0, -1.0]);
    // A cylinder wraps x only: the pairs across y and the corners are gone.
    let cylinder = Periodic::new([0.0, 0.0, 10.0, 10.0], [true, false]).unwrap();
    let pairs: Vec<(u32, u32)> = detect(&corners, &in_box(cylinder)).iter().map(|c| (c.a, c.b)).collect();
    assert_eq!(pairs, [(0, 1), (2, 3)]);
    // A gap of 1e-12 across the edge is a gap.
    let apart = [rect(0.0, 0.0, 1.0, 1.0), rect(9.0 - 1e-12, 0.0, 10.0 - 1e-12, 1.0)];
    assert!(detect(&apart, &in_box(p)).is_empty());
}

#[test]
fn bodies_far_outside_the_box_are_their_images() {
    // The scene below spans x from -3 to 4.5: the bodies left of -1 reach round the right edge.
    let p = torus(-1.0, 2.0, 7.0, 6.0);
    let scene = generate(SceneKind::Dense, 60, 7);
    // The dense scene's bodies, scaled into the box and laid out anywhere: whole boxes away.
    let bounds = scene_box(&scene);
    let fit = |q: &Polygon| {
        let s = 7.5 / (bounds.max[0] - bounds.min[0]).max(bounds.max[1] - bounds.min[1]);
        let v =
            q.vertices().iter().map(|v| [-3.0 + (v[0] - bounds.min[0]) * s, 2.0 + (v[1] - bounds.min[1]) * s * 0.5]);
        Polygon::new(v.collect()).unwrap()
    };
    let inside: Vec<Polygon> = scene.iter().map(fit).collect();
    let far: Vec<Polygon> = inside
        .iter()
        .enumerate()
        .map(|(i, q)| moved(q, 8.0 * (i as f64 * 37.0 % 201.0 - 100.0), 4.0 * (i % 7) as f64))
        .collect();
    let (near, away) = (detect(&inside, &in_box(p)), detect(&far, &in_box(p)));
    assert!(near.len() > 20, "a scene with pairs: {}", near.len());
    assert_same(&near, &away, 1e-9);
}

#[test]
fn generated_scenes_agree_with_every_image_by_brute_force() {
    for (kind, margin) in
        [(SceneKind::Crowd, 0.0), (SceneKind::Mixed, 0.0), (SceneKind::Shapes, 0.0), (SceneKind::Crowd, 0.3)]
    {
        let scene = generate(kind, 150, 3);
        let b = scene_box(&scene);
        let widest = scene.iter().map(|q| extent(&q.aabb())).fold(0.0, f64::max);
        // A box a little narrower than the scene: the bodies past its edges reach round.
        let least = 2.02 * (widest + margin);
        let (w, h) = (((b.max[0] - b.min[0]) * 0.9).max(least), (b.max[1] - b.min[1] - 0.5).max(least));
        let p = Periodic::new([b.min[0], b.min[1], b.min[0] + w, b.min[1] + h], [true, true]).unwrap();
        let mut options = in_box(p);
        options.world.margin = margin;
        let bodies: Vec<Body> = scene.iter().map(|q| Body::new(vec![q.clone()]).unwrap()).collect();
        let found = reference::detect(&bodies, &options).contacts;
        let brute = brute_force(&bodies, &p, margin);
        assert_same(&found, &brute, 0.0);
        // Some of them only across an edge.
        let plain = reference::detect(&bodies, &DetectOptions::default().with_margin(margin)).contacts;
        let across = found.iter().filter(|c| !plain.iter().any(|d| (d.a, d.b) == (c.a, c.b))).count();
        assert!(found.len() > 10 && across > 0, "{kind:?}: {} pairs, {across} across", found.len());
    }
}

#[test]
fn bodies_of_several_shapes_pair_by_their_deepest_image() {
    let bodies = generate_bodies(SceneKind::COMPOUND[0], 60, 5);
    let b = bodies.iter().map(Body::aabb).reduce(|a, b| a.union(&b)).unwrap();
    let widest = bodies.iter().map(|q| extent(&q.aabb())).fold(0.0, f64::max);
    let w = ((b.max[0] - b.min[0]) * 0.8).max(2.0 * widest * 1.01);
    let h = ((b.max[1] - b.min[1]) * 0.8).max(2.0 * widest * 1.01);
    let p = Periodic::new([b.min[0], b.min[1], b.min[0] + w, b.min[1] + h], [true, true]).unwrap();
    let found = reference::detect(&bodies, &in_box(p)).contacts;
    assert!(!found.is_empty());
    assert_same(&found, &brute_force(&bodies, &p, 0.0), 0.0);
}

#[test]
fn a_scene_no_body_crosses_is_the_scene_without_a_box() {
    let scene = generate(SceneKind::Shapes, 300, 11);
    let b = scene_box(&scene);
    let (w, h) = (b.max[0] - b.min[0], b.max[1] - b.min[1]);
    // Room on every side: nothing reaches round.
    let p = torus(b.min[0] - w, b.min[1] - h, b.max[0] + w, b.max[1] + h);
    let full = DetectOptions::default().with_contact_detail(ContactDetail::Full);
    let boxed = full.clone().with_periodic(p);
    let (plain, periodic): (Detection, Detection) =
        (reference::detect(&scene, &full), reference::detect(&scene, &boxed));
    assert!(!plain.contacts.is_empty());
    assert_eq!((plain.contacts, plain.manifolds), (periodic.contacts, periodic.manifolds));
}

#[test]
fn contact_points_lie_on_the_image_that_touches() {
    let p = torus(0.0, 0.0, 10.0, 10.0);
    let (a, b) = (rect(9.0, 4.0, 10.5, 5.0), rect(0.0, 4.0, 1.0, 5.0));
    let options = in_box(p).with_contact_detail(ContactDetail::Full);
    let found = reference::detect(&[a, b], &options);
    let points = found.manifolds[0].points();
    assert_eq!(points.len(), 2);
    // Midway between a's right side (10.5) and the image's left side (10).
    for q in points {
        assert_eq!((q.point[0], q.depth), (10.25, 0.5), "{q:?}");
    }
}

#[test]
fn scales_from_1e_minus_20_to_1e20_give_the_same_pairs() {
    let base =
        [rect(8.5, 4.0, 10.5, 5.0), rect(0.0, 4.25, 1.0, 5.25), rect(4.0, -0.5, 5.0, 0.5), rect(4.0, 9.25, 5.0, 10.0)];
    let unit = detect(&base, &in_box(torus(0.0, 0.0, 10.0, 10.0)));
    assert_eq!(unit.len(), 2);
    for e in (-20..=20).step_by(5) {
        // A power of two near 10^e keeps every coordinate exact.
        let s = 2f64.powi((f64::from(e) * std::f64::consts::LOG2_10).round() as i32);
        let scaled: Vec<Polygon> = base.iter().map(|q| scale(q, s)).collect();
        let found = detect(&scaled, &in_box(torus(0.0, 0.0, 10.0 * s, 10.0 * s)));
        let expect: Vec<Contact> = unit.iter().map(|c| Contact { depth: c.depth * s, ..*c }).collect();
        assert_eq!(found, expect, "scale {s:e}");
    }
}

#[test]
fn a_body_too_wide_for_the_box_is_named() {
    let p = torus(0.0, 0.0, 10.0, 10.0);
    let err = p.check_boxes([rect(0.0, 0.0, 1.0, 1.0).aabb(), rect(0.0, 0.0, 1.0, 5.0).aabb()], 0.0).unwrap_err();
    assert!(matches!(&err, Error::InvalidSetting { what: "periodic box", .. }), "{err}");
    assert!(err.to_string().contains("body 1") && err.to_string().contains("along y"), "{err}");
    let result = std::panic::catch_unwind(|| detect(&[rect(0.0, 0.0, 6.0, 1.0)], &in_box(p)));
    assert!(result.is_err(), "the reference judges only what the library accepts");
}

/// The GPU's pairs against the reference's on `polygons` in `p`; how many pairs cross an edge.
fn gpu_agrees(gpu: &satgpu::gpu::Gpu, polygons: &[Polygon], options: &DetectOptions, what: &str) -> usize {
    let mut world = World::from_polygons(gpu, polygons, &options.world).expect("world");
    let frame = world.step().expect("frame");
    let expected = reference::detect(polygons, options).contacts;
    let report = satgpu::validate::compare(polygons, &frame.contacts, &expected, options);
    assert!(report.ok(), "{what}: {} disagreements, first: {}", report.disagreements.len(), report.disagreements[0]);
    let plain = reference::detect(polygons, &DetectOptions::default().with_margin(options.world.margin)).contacts;
    expected.iter().filter(|c| !plain.iter().any(|d| (d.a, d.b) == (c.a, c.b))).count()
}

#[test]
fn the_gpu_agrees_on_every_kind_in_a_box_with_both_broad_phases() {
    use satgpu::gpu::BroadPhase;
    let gpu = common::gpu();
    let mut across = 0;
    for kind in SceneKind::ALL {
        let (scene, p) = boxed(kind, 400, 21, 0.0);
        for broad in [BroadPhase::Strips, BroadPhase::AllPairs] {
            let mut options = DetectOptions::default().with_periodic(p);
            options.world.broad_phase = broad;
            across += gpu_agrees(&gpu, &scene, &options, &format!("{kind:?}, {broad:?}"));
        }
    }
    assert!(across > 100, "only {across} pairs across an edge: the test proves little");
}

#[test]
fn the_gpu_agrees_with_a_margin_a_cylinder_and_bodies_far_away() {
    let gpu = common::gpu();
    let (scene, p) = boxed(SceneKind::Shapes, 600, 4, 0.5);
    let options = DetectOptions::default().with_periodic(p).with_margin(0.5);
    assert!(gpu_agrees(&gpu, &scene, &options, "margin") > 5);
    let [x0, y0, x1, y1] = p.bounds();
    let cylinder = Periodic::new([x0, y0, x1, y1], [false, true]).unwrap();
    assert!(gpu_agrees(&gpu, &scene, &DetectOptions::default().with_periodic(cylinder), "cylinder") > 0);
    // Every body moved by whole boxes, up to 50 either way: the same pairs.
    let [w, h] = p.size();
    let far: Vec<Polygon> = scene
        .iter()
        .enumerate()
        .map(|(i, q)| moved(q, w * (i as f64 * 7.0 % 101.0 - 50.0), h * (i % 9) as f64))
        .collect();
    gpu_agrees(&gpu, &far, &DetectOptions::default().with_periodic(p), "far away");
}

#[test]
fn exact_touches_across_edges_on_the_gpu() {
    let gpu = common::gpu();
    let p = torus(0.0, 0.0, 10.0, 10.0);
    let corners =
        [rect(0.0, 0.0, 1.0, 1.0), rect(9.0, 0.0, 10.0, 1.0), rect(0.0, 9.0, 1.0, 10.0), rect(9.0, 9.0, 10.0, 10.0)];
    let options = WorldOptions::default().with_periodic(p);
    let found = World::from_polygons(&gpu, &corners, &options).unwrap().step().unwrap().contacts;
    assert_eq!(common::bits(&found), common::bits(&detect(&corners, &in_box(p))));
    // A pair across an edge is the same pair in the middle of the box, to the bit.
    let (a, b) = (rect(8.5, 4.0, 10.5, 5.0), rect(0.0, 4.25, 1.0, 5.25));
    let across = World::from_polygons(&gpu, &[a.clone(), b.clone()], &options).unwrap().step().unwrap().contacts;
    let middle = [moved(&a, -5.0, 0.0), moved(&b, 5.0, 0.0)];
    let plain = World::from_polygons(&gpu, &middle, &WorldOptions::default()).unwrap().step().unwrap().contacts;
    assert_eq!(common::bits(&across), common::bits(&plain));
    assert_eq!(across, vec![Contact { a: 0, b: 1, normal: [1.0, 0.0], depth: 0.5 }]);
}

#[test]
fn a_scene_no_body_crosses_gives_the_bytes_without_a_box_on_the_gpu() {
    let gpu = common::gpu();
    let scene = generate(SceneKind::Shapes, 500, 9);
    let b = scene_box(&scene);
    let (w, h) = (b.max[0] - b.min[0], b.max[1] - b.min[1]);
    let p = torus(b.min[0] - w, b.min[1] - h, b.max[0] + w, b.max[1] + h);
    let full = WorldOptions::default().with_contact_detail(ContactDetail::Full);
    let plain = World::from_polygons(&gpu, &scene, &full).unwrap().step().unwrap();
    let boxed = World::from_polygons(&gpu, &scene, &full.clone().with_periodic(p)).unwrap().step().unwrap();
    assert!(!plain.contacts.is_empty());
    assert_eq!(common::bits(&plain.contacts), common::bits(&boxed.contacts));
    assert_eq!(plain.manifolds, boxed.manifolds);
}

#[test]
fn the_gpu_refuses_what_does_not_fit_by_name() {
    let gpu = common::gpu();
    let p = torus(0.0, 0.0, 10.0, 10.0);
    let options = WorldOptions::default().with_periodic(p);
    let wide = World::from_polygons(&gpu, &[rect(0.0, 0.0, 1.0, 1.0), rect(2.0, 0.0, 8.0, 1.0)], &options).err();
    assert!(
        matches!(&wide, Some(Error::InvalidSetting { what: "periodic box", detail }) if detail.contains("body 1")),
        "{wide:?}"
    );
    // New polygons too wide keep the old ones.
    let mut world =
        World::from_polygons(&gpu, &[rect(0.0, 0.0, 1.0, 1.0), rect(0.5, 0.0, 1.5, 1.0)], &options).unwrap();
    assert!(world.set_polygons(&[rect(0.0, 0.0, 1.0, 1.0), rect(0.5, 0.0, 6.5, 1.0)]).is_err());
    assert_eq!(world.step().unwrap().contacts.len(), 1);
    // Turned, a body must fit at any angle: twice its reach from its origin (here 9.6).
    let mut turning = World::new(&gpu, &[rect(0.0, -0.1, 4.8, 0.1)], &[0, 0], &options).unwrap();
    assert!(turning.set_transforms(&[Transform::default(), Transform { x: 5.0, y: 5.0, angle: 0.0 }]).is_ok());
    let turned = turning.set_transforms(&[Transform::default(), Transform { x: 5.0, y: 5.0, angle: 1.0 }]).err();
    assert!(matches!(&turned, Some(Error::InvalidSetting { what: "periodic box", .. })), "{turned:?}");
}

#[test]
fn turning_bodies_and_new_polygons_agree_across_edges() {
    let gpu = common::gpu();
    let (scene, p) = boxed(SceneKind::Crowd, 300, 8, 0.0);
    let mut world = World::from_polygons(&gpu, &scene, &WorldOptions::default().with_periodic(p)).unwrap();
    world.step().unwrap();
    // Every polygon a box to the left: the same answer, from the streamed path.
    let [w, _] = p.size();
    let left: Vec<Polygon> = scene.iter().map(|q| moved(q, -w, 0.0)).collect();
    world.set_polygons(&left).unwrap();
    let found = world.step().unwrap().contacts;
    let options = DetectOptions::default().with_periodic(p);
    let expected = reference::detect(&left, &options).contacts;
    assert!(satgpu::validate::compare(&left, &found, &expected, &options).ok());
    // Bodies of one shape at turned poses, across the edges.
    let shapes = [rect(-0.5, -0.25, 0.5, 0.25)];
    let [x0, y0, x1, y1] = p.bounds();
    let poses: Vec<Transform> = (0..200)
        .map(|i| {
            let f = f64::from(i);
            Transform {
                x: x0 + (x1 - x0) * (f * 0.618).fract() - 3.0,
                y: y0 + (y1 - y0) * (f * 0.382).fract(),
                angle: f * 0.7,
            }
        })
        .collect();
    let mut turning =
        World::new(&gpu, &shapes, &vec![0; poses.len()], &WorldOptions::default().with_periodic(p)).unwrap();
    turning.set_transforms(&poses).unwrap();
    let found = turning.step().unwrap().contacts;
    let placed: Vec<Polygon> = poses.iter().map(|t| shapes[0].transformed(t)).collect();
    let expected = reference::detect(&placed, &options).contacts;
    let report = satgpu::validate::compare(&placed, &found, &expected, &options);
    assert!(report.ok(), "{:?}", report.disagreements.first());
    assert!(expected.len() > 10);
}

// ---- helpers ----

fn scale(p: &Polygon, s: f64) -> Polygon {
    Polygon::new(p.vertices().iter().map(|v| [v[0] * s, v[1] * s]).collect()).unwrap()
}

/// Every pair of bodies, every shape pair and every image from two boxes left to two boxes right
/// (and down and up): the deepest image pair within the margin, from the definitions alone.
fn brute_force(bodies: &[Body], p: &Periodic, margin: f64) -> Vec<Contact> {
    let size = p.size();
    let mut out = vec![];
    for a in 0..bodies.len() {
        for b in a + 1..bodies.len() {
            let mut best: Option<Contact> = None;
            for sa in bodies[a].shapes() {
                for sb in bodies[b].shapes() {
                    for nx in -2..=2 {
                        for ny in -2..=2 {
                            let image = moved(sb, f64::from(nx) * size[0], f64::from(ny) * size[1]);
                            // Colliding: the contact; apart: minus the distance, within the margin.
                            let (normal, depth) = match reference::contact(sa, &image) {
                                Some(found) => found,
                                None if margin > 0.0 => {
                                    let (normal, distance) = reference::signed_distance(sa, &image);
                                    if distance > margin {
                                        continue;
                                    }
                                    (normal, -distance.max(0.0) + 0.0)
                                }
                                None => continue,
                            };
                            if best.is_none_or(|c| depth > c.depth) {
                                best = Some(Contact { a: a as u32, b: b as u32, normal, depth });
                            }
                        }
                    }
                }
            }
            out.extend(best);
        }
    }
    out
}

/// The same pairs, with normals and depths within `tolerance` of each pair's size.
fn assert_same(found: &[Contact], expect: &[Contact], tolerance: f64) {
    let pairs = |c: &[Contact]| c.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>();
    assert_eq!(pairs(found), pairs(expect));
    for (f, e) in found.iter().zip(expect) {
        let near = |x: f64, y: f64| (x - y).abs() <= tolerance * (1.0 + y.abs());
        assert!(
            near(f.depth, e.depth) && near(f.normal[0], e.normal[0]) && near(f.normal[1], e.normal[1]),
            "{f:?} against {e:?}"
        );
    }
}

#[test]
fn manifolds_events_worlds_and_compound_bodies_in_a_box_on_the_gpu() {
    let gpu = common::gpu();
    // Contact points on the image that touches, against the reference's (bodies' anchors in the
    // box, where the GPU keeps them).
    let (scene, p) = boxed(SceneKind::Shapes, 500, 6, 0.0);
    let inside: Vec<Polygon> = scene
        .iter()
        .map(|q| {
            let [w, h] = p.size();
            let n = p.cell_shift(q.vertices()[0]);
            moved(q, n[0] * w, n[1] * h)
        })
        .collect();
    let options = DetectOptions::default().with_periodic(p).with_contact_detail(ContactDetail::Full);
    let frame = World::from_polygons(&gpu, &inside, &options.world).unwrap().step().unwrap();
    let wrong = satgpu::validate::compare_manifolds(&inside, &frame.contacts, &[], &frame.manifolds, &options);
    assert!(wrong.is_empty(), "{:?}", wrong.first());
    assert!(gpu_agrees(&gpu, &inside, &options, "manifolds") > 0);
    // Events: a square walking right across the edge onto another begins and ends touching there.
    let shapes = [rect(-0.5, -0.5, 0.5, 0.5)];
    let torus10 = torus(0.0, 0.0, 10.0, 10.0);
    let mut world =
        World::new(&gpu, &shapes, &[0, 0], &WorldOptions::default().with_periodic(torus10).with_events(true)).unwrap();
    let mut seen = vec![];
    for x in [8.0, 9.75, 10.5, 11.25, 12.0] {
        world.set_transforms(&[Transform { x: 0.5, y: 5.0, angle: 0.0 }, Transform { x, y: 5.0, angle: 0.0 }]).unwrap();
        let contacts = world.step().unwrap().contacts;
        let events = world.events().unwrap().clone();
        seen.push((contacts.len(), events.began.len(), events.ended.len()));
    }
    // Apart at 8; at 9.75 it overlaps the first's image across the edge by a quarter; at 10.5
    // (moved into the box: 0.5) and 11.25 it overlaps the first itself; apart at 12.
    assert_eq!(seen, [(0, 0, 0), (1, 1, 0), (1, 0, 0), (1, 0, 0), (0, 0, 1)]);
    // Many worlds: a pair across an edge only within one world.
    let pair = [rect(9.5, 4.0, 10.5, 5.0), rect(0.25, 4.0, 1.25, 5.0), rect(0.25, 4.0, 1.25, 5.0)];
    let mut worlds = World::from_polygons(&gpu, &pair, &WorldOptions::default().with_periodic(torus10)).unwrap();
    worlds.set_worlds(&[0, 1, 0]).unwrap();
    let found: Vec<(u32, u32)> = worlds.step().unwrap().contacts.iter().map(|c| (c.a, c.b)).collect();
    assert_eq!(found, [(0, 2)]);
    // Bodies of several shapes: each pair of bodies by its deepest part pair and image.
    let bodies = generate_bodies(SceneKind::COMPOUND[0], 40, 3);
    let b = bodies.iter().map(Body::aabb).reduce(|a, b| a.union(&b)).unwrap();
    let widest = bodies.iter().map(|q| extent(&q.aabb())).fold(0.0, f64::max);
    let (w, h) = (((b.max[0] - b.min[0]) * 0.8).max(2.02 * widest), ((b.max[1] - b.min[1]) * 0.8).max(2.02 * widest));
    let p = Periodic::new([b.min[0], b.min[1], b.min[0] + w, b.min[1] + h], [true, true]).unwrap();
    let options = DetectOptions::default().with_periodic(p);
    let frame = World::from_bodies(&gpu, &bodies, &options.world).unwrap().step().unwrap();
    let expected = reference::detect(&bodies, &options).contacts;
    let report = satgpu::validate::compare(&bodies, &frame.contacts, &expected, &options);
    assert!(report.ok() && !expected.is_empty(), "{:?}", report.disagreements.first());
}
