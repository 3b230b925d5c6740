//! The command line from the outside: exit codes, messages, file formats.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn satgpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_satgpu")).args(args).output().expect("satgpu runs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("satgpu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn write(name: &str, text: &str) -> PathBuf {
    let path = tmp(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn expect_bad_input(args: &[&str], needles: &[&str]) {
    let o = satgpu(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: stderr {}", stderr(&o));
    for n in needles {
        assert!(stderr(&o).contains(n), "{args:?}: stderr {:?} lacks {n:?}", stderr(&o));
    }
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn bad_input_exits_2_with_a_readable_message() {
    let missing = tmp("missing.json");
    expect_bad_input(&["detect", p(&missing), "--backend", "cpu"], &["missing.json", "No such file"]);
    let broken = write("broken.json", "{\"polygons\": [\n  {\"vertices\": [[0, 0], [1, 0],, [0, 1]]}\n]}");
    expect_bad_input(&["detect", p(&broken), "--backend", "cpu"], &["broken.json", "line 2, column"]);
    let empty = write("nopolys.json", "{\"shapes\": []}");
    expect_bad_input(&["detect", p(&empty), "--backend", "cpu"], &["no \"polygons\" array"]);
    let concave = write(
        "concave.json",
        r#"{"polygons": [{"vertices": [[0,0],[1,0],[0,1]]}, {"vertices": [[0,0],[2,0],[2,2],[1,0.5],[0,2]]}]}"#,
    );
    expect_bad_input(&["detect", p(&concave), "--backend", "gpu"], &["polygon 1", "not convex"]);
    let two = write("two.json", r#"{"polygons": [{"vertices": [[0,0],[1,0]]}]}"#);
    expect_bad_input(&["detect", p(&two), "--backend", "cpu"], &["polygon 0", "at least 3"]);
    let ok = write("ok.json", r#"{"polygons": []}"#);
    expect_bad_input(&["detect", p(&ok), "--backend", "cpu", "--out", p(&tmp("x.txt"))], &[".csv or .json"]);
    expect_bad_input(&["gen", "--kind", "blobs", "--n", "5", "--out", p(&tmp("g.json"))], &["crowd"]);
    expect_bad_input(&["frobnicate"], &["frobnicate"]);
}

#[test]
fn gen_then_detect_writes_the_same_pairs_on_gpu_and_cpu() {
    let scene = tmp("grid.json");
    let o = satgpu(&["gen", "--kind", "grid", "--n", "600", "--seed", "3", "--out", p(&scene)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cpu = tmp("cpu.csv");
    let gpu = tmp("gpu.csv");
    let gpu_json = tmp("gpu.json");
    for (backend, out) in [("cpu", &cpu), ("gpu", &gpu), ("gpu", &gpu_json)] {
        let o = satgpu(&["detect", p(&scene), "--backend", backend, "--out", p(out)]);
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
    }
    let cpu = std::fs::read_to_string(cpu).unwrap();
    let gpu = std::fs::read_to_string(gpu).unwrap();
    assert!(cpu.starts_with("a,b,normal_x,normal_y,depth\n"));
    assert!(cpu.lines().count() > 100, "the grid must have touching pairs");
    // Exact integer scene: same pairs, same order, depth 0 everywhere.
    let pairs =
        |csv: &str| csv.lines().skip(1).map(|l| l.split(',').take(2).collect::<Vec<_>>().join(",")).collect::<Vec<_>>();
    assert_eq!(pairs(&cpu), pairs(&gpu));
    assert!(gpu.lines().skip(1).all(|l| l.ends_with(",0") || l.ends_with(",0.0")), "touching pairs have depth 0");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(gpu_json).unwrap()).unwrap();
    assert_eq!(json["pairs"].as_array().unwrap().len(), pairs(&gpu).len());
    assert!(json["pairs"][0]["normal_x"].is_number());
}

#[test]
fn run_validates_against_the_reference_and_reports() {
    let o = satgpu(&["run", "--kind", "clustered", "--n", "3000", "--seed", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "stdout {out}\nstderr {}", stderr(&o));
    for needle in ["adapter", "candidates", "colliding", "sat", "disagreements 0"] {
        assert!(out.contains(needle), "missing {needle:?} in {out}");
    }
}

#[test]
fn no_adapter_exits_3_and_names_the_fix() {
    let o = Command::new(env!("CARGO_BIN_EXE_satgpu"))
        .args(["run", "--n", "10"])
        .env("WGPU_BACKEND", "vulkan")
        .env("VK_DRIVER_FILES", "/nonexistent.json")
        .env("VK_ICD_FILENAMES", "/nonexistent.json")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "stderr {}", stderr(&o));
    assert!(stderr(&o).contains("apt-get install mesa-vulkan-drivers"), "{}", stderr(&o));
}
