//! Shared by the tests that run the `satgpu` binary (cli.rs, render.rs): running it, temporary
//! files, and the check for bad input (exit 2 with a readable message).

#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built `satgpu` with `args`.
pub fn satgpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_satgpu")).args(args).output().expect("satgpu runs")
}

/// A path in this test process's own temporary folder.
pub fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("satgpu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Writes `text` to [`tmp`]`(name)` and returns the path.
pub fn write(name: &str, text: &str) -> PathBuf {
    let path = tmp(name);
    std::fs::write(&path, text).unwrap();
    path
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `satgpu args` exits 2 and its stderr names every needle.
pub fn expect_bad_input(args: &[&str], needles: &[&str]) {
    let o = satgpu(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: stderr {}", stderr(&o));
    for n in needles {
        assert!(stderr(&o).contains(n), "{args:?}: stderr {:?} lacks {n:?}", stderr(&o));
    }
}

pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}
