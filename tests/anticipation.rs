//! Issue 66, JuPedSim's AnticipationVelocityModel: its refusals, a step by hand (the side a
//! neighbour straight ahead is passed on, the wall's push and fade), the GPU's step against the
//! f64 reference's from the start and from states of a run, an evacuation whose exit times and
//! flow agree with the reference's, and arrivals that keep every velocity.

mod common;

use satgpu::crowd::{coin, parse_agents_csv, Agent, Anticipation, Crowd, Geometry, Model, Repulsion};
use satgpu::{reference, Error};

const DT: f64 = 0.01;

/// A 10 m x 10 m room with a corridor `width` wide and 2 m long on its right side, the exit its
/// last half metre (as tests/crowd.rs).
fn bottleneck(width: f64) -> Geometry {
    let (lo, hi) = (5.0 - width / 2.0, 5.0 + width / 2.0);
    let wkt = format!("POLYGON ((0 0, 10 0, 10 {lo}, 12 {lo}, 12 {hi}, 10 {hi}, 10 10, 0 10, 0 0))");
    Geometry::from_wkt(&wkt, [11.5, lo, 12.0, hi]).unwrap()
}

/// A 10 m x 10 m room whose exit is the box `exit` inside it.
fn room(exit: [f64; 4]) -> Geometry {
    Geometry::from_wkt("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))", exit).unwrap()
}

/// `n` agents with the model's defaults on a jittered grid 0.5 m apart in the room's left part.
fn agents(n: usize, seed: u64) -> Vec<Agent> {
    grid(n, seed, 0.5, 18)
}

/// `n` agents with the model's defaults on a grid `apart` m apart, `rows` to a column, each
/// moved by up to 4 cm.
fn grid(n: usize, seed: u64, apart: f64, rows: usize) -> Vec<Agent> {
    let mut rng = common::Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut jitter = || rng.next() * 0.08 - 0.04;
    let at = |k: usize| (0.5 + apart * (k / rows) as f64, 0.75 + apart * (k % rows) as f64);
    (0..n).map(|k| Agent::anticipating(at(k).0 + jitter(), at(k).1 + jitter())).collect()
}

fn unit(v: [f64; 2]) -> [f64; 2] {
    let l = v[0].hypot(v[1]);
    [v[0] / l, v[1] / l]
}

/// One step of `start` on `geometry`, on the reference and on the GPU: where each put every agent.
fn one_step(geometry: &Geometry, model: &Model, start: &[Agent]) -> (Vec<[f64; 2]>, Vec<[f64; 2]>) {
    let mut cpu = reference::cfsm::Crowd::new(geometry, model, start, DT).unwrap();
    cpu.step();
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, geometry, model, start, DT).unwrap();
    gpu.iterate(1).unwrap();
    let got = gpu.positions().unwrap().iter().map(|p| [f64::from(p[0]), f64::from(p[1])]).collect();
    (cpu.positions().to_vec(), got)
}

#[track_caller]
fn near(got: [f64; 2], want: [f64; 2], within: f64, what: &str) {
    let err = (got[0] - want[0]).hypot(got[1] - want[1]);
    assert!(err <= within, "{what}: {got:?}, by hand {want:?} ({err:e} apart)");
}

