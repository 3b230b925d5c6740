//! Packing: the host's polygons and transforms in the layout the GPU reads (`layout.rs`).
//! No device needed; the unit tests below check the layout without an adapter.

use bytemuck::Zeroable;

use crate::error::{Error, Result};
use crate::geometry::frame::to_frame;
use crate::geometry::{Polygon, Transform, MAX_COORDINATE};
use crate::gpu::kernels::layout::{GpuBody, GpuTransform, LocalBounds};
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
    pub bodies: Vec<GpuBody>,
    /// Per body: its core's box in local coordinates (min.xy, max.xy).
    pub boxes: Vec<[f32; 4]>,
    /// Per body: (x, y, cos, sin), see [`transform`].
    pub transforms: Vec<[f32; 4]>,
    /// A typical AABB height of the bodies' shapes (see [`typical_height`]); the default strip
    /// height comes from it.
    pub typical_height: f64,
}

impl Packed {
    /// Shared shapes, bodies at the identity transform.
    pub fn from_shapes(shapes: &[Polygon], body_shapes: &[u32]) -> Result<Packed> {
        let mut shape_start = Vec::with_capacity(shapes.len());
        let mut shape_height = Vec::with_capacity(shapes.len());
        let mut shape_bounds = Vec::with_capacity(shapes.len());
        let mut shape_data = vec![];
        for shape in shapes {
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
            let bounds = &shape_bounds[s as usize];
            bodies.push(bounds.body(shape_start[s as usize], shape.vertices().len() as u32, shape.radius()));
            boxes.push(bounds.local_box());
            heights.push(shape_height[s as usize]);
        }
        transforms.resize(n, [0.0, 0.0, 1.0, 0.0]);
        Ok(Packed { shape_data, bodies, boxes, transforms, typical_height: typical_height(&heights) })
    }

    /// One shape and one body per polygon; the shape is relative to the polygon's first vertex
    /// rounded to f32, which becomes the body's translation.
    pub fn from_polygons(polygons: &[Polygon]) -> Result<Packed> {
        let mut packed = Packed::default();
        packed.repack(polygons)?;
        Ok(packed)
    }

    /// [`from_polygons`](Packed::from_polygons) into this one's vectors, reusing their memory: a
    /// program that sets new polygons every frame then touches no fresh pages (for 10,000
    /// polygons of 63 vertices on average, fresh pages cost more than the packing itself).
    /// Packs on every core (the GPU is idle meanwhile); the result does not depend on how many.
    ///
    /// Every vector is reserved fallibly: memory the system refuses is [`Error::HostMemory`].
    pub fn repack(&mut self, polygons: &[Polygon]) -> Result<()> {
        use rayon::prelude::*;
        let n = polygons.len();
        let bodies = &mut self.bodies;
        bodies.clear();
        try_reserve(bodies, n, "packed bodies")?;
        let mut start = 0u32;
        for p in polygons {
            let count = p.vertices().len() as u32;
            bodies.push(GpuBody { shape_start: start, count, ..GpuBody::zeroed() });
            start += records(count);
        }
        self.shape_data.clear();
        try_reserve(&mut self.shape_data, start as usize, "packed shape vertices")?;
        self.shape_data.resize(start as usize, [0.0f32; 4]);
        let mut slices = vec![];
        try_reserve(&mut slices, n, "packing slices")?;
        let mut rest = self.shape_data.as_mut_slice();
        for b in bodies.iter() {
            let (mine, tail) = rest.split_at_mut(records(b.count) as usize);
            slices.push(mine);
            rest = tail;
        }
        self.transforms.clear();
        try_reserve(&mut self.transforms, n, "packed transforms")?;
        self.transforms.resize(n, [0.0f32; 4]);
        self.boxes.clear();
        try_reserve(&mut self.boxes, n, "packed boxes")?;
        self.boxes.resize(n, [0.0f32; 4]);
        let mut heights = vec![];
        try_reserve(&mut heights, n, "shape heights")?;
        heights.resize(n, 0.0f64);
        let per_body = self.transforms.par_iter_mut().zip(&mut self.boxes).zip(&mut heights).zip(bodies);
        polygons.par_iter().zip(slices).zip(per_body).for_each(|((p, out), (((t, local_box), h), body))| {
            let v = p.vertices();
            let anchor = v[0].map(|c| c as f32);
            *t = [anchor[0], anchor[1], 1.0, 0.0];
            // One pass over the input vertices (at 63 vertices per polygon, packing is bound by
            // memory), then for a shape of more than SMALL vertices one over its packed records,
            // still in cache, for its inner circle.
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            let mut bounds = LocalBounds::default();
            for ((o, v), n) in out[..v.len()].iter_mut().zip(v).zip(p.edge_normals()) {
                lo = lo.min(v[1]);
                hi = hi.max(v[1]);
                let local = [0, 1].map(|k| to_frame(v[k], anchor[k]) as f32);
                *o = [local[0], local[1], n[0] as f32, n[1] as f32];
                bounds.add(o);
            }
            *h = hi - lo + 2.0 * p.radius();
            *body = bounds.body(body.shape_start, body.count, p.radius());
            *local_box = bounds.local_box();
            if let Some(inner) = inner_record(&out[..v.len()], body.radius) {
                out[v.len()] = inner;
            }
        });
        self.typical_height = typical_height(&heights);
        Ok(())
    }

