//! Packing a frame's polygons of an unchanged layout straight into wgpu's staging memory as well
//! as into the host's copy: each chunk's records are copied to the staging memory while they are
//! still in cache, instead of in a second pass over memory (`World::set_polygons`).

use std::borrow::Borrow;

use bytemuck::Zeroable;

use super::{flags, pack_polygon, records, resize_reusing, vertex_count, Packed, PACK_CHUNK};
use crate::error::Result;
use crate::geometry::Polygon;
use crate::gpu::kernels::layout::GpuInstance;

/// Bytes per piece of the shape records' staging memory (16 per record). wgpu's write-only views
/// go to other threads as arrays of a fixed size only, while a chunk's records start anywhere:
/// a chunk writes the pieces that start among its records, packing the few polygons after it
/// again, on the side, to fill its last one.
const SHAPE_PIECE: usize = 4096;

/// The staging memory of every buffer a repack overwrites, each as long as the host's vector it
/// copies.
pub(crate) struct Staging<'a> {
    pub shapes: wgpu::WriteOnly<'a, [u8]>,
    pub bodies: wgpu::WriteOnly<'a, [u8]>,
    pub boxes: wgpu::WriteOnly<'a, [u8]>,
    /// The transforms' buffer, and with continuous collision the start poses' too.
    pub transforms: Vec<wgpu::WriteOnly<'a, [u8]>>,
}

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

    /// Where body `i`'s shape records start; past the last body, the end of every record.
    fn shape_start(&self, i: usize) -> usize {
        self.bodies.get(i).map_or(self.shape_data.len(), |b| b.shape_start as usize)
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
    /// [`fit the layout`](Packed::fits_layout) of `like` (the caller checks), every record where
    /// `like` has it: on every core in chunks of [`PACK_CHUNK`] polygons, each chunk's records
    /// copied into `staging` while they are in cache. Without `staging`, only the host's vectors
    /// are written. The typical height is `like`'s. This one has [`make_room`](Packed::make_room)
    /// first.
    pub fn restream<P: Borrow<Polygon> + Sync>(&mut self, polygons: &[P], like: &Packed, staging: Option<Staging<'_>>) {
        self.restream_in::<P, SHAPE_PIECE, { 16 * PACK_CHUNK }>(polygons, like, staging)
    }

    /// [`restream`](Packed::restream) in pieces of `SHAPE` bytes and chunks of `CHUNK / 16`
    /// polygons (the tests use small ones).
    fn restream_in<P: Borrow<Polygon> + Sync, const SHAPE: usize, const CHUNK: usize>(
        &mut self,
        polygons: &[P],
        like: &Packed,
        staging: Option<Staging<'_>>,
    ) {
        use rayon::prelude::*;
        const { assert!(SHAPE.is_multiple_of(16) && SHAPE > 0 && CHUNK.is_multiple_of(16) && CHUNK > 0) };
        let (n, total, chunk, piece) = (polygons.len(), like.shape_data.len(), CHUNK / 16, SHAPE / 16);
        debug_assert!(like.fits_layout(polygons));
        assert!(self.bodies.len() == n && self.shape_data.len() == total, "room made for the packing");
        assert!(self.transforms.len() == n && self.boxes.len() == n, "room made for the packing");
        let start = |i: usize| like.shape_start(i);
        let chunks = n.div_ceil(chunk);
        // Each chunk's share of the host's vectors, and of the staging memory: the whole pieces
        // of shape records that start among its records, and its bodies' records where it has
        // all `chunk` of them. What is left (the shape records' last, shorter piece and the last,
        // shorter chunk's bodies) is copied from the host's vectors at the end.
        let (mut shape_pieces, mut body_pieces, mut rests) = (vec![], vec![], None);
        if let Some(Staging { shapes, bodies, boxes, transforms }) = staging {
            assert_eq!(shapes.len(), 16 * total, "16 bytes of staging per shape record");
            for view in [&bodies, &boxes].into_iter().chain(&transforms) {
                assert_eq!(view.len(), 16 * n, "16 bytes of staging per body");
            }
            let (arrays, rest) = shapes.into_chunks::<SHAPE>();
            shape_pieces = arrays.into_iter().collect();
            let mut lists = vec![];
            let mut list_rests = vec![];
            for view in [bodies, boxes].into_iter().chain(transforms) {
                let (arrays, rest) = view.into_chunks::<CHUNK>();
                lists.push(arrays.into_iter());
                list_rests.push(rest);
            }
            body_pieces =
                (0..n / chunk).map(|_| lists.iter_mut().map(|l| l.next().expect("a piece")).collect()).collect();
            rests = Some((rest, list_rests));
        }
        let mut tasks: Vec<Chunk<'_, SHAPE, CHUNK>> = Vec::with_capacity(chunks);
        let (mut shapes, mut bodies) = (self.shape_data.as_mut_slice(), self.bodies.as_mut_slice());
        let (mut transforms, mut boxes) = (self.transforms.as_mut_slice(), self.boxes.as_mut_slice());
        let mut pieces = shape_pieces.into_iter();
        let mut body_pieces = body_pieces.into_iter();
        let mut next_piece = 0;
        for k in 0..chunks {
            let own = k * chunk..((k + 1) * chunk).min(n);
            let (s, rest) = std::mem::take(&mut shapes).split_at_mut(start(own.end) - start(own.start));
            let (b, b_rest) = std::mem::take(&mut bodies).split_at_mut(own.len());
            let (t, t_rest) = std::mem::take(&mut transforms).split_at_mut(own.len());
            let (x, x_rest) = std::mem::take(&mut boxes).split_at_mut(own.len());
            (shapes, bodies, transforms, boxes) = (rest, b_rest, t_rest, x_rest);
            // The pieces that start among the chunk's records.
            let first_piece = next_piece;
            let mut mine = vec![];
            while next_piece * piece < start(own.end) {
                match pieces.next() {
                    Some(view) => mine.push(view),
                    None => break,
                }
                next_piece += 1;
            }
            let body_views = body_pieces.next();
            tasks.push(Chunk {
                own,
                first_piece,
                pieces: mine,
                body_views,
                shapes: s,
                bodies: b,
                transforms: t,
                boxes: x,
            });
        }
        let found = tasks
            .into_par_iter()
            .map(|task| task.pack(polygons, like))
            .reduce(|| (false, false), |a, b| (a.0 || b.0, a.1 || b.1));
        (self.rounded, self.large, self.dense) = (found.0, found.1, true);
        self.typical_height = like.typical_height;
        if let Some((mut shape_rest, mut list_rests)) = rests {
            shape_rest.copy_from_slice(bytemuck::cast_slice(&self.shape_data[total / piece * piece..]));
            let whole = n / chunk * chunk;
            list_rests[0].copy_from_slice(bytemuck::cast_slice(&self.bodies[whole..]));
            list_rests[1].copy_from_slice(bytemuck::cast_slice(&self.boxes[whole..]));
            for view in &mut list_rests[2..] {
                view.copy_from_slice(bytemuck::cast_slice(&self.transforms[whole..]));
            }
        }
    }
}

