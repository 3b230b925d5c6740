//! Stable LSD radix sort of (u32 key, u32 value) pairs on the GPU by the low `key_bits` bits of the
//! key: one pass per 4 bits, each a per-tile histogram, one exclusive scan over all histograms, and a stable scatter. The length is
//! word 0 of the radix region of the control buffer when the sort runs, so it may be known only to
//! the GPU. Stability makes the order of equal keys, and so the whole output, deterministic. A
//! sort whose capacity is at most `Tuning::tile_keys` runs every pass in one workgroup and one
//! dispatch instead (`radix_tile.wgsl`), with the same result.

use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::primitives::scan::Scan;

/// Digits per pass.
const BINS: u64 = crate::gpu::kernels::shaders::RADIX_BINS as u64;
/// Bits sorted per pass.
const DIGIT_BITS: u32 = 4;

pub(crate) struct RadixSort {
    passes: u32,
    control: wgpu::Buffer,
    stride: u64,
    hist_scan: Scan,
    setup: wgpu::BindGroup,
    hist: [wgpu::BindGroup; 2],
    scatter: [wgpu::BindGroup; 2],
    /// The scratch keys and values, as long as the input (the small sort writes into them too).
    pub scratch: (wgpu::Buffer, wgpu::Buffer),
    /// When the capacity fits one tile: the whole sort in one workgroup (`radix_tile.wgsl`).
    tile: Option<wgpu::BindGroup>,
    _buffers: Vec<wgpu::Buffer>,
}

impl RadixSort {
    /// A sort of the first `length <= capacity` entries of `keys` and `values` by the low
    /// `key_bits` bits of the keys (8, 16, 24 or 32: an even number of passes leaves the result in
    /// `keys` and `values`), through scratch buffers of the same size.
    pub fn new(
        device: &wgpu::Device,
        kernels: &Kernels,
        keys: &wgpu::Buffer,
        values: &wgpu::Buffer,
        capacity: u64,
        key_bits: u32,
        control: &wgpu::Buffer,
    ) -> RadixSort {
        assert!(matches!(key_bits, 8 | 16 | 24 | 32), "key_bits must be 8, 16, 24 or 32");
        let passes = key_bits / DIGIT_BITS;
        let scratch = |label: &str| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: (4 * capacity).max(16),
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let keys_b = scratch("satgpu.radix.keys");
        let values_b = scratch("satgpu.radix.values");
        let hist_len = BINS * capacity.div_ceil(kernels.tuning.radix_tile()).max(1);
        let hist = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("satgpu.radix.hist"),
            size: 4 * hist_len,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let hist_scan = Scan::new(device, kernels, &hist, hist_len, control, control::HIST_SCAN, "satgpu.radix.scan");
        let stride = u64::from(device.limits().min_uniform_buffer_offset_alignment).max(16);
        let mut shifts = vec![0u8; (stride * u64::from(passes)) as usize];
        for p in 0..passes {
            let at = (stride * u64::from(p)) as usize;
            shifts[at..at + 4].copy_from_slice(&(DIGIT_BITS * p).to_le_bytes());
        }
        let digit =
            crate::gpu::kernels::buffers::init(device, "satgpu.radix.shift", &shifts, wgpu::BufferUsages::UNIFORM);
        let digit_binding = || {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &digit,
                offset: 0,
                size: std::num::NonZeroU64::new(16),
            })
        };
        let ends = [(keys, values, &keys_b, &values_b), (&keys_b, &values_b, keys, values)];
        let hist_groups = ends.map(|(k_in, _, _, _)| {
            kernels.radix_hist.bind(
                device,
                "satgpu.radix.hist",
                &[digit_binding(), control.as_entire_binding(), k_in.as_entire_binding(), hist.as_entire_binding()],
            )
        });
        let scatter_groups = ends.map(|(k_in, v_in, k_out, v_out)| {
            kernels.radix_scatter.bind(
                device,
                "satgpu.radix.scatter",
                &[
                    digit_binding(),
                    control.as_entire_binding(),
                    k_in.as_entire_binding(),
                    v_in.as_entire_binding(),
                    hist.as_entire_binding(),
                    k_out.as_entire_binding(),
                    v_out.as_entire_binding(),
                ],
            )
        });
        let setup = kernels.radix_setup.bind(device, "satgpu.radix.setup", &[control.as_entire_binding()]);
        // Its 16-bit digit counts hold at most 65,535 keys.
        let tile = (capacity <= u64::from(kernels.tuning.tile_keys.min(65_535))).then(|| {
            let shape = crate::gpu::kernels::buffers::init(
                device,
                "satgpu.radix.tile.shape",
                bytemuck::cast_slice(&[passes, 0, 0, 0]),
                wgpu::BufferUsages::UNIFORM,
            );
            kernels.radix_tile.bind(
                device,
                "satgpu.radix.tile",
                &[
                    shape.as_entire_binding(),
                    control.as_entire_binding(),
                    keys.as_entire_binding(),
                    values.as_entire_binding(),
                    keys_b.as_entire_binding(),
                    values_b.as_entire_binding(),
                ],
            )
        });
        RadixSort {
            passes,
            control: control.clone(),
            stride,
            hist_scan,
            setup,
            hist: hist_groups,
            scatter: scatter_groups,
            scratch: (keys_b, values_b),
            tile,
            _buffers: vec![hist, digit],
        }
    }

    /// Records the sort into `pass`.
    pub fn encode(&self, kernels: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        if let Some(tile) = &self.tile {
            pass.set_pipeline(kernels.radix_tile.pipeline());
            pass.set_bind_group(0, tile, &[]);
            pass.dispatch_workgroups(1, 1, 1);
            return;
        }
        pass.set_pipeline(kernels.radix_setup.pipeline());
        pass.set_bind_group(0, &self.setup, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        // Every pass scans histograms of the same length: one setup serves them all.
        self.hist_scan.encode_setup(kernels, pass);
        let tiles_args = 4 * (control::RADIX + 4);
        for p in 0..self.passes {
            let parity = (p % 2) as usize;
            let offset = [(self.stride * u64::from(p)) as u32];
            pass.set_pipeline(kernels.radix_hist.pipeline());
            pass.set_bind_group(0, &self.hist[parity], &offset);
            pass.dispatch_workgroups_indirect(&self.control, tiles_args);
            self.hist_scan.encode_levels(kernels, pass);
            pass.set_pipeline(kernels.radix_scatter.pipeline());
            pass.set_bind_group(0, &self.scatter[parity], &offset);
            pass.dispatch_workgroups_indirect(&self.control, tiles_args);
        }
    }
}
