//! Packing a frame's polygons of an unchanged layout straight into wgpu's staging memory as well
//! as into the host's copy: each piece of shape records is copied to the staging memory while it
//! is still in cache, instead of in a second pass over memory (`World::set_polygons`).

use std::borrow::Borrow;
use std::ops::Range;

use bytemuck::Zeroable;

use super::{flags, pack_polygon, records, resize_reusing, vertex_count, Packed};
use crate::error::Result;
use crate::geometry::Polygon;
use crate::gpu::kernels::layout::GpuInstance;

/// Bytes per staging piece (16 per shape record): a piece and the polygons that start in it
/// stay in a core's cache between packing and copying.
const PIECE_BYTES: usize = 16 * 8192;

impl Packed {
    /// Whether `polygons` can be packed over this packing as it lies: this one packs each body's
    /// own shape, one after the other (as [`repack`](Packed::repack) does), there are as many
    /// polygons as bodies, and each has its body's vertex count. Then every record keeps its
    /// place, and only the data of each buffer changes.
    pub fn fits_layout<P: Borrow<Polygon> + Sync>(&self, polygons: &[P]) -> bool {
        use rayon::prelude::*;
        self.dense
            && polygons.len() == self.bodies.len()
            && polygons.par_iter().zip(&self.bodies).all(|(p, b)| vertex_count(p.borrow()) == b.count)
    }

    /// This one's vectors as long as `like`'s, their memory reused as it is, before
    /// [`restream`](Packed::restream)ing over `like`: memory the system refuses is
    /// [`Error::HostMemory`](crate::Error::HostMemory), before anything is written anywhere.
    pub fn make_room(&mut self, like: &Packed) -> Result<()> {
        let (n, total) = (like.bodies.len(), like.shape_data.len());
        resize_reusing(&mut self.bodies, n, GpuInstance::zeroed(), "packed bodies")?;
        resize_reusing(&mut self.shape_data, total, [0.0; 4], "packed shape vertices")?;
        resize_reusing(&mut self.transforms, n, [0.0; 4], "packed transforms")?;
        resize_reusing(&mut self.boxes, n, [0.0; 4], "packed boxes")
    }

    /// `polygons` packed as [`repack`](Packed::repack) packs them, for polygons that
    /// [`fit the layout`](Packed::fits_layout) of `like` (the caller checks): every record lands
    /// where `like` has it, so each piece of [`PIECE_BYTES`] of shape records is packed and then
    /// copied into `staging` (the staging memory of the whole shape buffer, 16 bytes per record)
    /// at once, on every core. Without `staging`, only the host's vectors are written. The
    /// typical height is `like`'s. This one has [`make_room`](Packed::make_room) first.
    pub fn restream<P: Borrow<Polygon> + Sync>(
        &mut self,
        polygons: &[P],
        like: &Packed,
        staging: Option<wgpu::WriteOnly<'_, [u8]>>,
    ) {
        self.restream_in::<P, PIECE_BYTES>(polygons, like, staging)
    }

