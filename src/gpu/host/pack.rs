//! Packing: the host's polygons and transforms in the layout the GPU reads (`layout.rs`).
//! No device needed; the unit tests below check the layout without an adapter.

use std::borrow::Borrow;

use bytemuck::Zeroable;

use crate::error::{Error, Result};
use crate::geometry::frame::to_frame;
use crate::geometry::Polygon;
use crate::gpu::kernels::layout::{GpuInstance, LocalBounds};
use crate::gpu::kernels::shared::SMALL;

/// Room for `len` more elements in `v`, or [`Error::HostMemory`] naming `what`.
fn try_reserve<T>(v: &mut Vec<T>, len: usize, what: &'static str) -> Result<()> {
    v.try_reserve(len)
        .map_err(|_| Error::HostMemory { what, needed: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64) })
}

/// What the host uploads: shape vertices with their unit edge normals, where each body finds its
/// shape, and the initial transforms.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Packed {
    /// Per shape vertex: (x, y) relative to the shape's origin, then the unit outward normal of the
    /// edge that starts at the vertex. A shape of more than [`SMALL`] vertices is followed by one
    /// more record, its [`inner_circle`].
    pub shape_data: Vec<[f32; 4]>,
    /// Per body: where its shape starts, its vertex count and radius.
    pub bodies: Vec<GpuInstance>,
    /// Per body: its core's box in local coordinates (min.xy, max.xy).
    pub boxes: Vec<[f32; 4]>,
    /// Per body: (x, y, cos, sin), see [`transform`].
    pub transforms: Vec<[f32; 4]>,
    /// A typical AABB height of the bodies' shapes (see [`typical_height`]) when the world was
    /// built; the default strip height comes from it. [`repack`](Packed::repack) leaves it as it
    /// is: [`measure_height`](Packed::measure_height) sets it.
    pub typical_height: f64,
    /// Whether some body is a circle or a capsule or has a radius around its core.
    pub rounded: bool,
    /// Whether some body has more vertices than the narrow phase's small path takes.
    pub large: bool,
    /// Whether each body has a shape of its own, each after the one before (as
    /// [`repack`](Packed::repack) packs polygons), so that new polygons of the same vertex counts
    /// can overwrite them in place ([`fits_layout`](Packed::fits_layout)).
    pub dense: bool,
}

impl Packed {
    /// Shared shapes, bodies at the identity transform.
    pub fn from_shapes<P: Borrow<Polygon>>(shapes: &[P], body_shapes: &[u32]) -> Result<Packed> {
        let mut shape_start = Vec::with_capacity(shapes.len());
        let mut shape_height = Vec::with_capacity(shapes.len());
        let mut shape_bounds = Vec::with_capacity(shapes.len());
        let mut shape_data = vec![];
        for shape in shapes {
            let shape = shape.borrow();
            let start = shape_data.len();
            shape_start.push(start as u32);
            let b = shape.aabb();
            shape_height.push(b.max[1] - b.min[1]);
            shape_data.extend(
                shape
                    .vertices()
                    .iter()
                    .zip(shape.edge_normals())
                    .map(|(v, n)| [v[0] as f32, v[1] as f32, n[0] as f32, n[1] as f32]),
            );
            shape_bounds.push(LocalBounds::of(&shape_data[start..]));
            let reach = shape_bounds.last().expect("just pushed").radius();
            if let Some(inner) = inner_record(&shape_data[start..], reach) {
                shape_data.push(inner);
            }
        }
        let n = body_shapes.len();
        let (mut bodies, mut boxes, mut heights, mut transforms) = (vec![], vec![], vec![], vec![]);
        try_reserve(&mut bodies, n, "packed bodies")?;
        try_reserve(&mut boxes, n, "packed boxes")?;
        try_reserve(&mut heights, n, "shape heights")?;
        try_reserve(&mut transforms, n, "packed transforms")?;
        for (i, &s) in body_shapes.iter().enumerate() {
            let shape = shapes.get(s as usize).ok_or(Error::UnknownShape {
                body: i,
                shape: s as usize,
                shapes: shapes.len(),
            })?;
            let shape = shape.borrow();
            let bounds = &shape_bounds[s as usize];
            bodies.push(bounds.body(shape_start[s as usize], shape.vertices().len() as u32, shape.radius()));
            boxes.push(bounds.local_box());
            heights.push(shape_height[s as usize]);
        }
        transforms.resize(n, [0.0, 0.0, 1.0, 0.0]);
        let (rounded, large) = flags(&bodies);
        let end = |b: &GpuInstance| b.shape_start as usize + records(b.count) as usize;
        let dense = bodies.first().is_some_and(|b| b.shape_start == 0)
            && bodies.windows(2).all(|w| end(&w[0]) == w[1].shape_start as usize)
            && bodies.last().is_some_and(|b| end(b) == shape_data.len());
        let typical_height = typical_height(&heights);
        Ok(Packed { shape_data, bodies, boxes, transforms, typical_height, rounded, large, dense })
    }

