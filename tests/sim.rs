//! The crowd simulation (`satgpu::sim`) as an embedding program uses it: penetration resolved
//! and measured honestly (the reference agrees with the GPU's figures), the same state on every
//! run, buffers that a pile-up outgrows grown and the window run again with the same result,
//! and bad options refused.

mod common;

use satgpu::gpu::WorldOptions;
use satgpu::sim::{FrameReport, Resolve, Scenario, SimKind, SimOptions, Simulation, Walker};
use satgpu::DetectOptions;
use satgpu::{reference, Body, Error, Polygon, Transform};

fn run(scenario: &Scenario, options: &SimOptions, frames: usize) -> (Vec<FrameReport>, Vec<[f32; 2]>, u32) {
    let gpu = common::gpu();
    let mut sim = Simulation::new(&gpu, scenario, options).unwrap();
    for _ in 0..frames {
        sim.step().unwrap();
    }
    sim.sync().unwrap();
    assert_eq!(sim.reports().len(), frames);
    (sim.reports().to_vec(), sim.positions().unwrap(), sim.reruns())
}

fn bits(p: &[[f32; 2]]) -> Vec<(u32, u32)> {
    p.iter().map(|q| (q[0].to_bits(), q[1].to_bits())).collect()
}

/// Reports without their wall-clock times, which differ from run to run.
fn figures(r: &[FrameReport]) -> Vec<(u64, u64, u64)> {
    r.iter().map(|f| (f.max_depth.to_bits(), f.total_depth.to_bits(), f.colliding)).collect()
}

/// The crossing scenario of every kind: the overlaps the random start leaves are pushed out,
/// the largest penetration falls to at most 1 % of a body's radius and stays there as the
/// crowds meet, and the pictures' figures are what the reference sees at the same positions.
#[test]
fn crossing_crowds_resolve_their_overlaps() {
    for kind in SimKind::ALL {
        let scenario = Scenario::crossing(kind, 2000, 7).unwrap();
        let (reports, positions, _) = run(&scenario, &SimOptions::default(), 70);
        let radius = scenario.body_radius();
        let first = reports[0];
        let last = reports.last().unwrap();
        assert!(first.colliding > 100, "{kind}: the start must overlap: {first:?}");
        assert!(last.max_depth < first.max_depth, "{kind}: {first:?} -> {last:?}");
        assert!(last.max_depth <= 0.01 * radius, "{kind}: {last:?} deeper than 1 % of {radius}");
        // Every body moved toward its goal (they start overlapping, walk 70 frames).
        let walked = positions[..scenario.moving]
            .iter()
            .zip(&scenario.start)
            .zip(&scenario.walkers)
            .filter(|((p, s), w)| {
                let before = (w.goal[0] - s.x).abs();
                let after = (w.goal[0] - f64::from(p[0])).abs();
                after < before - 0.5
            })
            .count();
        assert!(walked > scenario.moving * 3 / 4, "{kind}: only {walked} of {} bodies walked", scenario.moving);
        // Walls and pillars never move.
        for (i, p) in positions.iter().enumerate().skip(scenario.moving) {
            let s = scenario.start[i];
            assert_eq!((f64::from(p[0]), f64::from(p[1])), (s.x as f32 as f64, s.y as f32 as f64), "static {i}");
        }
    }
}

/// One iteration per frame leaves overlaps; the GPU's measured figures of the last frame match
/// the f64 reference on the same positions.
#[test]
fn measured_penetration_matches_the_reference() {
    let scenario = Scenario::crossing(SimKind::Crowd, 1500, 3).unwrap();
    let options = SimOptions { iterations: 1, relax: 1.0, ..SimOptions::default() };
    let (reports, positions, _) = run(&scenario, &options, 3);
    let last = reports.last().unwrap();
    let contacts = reference::detect(&scenario.placed(&positions), &DetectOptions::default()).contacts;
    let max = contacts.iter().map(|c| c.depth).fold(0.0, f64::max);
    let total: f64 = contacts.iter().map(|c| c.depth).sum();
    assert!(contacts.len() > 50, "too few overlaps left to compare: {}", contacts.len());
    assert!((last.colliding as i64 - contacts.len() as i64).abs() <= 2, "{last:?} vs {} pairs", contacts.len());
    assert!((last.max_depth - max).abs() <= 1e-4, "largest {} vs reference {max}", last.max_depth);
    assert!((last.total_depth - total).abs() <= 1e-4 * contacts.len() as f64, "total {} vs {total}", last.total_depth);
}

