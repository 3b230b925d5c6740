//! Issue 66, journeys through stages as JuPedSim has them: transitions taken agent by agent in
//! index order (round robin by weight, least targeted counting every journey), waypoints reached
//! within their distance, several exits; the GPU's choices against the reference's to the
//! agent, and refusals by name.

mod common;

use satgpu::crowd::{Agent, Crowd, Geometry, Journey, Journeys, Model, Routing, Stage, Transition};
use satgpu::scene::parse_wkt_polygon;
use satgpu::{reference, Error};

const CORRIDOR: &str = "POLYGON ((0 0, 20 0, 20 4, 0 4, 0 0))";
/// Stages: the waypoint in the corridor's middle, the exit at its left end, the one at its right.
const W: usize = 0;
const L: usize = 1;
const R: usize = 2;

fn stages() -> Vec<Stage> {
    vec![
        Stage::Waypoint { position: [10.0, 2.0], distance: 1.5 },
        Stage::exit_box([0.0, 0.0, 0.5, 4.0]),
        Stage::Exit { polygon: vec![[19.5, 0.0], [19.5, 4.0], [20.0, 4.0], [20.0, 0.0]] }, // clockwise
    ]
}

/// Journey 0: the waypoint, then round robin L 2, R 1; journey 1: the waypoint, then the least
/// targeted of L and R; journey 2: straight to L.
fn corridor() -> Geometry {
    let through = |next: Transition| Journey { stages: vec![(W, Some(next)), (L, None), (R, None)] };
    let journeys = Journeys {
        stages: stages(),
        journeys: vec![
            through(Transition::RoundRobin(vec![(L, 2), (R, 1)])),
            through(Transition::LeastTargeted(vec![L, R])),
            Journey::through(&[L]),
        ],
    };
    Geometry::with_journeys(parse_wkt_polygon(CORRIDOR).unwrap(), journeys).unwrap()
}

/// 3 x 3 agents 0.5 m apart round the waypoint, all within its distance: all reach it at once.
fn at_the_waypoint(journey: usize) -> Vec<Agent> {
    (0..9).map(|k| Agent { journey, ..Agent::at(9.5 + 0.5 * (k % 3) as f64, 1.5 + 0.5 * (k / 3) as f64) }).collect()
}

/// One step on both: the stages each agent heads for after it, and the counts per stage.
fn one_step(agents: &[Agent]) -> (Vec<u32>, Vec<u32>) {
    let geometry = corridor();
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &Model::default(), agents, 0.01).unwrap();
    cpu.step();
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &Model::default(), agents, 0.01).unwrap();
    gpu.iterate(1).unwrap();
    let cpu_stages: Vec<u32> = cpu.stages().iter().map(|&s| s as u32).collect();
    let cpu_counts: Vec<u32> = cpu.routing().targeting.iter().map(|&c| c as u32).collect();
    assert_eq!(gpu.stages().unwrap(), cpu_stages, "stages: GPU against the reference");
    assert_eq!(gpu.targeting().unwrap(), cpu_counts, "counts: GPU against the reference");
    (cpu_stages, cpu_counts)
}

#[test]
fn a_round_robin_deals_by_weight_in_index_order() {
    let (stages, counts) = one_step(&at_the_waypoint(0));
    let (l, r) = (L as u32, R as u32);
    assert_eq!(stages, [l, l, r, l, l, r, l, l, r]);
    assert_eq!(counts, [0, 6, 3]);
}

#[test]
fn least_targeted_counts_every_journey_and_the_choices_before() {
    // Agents 0 to 2 head straight for L (journey 2): L starts with 3.
    let mut agents: Vec<Agent> =
        (0..3).map(|k| Agent { journey: 2, stage: L, ..Agent::at(3.0, 1.0 + k as f64) }).collect();
    agents.extend(at_the_waypoint(1));
    let (stages, counts) = one_step(&agents);
    let (l, r) = (L as u32, R as u32);
    // R until the two tie, then each the first of the fewest: L on a tie.
    assert_eq!(stages, [l, l, l, r, r, r, l, r, l, r, l, r]);
    assert_eq!(counts, [0, 6, 6]);
}

