//! What a caller sets between frames: transforms, filters, the detail per pair, timestamps and the
//! timeout. Each is checked before anything reaches the GPU.

use crate::error::{Error, Result};
use crate::geometry::Filter;
use crate::gpu::host::pack::{self, Pose, PoseArrays, PoseScalar, PoseSource};
use crate::gpu::world::options::{ContactDetail, MAX_WORLDS};
use crate::gpu::world::{periodic, World};
use std::sync::atomic::Ordering;

impl World {
    /// Sets every body's position and rotation for the next frame: 16 bytes per body go to the
    /// GPU, rounded once to f32 (x, y, cos, sin). Checks every transform first: a bad one is an
    /// error naming the body (the first by index), and nothing is uploaded.
    ///
    /// Takes f64 [`Transform`](crate::Transform)s, f32 `[x, y, angle]`, or the GPU's own f32
    /// [`GpuTransform`](crate::gpu::GpuTransform) `(x, y, cos, sin)`, which are checked and
    /// copied (see [`Pose`]); on every core, straight into wgpu's staging memory. A body of
    /// several shapes places each of them (16 bytes per shape).
    pub fn set_transforms<P: Pose>(&mut self, transforms: &[P]) -> Result<()> {
        self.place(transforms)
    }

    /// As [`set_transforms`](World::set_transforms), from translations and angles in separate
    /// arrays (f64 or f32), read where they lie: NumPy's and entity-component stores' layout,
    /// with no array of transforms to build. Body `i` is at `poses.xy[i]`, turned by
    /// `poses.angle[i]` radians; the frame has the bits of the same values given as
    /// [`Transform`](crate::Transform)s. Either array of another length than the world's is
    /// [`Error::TransformCount`].
    pub fn set_pose_arrays<T: PoseScalar>(&mut self, poses: PoseArrays<'_, T>) -> Result<()> {
        if poses.angle.len() != self.len() {
            return Err(Error::TransformCount { got: poses.angle.len(), expected: self.len() });
        }
        self.place(&poses)
    }

    /// Every body placed by its pose from `poses`; with bodies of several shapes, each shape
    /// by its body's pose (checked body by body).
    fn place<S: PoseSource + ?Sized>(&mut self, poses: &S) -> Result<()> {
        let Some(mut map) = self.map.take() else { return self.upload_transforms(poses) };
        let placed = map.expand(poses).and_then(|expanded| self.upload_transforms(expanded));
        self.map = Some(map);
        placed
    }

    /// Every body's pose from `transforms`, checked, packed and written to the staging memory.
    fn upload_transforms<S: PoseSource + ?Sized>(&mut self, transforms: &S) -> Result<()> {
        self.gpu.check_lost()?;
        if transforms.len() != self.shape_count() {
            return Err(Error::TransformCount { got: transforms.len(), expected: self.shape_count() });
        }
        // Converted into the spare vector and, on the way, into wgpu's staging memory for the
        // transforms buffer, so that the upload costs no copy of its own. Kept on the host as
        // uploaded, so that rebuild_on carries them to another device.
        let Some(size) = std::num::NonZeroU64::new(16 * transforms.len() as u64) else { return Ok(()) };
        let (queue, spare) = (self.gpu.queue(), &mut self.spare_transforms);
        let mut staging =
            self.spans.time("staging_write", || queue.write_buffer_with(&self.bodies.transforms, 0, size));
        let periodic = self.options.periodic.as_ref();
        let converted = self.spans.time("transform_conversion", || {
            pack::transforms_into(transforms, periodic, spare, staging.as_mut().map(|s| s.slice(..)))
        });
        // In a periodic box, a turned body must fit at any angle.
        let (packed, poses, options) = (&self.packed, &self.spare_transforms, &self.options);
        let converted = converted.and_then(|()| periodic::check_turns(packed, poses, options, &mut self.turns_fit));
        // With continuous collision, its way through the frame must fit too.
        let converted = converted.and_then(|()| match self.uploaded {
            true => periodic::check_moves(packed, &packed.transforms, poses, options),
            false => Ok(()),
        });
        if let Err(e) = converted {
            // The staging memory is written to the buffer whatever happens: the last upload
            // again, so that a bad transform changes nothing.
            if let Some(staging) = staging.as_mut() {
                staging.slice(..).copy_from_slice(bytemuck::cast_slice(&self.packed.transforms));
            }
            return Err(e);
        }
        if let Some(starts) = self.bodies.starts.as_ref().filter(|_| !self.frame_poses.load(Ordering::Relaxed)) {
            // Continuous collision sweeps from the last frame's poses; before the first frame,
            // from the upload before (`packed`), or none (the poses the world was made with are
            // no one's).
            let from = if self.uploaded { &self.packed.transforms } else { &self.spare_transforms };
            let bytes = bytemuck::cast_slice(from);
            self.spans.time("staging_write", || queue.write_buffer(starts, 0, bytes));
        }
        std::mem::swap(&mut self.packed.transforms, &mut self.spare_transforms);
        self.uploaded = true;
        if staging.is_none() {
            // wgpu refused the staging memory (the device is lost, say): its own write reports it.
            let (bodies, bytes) = (&self.bodies, bytemuck::cast_slice(&self.packed.transforms));
            self.spans.time("staging_write", || queue.write_buffer(&bodies.transforms, 0, bytes));
        }
        Ok(())
    }

