//! Collecting a frame: the wait, growth and rerun when a buffer was too small, the contacts and
//! manifolds read back (in batches when the candidates outgrow one binding), and their delivery
//! sorted by (a, b).

use std::time::Instant;

use crate::error::{Error, Result};
use crate::geometry::Manifold;
use crate::gpu::device::pass::PassTime;
use crate::gpu::host::order;
use crate::gpu::kernels::layout::{GpuContact, GpuManifold};
use crate::gpu::stages::readback::Totals;
use crate::gpu::world::options::FrameStats;
use crate::gpu::world::{InFlight, World};

/// A frame's contacts and manifolds in GPU order, the colliding total and the batches run.
type Batches = (Vec<GpuContact>, Vec<GpuManifold>, u64, u32);

impl World {
    pub(super) fn collect_sink(&mut self, contacts: &mut Vec<impl order::Record>) -> Result<FrameStats> {
        if self.in_flight.is_none() {
            self.submit()?;
        }
        let gpu = self.gpu.clone();
        let result = gpu.scoped(|| self.finish(contacts)).and_then(|r| r);
        self.in_flight = None;
        if result.is_err() {
            // A batch may have been cut short: the next frame starts from the first candidate.
            self.write_params(0);
            self.spans.clear();
        }
        result
    }

    fn finish(&mut self, contacts: &mut Vec<impl order::Record>) -> Result<FrameStats> {
        loop {
            let flight = self.in_flight.as_ref().expect("a frame is in flight");
            let (start, reruns, submission) = (flight.start, flight.reruns, flight.submission.clone());
            let (totals, ticks) = self.readback.status(
                &self.gpu,
                submission.clone(),
                self.options.timestamps,
                ("collision frame", &mut self.spans),
            )?;
            let gpu_ms = start.elapsed().as_secs_f64() * 1e3;
            let c = self.sized.capacity;
            let room = u64::from(c.candidates);
            // Candidates past the largest capacity one binding allows are not a rerun but batches.
            if totals.entries > u64::from(c.entries) || (totals.candidates > room && room < c.max_candidates) {
                log::info!(
                    "{} entries / {} candidates exceed the capacity {} / {}; growing and rerunning",
                    totals.entries,
                    totals.candidates,
                    c.entries,
                    c.candidates
                );
                // Candidates counted from a truncated entry list are a lower bound: the rerun
                // grows again if it must.
                self.reserve(totals.entries, totals.candidates)?;
                let submission = self.submit_frame()?;
                self.in_flight = Some(InFlight { submission, start, reruns: reruns + 1 });
                continue;
            }
            let mut passes = match self.readback.timestamps.as_ref().filter(|_| self.options.timestamps) {
                Some(ts) => ts.times(&ticks, &self.passes()),
                None => vec![PassTime { name: "gpu_total", ms: gpu_ms, clock: "wall" }],
            };
            let read_start = Instant::now();
            let (raw, manifolds, colliding, batches) = self.read_contacts(totals, submission)?;
            // Batches were ordered each on its own: they are merged on the host.
            let ordered = self.sized.order.is_some() && batches == 1;
            let bodies = self.len();
            self.spans.time(if ordered { "widen" } else { "order" }, || {
                deliver(contacts, raw, &manifolds, (ordered, bodies, &mut self.order_scratch), &mut self.manifolds)
            })?;
            passes.push(PassTime { name: "readback", ms: read_start.elapsed().as_secs_f64() * 1e3, clock: "wall" });
            return Ok(FrameStats {
                broad_phase: self.sized.broad.name(),
                entries: totals.entries,
                candidates: totals.candidates,
                colliding,
                passes,
                frame_ms: start.elapsed().as_secs_f64() * 1e3,
                reruns,
                batches,
                host: self.spans.take(),
            });
        }
    }

