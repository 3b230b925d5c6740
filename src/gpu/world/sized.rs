//! The stages and buffers whose size follows the entry and candidate capacities, built and
//! replaced together: the pair buffers, the broad phase, the narrow phase, the compaction,
//! the ordering and the manifolds.

use crate::error::{Error, Result};
use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::pipelines::Kernels;
use crate::gpu::resources::{BodyBuffers, PairBuffers, Wiring};
use crate::gpu::stages::compact::Compact;
use crate::gpu::stages::deepest::Deepest;
use crate::gpu::stages::events::Events;
use crate::gpu::stages::impact::ImpactStage;
use crate::gpu::stages::manifold::ManifoldStage;
use crate::gpu::stages::narrow::NarrowPhase;
use crate::gpu::stages::ordering::PairOrder;
use crate::gpu::world::broad::Broad;

/// Room in the entry and candidate buffers, and the most one binding allows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Capacity {
    pub entries: u32,
    pub candidates: u32,
    pub max_entries: u64,
    pub max_candidates: u64,
}

/// The stages and buffers sized by the capacities, rebuilt together when they grow.
pub(crate) struct CapacityStages {
    pub capacity: Capacity,
    /// The candidates, their results, the colliding pairs.
    pub pairs: PairBuffers,
    pub broad: Broad,
    pub narrow: NarrowPhase,
    pub compact: Compact,
    /// With [`ContactDetail::Full`](crate::gpu::ContactDetail::Full) only.
    pub manifold: Option<ManifoldStage>,
    /// With [`ContactOrder::Gpu`](crate::gpu::ContactOrder::Gpu) only.
    pub order: Option<PairOrder>,
    /// Compound worlds only: the deepest part pair per pair of bodies.
    pub deepest: Option<Deepest>,
    /// With [`WorldOptions::events`](crate::gpu::WorldOptions::events) only.
    pub events: Option<Events>,
    /// With [`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous) only.
    pub impacts: Option<ImpactStage>,
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

impl CapacityStages {
    pub fn new(gpu: &Gpu, wiring: &Wiring<'_>, strips: bool, capacity: Capacity) -> CapacityStages {
        let pairs = PairBuffers::new(gpu.device(), capacity.candidates);
        let broad = Broad::new(gpu, strips, capacity.entries, wiring, &pairs.candidates);
        let narrow = NarrowPhase::new(gpu, wiring, &pairs, &broad.candidate_total());
        let compact = Compact::new(gpu, wiring.control, &pairs);
        CapacityStages {
            capacity,
            pairs,
            broad,
            narrow,
            compact,
            manifold: None,
            order: None,
            deepest: None,
            events: None,
            impacts: None,
        }
    }

    /// The compaction; with the GPU ordering and `ordered`, its scan and then the sort keys in
    /// place of its write (the sort itself is [`PairOrder::encode`]).
    /// With `reduce`, a world of bodies of several shapes keeps the deepest part pair per pair of bodies first.
    pub fn encode_compact(&self, k: &Kernels, pass: &mut wgpu::ComputePass<'_>, ordered: bool, reduce: bool) {
        if let Some(deepest) = self.deepest.as_ref().filter(|_| reduce) {
            deepest.encode(k, pass);
        }
        match self.order.as_ref().filter(|_| ordered) {
            Some(order) => {
                self.compact.encode_scan(k, pass);
                order.encode_keys(k, pass);
            }
            None => self.compact.encode(k, pass),
        }
    }

    /// Adds the GPU ordering ([`ContactOrder::Gpu`](crate::gpu::ContactOrder::Gpu)) for a world of
    /// `bodies` bodies.
    pub fn add_order(&mut self, gpu: &Gpu, control: &wgpu::Buffer, bodies: usize, fold: u32) {
        self.order = Some(PairOrder::new(gpu, control, &self.pairs, bodies, fold));
    }

    /// Adds the reduction to the deepest part pair per pair of bodies (bodies of several shapes), whose
    /// parts name their body in the filter records of `bodies`.
    pub fn add_deepest(&mut self, gpu: &Gpu, control: &wgpu::Buffer, bodies: &BodyBuffers) {
        if self.deepest.is_none() {
            self.deepest = Some(Deepest::new(gpu, control, bodies, &self.pairs));
        }
    }

    /// Adds the contact events ([`WorldOptions::events`](crate::gpu::WorldOptions::events)).
    pub fn add_events(&mut self, gpu: &Gpu, fold: u32) {
        self.events = Some(Events::new(gpu, &self.pairs, fold));
    }

    /// Adds continuous collision's stage if missing.
    pub fn add_impacts(&mut self, gpu: &Gpu, wiring: &Wiring<'_>) {
        if self.impacts.is_none() {
            self.impacts = Some(ImpactStage::new(gpu, wiring, &self.pairs, self.capacity.candidates));
        }
    }

    /// Adds the manifold stage ([`ContactDetail::Full`](crate::gpu::ContactDetail::Full)) if missing.
    pub fn add_manifolds(&mut self, gpu: &Gpu, params: &wgpu::Buffer, bodies: &BodyBuffers) {
        if self.manifold.is_none() {
            self.manifold = Some(ManifoldStage::new(gpu, params, bodies, &self.pairs));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::gpu::world::sized::Capacity;

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
