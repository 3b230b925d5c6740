//! Every composed shader parses and validates with naga, without a device; every file in
//! shaders/ is used; no definition is written twice; and the records users paste in match the
//! public Rust types (every other Rust twin is checked beside its type: src/twins.rs).

use std::collections::BTreeMap;
use std::path::Path;

use satgpu::gpu::layout::{GpuContact, GpuManifold};
use satgpu::gpu::shader_sources;

fn parse(name: &str, src: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
    module
}

#[test]
fn every_composed_shader_validates() {
    for (name, src) in shader_sources() {
        let module = parse(name, &src);
        let programs = ["crowd.wgsl", "push.wgsl", "neighbours.wgsl"]; // several entry points each
        let want = |e: &naga::EntryPoint| {
            e.stage == naga::ShaderStage::Compute && (e.name == "main" || programs.contains(&name))
        };
        assert!(module.entry_points.iter().any(want), "{name} has no compute entry point `main`");
    }
}

fn wgsl_files(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .expect("readable shader directory")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders")
}

#[test]
fn every_file_in_shaders_is_used() {
    let kernels = wgsl_files(&root());
    let loaded: Vec<&str> = shader_sources().iter().map(|(n, _)| *n).collect::<Vec<_>>();
    let mut loaded: Vec<String> = loaded.iter().map(|s| s.to_string()).collect();
    loaded.sort();
    assert_eq!(kernels.keys().cloned().collect::<Vec<_>>(), loaded, "a kernel on disk is not loaded, or vice versa");
    let shared = wgsl_files(&root().join("shared"));
    let every: Vec<&String> = kernels.values().chain(shared.values()).collect();
    for module in shared.keys() {
        let import = format!("#import {}", module.trim_end_matches(".wgsl"));
        assert!(every.iter().any(|src| src.lines().any(|l| l.trim() == import)), "{module} is imported nowhere");
    }
}

/// The names a WGSL file defines at module scope (structs, constants, overrides, functions and
/// module-scope variables), but for its entry points (each file's own).
fn definitions(src: &str) -> Vec<String> {
    let mut names = vec![];
    let mut entry = false;
    for line in src.lines() {
        let after_compute = std::mem::replace(&mut entry, line.starts_with("@compute"));
        if after_compute && line.starts_with("fn ") {
            continue;
        }
        let rest = ["struct ", "const ", "override ", "fn "]
            .iter()
            .find_map(|k| line.strip_prefix(k))
            .or_else(|| line.strip_prefix("var<").and_then(|r| r.split_once("> ")).map(|(_, name)| name));
        if let Some(rest) = rest {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            names.push(name);
        }
    }
    names
}

/// The names a shared module asks each importer to define (its `// needs:` line): the
/// importers' own, one per importer by design.
fn needs(files: &BTreeMap<String, String>) -> Vec<String> {
    let lines = files.values().flat_map(|src| src.lines());
    lines.filter_map(|l| l.strip_prefix("// needs:")).flat_map(|l| l.split_whitespace().map(String::from)).collect()
}

#[test]
fn no_definition_is_written_twice() {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let shared = wgsl_files(&root().join("shared"));
    let needed = needs(&shared);
    assert!(needed.contains(&"vertex_in".to_string()), "{needed:?}");
    let files = wgsl_files(&root()).into_iter().chain(shared);
    let mut count = 0;
    for (file, src) in files {
        for name in definitions(&src) {
            count += 1;
            if name == "main" || needed.contains(&name) {
                continue; // every kernel's entry point; what a shared module needs of its importer
            }
            if let Some(other) = seen.insert(name.clone(), file.clone()) {
                panic!("{name} is defined in both {other} and {file}");
            }
        }
    }
    assert!(count > 40, "only {count} definitions found: the scan proves nothing");
    let sample = "struct Params {\nconst WG: u32 = 1u;\nvar<workgroup> low: u32;\n@compute @workgroup_size(1)\nfn step() {\nfn f() {\n";
    assert_eq!(definitions(sample), ["Params", "WG", "low", "f"]);
}

#[test]
fn a_broken_shader_is_rejected() {
    let broken = "@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }";
    let parsed = naga::front::wgsl::parse_str(broken);
    let rejected = match parsed {
        Err(_) => true,
        Ok(m) => naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
            .validate(&m)
            .is_err(),
    };
    assert!(rejected, "naga accepted an ill-typed shader, so the validation test proves nothing");
}

/// `gpu::RECORDS_WGSL`, the records users' shaders paste in, validates and lays out every field
/// of `Contact` and `Manifold` at the offset of its twin in `GpuContact` and `GpuManifold`.
#[test]
fn the_records_users_paste_match_the_rust_types_field_by_field() {
    let src = satgpu::gpu::RECORDS_WGSL;
    let module = parse("RECORDS_WGSL", src); // parses and validates
    let fields = |name: &str| -> Vec<(String, u32)> {
        let (_, ty) = module.types.iter().find(|(_, t)| t.name.as_deref() == Some(name)).unwrap();
        match &ty.inner {
            naga::TypeInner::Struct { members, .. } => {
                members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect()
            }
            other => panic!("{name} is {other:?}"),
        }
    };
    use std::mem::offset_of;
    let contact = [
        ("a", offset_of!(GpuContact, a)),
        ("b", offset_of!(GpuContact, b)),
        ("normal_x", offset_of!(GpuContact, normal_x)),
        ("normal_y", offset_of!(GpuContact, normal_y)),
        ("depth", offset_of!(GpuContact, depth)),
        ("pad", offset_of!(GpuContact, pad)),
    ];
    let manifold = [
        ("flags", offset_of!(GpuManifold, flags)),
        ("p1_x", offset_of!(GpuManifold, p1_x)),
        ("p1_y", offset_of!(GpuManifold, p1_y)),
        ("p1_depth", offset_of!(GpuManifold, p1_depth)),
        ("p2_x", offset_of!(GpuManifold, p2_x)),
        ("p2_y", offset_of!(GpuManifold, p2_y)),
        ("p2_depth", offset_of!(GpuManifold, p2_depth)),
        ("pad", offset_of!(GpuManifold, pad)),
    ];
    for (name, rust) in [("Contact", &contact[..]), ("Manifold", &manifold[..])] {
        let want: Vec<(String, u32)> = rust.iter().map(|(f, o)| (f.to_string(), *o as u32)).collect();
        assert_eq!(fields(name), want, "{name}");
    }
    // The totals' words, as World::totals_buffer documents them (arguments at byte 16).
    for line in [
        "TOTAL_ENTRIES: u32 = 0u",
        "TOTAL_CANDIDATES: u32 = 1u",
        "TOTAL_COLLIDING: u32 = 2u",
        "TOTAL_PAIR_ARGS: u32 = 4u",
    ] {
        assert!(src.contains(line), "{line}");
    }
    // The simulation reads them as a user's shader would: pasted first, not copied.
    assert!(satgpu::sim::shader().contains(src));
    assert_eq!(satgpu::sim::shader().matches("struct Contact {").count(), 1);
}
