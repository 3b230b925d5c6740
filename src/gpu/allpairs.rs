//! The all-pairs broad phase for small scenes (`allpairs.wgsl`): per body, count the later
//! bodies whose AABBs overlap it; scan the counts; write each body's pairs at its offset, inside
//! the current batch's window of the candidate buffer.

use crate::gpu::control;
use crate::gpu::kernels::Kernels;
use crate::gpu::pass::{Pass, Recorder};
use crate::gpu::scan::{Scan, Total};
use crate::gpu::transform::TransformStage;
use crate::gpu::{dispatch, storage, Gpu, WG};

pub(crate) struct AllPairs {
    scan: Scan,
    group: wgpu::BindGroup,
    n: u32,
    fold: u32,
}

impl AllPairs {
    pub fn new(
        gpu: &Gpu,
        params: &wgpu::Buffer,
        control: &wgpu::Buffer,
        bodies: &TransformStage,
        candidates: &wgpu::Buffer,
        n: u32,
        fold: u32,
    ) -> AllPairs {
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let counts = storage(device, "satgpu.allpairs.counts", 4 * u64::from(n), wgpu::BufferUsages::empty());
        let scan =
            Scan::new(device, kernels, &counts, u64::from(n), control, control::CAND_SCAN, "satgpu.scan_allpairs");
        gpu.queue().write_buffer(control, 4 * control::CAND_SCAN, bytemuck::bytes_of(&n));
        let group = kernels.allpairs_count.bind(
            device,
            "satgpu.allpairs",
            &[
                params.as_entire_binding(),
                bodies.aabbs.as_entire_binding(),
                counts.as_entire_binding(),
                candidates.as_entire_binding(),
            ],
        );
        AllPairs { scan, group, n, fold }
    }

    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        self.scan.total()
    }

    pub fn total_slot(&self) -> Total {
        self.scan.total_slot()
    }

    /// Count, scan and write: three passes.
    pub fn encode(&self, rec: &mut Recorder<'_>) {
        let k = rec.kernels;
        {
            let mut pass = rec.pass(Pass::AllPairsCount);
            pass.set_pipeline(&k.allpairs_count.pipeline);
            pass.set_bind_group(0, &self.group, &[]);
            dispatch(&mut pass, self.n, WG, self.fold);
        }
        {
            let mut pass = rec.pass(Pass::ScanAllPairs);
            self.scan.encode(k, &mut pass);
        }
        let mut pass = rec.pass(Pass::AllPairsWrite);
        self.encode_write(k, &mut pass);
    }

    /// The write alone, for a later batch of candidates.
    pub fn encode_write(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&k.allpairs_write.pipeline);
        pass.set_bind_group(0, &self.group, &[]);
        dispatch(pass, self.n, WG, self.fold);
    }
}
