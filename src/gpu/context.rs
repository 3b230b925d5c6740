//! Adapter and device: choosing an adapter, requesting only what it has, and catching the
//! device's errors for satgpu's own work in error scopes, so each error comes back from the call
//! that caused it and the caller's device keeps its own handlers.

use std::sync::{Arc, Mutex};
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

/// How to open a device: `GpuOptions::default().with_timeout(Duration::from_secs(5))`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GpuOptions {
    /// Which adapter to use. `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` narrow the choice further.
    pub adapter: AdapterChoice,
    /// Longest time any single wait on the GPU may take before it is an [`Error::Timeout`]
    /// (default 60 s).
    pub timeout: Duration,
    /// Tune the kernels as for this device type instead of the adapter's own (tests).
    pub(crate) tune_as: Option<wgpu::DeviceType>,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions { adapter: AdapterChoice::Auto, timeout: Duration::from_secs(60), tune_as: None }
    }
}

impl GpuOptions {
    /// With `adapter`.
    pub fn with_adapter(mut self, adapter: AdapterChoice) -> Self {
        self.adapter = adapter;
        self
    }

    /// With `timeout` for every wait.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

struct Inner {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    timestamps: bool,
    /// Set by the device-lost callback of a device satgpu opened itself.
    lost: Arc<Mutex<Option<String>>>,
    kernels: Kernels,
}

/// An open device with satgpu's compute pipelines. Cheap to clone (reference-counted).
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<Inner>,
    timeout: Duration,
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

/// wgpu's defaults and environment variables, except that indirect dispatches are not validated
/// unless `WGPU_VALIDATION_INDIRECT_CALL=1` asks for it. That validation runs an extra dispatch
/// before each of ours (about 70 us each on lavapipe, `cargo bench --bench overhead`), and
/// satgpu's indirect arguments come only from its own kernels, which fold every count to at most
/// the device's workgroups per dimension (`index.wgsl`, `folded`).
fn instance() -> wgpu::Instance {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.flags.remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    wgpu::Instance::new(descriptor.with_env())
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
        // satgpu owns this device: stray errors are logged rather than panicking, and loss is
        // remembered so every later call says so.
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| log::error!("satgpu device: {e}")));
        let lost = Arc::new(Mutex::new(None));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            *flag.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("{reason:?}: {msg}"));
        });
        let tuning = Tuning::for_device(tune_as.unwrap_or(info.device_type));
        Self::wrap(device, queue, info, timeout, tuning, lost)
    }

    /// Wraps a device the caller already owns (a simulation's renderer, say). The device needs
    /// compute shaders, indirect dispatch and at least 7 storage buffers per stage; it is used
    /// as it is, with timestamps only if `TIMESTAMP_QUERY` was enabled on it.
    ///
    /// The device keeps the handlers the caller set (`on_uncaptured_error`, device lost):
    /// satgpu catches the errors of its own work in error scopes, and returns them from the call
    /// that caused them. Errors from the caller's own work stay the caller's.
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
        Self::wrap(device, queue, info, timeout, tuning, Arc::new(Mutex::new(None)))
    }

    fn wrap(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        timeout: Duration,
        tuning: Tuning,
        lost: Arc<Mutex<Option<String>>>,
    ) -> Result<Gpu> {
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        // Compile every pipeline now, so the first frame does not pay for it and a driver that
        // rejects a shader fails here, with the device named.
        let kernels = scoped(&device, || Kernels::new(&device, tuning))
            .map_err(|e| Error::Device(format!("creating the pipelines on {}: {e}", describe_adapter(&info))))?;
        Ok(Gpu { inner: Arc::new(Inner { device, queue, info, timestamps, lost, kernels }), timeout })
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

    /// The longest any single wait on the GPU may take through this handle.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// A handle to the same device (same pipelines) whose waits time out after `timeout`.
    pub fn with_timeout(&self, timeout: Duration) -> Gpu {
        Gpu { inner: self.inner.clone(), timeout }
    }

    /// Blocks until `submission` (from [`World::dispatch`](crate::gpu::World::dispatch), say)
    /// has finished on the GPU, at most this handle's timeout.
    pub fn wait(&self, submission: wgpu::SubmissionIndex) -> Result<()> {
        self.check_lost()?;
        self.inner
            .device
            .poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: Some(self.timeout) })
            .map(|_| ())
            .map_err(|e| self.poll_error(e, "a dispatched frame"))
    }

    pub(crate) fn kernels(&self) -> &Kernels {
        &self.inner.kernels
    }

    /// Runs `f` inside validation and out-of-memory error scopes on this thread, and returns the
    /// first error they caught as [`Error::Device`] (or [`Error::DeviceLost`]).
    pub(crate) fn scoped<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        self.check_lost()?;
        scoped(&self.inner.device, f).map_err(|e| self.lost_or(e))
    }

    /// [`Error::DeviceLost`] once the device is lost.
    pub(crate) fn check_lost(&self) -> Result<()> {
        match &*self.inner.lost.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(why) => Err(Error::DeviceLost(why.clone())),
            None => Ok(()),
        }
    }

    fn lost_or(&self, e: Error) -> Error {
        self.check_lost().err().unwrap_or(e)
    }

    /// A failed wait as an [`Error`].
    pub(crate) fn poll_error(&self, e: wgpu::PollError, what: &'static str) -> Error {
        match e {
            wgpu::PollError::Timeout => Error::Timeout { what, timeout: self.timeout },
            other => self.lost_or(Error::Device(format!("waiting for {what}: {other}"))),
        }
    }
}

/// `f` inside validation and out-of-memory error scopes.
fn scoped<T>(device: &wgpu::Device, f: impl FnOnce() -> T) -> Result<T> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = f();
    let invalid = pollster::block_on(validation.pop());
    let oom = pollster::block_on(memory.pop());
    match invalid.or(oom) {
        Some(e) => Err(Error::Device(e.to_string())),
        None => Ok(value),
    }
}
