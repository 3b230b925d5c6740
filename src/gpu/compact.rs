//! Stage 8, compaction (`compact.wgsl`): an exclusive scan of the collision flags, then each
//! colliding pair written at its offset as a `GpuContact`. The scan's total is the colliding
//! count, and the last invocation writes the dispatch arguments of a pass over the colliding
//! pairs.

use crate::gpu::control;
use crate::gpu::kernels::Kernels;
use crate::gpu::narrow::NarrowPhase;
use crate::gpu::scan::Scan;
use crate::gpu::{storage, Gpu};

pub(crate) struct Compact {
    /// Colliding pairs, in candidate order (24 bytes per candidate; the narrow phase uses it as
    /// scratch before the compaction).
    pub contacts: wgpu::Buffer,
    /// Indirect arguments (x, y, z) of a 64-wide pass over the colliding pairs, then the
    /// colliding count; cleared (no dispatch) before the pass, written by its last invocation.
    pub args: wgpu::Buffer,
    scan: Scan,
    group: wgpu::BindGroup,
    control: wgpu::Buffer,
}

impl Compact {
    pub fn new(
        gpu: &Gpu,
        control: &wgpu::Buffer,
        candidates: &wgpu::Buffer,
        narrow: &NarrowPhase,
        contacts: wgpu::Buffer,
        capacity: u32,
    ) -> Compact {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let cap = u64::from(capacity);
        use wgpu::BufferUsages as U;
        let args = storage(device, "satgpu.contacts.args", 16, U::COPY_SRC | U::COPY_DST | U::INDIRECT);
        let scan = Scan::new(device, kernels, &narrow.flags, cap, control, control::PAIR_SCAN, "satgpu.scan_contacts");
        let group = kernels.compact.bind(
            device,
            "satgpu.compact",
            &[
                control.as_entire_binding(),
                candidates.as_entire_binding(),
                narrow.results.as_entire_binding(),
                narrow.flags.as_entire_binding(),
                contacts.as_entire_binding(),
                args.as_entire_binding(),
            ],
        );
        Compact { contacts, args, scan, group, control: control.clone() }
    }

    /// Where the colliding total lands.
    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        self.scan.total()
    }

    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        self.encode_scan(k, pass);
        pass.set_pipeline(&k.compact.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
    }

    /// The scan alone: each candidate's flag becomes its offset among the colliding pairs (the
    /// GPU ordering writes its keys there instead of the contacts, `ordering.rs`).
    pub fn encode_scan(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        // control_pairs.wgsl, which runs first in the narrow phase, planned the scan's levels.
        self.scan.encode_levels(k, pass);
    }
}