#[test]
fn the_corridor_empties_through_both_exits_as_dealt() {
    let geometry = corridor();
    // 24 agents round the waypoint, each to reach it, then dealt L, L, R as they do. (Off a
    // round grid: an agent 1.5 m from the waypoint to the last bit reaches it in f32 a step
    // before f64, and every deal after it shifts.)
    let agents: Vec<Agent> = (0..24)
        .map(|k| Agent::at(8.53 + 0.61 * (k / 4) as f64 + 0.013 * (k % 3) as f64, 0.83 + 0.79 * (k % 4) as f64))
        .collect();
    let model = Model::default();
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &agents, 0.01).unwrap();
    let want = cpu.run(200.0);
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &model, &agents, 0.01).unwrap();
    let got = gpu.run(200.0).unwrap();
    assert!(want.evacuation_time().is_some() && got.evacuation_time().is_some(), "everyone leaves");
    let shares = |stages: Vec<u32>| [L, R].map(|s| stages.iter().filter(|&&t| t as usize == s).count());
    let cpu_share = shares(cpu.stages().iter().map(|&s| s as u32).collect());
    assert_eq!(cpu_share, [16, 8]);
    assert_eq!(gpu.stages().unwrap(), cpu.stages().iter().map(|&s| s as u32).collect::<Vec<_>>());
    // Each left through the exit it was dealt: its last place is in it.
    for (i, p) in gpu.positions().unwrap().iter().enumerate() {
        let stage = gpu.stages().unwrap()[i] as usize;
        assert!(geometry.reached(stage, [f64::from(p[0]), f64::from(p[1])]), "agent {i} at {p:?}, stage {stage}");
    }
    // The deals agree agent by agent, and so do the exit times, as two runs of one model do.
    let mean = |times: Vec<f64>| times.iter().sum::<f64>() / times.len() as f64;
    let (te, tg) = (mean(want.sorted_exit_times()), mean(got.sorted_exit_times()));
    assert!((tg / te - 1.0).abs() < 0.05, "mean exit time: GPU {tg} s, reference {te} s");
}

/// A room with a pillar: waypoints at two of the pillar's corners and the exit beyond, each
/// agent's stages in that order, on both.
#[test]
fn waypoints_round_an_obstacle_are_taken_in_order() {
    let area = parse_wkt_polygon("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 3, 6 3, 6 7, 4 7, 4 3))").unwrap();
    let journeys = Journeys {
        stages: vec![
            Stage::Waypoint { position: [3.0, 8.0], distance: 0.8 },
            Stage::Waypoint { position: [7.0, 8.0], distance: 0.8 },
            Stage::exit_box([7.0, 0.0, 10.0, 0.5]),
        ],
        journeys: vec![Journey::through(&[0, 1, 2])],
    };
    let geometry = Geometry::with_journeys(area, journeys).unwrap();
    let agents: Vec<Agent> =
        (0..12).map(|k| Agent::at(1.0 + 0.6 * (k % 3) as f64, 1.0 + 0.6 * (k / 3) as f64)).collect();
    let model = Model::default();
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &model, &agents, 0.01).unwrap();
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &agents, 0.01).unwrap();
    let mut seen = [vec![vec![0u32]; 12], vec![vec![0u32]; 12]];
    let mut high = [0.0f64; 12];
    for round in 0.. {
        assert!(round < 4000, "still walking after 200 s");
        if gpu.iterate(5).unwrap() + cpu.iterate(5) == 0 {
            break;
        }
        let stages = [gpu.stages().unwrap(), cpu.stages().iter().map(|&s| s as u32).collect()];
        for (side, now) in stages.iter().enumerate() {
            for (i, &s) in now.iter().enumerate() {
                if seen[side][i].last() != Some(&s) {
                    seen[side][i].push(s);
                }
            }
        }
        for (i, p) in cpu.positions().iter().enumerate() {
            high[i] = high[i].max(p[1]);
        }
    }
    for side in &seen {
        assert!(side.iter().all(|s| s == &[0, 1, 2]), "{side:?}");
    }
    // Each went up past the pillar to the waypoints (within 0.8 of y = 8) before the exit.
    assert!(high.iter().all(|&y| y > 7.2), "{high:?}");
}

#[test]
fn routing_deals_as_jupedsim_does() {
    let journeys = Journeys {
        stages: stages(),
        journeys: vec![Journey {
            stages: vec![(W, Some(Transition::RoundRobin(vec![(L, 2), (R, 1)]))), (L, None), (R, None)],
        }],
    };
    let mut routing = Routing::new(&journeys, vec![(0, W); 7]);
    let dealt: Vec<usize> = (0..7).map(|_| routing.next(&journeys, 0, W)).collect();
    assert_eq!(dealt, [L, L, R, L, L, R, L]);
    assert_eq!(routing.targeting, [0, 5, 2]);
    // A stage without a transition keeps the agent.
    assert_eq!(routing.next(&journeys, 0, L), L);
    assert_eq!(routing.targeting, [0, 5, 2]);
}

