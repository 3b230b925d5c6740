//! Region queries (`query.wgsl`), outside the frame: which bodies share a point with each of many
//! boxes (a point is a box of no size), found through the frame's sorted strip entries (the
//! caller records the transform, entry and sort passes first), or by testing every body of the
//! query's world where the world has no strips. One invocation per query walks the strips its
//! box spans and writes each hit `(query, body)` at the next slot of an atomic count, in no
//! fixed order (the host sorts them). On Mesa's software adapters a walk runs in windows (see
//! `query.wgsl`).

use std::mem::offset_of;

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::{dispatch, init, storage};
use crate::gpu::kernels::control;
use crate::gpu::kernels::shared::{MAX_STRIPS, WG};
use crate::gpu::resources::{BodyBuffers, StripBuffers};

/// One query as `query.wgsl` reads it (64 bytes, 16 words of its io buffer).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuQuery {
    pub lo: [f32; 2],
    pub hi: [f32; 2],
    pub category: u32,
    pub mask: u32,
    pub group: i32,
    /// The world it looks into.
    pub world: u32,
    /// What rounding `lo` to f32 left, rounded to f32 (x, y), then what that left (x, y): `lo`
    /// exactly as the caller's f64 (`frame::split`).
    pub lo_rest: [f32; 4],
    pub hi_rest: [f32; 4],
}

/// The batch's parameters as `query.wgsl` reads them (`QueryParams`): the host writes the first
/// 48 bytes; the grid, the entry count and the grid's map are copied from the control buffer
/// after the sort.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuQueryParams {
    queries: u32,
    bodies: u32,
    /// 1: the bodies' filters differ from the default.
    filtered: u32,
    /// 1: the world sorts strip entries (else every body is tested).
    strips: u32,
    /// 2, for `loops_cut`.
    two: u32,
    /// The bodies' worlds (1: one).
    worlds: u32,
    /// A walk's loop iterations per dispatch: [`SOFTWARE_WINDOW`] on software adapters.
    window_steps: u32,
    index_at: u32,
    queries_at: u32,
    cursors_at: u32,
    hits_at: u32,
    /// Hits the io buffer holds.
    room: u32,
    /// The strip grid (`Grid`, 8 words), from the control buffer.
    grid: [u32; 8],
    /// The sorted entries, from the control buffer.
    entries: u32,
    /// 0, for `keep` (exact.wgsl).
    zero: u32,
    /// 1: in a periodic box, the entries carry their images (shaders/shared/candidate.wgsl).
    images: u32,
    pad2: u32,
    /// The grid's map, from the control buffer.
    map: [u32; control::MAP_WORDS as usize],
}

/// A walk's loop iterations per dispatch on Mesa's software adapters, under their 65,535.
pub(crate) const SOFTWARE_WINDOW: u32 = 60_000;

/// Words of the strips' widths and starts.
const HEADER_WORDS: u32 = 2 * MAX_STRIPS + 4;

/// Where each part of the io buffer starts (words) for a batch of queries: the hits' count, the
/// cut flag and the more flag; the strips' widths and starts; the queries; the walks' cursors;
/// the hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    index_at: u32,
    queries_at: u32,
    cursors_at: u32,
    hits_at: u32,
}

impl Layout {
    fn of(queries: u32) -> Layout {
        let index_at = 4;
        let queries_at = index_at + HEADER_WORDS;
        let cursors_at = queries_at + 16 * queries;
        Layout { index_at, queries_at, cursors_at, hits_at: cursors_at + 4 * queries }
    }
}

/// The buffers and bind group of one batch of queries.
pub(crate) struct Queries {
    group: wgpu::BindGroup,
    params: wgpu::Buffer,
    io: wgpu::Buffer,
    layout: Layout,
    queries: u32,
    strips: bool,
    fold: u32,
}

