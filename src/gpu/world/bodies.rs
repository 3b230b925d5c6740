//! Bodies of several shapes: each shape of a body is one instance on the GPU (a body of the
//! frame's arrays), numbered body by body and placed by its body's pose. This map takes the
//! caller's bodies to instances (poses, filters, the broad phase's owners) and the GPU's answers
//! about instances back to bodies (pairs, each pair of bodies' deepest; query hits; ray hits).

use crate::error::{Error, Result};
use crate::geometry::{Contact, Filter};
use crate::gpu::host::pack::PoseSource;
use crate::gpu::kernels::layout::GpuTransform;
use crate::gpu::world::options::Frame;

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
}

impl BodyMap {
    /// Bodies of `shapes` shapes each, in order. More instances than u32 numbers is
    /// [`Error::TooLarge`].
    pub fn new(shapes: impl ExactSizeIterator<Item = usize>) -> Result<BodyMap> {
        let mut map = BodyMap { owner: vec![], first: Vec::with_capacity(shapes.len() + 1), expanded: vec![] };
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

    /// Each instance's filter, its body's (one per body).
    pub fn filters(&self, per_body: &[Filter]) -> Result<Vec<Filter>> {
        if per_body.len() != self.bodies() {
            return Err(Error::FilterCount { got: per_body.len(), expected: self.bodies() });
        }
        Ok(self.owner.iter().map(|&(body, _)| per_body[body as usize]).collect())
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

    /// A frame of instance pairs as the frame of body pairs: each pair of bodies' deepest pair
    /// of instances, sorted by (a, b), with its shapes' indices within the bodies in
    /// [`Frame::shapes`] (empty when every body has one shape), and its manifold.
    pub fn frame(&self, frame: Frame) -> Frame {
        let kept = self.deepest(&frame.contacts);
        let mut out =
            Frame { contacts: Vec::with_capacity(kept.len()), shapes: vec![], manifolds: vec![], stats: frame.stats };
        let several = self.instances() > self.bodies();
        if several {
            out.shapes.reserve(kept.len());
        }
        for &i in &kept {
            let c = frame.contacts[i];
            let ((a, ka), (b, kb)) = (self.owner[c.a as usize], self.owner[c.b as usize]);
            out.contacts.push(Contact { a, b, ..c });
            if several {
                out.shapes.push([ka, kb]);
            }
        }
        if !frame.manifolds.is_empty() {
            out.manifolds = kept.iter().map(|&i| frame.manifolds[i]).collect();
        }
        out.stats.colliding = out.contacts.len() as u64;
        out
    }

    /// The index of each pair of bodies' deepest instance pair among `contacts` (pairs of
    /// instances sorted by (a, b)), in order of the pairs of bodies; of equal depths the first.
    /// Where the GPU has kept one instance pair per pair of bodies already (per batch, when the
    /// candidates ran in batches), this orders them by body (a stable sort, fast on pairs already
    /// ordered by `a`) and merges the batches.
    fn deepest(&self, contacts: &[Contact]) -> Vec<usize> {
        let key = |j: usize| (self.body_of(contacts[j].a), self.body_of(contacts[j].b));
        let mut order: Vec<usize> = (0..contacts.len()).collect();
        // Stable: instance pairs of one pair of bodies stay in (a, b) order.
        order.sort_by_key(|&i| key(i));
        let mut kept: Vec<usize> = Vec::with_capacity(order.len());
        for i in order {
            match kept.last_mut() {
                Some(last) if key(*last) == key(i) => {
                    if contacts[i].depth > contacts[*last].depth {
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
        let frame = Frame { contacts: contacts.to_vec(), ..Frame::default() };
        let out = map.frame(frame);
        let pairs: Vec<_> = out.contacts.iter().map(|c| (c.a, c.b, c.depth)).collect();
        assert_eq!(pairs, vec![(0, 1, 0.3), (1, 3, 0.4), (2, 3, 0.05)]);
        assert_eq!(out.shapes, vec![[0, 1], [0, 0], [0, 1]]);
        assert_eq!(out.stats.colliding, 3);
        // One shape per body: the same pairs, no shape pairs to name.
        let single = BodyMap::new([1, 1, 1].into_iter()).unwrap();
        let out = single.frame(Frame { contacts: vec![contact(0, 2, 0.1)], ..Frame::default() });
        assert_eq!((out.contacts.len(), out.shapes.len()), (1, 0));
        assert!(map.frame(Frame::default()).contacts.is_empty());
    }
}
