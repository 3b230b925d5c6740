//! Region queries (`query.wgsl`), outside the frame: which bodies share a point with each of many
//! boxes (a point is a box of no size). The queries are sorted by left edge on the host, each with
//! the largest right edge so far; per body, two binary searches find the queries that can meet
//! its box, and each of those that does gets the exact test in the body's frame. Counted, scanned,
//! then written as `(query, body)` in body order; the host groups them by query.

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::kernels::buffers::{dispatch, init, storage};
use crate::gpu::kernels::control;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::kernels::shared::WG;
use crate::gpu::primitives::scan::Scan;
use crate::gpu::resources::BodyBuffers;

/// One query as `query.wgsl` reads it (80 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuQuery {
    pub lo: [f32; 2],
    pub hi: [f32; 2],
    /// The largest right edge of the sorted queries up to this one.
    pub reach: f32,
    /// Its index in the caller's list.
    pub index: u32,
    pub category: u32,
    pub mask: u32,
    pub group: i32,
    /// The query's first strip (set by [`strips`]).
    pub first: u32,
    /// The world it looks into.
    pub world: u32,
    pub pad: u32,
    /// What rounding `lo` to f32 left, rounded to f32 (x, y), then what that left (x, y): `lo`
    /// exactly as the caller's f64 (`frame::split`).
    pub lo_rest: [f32; 4],
    pub hi_rest: [f32; 4],
}

/// The queries binned into horizontal strips, as `query.wgsl` reads them: `strips + 1` header
/// records whose `index` is where each strip's entries start (the last: their end), then the
/// entries, each strip's sorted by left edge with its running reach, `first` the entry's
/// query's first strip.
/// The batch's parameters as `query.wgsl` reads them (`QueryParams`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuQueryParams {
    bodies: u32,
    /// `queries` starts with `strips + 1` headers, then the entries.
    strips: u32,
    /// 1: the bodies' filters differ from the default.
    filtered: u32,
    /// The bodies' worlds (1: one).
    worlds: u32,
    /// The strips' bottom.
    y0: f32,
    /// Strips per unit of y.
    inv_height: f32,
    /// 0, for `keep`.
    zero: u32,
    /// 2, for `loops_cut`.
    two: u32,
}

pub(crate) struct Strips {
    pub records: Vec<GpuQuery>,
    pub strips: u32,
    pub y0: f32,
    pub inv_height: f32,
}

/// The strip of `y`, in f32 as the shader computes it (so that both sides agree).
pub(crate) fn strip_of(y: f32, y0: f32, inv_height: f32, strips: u32) -> u32 {
    ((y - y0) * inv_height).floor().clamp(0.0, (strips - 1) as f32) as u32
}

/// `x`'s bits as a u32 in the order of `f32::total_cmp`.
fn total_order(x: f32) -> u32 {
    let bits = x.to_bits();
    match bits >> 31 {
        1 => !bits,
        _ => bits | 1 << 31,
    }
}

/// Bins `queries` into strips about as tall as the queries (at least the span over the square
/// root of their number, so that points spread too), at most 65,536 strips.
pub(crate) fn strips(queries: &[GpuQuery]) -> Strips {
    use rayon::prelude::*;
    let y0 = queries.iter().map(|q| q.lo[1]).fold(f32::INFINITY, f32::min);
    let top = queries.iter().map(|q| q.hi[1]).fold(f32::NEG_INFINITY, f32::max);
    let span = f64::from(top) - f64::from(y0);
    let mean = queries.iter().map(|q| f64::from(q.hi[1]) - f64::from(q.lo[1])).sum::<f64>() / queries.len() as f64;
    let height = mean.max(span / (queries.len() as f64).sqrt()).max(span / 65_535.0);
    // One strip where the heights say nothing, or where f32 could not hold strips per unit.
    let inv_height = (1.0 / height) as f32;
    let (strips, inv_height) = match height > 0.0 && height.is_finite() && inv_height.is_finite() {
        true => (((span / height) as u32).saturating_add(1).min(65_536), inv_height),
        false => (1, 0.0),
    };
    // One sort key per entry: its strip, then its left edge (in f32's total order), then the
    // query's place in `queries`; sorted on every core (the keys are distinct, so the order is
    // the same on any number).
    let mut keys: Vec<u128> = vec![];
    for (k, q) in queries.iter().enumerate() {
        let (s0, s1) = (strip_of(q.lo[1], y0, inv_height, strips), strip_of(q.hi[1], y0, inv_height, strips));
        let left = u128::from(total_order(q.lo[0]));
        keys.extend((s0..=s1).map(|s| u128::from(s) << 64 | left << 32 | k as u128));
    }
    keys.par_sort_unstable();
    let strip_of_key = |key: u128| (key >> 64) as u32;
    let mut records = vec![bytemuck::Zeroable::zeroed(); strips as usize + 1];
    records.par_extend(keys.par_iter().map(|&key| {
        let q = &queries[key as u32 as usize];
        GpuQuery { first: strip_of(q.lo[1], y0, inv_height, strips), ..*q }
    }));
    // Each strip's running reach, and (the headers) where each strip's entries start and, the
    // last, where they end.
    let mut reach = f32::NEG_INFINITY;
    for (k, key) in keys.iter().enumerate() {
        if k == 0 || strip_of_key(keys[k - 1]) != strip_of_key(*key) {
            reach = f32::NEG_INFINITY;
        }
        let entry = &mut records[strips as usize + 1 + k];
        reach = reach.max(entry.hi[0]);
        entry.reach = reach;
    }
    for s in 0..=strips {
        records[s as usize].index = keys.partition_point(|&key| strip_of_key(key) < s) as u32;
    }
    Strips { records, strips, y0, inv_height }
}

