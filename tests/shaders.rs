//! Every shader in shaders/ parses and validates with naga, without a device, and every file
//! on disk is one the pipeline loads.

use satgpu::gpu::SHADERS;

fn validate(name: &str, src: &str) {
    let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
    assert!(
        module.entry_points.iter().any(|e| e.name == "main" && e.stage == naga::ShaderStage::Compute),
        "{name} has no compute entry point `main`"
    );
}

#[test]
fn every_shader_validates() {
    for (name, src) in SHADERS {
        validate(name, src);
    }
}

#[test]
fn every_file_in_shaders_is_loaded() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("shaders/ exists")
        .map(|e| e.expect("readable entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    on_disk.sort();
    let mut loaded: Vec<String> = SHADERS.iter().map(|(n, _)| n.to_string()).collect();
    loaded.sort();
    assert_eq!(on_disk, loaded);
    for (name, src) in SHADERS {
        let file = std::fs::read_to_string(dir.join(name)).expect("readable shader");
        assert_eq!(file, src, "{name} differs from the embedded copy");
    }
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

/// The text of `struct NAME { ... }` or `fn NAME(...) ... { ... }` in `src`, if present.
fn block(src: &str, head: &str) -> Option<String> {
    let start = src.find(head)?;
    let open = start + src[start..].find('{')?;
    let mut depth = 0;
    for (i, c) in src[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(src[start..=open + i].to_string());
                }
            }
            _ => {}
        }
    }
    None
}

/// WGSL has no includes, so shared structs, helpers and control-buffer offsets are copied between
/// shaders ("keep in sync" comments). This makes a copy that drifts fail.
#[test]
fn shared_definitions_are_identical_across_shaders() {
    for head in ["struct Params {", "struct Body {", "fn strip(", "fn key(", "fn one_hot(", "fn field(", "fn sortable("]
    {
        let copies: Vec<(&str, String)> =
            SHADERS.iter().filter_map(|(name, src)| block(src, head).map(|b| (*name, b))).collect();
        assert!(!copies.is_empty(), "{head} is defined nowhere");
        for (name, text) in &copies {
            assert_eq!(text, &copies[0].1, "{head} in {name} differs from {}", copies[0].0);
        }
    }
    let mut checked = 0;
    for (name, src) in SHADERS {
        for (constant, words) in satgpu::gpu::testing::CONTROL_LAYOUT {
            let decl = format!("const {constant}: u32 = ");
            if let Some(at) = src.find(&decl) {
                let value: String = src[at + decl.len()..].chars().take_while(|c| c.is_ascii_digit()).collect();
                assert_eq!(
                    value.parse::<u64>().ok(),
                    Some(words),
                    "{name}: {constant} differs from src/gpu/control.rs"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 12, "only {checked} control offsets found in the shaders");
}
