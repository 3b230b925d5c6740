//! Stage 2 of the strip broad phase: the strip grid over a robust box of the bodies
//! (`control_grid.wgsl`),
//! then one entry per (strip, body) the body's AABB spans (`entries.wgsl`): counted per body,
//! scanned, and written as (key = strip then quantised min.x, value = body).

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::{dispatch, storage};
use crate::gpu::kernels::control;
use crate::gpu::kernels::shared::WG;
use crate::gpu::primitives::scan::Scan;
use crate::gpu::resources::{StripBuffers, Wiring};

pub(crate) struct Entries {
    /// Over entries per body; its total is the entry count.
    body_scan: Scan,
    grid_group: wgpu::BindGroup,
    entries_group: wgpu::BindGroup,
    control_group: wgpu::BindGroup,
    n: u32,
    fold: u32,
}

impl Entries {
    /// Writes its entries into `strip`'s keys and values.
    pub fn new(gpu: &Gpu, wiring: &Wiring<'_>, strip: &StripBuffers) -> Entries {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let (params, control, bodies, fold) = (wiring.params, wiring.control, wiring.bodies, wiring.fold);
        let n = bodies.len();
        let body_counts = storage(device, "satgpu.entries.per_body", 4 * u64::from(n), wgpu::BufferUsages::empty());
        let body_scan =
            Scan::new(device, kernels, &body_counts, u64::from(n), control, control::ENTRY_SCAN, "satgpu.scan_entries");
        gpu.queue().write_buffer(control, 4 * control::ENTRY_SCAN, bytemuck::bytes_of(&n));
        let grid_group = kernels.control_grid.bind(
            device,
            "satgpu.control.grid",
            &[
                params.as_entire_binding(),
                bodies.bounds.as_entire_binding(),
                control.as_entire_binding(),
                bodies.aabbs.as_entire_binding(),
            ],
        );
        let entries_group = kernels.entries_count.bind(
            device,
            "satgpu.entries",
            &[
                params.as_entire_binding(),
                control.as_entire_binding(),
                bodies.aabbs.as_entire_binding(),
                body_counts.as_entire_binding(),
                strip.keys.as_entire_binding(),
                strip.values.as_entire_binding(),
                bodies.worlds.as_entire_binding(),
            ],
        );
        let control_group = kernels.control_entries.bind(
            device,
            "satgpu.control.entries",
            &[params.as_entire_binding(), body_scan.total_slot().binding(), control.as_entire_binding()],
        );
        Entries { body_scan, grid_group, entries_group, control_group, n, fold }
    }

    /// Where the entry total lands after the frame.
    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        self.body_scan.total()
    }

    pub fn encode(&self, rec: &mut Recorder<'_>) {
        let k = rec.kernels;
        let pass = rec.pass(Pass::Entries);
        pass.set_pipeline(k.control_grid.pipeline());
        pass.set_bind_group(0, &self.grid_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(k.entries_count.pipeline());
        pass.set_bind_group(0, &self.entries_group, &[]);
        dispatch(pass, self.n, WG, self.fold);
        // control_grid.wgsl planned the scan's levels.
        self.body_scan.encode_levels(k, pass);
        pass.set_pipeline(k.control_entries.pipeline());
        pass.set_bind_group(0, &self.control_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(k.entries_write.pipeline());
        pass.set_bind_group(0, &self.entries_group, &[]);
        dispatch(pass, self.n, WG, self.fold);
    }
}
