//! Issue 44, continuous collision on the GPU (`WorldOptions::continuous`): a small fast body shot
//! through a thin wall between two frames is caught with the option and missed without it, and
//! random scenes of every kind of shape, moving along lines and turning, agree with the f64
//! reference (`reference::sweep`) pair for pair, on each broad phase.

mod common;

use common::Rng;

use satgpu::gpu::{BroadPhase, World, WorldOptions};
use satgpu::reference::sweep;
use satgpu::{Body, Filter, Impact, Polygon, Transform};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

fn pose(x: f64, y: f64, angle: f64) -> Transform {
    Transform { x, y, angle }
}

/// The impacts of one frame that moves `shapes[body_shapes[i]]` from `start[i]` to `end[i]`.
fn gpu_sweep(
    gpu: &satgpu::gpu::Gpu,
    shapes: &[Body],
    body_shapes: &[u32],
    (start, end): (&[Transform], &[Transform]),
    options: &WorldOptions,
) -> (Vec<Impact>, usize) {
    let mut world = World::new(gpu, shapes, body_shapes, options).unwrap();
    world.set_transforms(start).unwrap();
    world.set_transforms(end).unwrap();
    let frame = world.step().unwrap();
    (frame.impacts, frame.contacts.len())
}

#[test]
fn a_fast_small_body_through_a_thin_wall_is_caught_only_with_the_option() {
    let gpu = common::gpu();
    // A wall 0.01 thick at x = 5; a ball of radius 0.05, and a small square, from x = 0 to 10.
    let shapes =
        [rect(-0.005, -2.0, 0.005, 2.0), Polygon::circle([0.0, 0.0], 0.05).unwrap(), rect(-0.05, -0.05, 0.05, 0.05)]
            .map(Body::from);
    let start = [pose(5.0, 0.0, 0.0), pose(0.0, 0.0, 0.0), pose(0.0, 1.0, 0.0)];
    let end = [pose(5.0, 0.0, 0.0), pose(10.0, 0.0, 0.0), pose(10.0, 1.0, 0.0)];
    let want = (5.0 - 0.005 - 0.05) / 10.0;
    let on = WorldOptions::default().with_continuous(true);
    let (found, contacts) = gpu_sweep(&gpu, &shapes, &[0, 1, 2], (&start, &end), &on);
    assert_eq!(contacts, 0, "the frame's own pairs: none at the end");
    assert_eq!(found.iter().map(|i| (i.a, i.b)).collect::<Vec<_>>(), [(0, 1), (0, 2)], "{found:?}");
    for i in &found {
        assert!((i.toi - want).abs() < 1e-5, "{i:?} against {want}");
    }
    assert_eq!(found.len(), sweep(&[&shapes[0], &shapes[1], &shapes[2]], &start, &end, &[]).len());
    // Without the option: no impacts, and the frame misses it.
    let (found, contacts) = gpu_sweep(&gpu, &shapes, &[0, 1, 2], (&start, &end), &WorldOptions::default());
    assert!(found.is_empty() && contacts == 0);
    // One pose only (a world whose transforms were set once): nothing moved, nothing found.
    let mut world = World::new(&gpu, &shapes, &[0, 1, 2], &on).unwrap();
    world.set_transforms(&end).unwrap();
    assert!(world.step().unwrap().impacts.is_empty());
    // The next frame sweeps from there: back through the wall.
    world.set_transforms(&start).unwrap();
    let back = world.step().unwrap().impacts;
    assert_eq!(back.len(), 2, "{back:?}");
    assert!((back[0].toi - want).abs() < 1e-5, "{back:?}");
    // A frame with no new poses: nothing moved since the last.
    assert!(world.step().unwrap().impacts.is_empty());
    // Poses set while a frame runs wait for the next: that frame sweeps from the poses the one
    // before ran with.
    world.set_transforms(&end).unwrap();
    world.submit().unwrap();
    world.set_transforms(&start).unwrap();
    let mut contacts = vec![];
    world.collect_into(&mut contacts).unwrap();
    assert_eq!(world.impacts().map(<[Impact]>::len), Some(2), "end, swept from start");
    assert_eq!(world.step().unwrap().impacts.len(), 2, "start, swept from end");
    // A frame before any poses were set keeps none: the first poses sweep from themselves.
    let mut fresh = World::new(&gpu, &shapes, &[0, 1, 2], &on).unwrap();
    fresh.step().unwrap();
    fresh.set_transforms(&end).unwrap();
    assert!(fresh.step().unwrap().impacts.is_empty());
    // Filtered apart: nothing.
    let mut filters = vec![Filter::DEFAULT; 3];
    filters[1].mask = 0;
    filters[2].mask = 0;
    world.set_filters(&filters).unwrap();
    world.set_transforms(&end).unwrap();
    assert!(world.step().unwrap().impacts.is_empty());
}