/// Two runs give the same bits, on either way of resolving.
#[test]
fn runs_are_deterministic() {
    for resolve in [Resolve::Fresh, Resolve::Reuse] {
        let scenario = Scenario::crossing(SimKind::Shapes, 1500, 11).unwrap();
        let options = SimOptions { resolve, window: 7, ..SimOptions::default() };
        let (r1, p1, _) = run(&scenario, &options, 20);
        let (r2, p2, _) = run(&scenario, &options, 20);
        assert_eq!(bits(&p1), bits(&p2), "{resolve:?}: positions differ");
        assert_eq!(figures(&r1), figures(&r2), "{resolve:?}: figures differ");
        assert_eq!(satgpu::sim::hash_positions(&p1), satgpu::sim::hash_positions(&p2));
    }
}

/// Bodies spread out, then all walking to one spot: the pile-up outgrows the buffers sized on
/// the first frame many times over. The window runs again on grown buffers, and the result is
/// bit for bit the one a world reserved large enough from the start gives.
/// Circles on a grid, all walking to its centre: a pile-up.
fn pile_up() -> Scenario {
    let side = 24;
    let shapes = vec![Polygon::circle([0.0, 0.0], 0.3).unwrap()];
    let n = side * side;
    let start: Vec<Transform> =
        (0..n).map(|i| Transform { x: (i % side) as f64 * 2.0, y: (i / side) as f64 * 2.0, angle: 0.0 }).collect();
    let centre = [side as f64 - 1.0, side as f64 - 1.0];
    let walkers = vec![Walker { goal: centre, speed: 80.0, inv_mass: 1.0, radius: 0.3 }; n];
    Scenario { shapes, body_shapes: vec![0; n], start, walkers, moving: n, compounds: vec![], periodic: None }
}

#[test]
fn a_pile_up_that_outgrows_the_buffers_runs_again_with_the_same_result() {
    let scenario = pile_up();
    let n = scenario.body_shapes.len();
    let small = WorldOptions::default().with_candidate_capacity(64).with_entry_capacity(64);
    let options = SimOptions { window: 10, world: small, ..SimOptions::default() };
    let (grown, p_grown, reruns) = run(&scenario, &options, 30);
    let most = grown.iter().map(|r| r.colliding).max().unwrap();
    assert!(reruns > 0, "the pile-up should have outgrown the first frame's buffers ({most} pairs at most)");
    let gpu = common::gpu();
    let mut sim = Simulation::new(&gpu, &scenario, &options).unwrap();
    sim.reserve(64 * n as u64, 64 * n as u64).unwrap();
    for _ in 0..30 {
        sim.step().unwrap();
    }
    sim.sync().unwrap();
    assert_eq!(sim.reruns(), 0);
    assert_eq!(bits(&sim.positions().unwrap()), bits(&p_grown), "growing changed the result");
    assert_eq!(figures(sim.reports()), figures(&grown));
}