/// The buffers and bind groups of one call's queries.
pub(crate) struct Queries {
    /// The bindings in order, `hits` last (a placeholder until the write).
    buffers: Vec<wgpu::Buffer>,
    /// Per body its hit count, then (scanned) its first hit; one more: the total; and one the
    /// count sets where an invocation's loops were cut short (shaders/shared/loops.wgsl); then,
    /// where the bodies are in several worlds, each body's world.
    counts: wgpu::Buffer,
    /// The bodies' worlds, where there are several.
    worlds: Option<wgpu::Buffer>,
    scan: Scan,
    n: u32,
    fold: u32,
}

impl Queries {
    /// The binned `queries` against the bodies of `bodies` (`filtered`: their filters differ
    /// from the default; `worlds`: how many worlds they are in, each query seeing its own's).
    /// The counts and, for several worlds, the bodies' worlds must fit one binding
    /// ([`Queries::counts_bytes`]).
    pub fn new(
        gpu: &Gpu,
        bodies: &BodyBuffers,
        queries: &Strips,
        (filtered, worlds): (bool, u32),
        fold: u32,
    ) -> Queries {
        use wgpu::BufferUsages as U;
        let (device, kernels) = (gpu.device(), gpu.kernels());
        let n = bodies.len();
        let params = init(
            device,
            "satgpu.query.params",
            bytemuck::bytes_of(&GpuQueryParams {
                bodies: n,
                strips: queries.strips,
                filtered: u32::from(filtered),
                worlds,
                y0: queries.y0,
                inv_height: queries.inv_height,
                zero: 0,
                two: 2,
            }),
            U::UNIFORM,
        );
        let records = init(device, "satgpu.query.queries", bytemuck::cast_slice(&queries.records), U::STORAGE);
        let counts =
            storage(device, "satgpu.query.counts", Queries::counts_bytes(n, worlds), U::COPY_SRC | U::COPY_DST);
        // The scan runs over one element more than the bodies (0), whose offset is the total.
        let mut words = control::initial(fold);
        words[control::PAIR_SCAN as usize] = n + 1;
        let control = init(device, "satgpu.query.control", bytemuck::cast_slice(&words), U::STORAGE | U::INDIRECT);
        let scan =
            Scan::new(device, kernels, &counts, u64::from(n) + 1, &control, control::PAIR_SCAN, "satgpu.query.scan");
        let b = bodies;
        let buffers = [&params, &b.bodies, &b.shapes, &b.transforms, &b.aabbs, &records, &b.filters, &counts]
            .map(|buffer| buffer.clone())
            .into_iter()
            .chain([storage(device, "satgpu.query.none", 16, U::empty())])
            .collect();
        let worlds = (worlds > 1).then(|| bodies.worlds.clone());
        Queries { buffers, counts, worlds, scan, n, fold }
    }

    /// Bytes of the counts (and worlds) buffer for `n` bodies in `worlds` worlds.
    pub fn counts_bytes(n: u32, worlds: u32) -> u64 {
        4 * (u64::from(n) + 2) + if worlds > 1 { 4 * u64::from(n) } else { 0 }
    }

    fn encode_step(
        &self,
        (device, kernels): (&wgpu::Device, &Kernels),
        pass: &mut wgpu::ComputePass<'_>,
        step: usize,
        hits: &wgpu::Buffer,
    ) {
        let resources: Vec<_> = self.buffers[..8].iter().chain([hits]).map(|b| b.as_entire_binding()).collect();
        let group = kernels.query[step].bind(device, "satgpu.query", &resources);
        pass.set_pipeline(kernels.query[step].pipeline());
        pass.set_bind_group(0, &group, &[]);
        dispatch(pass, self.n, WG, self.fold);
        if step == 0 {
            self.scan.encode(kernels, pass);
        }
    }

