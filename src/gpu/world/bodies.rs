//! Bodies of several shapes: each shape of a body is one instance on the GPU (a body of the
//! frame's arrays), numbered body by body and placed by its body's pose. This map takes the
//! caller's bodies to instances (poses, filters, the broad phase's owners) and the GPU's answers
//! about instances back to bodies (pairs, each pair of bodies' deepest; query hits; ray hits).
//! A world whose bodies all have one shape has no map and runs exactly the plain frame.

use std::borrow::Borrow;

use crate::error::{Error, Result};
use crate::geometry::{Filter, Manifold, Polygon, PolygonError, Transform};
use crate::gpu::device::context::Gpu;
use crate::gpu::host::order::Record;
use crate::gpu::host::pack::{Packed, PoseSource};
use crate::gpu::kernels::layout::GpuTransform;
use crate::gpu::world::fits::check_memory;
use crate::gpu::world::options::WorldOptions;
use crate::gpu::world::World;

impl World {
    /// A world of `bodies` ([`Body`](crate::Body)s, or [`Polygon`]s: bodies of one shape)
    /// placed as given. Each body is stored relative to its first vertex (rounded to f32) and
    /// placed there by its transform, so that the GPU's f32 rounding scales with the body's
    /// size, not its distance from the origin; a pair is a pair of bodies, with its deepest
    /// shape pair's contact ([`Frame::shapes`](crate::gpu::Frame::shapes)). A body of no shapes
    /// (possible only for a `B` other than [`Body`](crate::Body)) is
    /// [`Error::InvalidPolygon`] with [`PolygonError::NoParts`].
    pub fn from_bodies<B: AsRef<[Polygon]>>(gpu: &Gpu, bodies: &[B], options: &WorldOptions) -> Result<World> {
        let mut firsts = Vec::with_capacity(bodies.len());
        for (i, body) in bodies.iter().enumerate() {
            firsts.push(body.as_ref().first().ok_or(PolygonError::NoParts.at(i))?);
        }
        if bodies.iter().all(|b| b.as_ref().len() == 1) {
            return World::from_borrowed(gpu, &firsts, options);
        }
        let mut local = Vec::with_capacity(bodies.len());
        let mut anchors = Vec::with_capacity(bodies.len());
        for (body, first) in bodies.iter().zip(&firsts) {
            // Rounded to f32, so that the translation uploads exactly.
            let anchor = first.vertices()[0].map(|c| c as f32);
            // Already valid bodies: a chain may hold more shapes than `Body::new` takes.
            let shapes: Vec<Polygon> = body.as_ref().iter().map(|p| p.to_frame(anchor)).collect();
            local.push(shapes);
            anchors.push(Transform { x: f64::from(anchor[0]), y: f64::from(anchor[1]), angle: 0.0 });
        }
        let body_shapes: Vec<u32> = (0..bodies.len() as u32).collect();
        let mut world = World::new(gpu, &local, &body_shapes, options)?;
        world.set_transforms(&anchors)?;
        // (No caller's poses: continuous collision does not sweep from them.)
        world.uploaded = false;
        Ok(world)
    }

