//! What a scene costs in memory, known before it is paid for.
//!
//! [`estimate`] gives the bytes a scene of N bodies, V vertices and C candidate pairs needs, on
//! the host and on the device, for what the caller is about to do ([`Work`]). On a software
//! adapter (lavapipe, llvmpipe) the device's buffers live in the host's memory, so both are held
//! against the memory the host has available ([`available`]); a [`Gpu`](crate::gpu::Gpu) does
//! this before every allocation of a [`World`](crate::gpu::World), and the CLI before it
//! generates or reads a scene. The figures are upper bounds of what the code allocates, rounded
//! up: per body, per vertex and per candidate, as docs/how-it-works.md (Sizes and memory) states.

use crate::error::{Error, Result};
pub use crate::units::{grouped, human_bytes};

/// Bytes per body, per vertex and per candidate pair of each part of the work.
mod cost {
    /// [`Neighbours::from_contacts`](crate::neighbours::Neighbours::from_contacts): per body its
    /// count, offset, list and returned offset.
    pub const NEIGHBOURS_PER_BODY: u64 = 48;
    /// See [`NEIGHBOURS_PER_BODY`]: per pair both ends' rows (40 bytes each), made and returned.
    pub const NEIGHBOURS_PER_PAIR: u64 = 2 * 2 * 40;
    /// A [`Polygon`](crate::Polygon) on the host: the struct, two vector headers' allocations,
    /// and the [`Body`](crate::Body) of a scene that holds it (a vector header and its
    /// allocation).
    pub const POLYGON_PER_BODY: u64 = 136;
    /// Its vertices and unit edge normals, two f64 pairs each.
    pub const POLYGON_PER_VERTEX: u64 = 32;
    /// A world's host side: the packing and the spare packing `set_polygons` reuses, each with
    /// a body record, a box and a transform (48 bytes), the filters and the worlds.
    pub const WORLD_HOST_PER_BODY: u64 = 116;
    /// The packed shape data, twice (packing and spare).
    pub const WORLD_HOST_PER_VERTEX: u64 = 36;
    /// A strip entry on the device: key, value, radix scratch, gathered box, sweep count, and
    /// (software adapters) the sweep's cursor.
    pub const DEVICE_PER_ENTRY: u64 = 44;
    /// The device's per-body buffers: body records, transforms, filters, local boxes, AABBs,
    /// worlds, the strip entries (3 per body by default) and their scans.
    pub const DEVICE_PER_BODY: u64 = 92 + 3 * DEVICE_PER_ENTRY;
    /// Shape vertices and their normals (16 bytes) and a large shape's inner circle record.
    pub const DEVICE_PER_VERTEX: u64 = 18;
    /// The device's per-candidate buffers: the pair, its contact or scratch, the narrow phase's
    /// result and flag, the compaction's scan, the manifold and ordering buffers, and the
    /// readback's staging (half again as large as the contacts, 24 bytes each).
    pub const DEVICE_PER_CANDIDATE: u64 = 8 + 24 + 16 + 4 + 4 + 32 + 16 + 36;
    /// Continuous collision: each body's start pose and the copy of its pose a frame ran with.
    pub const CONTINUOUS_PER_BODY: u64 = 32;
    /// Continuous collision: each candidate's impact slot and its readback staging (half again).
    pub const CONTINUOUS_PER_CANDIDATE: u64 = 16 + 24;
    /// Continuous collision: the impacts read back, as records and as `Impact`s.
    pub const CONTINUOUS_HOST_PER_CANDIDATE: u64 = 16 + 24;
    /// The frame's pairs on the host: the GPU records and the contacts handed out.
    pub const HOST_PER_CANDIDATE: u64 = 24 + 32;
    /// The CPU reference: each body's AABB and sort order, each candidate pair and contact.
    pub const REFERENCE_PER_BODY: u64 = 48;
    /// See [`REFERENCE_PER_BODY`].
    pub const REFERENCE_PER_CANDIDATE: u64 = 8 + 32;
    /// The crowd's scenario on the host (shape index, start, walker: 80 bytes, in vectors that
    /// grow by doubling) and its agents, moves and statistics on the device.
    pub const SIM_HOST_PER_BODY: u64 = 2 * 80;
    /// See [`SIM_HOST_PER_BODY`].
    pub const SIM_DEVICE_PER_BODY: u64 = 64;
    /// A scene file's text: about 40 characters per vertex and 30 per polygon.
    pub const JSON_PER_BODY: u64 = 32;
    /// See [`JSON_PER_BODY`].
    pub const JSON_PER_VERTEX: u64 = 44;
}