    /// [`restream`](Packed::restream) in pieces of `BYTES` (the tests use small ones).
    fn restream_in<P: Borrow<Polygon> + Sync, const BYTES: usize>(
        &mut self,
        polygons: &[P],
        like: &Packed,
        staging: Option<wgpu::WriteOnly<'_, [u8]>>,
    ) {
        use rayon::prelude::*;
        const { assert!(BYTES.is_multiple_of(16) && BYTES > 0) };
        let piece = BYTES / 16;
        let (n, total) = (polygons.len(), like.shape_data.len());
        debug_assert!(like.fits_layout(polygons));
        assert!(self.bodies.len() == n && self.shape_data.len() == total, "room made for the packing");
        assert!(self.transforms.len() == n && self.boxes.len() == n, "room made for the packing");
        let start = |i: usize| like.bodies.get(i).map_or(total, |b| b.shape_start as usize);
        // Piece j holds records j piece.. and packs the polygons whose shape starts there.
        let pieces = total.div_ceil(piece);
        let first: Vec<usize> =
            (0..=pieces).map(|j| like.bodies.partition_point(|b| (b.shape_start as usize) < j * piece)).collect();
        let mut tasks = Vec::with_capacity(pieces);
        let (mut shapes, mut bodies) = (self.shape_data.as_mut_slice(), self.bodies.as_mut_slice());
        let (mut transforms, mut boxes) = (self.transforms.as_mut_slice(), self.boxes.as_mut_slice());
        for j in 0..pieces {
            let own = first[j]..first[j + 1];
            let (s, rest) = std::mem::take(&mut shapes).split_at_mut(start(own.end) - start(own.start));
            let (b, b_rest) = std::mem::take(&mut bodies).split_at_mut(own.len());
            let (t, t_rest) = std::mem::take(&mut transforms).split_at_mut(own.len());
            let (x, x_rest) = std::mem::take(&mut boxes).split_at_mut(own.len());
            (shapes, bodies, transforms, boxes) = (rest, b_rest, t_rest, x_rest);
            let records = j * piece..((j + 1) * piece).min(total);
            tasks.push(Piece { range: records, own, shapes: s, bodies: b, transforms: t, boxes: x });
        }
        // The staging memory in pieces of a fixed size (wgpu's write-only views go to other
        // threads as arrays only), the last, shorter one on this thread.
        let (full, last) = match staging {
            Some(staging) => {
                assert_eq!(staging.len(), 16 * total, "16 bytes of staging per shape record");
                let (arrays, rest) = staging.into_chunks::<BYTES>();
                (arrays.into_iter().map(Some).collect(), (!rest.is_empty()).then_some(rest))
            }
            None => (vec![], None),
        };
        let mut views: Vec<Option<wgpu::WriteOnly<'_, [u8; BYTES]>>> = full;
        views.resize_with(total / piece, || None);
        let tail = (tasks.len() > views.len()).then(|| tasks.pop().expect("a shorter last piece"));
        let mut found = tasks
            .into_par_iter()
            .zip(views)
            .map(|(task, view)| task.pack(polygons, like, view.map(Into::into)))
            .reduce(|| (false, false), |a, b| (a.0 || b.0, a.1 || b.1));
        if let Some(task) = tail {
            let f = task.pack(polygons, like, last);
            found = (found.0 || f.0, found.1 || f.1);
        }
        (self.rounded, self.large, self.dense) = (found.0, found.1, true);
        self.typical_height = like.typical_height;
    }
}

/// One staging piece's work: its records, the polygons that start in it, and their share of
/// the host's vectors.
struct Piece<'a> {
    /// The shape records of the piece (a piece's worth, fewer in the last).
    range: Range<usize>,
    /// The polygons whose shape starts in the piece.
    own: Range<usize>,
    /// Their shape records (which may reach past the piece).
    shapes: &'a mut [[f32; 4]],
    bodies: &'a mut [GpuInstance],
    transforms: &'a mut [[f32; 4]],
    boxes: &'a mut [[f32; 4]],
}

impl Piece<'_> {
    /// Packs the piece's own polygons, then writes its records to `staging`: first those of the
    /// polygon that starts before the piece and reaches into it (packed again, on the side),
    /// then its own. Returns the rounded and large flags of its own bodies.
    fn pack<P: Borrow<Polygon>>(
        self,
        polygons: &[P],
        like: &Packed,
        staging: Option<wgpu::WriteOnly<'_, [u8]>>,
    ) -> (bool, bool) {
        let start = |i: usize| like.bodies.get(i).map_or(like.shape_data.len(), |b| b.shape_start as usize);
        let Piece { range, own, shapes, bodies, transforms, boxes } = self;
        let mut out = &mut *shapes;
        for (i, ((body, t), local_box)) in own.clone().zip(bodies.iter_mut().zip(transforms).zip(boxes)) {
            let p: &Polygon = polygons[i].borrow();
            let (mine, rest) = std::mem::take(&mut out).split_at_mut(records(vertex_count(p)) as usize);
            out = rest;
            pack_polygon(p, mine, start(i) as u32, body, t, local_box);
        }
        let found = flags(bodies);
        let Some(mut staging) = staging else { return found };
        // Records before the first own polygon's belong to the one before it.
        let head = start(own.start).min(range.end) - range.start;
        if head > 0 {
            let i = own.start - 1;
            let p: &Polygon = polygons[i].borrow();
            let mut scratch = vec![[0.0f32; 4]; records(vertex_count(p)) as usize];
            let (mut body, mut t, mut local_box) = (GpuInstance::zeroed(), [0.0; 4], [0.0; 4]);
            pack_polygon(p, &mut scratch, start(i) as u32, &mut body, &mut t, &mut local_box);
            let from = range.start - start(i);
            staging.slice(..16 * head).copy_from_slice(bytemuck::cast_slice(&scratch[from..from + head]));
        }
        staging.slice(16 * head..).copy_from_slice(bytemuck::cast_slice(&shapes[..range.len() - head]));
        found
    }
}

#[cfg(test)]
mod tests;
