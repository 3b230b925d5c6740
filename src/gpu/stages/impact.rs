//! Continuous collision, `impact.wgsl`: after the narrow phase, each candidate pair's first touch
//! while the bodies move from their start poses to their poses now, appended to a list the host
//! reads back (see [`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous)).

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::storage;
use crate::gpu::kernels::control;
use crate::gpu::resources::{PairBuffers, Wiring};

/// Bytes of one impact record (a, b, toi as f32 bits, 0), and of the count before them.
pub(crate) const RECORD: u64 = 16;

pub(crate) struct ImpactStage {
    group: wgpu::BindGroup,
    /// The count and whether some invocation's loops were cut short (Mesa's software adapters),
    /// then up to one record per candidate of a batch, in no order.
    pub impacts: wgpu::Buffer,
    control: wgpu::Buffer,
}

impl ImpactStage {
    /// Room for one impact per candidate the pair buffers hold: a batch never has more.
    pub fn new(gpu: &Gpu, wiring: &Wiring<'_>, pairs: &PairBuffers, candidates: u32) -> ImpactStage {
        let device = gpu.device();
        let bytes = RECORD * (1 + u64::from(candidates));
        let impacts =
            storage(device, "satgpu.impacts", bytes, wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST);
        let b = wiring.bodies;
        let group = gpu.kernels().impact.bind(
            device,
            "satgpu.impact",
            &[
                wiring.control.as_entire_binding(),
                pairs.candidates.as_entire_binding(),
                b.bodies.as_entire_binding(),
                b.shapes.as_entire_binding(),
                b.transforms.as_entire_binding(),
                b.starts().as_entire_binding(),
                impacts.as_entire_binding(),
                wiring.params.as_entire_binding(),
            ],
        );
        ImpactStage { group, impacts, control: wiring.control.clone() }
    }

    /// After the narrow phase, which clamped the candidate count to the batch.
    pub fn encode(&self, rec: &mut Recorder<'_>) {
        rec.encoder().clear_buffer(&self.impacts, 0, Some(RECORD));
        let k = rec.kernels;
        let pass = rec.pass(Pass::Impacts);
        pass.set_pipeline(k.impact.pipeline());
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups_indirect(&self.control, 4 * control::PAIR_ARGS);
    }
}
