//! Issue 43, the collision-free speed model: refusals naming what is wrong, a lone agent's exact
//! walk, the GPU's step against the f64 reference's, and an evacuation through a bottleneck
//! whose exit times and flow agree with the reference's.

mod common;

use satgpu::crowd::{Agent, Crowd, Geometry, Model, Repulsion, CORNER_OFFSET};
use satgpu::{reference, Error};

/// A 10 m x 10 m room with a corridor `width` wide and 2 m long on its right side, the exit its
/// last half metre.
fn bottleneck(width: f64) -> Geometry {
    let (lo, hi) = (5.0 - width / 2.0, 5.0 + width / 2.0);
    let wkt = format!("POLYGON ((0 0, 10 0, 10 {lo}, 12 {lo}, 12 {hi}, 10 {hi}, 10 10, 0 10, 0 0))");
    Geometry::from_wkt(&wkt, [11.5, lo, 12.0, hi]).unwrap()
}

/// A corridor 2.4 m wide that turns left by 90 degrees round the corner (7.6, 2.4), the exit
/// its last half metre.
fn corner() -> Geometry {
    let wkt = "POLYGON ((0 0, 10 0, 10 8, 7.6 8, 7.6 2.4, 0 2.4, 0 0))";
    Geometry::from_wkt(wkt, [7.6, 7.5, 10.0, 8.0]).unwrap()
}

/// `n` agents on a jittered grid 0.5 m apart in the room's left part.
fn agents(n: usize, seed: u64) -> Vec<Agent> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut jitter = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 0.08 - 0.04
    };
    (0..n).map(|k| Agent::at(0.5 + 0.5 * (k / 18) as f64 + jitter(), 0.75 + 0.5 * (k % 18) as f64 + jitter())).collect()
}

#[track_caller]
fn refused(result: satgpu::Result<impl Sized>) -> String {
    match result {
        Err(e @ (Error::Crowd { .. } | Error::Polygon(_) | Error::Wkt { .. })) => e.to_string(),
        Err(e) => panic!("refused with another error: {e}"),
        Ok(_) => panic!("not refused"),
    }
}