    /// Records the count of each body's hits and their scan ([`Pass::Query`]); the total is
    /// then at [`total`](Queries::total).
    pub fn encode_count(&self, device: &wgpu::Device, rec: &mut Recorder<'_>) {
        let encoder = rec.encoder();
        encoder.clear_buffer(&self.counts, 0, None);
        if let Some(worlds) = &self.worlds {
            let at = 4 * (u64::from(self.n) + 2);
            encoder.copy_buffer_to_buffer(worlds, 0, &self.counts, at, 4 * u64::from(self.n));
        }
        let kernels = rec.kernels;
        self.encode_step((device, kernels), rec.pass(Pass::Query), 0, &self.buffers[8]);
    }

    /// Where the total lands, followed by the cut flag: two u32 in a COPY_SRC buffer.
    pub fn total(&self) -> (&wgpu::Buffer, u64) {
        (&self.counts, 4 * u64::from(self.n))
    }

    /// Records the hits as `(query, body)` into `hits` (8 bytes each, as many as the total), in
    /// body order.
    pub fn encode_write(&self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder, hits: &wgpu::Buffer) {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        self.encode_step((gpu.device(), gpu.kernels()), &mut pass, 1, hits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_match_their_wgsl_twins() {
        use crate::twins::assert_twin;
        let query = "Query";
        assert_twin!(
            GpuQuery,
            "query.wgsl",
            query,
            [lo, hi, reach, index, category, mask, group, first, world, pad, lo_rest, hi_rest]
        );
        assert_twin!(
            GpuQueryParams,
            "query.wgsl",
            "QueryParams",
            [bodies, strips, filtered, worlds, y0, inv_height, zero, two]
        );
    }

    #[test]
    fn total_order_sorts_as_total_cmp() {
        let mut xs = vec![0.0f32, -0.0, 1.0, -1.0, f32::MIN_POSITIVE, -f32::MIN_POSITIVE, 1e-45, -1e-45];
        xs.extend([f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN, 3.5, -3.5, 1e30, -1e-30]);
        let mut by_cmp = xs.clone();
        by_cmp.sort_by(f32::total_cmp);
        xs.sort_by_key(|&x| total_order(x));
        assert_eq!(
            xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            by_cmp.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    /// The strips as a plain sort of (strip, left edge, index) entries makes them.
    fn plain_strips(queries: &[GpuQuery], s: &Strips) -> Vec<GpuQuery> {
        let mut entries = vec![];
        for q in queries {
            let (s0, s1) =
                (strip_of(q.lo[1], s.y0, s.inv_height, s.strips), strip_of(q.hi[1], s.y0, s.inv_height, s.strips));
            entries.extend((s0..=s1).map(|t| (t, GpuQuery { first: s0, ..*q })));
        }
        entries.sort_by(|(s, a), (t, b)| s.cmp(t).then(a.lo[0].total_cmp(&b.lo[0])).then(a.index.cmp(&b.index)));
        let mut reach = f32::NEG_INFINITY;
        let mut records: Vec<GpuQuery> = vec![bytemuck::Zeroable::zeroed(); s.strips as usize + 1];
        for (k, (t, q)) in entries.iter().enumerate() {
            if k == 0 || entries[k - 1].0 != *t {
                reach = f32::NEG_INFINITY;
            }
            reach = reach.max(q.hi[0]);
            records.push(GpuQuery { reach, ..*q });
        }
        for t in 0..=s.strips {
            records[t as usize].index = entries.partition_point(|(u, _)| *u < t) as u32;
        }
        records
    }

    #[test]
    fn strips_are_the_plain_sort_of_their_entries() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        for (n, tall) in [(1, 0.0), (2, 0.0), (500, 0.0), (3000, 0.3), (3000, 0.01)] {
            let queries: Vec<GpuQuery> = (0..n)
                .map(|i| {
                    // Left edges repeat (ties broken by index), some are -0.0 beside 0.0.
                    let x = match i % 7 {
                        0 => 0.0,
                        1 => -0.0,
                        _ => (next() * 40.0).floor() - 20.0,
                    };
                    let y = next() * 10.0 - 5.0;
                    let h = if tall > 0.0 { next() * tall * 10.0 } else { 0.0 };
                    GpuQuery { lo: [x, y], hi: [x + next(), y + h], index: i as u32, ..bytemuck::Zeroable::zeroed() }
                })
                .collect();
            let s = strips(&queries);
            let plain = plain_strips(&queries, &s);
            assert_eq!(bytemuck::cast_slice::<_, u8>(&s.records), bytemuck::cast_slice::<_, u8>(&plain), "{n} queries");
        }
    }
}
