//! Collecting a frame: the wait, growth and rerun when a buffer was too small, the contacts and
//! manifolds read back (in batches when the candidates outgrow one binding), and their delivery
//! sorted by (a, b).

use std::time::Instant;

use crate::error::{Error, Result};
use crate::geometry::{ContactEvents, Manifold};
use crate::gpu::device::pass::PassTime;
use crate::gpu::host::events::HostEvents;
use crate::gpu::host::order;
use crate::gpu::kernels::layout::{GpuContact, GpuManifold};
use crate::gpu::stages::readback::{Mapped, Totals};
use crate::gpu::world::growth::Fit;
use crate::gpu::world::options::FrameStats;
use crate::gpu::world::{InFlight, World};

impl World {
    /// Collects the frame in flight (submitting one if none is) into `contacts`; or, with
    /// `keep_mapped` and pairs of bodies of one shape the GPU sorted in one batch, hands back
    /// their mapped records and leaves `contacts` alone.
    pub(super) fn collect_sink<T: order::Record>(
        &mut self,
        contacts: &mut Vec<T>,
        keep_mapped: bool,
    ) -> Result<(FrameStats, Option<Mapped>)> {
        if self.in_flight.is_none() {
            self.submit()?;
        }
        let gpu = self.gpu.clone();
        // Pairs of shapes are named by body on the host, from records copied out.
        let keep_mapped = keep_mapped && self.map.is_none();
        let result = gpu.scoped(|| self.finish(contacts, keep_mapped)).and_then(|r| r);
        self.in_flight = None;
        if result.is_err() {
            // A batch may have been cut short: the next frame starts from the first candidate.
            self.write_params(0);
            self.spans.clear();
        }
        result
    }