    /// Marks the instances that are shapes of one body: `owners[i]` is the first instance of
    /// instance `i`'s body plus one, or 0 for a body of one shape. The broad phase never pairs
    /// two shapes of one body (with the filters' kernels), and frames that order their pairs on
    /// the GPU or stay there keep only the deepest shape pair of each pair of bodies, on the GPU
    /// (see [`from_bodies`](World::from_bodies)). Kept by later
    /// [`set_filters`](World::set_filters) calls. A world whose GPU computes its events (named
    /// by instance) refuses it: one made of bodies computes them on the host.
    pub(crate) fn set_owners(&mut self, owners: Vec<u32>) -> Result<()> {
        if self.sized.events.is_some() {
            let detail = "not with the GPU's events, whose pairs name shapes, not bodies".to_string();
            return Err(Error::InvalidSetting { what: "events", detail });
        }
        self.owners = owners;
        let (gpu, control, bodies, sized) = (&self.gpu, &self.control, &self.bodies, &mut self.sized);
        gpu.scoped(|| sized.add_deepest(gpu, control, bodies))?;
        self.replan();
        let n = self.shape_count();
        let filters = if self.filters.is_empty() { vec![Filter::DEFAULT; n] } else { self.filters.clone() };
        self.set_instance_filters(&filters)
    }

    /// Sets every body's collision filter (see [`Filter`]) from the next frame on. Pairs that the
    /// filters exclude never become candidates. A world starts with [`Filter::DEFAULT`]
    /// everywhere, and while every filter is the default the broad phase does not read them. The
    /// filters survive [`set_polygons`](World::set_polygons) when the number of bodies stays.
    /// A body's filter applies to all its shapes.
    pub fn set_filters(&mut self, filters: &[Filter]) -> Result<()> {
        self.gpu.check_lost()?;
        match self.map.as_mut() {
            Some(map) => {
                let per_shape = map.set_filters(filters)?;
                self.set_instance_filters(&per_shape)
            }
            None => self.set_instance_filters(filters),
        }
    }

    /// Sets every instance's filter (with its owner, where bodies have several shapes).
    pub(super) fn set_instance_filters(&mut self, filters: &[Filter]) -> Result<()> {
        if filters.len() != self.shape_count() {
            return Err(Error::FilterCount { got: filters.len(), expected: self.shape_count() });
        }
        if filters.iter().all(|f| *f == Filter::DEFAULT) && self.owners.is_empty() {
            self.filters.clear();
        } else {
            self.filters = filters.to_vec();
            let owner = |i: usize| self.owners.get(i).copied().unwrap_or(0);
            let words: Vec<[u32; 4]> =
                filters.iter().enumerate().map(|(i, f)| [f.category, f.mask, f.group as u32, owner(i)]).collect();
            self.gpu.queue().write_buffer(&self.bodies.filters, 0, bytemuck::cast_slice(&words));
        }
        self.sized.broad.set_filtered(!self.filters.is_empty());
        Ok(())
    }

    /// The collision filters, one per body, empty while every body has the default.
    pub fn filters(&self) -> &[Filter] {
        self.map.as_ref().map_or(&self.filters, |m| m.body_filters())
    }

