//! The `World` API as an embedding program uses it: per-frame transforms, growth, results kept
//! on the GPU, typed errors, and recovery after errors.

mod common;

#[allow(dead_code, reason = "the example's main is not called here")]
#[path = "../examples/crowd.rs"]
mod crowd;

use common::{bits, gpu_contacts, read_back};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use satgpu::gpu::{self, ContactOrder, Question, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::validate;

use satgpu::{reference, Contact, Error, Polygon, Transform};
use satgpu::{ContactDetail, DetectOptions};

#[test]
fn repeated_runs_are_bitwise_identical() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Clustered, 3000, 7);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let first = bits(&world.step().unwrap().contacts);
    assert!(first.len() > 1000);
    for _ in 0..3 {
        assert_eq!(bits(&world.step().unwrap().contacts), first, "same world, next frame");
    }
    let (fresh, _) = gpu_contacts(&gpu, &polygons, &WorldOptions::default());
    assert_eq!(bits(&fresh), first, "fresh world");
    let sorted = first.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1));
    assert!(sorted, "pairs are sorted by (a, b) and unique");
}

#[test]
fn candidate_overflow_grows_the_buffers_and_loses_nothing() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Dense, 2000, 3);
    let (want, reruns) = gpu_contacts(&gpu, &polygons, &WorldOptions::default());
    assert_eq!(reruns, 0);
    let small = WorldOptions::default().with_candidate_capacity(1);
    let (got, reruns) = gpu_contacts(&gpu, &polygons, &small);
    assert_eq!(reruns, 1, "a frame that overflows is rerun once, with room for every candidate");
    assert_eq!(bits(&got), bits(&want));
    let mut world = World::from_polygons(&gpu, &polygons, &small).unwrap();
    world.step().unwrap();
    assert!(world.candidate_capacity() > 1);
    assert_eq!(world.step().unwrap().stats.reruns, 0, "the grown capacity is kept for later frames");
}

#[test]
fn empty_and_single_polygon_scenes_have_no_pairs() {
    let gpu = common::gpu();
    assert!(gpu::detect::<Polygon>(&gpu, &[], &DetectOptions::default()).map(|f| f.contacts).unwrap().is_empty());
    let one = generate(SceneKind::Crowd, 1, 0);
    assert!(gpu::detect(&gpu, &one, &DetectOptions::default()).map(|f| f.contacts).unwrap().is_empty());
    let mut world = World::from_polygons(&gpu, &[], &WorldOptions::default()).unwrap();
    let frame = world.step().unwrap();
    assert_eq!((frame.stats.candidates, frame.stats.colliding), (0, 0));
}

fn random_transforms(rng: &mut ChaCha8Rng, n: usize, side: f64) -> Vec<Transform> {
    (0..n)
        // Translations are f32 on the GPU; give the reference the same positions.
        .map(|_| Transform {
            x: f64::from(rng.random_range(0.0..side) as f32),
            y: f64::from(rng.random_range(0.0..side) as f32),
            angle: rng.random_range(-std::f64::consts::PI..std::f64::consts::PI),
        })
        .collect()
}

