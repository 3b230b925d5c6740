//! A world that changes size: new polygons, more room for entries and candidates, another device.
//! Each checks memory before anything is replaced, so a refusal leaves the world as it was.

use std::borrow::Borrow;

use crate::error::Result;
use crate::geometry::Polygon;
use crate::gpu::device::context::Gpu;
use crate::gpu::stages::transform::TransformStage;
use crate::gpu::world::broad::Broad;
use crate::gpu::world::build::add_stages;
use crate::gpu::world::fits::{check_memory, entry_paging};
use crate::gpu::world::options::WorldOptions;
use crate::gpu::world::periodic;
use crate::gpu::world::sized::CapacityStages;
use crate::gpu::world::World;
use crate::memory::grouped;

/// What a run over the bodies does next, after [`World::fit`] read its totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// Its buffers held everything: the results are whole.
    Fits,
    /// The buffers grew (or the sweep's windows did): run again.
    Rerun,
    /// The candidates outgrow one binding (at the largest capacity): run in batches, or refuse.
    Batches,
}

impl World {
    /// Replaces every polygon of a world made by [`from_polygons`](World::from_polygons), for a
    /// one-shot scene that changes every frame (in a world of bodies of several shapes, every
    /// body by one polygon each, with a rebuild). When the number of polygons and each one's vertex
    /// count are unchanged, only the vertex data (16 bytes per vertex and 48 per polygon) is
    /// uploaded into the existing buffers; otherwise the world is rebuilt, keeping its capacities.
    /// A rebuild that would not fit in memory is [`Error::NotEnoughMemory`](crate::Error::NotEnoughMemory), and the world keeps
    /// its old polygons.
    ///
    /// In a periodic box each polygon is moved by whole boxes so that its first vertex lies in the
    /// box, and one too wide for the box is refused as [`World::from_polygons`] refuses it, the
    /// world keeping its old polygons.
    pub fn set_polygons(&mut self, polygons: &[Polygon]) -> Result<()> {
        self.gpu.check_lost()?;
        match periodic::wrapped(polygons, self.options.periodic.as_ref()) {
            Some(wrapped) => self.replace_polygons(&wrapped),
            None => self.replace_polygons(polygons),
        }
    }

    fn replace_polygons<P: Borrow<Polygon> + Sync>(&mut self, polygons: &[P]) -> Result<()> {
        let mut packed = std::mem::take(&mut self.spare);
        let (queue, bodies, like, plain) = (self.gpu.queue(), &self.bodies, &self.packed, self.map.is_none());
        // Where every record keeps its place, the records go to the staging memory as they are
        // packed (Some: the staging memory, where wgpu gave it).
        let streamed = self.spans.time("pack", || {
            if !(plain && like.fits_layout(polygons)) {
                return packed.repack(polygons).map(|()| None);
            }
            // Refused memory is refused before the buffers' staging memory is asked for.
            packed.make_room(like)?;
            let mut views = bodies.staging_views(queue, like.shape_data.len());
            packed.restream(polygons, like, views.as_mut().map(|views| views.staging()));
            Ok(Some(views))
        })?;
        if let Some(views) = streamed {
            // The staging memory handed to wgpu, or (refused) every buffer written from the host.
            self.spans.time("staging_write", || match views {
                Some(views) => drop(views),
                None => bodies.write(queue, &packed),
            });
            if let Err(e) = periodic::check_extents(&packed, &self.options) {
                // Too wide for the periodic box: the old polygons again, on the GPU too.
                bodies.write(queue, like);
                self.spare = packed;
                return Err(e);
            }
            self.rounded = packed.rounded || self.margin > 0.0;
            self.large = packed.large;
            self.spare = std::mem::replace(&mut self.packed, packed);
            self.turns_fit = false;
            return Ok(());
        }
        let c = self.sized.capacity;
        let options = WorldOptions {
            candidate_capacity: Some(c.candidates),
            entry_capacity: Some(c.entries),
            strip_height: None,
            ..self.options.clone()
        };
        packed.measure_height(polygons);
        let generation = self.generation + 1;
        check_memory(&self.gpu, packed.bodies.len(), packed.shape_data.len(), &options)?;
        let world = World::build(&self.gpu, packed, &options, None)?;
        // A refused rebuild above leaves this world, its filters and its spans as they were.
        let (filters, spans) = (self.filters().to_vec(), std::mem::take(&mut self.spans));
        let worlds = self.worlds.clone();
        let old = std::mem::replace(self, world);
        (self.generation, self.spans) = (generation, spans);
        // The next frame's events compare against the old polygons' last pairs.
        self.carry_events(&old.sized)?;
        self.parity = old.parity;
        self.contact_events = old.contact_events;
        self.host_events = old.host_events;
        if self.host_events.is_some() && self.sized.events.is_some() {
            // The events had moved to the host (a frame in batches): they stay there.
            self.sized.events = None;
            self.replan();
        }
        if filters.len() == self.len() {
            self.set_filters(&filters)?;
        }
        if worlds.len() == self.len() {
            self.set_worlds(&worlds)?;
        }
        Ok(())
    }

    /// Copies the previous frame's pairs of the events stage of `old` into this world's, whose
    /// buffers are at least as large.
    fn carry_events(&self, old: &CapacityStages) -> crate::error::Result<()> {
        let (Some(from), Some(to)) = (&old.events, &self.sized.events) else { return Ok(()) };
        self.gpu.scoped(|| {
            let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
            to.carry(&mut encoder, from);
            self.gpu.queue().submit([encoder.finish()]);
        })
    }

