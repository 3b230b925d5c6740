//! The passes of a frame, by name and in order, and their GPU times from timestamp queries.
//!
//! Every stage records its compute passes through a [`Recorder`], which names each pass and gives
//! it its begin and end timestamps, so stats, timestamps and the CLI's tables all come from
//! [`Pass`].

use crate::gpu::kernels::pipelines::Kernels;

/// One compute pass of a frame. Each broad phase runs its own passes and reports them under its
/// own names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Pass {
    /// Shapes to world space, AABBs rounded outward, scene bounds.
    Transform,
    /// Strips: the strip grid, then one entry per (strip, body) counted, scanned and written.
    Entries,
    /// Strips: radix sort of the entries, then their AABBs gathered in sorted order.
    Sort,
    /// Strips: per entry, how many later entries of its strip overlap it.
    SweepCount,
    /// Strips: exclusive prefix sum of those counts (the total is the candidate count).
    ScanCandidates,
    /// Strips: each entry writes its candidate pairs at its offset.
    SweepWrite,
    /// All pairs: per body, how many later bodies' AABBs overlap it.
    AllPairsCount,
    /// All pairs: exclusive prefix sum of those counts.
    ScanAllPairs,
    /// All pairs: each body writes its candidate pairs at its offset.
    AllPairsWrite,
    /// The candidate count clamped to capacity, then SAT with the minimum translation vector per
    /// candidate pair.
    Sat,
    /// [`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous) only: per candidate
    /// pair, its first touch while the bodies move from their start poses.
    Impacts,
    /// With bodies of several shapes, first the deepest part pair kept per pair of bodies. Then the
    /// prefix sum of the collision flags; each colliding pair written at its offset (with
    /// [`ContactOrder::Gpu`](crate::gpu::ContactOrder::Gpu): its sort key and candidate index).
    Compact,
    /// [`ContactOrder::Gpu`](crate::gpu::ContactOrder::Gpu) only: the radix sort of the colliding
    /// pairs by (a, b), then the pairs written in that order.
    Order,
    /// [`ContactDetail::Full`](crate::gpu::ContactDetail::Full) only: per colliding pair, the contact
    /// manifold and the containment flags.
    Manifold,
    /// [`WorldOptions::events`](crate::gpu::WorldOptions::events) only: the pairs that began and
    /// ended since the previous frame.
    Events,
    /// Not a frame's: ray and shape casts ([`World::cast_rays`](crate::gpu::World::cast_rays),
    /// [`World::cast_shapes`](crate::gpu::World::cast_shapes)), each walking the strips of the
    /// frame's sorted entries to its nearest hit.
    Cast,
    /// Not a frame's: region queries ([`World::query_boxes`](crate::gpu::World::query_boxes) and
    /// the like), each body's hits among the queries of its strips counted and scanned (the
    /// write follows once the total is known).
    Query,
    /// Not a frame's: the neighbours' gather ([`gpu::neighbours`](crate::gpu::neighbours)), each
    /// body's rows (both ends of every pair of a frame with a margin) counted, scanned and
    /// scattered.
    Gather,
    /// Not a frame's: each body's gathered rows ranked by (distance, neighbour), the first k kept.
    Rank,
}

impl Pass {
    /// Every pass, in frame order.
    pub const ALL: [Pass; 19] = [
        Pass::Transform,
        Pass::Entries,
        Pass::Sort,
        Pass::SweepCount,
        Pass::ScanCandidates,
        Pass::SweepWrite,
        Pass::AllPairsCount,
        Pass::ScanAllPairs,
        Pass::AllPairsWrite,
        Pass::Sat,
        Pass::Impacts,
        Pass::Compact,
        Pass::Order,
        Pass::Manifold,
        Pass::Events,
        Pass::Cast,
        Pass::Query,
        Pass::Gather,
        Pass::Rank,
    ];