/// How large a scene is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SceneSize {
    /// Bodies (polygons).
    pub bodies: u64,
    /// Vertices of all shapes uploaded (of every polygon, for a one-shot scene).
    pub vertices: u64,
    /// Candidate pairs expected from the broad phase (a world makes room for at least 6 per
    /// body).
    pub candidates: u64,
}

#[cfg(feature = "generate")]
impl SceneSize {
    /// The size of a generated scene of `n` shapes of `kind`
    /// ([`scene::generate`](crate::scene::generate)), scaled from a sample of up to 2,000 of
    /// them: vertices and candidate pairs per shape stay about the same as `n` grows.
    pub fn generated(kind: crate::scene::SceneKind, n: usize, seed: u64) -> SceneSize {
        let m = n.min(2000);
        let sample = crate::scene::generate(kind, m, seed);
        let vertices: usize = sample.iter().map(|p| p.vertices().len()).sum();
        let candidates = crate::reference::detect(&sample, &crate::DetectOptions::default()).candidates;
        let scale = |count: usize| ((count as f64 / m.max(1) as f64) * n as f64).ceil() as u64;
        SceneSize { bodies: n as u64, vertices: scale(vertices), candidates: scale(candidates) }
    }
}

/// Host bytes [`Neighbours::from_contacts`](crate::neighbours::Neighbours::from_contacts) needs
/// for `bodies` bodies and `pairs` pairs.
pub fn neighbours(bodies: u64, pairs: u64) -> u64 {
    bodies.saturating_mul(cost::NEIGHBOURS_PER_BODY).saturating_add(pairs.saturating_mul(cost::NEIGHBOURS_PER_PAIR))
}

/// What is about to be done with a scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Work {
    /// The polygons are held on the host (generated, read from a file or given).
    pub polygons: bool,
    /// A [`World`](crate::gpu::World) is built on the device.
    pub world: bool,
    /// The CPU reference runs on the same scene.
    pub reference: bool,
    /// The scene is written as JSON text.
    pub json: bool,
    /// The built-in crowd ([`sim`](crate::sim)) runs on the world.
    pub sim: bool,
    /// The world sweeps its bodies ([`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous)).
    pub continuous: bool,
}

impl Work {
    /// Polygons on the host and a world on the device: one-shot detection.
    pub const DETECT: Work =
        Work { polygons: true, world: true, reference: false, json: false, sim: false, continuous: false };
    /// As [`Work::DETECT`], and the CPU reference on the same scene (`satgpu run`, `bench`).
    pub const VALIDATE: Work = Work { reference: true, ..Work::DETECT };
    /// A world alone, its shapes given ([`World::new`](crate::gpu::World::new)).
    pub const WORLD: Work = Work { polygons: false, ..Work::DETECT };
    /// A world and the crowd on it ([`Simulation`](crate::sim::Simulation), `satgpu sim`).
    pub const SIM: Work = Work { sim: true, ..Work::WORLD };
    /// Polygons and their JSON text (`satgpu gen`).
    pub const GENERATE: Work =
        Work { polygons: true, world: false, reference: false, json: true, sim: false, continuous: false };
}

/// Bytes a piece of work needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryEstimate {
    /// In the host's memory.
    pub host: u64,
    /// In the device's buffers (the host's memory too on a software adapter).
    pub device: u64,
}

impl MemoryEstimate {
    /// Host and device together: what a software adapter needs of the host.
    pub fn total(&self) -> u64 {
        self.host.saturating_add(self.device)
    }
}

/// The bytes `work` on a scene of `size` needs, on the host and on the device. Saturates rather
/// than overflowing, so absurd sizes give absurd (and refused) figures, never a panic.
pub fn estimate(size: SceneSize, work: Work) -> MemoryEstimate {
    let SceneSize { bodies: n, vertices: v, candidates } = size;
    let c = candidates.max(6 * n).max(1024);
    let per = |count: u64, bytes: u64| count.saturating_mul(bytes);
    let sum = |parts: &[u64]| parts.iter().fold(0u64, |a, &b| a.saturating_add(b));
    let mut host = 0;
    let mut device = 0;
    if work.polygons {
        host = sum(&[host, per(n, cost::POLYGON_PER_BODY), per(v, cost::POLYGON_PER_VERTEX)]);
    }
    if work.world {
        host = sum(&[
            host,
            per(n, cost::WORLD_HOST_PER_BODY),
            per(v, cost::WORLD_HOST_PER_VERTEX),
            per(candidates, cost::HOST_PER_CANDIDATE),
        ]);
        device =
            sum(&[per(n, cost::DEVICE_PER_BODY), per(v, cost::DEVICE_PER_VERTEX), per(c, cost::DEVICE_PER_CANDIDATE)]);
    }
    if work.reference {
        host = sum(&[host, per(n, cost::REFERENCE_PER_BODY), per(candidates, cost::REFERENCE_PER_CANDIDATE)]);
    }
    if work.sim {
        host = sum(&[host, per(n, cost::SIM_HOST_PER_BODY)]);
        device = sum(&[device, per(n, cost::SIM_DEVICE_PER_BODY)]);
    }
    if work.continuous && work.world {
        host = sum(&[host, per(c, cost::CONTINUOUS_HOST_PER_CANDIDATE)]);
        device = sum(&[device, per(n, cost::CONTINUOUS_PER_BODY), per(c, cost::CONTINUOUS_PER_CANDIDATE)]);
    }
    if work.json {
        host = sum(&[host, per(n, cost::JSON_PER_BODY), per(v, cost::JSON_PER_VERTEX)]);
    }
    MemoryEstimate { host, device }
}

