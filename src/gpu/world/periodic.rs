//! A world in a periodic box (issue 65; [`WorldOptions::periodic`]): what the host does for it.
//! Every body is moved by whole boxes so that its anchor lies in the box, and checked narrow
//! enough for the box; the GPU's side is in shaders/shared/image.wgsl.

use std::borrow::{Borrow, Cow};

use crate::error::{Error, Result};
use crate::geometry::{Periodic, Polygon, RayHit, Transform};
use crate::gpu::host::pack::Packed;
use crate::gpu::world::options::WorldOptions;

/// Most bodies (instances) of a world in a periodic box: a candidate pair keeps b's image in the
/// bits above (shaders/shared/candidate.wgsl).
pub(crate) const MAX_PERIODIC_BODIES: usize = 1 << 28;

fn refuse(detail: String) -> Error {
    Error::InvalidSetting { what: "periodic box", detail }
}

/// `polygons` each moved by whole boxes so that its first vertex (its anchor) lies in the box;
/// `None` where every one already does (or there is no box), so that such a scene packs as it
/// would without one.
pub(super) fn wrapped<'a, P: Borrow<Polygon>>(
    polygons: &'a [P],
    periodic: Option<&Periodic>,
) -> Option<Vec<Cow<'a, Polygon>>> {
    let p = periodic?;
    let shift = |q: &Polygon| p.cell_shift(q.vertices()[0]);
    if polygons.iter().all(|q| shift(q.borrow()) == [0.0; 2]) {
        return None;
    }
    let size = p.size();
    Some(
        polygons
            .iter()
            .map(|q| match shift(q.borrow()) {
                [0.0, 0.0] => Cow::Borrowed(q.borrow()),
                n => {
                    Cow::Owned(q.borrow().transformed(&Transform { x: n[0] * size[0], y: n[1] * size[1], angle: 0.0 }))
                }
            })
            .collect(),
    )
}

/// Whether a world of `packed` can be made in its periodic box: at most [`MAX_PERIODIC_BODIES`] bodies, and each body's box with its origin
/// (its anchor: one-shot polygons' first vertex, which their box holds), as packed, narrower
/// than the box allows ([`Periodic::check_extent`]): so a body's box lies within that width of
/// its anchor, which lies in the box. Moves every pose into the box.
pub(super) fn check_packed(packed: &mut Packed, options: &WorldOptions) -> Result<()> {
    check_extents(packed, options)?;
    if let Some(p) = &options.periodic {
        for t in &mut packed.transforms {
            [t[0], t[1]] = p.wrap_f32([t[0], t[1]]);
        }
    }
    Ok(())
}

/// [`check_packed`] without moving the poses.
pub(super) fn check_extents(packed: &Packed, options: &WorldOptions) -> Result<()> {
    let Some(p) = &options.periodic else { return Ok(()) };
    if packed.bodies.len() > MAX_PERIODIC_BODIES {
        return Err(refuse(format!("{} bodies: at most {MAX_PERIODIC_BODIES} in a periodic box", packed.bodies.len())));
    }
    for (i, extent) in extents(packed).enumerate() {
        p.check_extent(i, extent, options.margin)?;
    }
    Ok(())
}

/// Each body's extent along x and y: its box as packed, with its origin and its rounding.
fn extents(packed: &Packed) -> impl Iterator<Item = [f64; 2]> + '_ {
    packed.boxes.iter().zip(&packed.bodies).map(|(b, body)| {
        let [x0, y0, x1, y1] = b.map(f64::from);
        let r = f64::from(body.round);
        let width = |lo: f64, hi: f64| (hi + r).max(0.0) - (lo - r).min(0.0);
        [width(x0, x1), width(y0, y1)]
    })
}

/// With continuous collision in a periodic box, whether every body's way through the frame
/// fits the box: its extent (twice its reach where it turns) and how far it moves from `from`
/// to `to` (the shortest way, across an edge where it left the box), together, as a body's
/// extent must ([`Periodic::check_extent`]); refused naming the body otherwise.
pub(super) fn check_moves(packed: &Packed, from: &[[f32; 4]], to: &[[f32; 4]], options: &WorldOptions) -> Result<()> {
    let Some(p) = options.periodic.as_ref().filter(|_| options.continuous) else { return Ok(()) };
    let (size, wraps) = (p.size(), p.wraps());
    for (i, ((extent, body), (s, e))) in extents(packed).zip(&packed.bodies).zip(from.iter().zip(to)).enumerate() {
        let turns = s[2] != e[2] || s[3] != e[3] || e[2] != 1.0 || e[3] != 0.0;
        let reach = 2.0 * f64::from(body.radius + body.round);
        let way: [f64; 2] = std::array::from_fn(|k| {
            let d = f64::from(e[k]) - f64::from(s[k]);
            let d = if wraps[k] { d - size[k] * (d / size[k]).round() } else { d };
            d.abs() + if turns { extent[k].max(reach) } else { extent[k] }
        });
        p.check_extent(i, way, options.margin).map_err(|e| match e {
            Error::InvalidSetting { what, detail } => {
                Error::InvalidSetting { what, detail: format!("{detail} (continuous: its way through the frame)") }
            }
            e => e,
        })?;
    }
    Ok(())
}

