//! The crate's files import each other without loops, and the GPU module's folders are layers
//! (issue 23): a file of `src/gpu/` imports only from layers below its own, and no stage names
//! another. The project's own check, since a user's clone has no `../shared/tools/modgraph.py`.
//!
//! An import is a path through `crate::`, `super::` or `self::`, in a `use` tree or inline, in
//! code (comments, and the tests at the bottom of a file, are left out), resolved to the file of
//! the longest module it names. A name re-exported by a `mod.rs` counts as using that `mod.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The rank of a file of `src/gpu/` by its folder (`gpu/stages/sort.rs` -> `stages`), bottom
/// first: a file may import from a lower rank, and from its own except in `stages/`. `host`
/// sits beside `device`. `None` for `gpu/mod.rs`, which declares and re-exports.
fn layer(file: &str) -> Option<usize> {
    let first = file.strip_prefix("gpu/")?.split(['/', '.']).next()?;
    match first {
        "kernels" => Some(0),
        "device" | "host" => Some(1),
        "primitives" => Some(2),
        "resources" => Some(3),
        "stages" => Some(4),
        "world" => Some(5),
        "testing" => Some(6),
        _ => None,
    }
}

/// Every module of the library crate (`["gpu", "stages", "sort"]`) and its file relative to `src`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                if rel != "bin" {
                    stack.push(path);
                }
                continue;
            }
            let Some(stem) = rel.strip_suffix(".rs") else { continue };
            let mut parts: Vec<String> = stem.split('/').map(String::from).collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            out.insert(parts, rel);
        }
    }
    out
}

/// The paths of the `use` tree or inline path starting at `text` (just after `crate::`, say),
/// each as its segments: `a::{b, c::d}` -> `[a, b]`, `[a, c, d]`.
fn tree(text: &str) -> Vec<Vec<String>> {
    fn space(text: &str) -> usize {
        text.len() - text.trim_start().len()
    }
    fn parse(text: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
        let mut path = prefix;
        let mut at = space(text);
        loop {
            if text[at..].starts_with('{') {
                at += 1;
                loop {
                    at += space(&text[at..]);
                    if text[at..].starts_with('}') {
                        return at + 1;
                    }
                    at += parse(&text[at..], path.clone(), out);
                    at += space(&text[at..]);
                    match text[at..].chars().next() {
                        Some(',') => at += 1,
                        Some('}') => return at + 1,
                        _ => return at,
                    }
                }
            }
            let word: String =
                text[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '*').collect();
            at += word.len();
            if !word.is_empty() {
                path.push(word);
            }
            if text[at..].starts_with("::") {
                at += 2;
            } else {
                out.push(path);
                return at;
            }
        }
    }
    let mut out = vec![];
    parse(text, vec![], &mut out);
    out
}

/// Each file with the files its code imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        let code: String = text
            .split("#[cfg(test)]")
            .next()
            .unwrap_or(&text)
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        // The module `super::` and `self::` start from: a mod.rs or lib.rs is its own directory.
        let here = module.clone();
        let mut uses = BTreeSet::new();
        for (start, root) in
            [("crate::", vec![]), ("super::", here[..here.len().saturating_sub(1)].to_vec()), ("self::", here.clone())]
        {
            for (i, _) in code.match_indices(start) {
                let before = code[..i].chars().last();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                for tail in tree(&code[i + start.len()..]) {
                    let mut full = root.clone();
                    full.extend(tail);
                    let target = (0..=full.len()).rev().find_map(|n| modules.get(&full[..n]));
                    if let Some(target) = target.filter(|t| *t != file) {
                        uses.insert(target.clone());
                    }
                }
            }
        }
        graph.insert(file.clone(), uses);
    }
    graph
}

/// A loop in `graph`, as the files around it, if there is one.
fn a_loop(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            return Some(path[at..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut vec![], &mut done))
}

/// Imports that break the layering: from a higher layer, or from one stage to another.
fn layer_breaks(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut breaks = vec![];
    for (file, uses) in graph {
        let Some(own) = layer(file) else { continue };
        for used in uses {
            let stage_to_stage = file.starts_with("gpu/stages/") && used.starts_with("gpu/stages/");
            match layer(used) {
                Some(theirs) if theirs > own || stage_to_stage => breaks.push(format!("{file} -> {used}")),
                // The GPU module's own mod.rs sits above every layer; a file of gpu/ names what
                // it uses by its own path.
                None if used.starts_with("gpu/") && file != "gpu/testing.rs" => {
                    breaks.push(format!("{file} -> {used}"))
                }
                _ => {}
            }
        }
    }
    breaks
}

