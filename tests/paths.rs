//! Every file path the project's sources and docs name (`src/...`, `shaders/...`, `python/...`,
//! `docs/...`, `tests/...`, `benches/...`, `examples/...`, `scripts/...`) exists: comments named
//! files that had moved (issue 63). The recipe's placeholders (`my_pass`) and the composer's
//! `#import` pattern are the exceptions. And files stay short enough to read.

use std::path::{Path, PathBuf};

const ROOTS: [&str; 8] = ["src/", "shaders/", "python/", "docs/", "tests/", "benches/", "examples/", "scripts/"];
const KINDS: [&str; 6] = [".rs", ".wgsl", ".py", ".pyi", ".md", ".sh"];
const PLACEHOLDERS: [&str; 3] = ["shaders/my_pass.wgsl", "src/gpu/stages/my_pass.rs", "shaders/shared/name.wgsl"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "__pycache__" {
                files(&path, out);
            }
        } else if KINDS.iter().any(|k| name.ends_with(k)) {
            out.push(path);
        }
    }
}

/// The paths `text` names: a root at the start of a run of path characters, the run up to its
/// last character that can end a file name, when it ends in a kind of file the project has.
fn named(text: &str) -> Vec<String> {
    let part = |c: char| c.is_ascii_alphanumeric() || "_/.-".contains(c);
    let mut out = vec![];
    for (at, _) in text.char_indices() {
        if at > 0 && text[..at].chars().next_back().is_some_and(part) {
            continue;
        }
        let rest = &text[at..];
        if !ROOTS.iter().any(|r| rest.starts_with(r)) {
            continue;
        }
        let run: String = rest.chars().take_while(|&c| part(c)).collect();
        let run = run.trim_end_matches(['.', '-', '/']);
        if KINDS.iter().any(|k| run.ends_with(k)) {
            out.push(run.to_string());
        }
    }
    out
}

#[test]
fn every_path_named_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = vec![root.join("README.md"), root.join("BENCHMARKS.md")];
    for dir in [
        "src",
        "shaders",
        "python/src",
        "python/satgpu",
        "python/tests",
        "tests",
        "benches",
        "examples",
        "scripts",
        "docs",
    ] {
        files(&root.join(dir), &mut all);
    }
    let mut gone = vec![];
    let mut seen = 0;
    for file in &all {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, row) in text.lines().enumerate() {
            for path in named(row) {
                seen += 1;
                if !PLACEHOLDERS.contains(&path.as_str()) && !root.join(&path).exists() {
                    gone.push(format!("{}:{}: {path}", file.strip_prefix(root).unwrap().display(), line + 1));
                }
            }
        }
    }
    assert!(seen > 100, "only {seen} paths named: the scan finds nothing");
    assert!(gone.is_empty(), "files named that do not exist:\n{}", gone.join("\n"));
}

#[test]
fn a_path_is_read_whole_and_only_at_its_start() {
    assert_eq!(named("see src/gpu/host/pack.rs: inner_circle"), ["src/gpu/host/pack.rs"]);
    assert_eq!(named("(python/src/lib.rs) and shaders/sat.wgsl."), ["python/src/lib.rs", "shaders/sat.wgsl"]);
    assert_eq!(named("[docs](docs/numerics.md#bands), src/gpu/ and mysrc/x.rs"), ["docs/numerics.md"]);
}

/// Files do not regrow past what a reader takes in (issue 63): no Rust file of the library, the
/// CLI or the Python bindings over 550 lines, the World's own file under 400, BENCHMARKS.md under
/// 300.
#[test]
fn files_stay_readable() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().count();
    let mut rust = vec![];
    files(&root.join("src"), &mut rust);
    files(&root.join("python/src"), &mut rust);
    rust.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    assert!(rust.len() > 100, "only {} files found", rust.len());
    let long: Vec<String> = rust
        .iter()
        .filter(|p| lines(p) > 550)
        .map(|p| format!("{} ({} lines)", p.strip_prefix(root).unwrap().display(), lines(p)))
        .collect();
    assert!(long.is_empty(), "over 550 lines: {long:?}");
    assert!(lines(&root.join("src/gpu/world/mod.rs")) < 400);
    assert!(lines(&root.join("BENCHMARKS.md")) < 300);
}

/// Each `(name, version)` a Cargo.lock locks.
fn locked(path: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let value = |line: &str, key: &str| line.strip_prefix(key).map(|v| v.trim_matches('"').to_string());
    let lines: Vec<&str> = text.lines().collect();
    (lines.windows(2)).filter_map(|w| Some((value(w[0], "name = ")?, value(w[1], "version = ")?))).collect()
}

/// The Python crate locks every crate it shares with satgpu at satgpu's versions: the package is
/// built with the wgpu and naga that satgpu's tests run (python/Cargo.lock had drifted to newer
/// ones). Not compared: what only other platforms build (bumpalo, pin-project-lite: web and wasm)
/// and crates locked at more than one version. (Sharing the compiled crates with CI's pip build
/// would take more: pyo3's macros turn on features of syn that bytemuck's derive then builds
/// with, so bytemuck and every wgpu crate compile again.)
#[test]
fn the_python_lock_keeps_the_crates_versions() {
    let ours = locked("Cargo.lock");
    let count = |name: &str, list: &[(String, String)]| list.iter().filter(|(n, _)| n == name).count();
    let theirs = locked("python/Cargo.lock");
    assert!(theirs.iter().any(|(n, _)| n == "wgpu"), "python/Cargo.lock locks wgpu");
    let differ: Vec<_> = (theirs.iter())
        .filter(|(n, _)| !["bumpalo", "pin-project-lite"].contains(&n.as_str()))
        .filter(|(n, _)| count(n, &ours) == 1 && count(n, &theirs) == 1)
        .filter(|(n, v)| ours.iter().any(|(m, w)| m == n && w != v))
        .collect();
    assert!(
        differ.is_empty(),
        "python/Cargo.lock differs from Cargo.lock in {differ:?} (cargo update -p NAME --precise)"
    );
}