#[test]
fn the_thin_wall_is_caught_at_every_scale() {
    let gpu = common::gpu();
    let on = WorldOptions::default().with_continuous(true);
    for s in [1e-20, 1e-10, 1e10, 1e20] {
        let shapes = [
            rect(-0.005 * s, -2.0 * s, 0.005 * s, 2.0 * s),
            Polygon::circle([0.0, 0.0], 0.05 * s).unwrap(),
            rect(-0.05 * s, -0.05 * s, 0.05 * s, 0.05 * s),
        ]
        .map(Body::from);
        let start = [pose(5.0 * s, 0.0, 0.3), pose(0.0, 0.0, 0.0), pose(0.0, s, 0.0)];
        let end = [pose(5.0 * s, 0.0, 0.3), pose(10.0 * s, 0.0, 0.0), pose(10.0 * s, s, 0.0)];
        let (found, _) = gpu_sweep(&gpu, &shapes, &[0, 1, 2], (&start, &end), &on);
        let want = sweep(&[&shapes[0], &shapes[1], &shapes[2]], &start, &end, &[]);
        assert_eq!(found.len(), 2, "scale {s}: {found:?}");
        for (g, w) in found.iter().zip(&want) {
            assert!((g.a, g.b) == (w.a, w.b) && (g.toi - w.toi).abs() < 1e-4, "scale {s}: {g:?} against {w:?}");
        }
        // Turning too (the wall, a quarter turn about its centre, sweeps over the ball).
        let end = [pose(5.0 * s, 0.0, 1.8), pose(5.0 * s - 1.5 * s, 0.0, 0.0), pose(0.0, s, 0.0)];
        let start = [start[0], end[1], start[2]];
        let (found, _) = gpu_sweep(&gpu, &shapes, &[0, 1, 2], (&start, &end), &on);
        let want = sweep(&[&shapes[0], &shapes[1], &shapes[2]], &start, &end, &[]);
        assert_eq!(found.len(), want.len(), "scale {s}: {found:?} against {want:?}");
        assert_eq!(found.len(), 1, "scale {s}: {found:?}");
        assert!((found[0].toi - want[0].toi).abs() < 1e-3, "scale {s}: {found:?} against {want:?}");
    }
}

/// Every kind of shape, each in its own frame about its origin.
fn kinds() -> Vec<Body> {
    let hexagon: Vec<[f64; 2]> =
        (0..6).map(|k| f64::from(k) * std::f64::consts::PI / 3.0).map(|a| [0.6 * a.cos(), 0.6 * a.sin()]).collect();
    vec![
        Body::from(rect(-0.5, -0.3, 0.5, 0.3)),
        Body::from(Polygon::new(vec![[-0.4, -0.3], [0.5, -0.2], [0.0, 0.5]]).unwrap()),
        Body::from(Polygon::new(hexagon).unwrap()),
        Body::from(Polygon::circle([0.0, 0.0], 0.35).unwrap()),
        Body::from(Polygon::segment([-0.6, 0.0], [0.6, 0.0], 0.1).unwrap()),
        Body::from(Polygon::segment([-0.5, 0.1], [0.5, -0.1], 0.0).unwrap()),
        Body::from(Polygon::rounded(vec![[-0.3, -0.3], [0.3, -0.3], [0.3, 0.3], [-0.3, 0.3]], 0.15).unwrap()),
        Body::concave(&[[0.0, 0.0], [1.0, 0.0], [1.0, 0.3], [0.3, 0.3], [0.3, 1.0], [0.0, 1.0]]).unwrap(),
    ]
}

