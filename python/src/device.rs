//! The device: `Gpu` and the adapters wgpu sees.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::raise;

/// An open device: the adapter, its queue and satgpu's compiled pipelines.
#[pyclass(frozen, module = "satgpu")]
pub(crate) struct Gpu {
    pub(crate) inner: satgpu::gpu::Gpu,
}

#[pymethods]
impl Gpu {
    /// Opens the best adapter ("auto") or a software one ("software"), of those at PCI bus id
    /// `pci_bus_id` where given (one GPU of several alike); every wait on the GPU times out after
    /// `timeout` seconds; the worlds made on it may use at most `memory_limit` bytes (default:
    /// the memory available).
    #[new]
    #[pyo3(signature = (adapter = "auto", timeout = 60.0, memory_limit = None, pci_bus_id = None))]
    fn new(
        py: Python<'_>,
        adapter: &str,
        timeout: f64,
        memory_limit: Option<u64>,
        pci_bus_id: Option<String>,
    ) -> PyResult<Gpu> {
        use satgpu::gpu::{AdapterChoice, GpuOptions};
        let choice: AdapterChoice = adapter.parse().map_err(PyValueError::new_err)?;
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(PyValueError::new_err(format!("timeout must be a positive number of seconds, got {timeout}")));
        }
        let mut options = GpuOptions::default()
            .with_adapter(choice)
            .with_timeout(std::time::Duration::try_from_secs_f64(timeout).unwrap_or(std::time::Duration::MAX));
        if let Some(bytes) = memory_limit {
            options = options.with_memory_limit(bytes);
        }
        if let Some(id) = pci_bus_id {
            options = options.with_pci_bus_id(id);
        }
        let inner = py.detach(|| satgpu::gpu::Gpu::new(&options)).map_err(raise)?;
        Ok(Gpu { inner })
    }

    /// The adapter: its name, backend and driver.
    #[getter]
    fn adapter(&self) -> String {
        self.inner.describe()
    }

    fn __repr__(&self) -> String {
        format!("satgpu.Gpu({})", self.inner.describe())
    }
}

/// Every adapter wgpu sees, best first: dicts with `name`, `backend`, `device_type`, `driver`,
/// `usable` and, when not usable, `reason`.
#[pyfunction]
pub(crate) fn adapters(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let reports = py.detach(satgpu::gpu::list_adapters);
    reports
        .iter()
        .map(|r| {
            let d = PyDict::new(py);
            d.set_item("name", &r.info.name)?;
            d.set_item("backend", format!("{:?}", r.info.backend))?;
            d.set_item("device_type", format!("{:?}", r.info.device_type))?;
            d.set_item("pci_bus_id", &r.info.device_pci_bus_id)?;
            d.set_item("driver", format!("{} {}", r.info.driver, r.info.driver_info).trim().to_string())?;
            d.set_item("usable", r.unsuitable.is_none())?;
            d.set_item("reason", r.unsuitable.clone())?;
            Ok(d)
        })
        .collect()
}
