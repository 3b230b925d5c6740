//! Bitonic sort of (key, body) pairs on the GPU: log2(n) * (log2(n) + 1) / 2 compare-exchange
//! steps over a power-of-two length, every step one dispatch inside a single compute pass.
//! Ties are impossible (the body index is part of the key), so the order is fully determined.

use wgpu::util::DeviceExt;

use crate::gpu::kernels::Kernels;
use crate::gpu::layout::GpuSortStep;

/// Invocations per workgroup (sort.wgsl).
const WG: u32 = 256;

pub(crate) struct Sorter {
    steps: u32,
    stride: u64,
    n_padded: u32,
    group: wgpu::BindGroup,
    _params: wgpu::Buffer,
}

impl Sorter {
    /// A sorter over the first `n_padded` (a power of two) `vec2<u32>` entries of `keys`.
    pub fn new(device: &wgpu::Device, kernels: &Kernels, keys: &wgpu::Buffer, n_padded: u32) -> Sorter {
        assert!(n_padded.is_power_of_two(), "bitonic sort needs a power-of-two length");
        let stride = u64::from(device.limits().min_uniform_buffer_offset_alignment).max(16);
        let mut steps = vec![];
        let mut k = 2;
        while k <= n_padded {
            let mut j = k / 2;
            while j >= 1 {
                steps.push(GpuSortStep { k, j, half: n_padded / 2, pad: 0 });
                j /= 2;
            }
            k *= 2;
        }
        let mut bytes = vec![0u8; stride as usize * steps.len().max(1)];
        for (i, s) in steps.iter().enumerate() {
            let at = i * stride as usize;
            bytes[at..at + 16].copy_from_slice(bytemuck::bytes_of(s));
        }
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("satgpu.sort.steps"),
            contents: &bytes,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let group = kernels.sort.bind(
            device,
            "satgpu.sort",
            &[
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &params,
                    offset: 0,
                    size: std::num::NonZeroU64::new(16),
                }),
                keys.as_entire_binding(),
            ],
        );
        Sorter { steps: steps.len() as u32, stride, n_padded, group, _params: params }
    }

    /// Records every step into `pass`.
    pub fn encode(&self, kernels: &Kernels, pass: &mut wgpu::ComputePass<'_>, fold: u32) {
        pass.set_pipeline(&kernels.sort.pipeline);
        for step in 0..self.steps {
            pass.set_bind_group(0, &self.group, &[(u64::from(step) * self.stride) as u32]);
            super::dispatch(pass, self.n_padded / 2, WG, fold);
        }
    }
}