#[test]
fn persistent_world_follows_per_frame_transforms() {
    let gpu = common::gpu();
    // Shapes centred on the origin, so a transform places and spins them.
    let shapes: Vec<Polygon> = generate(SceneKind::Mixed, 12, 9)
        .iter()
        .map(|p| {
            let c = p.vertices().iter().fold([0.0, 0.0], |s, v| [s[0] + v[0], s[1] + v[1]]);
            let k = p.vertices().len() as f64;
            p.transformed(&Transform { x: -c[0] / k, y: -c[1] / k, angle: 0.0 })
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let body_shapes: Vec<u32> = (0..800).map(|_| rng.random_range(0..shapes.len() as u32)).collect();
    let mut world = World::new(&gpu, &shapes, &body_shapes, &WorldOptions::default()).unwrap();
    let mut total = 0;
    for frame in 0..6 {
        let transforms = random_transforms(&mut rng, body_shapes.len(), 60.0);
        world.set_transforms(&transforms).unwrap();
        let got = world.step().unwrap().contacts;
        common::placed_agree(&shapes, &body_shapes, &transforms, &got, &format!("frame {frame}"));
        total += got.len();
    }
    assert!(total > 100, "the frames should collide ({total} pairs)");
}

/// Issue 24: a frame from f64 transforms, from the GPU's own f32 records (a copy), from f32
/// `[x, y, angle]` and from separate translation and angle arrays (f64 and f32) has the same bits; a bad f32 pose is the same kind of error, names its body
/// and leaves the last upload in place.
#[test]
fn f32_poses_give_the_frames_of_the_f64_transforms() {
    let gpu = common::gpu();
    let shapes = generate(SceneKind::Shapes, 6, 4);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let body_shapes: Vec<u32> = (0..3000).map(|_| rng.random_range(0..shapes.len() as u32)).collect();
    let mut world = World::new(&gpu, &shapes, &body_shapes, &WorldOptions::default()).unwrap();
    // Angles that are f32 values, so that `[x, y, angle]` in f32 holds the same transforms.
    let transforms: Vec<Transform> = random_transforms(&mut rng, body_shapes.len(), 120.0)
        .into_iter()
        .map(|t| Transform { angle: f64::from(t.angle as f32), ..t })
        .collect();
    world.set_transforms(&transforms).unwrap();
    let want = world.step().unwrap().contacts;
    assert!(want.len() > 100, "{} pairs", want.len());
    common::placed_agree(&shapes, &body_shapes, &transforms, &want, "f64 transforms");
    let poses: Vec<gpu::GpuTransform> = transforms.iter().map(|t| gpu::GpuTransform::new(t.x, t.y, t.angle)).collect();
    let angles: Vec<[f32; 3]> = transforms.iter().map(|t| [t.x as f32, t.y as f32, t.angle as f32]).collect();
    world.set_transforms(&poses).unwrap();
    assert_eq!(bits(&world.step().unwrap().contacts), bits(&want), "GpuTransform");
    world.set_transforms(&angles).unwrap();
    assert_eq!(bits(&world.step().unwrap().contacts), bits(&want), "[x, y, angle]");
    // Separate arrays (NumPy's layout), f64 and f32, read where they lie.
    let xy: Vec<[f64; 2]> = transforms.iter().map(|t| [t.x, t.y]).collect();
    let angle: Vec<f64> = transforms.iter().map(|t| t.angle).collect();
    world.set_pose_arrays(gpu::PoseArrays { xy: &xy, angle: &angle }).unwrap();
    assert_eq!(bits(&world.step().unwrap().contacts), bits(&want), "f64 pose arrays");
    let (xy32, angle32): (Vec<[f32; 2]>, Vec<f32>) = angles.iter().map(|a| ([a[0], a[1]], a[2])).unzip();
    world.set_pose_arrays(gpu::PoseArrays { xy: &xy32, angle: &angle32 }).unwrap();
    assert_eq!(bits(&world.step().unwrap().contacts), bits(&want), "f32 pose arrays");
    let mut bad_angle = angle32.clone();
    bad_angle[0] = f32::INFINITY;
    match world.set_pose_arrays(gpu::PoseArrays { xy: &xy32, angle: &bad_angle }) {
        Err(Error::NonFiniteTransform { body: 0, .. }) => {}
        other => panic!("expected NonFiniteTransform for body 0, got {other:?}"),
    }
    let mut far = xy.clone();
    far[xy.len() - 1][1] = 1e38;
    match world.set_pose_arrays(gpu::PoseArrays { xy: &far, angle: &angle }) {
        Err(Error::TransformOutOfRange { body, .. }) => assert_eq!(body, xy.len() - 1),
        other => panic!("expected TransformOutOfRange for the last body, got {other:?}"),
    }
    for (xs, angles) in [(xy.len() - 1, xy.len()), (xy.len(), xy.len() + 1)] {
        match world.set_pose_arrays(gpu::PoseArrays { xy: &xy[..xs], angle: &vec![0.0; angles] }) {
            Err(Error::TransformCount { .. }) => {}
            other => panic!("expected TransformCount for {xs} translations and {angles} angles, got {other:?}"),
        }
    }
    assert_eq!(bits(&world.step().unwrap().contacts), bits(&want), "a refused pose array changed the frame");
    let mut bad = poses.clone();
    bad[0].sin = 0.5; // first body: gathering code breaks at index 0
    match world.set_transforms(&bad) {
        Err(Error::RotationNotUnit { body: 0, .. }) => {}
        other => panic!("expected RotationNotUnit for body 0, got {other:?}"),
    }
    let last = body_shapes.len() - 1;
    bad[0] = poses[0];
    bad[last].x = f32::NAN;
    match world.set_transforms(&bad) {
        Err(Error::NonFiniteTransform { body, .. }) => assert_eq!(body, last),
        other => panic!("expected NonFiniteTransform for the last body, got {other:?}"),
    }
    assert_eq!(bits(&world.step().unwrap().contacts), bits(&want), "a refused upload changed the frame");
}

/// Issue 24: polygons written into the staging memory on every core (buffers past 2 MiB, in
/// pieces of 1 MiB and a rest; issue 64: every record as it is packed, in chunks of 2048
/// polygons and pieces of 256 shape records, and a shorter last of each): a world whose polygons
/// all moved, keeping their layout, gives the bits of a world built afresh from them, and agrees
/// with the reference.
#[test]
fn new_polygons_of_the_same_layout_give_the_frame_of_a_new_world() {
    let gpu = common::gpu();
    let before = generate(SceneKind::Mixed, 40_000, 5);
    let vertices: usize = before.iter().map(|p| p.vertices().len()).sum();
    assert!(16 * vertices > 2 << 20 && !(16 * vertices).is_multiple_of(1 << 20), "{vertices} vertices");
    let moved: Vec<Polygon> = before
        .iter()
        .enumerate()
        .map(|(i, p)| p.transformed(&Transform { x: 0.25 * (i % 7) as f64, y: -0.5, angle: 0.0 }))
        .collect();
    let mut world = World::from_polygons(&gpu, &before, &WorldOptions::default()).unwrap();
    world.step().unwrap();
    let generation = world.generation();
    world.set_polygons(&moved).unwrap();
    assert_eq!(world.generation(), generation, "the same layout rebuilt the world");
    let got = world.step().unwrap().contacts;
    let fresh = World::from_polygons(&gpu, &moved, &WorldOptions::default()).unwrap().step().unwrap().contacts;
    assert_eq!(bits(&got), bits(&fresh));
    let report = validate::compare(
        &moved,
        &got,
        &reference::detect(&moved, &DetectOptions::default()).contacts,
        &DetectOptions::default(),
    );
    assert!(report.ok(), "{:?}", report.disagreements.first());
}

#[test]
fn bad_bodies_and_transforms_are_typed_errors() {
    let gpu = common::gpu();
    let shapes = generate(SceneKind::Crowd, 2, 1);
    match World::new(&gpu, &shapes, &[0, 1, 5], &WorldOptions::default()) {
        Err(Error::UnknownShape { body: 2, shape: 5, shapes: 2 }) => {}
        other => panic!("expected UnknownShape for body 2, got {other:?}"),
    }
    let mut world = World::new(&gpu, &shapes, &[0, 1, 1], &WorldOptions::default()).unwrap();
    match world.set_transforms(&[Transform::IDENTITY; 2]) {
        Err(Error::TransformCount { got: 2, expected: 3 }) => {}
        other => panic!("expected TransformCount, got {other:?}"),
    }
    let mut bad = [Transform::IDENTITY; 3];
    bad[1].angle = f64::NAN;
    match world.set_transforms(&bad) {
        Err(Error::NonFiniteTransform { body: 1, .. }) => {}
        other => panic!("expected NonFiniteTransform for body 1, got {other:?}"),
    }
}

#[test]
fn results_can_stay_on_the_gpu() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Crowd, 2000, 4);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let want = world.step().unwrap().contacts;
    world.dispatch().unwrap();
    let totals: Vec<u32> = bytemuck::pod_collect_to_vec(&read_back(&gpu, world.totals_buffer(), 32));
    assert!(totals[0] <= world.entry_capacity() && totals[1] <= world.candidate_capacity());
    assert_eq!(totals[2] as usize, want.len());
    // Indirect arguments of a 64-wide pass over the colliding pairs.
    assert_eq!(totals[4..7], [totals[2].div_ceil(64), 1, 1]);
    let raw = read_back(&gpu, world.contacts_buffer(), 24 * u64::from(totals[2]));
    let mut got: Vec<Contact> = bytemuck::pod_collect_to_vec::<u8, gpu::layout::GpuContact>(&raw)
        .iter()
        .map(|c| Contact { a: c.a, b: c.b, normal: [c.normal_x.into(), c.normal_y.into()], depth: c.depth.into() })
        .collect();
    got.sort_by_key(|c| (c.a, c.b));
    assert_eq!(bits(&got), bits(&want));
}

