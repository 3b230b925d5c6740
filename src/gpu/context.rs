//! Adapter and device: choosing an adapter, requesting only what it has, and turning the
//! device's asynchronous errors (validation, loss) into [`Error`]s at the next wait.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::gpu::kernels::{Kernels, Tuning};

/// Which adapter to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AdapterChoice {
    /// The best adapter wgpu finds: discrete, then integrated, then virtual, then CPU; Vulkan
    /// before other backends at equal rank.
    #[default]
    Auto,
    /// A CPU (software) adapter only, such as Mesa lavapipe or llvmpipe.
    Software,
}

/// How to open a device.
#[derive(Debug, Clone)]
pub struct GpuOptions {
    /// Which adapter to use. `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` narrow the choice further.
    pub adapter: AdapterChoice,
    /// Longest time any single wait on the GPU may take before it is an [`Error::Timeout`].
    pub timeout: Duration,
    /// Tune the kernels as for this device type instead of the adapter's own, so tests on a CPU
    /// adapter also cover the GPU tuning. Not part of the stable API.
    #[doc(hidden)]
    pub tune_as: Option<wgpu::DeviceType>,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions { adapter: AdapterChoice::Auto, timeout: Duration::from_secs(60), tune_as: None }
    }
}

#[derive(Default)]
struct ErrorSink {
    errors: Mutex<Vec<String>>,
}

impl ErrorSink {
    fn push(&self, e: String) {
        log::error!("{e}");
        self.errors.lock().unwrap_or_else(|p| p.into_inner()).push(e);
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.errors.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

struct Inner {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    timestamps: bool,
    timeout: Duration,
    sink: Arc<ErrorSink>,
    tuning: Tuning,
    kernels: OnceLock<Kernels>,
}

/// An open device with satgpu's compute pipelines. Cheap to clone (reference-counted).
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("adapter", &self.describe()).finish()
    }
}

fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
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

fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

/// Every adapter wgpu sees (after `WGPU_BACKEND`), best first.
pub fn list_adapters() -> Vec<wgpu::AdapterInfo> {
    let mut infos: Vec<_> =
        pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all())).iter().map(|a| a.get_info()).collect();
    infos.sort_by_key(rank);
    infos
}

/// `"name (backend, device type, driver info)"`.
pub fn describe_adapter(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?}, {:?}, {} {})", info.name, info.backend, info.device_type, info.driver, info.driver_info)
        .replace(" )", ")")
}

fn required_limits(adapter: &wgpu::Adapter) -> wgpu::Limits {
    let have = adapter.limits();
    wgpu::Limits {
        max_storage_buffer_binding_size: have.max_storage_buffer_binding_size,
        max_buffer_size: have.max_buffer_size,
        max_storage_buffers_per_shader_stage: have.max_storage_buffers_per_shader_stage.min(8),
        max_compute_workgroups_per_dimension: have.max_compute_workgroups_per_dimension,
        ..wgpu::Limits::downlevel_defaults()
    }
}