    /// Whether some body is a circle or a capsule or has a radius around its core.
    pub fn rounded(&self) -> bool {
        self.bodies.iter().any(|b| b.round > 0.0 || b.count <= 2)
    }

    /// Whether some body has more vertices than the narrow phase's small path takes.
    pub fn large(&self) -> bool {
        self.bodies.iter().any(|b| b.count > SMALL)
    }

    /// Whether `other` has the same bodies with the same vertex counts at the same places, so
    /// its vertex data can overwrite this one's buffers.
    pub fn same_layout(&self, other: &Packed) -> bool {
        self.bodies.len() == other.bodies.len()
            && self.bodies.iter().zip(&other.bodies).all(|(a, b)| (a.count, a.shape_start) == (b.count, b.shape_start))
    }
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
    let n = heights.len();
    if n == 0 {
        return 0.0;
    }
    let m = n.min(HEIGHT_SAMPLES);
    let mut sample: Vec<f64> = (0..m).map(|j| heights[j * n / m]).collect();
    sample.sort_unstable_by(f64::total_cmp);
    let kept = &sample[..m - (m / 16).min(8)];
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// A body's transform as the GPU reads it: `(x, y, cos, sin)` in f32, each rounded to nearest.
/// This is the one place f64 transforms become f32: positions keep f32's 24 bits relative to
/// their own magnitude, which is why each shape is stored relative to its own anchor.
pub(crate) fn transform(body: usize, t: &Transform) -> Result<[f32; 4]> {
    if !(t.x.is_finite() && t.y.is_finite() && t.angle.is_finite()) {
        return Err(Error::NonFiniteTransform { body, x: t.x, y: t.y, angle: t.angle });
    }
    if t.x.abs() > MAX_COORDINATE || t.y.abs() > MAX_COORDINATE {
        return Err(Error::TransformOutOfRange { body, x: t.x, y: t.y, max: MAX_COORDINATE });
    }
    Ok(bytemuck::cast(GpuTransform::new(t.x, t.y, t.angle)))
}

/// How far `cos² + sin²` of a [`GpuTransform`] may be from 1: a few f32 roundings. Any cosine
/// and sine of one angle computed in f32 (or rounded from f64) pass; a rotation that scales a
/// shape by more than a part in two million does not.
pub const ROTATION_TOLERANCE: f64 = 1e-6;

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::geometry::Transform {}
    impl Sealed for crate::gpu::kernels::layout::GpuTransform {}
    impl Sealed for [f32; 3] {}
}

/// A body's pose as a caller holds it, for [`World::set_transforms`](crate::gpu::World::set_transforms):
/// - [`Transform`]: f64 `(x, y, angle)`; the angle's cosine and sine are computed in f64 and
///   rounded once to f32;
/// - `[f32; 3]`: f32 `(x, y, angle)`, as a [`Transform`] of the same values;
/// - [`GpuTransform`]: f32 `(x, y, cos, sin)`, the GPU's own record: checked, then copied.
///
/// Every form is checked as strictly: finite values, translations within
/// [`MAX_COORDINATE`], and for `(cos, sin)` a unit vector within [`ROTATION_TOLERANCE`].
pub trait Pose: sealed::Sealed + Sync {
    /// The pose as the GPU reads it, or the error naming `body`.
    #[doc(hidden)]
    fn to_gpu(&self, body: usize) -> Result<[f32; 4]>;
}

impl Pose for Transform {
    fn to_gpu(&self, body: usize) -> Result<[f32; 4]> {
        transform(body, self)
    }
}