/// A single body, a scenario of statics only, and bad options.
#[test]
fn small_scenarios_and_bad_options() {
    let one = Scenario::crossing(SimKind::Agents, 1, 1).unwrap();
    let (reports, positions, _) = run(&one, &SimOptions::default(), 5);
    assert_eq!(reports.iter().map(|r| r.colliding).sum::<u64>(), 0);
    assert!(f64::from(positions[0][0]) > one.start[0].x, "the lone body walks right");
    let gpu = common::gpu();
    for bad in [
        SimOptions { iterations: 0, ..SimOptions::default() },
        SimOptions { window: 0, ..SimOptions::default() },
        SimOptions { dt: f64::NAN, ..SimOptions::default() },
        SimOptions { relax: 2.5, ..SimOptions::default() },
        SimOptions { margin: -1.0, ..SimOptions::default() },
    ] {
        match Simulation::new(&gpu, &one, &bad) {
            Err(Error::InvalidSetting { what, .. }) => assert_eq!(what, "simulation options"),
            Err(e) => panic!("{bad:?}: wrong error {e}"),
            Ok(_) => panic!("{bad:?} accepted"),
        }
    }
    // Agents past one binding (the crowd kernel binds them whole, 32 bytes each): refused by
    // name, before anything runs. A device whose bindings hold 1 MiB takes 32,768.
    let small = common::small_device();
    let many = Scenario::crossing(SimKind::Agents, 40_000, 1).unwrap();
    match Simulation::new(&small, &many, &SimOptions::default()) {
        Err(Error::TooLarge { what, needed, limit }) => {
            assert_eq!(
                (what, needed, limit),
                ("simulation agents (one binding)", 32 * many.start.len() as u64, 1 << 20)
            )
        }
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("40,000 agents accepted on 1 MiB bindings"),
    }
}

/// The simulation's WGSL validates with naga (its pipelines are built at run time).
#[test]
fn the_simulation_shader_validates() {
    let src = &satgpu::sim::shader();
    let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{}", e.emit_to_string(src)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{e:?}"));
}

/// The bodies of `scenario` at `positions` as compound bodies: a wall's parts together, every
/// other body alone.
fn compound_bodies(scenario: &Scenario, positions: &[[f32; 2]]) -> Vec<Body> {
    let placed = scenario.placed(positions);
    let mut bodies = vec![];
    let mut i = 0;
    while i < placed.len() {
        match scenario.compounds.iter().find(|r| r.start == i) {
            Some(r) => {
                bodies.push(Body::new(placed[r.clone()].to_vec()).unwrap());
                i = r.end;
            }
            None => {
                bodies.push(Body::from(placed[i].clone()));
                i += 1;
            }
        }
    }
    bodies
}

/// A crowd walks through a doorway between two concave walls (compound static bodies): bodies
/// pass the door, none is left inside a wall, the walls never move, and the GPU's figures are
/// the compound reference's (pairs of bodies, each by its deepest part pair).
#[test]
fn a_crowd_passes_a_concave_doorway() {
    let scenario = Scenario::doorway(SimKind::Agents, 1500, 5).unwrap();
    assert_eq!(scenario.compounds.len(), 2);
    assert!(scenario.compounds.iter().all(|r| r.len() >= 2), "{:?}", scenario.compounds);
    assert_eq!(scenario.compounds.last().unwrap().end, scenario.body_shapes.len());
    let (reports, positions, _) = run(&scenario, &SimOptions::default(), 300);
    let radius = scenario.body_radius();
    let passed = positions[..scenario.moving].iter().filter(|p| f64::from(p[0]) > 2.0 * radius).count();
    assert!(passed >= 20, "only {passed} bodies passed the door");
    let last = reports.last().unwrap();
    assert!(last.max_depth <= 0.1 * radius, "{last:?}");
    for (i, p) in positions.iter().enumerate().skip(scenario.moving) {
        let s = scenario.start[i];
        assert_eq!((f64::from(p[0]), f64::from(p[1])), (s.x as f32 as f64, s.y as f32 as f64), "wall part {i}");
    }
    let want = reference::detect(&compound_bodies(&scenario, &positions), &DetectOptions::default()).contacts;
    let max = want.iter().map(|c| c.depth).fold(0.0, f64::max);
    assert!((last.colliding as i64 - want.len() as i64).abs() <= 2, "{last:?} vs {} pairs", want.len());
    assert!((last.max_depth - max).abs() <= 1e-4, "largest {} vs reference {max}", last.max_depth);
}