impl Gpu {
    /// Opens the best adapter allowed by `options`, `WGPU_BACKEND` and `WGPU_ADAPTER_NAME`
    /// (a case-insensitive substring of the adapter name).
    pub fn new(options: &GpuOptions) -> Result<Gpu> {
        let instance = instance();
        let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
        let mut detail = String::new();
        if options.adapter == AdapterChoice::Software {
            adapters.retain(|a| a.get_info().device_type == wgpu::DeviceType::Cpu);
            detail.push_str(", software adapter requested");
        }
        if let Ok(name) = std::env::var("WGPU_ADAPTER_NAME") {
            let want = name.to_lowercase();
            adapters.retain(|a| a.get_info().name.to_lowercase().contains(&want));
            detail.push_str(&format!(", WGPU_ADAPTER_NAME={name:?}"));
        }
        if let Ok(b) = std::env::var("WGPU_BACKEND") {
            detail.push_str(&format!(", WGPU_BACKEND={b:?}"));
        }
        adapters.retain(|a| a.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS));
        adapters.sort_by_key(|a| rank(&a.get_info()));
        let adapter = adapters.into_iter().next().ok_or(Error::NoAdapter { detail })?;
        Self::open(&adapter, options.timeout, options.tune_as)
    }

    fn open(adapter: &wgpu::Adapter, timeout: Duration, tune_as: Option<wgpu::DeviceType>) -> Result<Gpu> {
        let info = adapter.get_info();
        let flags = adapter.get_downlevel_capabilities().flags;
        for (flag, what) in [
            (wgpu::DownlevelFlags::COMPUTE_SHADERS, "compute shaders"),
            (wgpu::DownlevelFlags::INDIRECT_EXECUTION, "indirect dispatch"),
        ] {
            if !flags.contains(flag) {
                return Err(Error::UnsuitableAdapter {
                    adapter: describe_adapter(&info),
                    reason: format!("no {what}"),
                });
            }
        }
        if adapter.limits().max_storage_buffers_per_shader_stage < 7 {
            return Err(Error::UnsuitableAdapter {
                adapter: describe_adapter(&info),
                reason: "fewer than 7 storage buffers per shader stage".into(),
            });
        }
        let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("satgpu"),
            required_features: features,
            required_limits: required_limits(adapter),
            memory_hints: wgpu::MemoryHints::Performance,
            ..Default::default()
        }))
        .map_err(|e| Error::Device(format!("request_device on {}: {e}", info.name)))?;
        let tuning = Tuning::for_device(tune_as.unwrap_or(info.device_type));
        Self::wrap(device, queue, info, timeout, tuning)
    }

    /// Wraps a device the caller already owns (a simulation's renderer, say). The device needs
    /// compute shaders, indirect dispatch and at least 7 storage buffers per stage; it is used
    /// as it is, with timestamps only if `TIMESTAMP_QUERY` was enabled on it.
    ///
    /// satgpu installs an uncaptured-error handler on the device so that validation errors
    /// become [`Error::Device`] instead of panics.
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        timeout: Duration,
    ) -> Result<Gpu> {
        if device.limits().max_storage_buffers_per_shader_stage < 7 {
            return Err(Error::UnsuitableAdapter {
                adapter: describe_adapter(&info),
                reason: "the device allows fewer than 7 storage buffers per shader stage; request \
                         `max_storage_buffers_per_shader_stage: 8` (every desktop adapter has it)"
                    .into(),
            });
        }
        let tuning = Tuning::for_device(info.device_type);
        Self::wrap(device, queue, info, timeout, tuning)
    }

    fn wrap(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        timeout: Duration,
        tuning: Tuning,
    ) -> Result<Gpu> {
        let sink = Arc::new(ErrorSink::default());
        let s = sink.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| s.push(e.to_string())));
        let s = sink.clone();
        device.set_device_lost_callback(move |reason, msg| s.push(format!("device lost ({reason:?}): {msg}")));
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let gpu = Gpu {
            inner: Arc::new(Inner { device, queue, info, timestamps, timeout, sink, tuning, kernels: OnceLock::new() }),
        };
        // Compile every pipeline now, so the first frame does not pay for it and a driver that
        // rejects a shader fails here, with the device named.
        gpu.kernels()?;
        Ok(gpu)
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.inner.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.inner.queue
    }

    /// The adapter's description as wgpu reports it.
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.inner.info
    }

    /// One line naming the adapter, backend, type and driver.
    pub fn describe(&self) -> String {
        describe_adapter(&self.inner.info)
    }

    /// Whether per-pass times come from GPU timestamp queries (otherwise: wall clock).
    pub fn has_timestamps(&self) -> bool {
        self.inner.timestamps
    }

    /// The wait timeout this device was opened with.
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }

    pub(crate) fn kernels(&self) -> Result<&Kernels> {
        if let Some(k) = self.inner.kernels.get() {
            return Ok(k);
        }
        let k = Kernels::new(&self.inner.device, self.inner.tuning);
        self.check()?;
        Ok(self.inner.kernels.get_or_init(|| k))
    }

    /// Turns errors the device reported since the last check into an [`Error::Device`].
    pub(crate) fn check(&self) -> Result<()> {
        let errors = self.inner.sink.take();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Error::Device(errors.join("; ")))
        }
    }
}