    /// The name in [`FrameStats::passes`](crate::gpu::FrameStats::passes), `bench --json` and the
    /// CLI's tables.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Transform => "transform",
            Pass::Entries => "entries",
            Pass::Sort => "sort",
            Pass::SweepCount => "sweep_count",
            Pass::ScanCandidates => "scan_candidates",
            Pass::SweepWrite => "sweep_write",
            Pass::AllPairsCount => "allpairs_count",
            Pass::ScanAllPairs => "scan_allpairs",
            Pass::AllPairsWrite => "allpairs_write",
            Pass::Sat => "sat",
            Pass::Impacts => "impacts",
            Pass::Compact => "compact",
            Pass::Order => "order",
            Pass::Manifold => "manifold",
            Pass::Events => "events",
            Pass::Cast => "cast",
            Pass::Query => "query",
            Pass::Gather => "gather",
            Pass::Rank => "rank",
        }
    }

    fn index(self) -> u32 {
        Pass::ALL.iter().position(|&p| p == self).expect("every pass is in ALL") as u32
    }
}

/// How long one pass took.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PassTime {
    /// A [`Pass::name`], or `upload`, `gpu_total` and `readback` measured on the host.
    pub name: &'static str,
    /// Milliseconds.
    pub ms: f64,
    /// `"gpu"` for timestamp queries, `"wall"` for host wall clock.
    pub clock: &'static str,
}

/// A stretch of host work in a frame, on the wall clock: see
/// [`FrameStats::host`](crate::gpu::FrameStats::host).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HostSpan {
    /// What the host did: `pack` (polygons to GPU records), `transform_conversion` (transforms
    /// checked, converted to f32 and written into wgpu's staging memory), `staging_write`
    /// (handing bytes to wgpu, or for transforms getting its staging memory), `submit`
    /// (recording and submitting the frame), `wait` (for the GPU), `map` (mapping a readback
    /// buffer), `copy_out` (out of mapped memory), `order` (the pairs sorted by (a, b) on the host,
    /// converted to the caller's records on the way), `widen` (pairs the GPU sorted converted to
    /// the caller's records), `events` (contact events from the sorted pairs, where the host
    /// computes them) or, in a world of bodies of several shapes, `bodies` (shape pairs named by
    /// body, ordered, each pair of bodies' deepest kept).
    pub name: &'static str,
    /// Milliseconds from the start of the frame's first span.
    pub start_ms: f64,
    /// Milliseconds.
    pub ms: f64,
}

/// Host spans as they happen: at most [`SpanLog::MAX`], the oldest dropped first, so a caller
/// who never collects a frame does not grow it.
#[derive(Debug, Default)]
pub(crate) struct SpanLog {
    spans: std::collections::VecDeque<(&'static str, std::time::Instant, f64)>,
}

impl SpanLog {
    /// Spans kept between two collected frames.
    pub const MAX: usize = 256;

    /// Runs `f`, timed as `name`.
    pub fn time<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let value = f();
        self.record(name, start);
        value
    }

    /// A span `name` from `start` to now.
    pub fn record(&mut self, name: &'static str, start: std::time::Instant) {
        if self.spans.len() == Self::MAX {
            self.spans.pop_front();
        }
        self.spans.push_back((name, start, start.elapsed().as_secs_f64() * 1e3));
    }

    /// The spans so far, from the first one's start, and forgets them.
    pub fn take(&mut self) -> Vec<HostSpan> {
        let Some(origin) = self.spans.iter().map(|s| s.1).min() else { return vec![] };
        let spans = self.spans.drain(..);
        spans.map(|(name, start, ms)| HostSpan { name, start_ms: (start - origin).as_secs_f64() * 1e3, ms }).collect()
    }

    /// Forgets every span.
    pub fn clear(&mut self) {
        self.spans.clear();
    }
}

/// A begin and an end timestamp for every [`Pass`].
pub(crate) struct Timestamps {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    period_ns: f64,
}

