//! Issue 65, continuous collision in a periodic box: a body that leaves the box between two
//! frames goes the shortest way, across the edge, and meets what lies there; random sweeps on a
//! torus and a cylinder agree with the f64 reference (`reference::sweep_periodic`).

mod common;

use common::Rng;

use satgpu::gpu::{BroadPhase, World, WorldOptions};
use satgpu::reference::{sweep, sweep_periodic};
use satgpu::{Body, Error, Impact, Periodic, Polygon, Transform};

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
    Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
}

fn pose(x: f64, y: f64, angle: f64) -> Transform {
    Transform { x, y, angle }
}

/// The impacts of one frame that moves `shapes[body_shapes[i]]` from `start[i]` to `end[i]`.
fn gpu_sweep(
    shapes: &[Body],
    body_shapes: &[u32],
    (start, end): (&[Transform], &[Transform]),
    options: &WorldOptions,
) -> Vec<Impact> {
    let gpu = common::gpu();
    let mut world = World::new(&gpu, shapes, body_shapes, options).unwrap();
    world.set_transforms(start).unwrap();
    world.set_transforms(end).unwrap();
    world.step().unwrap().impacts
}

#[test]
fn a_body_leaving_the_box_between_frames_meets_what_lies_across_the_edge() {
    // A thin wall at x = 0.5 in a 10 x 10 torus; a ball of radius 0.05 from x = 9.5 to x = 1.5
    // (or 11.5: the same place): the shortest way crosses the edge and meets the wall at
    // (10.45 - 0.05 - 9.5) / 2 = 0.45 of the frame. Without the box it goes back across the
    // box, stopping short of the wall.
    let shapes = [Body::from(rect(-0.05, -2.0, 0.05, 2.0)), Body::from(Polygon::circle([0.0, 0.0], 0.05).unwrap())];
    let torus = Periodic::new([0.0, 0.0, 10.0, 10.0], [true, true]).unwrap();
    let on = WorldOptions::default().with_continuous(true).with_periodic(torus);
    let start = [pose(0.5, 5.0, 0.0), pose(9.5, 5.0, 0.0)];
    for end_x in [1.5, 11.5, 1.5 - 1e5] {
        let end = [pose(0.5, 5.0, 0.0), pose(end_x, 5.0, 0.0)];
        let found = gpu_sweep(&shapes, &[0, 1], (&start, &end), &on);
        let want = sweep_periodic(&[&shapes[0], &shapes[1]], &start, &end, &[], &torus);
        for list in [&found, &want] {
            assert_eq!(list.len(), 1, "to {end_x}: {found:?} {want:?}");
            assert!((list[0].toi - 0.45).abs() < 1e-5, "to {end_x}: {list:?}");
        }
    }
    let end = [pose(0.5, 5.0, 0.0), pose(1.5, 5.0, 0.0)];
    let flat = gpu_sweep(&shapes, &[0, 1], (&start, &end), &WorldOptions::default().with_continuous(true));
    assert!(flat.is_empty(), "{flat:?}");
    assert!(sweep(&[&shapes[0], &shapes[1]], &start, &end, &[]).is_empty());
    // On a cylinder round y, the wall standing across the lower edge (y from -1 to 3) and the
    // ball going from (3, 9) to (7, 1), that is up across the edge to (7, 11).
    let cylinder = Periodic::new([0.0, 0.0, 10.0, 10.0], [false, true]).unwrap();
    let on = WorldOptions::default().with_continuous(true).with_periodic(cylinder);
    let start = [pose(5.0, 1.0, 0.0), pose(3.0, 9.0, 0.0)];
    let end = [pose(5.0, 1.0, 0.0), pose(7.0, 1.0, 0.0)];
    // It meets the wall's image a box up (y from 9 to 13) on its left side, x = 4.95, with its
    // centre at x = 4.9: a fraction (4.9 - 3) / 4 along, at y = 9.95.
    let t = (4.9 - 3.0) / 4.0;
    let found = gpu_sweep(&shapes, &[0, 1], (&start, &end), &on);
    let want = sweep_periodic(&[&shapes[0], &shapes[1]], &start, &end, &[], &cylinder);
    for list in [&found, &want] {
        assert!(list.len() == 1 && (list[0].toi - t).abs() < 1e-5, "{found:?} {want:?}");
    }
}