/// After any error the world works again: a timeout (then again at once, with the late frame
/// still running), a validation error in satgpu's own submission, a capacity it cannot have, and
/// bad transforms.
#[test]
fn the_world_recovers_from_every_error() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Crowd, 20_000, 8);
    let want = reference::detect(&polygons, &DetectOptions::default()).contacts;
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let check = |world: &mut World, what: &str| {
        let frame = world.step().unwrap_or_else(|e| panic!("step after {what}: {e}"));
        assert!(
            validate::compare(&polygons, &frame.contacts, &want, &DetectOptions::default()).ok(),
            "wrong pairs after {what}"
        );
    };
    check(&mut world, "nothing");

    // GL runs a submission to the end inside `submit` on llvmpipe, so no wait can time out
    // there; every other backend must report the timeout (CI runs Vulkan too).
    let synchronous = gpu.adapter_info().backend == wgpu::Backend::Gl;
    world.set_timeout(std::time::Duration::from_micros(1));
    for round in 0..2 {
        match world.step() {
            Err(e @ Error::Timeout { .. }) => {
                assert!(e.to_string().contains("1µs"), "the timeout is reported in its units: {e}");
            }
            Ok(frame) if synchronous => {
                eprintln!("GL finished the frame inside submit: no timeout to recover from");
                assert!(validate::compare(&polygons, &frame.contacts, &want, &DetectOptions::default()).ok());
            }
            other => panic!("round {round}: expected a timeout, got {:?}", other.map(|f| f.stats.colliding)),
        }
    }
    world.set_timeout(std::time::Duration::from_secs(60));
    check(&mut world, "two timeouts");
    // A timeout past any clock (its deadline would overflow): the longest wait instead.
    assert_eq!(gpu.with_timeout(std::time::Duration::MAX).timeout(), satgpu::gpu::LONGEST_WAIT);
    world.set_timeout(std::time::Duration::MAX);
    check(&mut world, "the longest timeout");

    gpu::testing::poison_next_frame(&mut world);
    match world.step() {
        Err(Error::Device(message)) => assert!(!message.is_empty()),
        other => panic!("expected a device error, got {:?}", other.map(|f| f.stats.colliding)),
    }
    check(&mut world, "a validation error");

    match world.reserve(u64::MAX / 64, 0) {
        Err(Error::TooLarge { what: "strip entries", .. }) => {}
        other => panic!("expected TooLarge, got {other:?}"),
    }
    check(&mut world, "an impossible reservation");
}