#[test]
fn refusals_name_what_is_wrong() {
    let area = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))";
    let exit = [9.0, 4.0, 10.0, 6.0];
    assert!(refused(Geometry::from_wkt(area, [9.0, 4.0, 10.5, 6.0])).contains("is not inside the walkable area"));
    assert!(refused(Geometry::from_wkt(area, [9.0, 6.0, 10.0, 4.0])).contains("x0 < x1"));
    assert!(refused(Geometry::from_wkt(area, [3.0, 3.0, 7.0, 7.0])).contains("has a wall through it"));
    assert!(refused(Geometry::from_wkt(area, [3.0, 3.0, 3.5, f64::NAN])).contains("finite"));
    assert!(refused(Geometry::from_wkt("POLYGON ((0 0, 10 0, 0 10, 10 10, 0 0))", exit)).contains("crosses itself"));
    assert!(refused(Geometry::from_wkt("LINESTRING (0 0, 1 1)", exit)).contains("POLYGON"));
    let geometry = Geometry::from_wkt(area, exit).unwrap();
    let model = Model::default();
    let check = |agents: &[Agent], dt: f64| refused(satgpu::crowd::check(&geometry, &model, agents, dt));
    assert!(check(&[Agent::at(5.0, 5.0)], 0.01).contains("agent 0 at (5, 5) is outside the walkable area"));
    assert!(check(&[Agent::at(1.0, 1.0), Agent::at(11.0, 1.0)], 0.01).contains("agent 1 at (11, 1)"));
    assert!(check(&[Agent::at(0.1, 1.0)], 0.01).contains("from a wall, within its radius"));
    assert!(check(&[Agent::at(3.85, 5.0)], 0.01).contains("from a wall"));
    assert!(check(&[Agent::at(1.0, 1.0), Agent::at(2.0, 2.0), Agent::at(1.4, 1.0)], 0.01)
        .contains("agents 0 and 2 overlap"));
    assert!(check(&[Agent::at(1.0, 1.0)], 0.0).contains("dt 0"));
    assert!(check(&[Agent::at(1.0, 1.0)], f64::NAN).contains("dt NaN"));
    assert!(
        check(&[Agent { radius: 0.0, ..Agent::at(1.0, 1.0) }], 0.01).contains("agent 0's radius 0 is outside (0, 2]")
    );
    assert!(check(&[Agent { desired_speed: 11.0, ..Agent::at(1.0, 1.0) }], 0.01).contains("desired_speed 11"));
    assert!(check(&[Agent { time_gap: 0.05, ..Agent::at(1.0, 1.0) }], 0.01).contains("time_gap 0.05"));
    assert!(check(&[Agent::at(f64::INFINITY, 1.0)], 0.01).contains("outside the walkable area"));
    let bad = Model { cutoff: -1.0, ..Model::default() };
    assert!(refused(satgpu::crowd::check(&geometry, &bad, &[], 0.01)).contains("cutoff -1"));
    // The GPU and the reference refuse alike.
    let g = common::gpu();
    assert!(
        refused(Crowd::new(&g, &geometry, &model, &[Agent::at(5.0, 5.0)], 0.01)).contains("outside the walkable area")
    );
    assert!(refused(reference::cfsm::Crowd::new(&geometry, &model, &[Agent::at(5.0, 5.0)], 0.01)).contains("outside"));
    // Touching agents overlap; an agent exactly a radius from a wall is at the wall.
    let wide = |x: f64, y: f64| Agent { radius: 0.25, ..Agent::at(x, y) };
    assert!(check(&[wide(1.0, 1.0), wide(1.5, 1.0)], 0.01).contains("agents 0 and 1 overlap"));
    assert!(check(&[wide(1.0, 0.25)], 0.01).contains("0.25 from a wall, within its radius 0.25"));
    satgpu::crowd::check(&geometry, &model, &[wide(1.0, 1.0), wide(1.5000001, 1.0), wide(1.0, 0.2500001)], 0.01)
        .unwrap();
}

#[test]
fn the_way_out_goes_round_corners() {
    let geometry = bottleneck(1.0);
    // From the room's far corner the exit is hidden: the way goes by the corridor's mouth.
    let at = geometry.destination([1.0, 1.0], 0).unwrap();
    assert!((at[0] - 10.0).abs() < 0.2 && (at[1] - 4.5).abs() < 0.2, "{at:?}");
    assert_eq!(geometry.destination([8.0, 5.0], 0), Some(geometry.target(0)));
    assert_eq!(geometry.corners().len(), 2);
    assert!(geometry.contains([10.0, 4.5]) && geometry.contains([12.0, 5.0]) && !geometry.contains([11.0, 4.0]));
}

/// Issue 62: round a corner, an agent keeps to the corner's waypoint until its straight way on
/// passes the corner by the offset (it crosses no stand-off, from the corner to its waypoint),
/// as JuPedSim's agents keep to its narrowed portals; it used to turn as soon as it saw past the
/// wall's corner, and cut it.
#[test]
fn round_a_corner_the_way_keeps_to_the_waypoint_until_it_passes_the_corner_by_the_offset() {
    let geometry = corner();
    let [w] = geometry.corners() else { panic!("{:?}", geometry.corners()) };
    assert_eq!(w.corner, [7.6, 2.4]);
    let s = CORNER_OFFSET / 2f64.sqrt();
    assert!((w.at[0] - (7.6 + s)).abs() < 1e-12 && (w.at[1] - (2.4 - s)).abs() < 1e-12, "{w:?}");
    let target = geometry.target(0);
    // Hidden by the wall: the waypoint.
    assert_eq!(geometry.destination([7.0, 1.0], 0), Some(w.at));
    // Past the wall's corner but within the offset of it (the line to the exit crosses the
    // stand-off): still the waypoint, which sight alone would not keep.
    for p in [[7.62, 1.9], [7.65, 1.8], [7.65, 2.3]] {
        assert!(geometry.sees(p, target) && !geometry.passes_clear(p, target), "{p:?}");
        assert_eq!(geometry.destination(p, 0), Some(w.at), "{p:?}");
    }
    // At the waypoint, and past the bisector beyond it: the exit.
    for p in [w.at, [7.9, 2.2], [7.75, 1.5]] {
        assert!(geometry.passes_clear(p, target), "{p:?}");
        assert_eq!(geometry.destination(p, 0), Some(target), "{p:?}");
    }
}

