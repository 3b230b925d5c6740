//! The stages and buffers whose size follows the entry and candidate capacities, built and
//! replaced together: the candidate buffer, the broad phase, the narrow phase, the compaction
//! and the manifolds.

use crate::error::{Error, Result};
use crate::gpu::broad::Broad;
use crate::gpu::candidates;
use crate::gpu::compact::Compact;
use crate::gpu::kernels::Kernels;
use crate::gpu::layout::GpuContact;
use crate::gpu::manifold::ManifoldStage;
use crate::gpu::narrow::{self, NarrowInputs, NarrowPhase};
use crate::gpu::ordering::{OrderInputs, Ordering};
use crate::gpu::transform::TransformStage;
use crate::gpu::{storage, Gpu};

/// Room in the entry and candidate buffers, and the most one binding allows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Capacity {
    pub entries: u32,
    pub candidates: u32,
    pub max_entries: u64,
    pub max_candidates: u64,
}

/// The stages and buffers sized by the capacities, rebuilt together when they grow.
pub(crate) struct Sized {
    pub capacity: Capacity,
    /// Candidate pairs `(a, b)`: written by the broad phase, read by the narrow phase.
    pub candidates: wgpu::Buffer,
    pub broad: Broad,
    pub narrow: NarrowPhase,
    pub compact: Compact,
    /// With [`ContactDetail::Full`](super::ContactDetail::Full) only.
    pub manifold: Option<ManifoldStage>,
    /// With [`ContactOrder::Gpu`](super::ContactOrder::Gpu) only.
    pub order: Option<Ordering>,
}

impl Capacity {
    /// Room for at least `entries` entries (strips only) and `candidates` candidates, with a
    /// quarter to spare, or [`Error::TooLarge`] past what one binding holds. Candidates past
    /// that are not an error: the frame runs in batches of the largest capacity.
    pub fn grown(self, entries: u64, candidates: u64, strips: bool) -> Result<Capacity> {
        let grow = |needed: u64, have: u32, max: u64, what: &'static str, bytes: u64| {
            if needed <= u64::from(have) {
                Ok(have)
            } else if needed > max {
                Err(Error::TooLarge { what, needed: needed.saturating_mul(bytes), limit: max * bytes })
            } else {
                Ok((needed + needed / 4 + 1024).min(max) as u32)
            }
        };
        let entries =
            if strips { grow(entries, self.entries, self.max_entries, "strip entries", 16)? } else { self.entries };
        let candidates =
            grow(candidates.min(self.max_candidates), self.candidates, self.max_candidates, "candidate pairs", 24)?;
        Ok(Capacity { entries, candidates, ..self })
    }
}

impl Sized {
    pub fn new(
        gpu: &Gpu,
        params: &wgpu::Buffer,
        control: &wgpu::Buffer,
        transform: &TransformStage,
        strips: bool,
        capacity: Capacity,
        fold: u32,
    ) -> Sized {
        let pairs = u64::from(capacity.candidates);
        let candidates = storage(gpu.device(), "satgpu.candidates", 8 * pairs, wgpu::BufferUsages::COPY_SRC);
        let inputs = candidates::Inputs {
            params,
            control,
            bodies: transform,
            candidates: &candidates,
            n: transform.len(),
            fold,
        };
        let broad = Broad::new(gpu, strips, capacity.entries, &inputs);
        // The colliding pairs; until the compaction writes them, the narrow phase's list of
        // large pairs (4 bytes per candidate and 128).
        let record = std::mem::size_of::<GpuContact>() as u64;
        let bytes = (record * pairs).max(narrow::scratch_bytes(pairs));
        let contacts = storage(gpu.device(), "satgpu.contacts", bytes, wgpu::BufferUsages::COPY_SRC);
        let narrow = NarrowPhase::new(
            gpu,
            &NarrowInputs {
                params,
                control,
                bodies: transform,
                candidates: &candidates,
                candidate_total: &broad.candidate_total(),
                scratch: &contacts,
            },
            capacity.candidates,
        );
        let compact = Compact::new(gpu, control, &candidates, &narrow, contacts, capacity.candidates);
        Sized { capacity, candidates, broad, narrow, compact, manifold: None, order: None }
    }

    /// The compaction; with the GPU ordering and `ordered`, its scan and then the sort keys in
    /// place of its write (the sort itself is [`Ordering::encode`]).
    pub fn encode_compact(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, ordered: bool) {
        match self.order.as_ref().filter(|_| ordered) {
            Some(order) => {
                self.compact.encode_scan(k, pass);
                order.encode_keys(k, pass);
            }
            None => self.compact.encode(k, pass),
        }
    }

    /// Adds the GPU ordering ([`ContactOrder::Gpu`](super::ContactOrder::Gpu)) for a world of
    /// `bodies` bodies.
    pub fn add_order(&mut self, gpu: &Gpu, control: &wgpu::Buffer, bodies: usize, fold: u32) {
        let inputs = OrderInputs {
            control,
            candidates: &self.candidates,
            narrow: &self.narrow,
            compact: &self.compact,
            bodies,
            fold,
        };
        self.order = Some(Ordering::new(gpu, &inputs, self.capacity.candidates));
    }

    /// Adds the manifold stage ([`ContactDetail::Full`](super::ContactDetail::Full)) if missing.
    pub fn add_manifolds(&mut self, gpu: &Gpu, transform: &TransformStage) {
        if self.manifold.is_none() {
            self.manifold = Some(ManifoldStage::new(gpu, transform, &self.compact, self.capacity.candidates));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Capacity = Capacity { entries: 100, candidates: 200, max_entries: 10_000, max_candidates: 5_000 };

    #[test]
    fn growth_spares_a_quarter_and_never_shrinks() {
        let same = C.grown(50, 150, true).unwrap();
        assert_eq!((same.entries, same.candidates), (100, 200));
        let more = C.grown(1000, 2000, true).unwrap();
        assert_eq!((more.entries, more.candidates), (1000 + 250 + 1024, 2000 + 500 + 1024));
        // All pairs has one entry, whatever is asked.
        assert_eq!(C.grown(1000, 0, false).unwrap().entries, 100);
    }

    #[test]
    fn past_one_binding_entries_fail_and_candidates_batch() {
        match C.grown(10_001, 0, true) {
            Err(Error::TooLarge { what: "strip entries", needed, limit }) => {
                assert_eq!((needed, limit), (16 * 10_001, 16 * 10_000));
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
        assert_eq!(C.grown(0, 1 << 40, true).unwrap().candidates, 5_000);
    }
}