#[test]
fn transforms_f32_cannot_hold_are_refused_and_the_world_goes_on() {
    let gpu = common::gpu();
    let shapes = generate(SceneKind::Crowd, 1, 1);
    let mut world = World::new(&gpu, &shapes, &[0, 0], &WorldOptions::default()).unwrap();
    let mut t = [Transform::IDENTITY, Transform { x: 1e39, y: 0.0, angle: 0.0 }];
    match world.set_transforms(&t) {
        Err(Error::TransformOutOfRange { body: 1, .. }) => {}
        other => panic!("expected TransformOutOfRange for body 1, got {other:?}"),
    }
    t[1].x = 0.25;
    world.set_transforms(&t).unwrap();
    assert_eq!(world.step().unwrap().contacts.len(), 1);
}

/// `step_into` reuses the caller's vector; `submit` then `collect_into` gives the same frame as
/// `step`, with CPU work in between; reserving up front means no rerun and no new buffers.
#[test]
fn step_into_submit_collect_and_reserve() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Dense, 5000, 2);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let want = world.step().unwrap();
    let mut contacts = Vec::with_capacity(want.contacts.len() + 10);
    let before = contacts.as_ptr();
    let stats = world.step_into(&mut contacts).unwrap();
    assert_eq!(contacts.as_ptr(), before, "step_into allocated a new vector");
    assert_eq!(bits(&contacts), bits(&want.contacts));
    assert_eq!(stats.colliding as usize, contacts.len());

    world.submit().unwrap();
    let cpu_work: f64 = (0..10_000).map(|i| f64::from(i).sqrt()).sum();
    assert!(cpu_work > 0.0);
    world.collect_into(&mut contacts).unwrap();
    assert_eq!(bits(&contacts), bits(&want.contacts));

    let mut fresh = World::from_polygons(&gpu, &polygons, &WorldOptions::default().with_candidate_capacity(1)).unwrap();
    let generation = fresh.generation();
    fresh.reserve(u64::from(fresh.entry_capacity()), want.stats.candidates).unwrap();
    assert_eq!(fresh.generation(), generation + 1, "reserving replaced the buffers");
    let frame = fresh.step().unwrap();
    assert_eq!(frame.stats.reruns, 0);
    assert_eq!(fresh.generation(), generation + 1);
    assert_eq!(bits(&frame.contacts), bits(&want.contacts));
}

/// The GPU-resident loop of examples/crowd.rs: the caller's pass moves bodies through
/// `transforms_buffer`, dispatched over the colliding pairs from `totals_buffer`, with no
/// readback per frame. It must reduce the overlaps, and give the same positions every run.
#[test]
fn gpu_resident_loop_pushes_bodies_apart_deterministically() {
    let gpu = common::gpu();
    let first = crowd::run(&gpu, 3000, 25).unwrap();
    assert!(first.colliding_before > 1000, "the crowd must start jammed: {}", first.colliding_before);
    assert!(
        first.depth_after < first.depth_before && first.colliding_after < first.colliding_before,
        "push-out did not help: {} pairs deepest {} -> {} pairs deepest {}",
        first.colliding_before,
        first.depth_before,
        first.colliding_after,
        first.depth_after
    );
    let second = crowd::run(&gpu, 3000, 25).unwrap();
    let bits = |p: &[[f32; 2]]| p.iter().map(|q| (q[0].to_bits(), q[1].to_bits())).collect::<Vec<_>>();
    assert_eq!(bits(&first.positions), bits(&second.positions), "two runs moved the bodies differently");
}

