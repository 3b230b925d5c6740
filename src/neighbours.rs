//! Neighbours within a radius, the k nearest of each body: what a crowd model asks of its
//! neighbour search per agent and step (JuPedSim's models take every neighbour within a cutoff,
//! RVO2 and Menge the k nearest).
//!
//! A frame of a world with a margin `r` holds every pair of bodies at signed distance at most
//! `r`, once, `a < b`; [`Neighbours::from_contacts`] turns those pairs into each body's list, both
//! ways round. [`gpu::neighbours`](crate::gpu::neighbours) and
//! [`reference::neighbours`](crate::reference::neighbours) are the one-shot calls.

use crate::geometry::Contact;

/// Each body's neighbours, nearest first: body `i`'s are rows `offsets[i]..offsets[i + 1]` of
/// `neighbour`, `distance` and `normal`, sorted by distance, then by neighbour index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Neighbours {
    /// Where each body's rows start, one more than the bodies (the last is the row count).
    pub offsets: Vec<usize>,
    /// The neighbour of each row.
    pub neighbour: Vec<u32>,
    /// Signed distance from the body to the neighbour: negative where they overlap (minus the
    /// penetration depth), as a margin frame's pairs apart have it.
    pub distance: Vec<f64>,
    /// Unit direction from the body toward the neighbour (the pair's normal, turned round for the
    /// pair's second body).
    pub normal: Vec<[f64; 2]>,
}

impl Neighbours {
    /// Each of `bodies` bodies' neighbours from the pairs of a frame within the radius (each pair
    /// once, `a < b`, `depth` minus the distance), the nearest `k` of each where `k` is given.
    /// On every core; the result does not depend on how many.
    pub fn from_contacts(bodies: usize, contacts: &[Contact], k: Option<usize>) -> Neighbours {
        use rayon::prelude::*;
        // Rows per body, both ends of every pair, then each body's rows written at its offset.
        let mut count = vec![0usize; bodies];
        for c in contacts {
            count[c.a as usize] += 1;
            count[c.b as usize] += 1;
        }
        let offsets: Vec<usize> = std::iter::once(0)
            .chain(count.iter().scan(0, |total, n| {
                *total += n;
                Some(*total)
            }))
            .collect();
        let total = offsets[bodies];
        let mut rows = vec![(0u32, 0.0f64, [0.0f64; 2]); total];
        let mut next = offsets.clone();
        for c in contacts {
            let (a, b) = (c.a as usize, c.b as usize);
            rows[next[a]] = (c.b, -c.depth, c.normal);
            rows[next[b]] = (c.a, -c.depth, [-c.normal[0] + 0.0, -c.normal[1] + 0.0]);
            next[a] += 1;
            next[b] += 1;
        }
        // Each body's rows sorted by distance, then neighbour, on every core.
        let mut lists: Vec<&mut [(u32, f64, [f64; 2])]> = Vec::with_capacity(bodies);
        let mut rest = rows.as_mut_slice();
        for i in 0..bodies {
            let (mine, tail) = rest.split_at_mut(offsets[i + 1] - offsets[i]);
            lists.push(mine);
            rest = tail;
        }
        lists.par_iter_mut().for_each(|l| l.sort_unstable_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0))));
        let keep = |i: usize| (offsets[i + 1] - offsets[i]).min(k.unwrap_or(usize::MAX));
        let mut out = Neighbours { offsets: Vec::with_capacity(bodies + 1), ..Neighbours::default() };
        let kept: usize = (0..bodies).map(keep).sum();
        out.neighbour.reserve_exact(kept);
        out.distance.reserve_exact(kept);
        out.normal.reserve_exact(kept);
        for i in 0..bodies {
            out.offsets.push(out.neighbour.len());
            for &(n, d, normal) in &rows[offsets[i]..offsets[i] + keep(i)] {
                out.neighbour.push(n);
                out.distance.push(d);
                out.normal.push(normal);
            }
        }
        out.offsets.push(out.neighbour.len());
        out
    }

    /// The number of bodies.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether there are no bodies.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows of body `i`: its neighbours' indices, distances and normals, nearest first.
    pub fn of(&self, i: usize) -> (&[u32], &[f64], &[[f64; 2]]) {
        let r = self.offsets[i]..self.offsets[i + 1];
        (&self.neighbour[r.clone()], &self.distance[r.clone()], &self.normal[r])
    }
}