#[test]
fn random_sweeps_agree_with_the_reference() {
    let gpu = common::gpu();
    let shapes = kinds();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut compared, mut turning) = (0, 0);
    for round in 0..6 {
        let n = 60;
        let body_shapes: Vec<u32> = (0..n).map(|_| (rng.next() * shapes.len() as f64) as u32).collect();
        let start: Vec<Transform> =
            (0..n).map(|_| pose(rng.next() * 16.0, rng.next() * 16.0, (rng.next() - 0.5) * 6.0)).collect();
        let end: Vec<Transform> = start
            .iter()
            .enumerate()
            .map(|(i, s)| {
                // Half the bodies keep their angle; some move far in one frame.
                let far = if i % 7 == 0 { 8.0 } else { 2.0 };
                let turn = if i % 2 == 0 { 0.0 } else { (rng.next() - 0.5) * 2.0 };
                pose(s.x + (rng.next() - 0.5) * far, s.y + (rng.next() - 0.5) * far, s.angle + turn)
            })
            .collect();
        let bodies: Vec<&Body> = body_shapes.iter().map(|&s| &shapes[s as usize]).collect();
        let want = sweep(&bodies, &start, &end, &[]);
        let broad = if round % 2 == 0 { BroadPhase::Strips } else { BroadPhase::AllPairs };
        let options = WorldOptions::default().with_continuous(true).with_broad_phase(broad);
        let (got, _) = gpu_sweep(&gpu, &shapes, &body_shapes, (&start, &end), &options);
        let pairs = |l: &[Impact]| l.iter().map(|i| (i.a, i.b)).collect::<Vec<_>>();
        assert_eq!(pairs(&got), pairs(&want), "round {round}");
        for (g, w) in got.iter().zip(&want) {
            assert!((g.toi - w.toi).abs() < 1e-3, "round {round}: {g:?} against {w:?}");
            turning += usize::from(end[g.a as usize].angle != start[g.a as usize].angle);
        }
        compared += want.len();
    }
    assert!(compared > 100 && turning > 20, "{compared} impacts, {turning} turning");
}

#[test]
fn a_frame_in_batches_reads_every_batch_s_impacts() {
    // Bindings of 1 MiB: 32,768 candidate pairs per batch. 400 squares piled within a unit
    // square pair up ~80,000 times, each pair touching from the start (or on the way).
    let gpu = common::small_device();
    let shapes = [Body::from(rect(-0.5, -0.5, 0.5, 0.5))];
    let mut rng = Rng(7);
    let n = 400;
    let start: Vec<Transform> = (0..n).map(|_| pose(rng.next(), rng.next(), 0.0)).collect();
    let end: Vec<Transform> = start.iter().map(|s| pose(s.x + rng.next() - 0.5, s.y, rng.next() - 0.5)).collect();
    let mut world = World::new(&gpu, &shapes, &vec![0; n], &WorldOptions::default().with_continuous(true)).unwrap();
    world.set_transforms(&start).unwrap();
    world.set_transforms(&end).unwrap();
    let frame = world.step().unwrap();
    assert!(frame.stats.batches > 1, "{} batch(es)", frame.stats.batches);
    let want = sweep(&vec![&shapes[0]; n], &start, &end, &[]);
    assert_eq!(frame.impacts.len(), want.len());
    assert_eq!(world.impacts().map(<[Impact]>::len), Some(want.len()));
    for (g, w) in frame.impacts.iter().zip(&want) {
        assert!((g.a, g.b) == (w.a, w.b) && (g.toi - w.toi).abs() < 1e-3, "{g:?} against {w:?}");
    }
}