    /// Uploads `shapes` (in local coordinates, best centred near their own origin) and creates
    /// one body per entry of `body_shapes`, which names each body's shape. Every body starts at
    /// the identity transform. A shape is a [`Polygon`] or a [`Body`](crate::Body) of several
    /// shapes (its pairs are then pairs of bodies, as [`from_bodies`](World::from_bodies) says).
    /// A body naming a shape that does not exist is [`Error::UnknownShape`](crate::Error::UnknownShape).
    ///
    /// A world that would not fit in memory is [`Error::NotEnoughMemory`](crate::Error::NotEnoughMemory), before anything is
    /// allocated (see [`memory`](crate::memory)).
    ///
    /// Bodies of several shapes are one instance per shape on the GPU, with the map between
    /// them (`world/bodies.rs`).
    pub fn new<S: AsRef<[Polygon]>>(
        gpu: &Gpu,
        shapes: &[S],
        body_shapes: &[u32],
        options: &WorldOptions,
    ) -> Result<World> {
        for (i, shape) in shapes.iter().enumerate() {
            if shape.as_ref().is_empty() {
                return Err(PolygonError::NoParts.at(i));
            }
        }
        if shapes.iter().all(|s| s.as_ref().len() == 1) {
            let polygons: Vec<&Polygon> = shapes.iter().map(|s| &s.as_ref()[0]).collect();
            return World::packed(gpu, &polygons, body_shapes, options, None);
        }
        let mut start = Vec::with_capacity(shapes.len() + 1);
        start.push(0);
        for s in shapes {
            start.push(start[start.len() - 1] + s.as_ref().len());
        }
        let parts: Vec<&Polygon> = shapes.iter().flat_map(|s| s.as_ref()).collect();
        let mut part_shapes = vec![];
        for (body, &shape) in body_shapes.iter().enumerate() {
            let s = shape as usize;
            if s >= shapes.len() {
                return Err(Error::UnknownShape { body, shape: s, shapes: shapes.len() });
            }
            part_shapes.extend((start[s]..start[s + 1]).map(|p| p as u32));
        }
        let map = BodyMap::new(body_shapes.iter().map(|&s| shapes[s as usize].as_ref().len()))?;
        let map = (map.instances() > map.bodies()).then_some(map);
        World::packed(gpu, &parts, &part_shapes, options, map)
    }

    /// The world of `shapes` placed as `body_shapes` says, after its memory is checked.
    fn packed<P: Borrow<Polygon>>(
        gpu: &Gpu,
        shapes: &[P],
        body_shapes: &[u32],
        options: &WorldOptions,
        map: Option<BodyMap>,
    ) -> Result<World> {
        let vertices = shapes.iter().map(|p| p.borrow().vertices().len()).sum();
        check_memory(gpu, body_shapes.len(), vertices, options)?;
        World::build(gpu, Packed::from_shapes(shapes, body_shapes)?, options, map)
    }

    /// The number of shapes of all bodies: the instances the GPU's arrays hold (equal to
    /// [`len`](World::len) when every body has one shape).
    pub fn shape_count(&self) -> usize {
        self.packed.bodies.len()
    }
}

/// Which body each instance belongs to, and back.
#[derive(Debug, Clone, Default)]
pub(crate) struct BodyMap {
    /// The body of each instance, and the instance's index within its body (instances numbered
    /// body by body, so that instances `p < q` of different bodies have `owner[p] < owner[q]`).
    owner: Vec<(u32, u32)>,
    /// Each body's first instance, and one more entry: the number of instances.
    first: Vec<usize>,
    /// Per instance: its body's pose (reused between frames).
    expanded: Vec<GpuTransform>,
    /// Each body's filter as last set, empty while every body has the default.
    filters: Vec<Filter>,
}

impl BodyMap {
    /// Bodies of `shapes` shapes each, in order. More instances than u32 numbers is
    /// [`Error::TooLarge`].
    pub fn new(shapes: impl ExactSizeIterator<Item = usize>) -> Result<BodyMap> {
        let first = Vec::with_capacity(shapes.len() + 1);
        let mut map = BodyMap { owner: vec![], first, expanded: vec![], filters: vec![] };
        for (body, count) in shapes.enumerate() {
            map.first.push(map.owner.len());
            map.owner.extend((0..count as u32).map(|k| (body as u32, k)));
        }
        map.first.push(map.owner.len());
        if map.owner.len() > u32::MAX as usize {
            let needed = map.owner.len() as u64;
            return Err(Error::TooLarge { what: "shapes of bodies", needed, limit: u32::MAX as u64 });
        }
        Ok(map)
    }

    /// The number of bodies.
    pub fn bodies(&self) -> usize {
        self.first.len() - 1
    }

    /// The number of instances: the shapes of all bodies.
    pub fn instances(&self) -> usize {
        self.owner.len()
    }

    /// The range of `body`'s instances.
    fn of(&self, body: usize) -> std::ops::Range<usize> {
        self.first[body]..self.first[body + 1]
    }

