//! Exclusive prefix sum of a u32 buffer on the GPU, in place, of a length only the GPU may know.
//!
//! The length is read from word 0 of the scan's region of the control buffer when the pass runs
//! (the host writes it, or an earlier pass does). A one-invocation setup kernel derives each level's length and indirect
//! dispatch arguments from it, so nothing is read back. Levels: level 0 scans the data in blocks
//! (256 * CHUNK elements, see `Tuning`) and writes block totals to level 1, and so on until one block remains; its
//! total is the grand total, then the block offsets are added back down.

use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;

const ARGS_WORD: u64 = control::SCAN_ARGS;
const MAX_LEVELS: usize = control::SCAN_LEVELS as usize;

pub(crate) struct Scan {
    /// The control buffer; the scan's region holds its length, level lengths and dispatch args.
    control: wgpu::Buffer,
    region: u64,
    sums: wgpu::Buffer,
    total_offset: u64,
    levels: usize,
    setup: wgpu::BindGroup,
    groups: Vec<wgpu::BindGroup>,
    _level_uniforms: wgpu::Buffer,
}

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

impl Scan {
    /// A scan over the first `length <= capacity` words of `data`, where `length` is word 0 of
    /// region `region` of `control` when the scan runs.
    pub fn new(
        device: &wgpu::Device,
        kernels: &Kernels,
        data: &wgpu::Buffer,
        capacity: u64,
        control: &wgpu::Buffer,
        region: u64,
        label: &str,
    ) -> Scan {
        let storage_align = u64::from(device.limits().min_storage_buffer_offset_alignment);
        let uniform_align = u64::from(device.limits().min_uniform_buffer_offset_alignment).max(16);
        // Lengths of level 1.. (block totals), ending with the single grand total.
        let block = kernels.tuning.scan_block();
        let mut lens = vec![];
        let mut len = capacity.max(1);
        loop {
            len = len.div_ceil(block);
            lens.push(len);
            if len == 1 {
                break;
            }
        }
        let levels = lens.len();
        assert!(levels <= MAX_LEVELS, "scan capacity {capacity} exceeds {block}^{MAX_LEVELS}");
        let mut offsets = vec![];
        let mut size = 0;
        for &l in &lens {
            offsets.push(size);
            size = align(size + 4 * l, storage_align);
        }
        let sums = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&format!("{label}.sums")),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let stride = (uniform_align / 4) as usize;
        let mut init = vec![0u32; stride * levels];
        for l in 0..levels {
            init[l * stride] = l as u32;
        }
        let level_uniforms = crate::gpu::kernels::buffers::init(
            device,
            &format!("{label}.levels"),
            bytemuck::cast_slice(&init),
            wgpu::BufferUsages::UNIFORM,
        );
        let level = |l: usize| {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &sums,
                offset: offsets[l],
                size: std::num::NonZeroU64::new(4 * lens[l]),
            })
        };
        let groups = (0..levels)
            .map(|l| {
                let data = if l == 0 { data.as_entire_binding() } else { level(l - 1) };
                kernels.scan_blocks.bind(
                    device,
                    label,
                    &[
                        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &level_uniforms,
                            offset: uniform_align * l as u64,
                            size: std::num::NonZeroU64::new(16),
                        }),
                        control::region(control, region),
                        data,
                        level(l),
                    ],
                )
            })
            .collect();
        let setup = kernels.scan_setup.bind(device, label, &[control::region(control, region)]);
        Scan {
            total_offset: offsets[levels - 1],
            control: control.clone(),
            region,
            sums,
            levels,
            setup,
            groups,
            _level_uniforms: level_uniforms,
        }
    }

    /// Records the scan into `pass`. Word 0 of the scan's region must hold the length by then.
    pub fn encode(&self, kernels: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        self.encode_setup(kernels, pass);
        self.encode_levels(kernels, pass);
    }

    /// Records the setup alone: level lengths and dispatch arguments from the length.
    pub fn encode_setup(&self, kernels: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(kernels.scan_setup.pipeline());
        pass.set_bind_group(0, &self.setup, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Records the scan proper; [`encode_setup`](Scan::encode_setup) must have run for the
    /// current length (once is enough for several scans of the same length).
    pub fn encode_levels(&self, kernels: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        let args = |l: usize| 4 * (self.region + ARGS_WORD + 3 * l as u64);
        pass.set_pipeline(kernels.scan_blocks.pipeline());
        for l in 0..self.levels {
            pass.set_bind_group(0, &self.groups[l], &[]);
            pass.dispatch_workgroups_indirect(&self.control, args(l));
        }
        pass.set_pipeline(kernels.scan_add.pipeline());
        for l in (0..self.levels - 1).rev() {
            pass.set_bind_group(0, &self.groups[l], &[]);
            pass.dispatch_workgroups_indirect(&self.control, args(l));
        }
    }

    /// The buffer and byte offset of the grand total (a u32) after the scan ran.
    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        (&self.sums, self.total_offset)
    }

    /// Where the grand total lives, detached from the scan's lifetime.
    pub fn total_slot(&self) -> Total {
        Total { buffer: self.sums.clone(), offset: self.total_offset }
    }
}

/// The location of a scan's grand total.
pub(crate) struct Total {
    buffer: wgpu::Buffer,
    offset: u64,
}

impl Total {
    /// Its binding.
    pub fn binding(&self) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: self.offset,
            size: std::num::NonZeroU64::new(4),
        })
    }
}
/// Count, scan, write: `record(kernels, pass, write)` records a count kernel (`write` false) or
/// a write kernel with its bind group and dispatch, and `scan` turns the counts into offsets in
/// between, each under its pass of `passes`. `planned`: a control kernel already planned the
/// scan's levels (shared/scan_plan.wgsl), so it runs without its setup dispatch.
pub(crate) fn count_scan_write(
    rec: &mut Recorder<'_>,
    passes: [Pass; 3],
    (scan, planned): (&Scan, bool),
    record: impl Fn(&Kernels, &mut wgpu::ComputePass<'_>, bool),
) {
    let k = rec.kernels;
    record(k, rec.pass(passes[0]), false);
    match planned {
        true => scan.encode_levels(k, rec.pass(passes[1])),
        false => scan.encode(k, rec.pass(passes[1])),
    }
    record(k, rec.pass(passes[2]), true);
}
