//! Stage 11 (optional, [`WorldOptions::with_events`](crate::gpu::WorldOptions::with_events)):
//! contact events, the pairs that began and ended touching since the previous frame, from this
//! frame's pairs (sorted by (a, b) on the GPU) and the previous frame's (`events.wgsl`). Each
//! pair of either list is looked up in the other by binary search; one scan places the events,
//! began then ended, each sorted by (a, b).
//!
//! The previous frame's pairs live in one of two key buffers and the frame writes its own into
//! the other; the world says which is which (its parity), and turns it only when a frame is
//! complete, so a frame run again after growth compares against the same previous pairs.
//! Costs 40 bytes per candidate: the two key lists, the flags of both lists and the events.

use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::buffers::storage;
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::primitives::scan::Scan;
use crate::gpu::resources::PairBuffers;

pub(crate) struct Events {
    control: wgpu::Buffer,
    scan: Scan,
    /// The pair lists: a count in record 0, then the pairs `(a, b)` as `vec2<u32>`.
    keys: [wgpu::Buffer; 2],
    /// By parity `p`: the previous pairs in `keys[p]`, this frame's written into `keys[1 - p]`;
    /// for the setup, then the flags and the write.
    setups: [wgpu::BindGroup; 2],
    groups: [wgpu::BindGroup; 2],
    /// A copy of a key list, to go back to (a simulation's window run again).
    saved: wgpu::Buffer,
    /// The events as `vec2<u32>`: the pairs that began, then those that ended.
    pub events: wgpu::Buffer,
    /// `[began, ended, began + ended, 0, x, y, z, 0]`: the counts, then the indirect arguments
    /// of a 64-wide pass over the events.
    pub totals: wgpu::Buffer,
}

impl Events {
    /// The events of the colliding pairs of `pairs` (sorted by the GPU ordering).
    pub fn new(gpu: &Gpu, pairs: &PairBuffers, fold: u32) -> Events {
        use wgpu::BufferUsages as U;
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let n = u64::from(pairs.capacity);
        let control = control::buffer(device, "satgpu.events.control", fold);
        let keys = ["satgpu.events.keys.0", "satgpu.events.keys.1"]
            .map(|label| storage(device, label, 8 * (n + 1), U::COPY_SRC | U::COPY_DST));
        let saved = storage(device, "satgpu.events.saved", 8 * (n + 1), U::COPY_SRC | U::COPY_DST);
        // The counts of both key lists start at 0: no pairs before the first frame.
        let offsets = storage(device, "satgpu.events.offsets", 4 * (2 * n + 1), U::empty());
        let scan = Scan::new(device, kernels, &offsets, 2 * n + 1, &control, control::PAIR_SCAN, "satgpu.events.scan");
        let events = storage(device, "satgpu.events", 16 * n, U::COPY_SRC);
        let totals = storage(device, "satgpu.events.totals", 32, U::COPY_SRC | U::INDIRECT);
        let setup = |p: usize| {
            let buffers = [&control, &pairs.args, &keys[p], &keys[1 - p]].map(|b| b.as_entire_binding());
            kernels.events[0].bind(device, "satgpu.events.setup", &buffers)
        };
        let setups = [setup(0), setup(1)];
        let group = |p: usize| {
            kernels.events[1].bind(
                device,
                "satgpu.events",
                &[
                    control.as_entire_binding(),
                    pairs.args.as_entire_binding(),
                    pairs.contacts.as_entire_binding(),
                    keys[p].as_entire_binding(),
                    keys[1 - p].as_entire_binding(),
                    offsets.as_entire_binding(),
                    events.as_entire_binding(),
                    totals.as_entire_binding(),
                ],
            )
        };
        let groups = [group(0), group(1)];
        Events { control, scan, keys, saved, setups, groups, events, totals }
    }

    /// The list of the previous frame's pairs at `parity` (its length in record 0, then the pairs).
    pub fn previous(&self, parity: usize) -> &wgpu::Buffer {
        &self.keys[parity]
    }

    /// Records the events of this frame's pairs against the previous frame's in `keys[parity]`.
    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, parity: usize) {
        let [setup, flags, write] = &k.events;
        pass.set_pipeline(setup.pipeline());
        pass.set_bind_group(0, &self.setups[parity], &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(flags.pipeline());
        pass.set_bind_group(0, &self.groups[parity], &[]);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::EVENT_ARGS);
        self.scan.encode_levels(k, pass);
        pass.set_pipeline(write.pipeline());
        pass.set_bind_group(0, &self.groups[parity], &[]);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::EVENT_ARGS);
    }

    /// Records copies of `old`'s pair lists into these (which are at least as large), so that
    /// rebuilt buffers keep the previous frame's pairs.
    pub fn carry(&self, encoder: &mut wgpu::CommandEncoder, old: &Events) {
        let old_lists = old.keys.iter().chain([&old.saved]);
        for (from, to) in old_lists.zip(self.keys.iter().chain([&self.saved])) {
            encoder.copy_buffer_to_buffer(from, 0, to, 0, from.size().min(to.size()));
        }
    }

    /// Records a copy of the previous pairs of `parity` aside, or with `back` the copy back.
    pub fn save(&self, encoder: &mut wgpu::CommandEncoder, parity: usize, back: bool) {
        let (from, to) = if back { (&self.saved, &self.keys[parity]) } else { (&self.keys[parity], &self.saved) };
        encoder.copy_buffer_to_buffer(from, 0, to, 0, to.size());
    }
}