impl Queries {
    /// `queries` against the bodies of `bodies` (`filtered`: their filters differ from the
    /// default; `worlds`: how many worlds they are in), through `strip`'s sorted entries (each
    /// world's strips its own), or every body where there is no `strip` (of the query's world
    /// where there are several), with room for `room` hits. `window_steps`: a walk's loop
    /// iterations per dispatch.
    pub fn new(
        gpu: &Gpu,
        strip: Option<&StripBuffers>,
        bodies: &BodyBuffers,
        (queries, room): (&[GpuQuery], u32),
        (filtered, worlds, images): (bool, u32, bool),
        (fold, window_steps): (u32, u32),
    ) -> Queries {
        use wgpu::BufferUsages as U;
        let device = gpu.device();
        let n = queries.len() as u32;
        let layout = Layout::of(n);
        let params = GpuQueryParams {
            queries: n,
            bodies: bodies.len(),
            filtered: u32::from(filtered),
            strips: u32::from(strip.is_some()),
            two: 2,
            worlds,
            window_steps,
            index_at: layout.index_at,
            queries_at: layout.queries_at,
            cursors_at: layout.cursors_at,
            hits_at: layout.hits_at,
            room,
            images: u32::from(images),
            ..bytemuck::Zeroable::zeroed()
        };
        let params = init(device, "satgpu.query.params", bytemuck::bytes_of(&params), U::UNIFORM | U::COPY_DST);
        let mut words = vec![0u32; layout.queries_at as usize];
        words.extend_from_slice(bytemuck::cast_slice(queries));
        // The cursors and the hits zero, as wgpu makes a new buffer's bytes.
        let io = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("satgpu.query.io"),
            size: Queries::bytes(queries.len(), u64::from(room)),
            usage: U::STORAGE | U::COPY_SRC | U::COPY_DST,
            mapped_at_creation: true,
        });
        if let Ok(mut view) = io.get_mapped_range_mut(..4 * words.len() as u64) {
            view.copy_from_slice(bytemuck::cast_slice(&words));
        }
        io.unmap();
        let none = storage(device, "satgpu.query.no_strips", 16, U::empty());
        // Without strips the bodies' worlds take the entries' place (`values`).
        let (keys, values, boxes) = match strip {
            Some(s) => (&s.keys, &s.values, &s.boxes),
            None => (&none, &bodies.worlds, &bodies.aabbs),
        };
        let b = bodies;
        let buffers = [&params, keys, values, boxes, &b.bodies, &b.shapes, &b.transforms, &b.filters, &io];
        let resources: Vec<_> = buffers.iter().map(|b| b.as_entire_binding()).collect();
        let group = gpu.kernels().query[1].bind(device, "satgpu.query", &resources);
        Queries { group, params, io, layout, queries: n, strips: strip.is_some(), fold }
    }

    /// Bytes of the io buffer of `queries` queries with room for `hits` hits.
    pub fn bytes(queries: usize, hits: u64) -> u64 {
        let layout = Layout::of(queries as u32);
        4 * u64::from(layout.hits_at) + 8 * hits
    }

    /// Records the copy of the grid and the entry count from `control` (after the sorted
    /// entries, which must be recorded before), the strips' widest boxes and one window of the
    /// walks ([`Pass::Query`]); the hits' count is then at [`state`](Queries::state), the hits
    /// at [`hits`](Queries::hits).
    pub fn encode(&self, rec: &mut Recorder<'_>, control: &wgpu::Buffer) {
        let kernels = rec.kernels;
        if self.strips {
            let at = [
                offset_of!(GpuQueryParams, grid),
                offset_of!(GpuQueryParams, entries),
                offset_of!(GpuQueryParams, map),
            ];
            control::copy_index(rec.encoder(), control, &self.params, at.map(|o| o as u64));
        }
        let pass = rec.pass(Pass::Query);
        pass.set_bind_group(0, &self.group, &[]);
        if self.strips {
            pass.set_pipeline(kernels.query[0].pipeline());
            dispatch(pass, MAX_STRIPS * WG, WG, self.fold);
        }
        pass.set_pipeline(kernels.query[1].pipeline());
        dispatch(pass, self.queries, WG, self.fold);
    }

    /// Records `windows` more windows of the walks that asked for more.
    pub fn encode_more(&self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder, windows: u32) {
        encoder.clear_buffer(&self.io, 8, Some(4));
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, &self.group, &[]);
        pass.set_pipeline(gpu.kernels().query[1].pipeline());
        for _ in 0..windows {
            dispatch(&mut pass, self.queries, WG, self.fold);
        }
    }

    /// Where the hits' count lands, followed by the cut flag (a loop was cut short) and the more
    /// flag (a walk asks for another window): three u32 in a COPY_SRC buffer.
    pub fn state(&self) -> (&wgpu::Buffer, u64) {
        (&self.io, 0)
    }

    /// Where the first of `hits` hits lies and their bytes, as `(query, body)`: in a COPY_SRC
    /// buffer.
    pub fn hits(&self, hits: u64) -> (&wgpu::Buffer, u64, u64) {
        (&self.io, 4 * u64::from(self.layout.hits_at), 8 * hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_match_their_wgsl_twins() {
        use crate::twins::assert_twin;
        let query = "Query";
        assert_twin!(GpuQuery, "query.wgsl", query, [lo, hi, category, mask, group, world, lo_rest, hi_rest]);
        assert_twin!(
            GpuQueryParams,
            "query.wgsl",
            "QueryParams",
            [
                queries,
                bodies,
                filtered,
                strips,
                two,
                worlds,
                window_steps,
                index_at,
                queries_at,
                cursors_at,
                hits_at,
                room,
                grid,
                entries,
                zero,
                images,
                pad2,
                map
            ]
        );
    }

    #[test]
    fn the_io_words_follow_one_another() {
        for n in [1, 2, 7, 100_000] {
            let l = Layout::of(n);
            assert_eq!(l.index_at, 4, "{n}");
            assert_eq!(l.queries_at, l.index_at + HEADER_WORDS, "{n}");
            assert_eq!(l.cursors_at, l.queries_at + 16 * n, "{n}");
            assert_eq!(l.hits_at, l.cursors_at + 4 * n, "{n}");
            assert_eq!(Queries::bytes(n as usize, 5), 4 * u64::from(l.hits_at) + 40, "{n}");
        }
    }
}
