//! A plan recorded: each step of a [`Plan`] laid out into an encoder, the frame's and those of
//! the questions asked beside it ([`Asked`]), each pass timed where the plan is.

use crate::gpu::device::pass::{Pass, Recorder};
use crate::gpu::stages::neighbours::Gather;
use crate::gpu::stages::query::Queries;
use crate::gpu::stages::ray::RayCast;
use crate::gpu::world::plan::{Plan, Work};
use crate::gpu::world::World;

/// The question a plan's last step asks of the bodies where they stand ([`Work::Casts`],
/// [`Work::Queries`], [`Work::Gather`]).
#[derive(Clone, Copy)]
pub(crate) enum Asked<'a> {
    Casts(&'a RayCast),
    Queries(&'a Queries),
    Gather(&'a Gather<'a>),
}

impl World {
    /// Records the steps of `plan` (see `plan.rs`), each pass timed where the plan is and the
    /// device has timestamps.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder, plan: &Plan) {
        self.record_asking(encoder, plan, None);
    }

    /// [`record`](World::record), with the question `asked` where `plan` has its step.
    pub(crate) fn record_asking(&self, encoder: &mut wgpu::CommandEncoder, plan: &Plan, asked: Option<Asked<'_>>) {
        let timestamps = self.readback.timestamps.as_ref().filter(|_| plan.timed);
        let mut rec = Recorder::new(encoder, self.gpu.kernels(), timestamps);
        let (s, k) = (&self.sized, rec.kernels);
        let planned = "planned from the world's stages";
        for step in &plan.steps {
            match step.work {
                Work::Clear => {
                    rec.encoder().clear_buffer(&s.pairs.args, 0, None);
                    if let Some((buf, at)) = s.broad.need() {
                        rec.encoder().clear_buffer(buf, at, Some(4));
                    }
                }
                Work::Transform => self.transform.encode(&mut rec),
                Work::Broad => s.broad.encode(&mut rec),
                Work::BroadWrite => s.broad.encode_write(&mut rec),
                Work::Sat => s.narrow.encode(k, rec.pass(Pass::Sat), self.rounded, self.large),
                Work::Impacts => s.impacts.as_ref().expect(planned).encode(&mut rec),
                Work::Compact { deepest, keys } => s.encode_compact(k, rec.pass(Pass::Compact), keys, deepest),
                Work::Order => s.order.as_ref().expect(planned).encode(k, rec.pass(Pass::Order)),
                Work::Manifold => s.manifold.as_ref().expect(planned).encode(k, rec.pass(Pass::Manifold)),
                Work::Events => s.events.as_ref().expect(planned).encode(k, rec.pass(Pass::Events), self.parity()),
                Work::Totals => {
                    let (entries, candidates) = s.broad.totals();
                    let totals = (entries, candidates, s.compact.total());
                    self.readback.encode_totals(rec.encoder(), totals, s.broad.need(), &s.pairs.args);
                }
                Work::Index => s.broad.encode_sorted(&mut rec),
                Work::Casts => match asked {
                    Some(Asked::Casts(casts)) => casts.encode(&mut rec, &self.control),
                    _ => unreachable!("a plan with casts is recorded with the casts asked"),
                },
                Work::Queries => match asked {
                    Some(Asked::Queries(queries)) => queries.encode(&mut rec, &self.control),
                    _ => unreachable!("a plan with queries is recorded with the queries asked"),
                },
                Work::Gather => match asked {
                    Some(Asked::Gather(gather)) => gather.encode(&mut rec),
                    _ => unreachable!("a plan with the neighbours' gather is recorded with the gather asked"),
                },
            }
        }
    }
}
