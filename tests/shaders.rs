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
