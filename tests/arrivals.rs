//! Issue 66, agents arriving between steps (JuPedSim's `add_agent`): the agents before keep
//! their index, place, orientation, stage and exit step to the bit; the new ones walk from the
//! next step, on the GPU as on the reference; refusals name the agent and leave the crowd as it
//! was.

mod common;

use satgpu::crowd::{Agent, Crowd, Geometry, Model};
use satgpu::reference;

fn bottleneck() -> Geometry {
    Geometry::from_wkt("POLYGON ((0 0, 10 0, 10 4, 12 4, 12 6, 10 6, 10 10, 0 10, 0 0))", [11.5, 4.0, 12.0, 6.0])
        .unwrap()
}

/// Arrival `k`: at the room's left wall, a new row every 5.
fn arrival(k: usize) -> Agent {
    Agent::at(0.6 + 0.0013 * k as f64, 2.0 + 1.2 * (k % 5) as f64)
}

#[test]
fn arrivals_keep_the_crowd_before_them_and_walk_out() {
    let geometry = bottleneck();
    let model = Model::default();
    let start: Vec<Agent> = (0..4).map(|k| Agent::at(9.0, 3.5 + 0.9 * k as f64)).collect();
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &model, &start, 0.01).unwrap();
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &start, 0.01).unwrap();
    let mut added = 0;
    for round in 0..40 {
        gpu.iterate(50).unwrap();
        cpu.iterate(50);
        // Every second, one more at the left wall (it is free by then: the one before walked on).
        let before = (gpu.positions().unwrap(), gpu.orientations().unwrap(), gpu.exit_steps().unwrap());
        let stages = gpu.stages().unwrap();
        if round % 2 == 0 {
            let got = gpu.add_agents(&[arrival(added)]).unwrap();
            assert_eq!(got, cpu.add_agents(&[arrival(added)]).unwrap());
            assert_eq!(got, 4 + added..5 + added);
            added += 1;
            let n = before.0.len();
            assert_eq!(gpu.positions().unwrap()[..n], before.0[..], "round {round}: the crowd before moved");
            assert_eq!(gpu.orientations().unwrap()[..n], before.1[..]);
            assert_eq!(gpu.exit_steps().unwrap()[..n], before.2[..]);
            assert_eq!(gpu.stages().unwrap()[..n], stages[..]);
            assert_eq!(gpu.positions().unwrap()[n], arrival(added - 1).position.map(|v| v as f32));
            assert_eq!(gpu.len(), n + 1);
        }
        assert_eq!(gpu.steps(), cpu.steps());
    }
    let (got, want) = (gpu.run(200.0).unwrap(), cpu.run(200.0));
    assert_eq!((got.exit_times.len(), want.exit_times.len()), (24, 24));
    assert!(got.evacuation_time().is_some() && want.evacuation_time().is_some(), "everyone leaves");
    // The four that started near the exit left first, in the same steps on both.
    assert_eq!(got.exit_times[..4], want.exit_times[..4]);
    let (tg, tw) = (got.evacuation_time().unwrap(), want.evacuation_time().unwrap());
    assert!((tg / tw - 1.0).abs() < 0.02, "evacuation: GPU {tg} s, reference {tw} s");
}

#[test]
fn a_bad_arrival_is_refused_by_name_and_changes_nothing() {
    let geometry = bottleneck();
    let model = Model::default();
    let start = [Agent::at(5.0, 5.0), Agent::at(11.0, 5.0)];
    let g = common::gpu();
    let mut gpu = Crowd::new(&g, &geometry, &model, &start, 0.01).unwrap();
    let mut cpu = reference::cfsm::Crowd::new(&geometry, &model, &start, 0.01).unwrap();
    gpu.iterate(100).unwrap();
    cpu.iterate(100);
    let (positions, exits) = (gpu.positions().unwrap(), gpu.exit_steps().unwrap());
    assert_eq!(exits[1], 42, "agent 1 left after 42 steps");
    let now = [f64::from(positions[0][0]), f64::from(positions[0][1])];
    let cases = [
        (vec![Agent::at(now[0] + 0.3, now[1])], "agent 2 at", "overlaps agent 0, walking at"),
        (vec![Agent::at(3.0, 3.0), Agent::at(3.0, 3.3)], "agents 2 and 3", "overlap"),
        (vec![Agent::at(3.0, 3.0), Agent::at(0.1, 3.0)], "agent 3 at (0.1, 3)", "from a wall"),
        (vec![Agent { stage: 4, ..Agent::at(3.0, 3.0) }], "agent 2's stage 4", "is not in its journey 0"),
        (vec![Agent { radius: 3.0, ..Agent::at(3.0, 3.0) }], "agent 2's radius 3", "is outside (0, 2]"),
    ];
    for (added, what, says) in cases {
        for e in [gpu.add_agents(&added).unwrap_err(), cpu.add_agents(&added).unwrap_err()] {
            let text = e.to_string();
            assert!(text.contains(what) && text.contains(says), "{text}");
        }
        assert_eq!((gpu.len(), cpu.positions().len()), (2, 2));
        assert_eq!(gpu.positions().unwrap(), positions);
        assert_eq!(gpu.exit_steps().unwrap(), exits);
    }
    // Where agent 1 left is free again: it is gone.
    let range = gpu.add_agents(&[Agent::at(11.0, 5.0)]).unwrap();
    assert_eq!(range, 2..3);
    assert_eq!(gpu.iterate(1).unwrap(), 2);
}