    /// Bytes of every record: the shape data, the bodies, their boxes and transforms.
    pub fn bytes(&self) -> u64 {
        let size = |len: usize, each: usize| (len * each) as u64;
        size(self.shape_data.len(), 16)
            + size(self.bodies.len(), std::mem::size_of::<GpuInstance>())
            + size(self.boxes.len(), 16)
            + size(self.transforms.len(), 16)
    }

    /// One shape and one body per polygon; the shape is relative to the polygon's first vertex
    /// rounded to f32, which becomes the body's translation.
    pub fn from_polygons<P: Borrow<Polygon> + Sync>(polygons: &[P]) -> Result<Packed> {
        let mut packed = Packed::default();
        packed.repack(polygons)?;
        packed.measure_height(polygons);
        Ok(packed)
    }

    /// [`from_polygons`](Packed::from_polygons) into this one's vectors, reusing their memory as
    /// it is (every record is written, none cleared first): a program that sets new polygons every
    /// frame then touches no fresh pages (for 10,000 polygons of 63 vertices on average, fresh
    /// pages cost more than the packing itself). Packs on every core in chunks of [`PACK_CHUNK`]
    /// polygons (the GPU is idle meanwhile); only the chunks' record counts are summed in turn.
    /// The result does not depend on how many cores. The typical height is left as it was (a world
    /// whose polygons keep their layout keeps its strips): [`measure_height`](Packed::measure_height)
    /// measures it.
    ///
    /// Every vector is reserved fallibly: memory the system refuses is [`Error::HostMemory`].
    pub fn repack<P: Borrow<Polygon> + Sync>(&mut self, polygons: &[P]) -> Result<()> {
        use rayon::prelude::*;
        let n = polygons.len();
        // Where each chunk's shapes start: its records counted on every core, then summed in order.
        let counted: Vec<u32> = polygons
            .par_chunks(PACK_CHUNK)
            .map(|ps| ps.iter().map(|p| records(vertex_count(p.borrow()))).sum())
            .collect();
        let mut starts = vec![];
        try_reserve(&mut starts, counted.len(), "packing chunks")?;
        let mut start = 0u32;
        for &c in &counted {
            starts.push(start);
            start += c;
        }
        resize_reusing(&mut self.bodies, n, GpuInstance::zeroed(), "packed bodies")?;
        resize_reusing(&mut self.shape_data, start as usize, [0.0; 4], "packed shape vertices")?;
        resize_reusing(&mut self.transforms, n, [0.0; 4], "packed transforms")?;
        resize_reusing(&mut self.boxes, n, [0.0; 4], "packed boxes")?;
        // Each chunk's share of the shape records, in the bodies' order.
        let mut pieces = vec![];
        try_reserve(&mut pieces, counted.len(), "packing chunks")?;
        let mut rest = self.shape_data.as_mut_slice();
        for &c in &counted {
            let (mine, tail) = rest.split_at_mut(c as usize);
            pieces.push(mine);
            rest = tail;
        }
        let per_body = self
            .bodies
            .par_chunks_mut(PACK_CHUNK)
            .zip(self.transforms.par_chunks_mut(PACK_CHUNK))
            .zip(self.boxes.par_chunks_mut(PACK_CHUNK));
        let chunk_flags = polygons.par_chunks(PACK_CHUNK).zip(pieces.into_par_iter().zip(starts)).zip(per_body).map(
            |((polygons, (mut out, mut start)), ((bodies, ts), boxes))| {
                for (p, ((body, t), local_box)) in polygons.iter().zip(bodies.iter_mut().zip(ts.iter_mut()).zip(boxes))
                {
                    let p: &Polygon = p.borrow();
                    let count = vertex_count(p);
                    let (mine, tail) = std::mem::take(&mut out).split_at_mut(records(count) as usize);
                    out = tail;
                    pack_polygon(p, mine, start, body, t, local_box);
                    start += records(count);
                }
                // Still in cache.
                flags(bodies)
            },
        );
        (self.rounded, self.large) = chunk_flags.reduce(|| (false, false), |a, b| (a.0 || b.0, a.1 || b.1));
        self.dense = true;
        Ok(())
    }