#[test]
fn large_turning_bodies_stay_within_the_software_adapters_loop_limit() {
    // Two 256-gons, one turning as they close head-on (conservative advancement, 512 vertices a
    // step): found as the reference finds them, never a loop cut short.
    let gpu = common::gpu();
    let round: Vec<[f64; 2]> = (0..256)
        .map(|k| f64::from(k) * std::f64::consts::TAU / 256.0)
        .map(|a| [a.cos() * (1.0 + 0.05 * (3.0 * a).cos()), a.sin() * (1.0 + 0.05 * (3.0 * a).cos())])
        .collect();
    let shapes = [Body::from(Polygon::new(round).unwrap())];
    let start = [pose(0.0, 0.0, 0.0), pose(5.0, 0.3, 0.0)];
    let end = [pose(0.0, 0.0, 0.5), pose(1.0, 0.3, -0.4)];
    let on = WorldOptions::default().with_continuous(true);
    let (found, _) = gpu_sweep(&gpu, &shapes, &[0, 0], (&start, &end), &on);
    let want = sweep(&[&shapes[0], &shapes[0]], &start, &end, &[]);
    assert_eq!(want.len(), 1);
    assert!(found.len() == 1 && (found[0].toi - want[0].toi).abs() < 1e-3, "{found:?} against {want:?}");
}

/// Issue 64: new polygons of the same layout are packed straight into the staging memory of
/// every per-body buffer, the start poses' too: the frames after them sweep as a world built
/// afresh from them does (5,000 crowd polygons: chunks of 2,048, and a shorter last one).
#[test]
fn new_polygons_stream_into_the_start_poses_too() {
    use satgpu::scene::{generate, SceneKind};
    let gpu = common::gpu();
    let on = WorldOptions::default().with_continuous(true);
    let before = generate(SceneKind::Crowd, 5000, 3);
    let moved: Vec<Polygon> =
        before.iter().enumerate().map(|(i, p)| p.transformed(&pose(0.1 * (i % 5) as f64, 0.2, 0.0))).collect();
    let mut world = World::from_polygons(&gpu, &before, &on).unwrap();
    world.step().unwrap();
    let generation = world.generation();
    world.set_polygons(&moved).unwrap();
    assert_eq!(world.generation(), generation, "the same layout rebuilt the world");
    let mut fresh = World::from_polygons(&gpu, &moved, &on).unwrap();
    // Each body's pose as packed: its first vertex rounded to f32, then moved 3 units.
    let anchors: Vec<Transform> =
        moved.iter().map(|p| p.vertices()[0].map(|c| f64::from(c as f32))).map(|[x, y]| pose(x, y, 0.0)).collect();
    let ends: Vec<Transform> = anchors.iter().enumerate().map(|(i, a)| pose(a.x + (i % 3) as f64, a.y, 0.1)).collect();
    for poses in [None, Some(&ends)] {
        let frames: Vec<_> = [&mut world, &mut fresh]
            .into_iter()
            .map(|w| {
                if let Some(poses) = poses {
                    w.set_transforms(poses).unwrap();
                }
                let frame = w.step().unwrap();
                let pairs: Vec<(u32, u32)> = frame.contacts.iter().map(|c| (c.a, c.b)).collect();
                (pairs, frame.impacts)
            })
            .collect();
        assert!(!frames[0].0.is_empty(), "no pairs");
        assert!(poses.is_none() || !frames[0].1.is_empty(), "no impacts where bodies moved");
        assert_eq!(frames[0], frames[1]);
    }
}
