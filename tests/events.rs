//! Issue 26, contact events: the pairs that began and ended touching between frames, computed on
//! the GPU ([`World::events`], [`World::encode_with_events`]) against the reference's set difference
//! (`reference::contact_events`) of the frames' pairs, on every scene kind, on both sides of a
//! buffer's growth and of a rebuild, at the first and last body, with no pairs, and with a margin.

mod common;

use satgpu::gpu::{ContactOrder, World, WorldOptions};
use satgpu::reference;
use satgpu::reference::contact_events;
use satgpu::scene::{generate, SceneKind};
use satgpu::validate;

use satgpu::DetectOptions;
use satgpu::{Body, Contact, ContactEvents, Polygon, Transform};

fn square(x: f64, y: f64) -> Polygon {
    Polygon::new(vec![[x, y], [x + 1.0, y], [x + 1.0, y + 1.0], [x, y + 1.0]]).unwrap()
}

fn contact(a: u32, b: u32) -> Contact {
    Contact { a, b, normal: [1.0, 0.0], depth: 0.0 }
}

fn events_of(world: &World) -> ContactEvents {
    world.events().expect("a world with events").clone()
}

#[test]
fn the_reference_takes_the_set_difference() {
    let before = [contact(0, 1), contact(0, 5), contact(2, 3)];
    let now = [contact(2, 3), contact(0, 1), contact(1, 4), contact(0, 2)];
    let e = contact_events(&before, &now);
    assert_eq!(e.began, vec![[0, 2], [1, 4]]);
    assert_eq!(e.ended, vec![[0, 5]]);
    assert_eq!(contact_events(&[], &[]), ContactEvents::default());
    assert_eq!(contact_events(&now, &now), ContactEvents::default());
    assert_eq!(contact_events(&[], &before).began.len(), 3);
    assert_eq!(contact_events(&before, &[]).ended, vec![[0, 1], [0, 5], [2, 3]]);
}

/// `polygons` with each body moved by a small step that depends on the body and the frame.
fn moved(polygons: &[Polygon], frame: usize) -> Vec<Polygon> {
    polygons
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let b = p.aabb();
            let size = (b.max[0] - b.min[0]).max(b.max[1] - b.min[1]);
            let step = |k: usize| ((k % 7) as f64 - 3.0) * 0.08 * size;
            p.transformed(&Transform { x: step(i * 31 + frame * 17), y: step(i * 13 + frame * 5), angle: 0.0 })
        })
        .collect()
}

/// Runs `frames` frames of `polygons` moving, each checked against the reference's events of the
/// frames' own pairs, and the pairs against the reference detection; returns the events seen.
fn run_frames(world: &mut World, polygons: &[Polygon], frames: usize, what: &str) -> (usize, usize) {
    let mut previous: Vec<Contact> = vec![];
    let (mut began, mut ended) = (0, 0);
    for f in 0..frames {
        let scene = moved(polygons, f);
        world.set_polygons(&scene).unwrap();
        let frame = world.step().unwrap();
        // The pairs agree with the reference under the numerics contract (pairs that touch
        // within f32's band may differ); the events are those of the pairs reported.
        let report = validate::compare(
            &scene,
            &frame.contacts,
            &reference::detect(&scene, &DetectOptions::default()).contacts,
            &DetectOptions::default(),
        );
        assert!(report.ok(), "{what}, frame {f}: {:?}", report.disagreements.first());
        let want = contact_events(&previous, &frame.contacts);
        assert_eq!(events_of(world), want, "{what}, frame {f}");
        (began, ended) = (began + want.began.len(), ended + want.ended.len());
        previous = frame.contacts;
    }
    (began, ended)
}

#[test]
fn events_agree_with_the_reference_on_every_kind() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        let polygons = generate(kind, 600, 7);
        let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default().with_events(true)).unwrap();
        assert!(world.orders_on_gpu(), "events order on the GPU, on every adapter");
        let (began, ended) = run_frames(&mut world, &polygons, 4, kind.name());
        // The first frame's pairs all begin; later frames both begin and end some.
        assert!(began > 0 && ended > 0, "{}: {began} began, {ended} ended", kind.name());
    }
}