    /// Sets the typical height from `polygons`, those last [`repack`](Packed::repack)ed.
    pub fn measure_height<P: Borrow<Polygon>>(&mut self, polygons: &[P]) {
        let n = polygons.len();
        self.typical_height = typical_height_by(n, |i| {
            let p: &Polygon = polygons[i].borrow();
            let (lo, hi) = p
                .vertices()
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v[1]), hi.max(v[1])));
            hi - lo + 2.0 * p.radius()
        });
    }
}

/// Whether some of `bodies` is a circle or a capsule or has a radius around its core (rounded),
/// and whether some has more vertices than the narrow phase's small path takes (large).
fn flags(bodies: &[GpuInstance]) -> (bool, bool) {
    let rounded = bodies.iter().any(|b| b.round > 0.0 || b.count <= 2);
    (rounded, bodies.iter().any(|b| b.count > SMALL))
}

/// Polygons per parallel task of [`Packed::repack`]: enough that a task's work (some 6 ns a
/// vertex) dwarfs rayon's cost of handing it out.
const PACK_CHUNK: usize = 2048;

/// A polygon's vertex count as the GPU's body record holds it.
fn vertex_count(p: &Polygon) -> u32 {
    p.vertices().len() as u32
}

/// One polygon packed, its shape starting at record `shape_start`: its records into `out` (its
/// vertices relative to its first one rounded to f32, which becomes its translation `t`, then its
/// inner circle where it has one), its body record and its local box.
fn pack_polygon(
    p: &Polygon,
    out: &mut [[f32; 4]],
    shape_start: u32,
    body: &mut GpuInstance,
    t: &mut [f32; 4],
    local_box: &mut [f32; 4],
) {
    let v = p.vertices();
    let anchor = v[0].map(|c| c as f32);
    *t = [anchor[0], anchor[1], 1.0, 0.0];
    // One pass over the input vertices (at 63 vertices per polygon, packing is bound by memory),
    // then for a shape of more than SMALL vertices one over its packed records, still in cache,
    // for its inner circle.
    let mut bounds = LocalBounds::default();
    let a = anchor.map(f64::from);
    for ((o, v), n) in out[..v.len()].iter_mut().zip(v).zip(p.edge_normals()) {
        // Both coordinates' differences and their two-sum errors, lane by lane: where both are
        // exact (almost always), they are what `to_frame` gives.
        let s = [v[0] - a[0], v[1] - a[1]];
        let back = [s[0] - v[0], s[1] - v[1]];
        let e = [(v[0] - (s[0] - back[0])) + (-a[0] - back[0]), (v[1] - (s[1] - back[1])) + (-a[1] - back[1])];
        let local = if e[0] == 0.0 && e[1] == 0.0 { s } else { [to_frame(v[0], anchor[0]), to_frame(v[1], anchor[1])] };
        *o = [local[0] as f32, local[1] as f32, n[0] as f32, n[1] as f32];
        bounds.add(o);
    }
    *body = bounds.body(shape_start, v.len() as u32, p.radius());
    *local_box = bounds.local_box();
    if let Some(inner) = inner_record(&out[..v.len()], body.radius) {
        out[v.len()] = inner;
    }
}

/// `v` resized to `len`, its memory reused as it is: only elements past its old length are
/// written (with `fill`), for callers that overwrite every element. Memory the system refuses is
/// [`Error::HostMemory`] naming `what`.
fn resize_reusing<T: Copy>(v: &mut Vec<T>, len: usize, fill: T, what: &'static str) -> Result<()> {
    v.truncate(len);
    try_reserve(v, len - v.len(), what)?;
    v.resize(len, fill);
    Ok(())
}