    /// The frame's contacts, then, when there were more candidates than one binding holds, the
    /// rest in batches of the capacity. The sweep's offsets are still on the GPU, so each batch
    /// reruns only the candidate write, the narrow phase and the compaction for its window.
    fn read_contacts(&mut self, totals: Totals, frame: wgpu::SubmissionIndex) -> Result<Batches> {
        let mut raw = self.readback.contacts(
            &self.gpu,
            &self.sized.pairs.contacts,
            totals.colliding,
            Some(frame),
            &mut self.spans,
        )?;
        let mut manifolds = self.read_manifolds(totals.colliding)?;
        let mut colliding = totals.colliding;
        let capacity = u64::from(self.sized.capacity.candidates);
        let mut batches = 1;
        let mut base = capacity;
        while base < totals.candidates {
            let batch = self.run_batch(base as u32);
            self.write_params(0);
            let (batch, batch_manifolds) = batch?;
            colliding += batch.len() as u64;
            raw.try_reserve(batch.len()).map_err(|_| Error::HostMemory { what: "contacts", needed: 24 * colliding })?;
            raw.extend_from_slice(&batch);
            manifolds
                .try_reserve(batch_manifolds.len())
                .map_err(|_| Error::HostMemory { what: "manifolds", needed: 32 * colliding })?;
            manifolds.extend_from_slice(&batch_manifolds);
            base += capacity;
            batches += 1;
        }
        Ok((raw, manifolds, colliding, batches))
    }

    /// The first `count` manifolds of the last frame or batch (none unless [`ContactDetail::Full`]).
    fn read_manifolds(&mut self, count: u64) -> Result<Vec<GpuManifold>> {
        match self.sized.manifold.as_ref().filter(|_| self.full()) {
            Some(m) => self.readback.manifolds(&self.gpu, &m.manifolds, count, &mut self.spans),
            None => Ok(vec![]),
        }
    }

    /// One batch: the candidate write for `[base, base + capacity)`, the narrow phase and the
    /// compaction over it, then its contacts read back.
    fn run_batch(&mut self, base: u32) -> Result<(Vec<GpuContact>, Vec<GpuManifold>)> {
        self.write_params(base);
        let s = &self.sized;
        let k = self.gpu.kernels();
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("satgpu.batch"),
                timestamp_writes: None,
            });
            s.broad.encode_write(k, &mut pass);
            s.narrow.encode(k, &mut pass, self.rounded, self.large);
            s.encode_compact(k, &mut pass, true);
            if let Some(order) = &s.order {
                order.encode(k, &mut pass);
            }
            if let Some(m) = s.manifold.as_ref().filter(|_| self.full()) {
                m.encode(k, &mut pass);
            }
        }
        self.readback.encode_colliding(&mut encoder, s.compact.total());
        self.readback.encode_status(&mut encoder, false);
        let submission = self.gpu.queue().submit([encoder.finish()]);
        let (totals, _) = self.readback.status(&self.gpu, submission, false, ("collision batch", &mut self.spans))?;
        let contacts =
            self.readback.contacts(&self.gpu, &self.sized.pairs.contacts, totals.colliding, None, &mut self.spans)?;
        Ok((contacts, self.read_manifolds(totals.colliding)?))
    }
}

/// A frame's pairs `raw` (with `manifolds` at the same index when there are any) into `out`
/// sorted by (a, b), as [`Contact`]s or as f32 [`GpuContact`]s, and the manifolds into
/// `out_manifolds` in the same order. `ordered`: the GPU sorted `raw` already.
fn deliver<T: order::Record>(
    out: &mut Vec<T>,
    raw: Vec<GpuContact>,
    manifolds: &[GpuManifold],
    (ordered, bodies, scratch): (bool, usize, &mut Vec<u32>),
    out_manifolds: &mut Vec<Manifold>,
) -> Result<()> {
    out_manifolds.clear();
    if !ordered {
        return match manifolds.is_empty() {
            true => order::sorted_contacts_into(&raw, bodies, out, scratch),
            false => order::sorted_with_manifolds_into(&raw, manifolds, bodies, (out, out_manifolds), scratch),
        };
    }
    T::from_sorted(raw, out)?;
    out_manifolds.extend(manifolds.iter().map(GpuManifold::to_manifold));
    Ok(())
}