#[test]
fn refusals_name_what_is_wrong() {
    let geometry = bottleneck(1.0);
    let avm = Model::anticipation(7);
    let check = |model: &Model, agent: Agent| match satgpu::crowd::check(&geometry, model, &[agent], DT) {
        Err(e @ Error::Crowd { .. }) => e.to_string(),
        Err(e) => panic!("refused with another error: {e}"),
        Ok(()) => "accepted".into(),
    };
    let at = Agent::anticipating(1.0, 1.0);
    let own = |a: Anticipation| Agent { anticipation: Some(a), ..at };
    let d = Anticipation::default();
    let cases = [
        (Agent { time_gap: 0.0, ..at }, "agent 0's time_gap 0 is outside (0, 10]"),
        (own(Anticipation { reaction_time: 0.0, ..d }), "agent 0's reaction_time 0 is outside (0, 1]"),
        (own(Anticipation { anticipation_time: 6.0, ..d }), "agent 0's anticipation_time 6 is outside [0, 5]"),
        (
            own(Anticipation { wall_buffer_distance: -0.1, ..d }),
            "agent 0's wall_buffer_distance -0.1 is outside [0, 1]",
        ),
        (
            Agent { repulsion: Some(Repulsion { neighbour_strength: 21.0, ..Repulsion::default() }), ..at },
            "agent 0's strength_neighbor_repulsion 21 is outside [0, 20]",
        ),
        (
            Agent { repulsion: Some(Repulsion { neighbour_range: f64::NAN, ..Repulsion::default() }), ..at },
            "agent 0's range_neighbor_repulsion NaN is outside (0, 5]",
        ),
    ];
    for (agent, says) in cases {
        assert!(check(&avm, agent).contains(says), "{}", check(&avm, agent));
    }
    // JuPedSim's ranges, not the collision-free speed model's: a time gap of 0.05 s is the AVM's.
    assert_eq!(check(&avm, Agent { time_gap: 0.05, ..at }), "accepted");
    assert_eq!(check(&avm, Agent::at(1.0, 1.0)), "accepted", "an agent without its own takes the defaults");
    assert!(check(&Model::default(), at).contains("agent 0's anticipation is the anticipation velocity model's"));
    let pushed = Model { kind: satgpu::crowd::Kind::AnticipationVelocity { pushout_strength: -1.0, seed: 0 }, ..avm };
    assert!(check(&pushed, at).contains("the model's pushout_strength -1 must be finite and at least 0"));
}

#[test]
fn the_agents_csv_takes_the_models_defaults_and_columns() {
    let text = "x,y,reaction_time\n1,2,0.5\n";
    let avm = parse_agents_csv(text, &Model::anticipation(0)).unwrap();
    let want = Anticipation { reaction_time: 0.5, ..Anticipation::default() };
    assert_eq!(avm, [Agent { anticipation: Some(want), ..Agent::anticipating(1.0, 2.0) }]);
    assert_eq!(avm[0].time_gap, 1.06, "JuPedSim's AVM default");
    let cfsm = parse_agents_csv(text, &Model::default()).unwrap();
    assert_eq!(cfsm[0].time_gap, 1.0);
    assert!(satgpu::crowd::check(&bottleneck(1.0), &Model::default(), &cfsm, DT).is_err());
}

/// A lone agent in the corridor walks straight out at its desired speed (0.5 m at 0.012 m a
/// step: 42 steps), on both: the walls beside it, 0.5 m off, are within twice its buffer but
/// it walks along them, not toward them.
#[test]
fn a_lone_agent_walks_at_its_speed() {
    let geometry = bottleneck(1.0);
    let model = Model::anticipation(1);
    let agent = [Agent::anticipating(11.0, 5.0)];
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &agent, DT).unwrap();
    assert_eq!(cpu.run(10.0).exit_times, [Some(0.42)]);
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &model, &agent, DT).unwrap();
    gpu.run(10.0).unwrap();
    assert_eq!(gpu.exit_steps().unwrap(), [42]);
    let v = gpu.velocities().unwrap()[0];
    assert!((f64::from(v[0]) - 1.2).abs() < 1e-6 && v[1].abs() < 1e-6, "{v:?}");
    assert_eq!(cpu.velocities()[0], [1.2, 0.0]);
}