/// One GPU step against one reference step, both from the agents of `cpu` still walking, placed
/// where `cpu` has them (each starting from its `start`): every agent within `most` of the
/// reference, and all but one in `share` within 1e-4 m. Returns where they stood.
fn gpu_step_agrees(
    geometry: &Geometry,
    cpu: &reference::cfsm::Crowd,
    start: &[Agent],
    most: f64,
    share: usize,
) -> Vec<[f64; 2]> {
    let model = Model::default();
    let walking: Vec<usize> = (0..start.len()).filter(|&i| cpu.exit_steps()[i] == 0).collect();
    let now: Vec<[f64; 2]> = walking.iter().map(|&i| cpu.positions()[i]).collect();
    let fresh: Vec<Agent> = walking.iter().map(|&i| start[i]).collect();
    let mut one = reference::cfsm::Crowd::new(geometry, &model, &fresh, 0.01).unwrap();
    one.set_positions(&now);
    one.step();
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, geometry, &model, &fresh, 0.01).unwrap();
    gpu.set_positions(&now).unwrap();
    gpu.iterate(1).unwrap();
    let got = gpu.positions().unwrap();
    let mut off = 0;
    for (i, (g, w)) in got.iter().zip(one.positions()).enumerate() {
        let err = (f64::from(g[0]) - w[0]).hypot(f64::from(g[1]) - w[1]);
        assert!(err < most, "agent {i}: GPU {g:?}, reference {w:?}");
        off += usize::from(err > 1e-4);
    }
    assert!(off * share <= got.len(), "{off} of {} agents off by more than 1e-4", got.len());
    now
}

/// Agents round the corner, one GPU step against one reference step from the same places (as
/// `one_step_agrees_with_the_reference`): the GPU keeps to the same waypoints.
#[test]
fn a_step_round_a_corner_agrees_with_the_reference() {
    let geometry = corner();
    let start: Vec<Agent> = (0..48)
        .map(|k| Agent::at(3.0 + 0.5 * (k / 4) as f64 + 0.01 * (k % 3) as f64, 0.45 + 0.5 * (k % 4) as f64))
        .collect();
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &Model::default(), &start, 0.01).unwrap();
    let mut round = 0;
    for _ in 0..4 {
        cpu.run(cpu.steps() as f64 * 0.01 + 2.5);
        let now = gpu_step_agrees(&geometry, &cpu, &start, 0.0121, 50);
        round += now.iter().filter(|p| p[0] > 6.0 && p[1] < 4.0).count();
    }
    assert!(round >= 20, "only {round} agents were at the corner");
}

#[test]
fn a_lone_agent_walks_at_its_speed() {
    let geometry = bottleneck(1.0);
    // 0.5 m from the exit at 1.2 m/s, 0.012 m a step: out after 42 steps, on both.
    let agent = [Agent::at(11.0, 5.0)];
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &Model::default(), &agent, 0.01).unwrap();
    assert_eq!(cpu.run(10.0).exit_times, [Some(0.42)]);
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &Model::default(), &agent, 0.01).unwrap();
    let out = gpu.run(10.0).unwrap();
    assert_eq!(gpu.exit_steps().unwrap(), [42]);
    assert!(out.exit_times[0].is_some_and(|t| (t - 0.42).abs() < 1e-12));
    assert_eq!(out.evacuation_time(), out.exit_times[0]);
}

/// From the start and from a crowd pressed into the corridor's mouth (8 s on), one GPU step
/// against one reference step: every agent within 1e-4 m but for decisions on a boundary (a
/// neighbour on the edge of the corridor ahead, a sight line touching a wall's end), which f32
/// and f64 may take either way: at most 1 % of agents, and each within a step's length.
#[test]
fn one_step_agrees_with_the_reference() {
    let geometry = bottleneck(1.2);
    let start = agents(300, 7);
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &Model::default(), &start, 0.01).unwrap();
    for _ in 0..3 {
        gpu_step_agrees(&geometry, &cpu, &start, 0.0121, 100);
        cpu.run(cpu.steps() as f64 * 0.01 + 4.0);
    }
}