#[test]
fn a_change_at_the_first_and_the_last_body() {
    let gpu = common::gpu();
    let options = WorldOptions::default().with_events(true);
    let far = |i: usize| square(10.0 * i as f64, 0.0);
    let mut polygons: Vec<Polygon> = (0..6).map(far).collect();
    let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
    // No pairs, frame after frame: no events, and an empty list is not an error.
    for _ in 0..2 {
        assert!(world.step().unwrap().contacts.is_empty());
        assert_eq!(events_of(&world), ContactEvents::default());
    }
    // Body 0 meets body 1, and the last body meets the one before it.
    polygons[0] = square(9.5, 0.5);
    polygons[5] = square(40.5, 0.0);
    world.set_polygons(&polygons).unwrap();
    world.step().unwrap();
    assert_eq!(events_of(&world), ContactEvents { began: vec![[0, 1], [4, 5]], ended: vec![] });
    // Unchanged: no events.
    world.step().unwrap();
    assert_eq!(events_of(&world), ContactEvents::default());
    // Body 0 leaves body 1 for body 2; the last pair ends.
    polygons[0] = square(20.5, 0.5);
    polygons[5] = far(5);
    world.set_polygons(&polygons).unwrap();
    world.step().unwrap();
    assert_eq!(events_of(&world), ContactEvents { began: vec![[0, 2]], ended: vec![[0, 1], [4, 5]] });
    // Everything apart again: every pair ends.
    world.set_polygons(&(0..6).map(far).collect::<Vec<_>>()).unwrap();
    world.step().unwrap();
    assert_eq!(events_of(&world), ContactEvents { began: vec![], ended: vec![[0, 2]] });
}

#[test]
fn events_survive_growth_and_rebuilds() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Dense, 2000, 3);
    // Room for 16 candidates: the first frames grow the buffers and run again.
    let options = WorldOptions::default().with_events(true).with_candidate_capacity(16).with_entry_capacity(16);
    let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
    run_frames(&mut world, &polygons, 3, "growing");
    assert!(world.generation() > 0, "the buffers grew");
    // A world whose frames keep growing: more bodies pile in each frame, past the capacity.
    let mut world = World::from_polygons(&gpu, &polygons[..50], &options).unwrap();
    let mut previous = vec![];
    for n in [50, 400, 2000, 2000] {
        // A new body count rebuilds the world; the events still compare against the old pairs.
        world.set_polygons(&polygons[..n]).unwrap();
        let frame = world.step().unwrap();
        assert_eq!(events_of(&world), contact_events(&previous, &frame.contacts), "{n} bodies");
        previous = frame.contacts;
    }
}

#[test]
fn events_within_a_margin() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Crowd, 800, 5);
    let options = WorldOptions::default().with_events(true).with_margin(0.5);
    let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
    let mut previous = vec![];
    for f in 0..3 {
        let scene = moved(&polygons, f);
        world.set_polygons(&scene).unwrap();
        let frame = world.step().unwrap();
        let want = reference::detect(&scene, &DetectOptions::default().with_margin(0.5)).contacts;
        let pairs = |c: &[Contact]| c.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>();
        // Pairs within f32 of the margin may differ; the scene has none such in these frames.
        assert_eq!(pairs(&frame.contacts), pairs(&want), "frame {f}");
        assert_eq!(events_of(&world), contact_events(&previous, &frame.contacts), "frame {f}");
        previous = frame.contacts;
    }
}

#[test]
fn events_of_frames_left_on_the_gpu() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Clustered, 1500, 9);
    let options = WorldOptions::default().with_events(true).with_candidate_capacity(1 << 16);
    let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
    let mut previous = vec![];
    for f in 0..4 {
        let scene = moved(&polygons, f);
        world.set_polygons(&scene).unwrap();
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        world.encode_with_events(&mut encoder);
        gpu.queue().submit([encoder.finish()]);
        let totals: Vec<u32> =
            bytemuck::pod_collect_to_vec(&common::read_back(&gpu, world.events_totals_buffer().unwrap(), 32));
        let (began, ended) = (totals[0] as usize, totals[1] as usize);
        assert_eq!(totals[2] as usize, began + ended);
        // The indirect arguments cover every event with 64-wide workgroups.
        assert!(totals[4] as usize * totals[5] as usize * 64 >= began + ended && totals[6] == 1);
        let records: Vec<[u32; 2]> = match began + ended {
            0 => vec![],
            n => bytemuck::pod_collect_to_vec(&common::read_back(&gpu, world.events_buffer().unwrap(), 8 * n as u64)),
        };
        let now = reference::detect(&scene, &DetectOptions::default()).contacts;
        let want = contact_events(&previous, &now);
        assert_eq!(records[..began], want.began[..], "frame {f}: began");
        assert_eq!(records[began..], want.ended[..], "frame {f}: ended");
        assert!(began + ended > 0, "frame {f} has events");
        previous = now;
    }
    // A frame read back after them compares against the last encoded pairs.
    world.set_polygons(&polygons).unwrap();
    let frame = world.step().unwrap();
    assert_eq!(events_of(&world), contact_events(&previous, &frame.contacts));
}