/// A neighbour standing straight ahead, 1 m off: its way after the anticipation time is on the
/// line of the desired direction, so the coin picks the side. Agent 0 turns by
/// `s = 8 x 1.5 x exp(-(1 - 0.4) / 0.1)` to the side the coin says, and walks at the spacing
/// over its time gap, 0.6 / 1.06 m/s, on both; seeds whose coins differ turn it both ways.
#[test]
fn a_neighbour_straight_ahead_is_passed_on_the_coins_side() {
    let geometry = room([9.0, 4.0, 9.9, 6.0]);
    let start = [Agent::anticipating(5.0, 5.0), Agent { desired_speed: 0.0, ..Agent::anticipating(6.0, 5.0) }];
    let seeds: Vec<u64> = [true, false].map(|side| (0..64).find(|&s| coin(s, 0, 0, 1) == side).unwrap()).to_vec();
    for seed in seeds {
        let s = 12.0 * (-6.0f64).exp();
        let side = if coin(seed, 0, 0, 1) { -s } else { s };
        let d = unit([1.0, side]);
        let speed = 0.6 / 1.06;
        let want = [5.0 + d[0] * speed * DT, 5.0 + d[1] * speed * DT];
        let (cpu, gpu) = one_step(&geometry, &Model::anticipation(seed), &start);
        near(cpu[0], want, 1e-13, "reference");
        near(gpu[0], want, 2e-6, "GPU");
        assert_eq!(cpu[1], [6.0, 5.0], "the neighbour stands");
        assert!((gpu[0][1] - 5.0) * side > 0.0, "seed {seed}: the GPU turned the other way");
    }
}

/// Within its buffer (0.25 m from the floor's wall, radius 0.2 + 0.1) an agent slides along
/// the wall and is pushed off it by 0.3; between the buffer and twice it, heading toward the
/// wall, its part toward the wall is halved at 0.45 m (the fade's middle).
#[test]
fn the_nearest_wall_slides_and_fades_the_direction() {
    let slide = |exit: [f64; 4], at: [f64; 2], turn: &dyn Fn([f64; 2]) -> [f64; 2]| {
        let target = [(exit[0] + exit[2]) / 2.0, (exit[1] + exit[3]) / 2.0];
        let d = turn(unit([target[0] - at[0], target[1] - at[1]]));
        let want = [at[0] + d[0] * 1.2 * DT, at[1] + d[1] * 1.2 * DT];
        let (cpu, gpu) = one_step(&room(exit), &Model::anticipation(0), &[Agent::anticipating(at[0], at[1])]);
        near(cpu[0], want, 1e-13, "reference");
        near(gpu[0], want, 2e-6, "GPU");
    };
    slide([9.0, 4.0, 9.9, 6.0], [5.0, 0.25], &|d| unit([d[0], 0.3]));
    slide([8.0, 0.1, 9.0, 0.5], [5.0, 0.45], &|d| unit([d[0], d[1] * 0.5]));
    // Walking away from the wall within twice the buffer changes nothing.
    slide([9.0, 4.0, 9.9, 6.0], [5.0, 0.45], &|d| d);
}

/// One GPU step against one reference step from the state the reference's run of `start` has
/// reached (positions, orientations, velocities): every agent within a step's length, and all
/// but 1 % within 1e-4 m (f32 and f64 may take a boundary decision, or the coin's threshold,
/// either way).
fn step_agrees(geometry: &Geometry, model: &Model, cpu: &reference::cfsm::Crowd, start: &[Agent]) {
    let walking: Vec<usize> = (0..start.len()).filter(|&i| cpu.exit_steps()[i] == 0).collect();
    let pick = |v: &[[f64; 2]]| walking.iter().map(|&i| v[i]).collect::<Vec<_>>();
    let (now, facing, moving) = (pick(cpu.positions()), pick(cpu.orientations()), pick(cpu.velocities()));
    let fresh: Vec<Agent> = walking.iter().map(|&i| start[i]).collect();
    let mut one = reference::cfsm::Crowd::new(geometry, model, &fresh, DT).unwrap();
    one.set_positions(&now);
    one.set_motion(&facing, &moving);
    one.step();
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, geometry, model, &fresh, DT).unwrap();
    gpu.set_positions(&now).unwrap();
    gpu.set_motion(&facing, &moving).unwrap();
    gpu.iterate(1).unwrap();
    let got = gpu.positions().unwrap();
    let mut off = 0;
    for (i, (g, w)) in got.iter().zip(one.positions()).enumerate() {
        let err = (f64::from(g[0]) - w[0]).hypot(f64::from(g[1]) - w[1]);
        assert!(err < 0.0121, "agent {i}: GPU {g:?}, reference {w:?}");
        off += usize::from(err > 1e-4);
    }
    assert!(off * 100 <= got.len(), "{off} of {} agents off by more than 1e-4", got.len());
    let turned = facing.iter().filter(|f| f[0].hypot(f[1]) > 0.5).count();
    assert!(cpu.steps() == 0 || turned * 2 > walking.len(), "the state has orientations: {turned}");
}