#[test]
fn the_crate_has_no_import_loops() {
    let graph = graph();
    assert!(graph.len() > 40, "found the crate's files: {:?}", graph.keys());
    let sees = |a: &str, b: &str| graph[a].contains(b);
    assert!(
        sees("gpu/world/mod.rs", "gpu/world/sized.rs")
            && sees("gpu/stages/sort.rs", "gpu/primitives/radix.rs")
            && sees("gpu/stages/narrow.rs", "gpu/resources.rs"),
        "the scan sees imports: {graph:?}"
    );
    if let Some(found) = a_loop(&graph) {
        panic!("import loop: {} -> {}", found.join(" -> "), found[0]);
    }
}

#[test]
fn gpu_files_import_only_from_lower_layers_and_no_stage_names_another() {
    let graph = graph();
    let gpu: Vec<_> = graph.keys().filter(|f| f.starts_with("gpu/")).collect();
    assert!(gpu.iter().all(|f| *f == "gpu/mod.rs" || layer(f).is_some()), "a file outside the layers: {gpu:?}");
    assert!(gpu.iter().filter(|f| f.starts_with("gpu/stages/")).count() >= 10);
    let breaks = layer_breaks(&graph);
    assert!(breaks.is_empty(), "imports against the layers:\n{}", breaks.join("\n"));
}

#[test]
fn the_checks_can_fail() {
    let edge = |a: &str, b: &[&str]| (a.to_string(), b.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>());
    let looped: BTreeMap<_, _> = [edge("a", &["b"]), edge("b", &["c"]), edge("c", &["a"]), edge("d", &[])].into();
    assert_eq!(a_loop(&looped), Some(vec!["a".to_string(), "b".to_string(), "c".to_string()]));
    let tree_graph: BTreeMap<_, _> = [edge("a", &["b", "c"]), edge("b", &["c"]), edge("c", &[])].into();
    assert_eq!(a_loop(&tree_graph), None);
    let upward: BTreeMap<_, _> = [
        edge("gpu/kernels/shaders.rs", &["gpu/stages/narrow.rs"]),
        edge("gpu/stages/compact.rs", &["gpu/stages/narrow.rs", "gpu/primitives/scan.rs"]),
        edge("gpu/stages/narrow.rs", &["gpu/mod.rs", "gpu/resources.rs"]),
        edge("gpu/world/mod.rs", &["gpu/stages/narrow.rs", "gpu/host/pack.rs"]),
    ]
    .into();
    assert_eq!(
        layer_breaks(&upward),
        [
            "gpu/kernels/shaders.rs -> gpu/stages/narrow.rs",
            "gpu/stages/compact.rs -> gpu/stages/narrow.rs",
            "gpu/stages/narrow.rs -> gpu/mod.rs"
        ]
    );
}

#[test]
fn use_trees_expand() {
    let paths = tree("gpu::{device::context::Gpu, kernels::{control, shared::WG}};");
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(joined, ["gpu::device::context::Gpu", "gpu::kernels::control", "gpu::kernels::shared::WG"]);
    assert_eq!(tree("gpu::stages::sort::Sort::new(gpu)"), [["gpu", "stages", "sort", "Sort", "new"]]);
    assert_eq!(layer("gpu/host/pack.rs"), layer("gpu/device/pass.rs"));
    assert!(layer("gpu/kernels/shaders.rs") < layer("gpu/primitives/scan.rs"));
    assert!(layer("gpu/resources.rs") < layer("gpu/stages/sort.rs"));
    assert_eq!(layer("gpu/mod.rs"), None);
}

#[test]
fn the_documented_layout_names_every_gpu_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/how-it-works.md")).unwrap();
    let layout = doc.split("## Layout").nth(1).expect("docs/how-it-works.md has a Layout section");
    let missing: Vec<String> = modules(&root.join("src"))
        .into_values()
        .filter(|file| file.starts_with("gpu/"))
        .flat_map(|file| {
            let parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(String::from).collect();
            parts.into_iter().skip(1).filter(|p| p != "mod").collect::<Vec<_>>()
        })
        .filter(|name| !layout.contains(name.as_str()))
        .collect();
    assert!(missing.is_empty(), "docs/how-it-works.md's Layout leaves out: {missing:?}");
}