/// A body pushed into a wall's concave corner, where it overlaps two of the wall's parts: the
/// GPU reports and pushes one pair of bodies (the deepest part pair), as the reference counts.
#[test]
#[allow(clippy::single_range_in_vec_init)] // one compound body: a Vec of one range is meant
fn a_body_in_a_concave_corner_is_one_pair() {
    let wall = Body::concave(&[[0.0, 0.0], [6.0, 0.0], [6.0, 1.0], [1.0, 1.0], [1.0, 6.0], [0.0, 6.0]]).unwrap();
    let mut shapes = vec![Polygon::circle([0.0, 0.0], 0.8).unwrap()];
    let mut start = vec![Transform { x: 1.3, y: 1.3, angle: 0.0 }];
    let mut walkers = vec![Walker { goal: [0.0, 0.0], speed: 0.0, inv_mass: 1.0, radius: 0.8 }];
    for part in wall.shapes() {
        let b = part.aabb();
        let (x, y) = ((b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0);
        shapes.push(part.transformed(&Transform { x: -x, y: -y, angle: 0.0 }));
        start.push(Transform { x, y, angle: 0.0 });
        walkers.push(Walker { goal: [x, y], speed: 0.0, inv_mass: 0.0, radius: 5.0 });
    }
    let n = shapes.len();
    let scenario = Scenario {
        shapes,
        body_shapes: (0..n as u32).collect(),
        start,
        walkers,
        moving: 1,
        compounds: vec![1..n],
        periodic: None,
    };
    let options = SimOptions { iterations: 1, relax: 1.0, margin: 0.0, ..SimOptions::default() };
    let (reports, positions, _) = run(&scenario, &options, 1);
    // The part pairs the body still overlaps, and the pairs of bodies.
    let placed = scenario.placed(&positions);
    let part_pairs = reference::detect(&placed, &DetectOptions::default()).contacts.iter().filter(|c| c.a == 0).count();
    let want = reference::detect(&compound_bodies(&scenario, &positions), &DetectOptions::default()).contacts;
    assert_eq!(part_pairs, 2, "the corner should hold the body against both parts");
    assert_eq!(reports[0].colliding, want.len() as u64);
    assert_eq!(want.len(), 1);
    // A moving part, a range past the bodies and a body in two compounds are refused.
    let gpu = common::gpu();
    for compounds in [vec![0..n], vec![1..n + 1], vec![1..3, 2..n]] {
        let bad = Scenario { compounds, ..scenario.clone() };
        match Simulation::new(&gpu, &bad, &options) {
            Err(Error::InvalidSetting { what, detail }) => assert_eq!(what, "scenario compounds", "{detail}"),
            Err(e) => panic!("{:?}: wrong error {e}", bad.compounds),
            Ok(_) => panic!("{:?} accepted", bad.compounds),
        }
    }
}

/// The pairs the world's last detection left in its contacts buffer (sorted: events sort them).
fn pairs_left(gpu: &satgpu::gpu::Gpu, sim: &Simulation) -> Vec<[u32; 2]> {
    let totals: Vec<u32> = bytemuck::pod_collect_to_vec(&common::read_back(gpu, sim.world().totals_buffer(), 16));
    let records: Vec<[u32; 6]> = match totals[2] {
        0 => vec![],
        n => bytemuck::pod_collect_to_vec(&common::read_back(gpu, sim.world().contacts_buffer(), 24 * u64::from(n))),
    };
    records.iter().map(|r| [r[0], r[1]]).collect()
}

/// With events, each frame reports the pairs that began and ended since the frame before, as
/// the frames' own pairs say; a window run again after the buffers grew reports the same.
#[test]
fn contact_events_per_frame_follow_the_pairs_also_after_growth() {
    let scenario = pile_up();
    let events = WorldOptions::default().with_events(true);
    let gpu = common::gpu();
    // One frame per window: after each step the contacts buffer holds that frame's pairs.
    let options = SimOptions { window: 1, world: events.clone(), ..SimOptions::default() };
    let mut sim = Simulation::new(&gpu, &scenario, &options).unwrap();
    let as_contacts = |pairs: &[[u32; 2]]| -> Vec<satgpu::Contact> {
        pairs.iter().map(|p| satgpu::Contact { a: p[0], b: p[1], normal: [1.0, 0.0], depth: 0.0 }).collect()
    };
    let mut previous = pairs_left(&gpu, &sim);
    let (mut began, mut ended) = (0, 0);
    for f in 0..20 {
        sim.step().unwrap();
        let now = pairs_left(&gpu, &sim);
        let want = reference::contact_events(&as_contacts(&previous), &as_contacts(&now));
        let got = sim.reports().last().unwrap().events;
        assert_eq!(got, Some((want.began.len() as u64, want.ended.len() as u64)), "frame {f}");
        (began, ended) = (began + want.began.len(), ended + want.ended.len());
        previous = now;
    }
    assert!(began > 0 && ended > 0, "{began} began, {ended} ended");
    drop(gpu);
    // Windows of 10 on buffers that must grow, against the same run on grown buffers.
    let small = events.with_candidate_capacity(64).with_entry_capacity(64);
    let options = SimOptions { window: 10, world: small, ..SimOptions::default() };
    let (grown, _, reruns) = run(&scenario, &options, 30);
    assert!(reruns > 0);
    let gpu = common::gpu();
    let mut sim = Simulation::new(&gpu, &scenario, &options).unwrap();
    sim.reserve(64 * scenario.body_shapes.len() as u64, 64 * scenario.body_shapes.len() as u64).unwrap();
    for _ in 0..30 {
        sim.step().unwrap();
    }
    sim.sync().unwrap();
    assert_eq!(sim.reruns(), 0);
    let events = |r: &[FrameReport]| r.iter().map(|f| f.events.unwrap()).collect::<Vec<_>>();
    assert_eq!(events(sim.reports()), events(&grown), "growing changed the events");
    drop(gpu);
    // Without events, none are reported.
    assert!(run(&scenario, &SimOptions::default(), 2).0.iter().all(|r| r.events.is_none()));
}

/// A walk that grows past the sweep's windows during resident frames (Mesa's software adapters
/// stop each invocation's loops after 65,535 iterations, so the sweep walks in windows of 65,000
/// steps): 70,000 squares start in five rows above a static bar as long as a row, the lowest in
/// the bar's strip, and walk down onto it, so that the bar's walk covers every square only after
/// some frames left on the GPU. The simulation reads the windows its frames needed and runs the
/// window again with as many: every square rests on the bar (a missed pair lets one through),
/// and the last frame's pairs are the reference's at the same positions.
#[test]
fn a_walk_that_outgrows_the_sweep_windows_in_resident_frames_loses_no_pair() {
    let n = 70_000usize;
    let square = Polygon::new(vec![[0.0, 0.0], [0.5, 0.0], [0.5, 0.5], [0.0, 0.5]]).unwrap();
    let bar = Polygon::new(vec![[0.0, 0.0], [n as f64, 0.0], [n as f64, 0.2], [0.0, 0.2]]).unwrap();
    let (mut start, mut walkers) = (vec![], vec![]);
    for k in 0..n {
        let x = k as f64 + 0.25;
        start.push(Transform { x, y: 3.0 + (k % 5) as f64, angle: 0.0 });
        walkers.push(Walker { goal: [x, -10.0], speed: 30.0, inv_mass: 1.0, radius: 0.71 });
    }
    start.push(Transform::IDENTITY);
    walkers.push(Walker { goal: [0.0, 0.0], speed: 0.0, inv_mass: 0.0, radius: n as f64 });
    let body_shapes = (0..=n).map(|b| u32::from(b == n)).collect();
    let scenario = Scenario {
        shapes: vec![square, bar],
        body_shapes,
        start,
        walkers,
        moving: n,
        compounds: vec![],
        periodic: None,
    };
    let options = SimOptions { iterations: 1, window: 40, ..SimOptions::default() };
    let (reports, positions, reruns) = run(&scenario, &options, 40);
    // Every square rests on the bar: a pair missed in any frame lets its square walk into it.
    let held = positions[..n].iter().filter(|p| p[1] >= 0.19).count();
    assert_eq!(held, n, "squares held by the bar; the last at {:?}", positions[n - 1]);
    let want = reference::detect(&scenario.placed(&positions), &DetectOptions::default()).contacts;
    let last = reports.last().unwrap();
    assert!((last.colliding as i64 - want.len() as i64).abs() <= 2, "{last:?} vs {} pairs", want.len());
    if common::gpu().adapter_info().device_type == wgpu::DeviceType::Cpu {
        assert!(reruns >= 1, "the window ran once although the bar's walk outgrew one sweep window");
    }
}