impl Pose for [f32; 3] {
    fn to_gpu(&self, body: usize) -> Result<[f32; 4]> {
        transform(body, &Transform { x: self[0].into(), y: self[1].into(), angle: self[2].into() })
    }
}

impl Pose for GpuTransform {
    fn to_gpu(&self, body: usize) -> Result<[f32; 4]> {
        let [x, y, cos, sin] = [self.x, self.y, self.cos, self.sin].map(f64::from);
        if ![x, y, cos, sin].iter().all(|v| v.is_finite()) {
            return Err(Error::NonFiniteTransform { body, x, y, angle: sin.atan2(cos) });
        }
        if x.abs() > MAX_COORDINATE || y.abs() > MAX_COORDINATE {
            return Err(Error::TransformOutOfRange { body, x, y, max: MAX_COORDINATE });
        }
        if (cos * cos + sin * sin - 1.0).abs() > ROTATION_TOLERANCE {
            return Err(Error::RotationNotUnit { body, cos, sin, tolerance: ROTATION_TOLERANCE });
        }
        Ok(bytemuck::cast(*self))
    }
}

/// Where the poses of a frame come from: one array of [`Pose`]s, or the arrays of
/// [`PoseArrays`]. Body `i`'s pose is `to_gpu(i)`.
pub(crate) trait PoseSource: Sync {
    /// The number of poses.
    fn len(&self) -> usize;
    /// Body `i`'s pose as the GPU reads it, or the error naming it.
    fn to_gpu(&self, i: usize) -> Result<[f32; 4]>;
}

impl<P: Pose> PoseSource for [P] {
    fn len(&self) -> usize {
        <[P]>::len(self)
    }
    fn to_gpu(&self, i: usize) -> Result<[f32; 4]> {
        self[i].to_gpu(i)
    }
}

mod sealed_scalar {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The number types of [`PoseArrays`]: `f64` or `f32`.
pub trait PoseScalar: sealed_scalar::Sealed + Copy + Into<f64> + Sync {}
impl PoseScalar for f32 {}
impl PoseScalar for f64 {}

/// Poses held as separate arrays, as NumPy and entity-component stores hold them: body `i` is
/// translated by `xy[i]` and turned by `angle[i]` radians (counter-clockwise). Read where they
/// lie by [`World::set_pose_arrays`](crate::gpu::World::set_pose_arrays); each value becomes a
/// [`Transform`] of the same value (f32 values exactly), so the frame has the bits of the same
/// transforms given any other way.
#[derive(Debug, Clone, Copy)]
pub struct PoseArrays<'a, T: PoseScalar> {
    /// Each body's translation `[x, y]`.
    pub xy: &'a [[T; 2]],
    /// Each body's angle in radians.
    pub angle: &'a [T],
}

impl<T: PoseScalar> PoseSource for PoseArrays<'_, T> {
    fn len(&self) -> usize {
        self.xy.len()
    }
    fn to_gpu(&self, i: usize) -> Result<[f32; 4]> {
        let [x, y] = self.xy[i];
        transform(i, &Transform { x: x.into(), y: y.into(), angle: self.angle[i].into() })
    }
}

/// Poses `base..base + out.len()` of `from` packed into `out`, then all of `out` copied to
/// `staging` if given; or the first bad one's error.
fn convert<S: PoseSource + ?Sized>(
    from: &S,
    base: usize,
    out: &mut [[f32; 4]],
    staging: Option<wgpu::WriteOnly<'_, [u8]>>,
) -> Option<Error> {
    for (j, o) in out.iter_mut().enumerate() {
        match from.to_gpu(base + j) {
            Ok(packed) => *o = packed,
            Err(e) => return Some(e),
        }
    }
    if let Some(mut staging) = staging {
        staging.copy_from_slice(bytemuck::cast_slice(out));
    }
    None
}

/// Transforms per parallel task: large enough that a task's work (about 20 ns per transform)
/// dwarfs rayon's cost of handing it out.
const TRANSFORM_CHUNK: usize = 8192;

/// Every transform packed, or the first bad one's error.
#[cfg(test)]
pub(crate) fn transforms<P: Pose>(transforms: &[P]) -> Result<Vec<[f32; 4]>> {
    let mut out = vec![];
    transforms_into(transforms, &mut out, None)?;
    Ok(out)
}

