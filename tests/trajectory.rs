//! Issue 66, trajectories in JuPedSim's SQLite format: the frames written are the crowd's own
//! (GPU and reference) at every `every` steps from frame 0, whichever way the steps are split;
//! the metadata and geometry are JuPedSim's; `satgpu sim --model cfsm --trajectory` writes one;
//! what cannot be written is refused by name and leaves the file as it was. (PedPy reading the
//! file, and JuPedSim's own writer beside ours, are python/tests/test_trajectory.py's.)
#![cfg(feature = "trajectory")]

mod cli_common;
mod common;

use std::collections::BTreeMap;
use std::path::Path;

use cli_common::{expect_bad_input, p, satgpu, stderr, tmp, write};
use satgpu::crowd::{Agent, Crowd, Geometry, Model, Recorded, Trajectory};
use satgpu::scene::{parse_wkt_polygon, Area};
use satgpu::{reference, Error};

const AREA: &str = "POLYGON ((0 0, 10 0, 10 4, 12 4, 12 6, 10 6, 10 10, 0 10, 0 0))";
const EXIT: [f64; 4] = [11.5, 4.0, 12.0, 6.0];

/// Frame -> id -> (x, y, orientation x, orientation y), as stored.
type Frames = BTreeMap<i64, BTreeMap<i64, [f64; 4]>>;

fn frames(path: &Path) -> Frames {
    let db = rusqlite::Connection::open(path).unwrap();
    let mut rows = db.prepare("SELECT frame, id, pos_x, pos_y, ori_x, ori_y FROM trajectory_data").unwrap();
    let mut frames = Frames::new();
    let read =
        rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?, [r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?]))).unwrap();
    for row in read {
        let (frame, id, values) = row.unwrap();
        assert!(frames.entry(frame).or_default().insert(id, values).is_none(), "frame {frame} holds id {id} twice");
    }
    frames
}

