//! The frame as data: the ordered steps each kind of frame records, built from the world's
//! stages and options whenever either changes, and read by the recording, the batches, the
//! timestamps and [`World::passes`](crate::gpu::World::passes), which therefore cannot disagree.
//! Adding a pass is a shader, a stage file, a [`Work`] that records it and its entry here.
//! `World::record` (record.rs) lays a plan out into an encoder; the questions asked beside a
//! frame (casts, region queries, the neighbours' gather) are plans too, their last step the
//! question asked.

use crate::gpu::device::pass::Pass;
use crate::gpu::world::broad::Broad;
use crate::gpu::world::options::{ContactDetail, ContactOrder, WorldOptions};
use crate::gpu::world::sized::CapacityStages;

/// What one step of a frame records (see `World::record`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Work {
    /// Clears the compaction's dispatch arguments (a frame without candidates runs none, and
    /// must read zeros) and the sweep's windows word: encoder work, no pass.
    Clear,
    /// Bodies' transforms and world boxes.
    Transform,
    /// The broad phase: strips (entries, sort, sweep) or all pairs.
    Broad,
    /// The broad phase's candidate write alone, for a batch past the first.
    BroadWrite,
    /// The narrow phase.
    Sat,
    /// Continuous collision: each candidate pair's first touch.
    Impacts,
    /// The compaction; `deepest`: first the deepest shape pair per pair of bodies; `keys`: its
    /// scan and then the GPU ordering's keys in place of its write.
    Compact { deepest: bool, keys: bool },
    /// The GPU ordering's radix sort and gather.
    Order,
    /// Contact manifolds.
    Manifold,
    /// Contact events against the previous frame's pairs.
    Events,
    /// The totals copied aside for the readback: encoder work, no pass.
    Totals,
    /// The strip entries and their sort alone: the index that casts and region queries walk
    /// (nothing with all pairs).
    Index,
    /// Ray and shape casts through the index (the casts asked, `World::record`'s question).
    Casts,
    /// Region queries through the index: each query's hits counted and scanned (the queries
    /// asked).
    Queries,
    /// The neighbours' gather over a resident frame's pairs (the gather asked).
    Gather,
}

/// What a world records: a frame, or a question asked of the bodies where they stand; see
/// [`World::passes_of`](crate::gpu::World::passes_of).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Question {
    /// A frame read back ([`World::step`](crate::gpu::World::step)).
    Frame,
    /// A frame left on the GPU ([`World::encode`](crate::gpu::World::encode)).
    Resident,
    /// Ray and shape casts ([`World::cast_rays`](crate::gpu::World::cast_rays)).
    Casts,
    /// Region queries ([`World::query_boxes`](crate::gpu::World::query_boxes)): the count; the
    /// write follows once the total is read.
    Queries,
    /// Each body's neighbours ([`gpu::neighbours`](crate::gpu::neighbours)): a frame left on
    /// the GPU with the margin as radius, then the gather of its pairs.
    Neighbours,
}

/// One step: its work and the named passes it records, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub work: Work,
    pub passes: &'static [Pass],
}

/// The steps of one kind of frame, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    /// Each pass timed with GPU timestamps (a compute pass of its own), where the device has them.
    pub timed: bool,
}

impl Plan {
    /// The named passes, in the order the frame records them.
    pub fn passes(&self) -> Vec<Pass> {
        self.steps.iter().flat_map(|s| s.passes.iter().copied()).collect()
    }
}

/// The plans of the kinds of frame a world records.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plans {
    /// A frame read back: ordered where the world orders on the GPU (keeping each pair of bodies'
    /// deepest shape pair there), with the GPU's events where it computes them; timed when asked.
    pub read_back: Plan,
    /// A frame left on the GPU ([`World::encode`](crate::gpu::World::encode)): ordered only with
    /// [`ContactOrder::Gpu`], the deepest shape pairs kept, no events, never timed.
    pub resident: Plan,
    /// [`World::encode_with_events`](crate::gpu::World::encode_with_events): ordered, with events.
    pub resident_events: Plan,
    /// A batch past the first (more candidates than one binding holds): the candidate write, the
    /// narrow phase, the compaction and what follows it, in one compute pass.
    pub batch: Plan,
    /// Ray and shape casts where the bodies stand now: their transforms, the index, the casts.
    pub casts: Plan,
    /// Region queries where the bodies stand now: their transforms, the index, the queries'
    /// count.
    pub queries: Plan,
    /// Each body's neighbours: a resident frame, then the gather of its pairs by body.
    pub neighbours: Plan,
}

