//! Per-pass GPU times from timestamp queries, where the device has them.

/// The compute passes of one frame, in order. Each gets a begin and an end timestamp.
pub const PASSES: [&str; 8] =
    ["transform", "entries", "sort", "sweep_count", "scan_candidates", "sweep_write", "sat", "compact"];

/// Passes only the strip broad phase runs.
const STRIP_ONLY: [&str; 2] = ["entries", "sort"];

/// How long one pass took.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PassTime {
    /// Pass name (one of [`PASSES`], or `upload` / `readback` measured on the host).
    pub name: &'static str,
    /// Milliseconds.
    pub ms: f64,
    /// `"gpu"` for timestamp queries, `"wall"` for host wall clock.
    pub clock: &'static str,
}

pub(crate) struct Timestamps {
    pub set: wgpu::QuerySet,
    pub resolve: wgpu::Buffer,
    period_ns: f64,
}

impl Timestamps {
    pub const BYTES: u64 = 8 * 2 * PASSES.len() as u64;

    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Timestamps {
        Timestamps {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("satgpu.timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * PASSES.len() as u32,
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

    /// Timestamp writes for pass number `pass` of [`PASSES`].
    pub fn writes(&self, pass: usize) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(2 * pass as u32),
            end_of_pass_write_index: Some(2 * pass as u32 + 1),
        }
    }

    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.set, 0..2 * PASSES.len() as u32, &self.resolve, 0);
    }

    /// Pass times from the resolved ticks, leaving out the strip passes when `strips` is false.
    pub fn times(&self, bytes: &[u8], strips: bool) -> Vec<PassTime> {
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(bytes);
        PASSES
            .iter()
            .enumerate()
            .filter(|(_, name)| strips || !STRIP_ONLY.contains(name))
            .map(|(i, &name)| PassTime {
                name,
                ms: ticks[2 * i + 1].wrapping_sub(ticks[2 * i]) as f64 * self.period_ns / 1e6,
                clock: "gpu",
            })
            .collect()
    }
}