/// Every transform packed into `out` (resized to fit, its memory reused) and, with `staging`
/// (16 bytes per transform, write-only: wgpu's mapped staging memory), written there too, chunk
/// by chunk while the chunk is in cache; on every core in chunks of [`TRANSFORM_CHUNK`]. Or the
/// error of the first bad transform, by index, whatever the threads (`out` and `staging` then
/// hold a partial result). Each transform is converted by [`transform`] alone, so the result does
/// not depend on the number of threads.
pub(crate) fn transforms_into<S: PoseSource + ?Sized>(
    transforms: &S,
    out: &mut Vec<[f32; 4]>,
    staging: Option<wgpu::WriteOnly<'_, [u8]>>,
) -> Result<()> {
    use rayon::prelude::*;
    // Every record is written below: the last call's memory is reused as it is, not cleared.
    out.truncate(transforms.len());
    try_reserve(out, transforms.len() - out.len(), "packed transforms")?;
    out.resize(transforms.len(), [0.0; 4]);
    // The staging memory in pieces of one chunk each (wgpu's write-only views of arrays may go
    // to other threads) and the rest, for the last, partial chunk.
    const BYTES: usize = 16 * TRANSFORM_CHUNK;
    let full = transforms.len() / TRANSFORM_CHUNK;
    let (mut pieces, rest) = match staging {
        Some(staging) => {
            assert_eq!(staging.len(), 16 * transforms.len(), "16 bytes of staging per transform");
            let (arrays, rest) = staging.into_chunks::<BYTES>();
            (arrays.into_iter().map(Some).collect(), Some(rest))
        }
        None => (vec![], None),
    };
    pieces.resize_with(full, || None);
    let (head, tail) = out.split_at_mut(full * TRANSFORM_CHUNK);
    let errors: Vec<Option<Error>> = head
        .par_chunks_mut(TRANSFORM_CHUNK)
        .zip(pieces)
        .enumerate()
        .map(|(c, (out, piece))| convert(transforms, c * TRANSFORM_CHUNK, out, piece.map(Into::into)))
        .collect();
    let first_error =
        errors.into_iter().flatten().next().or_else(|| convert(transforms, full * TRANSFORM_CHUNK, tail, rest));
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f64, y: f64, side: f64) -> Polygon {
        Polygon::new(vec![[x, y], [x + side, y], [x + side, y + side], [x, y + side]]).unwrap()
    }

    #[test]
    fn polygons_are_stored_relative_to_their_first_vertex() {
        let polygons = [square(1e6, -3.0, 2.0), Polygon::new(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]).unwrap()];
        let p = Packed::from_polygons(&polygons).unwrap();
        assert_eq!(p.bodies.len(), 2);
        assert_eq!((p.bodies[0].shape_start, p.bodies[0].count), (0, 4));
        assert_eq!((p.bodies[1].shape_start, p.bodies[1].count), (4, 3));
        assert_eq!(p.transforms[0], [1e6, -3.0, 1.0, 0.0]);
        assert_eq!(p.shape_data[0], [0.0, 0.0, 0.0, -1.0]);
        assert_eq!(p.shape_data[2], [2.0, 2.0, 0.0, 1.0]);
        assert_eq!(p.typical_height, 1.5);
        // The radius bounds every vertex's distance from the anchor.
        assert!(f64::from(p.bodies[0].radius) >= 8f64.sqrt());
        assert!(f64::from(p.bodies[0].radius) < 8f64.sqrt() * 1.001);
    }

    #[test]
    fn shared_shapes_and_unknown_shapes() {
        let shapes = [square(-1.0, -1.0, 2.0)];
        let p = Packed::from_shapes(&shapes, &[0, 0, 0]).unwrap();
        assert_eq!(p.shape_data.len(), 4);
        assert!(p.bodies.iter().all(|b| (b.shape_start, b.count) == (0, 4)));
        assert_eq!(p.transforms, vec![[0.0, 0.0, 1.0, 0.0]; 3]);
        assert_eq!(p.typical_height, 2.0);
        match Packed::from_shapes(&shapes, &[0, 1]) {
            Err(Error::UnknownShape { body: 1, shape: 1, shapes: 1 }) => {}
            other => panic!("expected UnknownShape, got {other:?}"),
        }
    }

    #[test]
    fn packing_is_the_same_on_any_number_of_threads() {
        let polygons: Vec<_> =
            (0..5000).map(|i| square(f64::from(i) * 0.37, f64::from(i % 17), 1.0 + f64::from(i % 5))).collect();
        let many = Packed::from_polygons(&polygons).unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| Packed::from_polygons(&polygons).unwrap());
        assert_eq!(many, one);
        assert!(many.same_layout(&one));
        assert!(!many.same_layout(&Packed::from_polygons(&polygons[1..]).unwrap()));
    }

    #[test]
    fn a_few_huge_bodies_do_not_set_the_typical_height() {
        let mut heights = vec![2.0; 20_000];
        assert_eq!(typical_height(&heights), 2.0);
        for i in [0, 4_096 * 3, 19_999] {
            heights[i] = 1e20;
        }
        // Sampled or not, the three strays are left out.
        assert_eq!(typical_height(&heights), 2.0);
        // A heavy tail of sizes still raises it.
        for h in heights.iter_mut().step_by(10) {
            *h = 100.0;
        }
        assert!(typical_height(&heights) > 10.0);
        assert_eq!(typical_height(&[]), 0.0);
        assert_eq!(typical_height(&[3.0]), 3.0);
    }

    #[test]
    fn transforms_round_once_and_reject_what_f32_cannot_hold() {
        let t = transform(0, &Transform { x: 0.1, y: -2.0, angle: 0.0 }).unwrap();
        assert_eq!(t, [0.1f32, -2.0, 1.0, 0.0]);
        let bad = [Transform { x: 1e39, y: 0.0, angle: 0.0 }];
        assert!(matches!(transforms(&bad), Err(Error::TransformOutOfRange { body: 0, .. })));
        let nan = [Transform { x: 0.0, y: 0.0, angle: 0.0 }, Transform { x: 0.0, y: f64::NAN, angle: 0.0 }];
        assert!(matches!(transforms(&nan), Err(Error::NonFiniteTransform { body: 1, .. })));
    }

    /// Issue 24: f32 poses, `(x, y, cos, sin)` and `(x, y, angle)`, pack to the bits of the f64
    /// transform they round from, and are checked as strictly, with the body named.
    #[test]
    fn f32_poses_pack_to_the_same_bits_and_are_checked() {
        let t = Transform { x: 0.1, y: -2.5, angle: 0.7 };
        let want = transform(4, &t).unwrap();
        assert_eq!(GpuTransform::new(t.x, t.y, t.angle).to_gpu(4).unwrap(), want);
        let exact = Transform { x: 0.5, y: -2.5, angle: f64::from(0.7f32) };
        assert_eq!([0.5f32, -2.5, 0.7].to_gpu(2).unwrap(), transform(2, &exact).unwrap());
        let pose = |x: f32, y: f32, cos: f32, sin: f32| GpuTransform { x, y, cos, sin };
        // f32 cosines and sines of one angle pass, whatever their rounding.
        for angle in (0..1000).map(|i| i as f32 * 0.0137) {
            pose(1.0, 2.0, angle.cos(), angle.sin()).to_gpu(0).unwrap();
        }
        let cases = [
            (pose(f32::NAN, 0.0, 1.0, 0.0), "non-finite"),
            (pose(0.0, 0.0, f32::INFINITY, 0.0), "non-finite"),
            (pose(0.0, 3e38, 1.0, 0.0), "out of range"),
            (pose(0.0, 0.0, 1.0, 0.01), "not unit"),
            (pose(0.0, 0.0, 0.0, 0.0), "not unit"),
        ];
        for (bad, what) in cases {
            let poses = [pose(0.0, 0.0, 1.0, 0.0), pose(0.0, 0.0, 0.0, 1.0), bad];
            let err = transforms(&poses).unwrap_err();
            let body = match (&err, what) {
                (Error::NonFiniteTransform { body, .. }, "non-finite") => *body,
                (Error::TransformOutOfRange { body, .. }, "out of range") => *body,
                (Error::RotationNotUnit { body, .. }, "not unit") => *body,
                _ => panic!("{bad:?}: expected {what}, got {err:?}"),
            };
            assert_eq!(body, 2, "{err}");
        }
        assert!(matches!([0.0f32, f32::NAN, 0.0].to_gpu(1), Err(Error::NonFiniteTransform { body: 1, .. })));
    }

    /// Issue 24: the transforms convert on every core, chunk by chunk, to the same bits as one
    /// by one, and the error names the first bad transform whichever thread finds one first:
    /// here bad ones sit at the end of the first chunk, in a middle chunk and in the last.
    #[test]
    fn transforms_convert_in_parallel_to_the_same_bits_and_the_first_error() {
        let n = 5 * TRANSFORM_CHUNK + 17;
        let ts: Vec<Transform> = (0..n)
            .map(|i| {
                let f = i as f64;
                Transform { x: f * 1.37 - 3e4, y: (f * 0.11).sin() * 1e6, angle: f * 0.001 - 20.0 }
            })
            .collect();
        let mut out = vec![[9.0f32; 4]; 3];
        let mut staging = vec![0u8; 16 * n];
        transforms_into(&ts[..], &mut out, Some(staging.as_mut_slice().into())).unwrap();
        assert_eq!(staging, bytemuck::cast_slice::<[f32; 4], u8>(&out), "the staging copy is the packed one");
        let one_by_one: Vec<[f32; 4]> = ts.iter().enumerate().map(|(i, t)| transform(i, t).unwrap()).collect();
        assert_eq!(out.len(), n);
        assert!(out.iter().zip(&one_by_one).all(|(a, b)| a.map(f32::to_bits) == b.map(f32::to_bits)));
        // The same transforms as separate arrays give the same bits.
        let xy: Vec<[f64; 2]> = ts.iter().map(|t| [t.x, t.y]).collect();
        let angle: Vec<f64> = ts.iter().map(|t| t.angle).collect();
        let mut split = vec![];
        transforms_into(&PoseArrays { xy: &xy, angle: &angle }, &mut split, None).unwrap();
        assert!(split.iter().zip(&one_by_one).all(|(a, b)| a.map(f32::to_bits) == b.map(f32::to_bits)));
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        for bad in [TRANSFORM_CHUNK - 1, 3 * TRANSFORM_CHUNK + 5, n - 1] {
            let mut broken = ts.clone();
            broken[bad].angle = f64::INFINITY;
            broken[n - 1].x = 1e38;
            let expect_bad = |r: Result<()>| match r {
                Err(Error::NonFiniteTransform { body, .. }) => assert_eq!(body, bad),
                Err(Error::TransformOutOfRange { body, .. }) => assert_eq!((body, bad), (n - 1, n - 1)),
                other => panic!("expected the error of transform {bad}, got {other:?}"),
            };
            expect_bad(transforms_into(&broken[..], &mut out, None));
            expect_bad(one.install(|| transforms_into(&broken[..], &mut out, Some(staging.as_mut_slice().into()))));
            let angle: Vec<f64> = broken.iter().map(|t| t.angle).collect();
            let xy: Vec<[f64; 2]> = broken.iter().map(|t| [t.x, t.y]).collect();
            expect_bad(transforms_into(&PoseArrays { xy: &xy, angle: &angle }, &mut out, None));
        }
        transforms_into::<[Transform]>(&[], &mut out, Some((&mut [][..]).into())).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn large_shapes_carry_an_inner_circle() {
        // A regular 16-gon of radius 2 round (5, 5), stored relative to its first vertex.
        let k = 16;
        let ring: Vec<[f64; 2]> = (0..k)
            .map(|i| {
                let t = std::f64::consts::TAU * f64::from(i) / f64::from(k);
                [5.0 + 2.0 * t.cos(), 5.0 + 2.0 * t.sin()]
            })
            .collect();
        let polygons = [square(0.0, 0.0, 1.0), Polygon::new(ring).unwrap(), square(9.0, 9.0, 1.0)];
        let p = Packed::from_polygons(&polygons).unwrap();
        let starts: Vec<_> = p.bodies.iter().map(|b| (b.shape_start, b.count)).collect();
        assert_eq!(starts, [(0, 4), (4, 16), (21, 4)]);
        assert_eq!(p.shape_data.len(), 25);
        let [cx, cy, r, pad] = p.shape_data[20];
        // Vertices 0, 4, 8 and 12 are (7, 5), (5, 7), (3, 5) and (5, 3): the centre, relative to
        // vertex 0, is (-2, 0).
        assert!((f64::from(cx) + 2.0).abs() < 1e-6 && f64::from(cy).abs() < 1e-6, "{cx} {cy}");
        let apothem = 2.0 * (std::f64::consts::PI / 16.0).cos();
        assert!(f64::from(r) <= apothem && f64::from(r) > apothem - 1e-4, "{r} {apothem}");
        assert_eq!(pad, 0.0);
        // Shared shapes carry it the same way.
        let shared = Packed::from_shapes(&polygons[1..2], &[0, 0]).unwrap();
        assert_eq!(shared.shape_data.len(), 17);
        assert_eq!(shared.shape_data[16][2], inner_circle(&shared.shape_data[..16], shared.bodies[0].radius).1);
    }
}