    /// Makes room for at least `entries` strip entries and `candidates` candidate pairs (and as
    /// many contacts), so that no frame up to that size pays for a rerun.
    pub fn reserve(&mut self, entries: u64, candidates: u64) -> Result<()> {
        self.gpu.check_lost()?;
        let c = self.sized.capacity;
        let strips = matches!(self.sized.broad, Broad::Strips { .. });
        let capacity = c.grown(entries, candidates, strips)?;
        if (capacity.entries, capacity.candidates) == (c.entries, c.candidates) {
            return Ok(());
        }
        // The new buffers are made while the old ones still exist: refused before either changes.
        let (e, k) = (u64::from(capacity.entries), u64::from(capacity.candidates));
        let device = crate::memory::capacity_bytes(e, k, self.options.continuous);
        let what = || format!("{} candidate pairs and {} strip entries", grouped(k), grouped(e));
        self.gpu.check_memory(what, crate::memory::MemoryEstimate { host: 0, device })?;
        // Entries past a page boundary need the kernels of more pages, and so does the transform.
        let (paging, _) = entry_paging(&self.gpu, self.gpu.kernels().paging, u64::from(capacity.entries), strips);
        let gpu = self.gpu.paged(paging)?;
        let transform = gpu.scoped(|| TransformStage::new(&gpu, &self.params, &self.bodies, self.fold))?;
        let sized = gpu.scoped(|| {
            let wiring = self.wiring();
            let mut sized = CapacityStages::new(&gpu, &wiring, strips, capacity);
            add_stages(&gpu, &self.options, &wiring, &mut sized, self.host_events.is_some());
            if !self.owners.is_empty() {
                sized.add_deepest(&gpu, wiring.control, wiring.bodies);
            }
            sized
        })?;
        (self.gpu, self.transform) = (gpu, transform);
        let old = std::mem::replace(&mut self.sized, sized);
        self.carry_events(&old)?;
        self.sized.broad.set_filtered(!self.filters.is_empty());
        self.replan();
        self.generation += 1;
        self.write_params(0);
        Ok(())
    }

    /// The one growth rule of every run over the bodies where they stand (a frame, the casts, the
    /// neighbours' gather, a simulation's window), from the totals it read back: `entries` strip
    /// entries and `candidates` candidate pairs needed, `need` the sweep's windows word. Grows
    /// the buffers and says [`Fit::Rerun`] where they were too small (or, on a software adapter,
    /// a sweep walk longer than the windows run); [`Fit::Batches`] where the candidates outgrow
    /// what one binding holds; [`Fit::Fits`] otherwise. Counts from a truncated run are lower
    /// bounds: the rerun grows again if it must.
    pub(crate) fn fit(&mut self, entries: u64, candidates: u64, need: u32) -> Result<Fit> {
        let c = self.sized.capacity;
        let room = u64::from(c.candidates);
        if entries > u64::from(c.entries) || (candidates > room && room < c.max_candidates) {
            log::info!(
                "{entries} entries / {candidates} candidates exceed the capacity {} / {}; growing and rerunning",
                c.entries,
                c.candidates
            );
            self.reserve(entries, candidates)?;
            return Ok(Fit::Rerun);
        }
        if self.ensure_windows(need)? {
            return Ok(Fit::Rerun);
        }
        Ok(if candidates > room { Fit::Batches } else { Fit::Fits })
    }

    /// Makes room for at least `candidates` candidate pairs (and as many contacts).
    pub fn reserve_candidates(&mut self, candidates: u64) -> Result<()> {
        self.reserve(0, candidates)
    }

    /// This world on another device, for a program that carries on after
    /// [`Error::DeviceLost`](crate::Error::DeviceLost): the same shapes, bodies, filters, options, capacities and last
    /// transforms (as they were uploaded), from the copies the world keeps on the host. Its
    /// frames give the same pairs as this world's would have.
    ///
    /// ```no_run
    /// # use satgpu::gpu::{Gpu, GpuOptions, World};
    /// # fn frame(world: &mut World) -> satgpu::Result<()> { world.step().map(|_| ()) }
    /// # fn main() -> satgpu::Result<()> {
    /// # let (shapes, body_shapes): (Vec<satgpu::Polygon>, Vec<u32>) = (vec![], vec![]);
    /// let mut world = World::new(&Gpu::new(&GpuOptions::default())?, &shapes, &body_shapes, &Default::default())?;
    /// loop {
    ///     match frame(&mut world) {
    ///         Err(satgpu::Error::DeviceLost(why)) => {
    ///             eprintln!("GPU lost ({why}); carrying on with a new device");
    ///             world = world.rebuild_on(&Gpu::new(&GpuOptions::default())?)?;
    ///         }
    ///         other => other?,
    ///     }
    /// #   break;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn rebuild_on(&self, gpu: &Gpu) -> Result<World> {
        let c = self.sized.capacity;
        let options = WorldOptions {
            candidate_capacity: Some(c.candidates),
            entry_capacity: Some(c.entries),
            ..self.options.clone()
        };
        check_memory(gpu, self.shape_count(), self.packed.shape_data.len(), &options)?;
        let mut world = World::build(gpu, self.packed.clone(), &options, self.map.clone())?;
        (world.strip_height, world.generation) = (self.strip_height, self.generation);
        world.write_params(0);
        if !self.filters().is_empty() {
            world.set_filters(self.filters())?;
        }
        world.set_worlds(&self.worlds)?;
        Ok(world)
    }
}