impl Timestamps {
    /// Bytes of the resolved timestamps.
    pub const BYTES: u64 = 8 * 2 * Pass::ALL.len() as u64;

    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Timestamps {
        Timestamps {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("satgpu.timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * Pass::ALL.len() as u32,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("satgpu.timestamps.resolve"),
                size: Self::BYTES,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            period_ns: f64::from(queue.get_timestamp_period()),
        }
    }

    fn writes(&self, pass: Pass) -> wgpu::ComputePassTimestampWrites<'_> {
        let i = pass.index();
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        }
    }

    /// Resolves every timestamp and copies them to `dst` at `offset`.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder, dst: &wgpu::Buffer, offset: u64) {
        encoder.resolve_query_set(&self.set, 0..2 * Pass::ALL.len() as u32, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, dst, offset, Self::BYTES);
    }

    /// The times of `passes` (the ones the frame ran) from the resolved ticks.
    pub fn times(&self, bytes: &[u8], passes: &[Pass]) -> Vec<PassTime> {
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(bytes);
        passes
            .iter()
            .map(|&p| {
                let i = 2 * p.index() as usize;
                PassTime {
                    name: p.name(),
                    ms: ticks[i + 1].wrapping_sub(ticks[i]) as f64 * self.period_ns / 1e6,
                    clock: "gpu",
                }
            })
            .collect()
    }
}

/// Records a frame's compute passes into one encoder. Timed, each [`Pass`] is a compute pass of
/// its own with a begin and an end timestamp. Untimed, every pass shares one compute pass: a pass
/// boundary costs about 40 us on lavapipe beyond its dispatches (`cargo bench --bench overhead`),
/// and the dispatches within one pass are ordered all the same.
pub(crate) struct Recorder<'a> {
    encoder: &'a mut wgpu::CommandEncoder,
    /// The pipelines.
    pub kernels: &'a Kernels,
    timestamps: Option<&'a Timestamps>,
    /// The compute pass being recorded; the encoder is locked while it is open.
    open: Option<wgpu::ComputePass<'static>>,
}

impl<'a> Recorder<'a> {
    pub fn new(
        encoder: &'a mut wgpu::CommandEncoder,
        kernels: &'a Kernels,
        timestamps: Option<&'a Timestamps>,
    ) -> Self {
        Recorder { encoder, kernels, timestamps, open: None }
    }

    /// The compute pass to record `pass` into: a new timed one, or the frame's shared one.
    pub fn pass(&mut self, pass: Pass) -> &mut wgpu::ComputePass<'static> {
        if self.timestamps.is_some() || self.open.is_none() {
            self.open = None;
            let timed = self.timestamps.is_some();
            let pass = self.encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(if timed { pass.name() } else { "satgpu.frame" }),
                timestamp_writes: self.timestamps.map(|t| t.writes(pass)),
            });
            self.open = Some(pass.forget_lifetime());
        }
        self.open.as_mut().expect("opened above")
    }

    /// The encoder, for copies and clears: ends the open compute pass first.
    pub fn encoder(&mut self) -> &mut wgpu::CommandEncoder {
        self.open = None;
        self.encoder
    }
}

impl Drop for Recorder<'_> {
    fn drop(&mut self) {
        // The pass must end before anything else is recorded into the encoder.
        self.open = None;
    }
}

#[cfg(test)]
mod tests {
    use crate::gpu::device::pass::SpanLog;
    use crate::gpu::Pass;

    #[test]
    fn span_logs_start_at_their_first_span_keep_the_newest_and_empty_when_taken() {
        let mut log = SpanLog::default();
        assert!(log.take().is_empty());
        let first = std::time::Instant::now();
        log.time("a", || std::thread::sleep(std::time::Duration::from_millis(2)));
        log.record("b", first);
        let spans = log.take();
        assert_eq!(spans.iter().map(|s| s.name).collect::<Vec<_>>(), ["a", "b"]);
        assert!(spans[0].start_ms >= 0.0 && spans[0].ms >= 2.0, "{spans:?}");
        assert_eq!(spans[1].start_ms, 0.0, "b started first");
        assert!(log.take().is_empty());
        for _ in 0..SpanLog::MAX + 5 {
            log.record("c", std::time::Instant::now());
        }
        log.record("last", std::time::Instant::now());
        let spans = log.take();
        assert_eq!(spans.len(), SpanLog::MAX);
        assert_eq!(spans.last().unwrap().name, "last");
        log.record("d", first);
        log.clear();
        assert!(log.take().is_empty());
    }

    #[test]
    fn names_are_unique_and_snake_case() {
        let mut names: Vec<_> = Pass::ALL.iter().map(|p| p.name()).collect();
        assert!(names.iter().all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Pass::ALL.len());
        for (i, p) in Pass::ALL.iter().enumerate() {
            assert_eq!(p.index() as usize, i);
        }
    }
}