#[test]
fn events_on_the_host_with_the_host_ordering_and_bodies_of_several_shapes() {
    let gpu = common::gpu();
    // The host ordering: the host computes the events from the pairs it ordered, the same events
    // as the GPU's, and frames left on the GPU have none.
    let host = WorldOptions::default().with_events(true).with_order(ContactOrder::Host);
    for kind in [SceneKind::Crowd, SceneKind::Shapes, SceneKind::Scales] {
        let polygons = generate(kind, 600, 7);
        let mut on_host = World::from_polygons(&gpu, &polygons, &host).unwrap();
        assert!(!on_host.orders_on_gpu() && on_host.events_buffer().is_none());
        let mut on_gpu = World::from_polygons(&gpu, &polygons, &WorldOptions::default().with_events(true)).unwrap();
        for f in 0..4 {
            let scene = moved(&polygons, f);
            on_gpu.set_polygons(&scene).unwrap();
            let gpu_frame = on_gpu.step().unwrap();
            on_host.set_polygons(&scene).unwrap();
            let host_frame = on_host.step().unwrap();
            assert_eq!(common::bits(&host_frame.contacts), common::bits(&gpu_frame.contacts), "{kind:?} {f}");
            assert_eq!(events_of(&on_host), events_of(&on_gpu), "{}, frame {f}", kind.name());
            assert!(host_frame.stats.host.iter().any(|s| s.name == "events"), "{:?}", host_frame.stats.host);
        }
        let mut fresh = World::from_polygons(&gpu, &polygons, &host).unwrap();
        let (began, ended) = run_frames(&mut fresh, &polygons, 4, kind.name());
        assert!(began > 0 && ended > 0, "{}: {began} began, {ended} ended", kind.name());
    }
    // Bodies of several shapes: events between bodies, from the pairs of bodies.
    let ell = |x: f64| {
        Body::concave(&[[x, 0.0], [x + 4.0, 0.0], [x + 4.0, 1.0], [x + 1.0, 1.0], [x + 1.0, 4.0], [x, 4.0]]).unwrap()
    };
    let bodies: Vec<Body> = (0..40).map(|i| if i % 3 == 0 { ell(0.0) } else { Body::from(square(0.0, 0.0)) }).collect();
    let mut world = World::from_bodies(&gpu, &bodies, &WorldOptions::default().with_events(true)).unwrap();
    let mut previous: Vec<Contact> = vec![];
    let mut seen = (0, 0);
    for f in 0..5 {
        let transforms: Vec<Transform> = (0..bodies.len())
            .map(|i| Transform {
                x: ((i * 7 + f * 3) % 11) as f64 * 1.3,
                y: ((i * 5 + f) % 9) as f64 * 1.1,
                angle: 0.0,
            })
            .collect();
        world.set_transforms(&transforms).unwrap();
        let frame = world.step().unwrap();
        let want = contact_events(&previous, &frame.contacts);
        assert_eq!(world.events(), Some(&want), "frame {f}");
        seen = (seen.0 + want.began.len(), seen.1 + want.ended.len());
        previous = frame.contacts;
    }
    assert!(seen.0 > 0 && seen.1 > 0, "{seen:?} events");
    // Without events, none are reported, and the resident buffers do not exist.
    let polygons = [square(0.0, 0.0), square(0.5, 0.0)];
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    world.step().unwrap();
    assert!(world.events().is_none() && world.events_buffer().is_none() && world.events_totals_buffer().is_none());
}