impl Plans {
    /// The plan of `question`.
    pub fn of(&self, question: Question) -> &Plan {
        match question {
            Question::Frame => &self.read_back,
            Question::Resident => &self.resident,
            Question::Casts => &self.casts,
            Question::Queries => &self.queries,
            Question::Neighbours => &self.neighbours,
        }
    }

    /// The plans for a world of `sized`'s stages under `options`.
    pub fn new(sized: &CapacityStages, options: &WorldOptions) -> Plans {
        let ordering = sized.order.is_some();
        let gpu_order = ordering && options.order == ContactOrder::Gpu;
        let deepest = sized.deepest.is_some();
        let full = sized.manifold.is_some() && options.contact_detail == ContactDetail::Full;
        let events = sized.events.is_some();
        let write: &'static [Pass] = match sized.broad {
            Broad::Strips { .. } => &[Pass::SweepWrite],
            Broad::AllPairs(_) => &[Pass::AllPairsWrite],
        };
        // The steps after the broad phase: the narrow phase, the compaction, then the passes
        // over the colliding pairs.
        // Continuous collision in the frames read back, after the narrow phase.
        let impacts = sized.impacts.is_some();
        let tail = |sorted: bool, reduce: bool, with_events: bool, read: bool| {
            let mut steps = vec![step(Work::Sat, &[Pass::Sat])];
            if impacts && read {
                steps.push(step(Work::Impacts, &[Pass::Impacts]));
            }
            steps.push(step(Work::Compact { deepest: deepest && reduce, keys: sorted }, &[Pass::Compact]));
            if sorted {
                steps.push(step(Work::Order, &[Pass::Order]));
            }
            if full {
                steps.push(step(Work::Manifold, &[Pass::Manifold]));
            }
            if with_events {
                steps.push(step(Work::Events, &[Pass::Events]));
            }
            steps
        };
        let frame = |sorted: bool, reduce: bool, with_events: bool, read: bool, timed: bool| {
            let mut steps = vec![
                step(Work::Clear, &[]),
                step(Work::Transform, &[Pass::Transform]),
                step(Work::Broad, sized.broad.passes()),
            ];
            steps.extend(tail(sorted, reduce, with_events, read));
            steps.push(step(Work::Totals, &[]));
            Plan { steps, timed }
        };
        let mut batch = vec![step(Work::BroadWrite, write)];
        batch.extend(tail(ordering, ordering, false, true));
        let resident = frame(gpu_order, true, false, false, false);
        let mut neighbours = resident.clone();
        neighbours.steps.push(step(Work::Gather, &[Pass::Gather, Pass::Rank]));
        Plans {
            read_back: frame(ordering, ordering, events, true, options.timestamps),
            resident,
            resident_events: frame(ordering, true, events, false, false),
            batch: Plan { steps: batch, timed: false },
            casts: Plan {
                steps: vec![
                    step(Work::Transform, &[Pass::Transform]),
                    step(Work::Index, sized.broad.index_passes()),
                    step(Work::Casts, &[Pass::Cast]),
                ],
                timed: false,
            },
            queries: Plan {
                steps: vec![
                    step(Work::Transform, &[Pass::Transform]),
                    step(Work::Index, sized.broad.index_passes()),
                    step(Work::Queries, &[Pass::Query]),
                ],
                timed: false,
            },
            neighbours,
        }
    }
}

fn step(work: Work, passes: &'static [Pass]) -> Step {
    Step { work, passes }
}