/// Records a shape of `count` vertices takes in the shape data: its vertices, and for a shape of
/// more than [`SMALL`] vertices its [`inner_circle`].
fn records(count: u32) -> u32 {
    count + u32::from(count > SMALL)
}

/// The record that follows a shape of more than [`SMALL`] vertices, none for smaller ones.
fn inner_record(local: &[[f32; 4]], reach: f32) -> Option<[f32; 4]> {
    (local.len() > SMALL as usize).then(|| {
        let (c, r) = inner_circle(local, reach);
        [c[0], c[1], r, 0.0]
    })
}

/// A circle inside a convex shape (local vertices and unit edge normals, as packed): its centre c
/// is the mean of vertices 0, count / 4, count / 2 and 3 count / 4 (inside, the shape being
/// convex) and its radius the least distance from c to an edge's line, rounded down. The narrow
/// phase bounds each face's separation by it (sat.wgsl: `inner`) and computes the same for shapes
/// of at most [`SMALL`] vertices itself. Its distances use the unit normals, which are the f32
/// edges' own to about 1e-7 of their length, so the radius is lowered by 8e-6 of `reach`, which
/// bounds every vertex's distance from the origin (and so half its distance from c).
pub(crate) fn inner_circle(local: &[[f32; 4]], reach: f32) -> ([f32; 2], f32) {
    let m = local.len();
    let mean = |k: usize| [0, m / 4, m / 2, 3 * m / 4].iter().map(|&i| f64::from(local[i][k])).sum::<f64>() / 4.0;
    let c = [mean(0) as f32, mean(1) as f32];
    let (cx, cy) = (f64::from(c[0]), f64::from(c[1]));
    let distance = |v: &[f32; 4]| f64::from(v[2]) * (f64::from(v[0]) - cx) + f64::from(v[3]) * (f64::from(v[1]) - cy);
    // Four running minima, so that this second pass over the shape is not one long chain of
    // dependent minima (it is part of every frame's upload of a `round` scene).
    let mut least = [f64::INFINITY; 4];
    let mut quads = local.chunks_exact(4);
    for quad in &mut quads {
        for (l, v) in least.iter_mut().zip(quad) {
            *l = l.min(distance(v));
        }
    }
    let rest = quads.remainder().iter().map(distance).fold(f64::INFINITY, f64::min);
    let r = least.into_iter().fold(rest, f64::min);
    let r = (r - 8e-6 * f64::from(reach)).max(0.0);
    // Rounded to f32 downwards.
    let mut down = r as f32;
    if f64::from(down) > r {
        down = f32::from_bits(down.to_bits() - 1);
    }
    (c, down)
}

/// Bodies sampled for [`typical_height`].
const HEIGHT_SAMPLES: usize = 4096;

/// The mean of `heights` over a fixed sample of at most 4096 bodies (all of them in smaller
/// scenes), leaving out the sample's 8 largest (a sixteenth in very small scenes): a few huge
/// stray bodies must not make every strip huge, while a heavy tail of sizes still counts.
/// Deterministic: the sample and the sum follow the bodies' order.
pub(crate) fn typical_height(heights: &[f64]) -> f64 {
    typical_height_by(heights.len(), |i| heights[i])
}

/// [`typical_height`] of `n` bodies, asking `height` for the sampled bodies' heights only.
fn typical_height_by(n: usize, height: impl Fn(usize) -> f64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let m = n.min(HEIGHT_SAMPLES);
    let mut sample: Vec<f64> = (0..m).map(|j| height(j * n / m)).collect();
    sample.sort_unstable_by(f64::total_cmp);
    let kept = &sample[..m - (m / 16).min(8)];
    kept.iter().sum::<f64>() / kept.len() as f64
}

mod poses;
mod stream;

#[cfg(test)]
pub(crate) use poses::transforms;
pub(crate) use poses::{transforms_into, PoseSource};
pub use poses::{Pose, PoseArrays, PoseScalar, ROTATION_TOLERANCE};

pub(crate) use stream::Staging;

#[cfg(test)]
mod tests;
