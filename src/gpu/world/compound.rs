//! Worlds of compound bodies: every part a body of an inner [`World`], placed by its body's
//! transform; pairs between parts of one body never become candidates (the filtered broad
//! phase drops them), and each pair of bodies keeps its deepest part pair: on the GPU before the
//! compaction (`stages/deepest.rs`) where the world orders its pairs on the GPU, otherwise on the
//! host. The host maps the parts back to bodies and orders the pairs.

use crate::error::{Error, Result};
use crate::geometry::{
    Body, BoxQuery, ContactEvents, Filter, PointQuery, Polygon, PolygonError, Ray, RayHit, Transform,
};
use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::HostSpan;
use crate::gpu::host::events::HostEvents;
use crate::gpu::host::pack::{Pose, PoseArrays, PoseScalar, PoseSource};
use crate::gpu::world::bodies::BodyMap;
use crate::gpu::world::options::{ContactDetail, Frame, WorldOptions};
use crate::gpu::world::World;

/// A persistent world of compound bodies ([`Body`](crate::Body)): shapes of several convex parts
/// uploaded once, bodies placed by transforms every frame, pairs reported between bodies.
///
/// Each part is a body of an inner [`World`], given its body's transform; parts of one body
/// never become candidates (the broad phase's filter kernels drop them), and each pair of bodies
/// keeps its deepest part pair: on the GPU where the world orders its pairs there
/// ([`ContactOrder`](crate::gpu::ContactOrder): by default on GPUs, not on CPU adapters, where
/// the hash table's atomics cost more than the host's pass over the ordered pairs), otherwise on
/// the host, with the same result. Both run only when some body has several parts; with one
/// part per body the frame is the plain world's. With
/// [`WorldOptions::events`], the host computes the events from the pairs of bodies.
pub struct CompoundWorld {
    inner: World,
    /// Which body each part belongs to, and back.
    map: BodyMap,
    /// With events: the last frame's pairs of bodies, and the events up to it.
    events: Option<(HostEvents, ContactEvents)>,
}

impl CompoundWorld {
    /// Uploads `shapes` (compounds in their own frames) and makes one body per entry of
    /// `body_shapes` (the shape of each body), every body at the origin until
    /// [`set_transforms`](CompoundWorld::set_transforms). A body naming a shape that does not
    /// exist is [`Error::UnknownShape`].
    pub fn new(gpu: &Gpu, shapes: &[Body], body_shapes: &[u32], options: &WorldOptions) -> Result<CompoundWorld> {
        let mut start = Vec::with_capacity(shapes.len() + 1);
        start.push(0);
        for s in shapes {
            start.push(start[start.len() - 1] + s.shapes().len());
        }
        let parts: Vec<Polygon> = shapes.iter().flat_map(|s| s.shapes().iter().cloned()).collect();
        let mut part_shapes = vec![];
        for (body, &shape) in body_shapes.iter().enumerate() {
            let s = shape as usize;
            if s >= shapes.len() {
                return Err(Error::UnknownShape { body, shape: s, shapes: shapes.len() });
            }
            part_shapes.extend((start[s]..start[s + 1]).map(|p| p as u32));
        }
        let map = BodyMap::new(body_shapes.iter().map(|&s| shapes[s as usize].shapes().len()))?;
        // The inner world's pairs name parts: the events are the host's, on pairs of bodies.
        let mut inner = World::new(gpu, &parts, &part_shapes, &options.clone().with_events(false))?;
        // Parts of one body never become candidates: the broad phase drops them with the
        // filters' kernels, which a world without compound bodies does not run.
        if let Some(owners) = map.owners() {
            inner.set_owners(owners)?;
        }
        let events = options.events.then(Default::default);
        Ok(CompoundWorld { inner, map, events })
    }

    /// A world of `bodies` placed as given. Each body is stored relative to its first vertex
    /// (rounded to f32) and placed there by its transform, as [`World::from_polygons`] does, so that the GPU's
    /// f32 rounding scales with the body's size, not its distance from the origin.
    /// A body of no shapes (possible only for a `B` other than [`Body`]) is
    /// [`Error::InvalidPolygon`] with [`PolygonError::NoParts`](crate::PolygonError::NoParts).
    pub fn from_compounds<B: AsRef<[Polygon]>>(
        gpu: &Gpu,
        bodies: &[B],
        options: &WorldOptions,
    ) -> Result<CompoundWorld> {
        let mut local = Vec::with_capacity(bodies.len());
        let mut anchors = Vec::with_capacity(bodies.len());
        for (i, body) in bodies.iter().enumerate() {
            let shapes = body.as_ref();
            let first = shapes.first().ok_or(PolygonError::NoParts.at(i))?;
            // Rounded to f32, so that the translation uploads exactly.
            let anchor = first.vertices()[0].map(|c| c as f32);
            local.push(Body::new(shapes.iter().map(|p| p.to_frame(anchor)).collect()).map_err(|e| e.at(i))?);
            anchors.push(anchor);
        }
        let anchors: Vec<Transform> =
            anchors.iter().map(|a| Transform { x: f64::from(a[0]), y: f64::from(a[1]), angle: 0.0 }).collect();
        let body_shapes: Vec<u32> = (0..bodies.len() as u32).collect();
        let mut world = CompoundWorld::new(gpu, &local, &body_shapes, options)?;
        if !bodies.is_empty() {
            world.set_transforms(&anchors)?;
        }
        Ok(world)
    }