/// Where `poses` (just converted) turn a body, whether every body of `packed` fits the periodic
/// box at any angle: twice how far its shape reaches from its origin, against the box. The
/// bodies' reach is the world's until new polygons: once they fit (`fit`, set here), no pose is
/// looked at again.
pub(super) fn check_turns(packed: &Packed, poses: &[[f32; 4]], options: &WorldOptions, fit: &mut bool) -> Result<()> {
    let Some(p) = options.periodic.as_ref().filter(|_| !*fit) else { return Ok(()) };
    if poses.iter().all(|t| t[2] == 1.0 && t[3] == 0.0) {
        return Ok(());
    }
    for (i, body) in packed.bodies.iter().enumerate() {
        let reach = 2.0 * f64::from(body.radius + body.round);
        p.check_extent(i, [reach; 2], options.margin).map_err(|e| match e {
            Error::InvalidSetting { what, detail } => {
                Error::InvalidSetting { what, detail: format!("{detail} (turned: twice its reach)") }
            }
            e => e,
        })?;
    }
    *fit = true;
    Ok(())
}

/// A region query `(lo, hi, filter, world)`.
pub(super) type Region = ([f64; 2], [f64; 2], crate::geometry::Filter, u32);

/// Each of `regions` laid at every whole box of `periodic` where it can meet a body, with the
/// index of the region each copy is of; `None` without a box.
///
/// A body's anchor lies in the box and its shapes within half the box of it (its extent, or
/// its reach where it turns, is checked against the box): so its shapes lie within half a box
/// of the box. Along a wrapping axis a region is first moved (in f64) by whole boxes so that
/// its low side lies in the box, then laid again a box either way, and each copy that comes
/// within three quarters of a box of it is kept (two at most, rounding aside). A region at
/// least a box long along an axis meets every image's line there: it becomes the box grown by
/// a box either way, once.
pub(super) fn region_copies(regions: &[Region], periodic: Option<&Periodic>) -> Option<(Vec<Region>, Vec<u32>)> {
    let p = periodic?;
    let (size, [x0, y0, x1, y1]) = (p.size(), p.bounds());
    let (low, high) = ([x0, y0], [x1, y1]);
    let (mut copies, mut owner) = (vec![], vec![]);
    for (i, &(lo, hi, filter, world)) in regions.iter().enumerate() {
        let spans: [Vec<(f64, f64)>; 2] = std::array::from_fn(|k| {
            let l = size[k];
            if !p.wraps()[k] {
                return vec![(lo[k], hi[k])];
            }
            if hi[k] - lo[k] >= l {
                return vec![(low[k] - l, high[k] + l)];
            }
            let shift = p.cell_shift(lo)[k] * l;
            let (a, b) = (lo[k] + shift, hi[k] + shift);
            [-l, 0.0, l]
                .into_iter()
                .map(|by| (a + by, b + by))
                .filter(|&(a, b)| b >= low[k] - 0.75 * l && a <= high[k] + 0.75 * l)
                .collect()
        });
        for &(ax, bx) in &spans[0] {
            for &(ay, by) in &spans[1] {
                copies.push(([ax, ay], [bx, by], filter, world));
                owner.push(i as u32);
            }
        }
    }
    Some((copies, owner))
}

/// Each region's hits from its copies' (`lists`, one per copy, each sorted; `owner` from
/// [`region_copies`]): merged, sorted, each shape once.
pub(super) fn merge_copies(lists: Vec<Vec<u32>>, owner: &[u32], regions: usize) -> Vec<Vec<u32>> {
    let mut out = vec![vec![]; regions];
    for (list, &i) in lists.into_iter().zip(owner) {
        out[i as usize].extend(list);
    }
    for list in &mut out {
        list.sort_unstable();
        list.dedup();
    }
    out
}

/// A ray's or a cast's way as given, in f64: its origin, unit direction and length, and how far
/// its points reach from the ray (a cast shape's reach; 0 for a ray).
#[derive(Debug, Clone, Copy)]
pub(super) struct Way {
    pub origin: [f64; 2],
    pub dir: [f64; 2],
    pub length: f64,
    pub reach: f64,
}

/// Where a piece of a way lies: how far along the way it starts, and the whole boxes (in world
/// units) that lay it in the box.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Piece {
    pub t0: f64,
    pub shift: [f64; 2],
}