/// A frame copies as many contacts as the last one had (plus an eighth and 256) in its own
/// submission; a frame with more must copy the rest and lose nothing, one with fewer reads the
/// early copy; the same through a view, lent from the mapped memory when the GPU orders. Bodies
/// go from apart to piled up and back, checked against the reference.
#[test]
fn contacts_growing_and_shrinking_between_frames_are_all_read() {
    let gpu = common::gpu();
    let square = Polygon::new(vec![[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]).unwrap();
    let n = 600;
    let apart: Vec<Transform> = (0..n).map(|i| Transform { x: 3.0 * i as f64, y: 0.0, angle: 0.0 }).collect();
    // Piles of 20 bodies each, slightly offset so that every pair in a pile collides: 190 pairs a
    // pile, 5,700 in all, far more than the 256 the first guess copies. Offsets are multiples of
    // 1/64, so the f32 translations the GPU gets are exactly the reference's.
    let piled: Vec<Transform> =
        (0..n).map(|i| Transform { x: 10.0 * (i / 20) as f64 + (i % 20) as f64 / 64.0, y: 0.0, angle: 0.3 }).collect();
    let few: Vec<Transform> = (0..n).map(|i| if i < 40 { piled[i] } else { apart[i] }).collect();
    let frames = [("apart", &apart, 0), ("piled", &piled, 5700), ("few", &few, 380), ("piled again", &piled, 5700)];
    for order in [ContactOrder::Host, ContactOrder::Gpu] {
        let options = WorldOptions::default().with_order(order);
        let mut world = World::new(&gpu, std::slice::from_ref(&square), &vec![0; n], &options).unwrap();
        for (what, transforms, pairs) in frames {
            world.set_transforms(transforms).unwrap();
            // Lent first, so that the view meets the change of count (and, piled again, the copy of
            // only the pairs past the guess into a buffer with room for all).
            let view = world.step_view().unwrap();
            assert_eq!(view.is_mapped(), order == ContactOrder::Gpu);
            let lent: Vec<(u32, u32)> = view.iter().map(|c| (c.a, c.b)).collect();
            drop(view);
            let frame = world.step().unwrap();
            let pairs_of = frame.contacts.iter().map(|c| (c.a, c.b)).collect::<Vec<_>>();
            assert_eq!(lent, pairs_of, "{what}, {order:?}: the view and step differ");
            let polygons: Vec<Polygon> = transforms.iter().map(|t| square.transformed(t)).collect();
            let expected = reference::detect(&polygons, &DetectOptions::default()).contacts;
            assert_eq!(expected.len(), pairs, "{what}: the scene is what the test means");
            let report = validate::compare(&polygons, &frame.contacts, &expected, &DetectOptions::default());
            assert!(report.ok(), "{what}: {:?}", report.disagreements.first());
            assert_eq!(frame.contacts.len(), pairs, "{what}: every pair read back");
        }
    }
}

#[test]
fn timestamps_only_when_asked() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Crowd, 2000, 5);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let untimed = world.step().unwrap();
    let names: Vec<_> = untimed.stats.passes.iter().map(|p| (p.name, p.clock)).collect();
    assert_eq!(names, [("gpu_total", "wall"), ("readback", "wall")], "untimed frames report wall clock only");
    world.set_timestamps(true);
    let timed = world.step().unwrap();
    assert_eq!(bits(&timed.contacts), bits(&untimed.contacts), "timing changes nothing in the result");
    if gpu.has_timestamps() {
        let gpu_passes: Vec<_> = timed.stats.passes.iter().filter(|p| p.clock == "gpu").map(|p| p.name).collect();
        let want: Vec<_> = world.passes().iter().map(|p| p.name()).collect();
        assert_eq!(gpu_passes, want, "one timed pass per stage, in frame order");
    }
}

/// The frame is its plan: for every choice that changes the steps a frame records (broad phase,
/// contact detail, ordering, events, and the detail switched on a live world), `passes()` is
/// the list the options imply, and a timed frame's passes are `passes()`, in order (on an
/// adapter without timestamps the frame reports the wall clock instead, and says so).
#[test]
fn a_frame_runs_its_plan_and_reports_its_passes() {
    let gpu = common::gpu();
    let strips = ["transform", "entries", "sort", "sweep_count", "scan_candidates", "sweep_write"];
    let all_pairs = ["transform", "allpairs_count", "scan_allpairs", "allpairs_write"];
    let orders = [ContactOrder::Auto, ContactOrder::Host, ContactOrder::Gpu];
    for (n, broad) in [(200, &all_pairs[..]), (2000, &strips[..])] {
        let polygons = generate(SceneKind::Mixed, n, 9);
        for (order, full, events) in orders.iter().flat_map(|&o| [(o, false, false), (o, true, false), (o, true, true)])
        {
            let detail = if full { ContactDetail::Full } else { ContactDetail::Basic };
            let options = WorldOptions::default().with_order(order).with_contact_detail(detail).with_events(events);
            let mut world = World::from_polygons(&gpu, &polygons, &options).unwrap();
            let what = format!("{n} bodies, {order:?}, full {full}, events {events}");
            let expect = |world: &World, full: bool| {
                let mut names: Vec<&str> = broad.to_vec();
                names.extend(["sat", "compact"]);
                let on_gpu = world.orders_on_gpu();
                names.extend(on_gpu.then_some("order"));
                names.extend(full.then_some("manifold"));
                names.extend((events && on_gpu).then_some("events"));
                names
            };
            let names = |world: &World| world.passes().iter().map(|p| p.name()).collect::<Vec<_>>();
            assert_eq!(names(&world), expect(&world, full), "{what}");
            let untimed = world.step().unwrap();
            world.set_timestamps(true);
            let timed = world.step().unwrap();
            assert_eq!(bits(&timed.contacts), bits(&untimed.contacts), "{what}: timing changes nothing");
            let reported: Vec<&str> = timed.stats.passes.iter().map(|p| p.name).filter(|&p| p != "readback").collect();
            match gpu.has_timestamps() {
                true => assert_eq!(reported, names(&world), "{what}: the timed passes are the plan's"),
                false => assert_eq!(reported, ["gpu_total"], "{what}: no timestamps, the wall clock"),
            }
            // The detail switched on a live world changes the plan from the next frame.
            world.set_contact_detail(if full { ContactDetail::Basic } else { ContactDetail::Full }).unwrap();
            assert_eq!(names(&world), expect(&world, !full), "{what}, detail switched");
            let switched = world.step().unwrap();
            assert_eq!(switched.manifolds.len(), if full { 0 } else { switched.contacts.len() }, "{what}");
        }
    }
}