    fn finish<T: order::Record>(
        &mut self,
        contacts: &mut Vec<T>,
        keep_mapped: bool,
    ) -> Result<(FrameStats, Option<Mapped>)> {
        self.impacts.clear();
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
            let fit = self.fit(totals.entries, totals.candidates, totals.need)?;
            if fit == Fit::Rerun {
                let submission = self.submit_frame()?;
                self.in_flight = Some(InFlight { submission, start, reruns: reruns + 1 });
                continue;
            }
            if self.sized.events.is_some() && fit == Fit::Batches {
                // The events stage holds one binding of pairs; these come in batches.
                self.move_events_to_host()?;
            }
            let mut passes = match self.readback.timestamps.as_ref().filter(|_| self.options.timestamps) {
                Some(ts) => ts.times(&ticks, &self.passes()),
                None => vec![PassTime { name: "gpu_total", ms: gpu_ms, clock: "wall" }],
            };
            let read_start = Instant::now();
            let (kept, mut colliding, batches) = self.deliver(contacts, totals, submission, keep_mapped)?;
            if let Some(map) = &self.map {
                let (manifolds, shapes) = (&mut self.manifolds, &mut self.shape_pairs);
                self.spans.time("bodies", || map.reduce(contacts, manifolds, shapes));
                colliding = contacts.len() as u64;
            }
            self.read_events(totals)?;
            self.impacts_by_body();
            self.keep_poses(None);
            if let Some(host) = self.host_events.as_mut() {
                let events = match &kept {
                    Some(mapped) => {
                        let records = mapped.records::<GpuContact>();
                        self.spans.time("events", || host.next(records.iter().map(|c| [c.a, c.b])))
                    }
                    None => self.spans.time("events", || host.next(contacts.iter().map(|c| [c.a(), c.b()]))),
                };
                self.contact_events = Some(events);
            }
            passes.push(PassTime { name: "readback", ms: read_start.elapsed().as_secs_f64() * 1e3, clock: "wall" });
            let stats = FrameStats {
                broad_phase: self.sized.broad.name(),
                entries: totals.entries,
                candidates: totals.candidates,
                colliding,
                passes,
                frame_ms: start.elapsed().as_secs_f64() * 1e3,
                reruns,
                batches,
                host: self.spans.take(),
            };
            return Ok((stats, kept));
        }
    }

    /// The frame's contacts into `contacts` sorted by (a, b), and its manifolds into
    /// `self.manifolds` in the same order; the mapped records instead, with `keep_mapped`, when
    /// the GPU sorted them. When there were more candidates than one binding holds, the rest
    /// run in batches of the capacity: the sweep's offsets are still on the GPU, so each batch
    /// reruns only the candidate write, the narrow phase and the compaction for its window, and
    /// the host merges them. Returns the mapped records if kept, the colliding total and the
    /// batches run.
    fn deliver<T: order::Record>(
        &mut self,
        contacts: &mut Vec<T>,
        totals: Totals,
        frame: wgpu::SubmissionIndex,
        keep_mapped: bool,
    ) -> Result<(Option<Mapped>, u64, u32)> {
        let src = &self.sized.pairs.contacts;
        let first = self.readback.contacts(&self.gpu, src, totals.colliding, Some(frame), &mut self.spans)?;
        self.impact_records.clear();
        self.read_impacts()?;
        let first_manifolds = self.read_manifolds(totals.colliding)?;
        let capacity = u64::from(self.sized.capacity.candidates);
        self.manifolds.clear();
        if self.sized.order.is_some() && totals.candidates <= capacity {
            // Sorted on the GPU: delivered straight from the mapped records.
            use rayon::prelude::*;
            let (manifolds, out) = (first_manifolds.records::<GpuManifold>(), &mut self.manifolds);
            self.spans.time("widen", || out.par_extend(manifolds.par_iter().map(GpuManifold::to_manifold)));
            if keep_mapped {
                return Ok((Some(first), totals.colliding, 1));
            }
            let span = if T::WIDENS { "widen" } else { "copy_out" };
            self.spans.time(span, || T::from_sorted(&first.records(), contacts))?;
            return Ok((None, totals.colliding, 1));
        }
        // One batch is ordered straight from the mapped records; batches are gathered first.
        let mut raw = std::mem::take(&mut self.raw);
        raw.clear();
        let (mut batches, mut base) = (1, capacity);
        let mut manifolds: Vec<GpuManifold> = vec![];
        let (first, first_manifolds) = match base < totals.candidates {
            true => {
                self.spans.time("copy_out", || order::copy_records(&first.records(), &mut raw))?;
                manifolds = self.spans.time("copy_out", || first_manifolds.records().into_owned());
                // Unmapped before the batches map the buffers again.
                drop((first, first_manifolds));
                (None, None)
            }
            false => (Some(first), Some(first_manifolds)),
        };
        while base < totals.candidates {
            let batch = self.run_batch(base as u32);
            self.write_params(0);
            let (batch, batch_manifolds) = batch?;
            let needed = 24 * (raw.len() + batch.len()) as u64;
            raw.try_reserve(batch.len()).map_err(|_| Error::HostMemory { what: "contacts", needed })?;
            raw.extend_from_slice(&batch);
            let needed = 32 * (manifolds.len() + batch_manifolds.len()) as u64;
            manifolds
                .try_reserve(batch_manifolds.len())
                .map_err(|_| Error::HostMemory { what: "manifolds", needed })?;
            manifolds.extend_from_slice(&batch_manifolds);
            base += capacity;
            batches += 1;
        }
        let mapped = first.as_ref().map(Mapped::records);
        let raw_records: &[GpuContact] = mapped.as_deref().unwrap_or(&raw);
        let mapped_manifolds = first_manifolds.as_ref().map(Mapped::records::<GpuManifold>);
        let manifolds: &[GpuManifold] = mapped_manifolds.as_deref().unwrap_or(&manifolds);
        let (bodies, scratch, out_manifolds) = (self.shape_count(), &mut self.order_scratch, &mut self.manifolds);
        let ordered = self.spans.time("order", || match manifolds.is_empty() {
            true => order::sorted_contacts_into(raw_records, bodies, contacts, scratch),
            false => {
                order::sorted_with_manifolds_into(raw_records, manifolds, bodies, (contacts, out_manifolds), scratch)
            }
        });
        let colliding = raw_records.len() as u64;
        drop((mapped, mapped_manifolds));
        self.raw = raw;
        ordered.map(|()| (None, colliding, batches))
    }

    /// From this frame on, the host computes the contact events from the pairs it reads back,
    /// starting from the previous frame's pairs, read from the GPU's events stage, which goes (a
    /// new generation). For a frame whose candidates outgrow one binding: its pairs come in
    /// batches, and the events stage holds one binding of pairs.
    pub(super) fn move_events_to_host(&mut self) -> Result<()> {
        let Some(stage) = self.sized.events.as_ref() else { return Ok(()) };
        let previous = self.readback.pair_list(&self.gpu, stage.previous(self.parity()), &mut self.spans)?;
        let mut host = HostEvents::default();
        host.next(previous.into_iter());
        self.host_events = Some(host);
        self.sized.events = None;
        self.replan();
        // The events' buffers are gone: a caller's bind groups must be made again.
        self.generation += 1;
        Ok(())
    }

    /// With events, reads the frame's events into [`World::events`] and turns the parity: the
    /// next frame compares against this one's pairs.
    fn read_events(&mut self, totals: Totals) -> Result<()> {
        let Some(stage) = self.sized.events.as_ref() else { return Ok(()) };
        let mut pairs = self.readback.events(&self.gpu, &stage.events, totals.began + totals.ended, &mut self.spans)?;
        let ended = pairs.split_off(totals.began as usize);
        self.contact_events = Some(crate::geometry::ContactEvents { began: pairs, ended });
        self.turn_parity();
        Ok(())
    }

    /// With continuous collision, the last frame's or batch's impact records, appended to
    /// `impact_records`.
    fn read_impacts(&mut self) -> Result<()> {
        let Some(stage) = self.sized.impacts.as_ref() else { return Ok(()) };
        let (records, cut) = self.readback.impacts(&self.gpu, &stage.impacts, &mut self.spans)?;
        if cut {
            let why = "continuous collision: a pair of bodies with too many vertices turned for too many steps";
            return Err(crate::gpu::device::adapter::loops_cut(self.gpu.adapter_info(), why));
        }
        self.impact_records.extend_from_slice(&records);
        Ok(())
    }

    /// The frame's impacts by pair of bodies (the first touch of any of their shape pairs),
    /// sorted by (a, b), into `impacts`.
    fn impacts_by_body(&mut self) {
        self.impacts.clear();
        if self.sized.impacts.is_none() {
            return;
        }
        let map = self.map.as_ref();
        let body = |i: u32| map.map_or(i, |m| m.body_of(i));
        let mut found: Vec<crate::Impact> = self
            .impact_records
            .iter()
            .map(|r| {
                let (a, b) = (body(r[0]), body(r[1]));
                crate::Impact { a: a.min(b), b: a.max(b), toi: f64::from(f32::from_bits(r[2])) }
            })
            .collect();
        found.sort_unstable_by(|x, y| (x.a, x.b).cmp(&(y.a, y.b)).then(x.toi.total_cmp(&y.toi)));
        found.dedup_by_key(|i| (i.a, i.b));
        self.impacts = found;
    }

    /// The first `count` manifolds of the last frame or batch, mapped (none unless
    /// [`ContactDetail::Full`]).
    fn read_manifolds(&mut self, count: u64) -> Result<Mapped> {
        match self.sized.manifold.as_ref().filter(|_| self.full()) {
            Some(m) => self.readback.manifolds(&self.gpu, &m.manifolds, count, &mut self.spans),
            None => Ok(Mapped::empty()),
        }
    }

    /// One batch: the candidate write for `[base, base + capacity)`, the narrow phase and the
    /// compaction over it, then its contacts read back.
    fn run_batch(&mut self, base: u32) -> Result<(Vec<GpuContact>, Vec<GpuManifold>)> {
        self.write_params(base);
        let s = &self.sized;
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        self.record(&mut encoder, &self.plans.batch);
        self.readback.encode_colliding(&mut encoder, s.compact.total());
        self.readback.encode_status(&mut encoder, false, None);
        let submission = self.gpu.queue().submit([encoder.finish()]);
        let (totals, _) = self.readback.status(&self.gpu, submission, false, ("collision batch", &mut self.spans))?;
        let src = &self.sized.pairs.contacts;
        let mapped = self.readback.contacts(&self.gpu, src, totals.colliding, None, &mut self.spans)?;
        let contacts = self.spans.time("copy_out", || mapped.records::<GpuContact>().into_owned());
        drop(mapped);
        self.read_impacts()?;
        let mapped = self.read_manifolds(totals.colliding)?;
        let manifolds = self.spans.time("copy_out", || mapped.records::<GpuManifold>().into_owned());
        Ok((contacts, manifolds))
    }
}

