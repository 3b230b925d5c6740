//! What both broad phases (strips and all pairs) share, below them both: the buffers they bind
//! and their count, scan and write passes.

use crate::gpu::kernels::Kernels;
use crate::gpu::pass::{Pass, Recorder};
use crate::gpu::scan::Scan;
use crate::gpu::transform::TransformStage;

/// The count, scan and write passes both broad phases run: `record(kernels, pass, write)` records
/// the count kernel (`write` false) or the write kernel with its bind group and dispatch; the scan
/// turns the counts into offsets in between. `planned`: a control kernel already planned the
/// scan's levels (shared/scan_plan.wgsl), so it runs without its setup dispatch.
pub(crate) fn count_scan_write(
    rec: &mut Recorder<'_>,
    passes: [Pass; 3],
    (scan, planned): (&Scan, bool),
    record: impl Fn(&Kernels, &mut wgpu::ComputePass<'_>, bool),
) {
    let k = rec.kernels;
    record(k, rec.pass(passes[0]), false);
    match planned {
        true => scan.encode_levels(k, rec.pass(passes[1])),
        false => scan.encode(k, rec.pass(passes[1])),
    }
    record(k, rec.pass(passes[2]), true);
}

/// The buffers every broad phase binds.
pub(crate) struct Inputs<'a> {
    pub params: &'a wgpu::Buffer,
    pub control: &'a wgpu::Buffer,
    pub bodies: &'a TransformStage,
    pub candidates: &'a wgpu::Buffer,
    pub n: u32,
    pub fold: u32,
}
