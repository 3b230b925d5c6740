//! Adapters: which ones wgpu lists, in which order satgpu looks at them, and whether satgpu can
//! run on one (checked before any device is made).

/// An adapter's place in the search, best first: discrete, integrated, virtual, CPU, other; then
/// Vulkan, Metal or DX12 before GL.
pub(crate) fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let ty = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let backend = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    };
    (ty, backend)
}

/// wgpu's defaults and environment variables, except that indirect dispatches are not validated
/// unless `WGPU_VALIDATION_INDIRECT_CALL=1` asks for it. That validation runs an extra dispatch
/// before each of ours (about 70 us each on lavapipe, `cargo bench --bench overhead`), and
/// satgpu's indirect arguments come only from its own kernels, which fold every count to at most
/// the device's workgroups per dimension (`index.wgsl`, `folded`).
///
/// `backends` is what to look at unless `WGPU_BACKEND` says otherwise.
pub(crate) fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut descriptor =
        wgpu::InstanceDescriptor { backends, ..wgpu::InstanceDescriptor::new_without_display_handle() };
    descriptor.flags.remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    wgpu::Instance::new(descriptor.with_env())
}

/// The backends [`Gpu::new`](crate::gpu::Gpu::new) looks at, in turn, until one offers a usable adapter: those
/// `WGPU_BACKEND` names, or Vulkan, Metal and DX12, then GL.
pub(crate) fn search_order(from_env: Option<wgpu::Backends>) -> Vec<wgpu::Backends> {
    match from_env {
        Some(backends) => vec![backends],
        None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY],
    }
}

/// The adapters of `backends` (or of `WGPU_BACKEND`).
pub(crate) fn enumerate(backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    pollster::block_on(instance(backends).enumerate_adapters(wgpu::Backends::all()))
}

/// An adapter wgpu lists, and whether satgpu can run on it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AdapterReport {
    /// The adapter as wgpu describes it.
    pub info: wgpu::AdapterInfo,
    /// Why satgpu cannot run on it (see [`unsuitable_reason`]), or `None` when it can.
    pub unsuitable: Option<String>,
}

/// Every adapter wgpu sees (after `WGPU_BACKEND`), best first, each with whether satgpu can
/// run on it. Adapters it cannot use are listed too (`satgpu adapters` marks them), but
/// [`Gpu::new`](crate::gpu::Gpu::new) never picks one.
pub fn list_adapters() -> Vec<AdapterReport> {
    let adapters = enumerate(wgpu::Backends::all());
    let mut reports: Vec<_> = adapters.iter().map(report).collect();
    reports.sort_by_key(|r| rank(&r.info));
    reports
}

pub(crate) fn report(adapter: &wgpu::Adapter) -> AdapterReport {
    let info = adapter.get_info();
    let unsuitable = unsuitable_reason(&info, &adapter.get_downlevel_capabilities(), &adapter.limits());
    AdapterReport { info, unsuitable }
}

/// The GL or GL ES version in a GL adapter's driver info (wgpu puts `GL_VERSION` there:
/// `"4.5 (Core Profile) Mesa 22.3.6"`, `"OpenGL ES 3.2 Mesa 22.3.6"`, `"3.3.0 NVIDIA 580.159.04"`),
/// as (is ES, major, minor).
pub(crate) fn gl_version(driver_info: &str) -> Option<(bool, u32, u32)> {
    let (es, rest) = match driver_info.trim().strip_prefix("OpenGL ES") {
        Some(rest) => (true, rest),
        None => (false, driver_info.trim()),
    };
    // "OpenGL ES-CM 1.1" and the like carry a profile before the version.
    let rest = &rest[rest.find(|c: char| c.is_ascii_digit())?..];
    let mut numbers = rest.split(|c: char| !c.is_ascii_digit());
    let major = numbers.next()?.parse().ok()?;
    let minor = numbers.next()?.parse().ok()?;
    Some((es, major, minor))
}

