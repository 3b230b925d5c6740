//! Stages 4 to 6 of the strip broad phase (`sweep.wgsl`): per sorted entry, count the later
//! entries of its strip whose boxes overlap it; scan the counts (the total is the candidate
//! count); write each entry's pairs at its offset, inside the current batch's window of the
//! candidate buffer.

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::{init, storage};
use crate::gpu::kernels::control;
use crate::gpu::kernels::layout::GpuParams;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::primitives::scan::{Scan, Total};
use crate::gpu::resources::{StripBuffers, Wiring};

/// Steps of a sweep walk per window on Mesa's software adapters: under the 65,535 loop
/// iterations they allow an invocation, with room for the binary search that finds a long walk's
/// end (see `sweep.wgsl`).
pub(crate) const SOFTWARE_WINDOW: u32 = 65_000;

/// Where `window` lies in the params (bytes).
const WINDOW_AT: u64 = std::mem::offset_of!(GpuParams, window) as u64;

pub(crate) struct Sweep {
    /// Whether the kernels read the collision filters (some body has a non-default one).
    pub filtered: bool,
    /// Over per-entry candidate counts; its total is the candidate count.
    scan: Scan,
    group: wgpu::BindGroup,
    control: wgpu::Buffer,
    params: wgpu::Buffer,
    /// Per entry its candidate count, then (scanned) its first candidate; after the entries the
    /// windows word (see [`Sweep::need`]); on software adapters, then each entry's cursor.
    counts: wgpu::Buffer,
    /// Entries the buffers hold.
    capacity: u64,
    /// Windows after the first that every walk runs (software adapters; see `sweep.wgsl`), and
    /// `[0, 1, ..., windows]` to copy into the params' `window` before each.
    windows: u32,
    window_table: Option<wgpu::Buffer>,
}

impl Sweep {
    /// Sweeps `strip` (sorted, boxes gathered) and writes the pairs into `candidates`.
    pub fn new(gpu: &Gpu, i: &Wiring<'_>, strip: &StripBuffers, candidates: &wgpu::Buffer) -> Sweep {
        use wgpu::BufferUsages as U;
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let n = u64::from(strip.capacity);
        let cursors = if gpu.is_software() { n } else { 0 };
        let counts = storage(device, "satgpu.sweep.counts", 4 * (n + 1 + cursors), U::COPY_SRC | U::COPY_DST);
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
        Sweep {
            scan,
            group,
            control: i.control.clone(),
            params: i.params.clone(),
            filtered: false,
            counts,
            capacity: n,
            windows: 0,
            window_table: None,
        }
    }

    /// The windows word: 0, or how many windows the longest walk needs in all where that is more
    /// than one (software adapters), or `u32::MAX` where a loop was cut short all the same (Mesa's
    /// software adapters stop an invocation's loops after 65,535 iterations in all). Cleared
    /// before each frame, read with its totals.
    pub fn need(&self) -> (&wgpu::Buffer, u64) {
        (&self.counts, 4 * self.capacity)
    }

    /// Windows after the first that every walk runs.
    pub fn windows(&self) -> u32 {
        self.windows
    }

    /// Runs `windows` windows after the first from the next frame on.
    pub fn set_windows(&mut self, device: &wgpu::Device, windows: u32) {
        let table: Vec<u32> = (0..=windows).collect();
        self.window_table =
            Some(init(device, "satgpu.sweep.windows", bytemuck::cast_slice(&table), wgpu::BufferUsages::COPY_SRC));
        self.windows = windows;
    }

    /// Where the candidate total lands.
    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        self.scan.total()
    }

    /// The candidate total, for binding.
    pub fn total_slot(&self) -> Total {
        self.scan.total_slot()
    }

    /// Count, scan and write: three passes, the count and the write each followed by its further
    /// windows (software adapters).
    pub fn encode(&self, rec: &mut Recorder<'_>) {
        let k = rec.kernels;
        self.record(k, rec.pass(Pass::SweepCount), false);
        self.encode_windows(rec, Pass::SweepCount, false);
        // control_entries.wgsl planned the candidate scan.
        self.scan.encode_levels(k, rec.pass(Pass::ScanCandidates));
        self.record(k, rec.pass(Pass::SweepWrite), true);
        self.encode_windows(rec, Pass::SweepWrite, true);
    }

    /// The further windows of the count or the write, each after the copy of its index into the
    /// params; then the index back to 0.
    fn encode_windows(&self, rec: &mut Recorder<'_>, pass: Pass, write: bool) {
        let Some(table) = &self.window_table else { return };
        let k = rec.kernels;
        for w in 1..=u64::from(self.windows) {
            rec.encoder().copy_buffer_to_buffer(table, 4 * w, &self.params, WINDOW_AT, 4);
            self.record(k, rec.pass(pass), write);
        }
        rec.encoder().copy_buffer_to_buffer(table, 0, &self.params, WINDOW_AT, 4);
    }

    /// The write alone, with its windows, for a later batch of candidates: the offsets are still
    /// on the GPU.
    pub fn encode_write(&self, rec: &mut Recorder<'_>) {
        self.record(rec.kernels, rec.pass(Pass::SweepWrite), true);
        self.encode_windows(rec, Pass::SweepWrite, true);
    }

    /// The count or, with `write`, the write kernel over every sorted entry.
    fn record(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, write: bool) {
        let kernel = Kernels::pick(&k.sweep, write, self.filtered);
        pass.set_pipeline(kernel.pipeline());
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::ENTRY_ARGS);
    }
}
