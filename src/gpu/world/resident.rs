//! Frames left on the GPU: recorded into a caller's encoder or submitted without a wait, and the
//! buffers a caller's own passes bind.

use crate::error::Result;
use crate::gpu::device::adapter::loops_cut;
use crate::gpu::world::World;

impl World {
    /// Records every pass of a frame into `encoder`, then copies the three totals (strip
    /// entries, candidates, colliding) into [`totals_buffer`](World::totals_buffer). After
    /// submission the contacts are in [`contacts_buffer`](World::contacts_buffer), in sweep order
    /// (sorted by (a, b) with [`ContactOrder::Gpu`](crate::gpu::ContactOrder::Gpu)), complete only if the entry and candidate totals are within
    /// [`entry_capacity`](World::entry_capacity) and [`candidate_capacity`](World::candidate_capacity).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        // Auto leaves a resident frame's pairs in sweep order: no caller of its own passes needs
        // them sorted, and the sort would be most of a GPU frame. A world of bodies of several shapes (the
        // simulation's walls) keeps each pair of bodies' deepest part pair on the GPU, where
        // the caller's passes read it.
        self.record(encoder, &self.plans.resident);
        self.keep_poses(Some(encoder));
    }

    /// As [`encode`](World::encode), with the pairs sorted by (a, b) and, with
    /// [`WorldOptions::events`](crate::gpu::WorldOptions::events), their contact events against
    /// the pairs of the previous frame with events (this call's or a collected frame's), in
    /// [`events_buffer`](World::events_buffer) and
    /// [`events_totals_buffer`](World::events_totals_buffer); the next such frame compares
    /// against these pairs. A simulation that detects several times per frame calls this for
    /// its last detection and [`encode`](World::encode) for the others.
    pub fn encode_with_events(&self, encoder: &mut wgpu::CommandEncoder) {
        self.record(encoder, &self.plans.resident_events);
        self.keep_poses(Some(encoder));
        if self.sized.events.is_some() {
            self.turn_parity();
        }
    }

    /// Records a copy of the events' previous pairs aside, or with `back` the copy back, so that
    /// frames run again (a simulation's window after growth) compare against the same pairs.
    pub(crate) fn save_events(&mut self, encoder: &mut wgpu::CommandEncoder, back: bool) {
        let Some(stage) = &self.sized.events else { return };
        if back {
            self.parity.store(self.saved_parity, std::sync::atomic::Ordering::Relaxed);
        } else {
            self.saved_parity = self.parity();
        }
        stage.save(encoder, self.saved_parity, back);
    }

    /// With [`WorldOptions::events`](crate::gpu::WorldOptions::events), the events of the last
    /// frame as `vec2<u32>` pairs `(a, b)` (STORAGE | COPY_SRC): the pairs that began, sorted by
    /// (a, b), then those that ended, sorted. Valid for the first `began + ended` records (see
    /// [`events_totals_buffer`](World::events_totals_buffer)); `None` without events, or where
    /// the host computes them (see [`WorldOptions::events`](crate::gpu::WorldOptions::events)).
    /// Replaced when the [`generation`](World::generation) changes.
    pub fn events_buffer(&self) -> Option<&wgpu::Buffer> {
        self.sized.events.as_ref().map(|e| &e.events)
    }

    /// With [`WorldOptions::events`](crate::gpu::WorldOptions::events), eight u32 after a frame's
    /// events (STORAGE | COPY_SRC | INDIRECT): `[began, ended, began + ended, 0]`, then at byte 16
    /// the indirect arguments `(x, y, z)` of a pass over the events with `@workgroup_size(64)`,
    /// folded as in [`totals_buffer`](World::totals_buffer). `None` without events. Replaced
    /// when the [`generation`](World::generation) changes.
    pub fn events_totals_buffer(&self) -> Option<&wgpu::Buffer> {
        self.sized.events.as_ref().map(|e| &e.totals)
    }

    /// Whether a frame whose totals said `need` (`totals[3]`, see
    /// [`totals_buffer`](World::totals_buffer)) must run again: on Mesa's software adapters, a
    /// sweep walk longer than the windows the frame ran, and then the next frames run as many.
    /// [`Error::UnsuitableAdapter`](crate::Error::UnsuitableAdapter) where a loop was cut short.
    pub fn ensure_windows(&mut self, need: u32) -> Result<bool> {
        if need == u32::MAX {
            return Err(loops_cut(self.gpu.adapter_info(), "in the sweep"));
        }
        if need <= self.sized.broad.windows() + 1 {
            return Ok(false);
        }
        log::info!("a sweep walk needs {need} windows; rerunning");
        self.sized.broad.set_windows(self.gpu.device(), need - 1);
        Ok(true)
    }

    /// Runs a frame and leaves the results on the GPU (see [`encode`](World::encode)); returns the
    /// submission so a caller can order its own work after it. Nothing is waited for.
    pub fn dispatch(&mut self) -> Result<wgpu::SubmissionIndex> {
        // No frame of this kind is collected: its host spans are reported nowhere.
        self.spans.clear();
        self.gpu.scoped(|| {
            let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
            self.encode(&mut encoder);
            self.gpu.queue().submit([encoder.finish()])
        })
    }

    /// Eight u32 after a frame (STORAGE | COPY_SRC | INDIRECT): `[entries, candidates,
    /// colliding, need]`, then at byte 16 the indirect arguments `(x, y, z)` of a pass over the
    /// colliding pairs with `@workgroup_size(64)`: `dispatch_workgroups_indirect(totals, 16)`.
    /// Large counts fold into y, so the pair index is `gid.x + gid.y * nwg.x * 64`, and pairs
    /// at or past `totals[2]` must be skipped. `need` (`TOTAL_NEED`) is, on Mesa's software
    /// adapters, the sweep windows the longest walk needed (`u32::MAX`: a loop was cut short);
    /// the frame is complete if [`World::ensure_windows`] says no rerun is needed. Lives as long
    /// as the world.
    pub fn totals_buffer(&self) -> &wgpu::Buffer {
        &self.readback.totals
    }

    /// The contacts of the last frame as [`GpuContact`](crate::gpu::GpuContact) records (STORAGE | COPY_SRC): in sweep
    /// order, or sorted by (a, b) after a frame read back with the ordering on the GPU and after
    /// every frame with [`ContactOrder::Gpu`](crate::gpu::ContactOrder::Gpu). Valid for the first `totals[2]` records. Replaced when the
    /// [`generation`](World::generation) changes.
    pub fn contacts_buffer(&self) -> &wgpu::Buffer {
        &self.sized.pairs.contacts
    }

    /// With [`ContactDetail::Full`](crate::gpu::ContactDetail::Full), the manifolds of the last frame as [`GpuManifold`](crate::gpu::GpuManifold) records
    /// (STORAGE | COPY_SRC), at the same index as their contacts in
    /// [`contacts_buffer`](World::contacts_buffer); `None` before the detail is first asked for.
    /// Replaced when the [`generation`](World::generation) changes.
    pub fn manifolds_buffer(&self) -> Option<&wgpu::Buffer> {
        self.sized.manifold.as_ref().map(|m| &m.manifolds)
    }

    /// The broad phase's candidate pairs `(a, b)` as `vec2<u32>` (STORAGE | COPY_SRC). Valid for
    /// the first `totals[1]` entries when within capacity. Replaced when the
    /// [`generation`](World::generation) changes.
    pub fn candidates_buffer(&self) -> &wgpu::Buffer {
        &self.sized.pairs.candidates
    }

    /// Per body `(x, y, cos, sin)` as `vec4<f32>` (STORAGE | COPY_DST | COPY_SRC), read by the next frame.
    /// A caller's own pass may write it on the GPU instead of calling
    /// [`set_transforms`](World::set_transforms); it must keep |x|, |y| <= 1e37. Lives as long as
    /// the world.
    pub fn transforms_buffer(&self) -> &wgpu::Buffer {
        &self.bodies.transforms
    }

    /// The control buffer (test hooks read the strip grid from it).
    pub(crate) fn control_buffer(&self) -> &wgpu::Buffer {
        &self.control
    }

    /// World-space AABBs per body as `vec4<f32>` (min.x, min.y, max.x, max.y) (STORAGE |
    /// COPY_SRC). Lives as long as the world.
    pub fn aabbs_buffer(&self) -> &wgpu::Buffer {
        &self.bodies.aabbs
    }
}