/// The device bytes of the buffers a world sizes by its capacities, which growth
/// ([`World::reserve`](crate::gpu::World::reserve)) allocates anew while the old ones still exist.
/// `continuous`: with [`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous)'s impacts.
pub fn capacity_bytes(entries: u64, candidates: u64, continuous: bool) -> u64 {
    let per_candidate = cost::DEVICE_PER_CANDIDATE + if continuous { cost::CONTINUOUS_PER_CANDIDATE } else { 0 };
    entries.saturating_mul(cost::DEVICE_PER_ENTRY).saturating_add(candidates.saturating_mul(per_candidate))
}

/// The memory the host has available for new allocations: `MemAvailable` from /proc/meminfo on
/// Linux, `None` where it cannot be read (then only the device's limits and a
/// [`GpuOptions::with_memory_limit`](crate::gpu::GpuOptions::with_memory_limit) hold sizes back).
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    mem_available(&text)
}

/// [`available`], at most `limit` when one is given; `None` when neither is known.
pub fn available_within(limit: Option<u64>) -> Option<u64> {
    match (available(), limit) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable` in bytes from the text of /proc/meminfo.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// `Ok` when `needed` bytes fit in `available`, else [`Error::NotEnoughMemory`] naming `what`
/// and where the bytes live (`memory`).
pub fn check(what: impl FnOnce() -> String, memory: &'static str, needed: u64, available: Option<u64>) -> Result<()> {
    match available {
        Some(available) if needed > available => {
            Err(Error::NotEnoughMemory { what: what(), memory, needed, available })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mem_available() {
        let text = "MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   23000000 kB\n";
        assert_eq!(mem_available(text), Some(23_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn estimates_grow_with_each_count_and_saturate() {
        let base = SceneSize { bodies: 1000, vertices: 6000, candidates: 500 };
        let e = estimate(base, Work::VALIDATE);
        for more in [
            SceneSize { bodies: 2000, ..base },
            SceneSize { vertices: 12_000, ..base },
            SceneSize { candidates: 50_000, ..base },
        ] {
            assert!(estimate(more, Work::VALIDATE).total() > e.total(), "{more:?}");
        }
        // A world makes room for 6 candidates per body whatever is expected.
        assert_eq!(
            estimate(base, Work::WORLD).device,
            estimate(SceneSize { candidates: 6000, ..base }, Work::WORLD).device
        );
        let huge = SceneSize { bodies: u64::MAX, vertices: u64::MAX, candidates: u64::MAX };
        assert_eq!(estimate(huge, Work::VALIDATE).total(), u64::MAX);
        assert_eq!(estimate(base, Work::default()), MemoryEstimate::default());
        // Continuous collision: 32 bytes per body and 40 per candidate (at least 6 per body) more.
        let (on, off) = (estimate(base, Work { continuous: true, ..Work::WORLD }), estimate(base, Work::WORLD));
        assert_eq!(on.device - off.device, 1000 * 32 + 6000 * 40);
        assert_eq!(on.host - off.host, 6000 * 40);
    }

    #[test]
    fn check_names_what_and_both_sizes() {
        assert!(check(|| "x".into(), "host", 10, None).is_ok());
        assert!(check(|| "x".into(), "host", 10, Some(10)).is_ok());
        let e = check(|| "50,000,000 round polygons".into(), "host and software GPU", 61 << 30, Some(23 << 30));
        match &e {
            Err(Error::NotEnoughMemory { what, needed, available, .. }) => {
                assert_eq!((what.as_str(), *needed, *available), ("50,000,000 round polygons", 61 << 30, 23 << 30));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            e.unwrap_err().to_string(),
            "50,000,000 round polygons need about 61 GiB (host and software GPU); 23 GiB are available"
        );
    }
}