/// What the last frame collected left beside its contacts.
impl World {
    /// The shape pairs of the last frame collected with [`step_into`](World::step_into) or
    /// [`collect_into`](World::collect_into), at the same index as its contacts (see
    /// [`Frame::shapes`](crate::gpu::Frame::shapes)); empty when every body has one shape.
    pub fn shape_pairs(&self) -> &[[u32; 2]] {
        &self.shape_pairs
    }

    /// The manifolds of the last frame collected with [`step_into`](World::step_into) or
    /// [`collect_into`](World::collect_into), at the same index as its contacts; empty unless
    /// the world runs with [`ContactDetail::Full`](crate::gpu::ContactDetail::Full). ([`step`](World::step) moves them into
    /// [`Frame::manifolds`](crate::gpu::Frame::manifolds).)
    pub fn manifolds(&self) -> &[Manifold] {
        &self.manifolds
    }

    /// With [`WorldOptions::events`](crate::gpu::WorldOptions::events), the pairs that began and ended touching from the frame
    /// collected before the last to the last (after the first frame, all its pairs began);
    /// `None` without events. Each list is sorted by (a, b). Computed on the GPU, or with
    /// [`ContactOrder::Host`](crate::gpu::ContactOrder::Host) on the host from the pairs read back.
    pub fn events(&self) -> Option<&ContactEvents> {
        self.contact_events.as_ref()
    }

    /// With [`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous), each pair of bodies that touched at some moment of
    /// the last frame collected (by any of [`step`](World::step), [`step_into`](World::step_into),
    /// [`step_view`](World::step_view) or [`collect_into`](World::collect_into)), with the first,
    /// sorted by (a, b): as [`Frame::impacts`](crate::gpu::Frame::impacts); `None` without.
    pub fn impacts(&self) -> Option<&[crate::Impact]> {
        self.sized.impacts.as_ref().map(|_| self.impacts.as_slice())
    }
}
