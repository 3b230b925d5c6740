//! Poses: a caller's transforms in the layout the GPU reads, checked, on every core and straight
//! into wgpu's staging memory.

use crate::error::{Error, Result};
use crate::geometry::{Periodic, Transform, MAX_COORDINATE};
use crate::gpu::kernels::layout::GpuTransform;

use super::resize_reusing;

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

impl<T: PoseScalar> PoseArrays<'_, T> {
    /// Whether these poses can place `bodies` bodies, checked as
    /// [`World::set_pose_arrays`](crate::gpu::World::set_pose_arrays) checks them, with its
    /// errors: one pose per body ([`Error::TransformCount`]), each finite and in range (the
    /// first bad one's error, by index, on every core). For a caller that holds poses for worlds
    /// made later, such as a tiled world, and owes its caller the World's errors now.
    pub fn check(&self, bodies: usize) -> Result<()> {
        use rayon::prelude::*;
        if self.angle.len() != bodies || self.xy.len() != bodies {
            return Err(Error::TransformCount { got: self.angle.len(), expected: bodies });
        }
        match (0..bodies).into_par_iter().find_first(|&i| self.to_gpu(i).is_err()) {
            Some(i) => self.to_gpu(i).map(|_| ()),
            None => Ok(()),
        }
    }
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
    periodic: Option<&Periodic>,
    staging: Option<wgpu::WriteOnly<'_, [u8]>>,
) -> Option<Error> {
    for (j, o) in out.iter_mut().enumerate() {
        match from.to_gpu(base + j) {
            Ok(packed) => *o = packed,
            Err(e) => return Some(e),
        }
    }
    if let Some(p) = periodic {
        out.iter_mut().for_each(|t| [t[0], t[1]] = p.wrap_f32([t[0], t[1]]));
    }
    if let Some(mut staging) = staging {
        staging.copy_from_slice(bytemuck::cast_slice(out));
    }
    None
}

/// Transforms per parallel task: large enough that a task's work (about 20 ns per transform)
/// dwarfs rayon's cost of handing it out.
pub(super) const TRANSFORM_CHUNK: usize = 8192;

/// Every transform packed, or the first bad one's error.
#[cfg(test)]
pub(crate) fn transforms<P: Pose>(transforms: &[P]) -> Result<Vec<[f32; 4]>> {
    let mut out = vec![];
    transforms_into(transforms, None, &mut out, None)?;
    Ok(out)
}

/// Every transform packed into `out` (resized to fit, its memory reused) and, with `staging`
/// (16 bytes per transform, write-only: wgpu's mapped staging memory), written there too, chunk
/// by chunk while the chunk is in cache; on every core in chunks of [`TRANSFORM_CHUNK`]. Or the
/// error of the first bad transform, by index, whatever the threads (`out` and `staging` then
/// hold a partial result). Each transform is converted by [`transform`] alone (in a periodic box,
/// then moved by whole boxes into it), so the result does not depend on the number
/// of threads.
pub(crate) fn transforms_into<S: PoseSource + ?Sized>(
    transforms: &S,
    periodic: Option<&Periodic>,
    out: &mut Vec<[f32; 4]>,
    staging: Option<wgpu::WriteOnly<'_, [u8]>>,
) -> Result<()> {
    use rayon::prelude::*;
    // Every record is written below: the last call's memory is reused as it is, not cleared.
    resize_reusing(out, transforms.len(), [0.0; 4], "packed transforms")?;
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
        .map(|(c, (out, piece))| convert(transforms, c * TRANSFORM_CHUNK, out, periodic, piece.map(Into::into)))
        .collect();
    let first_error = errors
        .into_iter()
        .flatten()
        .next()
        .or_else(|| convert(transforms, full * TRANSFORM_CHUNK, tail, periodic, rest));
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