/// 120 agents through 2 m: the GPU's exit times against the reference's. The two runs part ways
/// within seconds (f32 and f64 round the same steps apart, and a crowd amplifies it), so they
/// agree as two runs of one model do: evacuation time and flow within 5 %. (At 1 m the model
/// itself can jam for good at the corridor's corners: two agents each held by the other, as
/// JuPedSim's own run of the same start does.)
#[test]
fn a_bottleneck_empties_as_the_reference_says() {
    let geometry = bottleneck(2.0);
    let start = agents(120, 3);
    let model = Model::default();
    let want = reference::cfsm::Crowd::new(&geometry, &model, &start, 0.01).unwrap().run(200.0);
    let g = common::gpu();
    let got = Crowd::new(&g, &geometry, &model, &start, 0.01).unwrap().run(200.0).unwrap();
    let (te, tg) = (want.evacuation_time().unwrap(), got.evacuation_time().unwrap());
    let (fe, fg) = (want.flow().unwrap(), got.flow().unwrap());
    eprintln!("evacuation {te} s / {tg} s, flow {fe} / {fg} per s");
    assert!((tg / te - 1.0).abs() < 0.05, "evacuation: GPU {tg} s, reference {te} s");
    assert!((fg / fe - 1.0).abs() < 0.05, "flow: GPU {fg}/s, reference {fe}/s");
    // The same run again gives the same steps, bit for bit.
    let again = Crowd::new(&g, &geometry, &model, &start, 0.01).unwrap().run(200.0).unwrap();
    assert_eq!(again.exit_times, got.exit_times);
}

/// Agents that every neighbour within the cutoff can slow (v0 T of 100 m): more than the 48 the
/// step keeps from its first walk, so it walks the cells again for the speed; one GPU step
/// against one reference step, as above.
#[test]
fn a_step_past_the_kept_neighbours_agrees_with_the_reference() {
    let geometry = bottleneck(2.0);
    let start: Vec<Agent> =
        agents(300, 11).into_iter().map(|a| Agent { desired_speed: 10.0, time_gap: 10.0, ..a }).collect();
    let cpu = reference::cfsm::Crowd::new(&geometry, &Model::default(), &start, 0.01).unwrap();
    gpu_step_agrees(&geometry, &cpu, &start, 0.1001, 100);
    // Some agent did move (the speeds are not all zero), so the spacing was taken.
    let mut one = reference::cfsm::Crowd::new(&geometry, &Model::default(), &start, 0.01).unwrap();
    one.step();
    assert!(one.positions().iter().zip(&start).any(|(p, a)| (p[0] - a.position[0]).abs() > 1e-3));
}

/// Issue 66, JuPedSim's CollisionFreeSpeedModelV2: `n` agents as [`agents`], each with its own
/// repulsion drawn from wide ranges about the defaults.
fn own_repulsion(n: usize, seed: u64) -> Vec<Agent> {
    let mut rng = common::Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut draw = |lo: f64, hi: f64| lo + (hi - lo) * rng.next();
    agents(n, seed)
        .into_iter()
        .map(|a| {
            let own = Repulsion::from_values([draw(2.0, 12.0), draw(0.05, 0.2), draw(1.0, 8.0), draw(0.01, 0.05)]);
            Agent { repulsion: Some(own), ..a }
        })
        .collect()
}

