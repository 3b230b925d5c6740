//! Stages 4 to 6 of the strip broad phase (`sweep.wgsl`): per sorted entry, count the later
//! entries of its strip whose boxes overlap it; scan the counts (the total is the candidate
//! count); write each entry's pairs at its offset, inside the current batch's window of the
//! candidate buffer.

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::storage;
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::primitives::scan::{count_scan_write, Scan, Total};
use crate::gpu::resources::{StripBuffers, Wiring};

pub(crate) struct Sweep {
    /// Whether the kernels read the collision filters (some body has a non-default one).
    pub filtered: bool,
    /// Over per-entry candidate counts; its total is the candidate count.
    scan: Scan,
    group: wgpu::BindGroup,
    control: wgpu::Buffer,
    /// Per entry its candidate count, then (scanned) its first candidate; after the entries, a
    /// word the count pass sets where a walk was cut short (see [`Sweep::cut`]).
    counts: wgpu::Buffer,
}

impl Sweep {
    /// Sweeps `strip` (sorted, boxes gathered) and writes the pairs into `candidates`.
    pub fn new(gpu: &Gpu, i: &Wiring<'_>, strip: &StripBuffers, candidates: &wgpu::Buffer) -> Sweep {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let n = u64::from(strip.capacity);
        let counts = storage(
            device,
            "satgpu.sweep.counts",
            4 * (n + 1),
            wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        );
        let scan = Scan::new(device, kernels, &counts, n, i.control, control::CAND_SCAN, "satgpu.scan_candidates");
        let group = kernels.sweep[0].bind(
            device,
            "satgpu.sweep",
            &[
                i.params.as_entire_binding(),
                i.control.as_entire_binding(),
                strip.keys.as_entire_binding(),
                strip.values.as_entire_binding(),
                strip.boxes.as_entire_binding(),
                counts.as_entire_binding(),
                candidates.as_entire_binding(),
                i.bodies.filters.as_entire_binding(),
            ],
        );
        Sweep { scan, group, control: i.control.clone(), filtered: false, counts }
    }

    /// The word the count pass sets where an entry's walk ended before its last candidate: Mesa's
    /// software adapters stop an invocation's loops after 65,535 iterations in all. Cleared
    /// before each frame, read with its totals.
    pub fn cut(&self) -> (&wgpu::Buffer, u64) {
        // The last word: the buffer may be longer than asked for (`storage`).
        (&self.counts, self.counts.size() - 4)
    }

    /// Where the candidate total lands.
    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        self.scan.total()
    }

    /// The candidate total, for binding.
    pub fn total_slot(&self) -> Total {
        self.scan.total_slot()
    }

    /// Count, scan and write: three passes.
    pub fn encode(&self, rec: &mut Recorder<'_>) {
        let passes = [Pass::SweepCount, Pass::ScanCandidates, Pass::SweepWrite];
        // control_entries.wgsl planned the candidate scan.
        count_scan_write(rec, passes, (&self.scan, true), |k, pass, write| self.record(k, pass, write));
    }

    /// The write alone, for a later batch of candidates: the offsets are still on the GPU.
    pub fn encode_write(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        self.record(k, pass, true);
    }

    /// The count or, with `write`, the write kernel over every sorted entry.
    fn record(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, write: bool) {
        let kernel = Kernels::pick(&k.sweep, write, self.filtered);
        pass.set_pipeline(&kernel.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::ENTRY_ARGS);
    }
}
