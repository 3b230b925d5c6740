//! The check that a `#[repr(C)]` Rust struct and its WGSL twin agree, by naga's own layout of
//! the composed kernel: the same fields, named alike, in the same order, at the same offsets,
//! and the same size. [`assert_twin!`] names the Rust fields once and fails to compile when the
//! Rust struct gains or loses one; the WGSL side is read from the shader, so a field added,
//! moved or retyped on either side fails the test beside the Rust type.

/// The composed kernel `file`, parsed and validated by naga.
fn module(file: &str) -> naga::Module {
    let sources = crate::gpu::shader_sources();
    let (_, src) = sources.iter().find(|(n, _)| *n == file).unwrap_or_else(|| panic!("no kernel {file}"));
    let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{file}: {}", e.emit_to_string(src)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{file}: {}", e.emit_to_string(src)));
    module
}

/// Asserts that struct `name` of the composed kernel `file` has exactly `fields` (name, byte
/// offset), in order, and `size` bytes.
pub(crate) fn check(file: &str, name: &str, size: usize, fields: &[(&str, usize)]) {
    let module = module(file);
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("{file} has no struct {name}"));
    let naga::TypeInner::Struct { members, .. } = &ty.inner else { panic!("{file}: {name} is not a struct") };
    let wgsl: Vec<(String, u32)> = members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect();
    let rust: Vec<(String, u32)> = fields.iter().map(|(n, o)| (n.to_string(), *o as u32)).collect();
    assert_eq!(wgsl, rust, "{file}: the fields of WGSL {name} (left) and its Rust twin (right)");
    assert_eq!(layouter[handle].size as usize, size, "{file}: bytes of WGSL {name} and its Rust twin");
}

/// Asserts that the storage array `var` of the composed kernel `file` holds `element` (naga's
/// type, `vec4<f32>` say) of `size` bytes each: the arrays whose records are Rust structs.
pub(crate) fn check_array(file: &str, var: &str, element: &str, size: usize) {
    let module = module(file);
    let (_, global) = module
        .global_variables
        .iter()
        .find(|(_, g)| g.name.as_deref() == Some(var))
        .unwrap_or_else(|| panic!("{file} has no variable {var}"));
    let naga::TypeInner::Array { base, stride, .. } = module.types[global.ty].inner else {
        panic!("{file}: {var} is not an array")
    };
    let base = &module.types[base];
    let shown = match &base.inner {
        naga::TypeInner::Vector { size: n, scalar } => format!("vec{}<{}>", *n as u8, scalar_name(*scalar)),
        naga::TypeInner::Scalar(scalar) => scalar_name(*scalar).to_string(),
        _ => base.name.clone().unwrap_or_default(),
    };
    assert_eq!((shown.as_str(), stride as usize), (element, size), "{file}: the records of {var}");
}

fn scalar_name(s: naga::Scalar) -> &'static str {
    match (s.kind, s.width) {
        (naga::ScalarKind::Float, 4) => "f32",
        (naga::ScalarKind::Uint, 4) => "u32",
        (naga::ScalarKind::Sint, 4) => "i32",
        _ => "other",
    }
}

/// `assert_twin!(Rust, "kernel.wgsl", "Wgsl", [field, ...])`: every field of `Rust` (the
/// pattern below fails to compile where one is missing or gone), in order, against struct
/// `Wgsl` of the composed kernel, by name, offset and size.
macro_rules! assert_twin {
    ($ty:ident, $file:literal, $wgsl:expr, [$($field:ident),* $(,)?]) => {{
        #[allow(unused)]
        fn every_field_named(v: $ty) {
            let $ty { $($field: _),* } = v;
        }
        $crate::twins::check(
            $file,
            $wgsl,
            std::mem::size_of::<$ty>(),
            &[$((stringify!($field), std::mem::offset_of!($ty, $field))),*],
        )
    }};
}
pub(crate) use assert_twin;

#[cfg(test)]
mod tests {
    use crate::gpu::layout::{GpuContact, GpuInstance, GpuManifold, GpuParams, GpuTransform};

    /// The records of the frame's kernels (`Contact` and `Manifold` also through the records
    /// users paste in: tests/shaders.rs).
    #[test]
    fn the_frame_records_match_their_wgsl_twins() {
        assert_twin!(
            GpuParams,
            "transform.wgsl",
            "Params",
            [
                n_bodies,
                entry_capacity,
                candidate_capacity,
                fold_width,
                strip_height,
                candidate_base,
                margin,
                two,
                window,
                window_steps,
                continuous,
                worlds,
                wrap,
                box_x0,
                box_y0,
                box_x1,
                box_y1,
                period_x,
                period_y,
                period_x_lo,
                period_y_lo,
                zero,
                pad1,
                pad2
            ]
        );
        assert_twin!(GpuInstance, "transform.wgsl", "Instance", [shape_start, count, radius, round]);
        assert_twin!(GpuContact, "compact.wgsl", "Contact", [a, b, normal_x, normal_y, depth, pad]);
        assert_twin!(
            GpuManifold,
            "manifold.wgsl",
            "Manifold",
            [flags, p1_x, p1_y, p1_depth, p2_x, p2_y, p2_depth, pad]
        );
        // A pose is a `vec4<f32>` (x, y, cos, sin) in every kernel that reads one.
        let pose = [std::mem::offset_of!(GpuTransform, x), std::mem::offset_of!(GpuTransform, y)];
        let turn = [std::mem::offset_of!(GpuTransform, cos), std::mem::offset_of!(GpuTransform, sin)];
        assert_eq!((pose, turn), ([0, 4], [8, 12]));
        for file in ["transform.wgsl", "query.wgsl", "ray.wgsl", "sat.wgsl"] {
            super::check_array(file, "transforms", "vec4<f32>", std::mem::size_of::<GpuTransform>());
        }
        super::check_array("push.wgsl", "transforms", "vec4<f32>", std::mem::size_of::<GpuTransform>());
    }

    #[test]
    fn a_field_out_of_place_fails() {
        let moved = std::panic::catch_unwind(|| super::check("compact.wgsl", "Contact", 24, &[("b", 0), ("a", 4)]));
        assert!(moved.is_err(), "a Contact with a and b swapped passed");
        let grown = std::panic::catch_unwind(|| super::check_array("transform.wgsl", "transforms", "vec4<f32>", 32));
        assert!(grown.is_err(), "a 32-byte pose passed");
    }
}
