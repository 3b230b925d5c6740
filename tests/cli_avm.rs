//! Issue 66: `satgpu sim --model avm`, JuPedSim's AnticipationVelocityModel from the command
//! line: it empties a bottleneck on the GPU and on the reference, reads the model's CSV
//! columns, takes `--seed` as its coin's, and each model refuses the columns of another by name.

mod cli_common;

use cli_common::{expect_bad_input, p, satgpu, stderr, tmp, write};

#[test]
fn sim_avm_reads_its_columns_and_empties_a_bottleneck() {
    let area = write("avm_area.wkt", "POLYGON ((0 0, 10 0, 10 4, 12 4, 12 6, 10 6, 10 10, 0 10, 0 0))\n");
    let at = |k: usize| format!("{},{}", 1.0 + 1.2 * (k / 4) as f64, 3.0 + 1.2 * (k % 4) as f64);
    let plain = write("avm_plain.csv", &format!("x,y\n{}", (0..16).map(|k| at(k) + "\n").collect::<String>()));
    let own: String = (0..16).map(|k| at(k) + &format!(",{},0.5\n", 0.1 + 0.05 * (k % 3) as f64)).collect();
    let own = write("avm_own.csv", &format!("x,y,anticipation_time,reaction_time\n{own}"));
    let run = |agents: &std::path::Path, backend: &str, seed: &str| {
        let name = agents.file_stem().unwrap().to_str().unwrap();
        let json = tmp(&format!("avm_{name}_{backend}_{seed}.json"));
        let args = ["sim", "--model", "avm", "--geometry", p(&area), "--exit", "11.5,4,12,6", "--agents", p(agents)];
        let o = satgpu(&[&args[..], &["--backend", backend, "--seed", seed, "--json", p(&json)]].concat());
        assert!(o.status.success(), "{name} {backend}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!((v["model"].as_str(), v["agents"].as_u64()), (Some("avm"), Some(16)));
        v
    };
    let (gpu, cpu) = (run(&plain, "gpu", "1"), run(&plain, "cpu", "1"));
    let (tg, tc) = (gpu["evacuation_time"].as_f64().unwrap(), cpu["evacuation_time"].as_f64().unwrap());
    assert!((tg / tc - 1.0).abs() < 0.05, "evacuation: GPU {tg} s, reference {tc} s");
    assert_eq!(run(&plain, "gpu", "1")["exit_times"], gpu["exit_times"], "the same run twice");
    assert_ne!(run(&own, "gpu", "1")["exit_times"], gpu["exit_times"], "the agents' own parameters are read");
    let base = ["sim", "--geometry", p(&area), "--exit", "11.5,4,12,6", "--agents"];
    expect_bad_input(
        &[&base[..], &[p(&own), "--model", "cfsm"]].concat(),
        &["avm_own.csv", "wall_buffer_distance, anticipation_time, reaction_time", "--model avm"],
    );
    let walls = write("avm_walls.csv", "x,y,strength_geometry_repulsion\n1,1,3\n");
    expect_bad_input(
        &[&base[..], &[p(&walls), "--model", "avm"]].concat(),
        &["avm_walls.csv", "strength_geometry_repulsion, range_geometry_repulsion", "--model cfsm-v2"],
    );
    let slow = write("avm_slow.csv", "x,y,reaction_time\n1,1,0\n");
    expect_bad_input(
        &[&base[..], &[p(&slow), "--model", "avm"]].concat(),
        &["agent 0's reaction_time 0 is outside (0, 1]"],
    );
}
