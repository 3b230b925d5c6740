//! The reference's one detection: every pair of bodies that collide, or lie within a margin,
//! with the contact of its deepest shape pair, from the definitions and nothing shared with the
//! GPU.

use super::{broad_phase_inflated, manifold_within, periodic, proximity};
use crate::geometry::{Contact, Manifold, Polygon};
use crate::gpu::DetectOptions;
use crate::options::ContactDetail;

/// The reference's answer to one detection (see [`detect`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detection {
    /// The pairs of bodies, sorted by `(a, b)`, each with the normal (from `a` to `b`) and depth of
    /// its deepest shape pair (the least signed distance, under a margin; of equal depths, the
    /// first by shape index).
    pub contacts: Vec<Contact>,
    /// That shape pair, at the same index: `[shape of a, shape of b]`, each counted within its
    /// body. Empty when every body has one shape.
    pub shapes: Vec<[u32; 2]>,
    /// With [`ContactDetail::Full`], that shape pair's manifold (see [`manifold_within`]) at the
    /// same index; otherwise empty.
    pub manifolds: Vec<Manifold>,
    /// Candidate shape pairs: bounding boxes (grown by the margin) that overlap, of shapes of
    /// different bodies that the filters let collide. What the scene generators are tuned on.
    pub candidates: usize,
}

/// Every pair of `bodies` that collide (or, under a margin, lie at most the margin apart), as
/// `options` asks: the answer the GPU must reproduce under the numerics contract.
///
/// `bodies` is a slice of [`Body`](crate::Body) or of [`Polygon`] (each a body of one shape).
/// Shapes of one body never pair with each other; a pair of bodies reports its deepest shape
/// pair. The filters (empty, or one per body) apply to all of a body's shapes.
/// The order ([`WorldOptions::order`](crate::gpu::WorldOptions::order)) and the GPU's own options
/// do not change the answer and are not read.
///
/// With a margin `d > 0`, each pair's `depth` is minus its signed distance (see
/// [`signed_distance`](super::signed_distance)): colliding pairs as without a margin, pairs apart
/// with depth down to `-d` and the normal from `a`'s closest point to `b`'s. With margin 0 the
/// answer is the colliding pairs, bit for bit.
///
/// In a periodic box ([`WorldOptions::periodic`](crate::gpu::WorldOptions::periodic)), bodies lie
/// anywhere, and each pair is judged between `a` as given and the image of `b` (moved by whole
/// box sizes along the wrapping axes) that collides with it, or lies within the margin: its
/// normal, depth and contact points are that image pair's. At most one image can, as the box is
/// wider than twice each body's extent and the margin.
///
/// # Panics
///
/// If the margin is negative, NaN or infinite, the filters are neither empty nor one per body,
/// or a body is too wide for the periodic box ([`Periodic::check_boxes`](crate::Periodic::check_boxes)):
/// the reference judges inputs the library has already validated.
pub fn detect<B: AsRef<[Polygon]>>(bodies: &[B], options: &DetectOptions) -> Detection {
    let (margin, filters) = (options.world.margin, &options.filters);
    assert!(margin >= 0.0 && margin.is_finite(), "the margin must be finite and at least 0, got {margin}");
    assert!(filters.is_empty() || filters.len() == bodies.len(), "one filter per body");
    // Every shape with its body and its index in the body, numbered body by body.
    let (mut shapes, mut owner) = (vec![], vec![]);
    for (b, body) in bodies.iter().enumerate() {
        for (k, p) in body.as_ref().iter().enumerate() {
            shapes.push(p);
            owner.push((b as u32, k as u32));
        }
    }
    // Shape pairs, each with the whole boxes that move b's shape to its image (none without a
    // periodic box).
    let pairs = match &options.world.periodic {
        None => {
            broad_phase_inflated(shapes.iter().copied(), margin).into_iter().map(|(a, b)| (a, b, [0.0; 2])).collect()
        }
        Some(box_) => {
            if let Err(e) = box_.check_boxes(bodies.iter().map(|b| periodic::aabb(b.as_ref())), margin) {
                panic!("{e}");
            }
            let body: Vec<u32> = owner.iter().map(|&(b, _)| b).collect();
            periodic::candidates(&shapes, &body, box_, margin)
        }
    };
    let mut found: Vec<(Contact, [u32; 2], [f64; 2])> = vec![];
    let mut candidates = 0;
    for (pa, pb, n) in pairs {
        let ((a, ka), (b, kb)) = (owner[pa as usize], owner[pb as usize]);
        if a == b || (!filters.is_empty() && !filters[a as usize].should_collide(&filters[b as usize])) {
            continue;
        }
        candidates += 1;
        // Shapes are numbered body by body, so a < b whenever pa < pb.
        let b_image = periodic::image(shapes[pb as usize], n, options.world.periodic.as_ref());
        if let Some((normal, depth)) = proximity::within(shapes[pa as usize], &b_image, margin) {
            found.push((Contact { a, b, normal, depth }, [ka, kb], n));
        }
    }
    // Shape pairs come in order of (pa, pb): a stable sort by body pair keeps that order within
    // each, and of equal depths the first stays.
    found.sort_by_key(|(c, _, _)| (c.a, c.b));
    found.dedup_by(|later, kept| {
        let same = (later.0.a, later.0.b) == (kept.0.a, kept.0.b);
        if same && later.0.depth > kept.0.depth {
            std::mem::swap(later, kept);
        }
        same
    });
    let manifolds = match options.world.contact_detail {
        ContactDetail::Basic => vec![],
        ContactDetail::Full => found
            .iter()
            .map(|(c, [ka, kb], n)| {
                let (a, b) =
                    (&bodies[c.a as usize].as_ref()[*ka as usize], &bodies[c.b as usize].as_ref()[*kb as usize]);
                manifold_within(a, &periodic::image(b, *n, options.world.periodic.as_ref()), c, margin)
            })
            .collect(),
    };
    let several = bodies.iter().any(|b| b.as_ref().len() > 1);
    let shapes = if several { found.iter().map(|(_, k, _)| *k).collect() } else { vec![] };
    Detection { contacts: found.into_iter().map(|(c, _, _)| c).collect(), shapes, manifolds, candidates }
}
