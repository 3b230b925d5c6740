//! Stage 3 of the strip broad phase: a stable radix sort of the strip entries by key
//! (`radix.rs`), then each sorted entry's AABB gathered beside it (`gather.wgsl`) so the sweep
//! reads boxes in order.

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::control;
use crate::gpu::kernels::shared::KEY_BITS;
use crate::gpu::primitives::radix::RadixSort;
use crate::gpu::resources::StripBuffers;

/// Worlds whose entry capacity is at most this sort by rank instead (`rank_sort.wgsl`): two
/// dispatches of O(n^2) comparisons in all, against the radix sort's 22. Measured on lavapipe
/// (docs/benchmarks-history.md): at 500 bodies (capacity 2,524) the sort pass took 0.5 to 0.75 ms against 1.1
/// to 1.7 for the radix sort; at 1,000 bodies (capacity 4,024) it was no faster, so the line is
/// drawn between. Deciding by capacity bounds the comparisons whatever a frame holds. A capacity
/// that fits the one-workgroup radix sort (`Tuning::tile_keys`: every rank-sort capacity on a CPU
/// adapter, where it is faster still) takes that instead, so the rank sort serves GPUs.
pub(crate) const SMALL_SORT: u32 = 2600;

pub(crate) struct Sort {
    radix: RadixSort,
    gather_group: wgpu::BindGroup,
    /// The small sort's two bind groups (rank, then back and gather), when the capacity allows it.
    small: Option<[wgpu::BindGroup; 2]>,
    control: wgpu::Buffer,
}

impl Sort {
    /// Sorts `strip`'s keys and values in place and gathers each entry's box from `aabbs` into
    /// `strip.boxes`.
    pub fn new(gpu: &Gpu, control: &wgpu::Buffer, strip: &StripBuffers, aabbs: &wgpu::Buffer) -> Sort {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let (capacity, entries, boxes) = (strip.capacity, strip, &strip.boxes);
        let n = u64::from(capacity);
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
        // A capacity that fits the one-workgroup radix sort takes it instead (radix.rs).
        let fits_tile = capacity <= kernels.tuning.tile_keys;
        let small = (capacity <= SMALL_SORT && !fits_tile).then(|| {
            let (sorted_keys, sorted_values) = &radix.scratch;
            let rank = kernels.rank_sort.bind(
                device,
                "satgpu.rank_sort",
                &[
                    control.as_entire_binding(),
                    entries.keys.as_entire_binding(),
                    entries.values.as_entire_binding(),
                    sorted_keys.as_entire_binding(),
                    sorted_values.as_entire_binding(),
                ],
            );
            let back = kernels.rank_gather.bind(
                device,
                "satgpu.rank_gather",
                &[
                    control.as_entire_binding(),
                    sorted_keys.as_entire_binding(),
                    sorted_values.as_entire_binding(),
                    aabbs.as_entire_binding(),
                    entries.keys.as_entire_binding(),
                    entries.values.as_entire_binding(),
                    boxes.as_entire_binding(),
                ],
            );
            [rank, back]
        });
        Sort { radix, gather_group, small, control: control.clone() }
    }

    pub fn encode(&self, rec: &mut Recorder<'_>) {
        let k = rec.kernels;
        let pass = rec.pass(Pass::Sort);
        let args = 4 * control::ENTRY_ARGS;
        if let Some([rank, back]) = &self.small {
            pass.set_pipeline(k.rank_sort.pipeline());
            pass.set_bind_group(0, rank, &[]);
            pass.dispatch_workgroups_indirect(&self.control, args);
            pass.set_pipeline(k.rank_gather.pipeline());
            pass.set_bind_group(0, back, &[]);
            pass.dispatch_workgroups_indirect(&self.control, args);
            return;
        }
        self.radix.encode(k, pass);
        pass.set_pipeline(k.gather.pipeline());
        pass.set_bind_group(0, &self.gather_group, &[]);
        pass.dispatch_workgroups_indirect(&self.control, args);
    }
}
