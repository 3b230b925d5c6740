//! The all-pairs broad phase for small scenes (`allpairs.wgsl`): per body, count the later
//! bodies whose AABBs overlap it; scan the counts; write each body's pairs at its offset, inside
//! the current batch's window of the candidate buffer.

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::{dispatch, storage};
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::kernels::shared::WG;
use crate::gpu::primitives::scan::{count_scan_write, Scan, Total};
use crate::gpu::resources::Wiring;

pub(crate) struct AllPairs {
    /// Whether the kernels read the collision filters (some body has a non-default one).
    pub filtered: bool,
    scan: Scan,
    group: wgpu::BindGroup,
    n: u32,
    fold: u32,
}

impl AllPairs {
    /// Writes the pairs into `candidates`.
    pub fn new(gpu: &Gpu, wiring: &Wiring<'_>, candidates: &wgpu::Buffer) -> AllPairs {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let (params, control, bodies, fold) = (wiring.params, wiring.control, wiring.bodies, wiring.fold);
        let n = bodies.len();
        let counts = storage(device, "satgpu.allpairs.counts", 4 * u64::from(n), wgpu::BufferUsages::empty());
        let scan =
            Scan::new(device, kernels, &counts, u64::from(n), control, control::CAND_SCAN, "satgpu.scan_allpairs");
        gpu.queue().write_buffer(control, 4 * control::CAND_SCAN, bytemuck::bytes_of(&n));
        let group = kernels.allpairs[0].bind(
            device,
            "satgpu.allpairs",
            &[
                params.as_entire_binding(),
                bodies.aabbs.as_entire_binding(),
                counts.as_entire_binding(),
                candidates.as_entire_binding(),
                bodies.filters.as_entire_binding(),
                bodies.worlds.as_entire_binding(),
            ],
        );
        AllPairs { scan, group, n, fold, filtered: false }
    }

    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        self.scan.total()
    }

    pub fn total_slot(&self) -> Total {
        self.scan.total_slot()
    }

    /// Count, scan and write: three passes.
    pub fn encode(&self, rec: &mut Recorder<'_>) {
        let passes = [Pass::AllPairsCount, Pass::ScanAllPairs, Pass::AllPairsWrite];
        count_scan_write(rec, passes, (&self.scan, false), |k, pass, write| self.record(k, pass, write));
    }

    /// The write alone, for a later batch of candidates.
    pub fn encode_write(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        self.record(k, pass, true);
    }

    /// The count or, with `write`, the write kernel over every body.
    fn record(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, write: bool) {
        let kernel = Kernels::pick(&k.allpairs, write, self.filtered);
        pass.set_pipeline(kernel.pipeline());
        pass.set_bind_group(0, &self.group, &[]);
        dispatch(pass, self.n, WG, self.fold);
    }
}
