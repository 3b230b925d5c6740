//! Adapter and device: choosing an adapter, requesting only what it has, and catching the
//! device's errors for satgpu's own work in error scopes, so each error comes back from the call
//! that caused it and the caller's device keeps its own handlers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::gpu::device::adapter::{
    describe_adapter, enumerate, rank, report, satgpu_limits, search_order, unsuitable_reason, AdapterReport,
};
use crate::gpu::kernels::pipelines::{Kernels, Program, Tuning};
use crate::gpu::kernels::shaders::Paging;

/// The device memory blocks wgpu suballocates from; its host blocks, where writes are staged,
/// are half as large (see [`Gpu::open`]).
const STAGING_BLOCK: std::ops::Range<u64> = 512 << 20..512 << 20;

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

crate::named::named!(
    AdapterChoice,
    "adapter",
    [
        (AdapterChoice::Auto, "auto", "The best adapter (discrete, integrated, virtual, then CPU)"),
        (AdapterChoice::Software, "software", "A CPU adapter only (Mesa lavapipe or llvmpipe)"),
    ]
);

/// The longest a wait on the GPU is allowed, whatever timeout is asked (a year: as good as
/// waiting for ever, and far from where a deadline would overflow the clock's range).
pub const LONGEST_WAIT: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// How to open a device: `GpuOptions::default().with_timeout(Duration::from_secs(5))`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GpuOptions {
    /// Which adapter to use. `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` narrow the choice further.
    pub adapter: AdapterChoice,
    /// Longest time any single wait on the GPU may take before it is an [`Error::Timeout`]
    /// (default 60 s; one past [`LONGEST_WAIT`] waits that long).
    pub timeout: Duration,
    /// The most memory satgpu may count on, in bytes, on top of what the host has available
    /// (see [`Gpu::memory_available`]); `None` (the default): the host's available memory alone.
    pub memory_limit: Option<u64>,
    /// Which physical device, where a machine has several alike: its PCI bus id,
    /// `[domain:]bus:device.function` in hexadecimal as `lspci`, `nvidia-smi --query-gpu=pci.bus_id`
    /// and [`list_adapters`](crate::gpu::list_adapters) (`AdapterInfo::device_pci_bus_id`) write
    /// it; `None` (the default): any.
    pub pci_bus_id: Option<String>,
    /// Tune the kernels so instead of for the adapter's own type (tests).
    pub(crate) tuning: Option<Tuning>,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            adapter: AdapterChoice::Auto,
            timeout: Duration::from_secs(60),
            memory_limit: None,
            pci_bus_id: None,
            tuning: None,
        }
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

    /// With at most `bytes` of memory for satgpu's allocations (see [`Gpu::memory_available`]).
    pub fn with_memory_limit(mut self, bytes: u64) -> Self {
        self.memory_limit = Some(bytes);
        self
    }

    /// The device at PCI bus id `id` only (see [`GpuOptions::pci_bus_id`]): one GPU of several
    /// alike, as a cluster's scheduler hands them out.
    pub fn with_pci_bus_id(mut self, id: impl Into<String>) -> Self {
        self.pci_bus_id = Some(id.into());
        self
    }
}

/// A PCI bus id, `[domain:]bus:device.function` in hexadecimal of any width (`0000:18:00.0`,
/// nvidia-smi's `00000000:18:00.0`, `18:00.0`), as numbers; `None` where it is none.
pub(crate) fn pci_address(id: &str) -> Option<[u32; 4]> {
    let (rest, function) = id.trim().rsplit_once('.')?;
    let mut parts: Vec<&str> = rest.split(':').collect();
    if parts.len() == 2 {
        parts.insert(0, "0");
    }
    let hex = |s: &str| u32::from_str_radix(s, 16).ok();
    match parts[..] {
        [domain, bus, device] => Some([hex(domain)?, hex(bus)?, hex(device)?, hex(function)?]),
        _ => None,
    }
}

struct Inner {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    timestamps: bool,
    /// Why the device is lost, once satgpu knows: set by the device-lost callback of a device
    /// satgpu opened itself, or by [`Gpu::check_lost`]'s probe.
    lost: Arc<Mutex<Option<String>>>,
    /// satgpu opened the device and owns its device-lost callback.
    owned: bool,
    /// The kernels compiled for each [`Paging`] a world has needed, every array in one binding
    /// first.
    kernels: Mutex<Vec<Arc<Kernels>>>,
    /// The programs beside the frame ([`Gpu::program`]), by shader file and entry points.
    programs: Mutex<Vec<(String, Arc<Program>)>>,
}

/// An open device with satgpu's compute pipelines. Cheap to clone (reference-counted).
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<Inner>,
    /// The kernels this handle records with: every array in one binding, or a world's pages
    /// ([`Gpu::paged`]).
    kernels: Arc<Kernels>,
    timeout: Duration,
    memory_limit: Option<u64>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("adapter", &self.describe()).finish()
    }
}

