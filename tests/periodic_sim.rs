//! Issue 65, `satgpu sim`'s periodic scenario: two crowds walking through each other in a torus
//! with no walls. The overlaps are pushed out across the edges as in the middle, the bodies
//! come back at the opposite edge and keep walking, and the GPU's figures are what the f64
//! reference sees in the same box.

mod common;

use satgpu::sim::{Scenario, SimKind, SimOptions, Simulation};
use satgpu::{reference, DetectOptions};

#[test]
fn crowds_in_a_torus_walk_through_each_other_and_the_edges() {
    let gpu = common::gpu();
    for kind in SimKind::ALL {
        let scenario = Scenario::torus(kind, 1000, 5).unwrap();
        let p = scenario.periodic.expect("a box");
        let [x0, y0, x1, y1] = p.bounds();
        let side = x1 - x0;
        let options = SimOptions::default();
        let mut sim = Simulation::new(&gpu, &scenario, &options).unwrap();
        let frames = 150;
        for _ in 0..frames {
            sim.step().unwrap();
        }
        sim.sync().unwrap();
        let reports = sim.reports();
        let positions = sim.positions().unwrap();
        let radius = scenario.body_radius();
        let last = reports[reports.len() - 1];
        assert!(last.max_depth <= 0.01 * radius, "{kind}: {last:?} deeper than 1 % of {radius}");
        // Each body moved along its heading (the shortest way from where it started), some
        // across an edge; every one is within a frame's walk of the box.
        let (mut ahead, mut across) = (0, 0);
        for (i, q) in positions.iter().enumerate() {
            let (x, y) = (f64::from(q[0]), f64::from(q[1]));
            assert!(x >= x0 - 1.0 && x <= x1 + 1.0 && y >= y0 - 1.0 && y <= y1 + 1.0, "{kind}: body {i} at {q:?}");
            let s = scenario.start[i];
            let raw = x - s.x;
            let d = raw - side * (raw / side).round();
            let heading = (scenario.walkers[i].goal[0] - s.x).signum();
            ahead += usize::from(d * heading > 0.5);
            across += usize::from(raw.abs() > side / 2.0);
        }
        assert!(ahead > 750, "{kind}: only {ahead} of 1000 walked half a unit ahead");
        assert!(across > 30, "{kind}: only {across} came back across an edge");
        // The last frame's figures, against the reference in the same box.
        let placed = scenario.placed(&positions);
        let contacts = reference::detect(&placed, &DetectOptions::default().with_periodic(p)).contacts;
        let max = contacts.iter().map(|c| c.depth).fold(0.0, f64::max);
        assert!((last.colliding as i64 - contacts.len() as i64).abs() <= 2, "{kind}: {last:?} vs {}", contacts.len());
        assert!((last.max_depth - max).abs() <= 1e-4, "{kind}: largest {} vs reference {max}", last.max_depth);
    }
}

#[test]
fn torus_runs_are_deterministic() {
    let gpu = common::gpu();
    let scenario = Scenario::torus(SimKind::Shapes, 800, 2).unwrap();
    let hashes: Vec<u64> = (0..2)
        .map(|_| {
            let mut sim = Simulation::new(&gpu, &scenario, &SimOptions::default()).unwrap();
            for _ in 0..30 {
                sim.step().unwrap();
            }
            sim.state_hash().unwrap()
        })
        .collect();
    assert_eq!(hashes[0], hashes[1]);
}