/// Why an adapter with this description cannot run satgpu, or `None` when it can.
///
/// satgpu needs compute shaders and indirect dispatch (wgpu's downlevel flags), at least 7
/// storage buffers per shader stage and wgpu's downlevel limits, and on the GL backend a context
/// whose shading language has compute shaders: OpenGL 4.3 or OpenGL ES 3.1. That last check is
/// needed because wgpu 30 reports compute shaders on a desktop GL 3.3 context whose driver has
/// the `GL_ARB_compute_shader` extension (NVIDIA's), and then cannot translate a compute shader
/// to GLSL 3.30. [`Gpu::new`](crate::gpu::Gpu::new) and [`Gpu::from_device`](crate::gpu::Gpu::from_device) refuse such adapters with
/// [`Error::UnsuitableAdapter`](crate::Error::UnsuitableAdapter) before creating anything.
pub fn unsuitable_reason(
    info: &wgpu::AdapterInfo,
    downlevel: &wgpu::DownlevelCapabilities,
    limits: &wgpu::Limits,
) -> Option<String> {
    if info.backend == wgpu::Backend::Gl {
        if let Some((es, major, minor)) = gl_version(&info.driver_info) {
            let (api, need) = if es { ("OpenGL ES", (3, 1)) } else { ("OpenGL", (4, 3)) };
            if (major, minor) < need {
                return Some(format!(
                    "{api} {major}.{minor} cannot run compute shaders (satgpu needs OpenGL 4.3 or OpenGL ES 3.1); \
                     use Vulkan"
                ));
            }
        }
    }
    for (flag, what) in [
        (wgpu::DownlevelFlags::COMPUTE_SHADERS, "compute shaders"),
        (wgpu::DownlevelFlags::INDIRECT_EXECUTION, "indirect dispatch"),
    ] {
        if !downlevel.flags.contains(flag) {
            return Some(format!("it has no {what}"));
        }
    }
    limits_reason(limits)
}

/// What satgpu asks of a device: wgpu's downlevel limits, at least 7 storage buffers per stage
/// (up to 32 where the adapter has them: past 8, each binds one more page of a scene's shapes
/// where one binding is too small for them), and the adapter's own buffer and dispatch sizes
/// (`have`, which satgpu sizes its buffers for).
pub(crate) fn satgpu_limits(have: &wgpu::Limits) -> wgpu::Limits {
    wgpu::Limits {
        max_storage_buffer_binding_size: have.max_storage_buffer_binding_size,
        max_buffer_size: have.max_buffer_size,
        max_storage_buffers_per_shader_stage: have.max_storage_buffers_per_shader_stage.clamp(7, 32),
        max_compute_workgroups_per_dimension: have.max_compute_workgroups_per_dimension,
        ..wgpu::Limits::downlevel_defaults()
    }
}

/// The limits of `have` that fall short of what satgpu asks, in words, or `None`.
pub(crate) fn limits_reason(have: &wgpu::Limits) -> Option<String> {
    let mut short = vec![];
    satgpu_limits(have).check_limits_with_fail_fn(have, false, |name, need, got| {
        short.push(match name {
            "max_storage_buffers_per_shader_stage" => {
                format!("it allows {got} storage buffers per shader stage, satgpu needs {need}")
            }
            _ => format!("its {name} is {got}, satgpu needs {need}"),
        });
    });
    (!short.is_empty()).then(|| short.join("; "))
}

/// Why a loop's early end makes an answer incomplete: Mesa's software adapters end every loop of
/// a shader invocation once its loops have run 65,535 iterations in all, silently. The kernels
/// whose loops have no fixed bound check that theirs ran to the end and flag it where not; the
/// host then refuses the answer with [`Error::UnsuitableAdapter`](crate::Error::UnsuitableAdapter)
/// and this reason.
const LOOP_CUT: &str =
    "it ended a shader's loops early (Mesa's llvmpipe and lavapipe stop each invocation after 65,535 loop iterations in all)";

/// The refusal of an answer whose loops `info`'s adapter cut short ([`LOOP_CUT`]), saying
/// `where_` it happened.
pub(crate) fn loops_cut(info: &wgpu::AdapterInfo, where_: &str) -> crate::Error {
    crate::Error::UnsuitableAdapter { adapter: describe_adapter(info), reason: format!("{LOOP_CUT}: {where_}") }
}

/// `"name (backend, device type, driver info)"`.
pub fn describe_adapter(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?}, {:?}, {} {})", info.name, info.backend, info.device_type, info.driver, info.driver_info)
        .replace(" )", ")")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gl_is_looked_at_last_or_when_asked_for() {
        assert_eq!(search_order(None), [wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY]);
        assert!(!wgpu::Backends::PRIMARY.contains(wgpu::Backends::GL));
        assert_eq!(search_order(Some(wgpu::Backends::GL)), [wgpu::Backends::GL]);
    }

    #[test]
    fn reads_gl_versions() {
        assert_eq!(gl_version("4.5 (Core Profile) Mesa 22.3.6"), Some((false, 4, 5)));
        assert_eq!(gl_version("3.3.0 NVIDIA 580.159.04"), Some((false, 3, 3)));
        assert_eq!(gl_version("OpenGL ES 3.2 Mesa 22.3.6"), Some((true, 3, 2)));
        assert_eq!(gl_version("OpenGL ES-CM 1.1"), Some((true, 1, 1)));
        assert_eq!(gl_version("unknown"), None);
    }
}