/// One chunk's work: its polygons, their share of the host's vectors, and its share of the
/// staging memory.
struct Chunk<'a, const SHAPE: usize, const CHUNK: usize> {
    own: std::ops::Range<usize>,
    /// The index of the first of `pieces`.
    first_piece: usize,
    /// The whole pieces of shape records' staging memory that start among the chunk's records.
    pieces: Vec<wgpu::WriteOnly<'a, [u8; SHAPE]>>,
    /// Where the chunk has all its polygons: the staging memory of its bodies, boxes and
    /// transforms (and start poses), in that order.
    body_views: Option<Vec<wgpu::WriteOnly<'a, [u8; CHUNK]>>>,
    shapes: &'a mut [[f32; 4]],
    bodies: &'a mut [GpuInstance],
    transforms: &'a mut [[f32; 4]],
    boxes: &'a mut [[f32; 4]],
}

impl<const SHAPE: usize, const CHUNK: usize> Chunk<'_, SHAPE, CHUNK> {
    /// Packs the chunk's polygons, then copies their records into its staging memory: the
    /// pieces that start among its shape records, the last one filled with the records of the
    /// polygons after the chunk, packed again on the side. Returns the rounded and large flags
    /// of its bodies.
    fn pack<P: Borrow<Polygon>>(self, polygons: &[P], like: &Packed) -> (bool, bool) {
        let total = like.shape_data.len();
        let start = |i: usize| like.shape_start(i);
        let Chunk { own, first_piece, pieces, body_views, shapes, bodies, transforms, boxes } = self;
        let mut out = &mut *shapes;
        for (i, ((body, t), local_box)) in
            own.clone().zip(bodies.iter_mut().zip(transforms.iter_mut()).zip(boxes.iter_mut()))
        {
            let p: &Polygon = polygons[i].borrow();
            let (mine, rest) = std::mem::take(&mut out).split_at_mut(records(vertex_count(p)) as usize);
            out = rest;
            pack_polygon(p, mine, start(i) as u32, body, t, local_box);
        }
        let found = flags(bodies);
        if let Some(views) = body_views {
            let mut views = views.into_iter().map(wgpu::WriteOnly::<[u8]>::from);
            let mut copy = |bytes: &[u8]| views.next().expect("a view").copy_from_slice(bytes);
            copy(bytemuck::cast_slice(bodies));
            copy(bytemuck::cast_slice(boxes));
            for mut view in views {
                view.copy_from_slice(bytemuck::cast_slice(transforms));
            }
        }
        // The shape pieces: records from the chunk's, then from the polygons after it.
        let (from, end) = (start(own.start), start(own.end));
        let piece = SHAPE / 16;
        // Where the chunk's last piece ends (none: its records, nothing after them).
        let last_end = if pieces.is_empty() { end } else { (first_piece + pieces.len()) * piece };
        let mut after: Vec<[f32; 4]> = vec![];
        let mut i = own.end;
        while end + after.len() < last_end.min(total) {
            let p: &Polygon = polygons[i].borrow();
            let at = after.len();
            after.resize(at + records(vertex_count(p)) as usize, [0.0; 4]);
            let (mut body, mut t, mut local_box) = (GpuInstance::zeroed(), [0.0; 4], [0.0; 4]);
            pack_polygon(p, &mut after[at..], start(i) as u32, &mut body, &mut t, &mut local_box);
            i += 1;
        }
        for (j, view) in pieces.into_iter().enumerate() {
            let range = (first_piece + j) * piece..(first_piece + j + 1) * piece;
            let mut view: wgpu::WriteOnly<'_, [u8]> = view.into();
            let inside = range.end.min(end) - range.start;
            view.slice(..16 * inside).copy_from_slice(bytemuck::cast_slice(&shapes[range.start - from..][..inside]));
            if inside < piece {
                view.slice(16 * inside..).copy_from_slice(bytemuck::cast_slice(&after[..piece - inside]));
            }
        }
        found
    }
}

#[cfg(test)]
mod tests;