    /// What the broad phase's filter kernels read to keep shapes of one body apart: per instance
    /// its body's first instance plus one, 0 for a body of one shape; `None` when every body has
    /// one shape (the plain broad phase runs).
    pub fn owners(&self) -> Option<Vec<u32>> {
        let owners: Vec<u32> = self
            .owner
            .iter()
            .map(|&(body, _)| match self.of(body as usize) {
                range if range.len() > 1 => range.start as u32 + 1,
                _ => 0,
            })
            .collect();
        owners.iter().any(|&o| o != 0).then_some(owners)
    }

    /// Each instance's pose, its body's from `poses` (one per body, checked body by body: a bad
    /// pose is an error naming its body).
    pub fn expand<S: PoseSource + ?Sized>(&mut self, poses: &S) -> Result<&[GpuTransform]> {
        if poses.len() != self.bodies() {
            return Err(Error::TransformCount { got: poses.len(), expected: self.bodies() });
        }
        self.expanded.clear();
        for body in 0..self.bodies() {
            let pose: GpuTransform = bytemuck::cast(poses.to_gpu(body)?);
            self.expanded.extend(std::iter::repeat_n(pose, self.of(body).len()));
        }
        Ok(&self.expanded)
    }

    /// Each instance's filter, its body's (one per body), which [`body_filters`](BodyMap::body_filters)
    /// then reports.
    pub fn set_filters(&mut self, per_body: &[Filter]) -> Result<Vec<Filter>> {
        if per_body.len() != self.bodies() {
            return Err(Error::FilterCount { got: per_body.len(), expected: self.bodies() });
        }
        self.filters.clear();
        if per_body.iter().any(|f| *f != Filter::DEFAULT) {
            self.filters.extend_from_slice(per_body);
        }
        Ok(self.owner.iter().map(|&(body, _)| per_body[body as usize]).collect())
    }

    /// Each body's filter as last set, empty while every body has the default.
    pub fn body_filters(&self) -> &[Filter] {
        &self.filters
    }

    /// The body of `instance`.
    pub fn body_of(&self, instance: u32) -> u32 {
        self.owner[instance as usize].0
    }

    /// Sorted lists of instances as sorted lists of their bodies, each body once.
    pub fn bodies_of(&self, lists: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
        lists
            .into_iter()
            .map(|list| {
                let mut bodies: Vec<u32> = list.iter().map(|&i| self.body_of(i)).collect();
                bodies.dedup();
                bodies
            })
            .collect()
    }

    /// A frame's instance pairs (sorted by (a, b)) as pairs of bodies, in place: each pair of
    /// bodies' deepest pair of instances, sorted by (a, b), its manifold (when there are
    /// manifolds) and in `shapes` its shapes' indices within the bodies.
    pub fn reduce<T: Record>(&self, contacts: &mut Vec<T>, manifolds: &mut Vec<Manifold>, shapes: &mut Vec<[u32; 2]>) {
        let kept = self.deepest(contacts);
        shapes.clear();
        shapes.extend(
            kept.iter().map(|&i| [self.owner[contacts[i].a() as usize].1, self.owner[contacts[i].b() as usize].1]),
        );
        if !manifolds.is_empty() {
            *manifolds = kept.iter().map(|&i| manifolds[i]).collect();
        }
        *contacts = kept
            .iter()
            .map(|&i| contacts[i].renamed(self.body_of(contacts[i].a()), self.body_of(contacts[i].b())))
            .collect();
    }