#[test]
fn a_body_moving_too_far_in_one_frame_is_named() {
    let torus = Periodic::new([0.0, 0.0, 10.0, 10.0], [true, true]).unwrap();
    let on = WorldOptions::default().with_continuous(true).with_periodic(torus);
    let shapes = [Body::from(rect(-0.5, -0.5, 0.5, 0.5))];
    let gpu = common::gpu();
    let mut world = World::new(&gpu, &shapes, &[0, 0], &on).unwrap();
    world.set_transforms(&[pose(1.0, 1.0, 0.0), pose(5.0, 5.0, 0.0)]).unwrap();
    // Body 1 moves 4.5 along x: with its extent 1, more than half the box.
    let e = world.set_transforms(&[pose(1.0, 1.0, 0.0), pose(9.5, 5.0, 0.0)]).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidSetting { what: "periodic box", detail } if detail.contains("body 1") && detail.contains("continuous")),
        "{e:?}"
    );
    // Across the edge it is 2 boxes' width short of that: allowed.
    world.set_transforms(&[pose(1.0, 1.0, 0.0), pose(8.0, 5.0, 0.0)]).unwrap();
    world.set_transforms(&[pose(1.0, 1.0, 0.0), pose(1.0, 5.0, 0.0)]).unwrap();
}

#[test]
fn random_sweeps_in_a_box_agree_with_the_reference() {
    let shapes = vec![
        Body::from(rect(-0.5, -0.3, 0.5, 0.3)),
        Body::from(Polygon::new(vec![[-0.4, -0.3], [0.5, -0.2], [0.0, 0.5]]).unwrap()),
        Body::from(Polygon::circle([0.0, 0.0], 0.35).unwrap()),
        Body::from(Polygon::segment([-0.6, 0.0], [0.6, 0.0], 0.1).unwrap()),
        Body::concave(&[[0.0, 0.0], [1.0, 0.0], [1.0, 0.3], [0.3, 0.3], [0.3, 1.0], [0.0, 1.0]]).unwrap(),
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut compared, mut across) = (0, 0);
    for round in 0..6 {
        let wraps = [[true, true], [true, false], [false, true]][round % 3];
        let p = Periodic::new([0.0, 0.0, 12.0, 12.0], wraps).unwrap();
        let n = 70;
        let body_shapes: Vec<u32> = (0..n).map(|_| (rng.next() * shapes.len() as f64) as u32).collect();
        // Starts in the box (a third many boxes away), ends up to 1.5 away, half of them given
        // in the box again (as a simulation that wraps its own positions writes them).
        let start: Vec<Transform> = (0..n)
            .map(|i| {
                let far = if i % 3 == 0 { 12.0 * (rng.next() * 9.0 - 4.0).floor() } else { 0.0 };
                pose(rng.next() * 12.0 + if wraps[0] { far } else { 0.0 }, rng.next() * 12.0, (rng.next() - 0.5) * 6.0)
            })
            .collect();
        let end: Vec<Transform> = start
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let turn = if i % 2 == 0 { 0.0 } else { (rng.next() - 0.5) * 1.5 };
                let mut e = pose(s.x + (rng.next() - 0.5) * 3.0, s.y + (rng.next() - 0.5) * 3.0, s.angle + turn);
                if i % 2 == 1 {
                    let n = p.cell_shift([e.x, e.y]);
                    (e.x, e.y) = (e.x + n[0] * 12.0, e.y + n[1] * 12.0);
                }
                e
            })
            .collect();
        let bodies: Vec<&Body> = body_shapes.iter().map(|&s| &shapes[s as usize]).collect();
        let want = sweep_periodic(&bodies, &start, &end, &[], &p);
        let flat = sweep(&bodies, &start, &end, &[]);
        across += want.iter().filter(|w| !flat.iter().any(|f| (f.a, f.b) == (w.a, w.b))).count();
        let broad = if round < 3 { BroadPhase::Strips } else { BroadPhase::AllPairs };
        let options = WorldOptions::default().with_continuous(true).with_broad_phase(broad).with_periodic(p);
        let got = gpu_sweep(&shapes, &body_shapes, (&start, &end), &options);
        let pairs = |l: &[Impact]| l.iter().map(|i| (i.a, i.b)).collect::<Vec<_>>();
        assert_eq!(pairs(&got), pairs(&want), "round {round}, {wraps:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!((g.toi - w.toi).abs() < 1e-3, "round {round}: {g:?} against {w:?}");
        }
        compared += want.len();
    }
    assert!(compared > 100 && across > 20, "{compared} impacts, {across} across an edge");
}