impl Gpu {
    /// Opens the best adapter allowed by `options`, `WGPU_BACKEND` and `WGPU_ADAPTER_NAME`
    /// (a case-insensitive substring of the adapter name).
    ///
    /// Without `WGPU_BACKEND`, GL is looked at only when no Vulkan, Metal or DX12 adapter can
    /// serve: opening GL through EGL can print to the terminal (libwayland's "XDG_RUNTIME_DIR is
    /// invalid or not set"), which a library must not do when it has no need of GL.
    pub fn new(options: &GpuOptions) -> Result<Gpu> {
        let name = std::env::var("WGPU_ADAPTER_NAME").ok();
        let pci = match &options.pci_bus_id {
            Some(id) => Some(pci_address(id).ok_or_else(|| Error::InvalidSetting {
                what: "pci_bus_id",
                detail: format!("{id:?} is no PCI bus id ([domain:]bus:device.function, hexadecimal)"),
            })?),
            None => None,
        };
        let wanted = |a: &wgpu::Adapter| {
            let info = a.get_info();
            (options.adapter != AdapterChoice::Software || info.device_type == wgpu::DeviceType::Cpu)
                && name.as_ref().is_none_or(|n| info.name.to_lowercase().contains(&n.to_lowercase()))
                && pci.is_none_or(|p| pci_address(&info.device_pci_bus_id) == Some(p))
        };
        let mut adapters = vec![];
        for backends in search_order(wgpu::Backends::from_env()) {
            if adapters.iter().any(|a| report(a).unsuitable.is_none()) {
                break;
            }
            let mut more = enumerate(backends);
            more.retain(wanted);
            adapters.extend(more);
        }
        let mut detail = String::new();
        if options.adapter == AdapterChoice::Software {
            detail.push_str(", software adapter requested");
        }
        if let Some(name) = &name {
            detail.push_str(&format!(", WGPU_ADAPTER_NAME={name:?}"));
        }
        if let Some(id) = &options.pci_bus_id {
            detail.push_str(&format!(", PCI bus id {id:?}"));
        }
        if let Ok(b) = std::env::var("WGPU_BACKEND") {
            detail.push_str(&format!(", WGPU_BACKEND={b:?}"));
        }
        // An adapter that cannot run satgpu is never chosen; when the request leaves only such
        // adapters, the best of them is named with the reason.
        let (usable, unusable): (Vec<_>, Vec<_>) = adapters.into_iter().partition(|a| report(a).unsuitable.is_none());
        if let Some(adapter) = usable.into_iter().min_by_key(|a| rank(&a.get_info())) {
            let gpu = Self::open(&adapter, options.timeout, options.tuning)?;
            return Ok(Gpu { memory_limit: options.memory_limit, ..gpu });
        }
        match unusable.iter().map(report).min_by_key(|r| rank(&r.info)) {
            Some(AdapterReport { info, unsuitable: Some(reason) }) => {
                Err(Error::UnsuitableAdapter { adapter: describe_adapter(&info), reason })
            }
            _ => Err(Error::NoAdapter { detail }),
        }
    }