fn metadata(path: &Path) -> BTreeMap<String, String> {
    let db = rusqlite::Connection::open(path).unwrap();
    let mut rows = db.prepare("SELECT key, value FROM metadata").unwrap();
    rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

fn agents(n: usize) -> Vec<Agent> {
    (0..n).map(|k| Agent::at(1.0 + 0.6 * (k / 6) as f64, 2.0 + 0.6 * (k % 6) as f64)).collect()
}

/// Steps `crowd` `every` at a time, noting each frame as JuPedSim would write it: the agents
/// walking, and those that left in the frame's own step.
fn watched(crowd: &mut impl Recorded, every: u64, last: u64) -> Frames {
    let mut seen = Frames::new();
    loop {
        let s = crowd.snapshot().unwrap();
        if s.step.is_multiple_of(every) {
            let present = (0..s.positions.len()).filter(|&i| s.exit_steps[i] == 0 || s.exit_steps[i] == s.step);
            let rows =
                present.map(|i| (i as i64 + 1, [s.positions[i], s.orientations[i]].concat().try_into().unwrap()));
            seen.insert((s.step / every) as i64, rows.collect());
        }
        if s.step >= last || crowd.advance(every).unwrap() == 0 && crowd.snapshot().unwrap().step == s.step {
            return seen;
        }
    }
}

#[test]
fn the_frames_are_the_crowds_own_however_the_steps_are_split() {
    let geometry = Geometry::from_wkt(AREA, EXIT).unwrap();
    let (model, agents) = (Model::default(), agents(24));
    let (every, last) = (7, 4000);
    let start = reference::cfsm::Crowd::new(&geometry, &model, &agents, 0.01).unwrap();
    let mut by_hand = start.clone();
    let expected = watched(&mut by_hand, every, last);
    assert!(expected.len() > 50 && by_hand.walking() == 0, "everyone leaves");
    // In steps that are not multiples of `every`, one at a time, and all at once.
    for chunks in [vec![5, 1, 13, 100, 3], vec![1], vec![last]] {
        let path = tmp(&format!("split_{}.sqlite", chunks.len()));
        let mut file = Trajectory::create(&path, geometry.area(), 0.01, every).unwrap();
        let mut crowd = start.clone();
        let mut k = 0;
        while crowd.steps() < last && crowd.walking() > 0 {
            let steps = chunks[k % chunks.len()].min(last - crowd.steps());
            file.advance(&mut crowd, steps).unwrap();
            k += 1;
        }
        file.close().unwrap();
        let got = frames(&path);
        // The last frame the by-hand run notes may hold nobody: no rows for it in the file.
        let expected: Frames =
            expected.iter().filter(|(_, rows)| !rows.is_empty()).map(|(f, r)| (*f, r.clone())).collect();
        assert_eq!(got, expected, "chunks {chunks:?}");
        assert_eq!(got[&0].keys().copied().collect::<Vec<_>>(), (1..=24).collect::<Vec<_>>());
        assert!(got[&0].values().all(|r| r[2] == 0.0 && r[3] == 0.0), "no orientation before the first step");
    }
}

#[test]
fn the_gpu_crowd_writes_what_it_reads_back() {
    let gpu = common::gpu();
    let geometry = Geometry::from_wkt(AREA, EXIT).unwrap();
    let agents = agents(18);
    let crowd = || Crowd::new(&gpu, &geometry, &Model::default(), &agents, 0.01).unwrap();
    let expected = watched(&mut crowd(), 10, 600);
    let path = tmp("gpu.sqlite");
    let mut file = Trajectory::create(&path, geometry.area(), 0.01, 10).unwrap();
    let mut stepped = crowd();
    file.advance(&mut stepped, 600).unwrap();
    file.close().unwrap();
    assert_eq!(stepped.steps(), 600);
    assert_eq!(frames(&path), expected);
    assert_eq!(frames(&path).len(), 61);
}

#[test]
fn the_metadata_and_geometry_are_jupedsims() {
    let area =
        parse_wkt_polygon("POLYGON ((-3 -1e-20, 1e20 0, 1e20 7.25, -3 7.25), (0 1, 1 1, 1 2, 0 2, 0 1))").unwrap();
    let path = tmp("meta.sqlite");
    Trajectory::create(&path, &area, 0.01, 4).unwrap().close().unwrap();
    let meta = metadata(&path);
    let expected = [("fps", "25.0"), ("version", "2"), ("xmax", "1e20"), ("xmin", "-3.0"), ("ymax", "7.25")];
    for (key, value) in expected {
        assert_eq!(meta[key], value, "{key}");
    }
    assert_eq!(meta["ymin"].parse::<f64>().unwrap(), -1e-20);
    let db = rusqlite::Connection::open(&path).unwrap();
    let wkt: String = db.query_row("SELECT wkt FROM geometry", [], |r| r.get(0)).unwrap();
    // Every ring closed, every coordinate to the bit.
    let closed = Area { exterior: [&area.exterior[..], &area.exterior[..1]].concat(), holes: area.holes.clone() };
    assert_eq!(parse_wkt_polygon(&wkt).unwrap(), closed);
    assert_eq!(closed.wkt(), wkt);
    let count: i64 = db.query_row("SELECT COUNT(*) FROM trajectory_data", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 0);
    assert_eq!(metadata(&tmp("meta.sqlite")).len(), 6);
    // A second file on the same path replaces JuPedSim's tables (no frame is left from the first).
    let geometry = Geometry::from_wkt(AREA, EXIT).unwrap();
    let mut crowd = reference::cfsm::Crowd::new(&geometry, &Model::default(), &agents(3), 0.01).unwrap();
    for fps_every in [1, 2] {
        let mut file = Trajectory::create(&path, geometry.area(), 0.01, fps_every).unwrap();
        file.advance(&mut crowd, 4).unwrap();
        file.close().unwrap();
    }
    assert_eq!(frames(&path).keys().copied().collect::<Vec<_>>(), vec![2, 3, 4], "steps 4 to 8, every 2");
    assert_eq!(metadata(&path)["fps"], "50.0");
}

#[test]
fn what_cannot_be_written_is_refused_by_name() {
    let geometry = Geometry::from_wkt(AREA, EXIT).unwrap();
    let missing = tmp("no_such_folder").join("out.sqlite");
    match Trajectory::create(&missing, geometry.area(), 0.01, 4) {
        Err(e @ Error::Io { .. }) => assert!(e.to_string().contains("no_such_folder"), "{e}"),
        other => panic!("a missing folder: {:?}", other.err()),
    }
    let text = write("notes.sqlite", &"not a database ".repeat(100));
    assert!(matches!(Trajectory::create(&text, geometry.area(), 0.01, 4), Err(Error::Io { .. })));
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "not a database ".repeat(100));
    for (every, dt) in [(0, 0.01), (4, 0.0), (4, f64::NAN)] {
        let made = Trajectory::create(&tmp("bad.sqlite"), geometry.area(), dt, every);
        assert!(matches!(made, Err(Error::InvalidSetting { .. })), "every {every}, dt {dt}");
    }
}

#[test]
fn sim_cfsm_writes_a_trajectory() {
    let area = write("traj_area.wkt", AREA);
    let rows: String = agents(12).iter().map(|a| format!("{},{}\n", a.position[0], a.position[1])).collect();
    let csv = write("traj_agents.csv", &format!("x,y\n{rows}"));
    let base = ["sim", "--model", "cfsm", "--geometry", p(&area), "--exit", "11.5,4,12,6", "--agents", p(&csv)];
    for backend in ["gpu", "cpu"] {
        let out = tmp(&format!("sim_{backend}.sqlite"));
        let o = satgpu(&[&base[..], &["--backend", backend, "--trajectory", p(&out), "--every", "25"]].concat());
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
        let frames = frames(&out);
        assert_eq!(frames[&0].len(), 12, "{backend}");
        assert!(frames.len() > 20 && frames.keys().zip(0..).all(|(&f, k)| f == k), "{backend}: frames 0, 1, ...");
        assert_eq!(metadata(&out)["fps"], "4.0");
    }
    let missing = tmp("no_such_folder").join("out.sqlite");
    expect_bad_input(&[&base[..], &["--trajectory", p(&missing)]].concat(), &["no_such_folder"]);
    expect_bad_input(&[&base[..], &["--trajectory", p(&tmp("e.sqlite")), "--every", "0"]].concat(), &["every"]);
    expect_bad_input(&["sim", "--trajectory", p(&tmp("t.sqlite"))], &["read by --model cfsm, cfsm-v2 and avm only"]);
}
