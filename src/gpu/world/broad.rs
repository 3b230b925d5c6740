//! The broad phase as the frame sees it: strips (entries, sort, sweep) or all pairs. Either one
//! writes candidate pairs `(a, b)`, `a < b`, into the candidate buffer and leaves their total
//! where the narrow phase's control kernel reads it.

use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::primitives::scan::Total;
use crate::gpu::resources::{StripBuffers, Wiring};
use crate::gpu::stages::allpairs::AllPairs;
use crate::gpu::stages::entries::Entries;
use crate::gpu::stages::sort::Sort;
use crate::gpu::stages::sweep::Sweep;

/// Which broad phase finds the candidate pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum BroadPhase {
    /// All pairs up to [`ALL_PAIRS_MAX`] bodies, strips above.
    #[default]
    Auto,
    /// Sort and sweep within horizontal strips, over radix-sorted keys: about N log N plus the
    /// pairs, whatever the mix of sizes.
    Strips,
    /// Every pair of AABBs tested: N^2 / 2, for small scenes and cross-checks.
    AllPairs,
}

/// Largest scene [`BroadPhase::Auto`] tests all pairs for.
pub const ALL_PAIRS_MAX: usize = 256;

impl BroadPhase {
    /// Whether `n` bodies use strips.
    pub(crate) fn strips(self, n: usize) -> bool {
        match self {
            BroadPhase::Auto => n > ALL_PAIRS_MAX,
            BroadPhase::Strips => true,
            BroadPhase::AllPairs => false,
        }
    }
}

#[allow(clippy::large_enum_variant, reason = "one per world, built once and never moved in a loop")]
pub(crate) enum Broad {
    Strips { strip: StripBuffers, entries: Entries, sort: Sort, sweep: Sweep },
    AllPairs(AllPairs),
}

impl Broad {
    /// Strips sized for `entry_capacity` entries, or all pairs, writing into `candidates`.
    pub fn new(gpu: &Gpu, strips: bool, entry_capacity: u32, wiring: &Wiring<'_>, candidates: &wgpu::Buffer) -> Broad {
        if strips {
            let strip = StripBuffers::new(gpu.device(), entry_capacity);
            let entries = Entries::new(gpu, wiring, &strip);
            let sort = Sort::new(gpu, wiring.control, &strip, &wiring.bodies.aabbs);
            let sweep = Sweep::new(gpu, wiring, &strip, candidates);
            Broad::Strips { strip, entries, sort, sweep }
        } else {
            Broad::AllPairs(AllPairs::new(gpu, wiring, candidates))
        }
    }

    /// Whether the count and write kernels read the collision filters.
    pub fn set_filtered(&mut self, on: bool) {
        match self {
            Broad::Strips { sweep, .. } => sweep.filtered = on,
            Broad::AllPairs(all) => all.filtered = on,
        }
    }

    /// `"strips"` or `"all_pairs"`.
    pub fn name(&self) -> &'static str {
        match self {
            Broad::Strips { .. } => "strips",
            Broad::AllPairs(_) => "all_pairs",
        }
    }

    /// The passes it records, in order.
    pub fn passes(&self) -> &'static [Pass] {
        match self {
            Broad::Strips { .. } => {
                &[Pass::Entries, Pass::Sort, Pass::SweepCount, Pass::ScanCandidates, Pass::SweepWrite]
            }
            Broad::AllPairs(_) => &[Pass::AllPairsCount, Pass::ScanAllPairs, Pass::AllPairsWrite],
        }
    }

    /// The passes of the sorted entries alone, the index that casts walk
    /// ([`encode_sorted`](Broad::encode_sorted)); none with all pairs.
    pub fn index_passes(&self) -> &'static [Pass] {
        match self {
            Broad::Strips { .. } => &[Pass::Entries, Pass::Sort],
            Broad::AllPairs(_) => &[],
        }
    }

    pub fn encode(&self, rec: &mut Recorder<'_>) {
        match self {
            Broad::Strips { entries, sort, sweep, .. } => {
                entries.encode(rec);
                sort.encode(rec);
                sweep.encode(rec);
            }
            Broad::AllPairs(all) => all.encode(rec),
        }
    }

    /// Records the strip entries and their sort alone, the frame's sorted structure that ray
    /// casts walk ([`index`](Broad::index)); nothing with all pairs.
    pub fn encode_sorted(&self, rec: &mut Recorder<'_>) {
        if let Broad::Strips { entries, sort, .. } = self {
            entries.encode(rec);
            sort.encode(rec);
        }
    }

    /// The buffers of the sorted entries ([`encode_sorted`](Broad::encode_sorted)); `None` with
    /// all pairs.
    pub fn index(&self) -> Option<&StripBuffers> {
        match self {
            Broad::Strips { strip, .. } => Some(strip),
            Broad::AllPairs(_) => None,
        }
    }

    /// The candidate write alone, for a later batch (in passes of its own).
    pub fn encode_write(&self, rec: &mut Recorder<'_>) {
        match self {
            Broad::Strips { sweep, .. } => sweep.encode_write(rec),
            Broad::AllPairs(all) => all.encode_write(rec.kernels, rec.pass(Pass::AllPairsWrite)),
        }
    }

    /// The sweep's windows word (see [`Sweep::need`]); none with all pairs.
    pub fn need(&self) -> Option<(&wgpu::Buffer, u64)> {
        match self {
            Broad::Strips { sweep, .. } => Some(sweep.need()),
            _ => None,
        }
    }

    /// Windows after the first that each sweep walk runs (0 with all pairs).
    pub fn windows(&self) -> u32 {
        match self {
            Broad::Strips { sweep, .. } => sweep.windows(),
            _ => 0,
        }
    }

    /// Runs `windows` windows after the first in each sweep walk from the next frame on.
    pub fn set_windows(&mut self, device: &wgpu::Device, windows: u32) {
        if let Broad::Strips { sweep, .. } = self {
            sweep.set_windows(device, windows);
        }
    }

    /// Where the entry total (strips) and the candidate total land.
    pub fn totals(&self) -> (Option<(&wgpu::Buffer, u64)>, (&wgpu::Buffer, u64)) {
        match self {
            Broad::Strips { entries, sweep, .. } => (Some(entries.total()), sweep.total()),
            Broad::AllPairs(all) => (None, all.total()),
        }
    }

    /// The candidate total, for binding.
    pub fn candidate_total(&self) -> Total {
        match self {
            Broad::Strips { sweep, .. } => sweep.total_slot(),
            Broad::AllPairs(all) => all.total_slot(),
        }
    }
}