/// Small worlds sort their strip entries in one or two dispatches instead of the radix sort's 21
/// (src/gpu/stages/sort.rs): up to `Tuning::tile_keys` entries (16,384 on a CPU adapter, 1,024 as
/// tuned for GPUs) in one workgroup (radix_tile.wgsl), and otherwise up to 2,600 by rank
/// (rank_sort.wgsl). All three sorts are stable, so a world sized past each threshold gives the
/// same bits; ties (equal keys) are common in grid and pile, and every kind must agree with the
/// reference either way. The CPU tuning takes the one-workgroup sort at 300 and 500 bodies, the
/// GPU tuning the rank sort.
#[test]
fn the_small_rank_sort_and_the_radix_sort_give_the_same_bits() {
    let lock = common::gpu();
    let tuned = common::gpu_tuned_for_gpus();
    for (gpu, tuning) in [(&*lock, "cpu"), (&*tuned, "gpu")] {
        for kind in SceneKind::ALL {
            for n in [300, 500] {
                let polygons = generate(kind, n, 5);
                let what = format!("{kind} n={n}, {tuning} tuning");
                let (small, _) = gpu_contacts(gpu, &polygons, &WorldOptions::default());
                let radix = WorldOptions::default().with_entry_capacity(20_000);
                let (radix, _) = gpu_contacts(gpu, &polygons, &radix);
                assert_eq!(bits(&small), bits(&radix), "{what}: the small and the multi-tile sorts differ");
                let report = validate::compare(
                    &polygons,
                    &small,
                    &reference::detect(&polygons, &DetectOptions::default()).contacts,
                    &DetectOptions::default(),
                );
                assert!(report.ok(), "{what}: {} disagreements", report.disagreements.len());
            }
        }
    }
}

/// Issue 24: every frame reports the host's work as spans, in order, starting with what the
/// calls before it did; a frame left on the GPU reports nowhere and leaves nothing for the next.
#[test]
fn frames_report_their_host_spans() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Crowd, 500, 3);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let names = |stats: &gpu::FrameStats| stats.host.iter().map(|s| s.name).collect::<Vec<_>>();
    let ordered = if world.orders_on_gpu() { "widen" } else { "order" };

    world.set_polygons(&polygons).unwrap();
    let frame = world.step().unwrap();
    let spans = names(&frame.stats);
    assert_eq!(spans[..3], ["pack", "staging_write", "submit"], "{spans:?}");
    // Pairs the GPU sorted widen straight out of the mapped memory; the host's ordering copies
    // them out first.
    let reads: &[&str] = if world.orders_on_gpu() { &["wait", "map"] } else { &["wait", "map", "copy_out"] };
    for name in reads.iter().chain([&ordered]) {
        assert!(spans.contains(name), "{name} missing from {spans:?}");
    }
    assert_eq!(spans.last(), Some(&ordered));
    assert_eq!(frame.stats.host[0].start_ms, 0.0);
    for pair in frame.stats.host.windows(2) {
        assert!(pair[1].start_ms >= pair[0].start_ms + pair[0].ms - 1e-6, "spans overlap: {pair:?}");
    }

    let transforms: Vec<Transform> = (0..polygons.len()).map(|_| Transform::IDENTITY).collect();
    world.set_transforms(&transforms).unwrap();
    world.dispatch().unwrap();
    let mut raw = vec![];
    let spans = names(&world.step_f32_into(&mut raw).unwrap());
    assert_eq!(spans[0], "submit", "the spans before the resident frame were dropped: {spans:?}");
    world.set_transforms(&transforms).unwrap();
    let mut spans = names(&world.step().unwrap().stats);
    // The conversion writes into the staging memory it was given: staging first.
    spans[..2].sort_unstable();
    assert_eq!(spans[..3], ["staging_write", "transform_conversion", "submit"], "{spans:?}");
}

/// Mesa's software adapters end an invocation's loops after 65,535 iterations in all: the sweep
/// of a body whose box spans 140,000 others in one strip runs past that. There the walk runs in
/// windows (the frame asks for as many as it needs and reruns), so every adapter finds every
/// pair, in the same order, on the first frame and the next.
#[test]
fn a_sweep_longer_than_a_software_adapter_runs_finds_every_pair() {
    let gpu = common::gpu();
    let n = 140_000;
    let square = |x: f64| Polygon::new(vec![[x, 0.0], [x + 0.5, 0.0], [x + 0.5, 0.5], [x, 0.5]]).unwrap();
    let mut polygons = vec![Polygon::new(vec![[-1.0, 0.1], [n as f64, 0.1], [n as f64, 0.3], [-1.0, 0.3]]).unwrap()];
    polygons.extend((0..n).map(|k| square(k as f64)));
    let mut world = World::from_polygons(&gpu, &polygons, &Default::default()).unwrap();
    let want: Vec<(u32, u32)> = (1..=n as u32).map(|b| (0, b)).collect();
    for frame in 0..2 {
        let got: Vec<(u32, u32)> = world.step().unwrap().contacts.iter().map(|c| (c.a, c.b)).collect();
        assert!(got == want, "frame {frame}: {} pairs of {}", got.len(), want.len());
    }
}