    /// Puts each body in a world (`worlds`: one index per body, below [`MAX_WORLDS`]) from the
    /// next frame on: pairs, neighbours within the margin, manifolds and events never cross
    /// worlds, and in a frame read back each world's are those it gives alone, its bodies
    /// numbered as here (frames left on the GPU keep the sweep's order, which other worlds
    /// change). Worlds may overlap in space: a sweep of 1,000 runs of 1,000 bodies each is one
    /// world of 1,000,000 bodies in 1,000 worlds, and each frame runs them all. Each world gets
    /// `MAX_WORLDS / W` strips of its own in the broad phase (W: the largest index plus one),
    /// laid over the box of all bodies, so bodies of different worlds are never compared. `&[]`, or every body in world 0, makes one world again. The worlds survive
    /// [`set_polygons`](World::set_polygons) while the number of bodies stays, growth and
    /// [`rebuild_on`](World::rebuild_on). Ray and shape casts and box and point queries look
    /// into the world each names ([`Ray::world`](crate::Ray::world)) and see its bodies alone.
    pub fn set_worlds(&mut self, worlds: &[u32]) -> Result<()> {
        self.gpu.check_lost()?;
        let bodies = self.len();
        let refuse = |detail: String| Err(Error::InvalidSetting { what: "worlds", detail });
        if !worlds.is_empty() && worlds.len() != bodies {
            return refuse(format!("{} world indices for {bodies} bodies", worlds.len()));
        }
        if let Some((body, w)) = worlds.iter().enumerate().find(|(_, &w)| w >= MAX_WORLDS) {
            return refuse(format!("body {body} is in world {w}; worlds are numbered from 0 to {}", MAX_WORLDS - 1));
        }
        let count = worlds.iter().max().map_or(1, |&w| w + 1);
        if count > 1 {
            let per_shape: Vec<u32> = match &self.map {
                Some(map) => (0..self.shape_count()).map(|i| worlds[map.body_of(i as u32) as usize]).collect(),
                None => worlds.to_vec(),
            };
            let room = self.bodies.worlds.size() / 4;
            if per_shape.len() as u64 > room {
                return refuse(format!(
                    "{} shapes in several worlds; one binding holds the worlds of {room}",
                    per_shape.len()
                ));
            }
            self.gpu.queue().write_buffer(&self.bodies.worlds, 0, bytemuck::cast_slice(&per_shape));
        }
        self.worlds = if count > 1 { worlds.to_vec() } else { vec![] };
        self.world_count = count;
        self.write_params(0);
        Ok(())
    }

    /// Each body's world (see [`set_worlds`](World::set_worlds)), empty while every body is in
    /// world 0.
    pub fn worlds(&self) -> &[u32] {
        &self.worlds
    }

    /// Refuses a ray, cast or query (the setting `what`, each named as `name` and its index)
    /// whose world is not one of this world's.
    pub(super) fn check_worlds(&self, worlds: impl Iterator<Item = u32>, what: &'static str, name: &str) -> Result<()> {
        if let Some((i, w)) = worlds.enumerate().find(|&(_, w)| w >= self.world_count) {
            let count = self.world_count;
            let detail = format!("{name} {i} looks into world {w}; this world has {count} (0 to {})", count - 1);
            return Err(Error::InvalidSetting { what, detail });
        }
        Ok(())
    }

    /// Sets what each colliding pair reports from the next frame on (see [`ContactDetail`]).
    /// [`ContactDetail::Full`](crate::gpu::ContactDetail::Full) adds a pass and a buffer of 32 bytes per candidate the first time.
    pub fn set_contact_detail(&mut self, detail: ContactDetail) -> Result<()> {
        self.options.contact_detail = detail;
        if self.full() && self.sized.manifold.is_none() {
            let (gpu, params, bodies, sized) = (&self.gpu, &self.params, &self.bodies, &mut self.sized);
            gpu.scoped(|| sized.add_manifolds(gpu, params, bodies))?;
        }
        self.replan();
        Ok(())
    }

    /// Turns per-pass GPU timestamps on or off from the next frame (see
    /// [`WorldOptions::timestamps`](crate::gpu::WorldOptions::timestamps)).
    pub fn set_timestamps(&mut self, on: bool) {
        self.options.timestamps = on;
        self.replan();
    }

    /// Makes every later wait of this world time out after `timeout`.
    pub fn set_timeout(&mut self, timeout: std::time::Duration) {
        self.gpu = self.gpu.with_timeout(timeout);
    }
}
