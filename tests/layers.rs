//! The GPU module's files import each other without loops (issue 23): the project's own check,
//! since a user's clone has no `../shared/tools/modgraph.py`. An import is any path through
//! `crate::gpu::` or `super::` naming another file of `src/gpu/`, in a `use` or inline.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each file of `src/gpu/` (by module name, `mod.rs` left out: it declares, it does not use)
/// with the sibling modules its code names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gpu");
    let mut sources = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.extension().is_some_and(|e| e == "rs") && name != "mod" {
            sources.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (name, text) in &sources {
        // Only code: the tests at the bottom of a file may use anything.
        let code = text.split("#[cfg(test)]").next().unwrap_or(text);
        let mut names = BTreeSet::new();
        for prefix in ["crate::gpu::", "super::"] {
            for rest in code.split(prefix).skip(1) {
                let group = match rest.strip_prefix('{') {
                    Some(inner) => inner.split('}').next().unwrap_or(""),
                    None => "",
                };
                for item in group.split(',') {
                    let word: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if modules.contains(&word) && &word != name {
                        names.insert(word);
                    }
                }
                let first: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if modules.contains(&first) && &first != name {
                    names.insert(first);
                }
            }
        }
        graph.insert(name.clone(), names);
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

#[test]
fn the_gpu_module_has_no_import_loops() {
    let graph = imports();
    assert!(graph.len() > 20, "found the GPU module's files: {:?}", graph.keys());
    assert!(graph["world"].contains("sized") && graph["sort"].contains("radix"), "the scan sees imports: {graph:?}");
    if let Some(found) = a_loop(&graph) {
        panic!("import loop: {} -> {}", found.join(" -> "), found[0]);
    }
}

#[test]
fn the_loop_finder_finds_a_loop() {
    let edge = |a: &str, b: &[&str]| (a.to_string(), b.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>());
    let looped: BTreeMap<_, _> = [edge("a", &["b"]), edge("b", &["c"]), edge("c", &["a"]), edge("d", &[])].into();
    assert_eq!(a_loop(&looped), Some(vec!["a".to_string(), "b".to_string(), "c".to_string()]));
    let tree: BTreeMap<_, _> = [edge("a", &["b", "c"]), edge("b", &["c"]), edge("c", &[])].into();
    assert_eq!(a_loop(&tree), None);
}
