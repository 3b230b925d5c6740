//! `satgpu render` of a scene in a periodic box (issue 65): the shapes where the World keeps them
//! (each body moved by whole boxes so that its first shape's first vertex lies in the box), then,
//! faint, the image of each body that reaches past an edge, a box the other way (and across the
//! corner), so that what touches across an edge is seen touching; each pair's arrow is drawn where
//! the two shapes that touch meet, a body or an image.

use satgpu::{Aabb, Contact, Periodic, Polygon, Transform};

/// The shapes to draw: the scene's, moved into the box, then the images; `image_of[i]` the shape
/// an image copies (`u32::MAX` for the scene's own); the owners extended to the images (each
/// image of a body its own body); the contacts naming the shapes that touch.
pub(super) struct Wrapped {
    pub shapes: Vec<Polygon>,
    pub image_of: Vec<u32>,
    pub owners: Vec<u32>,
    pub contacts: Vec<Contact>,
}

fn moved(p: &Polygon, by: [f64; 2]) -> Polygon {
    if by == [0.0; 2] {
        return p.clone();
    }
    p.transformed(&Transform { x: by[0], y: by[1], angle: 0.0 })
}

/// Whether two boxes meet, or nearly (a pair that touches across an edge meets its image only up
/// to the rounding of the move).
fn near(a: &Aabb, b: &Aabb) -> bool {
    let slack = 1e-9 * (a.max[0] - a.min[0] + a.max[1] - a.min[1] + b.max[0] - b.min[0] + b.max[1] - b.min[1]);
    a.min[0] <= b.max[0] + slack
        && b.min[0] <= a.max[0] + slack
        && a.min[1] <= b.max[1] + slack
        && b.min[1] <= a.max[1] + slack
}

/// `shapes` (each its own body where `owners` is empty) in `p`, with `contacts` between them.
pub(super) fn wrap(shapes: Vec<Polygon>, owners: &[u32], contacts: Vec<Contact>, p: &Periodic) -> Wrapped {
    let n = shapes.len();
    let owner = |i: usize| owners.get(i).map_or(i, |&o| o as usize);
    let bodies = if owners.is_empty() { n } else { owners.iter().max().map_or(0, |&o| o as usize + 1) };
    let size = p.size();
    // Each body's move into the box, from its first shape's first vertex.
    let mut shift: Vec<Option<[f64; 2]>> = vec![None; bodies];
    for (i, s) in shapes.iter().enumerate() {
        let slot = &mut shift[owner(i)];
        if slot.is_none() {
            let c = p.cell_shift(s.vertices()[0]);
            *slot = Some([c[0] * size[0], c[1] * size[1]]);
        }
    }
    let mut out: Vec<Polygon> =
        shapes.iter().enumerate().map(|(i, s)| moved(s, shift[owner(i)].unwrap_or([0.0; 2]))).collect();
    // Each body's box, and its images: a box up where it reaches past the lower edge, down past
    // the upper.
    let mut boxes: Vec<Option<Aabb>> = vec![None; bodies];
    for (i, s) in out.iter().enumerate() {
        let b = &mut boxes[owner(i)];
        *b = Some(b.map_or(s.aabb(), |b| b.union(&s.aabb())));
    }
    let [x0, y0, x1, y1] = p.bounds();
    let (lo, hi) = ([x0, y0], [x1, y1]);
    let mut image_of = vec![u32::MAX; n];
    let mut all_owners: Vec<u32> = (0..n).map(|i| owner(i) as u32).collect();
    let mut images_of: Vec<Vec<usize>> = vec![vec![]; n];
    let mut next_body = bodies as u32;
    for (body, b) in boxes.iter().enumerate() {
        let Some(b) = b else { continue };
        let side = |k: usize| match p.wraps()[k] {
            true if b.min[k] < lo[k] => size[k],
            true if b.max[k] > hi[k] => -size[k],
            _ => 0.0,
        };
        let (sx, sy) = (side(0), side(1));
        // Its image along x, along y, and across the corner, where it has them.
        for (cx, cy) in [(true, false), (false, true), (true, true)] {
            if (cx && sx == 0.0) || (cy && sy == 0.0) {
                continue;
            }
            let by = [if cx { sx } else { 0.0 }, if cy { sy } else { 0.0 }];
            for i in (0..n).filter(|&i| owner(i) == body) {
                images_of[i].push(out.len());
                out.push(moved(&out[i], by));
                image_of.push(i as u32);
                all_owners.push(next_body);
            }
            next_body += 1;
        }
    }
    // Each pair names the two shapes that touch: b's image, or a's, where the two do not.
    let contacts = contacts
        .into_iter()
        .map(|c| {
            let (a, b) = (c.a as usize, c.b as usize);
            if a >= n || b >= n || near(&out[a].aabb(), &out[b].aabb()) {
                return c;
            }
            if let Some(&j) = images_of[b].iter().find(|&&j| near(&out[a].aabb(), &out[j].aabb())) {
                return Contact { b: j as u32, ..c };
            }
            match images_of[a].iter().find(|&&j| near(&out[j].aabb(), &out[b].aabb())) {
                Some(&j) => Contact { a: j as u32, ..c },
                None => c,
            }
        })
        .collect();
    let owners = if owners.is_empty() && out.len() == n { vec![] } else { all_owners };
    Wrapped { shapes: out, image_of, owners, contacts }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon {
        Polygon::new(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).unwrap()
    }

    #[test]
    fn bodies_come_into_the_box_and_images_show_what_touches_across_edges() {
        let p = Periodic::new([0.0, 0.0, 10.0, 10.0], [true, true]).unwrap();
        // a past the right edge; b a box to the right of the left edge; c in a corner.
        let shapes = vec![rect(9.5, 4.0, 10.5, 5.0), rect(20.25, 4.0, 21.25, 5.0), rect(9.5, 9.5, 10.5, 10.5)];
        let contacts = vec![Contact { a: 0, b: 1, normal: [1.0, 0.0], depth: 0.25 }];
        let w = wrap(shapes, &[], contacts, &p);
        // b moved two boxes left; a has an image a box left; c three (x, y, the corner).
        assert_eq!(w.shapes[1].aabb().min, [0.25, 4.0]);
        assert_eq!(w.shapes.len(), 3 + 1 + 3);
        assert_eq!(&w.image_of[3..], [0, 2, 2, 2]);
        assert_eq!(w.shapes[3].aabb().min, [-0.5, 4.0]);
        // The pair is drawn between a's image and b.
        assert_eq!((w.contacts[0].a, w.contacts[0].b), (3, 1));
        assert_eq!(w.owners.len(), 7);
    }
}