#[test]
fn one_step_agrees_with_the_reference() {
    let geometry = bottleneck(1.2);
    let model = Model::anticipation(3);
    let start = agents(300, 7);
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &start, DT).unwrap();
    for _ in 0..3 {
        step_agrees(&geometry, &model, &cpu, &start);
        cpu.run(cpu.steps() as f64 * DT + 4.0);
    }
}

/// 40 agents 1 m apart through 2 m, over three starts: the GPU's mean evacuation time and
/// flow within 5 % of the reference's. The runs part ways within seconds, so they agree as runs
/// of one model do. (With JuPedSim's defaults the model jams often, JuPedSim's own runs as much:
/// these starts empty on both; BENCHMARKS.md has the share that jams.) The same run again gives
/// the same steps, bit for bit.
#[test]
fn a_bottleneck_empties_as_the_reference_says() {
    let geometry = bottleneck(2.0);
    let g = common::gpu();
    let (mut want, mut got) = ([0.0; 2], [0.0; 2]);
    for seed in [1, 4, 9] {
        let (start, model) = (grid(40, seed, 1.0, 8), Model::anticipation(seed));
        let cpu = reference::cfsm::Crowd::new(&geometry, &model, &start, DT).unwrap().run(100.0);
        let gpu = Crowd::new(&g, &geometry, &model, &start, DT).unwrap().run(100.0).unwrap();
        for (sum, run) in [(&mut want, &cpu), (&mut got, &gpu)] {
            let t = run.evacuation_time().unwrap_or_else(|| panic!("seed {seed}: {:?}", run.exit_times));
            *sum = [sum[0] + t / 3.0, sum[1] + run.flow().unwrap() / 3.0];
        }
        if seed == 1 {
            let again = Crowd::new(&g, &geometry, &model, &start, DT).unwrap().run(100.0).unwrap();
            assert_eq!(again.exit_times, gpu.exit_times);
        }
    }
    eprintln!("evacuation {} s / {} s, flow {} / {} per s", want[0], got[0], want[1], got[1]);
    assert!((got[0] / want[0] - 1.0).abs() < 0.05, "evacuation: GPU {} s, reference {} s", got[0], want[0]);
    assert!((got[1] / want[1] - 1.0).abs() < 0.05, "flow: GPU {}/s, reference {}/s", got[1], want[1]);
}

/// Agents added between steps leave every agent before with its position, orientation and
/// velocity to the bit, on both; the first, at index 0, included.
#[test]
fn arrivals_keep_every_velocity() {
    let geometry = bottleneck(2.0);
    let model = Model::anticipation(2);
    let start = agents(40, 4);
    let added = [Agent::anticipating(9.5, 9.5)];
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &model, &start, DT).unwrap();
    gpu.iterate(50).unwrap();
    let before = (gpu.positions().unwrap(), gpu.orientations().unwrap(), gpu.velocities().unwrap());
    assert!(before.2[0][0] > 0.1, "agent 0 walks: {:?}", before.2[0]);
    assert_eq!(gpu.add_agents(&added).unwrap(), 40..41);
    let after = (gpu.positions().unwrap(), gpu.orientations().unwrap(), gpu.velocities().unwrap());
    assert_eq!((&after.0[..40], &after.1[..40], &after.2[..40]), (&before.0[..], &before.1[..], &before.2[..]));
    assert_eq!(after.2[40], [0.0, 0.0]);
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &start, DT).unwrap();
    cpu.iterate(50);
    let velocities = cpu.velocities().to_vec();
    cpu.add_agents(&added).unwrap();
    assert_eq!(&cpu.velocities()[..40], &velocities[..]);
    // Both walk on with the newcomer.
    assert!(gpu.iterate(10).unwrap() == 41 && cpu.iterate(10) == 41);
}