/// The sweep's windows with candidates past one binding: a device whose bindings hold 3 MiB
/// runs the frame in batches, each writing its window of every walk's pairs.
#[test]
fn sweep_windows_and_batches_together_find_every_pair() {
    let (device, queue, info) =
        common::caller_device(wgpu::Limits { max_storage_buffer_binding_size: 3 << 20, ..common::satgpu_limits() });
    let gpu = gpu::Gpu::from_device(device, queue, info, std::time::Duration::from_secs(60)).unwrap();
    let n = 140_000u32;
    // Each square overlaps the next one; the long body overlaps them all. Two shapes, placed.
    let square = Polygon::new(vec![[0.0, 0.0], [1.5, 0.0], [1.5, 0.5], [0.0, 0.5]]).unwrap();
    let bar = Polygon::new(vec![[0.0, 0.0], [f64::from(n) + 1.0, 0.0], [f64::from(n) + 1.0, 0.2], [0.0, 0.2]]).unwrap();
    let body_shapes: Vec<u32> = (0..=n).map(|b| u32::from(b > 0)).collect();
    let mut world = World::new(&gpu, &[bar, square], &body_shapes, &Default::default()).unwrap();
    let place = |b: u32| match b {
        0 => Transform { x: -1.0, y: 0.1, angle: 0.0 },
        _ => Transform { x: f64::from(b - 1), y: 0.0, angle: 0.0 },
    };
    world.set_transforms(&(0..=n).map(place).collect::<Vec<_>>()).unwrap();
    let mut want: Vec<(u32, u32)> = (1..=n).map(|b| (0, b)).collect();
    want.extend((1..n).map(|a| (a, a + 1)));
    let got: Vec<(u32, u32)> = world.step().unwrap().contacts.iter().map(|c| (c.a, c.b)).collect();
    assert!(got == want, "{} pairs of {}", got.len(), want.len());
}

/// A device whose storage bindings hold 256 KiB (16,384 records of 16 bytes per page) and that
/// allows `storage` storage buffers per shader stage.
fn paged_device(storage: u32) -> gpu::Gpu {
    let (device, queue, info) = common::caller_device(wgpu::Limits {
        max_storage_buffer_binding_size: 256 << 10,
        max_storage_buffers_per_shader_stage: storage,
        ..common::satgpu_limits()
    });
    gpu::Gpu::from_device(device, queue, info, std::time::Duration::from_secs(60)).unwrap()
}

/// Every answer of a world of `polygons` on `gpu` that reads the large arrays: the pairs with
/// manifolds, again after `moved` (the same layout), box queries and ray casts, as bits.
fn paged_answers(gpu: &gpu::Gpu, polygons: &[Polygon], moved: &[Polygon], options: &WorldOptions) -> [String; 5] {
    use satgpu::{Aabb, BoxQuery, Filter, Ray};
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (lo, hi) = polygons.iter().fold(([f64::MAX; 2], [f64::MIN; 2]), |(lo, hi), p| {
        let b = p.aabb();
        ([lo[0].min(b.min[0]), lo[1].min(b.min[1])], [hi[0].max(b.max[0]), hi[1].max(b.max[1])])
    });
    let mut at = || [rng.random_range(lo[0]..hi[0]), rng.random_range(lo[1]..hi[1])];
    let boxes: Vec<BoxQuery> = (0..300)
        .map(|_| {
            let p = at();
            BoxQuery { aabb: Aabb { min: p, max: [p[0] + 3.0, p[1] + 2.0] }, filter: Filter::DEFAULT, world: 0 }
        })
        .collect();
    let rays: Vec<Ray> = (0..300).map(|k| Ray::new(at(), [(k as f64).cos(), (k as f64).sin()], 40.0)).collect();
    let mut world = World::from_polygons(gpu, polygons, options).unwrap();
    let first = world.step().unwrap();
    world.set_polygons(moved).unwrap();
    let second = world.step().unwrap();
    let found = world.query_boxes(&boxes).unwrap();
    let hits = world.cast_rays(&rays).unwrap();
    let found_some = found.iter().filter(|f| !f.is_empty()).count();
    assert!(
        first.contacts.len() > 150 && found_some > 30,
        "{} pairs, {found_some} boxes find bodies",
        first.contacts.len()
    );
    [
        format!("{:?}", bits(&first.contacts)),
        format!("{:?}", first.manifolds),
        format!("{:?}", bits(&second.contacts)),
        format!("{found:?}"),
        format!("{hits:?}"),
    ]
}