/// V2's repulsion is the agent's own: an agent with none walks straight at its goal past a
/// neighbour that swerves from it, on the GPU and on the reference.
#[test]
fn each_agent_feels_its_own_repulsion() {
    let geometry = bottleneck(1.0);
    let none = Repulsion { neighbour_strength: 0.0, wall_strength: 0.0, ..Repulsion::default() };
    let strong = Repulsion { neighbour_strength: 50.0, ..Repulsion::default() };
    let start = [
        Agent { repulsion: Some(none), ..Agent::at(8.0, 5.0) },
        Agent { repulsion: Some(strong), ..Agent::at(8.0, 5.5) },
    ];
    let model = Model::default();
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &start, 0.01).unwrap();
    cpu.step();
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &model, &start, 0.01).unwrap();
    gpu.iterate(1).unwrap();
    let goal = geometry.destination([8.0, 5.0], 0).unwrap();
    let straight = [goal[0] - 8.0, goal[1] - 5.0];
    let turn = |d: [f64; 2]| (straight[0] * d[1] - straight[1] * d[0]) / straight[0].hypot(straight[1]);
    let gpu_directions: Vec<[f64; 2]> =
        gpu.orientations().unwrap().iter().map(|d| [f64::from(d[0]), f64::from(d[1])]).collect();
    for (name, d) in [("reference", cpu.orientations().to_vec()), ("GPU", gpu_directions)] {
        assert!(turn(d[0]).abs() < 1e-6, "{name}: agent 0 feels nothing, yet turns: {:?}", d[0]);
        assert!(d[1][1] > 0.5, "{name}: agent 1 swerves up, away from agent 0: {:?}", d[1]);
    }
}

/// An agent's own repulsion equal to the model's gives the model's run to the bit (GPU and
/// reference), and a V2 crowd's step agrees with the reference as V1's does.
#[test]
fn own_repulsion_steps_as_the_reference_says() {
    let geometry = bottleneck(1.2);
    let model = Model::default();
    let plain = agents(150, 5);
    let same: Vec<Agent> = plain.iter().map(|a| Agent { repulsion: Some(model.repulsion()), ..*a }).collect();
    let g = common::gpu();
    let run = |agents: &[Agent]| {
        let mut crowd = Crowd::new(&g, &geometry, &model, agents, 0.01).unwrap();
        crowd.iterate(300).unwrap();
        crowd.positions().unwrap()
    };
    assert_eq!(run(&plain), run(&same));
    let cpu_run = |agents: &[Agent]| {
        let mut crowd = reference::cfsm::Crowd::new(&geometry, &model, agents, 0.01).unwrap();
        crowd.iterate(300);
        crowd.positions().to_vec()
    };
    assert_eq!(cpu_run(&plain), cpu_run(&same));
    drop(g);
    let start = own_repulsion(300, 9);
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &start, 0.01).unwrap();
    for _ in 0..3 {
        gpu_step_agrees(&geometry, &cpu, &start, 0.0121, 100);
        cpu.run(cpu.steps() as f64 * 0.01 + 4.0);
    }
}

#[test]
fn an_agents_own_repulsion_is_checked_by_name() {
    let geometry = bottleneck(1.0);
    let with = |r: Repulsion| {
        let agent = Agent { repulsion: Some(r), ..Agent::at(1.0, 1.0) };
        refused(satgpu::crowd::check(&geometry, &Model::default(), &[Agent::at(3.0, 3.0), agent], 0.01))
    };
    let d = Repulsion::default();
    let cases = [
        (
            Repulsion { neighbour_strength: -1.0, ..d },
            "agent 1's strength_neighbor_repulsion -1 must be finite and at least 0",
        ),
        (Repulsion { neighbour_range: 0.0, ..d }, "agent 1's range_neighbor_repulsion 0 must be finite and above 0"),
        (Repulsion { wall_strength: f64::NAN, ..d }, "agent 1's strength_geometry_repulsion NaN"),
        (Repulsion { wall_range: f64::INFINITY, ..d }, "agent 1's range_geometry_repulsion inf"),
    ];
    for (r, says) in cases {
        assert!(with(r).contains(says), "{}", with(r));
    }
    // Strengths of 0 are no repulsion, and allowed.
    let zero = Repulsion { neighbour_strength: 0.0, wall_strength: 0.0, ..d };
    satgpu::crowd::check(&geometry, &Model::default(), &[Agent { repulsion: Some(zero), ..Agent::at(1.0, 1.0) }], 0.01)
        .unwrap();
}