    /// The index of each pair of bodies' deepest instance pair among `contacts` (pairs of
    /// instances sorted by (a, b)), in order of the pairs of bodies; of equal depths the first.
    /// Where the GPU has kept one instance pair per pair of bodies already (per batch, when the
    /// candidates ran in batches), this orders them by body (a stable sort, fast on pairs already
    /// ordered by `a`) and merges the batches.
    fn deepest<T: Record>(&self, contacts: &[T]) -> Vec<usize> {
        let key = |j: usize| (self.body_of(contacts[j].a()), self.body_of(contacts[j].b()));
        let mut order: Vec<usize> = (0..contacts.len()).collect();
        // Stable: instance pairs of one pair of bodies stay in (a, b) order.
        order.sort_by_key(|&i| key(i));
        let mut kept: Vec<usize> = Vec::with_capacity(order.len());
        for i in order {
            match kept.last_mut() {
                Some(last) if key(*last) == key(i) => {
                    if contacts[i].depth() > contacts[*last].depth() {
                        *last = i;
                    }
                }
                _ => kept.push(i),
            }
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Contact;
    use crate::gpu::kernels::layout::GpuContact;

    fn contact(a: u32, b: u32, depth: f64) -> Contact {
        Contact { a, b, normal: [1.0, 0.0], depth }
    }

    #[test]
    fn instances_are_numbered_body_by_body() {
        // Bodies of 1, 3, 1 and 2 shapes: instances 0 | 1 2 3 | 4 | 5 6.
        let map = BodyMap::new([1, 3, 1, 2].into_iter()).unwrap();
        assert_eq!((map.bodies(), map.instances()), (4, 7));
        assert_eq!((0..7).map(|i| map.body_of(i)).collect::<Vec<_>>(), vec![0, 1, 1, 1, 2, 3, 3]);
        assert_eq!(map.owners(), Some(vec![0, 2, 2, 2, 0, 6, 6]));
        assert_eq!(BodyMap::new([1, 1].into_iter()).unwrap().owners(), None);
        assert_eq!(map.bodies_of(vec![vec![1, 3, 5], vec![], vec![0, 6]]), vec![vec![1, 3], vec![], vec![0, 3]]);
        let none = BodyMap::new(std::iter::empty()).unwrap();
        assert_eq!((none.bodies(), none.instances(), none.owners()), (0, 0, None));
    }

    #[test]
    fn each_pair_of_bodies_keeps_its_deepest_instance_pair() {
        let map = BodyMap::new([1, 3, 1, 2].into_iter()).unwrap();
        // Sorted by instance pair; bodies (0, 1) three times, the second deepest; (1, 3) twice,
        // equally deep (the first kept); (2, 3) once, at the last instance.
        let contacts = [
            contact(0, 1, 0.1),
            contact(0, 2, 0.3),
            contact(0, 3, 0.2),
            contact(1, 5, 0.4),
            contact(3, 6, 0.4),
            contact(4, 6, 0.05),
        ];
        let (mut out, mut shapes) = (contacts.to_vec(), vec![[9, 9]]);
        let mut manifolds: Vec<Manifold> = (0..6).map(|i| Manifold::new(i == 1, i == 3, &[])).collect();
        map.reduce(&mut out, &mut manifolds, &mut shapes);
        let pairs: Vec<_> = out.iter().map(|c| (c.a, c.b, c.depth)).collect();
        assert_eq!(pairs, vec![(0, 1, 0.3), (1, 3, 0.4), (2, 3, 0.05)]);
        assert_eq!(shapes, vec![[0, 1], [0, 0], [0, 1]]);
        // The manifolds kept are those of the pairs kept: contacts 1, 3 and 5.
        assert_eq!(
            manifolds.iter().map(|m| (m.a_in_b, m.b_in_a)).collect::<Vec<_>>(),
            [(true, false), (false, true), (false, false)]
        );
        // None, and the f32 records the same way.
        let (mut none, mut shapes) = (Vec::<Contact>::new(), vec![[1, 1]]);
        map.reduce(&mut none, &mut vec![], &mut shapes);
        assert!(none.is_empty() && shapes.is_empty());
        let gpu = |a, b, depth| GpuContact { a, b, normal_x: 1.0, normal_y: 0.0, depth, pad: 0 };
        let mut records = vec![gpu(0, 1, 0.1), gpu(0, 2, 0.3), gpu(4, 6, 0.05)];
        map.reduce(&mut records, &mut vec![], &mut vec![]);
        assert_eq!(records.iter().map(|c| (c.a, c.b, c.depth)).collect::<Vec<_>>(), [(0, 1, 0.3), (2, 3, 0.05)]);
    }
}