/// Large arrays past one binding, on [`paged_device`] with 16 storage buffers: shape records
/// (round: some 65,000, in 4 pages; shapes straddle their edges), then bodies and strip entries
/// as well (20,000 triangles: 2 pages of bodies, 4 of vertices; entries from a capacity of 100,
/// grown past the first page during the first frame; then the all-pairs broad phase's pairs, a
/// margin, filters on the first and last body).
/// Every answer has the bits of one binding.
/// With room for two pages only, the round scene is refused by name.
#[test]
fn arrays_past_one_binding_give_the_same_bytes_in_pages() {
    use satgpu::gpu::ContactDetail;
    let paged = paged_device(16);
    let full = WorldOptions::default().with_contact_detail(ContactDetail::Full);
    let moved = |polygons: &[Polygon]| -> Vec<Polygon> {
        polygons.iter().map(|p| p.transformed(&Transform { x: 0.3, y: -0.2, angle: 0.1 })).collect()
    };
    let round = generate(SceneKind::Round, 1000, 5);
    let records: usize = round.iter().map(|p| p.vertices().len() + usize::from(p.vertices().len() > 8)).sum();
    assert!(records > 3 * 16_384, "{records} shape records fill fewer than four pages");
    let same = |what: &str, want: [String; 5], got: [String; 5]| {
        for (name, (w, g)) in
            ["pairs", "manifolds", "pairs after set_polygons", "box queries", "rays"].iter().zip(want.iter().zip(&got))
        {
            assert!(w == g, "{what}: {name} differ in pages");
        }
    };
    let want = paged_answers(&common::gpu(), &round, &moved(&round), &full);
    same("round", want, paged_answers(&paged, &round, &moved(&round), &full));
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let triangles: Vec<Polygon> = (0..20_000)
        .map(|_| {
            let (x, y, a) = (rng.random_range(0.0..300.0), rng.random_range(0.0..300.0), rng.random_range(0.0..6.3f64));
            let corner = |t: f64, r: f64| [x + r * (a + t).cos(), y + r * (a + t).sin()];
            Polygon::new(vec![corner(0.0, 1.2), corner(2.1, 0.9), corner(4.2, 1.0)]).unwrap()
        })
        .collect();
    let grown = full.clone().with_entry_capacity(100);
    let want = paged_answers(&common::gpu(), &triangles, &moved(&triangles), &full);
    same("triangles", want.clone(), paged_answers(&paged, &triangles, &moved(&triangles), &grown));
    // The all-pairs broad phase reads the paged AABBs (and, on GPUs, its rays read them where
    // they would read the entries; on Mesa's software adapters a ray over 20,000 boxes meets
    // the loop limit and is refused).
    let all_pairs = full.clone().with_broad_phase(gpu::BroadPhase::AllPairs);
    let mut world = World::from_polygons(&paged, &triangles, &all_pairs).unwrap();
    assert!(format!("{:?}", bits(&world.step().unwrap().contacts)) == want[0], "all pairs: pairs differ in pages");
    // With a margin, and with filters on the first and the last body (the last in the second
    // page): the same pairs as one binding. (Events with candidates past one binding are still
    // refused: issue 41.)
    let none = satgpu::Filter { mask: 0, ..satgpu::Filter::DEFAULT };
    let mut filters = vec![satgpu::Filter::DEFAULT; triangles.len()];
    (filters[0], filters[triangles.len() - 1]) = (none, none);
    for (what, options) in [("margin", full.clone().with_margin(0.3)), ("filters", full.clone())] {
        let pairs = |gpu: &gpu::Gpu| {
            let mut world = World::from_polygons(gpu, &triangles, &options).unwrap();
            if what != "margin" {
                world.set_filters(&filters).unwrap();
            }
            let frame = world.step().unwrap();
            format!("{:?}", bits(&frame.contacts))
        };
        let one = pairs(&common::gpu());
        assert!(one.len() > 1000, "{what}: too few pairs");
        assert!(pairs(&paged) == one, "{what}: pairs differ in pages");
    }
    // Room for two pages (9 storage buffers): refused by name, with the bytes two pages hold.
    match World::from_polygons(&paged_device(9), &round, &full) {
        Err(Error::TooLarge { what: "shape vertices", limit, .. }) => assert_eq!(limit, 2 * (256 << 10)),
        other => panic!("expected TooLarge for the shape vertices, got {:?}", other.map(|w| w.len())),
    }
}

/// The questions asked of the bodies where they stand are plans too, named like a frame's
/// passes: casts and region queries walk the index a frame sorts, and
/// the neighbours' gather follows a frame left on the GPU.
#[test]
fn each_question_reports_its_passes() {
    let gpu = common::gpu();
    let names = |world: &World, q: Question| world.passes_of(q).iter().map(|p| p.name()).collect::<Vec<_>>();
    for (n, index) in [(200, &[][..]), (2000, &["entries", "sort"][..])] {
        let world = World::from_polygons(&gpu, &generate(SceneKind::Mixed, n, 3), &WorldOptions::default()).unwrap();
        assert_eq!(world.passes(), world.passes_of(Question::Frame), "{n}");
        let mut casts = vec!["transform"];
        casts.extend(index);
        casts.push("cast");
        assert_eq!(names(&world, Question::Casts), casts, "{n}");
        casts.pop();
        casts.push("query");
        assert_eq!(names(&world, Question::Queries), casts, "{n}");
        // Auto leaves a resident frame's pairs unordered.
        let mut gather: Vec<_> = names(&world, Question::Frame).into_iter().filter(|&p| p != "order").collect();
        assert_eq!(names(&world, Question::Resident), gather, "{n}");
        gather.extend(["gather", "rank"]);
        assert_eq!(names(&world, Question::Neighbours), gather, "{n}");
    }
}
