//! Issue 66: `satgpu sim --journeys FILE.json` with the agents' `journey_id` and `stage_id`
//! columns: a waypoint and a round robin to two exits from the command line, the same exit
//! times as the library's reference given the same stages and journeys, and refusals by name.

mod cli_common;

use cli_common::{expect_bad_input, p, satgpu, stderr, tmp, write};
use satgpu::crowd::{parse_agents_csv, Geometry, Journey, Journeys, Model, Stage, Transition};

const AREA: &str = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))";

const JOURNEYS: &str = r#"{
  "stages": [
    {"waypoint": {"position": [5, 5], "distance": 1}},
    {"exit": {"polygon": [[9.5, 4], [9.9, 4], [9.9, 6], [9.5, 6]]}},
    {"exit": {"polygon": [[0.1, 4], [0.5, 4], [0.5, 6], [0.1, 6]]}}
  ],
  "journeys": [
    [{"stage": 0, "next": {"round_robin": [[1, 2], [2, 1]]}}, {"stage": 1}, {"stage": 2}],
    [{"stage": 1}]
  ]
}"#;

fn agents_csv() -> String {
    let rows: String = (0..12)
        .map(|k| format!("{},{},{},{}\n", 3.0 + 0.8 * (k % 6) as f64, 1.5 + 0.8 * (k / 6) as f64, k / 10, k / 10))
        .collect();
    format!("x,y,journey_id,stage_id\n{rows}")
}

#[test]
fn sim_reads_stages_journeys_and_each_agents_journey() {
    let area = write("j_area.wkt", AREA);
    let file = write("j_journeys.json", JOURNEYS);
    let agents = write("j_agents.csv", &agents_csv());
    let run = |backend: &str| {
        let json = tmp(&format!("j_{backend}.json"));
        let args = ["sim", "--model", "cfsm", "--geometry", p(&area), "--journeys", p(&file), "--agents", p(&agents)];
        let o = satgpu(&[&args[..], &["--backend", backend, "--json", p(&json)]].concat());
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let times: Vec<f64> = v["exit_times"].as_array().unwrap().iter().map(|t| t.as_f64().unwrap()).collect();
        times
    };
    let (gpu, cpu) = (run("gpu"), run("cpu"));
    assert_eq!((gpu.len(), cpu.len()), (12, 12), "everyone left on both");
    // The library's reference with the stages and journeys written out by hand: the same run.
    let journeys = Journeys {
        stages: vec![
            Stage::Waypoint { position: [5.0, 5.0], distance: 1.0 },
            Stage::Exit { polygon: vec![[9.5, 4.0], [9.9, 4.0], [9.9, 6.0], [9.5, 6.0]] },
            Stage::Exit { polygon: vec![[0.1, 4.0], [0.5, 4.0], [0.5, 6.0], [0.1, 6.0]] },
        ],
        journeys: vec![
            Journey { stages: vec![(0, Some(Transition::RoundRobin(vec![(1, 2), (2, 1)]))), (1, None), (2, None)] },
            Journey::through(&[1]),
        ],
    };
    let geometry = Geometry::with_journeys(satgpu::scene::parse_wkt_polygon(AREA).unwrap(), journeys).unwrap();
    let start = parse_agents_csv(&agents_csv(), &Model::default()).unwrap();
    assert_eq!((start[9].journey, start[10].journey, start[11].stage), (0, 1, 1));
    let mut crowd = satgpu::reference::cfsm::Crowd::new(&geometry, &Model::default(), &start, 0.01).unwrap();
    assert_eq!(crowd.run(600.0).sorted_exit_times(), cpu);
    // Both exits were used: the round robin dealt the waypoint's agents 2 : 1.
    let left = crowd.positions().iter().filter(|p| p[0] < 1.0).count();
    assert_eq!(left, 3, "{:?}", crowd.positions());
}

#[test]
fn bad_journeys_are_refused_by_name() {
    let area = write("jb_area.wkt", AREA);
    let agents = write("jb_agents.csv", &agents_csv());
    let with = |name: &str, text: &str| {
        let file = write(name, text);
        vec!["sim", "--model", "cfsm", "--geometry", p(&area), "--agents", p(&agents), "--journeys"]
            .into_iter()
            .map(String::from)
            .chain([p(&file).to_string()])
            .collect::<Vec<String>>()
    };
    let refused = |args: Vec<String>, needles: &[&str]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        expect_bad_input(&args, needles);
    };
    refused(with("jb_outside.json", &JOURNEYS.replace("[5, 5]", "[15, 5]")), &["jb_outside.json", "stage 0"]);
    refused(with("jb_missing.json", &JOURNEYS.replace("[2, 1]]", "[7, 1]]")), &["stage 7"]);
    refused(with("jb_weight.json", &JOURNEYS.replace("[1, 2]", "[1, 0]")), &["jb_weight.json", "weight"]);
    refused(with("jb_field.json", &JOURNEYS.replace("\"distance\"", "\"radius\"")), &["jb_field.json", "line 3"]);
    let both = ["sim", "--model", "cfsm", "--geometry", p(&area), "--agents", p(&agents), "--exit", "9,4,9.9,6"];
    let file = write("jb_both.json", JOURNEYS);
    expect_bad_input(&[&both[..], &["--journeys", p(&file)]].concat(), &["--exit X0,Y0,X1,Y1 or --journeys"]);
    let half = write("jb_half.csv", "x,y,journey_id\n3,2,0.5\n");
    let args = ["sim", "--model", "cfsm", "--geometry", p(&area), "--agents", p(&half), "--journeys", p(&file)];
    expect_bad_input(&args, &["line 2, column journey_id", "0.5 is not an index"]);
}