    /// The number of bodies.
    pub fn len(&self) -> usize {
        self.map.bodies()
    }

    /// Whether the world has no bodies.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// With [`WorldOptions::events`], the pairs of bodies that began and ended touching from the
    /// frame before the last step to the last, computed on the host (see [`World::events`]);
    /// `None` without events.
    pub fn events(&self) -> Option<&ContactEvents> {
        self.events.as_ref().map(|(_, events)| events)
    }

    /// The number of parts of all bodies.
    pub fn parts(&self) -> usize {
        self.map.instances()
    }

    /// The inner world of parts (its bodies are the parts, body by body).
    pub fn inner(&self) -> &World {
        &self.inner
    }

    /// The inner world, for the test hooks.
    pub(crate) fn inner_mut(&mut self) -> &mut World {
        &mut self.inner
    }

    /// Places every body for the next frame, each part by its body's transform, as
    /// [`World::set_transforms`] does: a bad transform is an error naming the body, and nothing
    /// is uploaded.
    pub fn set_transforms<P: Pose>(&mut self, transforms: &[P]) -> Result<()> {
        self.place(transforms)
    }

    /// As [`set_transforms`](CompoundWorld::set_transforms), from translations and angles in
    /// separate arrays (see [`World::set_pose_arrays`]).
    pub fn set_pose_arrays<T: PoseScalar>(&mut self, poses: PoseArrays<'_, T>) -> Result<()> {
        if poses.angle.len() != self.len() {
            return Err(Error::TransformCount { got: poses.angle.len(), expected: self.len() });
        }
        self.place(&poses)
    }

    /// Every part placed by its body's pose from `poses`, checked body by body.
    fn place<S: PoseSource + ?Sized>(&mut self, poses: &S) -> Result<()> {
        let expanded = self.map.expand(poses)?;
        self.inner.set_transforms(expanded)
    }

    /// Makes room for `entries` strip entries and `candidates` candidate pairs of parts (see
    /// [`World::reserve`]).
    pub fn reserve(&mut self, entries: u64, candidates: u64) -> Result<()> {
        self.inner.reserve(entries, candidates)
    }

    /// Every later wait on the GPU times out after `timeout` (see [`World::set_timeout`]).
    pub fn set_timeout(&mut self, timeout: std::time::Duration) {
        self.inner.set_timeout(timeout);
    }

    /// Sets every body's collision filter (one per body; it applies to all its parts).
    pub fn set_filters(&mut self, filters: &[Filter]) -> Result<()> {
        let per_part = self.map.filters(filters)?;
        self.inner.set_filters(&per_part)
    }

    /// Whether frames compute manifolds (see [`World::set_contact_detail`]).
    pub fn set_contact_detail(&mut self, detail: ContactDetail) -> Result<()> {
        self.inner.set_contact_detail(detail)
    }

    /// The nearest body each ray meets ([`World::cast_rays`] over the parts, each hit named by
    /// its body; of parts hit at the same distance the first, so of bodies the lowest).
    pub fn cast_rays(&mut self, rays: &[Ray]) -> Result<Vec<Option<RayHit>>> {
        let mut hits = self.inner.cast_rays(rays)?;
        for hit in hits.iter_mut().flatten() {
            hit.body = self.map.body_of(hit.body);
        }
        Ok(hits)
    }

    /// For each box, the bodies that share a point with it, sorted ([`World::query_boxes`] over
    /// the parts, each body once).
    pub fn query_boxes(&mut self, queries: &[BoxQuery]) -> Result<Vec<Vec<u32>>> {
        let found = self.inner.query_boxes(queries)?;
        Ok(self.map.bodies_of(found))
    }

    /// For each point, the bodies that contain it, sorted ([`World::query_points`] over the
    /// parts, each body once).
    pub fn query_points(&mut self, queries: &[PointQuery]) -> Result<Vec<Vec<u32>>> {
        let found = self.inner.query_points(queries)?;
        Ok(self.map.bodies_of(found))
    }

    /// Runs a frame: the colliding pairs of bodies, sorted by (a, b).
    pub fn step(&mut self) -> Result<Frame> {
        let frame = self.inner.step()?;
        let start = std::time::Instant::now();
        let mut out = self.map.frame(frame);
        if let Some((host, events)) = self.events.as_mut() {
            *events = host.next(out.contacts.iter().map(|c| [c.a, c.b]));
        }
        let start_ms = out.stats.host.last().map_or(0.0, |s| s.start_ms + s.ms);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        out.stats.host.push(HostSpan { name: "bodies", start_ms, ms });
        Ok(out)
    }
}
