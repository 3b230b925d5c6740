//! Stage 3 of the strip broad phase: a stable radix sort of the strip entries by key
//! (`radix.rs`), then each sorted entry's AABB gathered beside it (`gather.wgsl`) so the sweep
//! reads boxes in order.

use crate::gpu::control;
use crate::gpu::entries::Entries;
use crate::gpu::pass::{Pass, Recorder};
use crate::gpu::radix::RadixSort;
use crate::gpu::{storage, Gpu};

/// Bits of a strip entry key: 6 radix passes.
pub(crate) const KEY_BITS: u32 = 24;

pub(crate) struct Sort {
    radix: RadixSort,
    /// The AABB of each sorted entry.
    pub boxes: wgpu::Buffer,
    gather_group: wgpu::BindGroup,
    control: wgpu::Buffer,
}

impl Sort {
    pub fn new(gpu: &Gpu, control: &wgpu::Buffer, entries: &Entries, aabbs: &wgpu::Buffer, capacity: u32) -> Sort {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let n = u64::from(capacity);
        let boxes = storage(device, "satgpu.entries.boxes", 16 * n, wgpu::BufferUsages::empty());
        let radix = RadixSort::new(device, kernels, &entries.keys, &entries.values, n, KEY_BITS, control);
        let gather_group = kernels.gather.bind(
            device,
            "satgpu.gather",
            &[
                control.as_entire_binding(),
                entries.values.as_entire_binding(),
                aabbs.as_entire_binding(),
                boxes.as_entire_binding(),
            ],
        );
        Sort { radix, boxes, gather_group, control: control.clone() }
    }

    pub fn encode(&self, rec: &mut Recorder<'_>) {
        let k = rec.kernels;
        let pass = rec.pass(Pass::Sort);
        self.radix.encode(k, pass);
        pass.set_pipeline(&k.gather.pipeline);
        pass.set_bind_group(0, &self.gather_group, &[]);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::ENTRY_ARGS);
    }
}
