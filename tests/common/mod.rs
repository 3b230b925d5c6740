//! Shared by the GPU tests: one device per test process, used by one test at a time.
//! There is no skip: without an adapter every GPU test fails and says how to get one.

#![allow(dead_code)] // each test binary uses a different subset

use std::sync::{Mutex, MutexGuard, OnceLock};

use satgpu::gpu::{Gpu, GpuOptions};

static GPU: OnceLock<Mutex<Gpu>> = OnceLock::new();

/// The test device (honours WGPU_BACKEND and WGPU_ADAPTER_NAME), locked for this test.
pub fn gpu() -> MutexGuard<'static, Gpu> {
    GPU.get_or_init(|| {
        let gpu = Gpu::new(&GpuOptions::default())
            .unwrap_or_else(|e| panic!("GPU tests need an adapter and never skip: {e}"));
        eprintln!("test adapter: {}", gpu.describe());
        Mutex::new(gpu)
    })
    .lock()
    .unwrap_or_else(|p| p.into_inner())
}

static GPU_TUNED: OnceLock<Mutex<Gpu>> = OnceLock::new();

/// A second device on the same adapter whose kernels are tuned as for a discrete GPU (short
/// chunks, many workgroups), so CI on a software adapter covers that tuning too. Lock the main
/// device first, so GPU tests stay serial.
pub fn gpu_tuned_for_gpus() -> MutexGuard<'static, Gpu> {
    GPU_TUNED
        .get_or_init(|| {
            let options = GpuOptions { tune_as: Some(wgpu::DeviceType::DiscreteGpu), ..GpuOptions::default() };
            Mutex::new(Gpu::new(&options).unwrap_or_else(|e| panic!("GPU tests need an adapter and never skip: {e}")))
        })
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}
