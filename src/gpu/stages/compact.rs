//! Stage 8, compaction (`compact.wgsl`): an exclusive scan of the collision flags, then each
//! colliding pair written at its offset as a `GpuContact`. The scan's total is the colliding
//! count, and the last invocation writes the dispatch arguments of a pass over the colliding
//! pairs.

use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::primitives::scan::Scan;
use crate::gpu::resources::PairBuffers;

pub(crate) struct Compact {
    scan: Scan,
    group: wgpu::BindGroup,
    control: wgpu::Buffer,
}

impl Compact {
    /// Scans `pairs.flags` into offsets and writes the colliding pairs into `pairs.contacts`,
    /// their count and dispatch arguments into `pairs.args`.
    pub fn new(gpu: &Gpu, control: &wgpu::Buffer, pairs: &PairBuffers) -> Compact {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let cap = u64::from(pairs.capacity);
        let scan = Scan::new(device, kernels, &pairs.flags, cap, control, control::PAIR_SCAN, "satgpu.scan_contacts");
        let group = kernels.compact.bind(
            device,
            "satgpu.compact",
            &[
                control.as_entire_binding(),
                pairs.candidates.as_entire_binding(),
                pairs.results.as_entire_binding(),
                pairs.flags.as_entire_binding(),
                pairs.contacts.as_entire_binding(),
                pairs.args.as_entire_binding(),
            ],
        );
        Compact { scan, group, control: control.clone() }
    }

    /// Where the colliding total lands.
    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        self.scan.total()
    }

    pub fn encode(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        self.encode_scan(k, pass);
        pass.set_pipeline(k.compact.pipeline());
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