/// The pairs of a frame lent by `step_view`, as contacts.
fn viewed(world: &mut World) -> (Vec<Contact>, u32) {
    let view = world.step_view().unwrap();
    let contacts = view.iter().map(|c| contact(c.a, c.b)).collect();
    (contacts, view.stats().batches)
}

#[test]
fn events_past_one_binding_move_to_the_host_and_stay_right() {
    let _lock = common::gpu();
    let small = common::small_device();
    // 400 squares in a chain (399 pairs, one batch) or in a pile-up (every body overlaps every
    // other: more candidates than one binding holds, so batches).
    let chain: Vec<Polygon> = (0..400).map(|i| square(f64::from(i) * 0.8, 0.0)).collect();
    let pile: Vec<Polygon> = (0..400).map(|i| square(f64::from(i % 7) * 0.03, 0.0)).collect();
    let mut away = pile.clone();
    away[399] = square(500.0, 0.0);
    for order in [ContactOrder::Gpu, ContactOrder::Host] {
        let options = WorldOptions::default().with_events(true).with_order(order);
        let mut world = World::from_polygons(&small, &chain, &options).unwrap();
        let mut previous: Vec<Contact> = vec![];
        // The GPU's events first, then batches (the events move to the host, from the pairs
        // the GPU kept), the last body leaving the pile, back to one batch (lent pairs), the
        // same again (no events), the first body leaving the chain, and a longer chain (a
        // rebuild: the events stay on the host).
        let mut first_away = chain.clone();
        first_away[0] = square(-500.0, 0.0);
        let longer: Vec<Polygon> = (0..401).map(|i| square(f64::from(i) * 0.8, 0.0)).collect();
        let frames = [(&chain, false, 1), (&pile, false, 2), (&away, false, 2), (&chain, true, 1), (&chain, false, 1)];
        for (f, (scene, lent, batches)) in
            frames.into_iter().chain([(&first_away, false, 1), (&longer, false, 1)]).enumerate()
        {
            world.set_polygons(scene).unwrap();
            let (contacts, ran) = match lent {
                true => viewed(&mut world),
                false => {
                    let frame = world.step().unwrap();
                    (frame.contacts.iter().map(|c| contact(c.a, c.b)).collect(), frame.stats.batches)
                }
            };
            assert_eq!(ran.min(2), batches, "{order:?}, frame {f}: {ran} batches");
            let want = contact_events(&previous, &contacts);
            assert_eq!(events_of(&world), want, "{order:?}, frame {f}");
            let counts = [(399, 0), (79_401, 0), (0, 399), (1, 79_003), (0, 0), (0, 1), (2, 0)][f];
            assert_eq!((want.began.len(), want.ended.len()), counts, "{order:?}, frame {f}");
            if f == 0 {
                assert_eq!(world.events_buffer().is_some(), order == ContactOrder::Gpu, "the GPU's events first");
            }
            previous = contacts;
        }
        // The events stayed on the host.
        assert!(world.events_buffer().is_none(), "{order:?}");
    }
}

/// Events with GPU timestamps: the events pass is timed with the others, and the events are
/// the same; through `step_f32_into` and `step_view` too.
#[test]
fn events_with_timestamps_and_every_readback() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Crowd, 800, 2);
    let options = WorldOptions::default().with_events(true).with_timestamps(true);
    let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
    let frame = world.step().unwrap();
    if gpu.has_timestamps() {
        assert!(frame.stats.passes.iter().any(|p| p.name == "events" && p.clock == "gpu"), "{:?}", frame.stats.passes);
    }
    assert_eq!(events_of(&world).began.len(), frame.contacts.len());
    let moved_once = moved(&polygons, 1);
    world.set_polygons(&moved_once).unwrap();
    let mut records = vec![];
    world.step_f32_into(&mut records).unwrap();
    let now: Vec<Contact> = records.iter().map(|c| contact(c.a, c.b)).collect();
    assert_eq!(events_of(&world), contact_events(&frame.contacts, &now));
    world.set_polygons(&polygons).unwrap();
    let view_pairs: Vec<Contact> = world.step_view().unwrap().iter().map(|c| contact(c.a, c.b)).collect();
    assert_eq!(events_of(&world), contact_events(&now, &view_pairs));
}