/// The pieces of the ways of rays and casts laid in a periodic box: the records cast (each a
/// piece), which way each is of, and where.
pub(super) struct Laid<R> {
    pub records: Vec<R>,
    pub owner: Vec<u32>,
    pub pieces: Vec<Piece>,
}

/// The most whole boxes a ray or a cast crosses in a periodic box.
pub(crate) const MAX_CROSSINGS: f64 = 4096.0;

/// Each of `ways` cut into pieces, one per whole box of `p` near which it passes, each laid in
/// the box (moved by whole boxes, in f64): leaving the box, a ray goes on from the opposite edge.
///
/// Every body's shapes lie within half a box of the box (its anchor lies in it, and it is
/// narrower than half the box): an image moved by `n` whole boxes lies within that of the box
/// moved by `n`. So the piece for `n` is the part of the way within three quarters of a box (and
/// the cast's reach) of that box, moved back by `n`: cast against the bodies where they are, it
/// meets exactly the images moved by `n` (none can touch it where it starts, but at the way's
/// start). `record(i, origin, length)` makes way `i`'s piece; a way across more than
/// [`MAX_CROSSINGS`] boxes is refused, naming it (`what`).
pub(super) fn lay_ways<R>(
    p: &Periodic,
    ways: &[Way],
    what: &'static str,
    mut record: impl FnMut(usize, [f64; 2], f64) -> R,
) -> Result<Laid<R>> {
    let (size, wraps, [x0, y0, x1, y1]) = (p.size(), p.wraps(), p.bounds());
    let (low, high) = ([x0, y0], [x1, y1]);
    let mut laid = Laid { records: vec![], owner: vec![], pieces: vec![] };
    for (i, w) in ways.iter().enumerate() {
        let crossings: f64 = (0..2).filter(|&k| wraps[k]).map(|k| w.length * w.dir[k].abs() / size[k]).sum();
        if crossings > MAX_CROSSINGS {
            let detail = format!(
                "{what} {i} crosses {crossings:.0} boxes of the periodic box on its way of {}: at most {MAX_CROSSINGS}",
                w.length
            );
            return Err(Error::InvalidSetting { what, detail });
        }
        // Along axis k, each whole box n near which the way passes, with the part of the way
        // [t0, t1] there.
        let cells = |k: usize, t0: f64, t1: f64| -> Vec<(f64, f64, f64)> {
            if !wraps[k] {
                return vec![(0.0, t0, t1)];
            }
            let l = size[k];
            let grow = 0.75 * l + w.reach + 1e-6 * (low[k].abs() + high[k].abs() + l);
            let (a, b) = (w.origin[k] + t0 * w.dir[k], w.origin[k] + t1 * w.dir[k]);
            let first = ((a.min(b) - high[k] - grow) / l).floor();
            let count = ((a.max(b) - low[k] + grow) / l).ceil() - first;
            (0..=count as u64)
                .filter_map(|j| {
                    let n = first + j as f64;
                    let (lo, hi) = (low[k] + n * l - grow, high[k] + n * l + grow);
                    let (ta, tb) = match w.dir[k] {
                        0.0 if (lo..=hi).contains(&w.origin[k]) => (t0, t1),
                        0.0 => return None,
                        d => {
                            let (u, v) = ((lo - w.origin[k]) / d, (hi - w.origin[k]) / d);
                            (u.min(v).max(t0), u.max(v).min(t1))
                        }
                    };
                    (ta <= tb).then_some((n, ta, tb))
                })
                .collect()
        };
        for (nx, ax, bx) in cells(0, 0.0, w.length) {
            for (ny, t0, t1) in cells(1, ax, bx) {
                let shift = [nx * size[0], ny * size[1]];
                let at = [w.origin[0] + t0 * w.dir[0] - shift[0], w.origin[1] + t0 * w.dir[1] - shift[1]];
                laid.records.push(record(i, at, t1 - t0));
                laid.owner.push(i as u32);
                laid.pieces.push(Piece { t0, shift });
            }
        }
    }
    Ok(laid)
}

/// Each way's nearest hit of its pieces' (`hits`, one per piece, made whole; `owner` from
/// [`lay_ways`]): the least fraction, of equal ones the lowest body.
pub(super) fn nearest(hits: Vec<Option<RayHit>>, owner: &[u32], ways: usize) -> Vec<Option<RayHit>> {
    let mut out: Vec<Option<RayHit>> = vec![None; ways];
    for (hit, &i) in hits.into_iter().zip(owner) {
        let Some(hit) = hit else { continue };
        let best = &mut out[i as usize];
        if best.is_none_or(|b| (hit.fraction, hit.body) < (b.fraction, b.body)) {
            *best = Some(hit);
        }
    }
    out
}