    fn open(adapter: &wgpu::Adapter, timeout: Duration, tuning: Option<Tuning>) -> Result<Gpu> {
        let info = adapter.get_info();
        let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("satgpu"),
            required_features: features,
            required_limits: satgpu_limits(&adapter.limits()),
            // Host memory blocks of 256 MiB (half the device size asked for here): wgpu stages
            // every write_buffer_with in host memory from these blocks, and a write larger than
            // a block gets a block of its own, allocated and freed every frame (the vertex data of
            // a million crowd polygons is about 90 MB). The last block is kept, so a frame's writes
            // that fit in one reuse memory already mapped.
            memory_hints: wgpu::MemoryHints::Manual { suballocated_device_memory_block_size: STAGING_BLOCK },
            ..Default::default()
        }))
        .map_err(|e| Error::Device(format!("request_device on {}: {e}", info.name)))?;
        // satgpu owns this device: stray errors are logged rather than panicking, and loss is
        // remembered so every later call says so.
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| log::error!("satgpu device: {e}")));
        let lost = Arc::new(Mutex::new(None));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            let why = if msg.is_empty() { format!("{reason:?}") } else { format!("{reason:?}: {msg}") };
            *flag.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
        });
        let tuning = tuning.unwrap_or_else(|| Tuning::for_device(info.device_type));
        Self::wrap(device, queue, info, timeout, tuning, Some(lost))
    }

    /// Wraps a device the caller already owns (a simulation's renderer, say). The device needs
    /// compute shaders, indirect dispatch and at least 7 storage buffers per stage, and on GL a
    /// context of OpenGL 4.3 or OpenGL ES 3.1 (see [`unsuitable_reason`]); it is used
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
        // A device carries its limits but not its adapter's downlevel flags; the GL version in
        // `info` and the limits are what can be checked here.
        let unsuitable = unsuitable_reason(&info, &wgpu::DownlevelCapabilities::default(), &device.limits());
        if let Some(reason) = unsuitable {
            return Err(Error::UnsuitableAdapter {
                adapter: describe_adapter(&info),
                reason: format!(
                    "{reason} (request the device with `max_storage_buffers_per_shader_stage: 8` and the \
                     adapter's own buffer sizes; every desktop adapter has them)"
                ),
            });
        }
        let tuning = Tuning::for_device(info.device_type);
        Self::wrap(device, queue, info, timeout, tuning, None)
    }

    fn wrap(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        timeout: Duration,
        tuning: Tuning,
        lost: Option<Arc<Mutex<Option<String>>>>,
    ) -> Result<Gpu> {
        let owned = lost.is_some();
        let lost = lost.unwrap_or_default();
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        // The bind group layouts now; each pipeline when a frame first records it (`Kernel::pipeline`:
        // a frame that needs a few of the ~50 variants does not compile the rest).
        let kernels = scoped(&device, || Arc::new(Kernels::new(&device, tuning, Paging::ONE)))
            .map_err(|e| Error::Device(format!("creating the pipelines on {}: {e}", describe_adapter(&info))))?;
        let all = Mutex::new(vec![kernels.clone()]);
        let inner =
            Arc::new(Inner { device, queue, info, timestamps, lost, owned, kernels: all, programs: Mutex::default() });
        Ok(Gpu { inner, kernels, timeout, memory_limit: None })
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

    /// The longest any single wait on the GPU may take through this handle (at most
    /// [`LONGEST_WAIT`]).
    pub fn timeout(&self) -> Duration {
        self.timeout.min(LONGEST_WAIT)
    }

    /// A handle to the same device (same pipelines) whose waits time out after `timeout`.
    pub fn with_timeout(&self, timeout: Duration) -> Gpu {
        Gpu { timeout, ..self.clone() }
    }

    /// A handle to the same device that allows satgpu at most `bytes` for the worlds created
    /// or grown through it (`None`: the host's available memory alone).
    pub fn with_memory_limit(&self, bytes: Option<u64>) -> Gpu {
        Gpu { memory_limit: bytes, ..self.clone() }
    }

    /// Whether the device's buffers live in the host's memory (a CPU adapter such as lavapipe
    /// or llvmpipe).
    pub fn is_software(&self) -> bool {
        self.inner.info.device_type == wgpu::DeviceType::Cpu
    }

    /// The bytes the next allocation may take: the host's available memory
    /// ([`memory::available`](crate::memory::available)), at most the memory limit this handle
    /// was given; `None` when neither is known.
    pub fn memory_available(&self) -> Option<u64> {
        crate::memory::available_within(self.memory_limit)
    }

    /// [`Error::NotEnoughMemory`], naming `what`, unless `estimate` (from
    /// [`memory::estimate`](crate::memory::estimate)) fits: host and device bytes together on a
    /// software adapter; on a GPU the host bytes, and the device bytes against the memory limit
    /// if one was given (the device's own limits are checked per buffer). Worlds check
    /// themselves; call this before work of your own, such as generating a scene.
    pub fn check_memory(&self, what: impl Fn() -> String, estimate: crate::memory::MemoryEstimate) -> Result<()> {
        use crate::memory::check;
        if self.is_software() {
            return check(&what, "host and software GPU", estimate.total(), self.memory_available());
        }
        check(&what, "host", estimate.host, self.memory_available())?;
        check(&what, "GPU", estimate.device, self.memory_limit)
    }

    /// Blocks until `submission` (from [`World::dispatch`](crate::gpu::World::dispatch), say)
    /// has finished on the GPU, at most this handle's timeout.
    /// [`Error::DeviceLost`] if the device was lost meanwhile, even when the work itself
    /// finished (a destroyed device lets its queue drain; what it wrote can no longer be read).
    pub fn wait(&self, submission: wgpu::SubmissionIndex) -> Result<()> {
        self.check_lost()?;
        self.inner
            .device
            .poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: Some(self.timeout()) })
            .map_err(|e| self.poll_error(e, "a dispatched frame"))?;
        self.check_lost()
    }

    pub(crate) fn kernels(&self) -> &Kernels {
        &self.kernels
    }

    /// The program of `entries` of `shaders/FILE`, made once per device and list of entries (its pipelines compiled
    /// when first recorded) and shared by every search, crowd and simulation on it.
    pub(crate) fn program(&self, label: &str, file: &'static str, entries: &[&'static str]) -> Result<Arc<Program>> {
        let mut all = self.inner.programs.lock().unwrap_or_else(|e| e.into_inner());
        let key = format!("{file}: {}", entries.join(" "));
        if let Some((_, p)) = all.iter().find(|(k, _)| *k == key) {
            return Ok(p.clone());
        }
        let program = Arc::new(self.scoped(|| Program::new(self.device(), label, file, entries))?);
        all.push((key, program.clone()));
        Ok(program)
    }

    /// This handle, recording with the kernels compiled for `paging` (compiled on first need,
    /// then kept for the device's life).
    pub(crate) fn paged(&self, paging: Paging) -> Result<Gpu> {
        if self.kernels.paging == paging {
            return Ok(self.clone());
        }
        let mut all = self.inner.kernels.lock().unwrap_or_else(|e| e.into_inner());
        let kernels = match all.iter().find(|k| k.paging == paging) {
            Some(k) => k.clone(),
            None => {
                let tuning = self.kernels.tuning;
                let k = self.scoped(|| Arc::new(Kernels::new(self.device(), tuning, paging)))?;
                all.push(k.clone());
                k
            }
        };
        Ok(Gpu { kernels, ..self.clone() })
    }

    /// Runs `f` inside validation and out-of-memory error scopes on this thread, and returns the
    /// first error they caught as [`Error::Device`] (or [`Error::DeviceLost`]).
    ///
    /// Objects made on a lost device are invalid without an error (wgpu reports loss only to
    /// the device-lost callback), so loss is checked before and after `f`.
    pub(crate) fn scoped<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        self.check_lost()?;
        let value = scoped(&self.inner.device, f).map_err(|e| self.lost_or(e))?;
        self.check_lost()?;
        Ok(value)
    }

    /// Whether the device is known to be lost (destroyed, reset, removed), with wgpu's reason.
    /// A lost device never comes back: open a new [`Gpu`] and move each
    /// [`World`](crate::gpu::World) to it with
    /// [`World::rebuild_on`](crate::gpu::World::rebuild_on).
    pub fn lost(&self) -> Option<String> {
        self.inner.lost.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn mark_lost(&self, why: String) {
        self.inner.lost.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(why);
    }

    /// [`Error::DeviceLost`] once the device is lost. On a device satgpu opened, a
    /// non-blocking poll gives wgpu's device-lost callback its chance to run first; on a device
    /// the caller brought (whose callback stays the caller's) a probe asks instead.
    pub(crate) fn check_lost(&self) -> Result<()> {
        if self.lost().is_none() {
            if self.inner.owned {
                let _ = self.inner.device.poll(wgpu::PollType::Poll);
            } else {
                self.probe();
            }
        }
        match self.lost() {
            Some(why) => Err(Error::DeviceLost(why)),
            None => Ok(()),
        }
    }

    /// Marks the device lost if a 4-byte mapped buffer made on it is invalid, as every object
    /// of a lost device is. Inside an error scope, so a caller's error handler never sees it.
    fn probe(&self) {
        let device = &self.inner.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("satgpu.probe"),
            size: 4,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        let invalid = buffer.get_mapped_range_mut(..).err().map(|e| e.to_string());
        buffer.unmap();
        buffer.destroy();
        drop(pollster::block_on(scope.pop()));
        if let Some(e) = invalid {
            self.mark_lost(format!("the device is no longer valid: {e}"));
        }
    }

    /// `e`, or [`Error::DeviceLost`] when the device turns out to be lost (checked with a probe
    /// on every device: the callback may not have run yet).
    fn lost_or(&self, e: Error) -> Error {
        if self.lost().is_none() {
            self.probe();
        }
        self.check_lost().err().unwrap_or(e)
    }

    /// A failed wait as an [`Error`].
    pub(crate) fn poll_error(&self, e: wgpu::PollError, what: &'static str) -> Error {
        match e {
            wgpu::PollError::Timeout => Error::Timeout { what, timeout: self.timeout() },
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

#[cfg(test)]
mod tests {
    use super::pci_address;

    #[test]
    fn pci_bus_ids_read_in_every_common_form() {
        assert_eq!(pci_address("0000:18:00.0"), Some([0, 0x18, 0, 0]));
        assert_eq!(pci_address("00000000:3B:00.1"), Some([0, 0x3b, 0, 1]));
        assert_eq!(pci_address(" 18:1f.7\n"), Some([0, 0x18, 0x1f, 7]));
        assert_eq!(pci_address("0001:af:00.0"), Some([1, 0xaf, 0, 0]));
        for bad in ["", "18:00", "gpu0", "0:1:2:3.0", "18:zz.0"] {
            assert_eq!(pci_address(bad), None, "{bad:?}");
        }
    }
}