#[track_caller]
fn refused(journeys: Journeys) -> String {
    match Geometry::with_journeys(parse_wkt_polygon(CORRIDOR).unwrap(), journeys) {
        Err(e @ Error::Crowd { .. }) => e.to_string(),
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn bad_journeys_and_stages_are_refused_by_name() {
    let with = |journeys: Vec<Journey>| Journeys { stages: stages(), journeys };
    let cases = [
        (with(vec![Journey::through(&[0, 5])]), "journey 0 names stage 5, but there are 3 stages"),
        (with(vec![Journey::through(&[1]), Journey::default()]), "journey 1 has no stage"),
        (with(vec![Journey::through(&[0, 1, 0])]), "journey 0 names stage 0 twice"),
        (
            with(vec![Journey { stages: vec![(W, Some(Transition::Fixed(R))), (L, None)] }]),
            "journey 0's transition from stage 0 leads to stage 2, which is not in the journey",
        ),
        (
            with(vec![Journey {
                stages: vec![(W, Some(Transition::RoundRobin(vec![(L, 1), (R, 0)]))), (L, None), (R, None)],
            }]),
            "weighs stage 2 0",
        ),
        (with(vec![Journey { stages: vec![(W, Some(Transition::LeastTargeted(vec![])))] }]), "leads to no stage"),
    ];
    for (journeys, says) in cases {
        assert!(refused(journeys.clone()).contains(says), "{}", refused(journeys));
    }
    let one = |stage: Stage| Journeys { stages: vec![stage], journeys: vec![Journey::through(&[0])] };
    let stage_cases = [
        (
            one(Stage::Waypoint { position: [25.0, 2.0], distance: 1.0 }),
            "stage 0 (a waypoint at (25, 2)) is not inside",
        ),
        (one(Stage::Waypoint { position: [5.0, 2.0], distance: 0.0 }), "has distance 0"),
        (one(Stage::Exit { polygon: vec![[1.0, 1.0], [2.0, 1.0]] }), "needs 3 or more vertices"),
        (
            one(Stage::Exit { polygon: vec![[1.0, 1.0], [3.0, 1.0], [2.0, 1.5], [3.0, 3.0], [1.0, 3.0]] }),
            "is not a convex polygon",
        ),
        (one(Stage::exit_box([19.0, 1.0, 21.0, 2.0])), "is not inside the walkable area (its corner (21, 1))"),
    ];
    for (journeys, says) in stage_cases {
        assert!(refused(journeys.clone()).contains(says), "{}", refused(journeys));
    }
    // An agent's journey and stage: unknown journey first, then a stage not in it.
    let geometry = corridor();
    let check = |a: Agent| satgpu::crowd::check(&geometry, &Model::default(), &[a], 0.01).unwrap_err().to_string();
    assert!(
        check(Agent { journey: 3, ..Agent::at(5.0, 2.0) }).contains("agent 0's journey 3 is not one of the 3 journeys")
    );
    assert!(check(Agent { journey: 2, stage: R, ..Agent::at(5.0, 2.0) })
        .contains("agent 0's stage 2 is not in its journey 2"));
}

/// `switch_journey`, as JuPedSim's `switch_agent_journey`: the agent heads for the new stage
/// from the next step, the counts move at once; bad switches are refused in JuPedSim's order,
/// the crowd as it was.
#[test]
fn an_agent_switches_journey_between_steps() {
    let geometry = corridor();
    let agents: Vec<Agent> = (0..3).map(|k| Agent { journey: 2, stage: L, ..Agent::at(8.0, 1.0 + k as f64) }).collect();
    let model = Model::default();
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &model, &agents, 0.01).unwrap();
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &agents, 0.01).unwrap();
    gpu.iterate(10).unwrap();
    cpu.iterate(10);
    gpu.switch_journey(1, 0, R).unwrap();
    cpu.switch_journey(1, 0, R).unwrap();
    assert_eq!(gpu.targeting().unwrap(), [0, 2, 1]);
    assert_eq!(cpu.routing().targeting, [0, 2, 1]);
    let messages = [
        (5, L, 0, "switching agent 0 to journey 5 is not one of the 3 journeys"),
        (2, W, 0, "switching agent 0 to stage 0 not in journey 2"),
        (0, W, 9, "switching agent 9 there are 3 agents"),
    ];
    for (journey, stage, agent, says) in messages {
        let (a, b) = (gpu.switch_journey(agent, journey, stage), cpu.switch_journey(agent, journey, stage));
        for e in [a.unwrap_err().to_string(), b.unwrap_err().to_string()] {
            assert!(e.contains(says), "{e}");
        }
    }
    let (got, want) = (gpu.run(60.0).unwrap(), cpu.run(60.0));
    assert!(got.evacuation_time().is_some() && want.evacuation_time().is_some());
    for (side, p) in [("GPU", gpu.positions().unwrap()[1]), ("reference", cpu.positions()[1].map(|v| v as f32))] {
        assert!(p[0] >= 19.5, "{side}: agent 1 left by the right exit: {p:?}");
    }
    assert!(gpu.positions().unwrap()[0][0] <= 0.5 && cpu.positions()[2][0] <= 0.5);
    let left = gpu.switch_journey(0, 0, R).unwrap_err().to_string();
    assert!(left.contains("it has left"), "{left}");
    assert!(cpu.switch_journey(0, 0, R).unwrap_err().to_string().contains("it has left"));
    assert_eq!(gpu.targeting().unwrap(), [0, 0, 0]);
}
