//! Region queries against a world's bodies where they are now (see `stages/query.rs`).

use crate::error::{Error, Result};
use crate::geometry::frame::split;
use crate::geometry::{check_region, BoxQuery, PointQuery};
use crate::gpu::device::adapter::loops_cut;
use crate::gpu::stages::query::{GpuQuery, Queries, SOFTWARE_WINDOW};
use crate::gpu::stages::readback::read_copies;
use crate::gpu::world::growth::Fit;
use crate::gpu::world::periodic::{self, Region};
use crate::gpu::world::record::Asked;
use crate::gpu::world::World;

impl World {
    /// For each box, the bodies that share a point with it (closed: touching counts), sorted,
    /// as the bodies stand now (their last transforms), seen through each query's filter (a
    /// body is seen when `query.filter.should_collide(body's filter)`). Exact on the shapes, to
    /// f32 in each body's frame: a body within rounding of the region's edge may go either way
    /// (the GPU's answer against [`reference::query_boxes`](crate::reference::query_boxes) in
    /// tests/queries.rs), except where an edge of the box passes through a vertex of an unturned
    /// body (the same f64 number): that body is found, as the reference finds it
    /// (docs/numerics.md). Runs the frame's transform, strip-entry and sort passes, then one
    /// invocation per query that walks the strips its box spans, looking up in each the entries
    /// that can reach it by binary search (one wait; the hits' room is the last call's, and a
    /// call that finds more runs again with room for all). A box with `min`
    /// above `max`, or not finite, or past [`MAX_COORDINATE`](crate::MAX_COORDINATE), is
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) naming it. In a periodic box
    /// ([`WorldOptions::periodic`](crate::gpu::WorldOptions::periodic)) a body is found where
    /// any of its images is (a box past an edge covers the other side): each box is laid at the
    /// whole boxes where it can meet one, moved in f64, and the copies' hits are one list
    /// ([`reference::query_boxes_periodic`](crate::reference::query_boxes_periodic)).
    pub fn query_boxes(&mut self, queries: &[BoxQuery]) -> Result<Vec<Vec<u32>>> {
        let regions: Vec<_> = queries.iter().map(|q| (q.aabb.min, q.aabb.max, q.filter, q.world)).collect();
        self.query_regions(&regions, "box")
    }

    /// For each point, the bodies that contain it (closed: a point on the boundary counts),
    /// sorted; as [`query_boxes`](World::query_boxes) otherwise.
    pub fn query_points(&mut self, queries: &[PointQuery]) -> Result<Vec<Vec<u32>>> {
        let regions: Vec<_> = queries.iter().map(|q| (q.point, q.point, q.filter, q.world)).collect();
        self.query_regions(&regions, "point")
    }

    fn query_regions(&mut self, regions: &[Region], what: &str) -> Result<Vec<Vec<u32>>> {
        use rayon::prelude::*;
        self.gpu.check_lost()?;
        self.check_worlds(regions.iter().map(|r| r.3), "query", what)?;
        for (i, &(lo, hi, _, _)) in regions.iter().enumerate() {
            check_region(what, i, lo, hi)?;
        }
        // In a periodic box, each region's copies where it can meet a body.
        let copies = periodic::region_copies(regions, self.options.periodic.as_ref());
        let asked = copies.as_ref().map_or(regions, |(copies, _)| copies.as_slice());
        let mut records = Vec::with_capacity(asked.len());
        for &(lo, hi, filter, world) in asked {
            let ([lx, ly], [hx, hy]) = (lo.map(split), hi.map(split));
            records.push(GpuQuery {
                lo: [lx[0], ly[0]],
                hi: [hx[0], hy[0]],
                category: filter.category,
                mask: filter.mask,
                group: filter.group,
                world,
                lo_rest: [lx[1], ly[1], lx[2], ly[2]],
                hi_rest: [hx[1], hy[1], hx[2], hy[2]],
            });
        }
        if regions.is_empty() || self.is_empty() {
            return Ok(vec![vec![]; regions.len()]);
        }
        // Batches whose queries fill at most half a binding, the rest left for their hits.
        let limits = self.gpu.device().limits();
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let (header, each) = (Queries::bytes(0, 0), Queries::bytes(1, 0) - Queries::bytes(0, 0));
        let batch = ((binding / 2).saturating_sub(header) / each).max(1) as usize;
        let mut out: Vec<Vec<u32>> = Vec::with_capacity(asked.len());
        for chunk in records.chunks(batch) {
            let hits = self.query_batch(chunk)?;
            // The hits come in no fixed order: each query's list made as long as it will be,
            // filled, then sorted by body (so the bytes are the same on every run).
            let mut counts = vec![0u32; chunk.len()];
            for &[q, _] in &hits {
                counts[q as usize] += 1;
            }
            let mut lists: Vec<Vec<u32>> = counts.par_iter().map(|&c| Vec::with_capacity(c as usize)).collect();
            for [q, body] in hits {
                lists[q as usize].push(body);
            }
            lists.par_iter_mut().for_each(|list| list.sort_unstable());
            out.extend(lists);
        }
        if let Some((_, owner)) = &copies {
            out = periodic::merge_copies(out, owner, regions.len());
        }
        // Shapes as their bodies, each body once.
        Ok(match &self.map {
            Some(map) => map.bodies_of(out),
            None => out,
        })
    }

    /// The `(query, body)` pairs of one batch of `records`, in no fixed order; asked again with
    /// the strip entries grown where the bodies as they stand now need more entries than the
    /// buffers hold, or with room for every hit where there was less, or in two halves where
    /// their hits outgrow one binding (refused where one query's do).
    fn query_batch(&mut self, records: &[GpuQuery]) -> Result<Vec<[u32; 2]>> {
        let limits = self.gpu.device().limits();
        let limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        // The most hits one binding holds beside the queries, and room for as many as the last
        // call found.
        let most = limit.saturating_sub(Queries::bytes(records.len(), 0)) / 8;
        let mut room = self.query_hits.max(MIN_ROOM).min(most);
        loop {
            self.gpu.check_memory(
                || format!("{} region queries", crate::memory::grouped(records.len() as u64)),
                crate::memory::MemoryEstimate {
                    host: 16 * records.len() as u64 + 8 * room,
                    device: Queries::bytes(records.len(), room),
                },
            )?;
            let gpu = self.gpu.clone();
            let walked = gpu.scoped(|| self.record_queries(records, room))??;
            if self.fit(walked.entries, 0, 0)? != Fit::Fits {
                continue;
            }
            let total = walked.total;
            match walked.hits {
                Some(hits) => {
                    self.query_hits = total;
                    return Ok(hits);
                }
                None if total <= most => room = total,
                None if records.len() == 1 => {
                    let needed = Queries::bytes(1, total);
                    return Err(Error::TooLarge { what: "one region query's hits", needed, limit });
                }
                None => {
                    let half = records.len() / 2;
                    let mut hits = self.query_batch(&records[..half])?;
                    let rest = self.query_batch(&records[half..])?;
                    hits.extend(rest.into_iter().map(|[q, body]| [q + half as u32, body]));
                    return Ok(hits);
                }
            }
        }
    }

    /// The walks of `records` with room for `room` hits: the transform, entry and sort passes
    /// and the walks, one wait; on software adapters more windows of the walks while one asks
    /// for them, a wait each, then one for the hits.
    fn record_queries(&self, records: &[GpuQuery], room: u64) -> Result<Walked> {
        let (gpu, device) = (&self.gpu, self.gpu.device());
        let strip = self.sized.broad.index();
        let filtered = !self.filters.is_empty();
        let images = self.options.periodic.is_some() && strip.is_some();
        let window = if gpu.is_software() { SOFTWARE_WINDOW } else { u32::MAX };
        let batch = (records, room as u32);
        let queries =
            Queries::new(gpu, strip, &self.bodies, batch, (filtered, self.world_count, images), (self.fold, window));
        let mut encoder = device.create_command_encoder(&Default::default());
        self.record_asking(&mut encoder, &self.plans.queries, Some(Asked::Queries(&queries)));
        let (state, at) = queries.state();
        let mut copies = vec![(state, at, 12), queries.hits(room)];
        if let (Some((total, at)), _) = self.sized.broad.totals() {
            copies.push((total, at, 4));
        }
        let mut words = read_copies(gpu, encoder, &copies, "region queries")?;
        let entries = words.get(2).map_or(0, |w| u64::from(w[0]));
        if entries > u64::from(self.sized.capacity.entries) {
            return Ok(Walked { hits: None, entries, total: 0 });
        }
        let mut hits = std::mem::take(&mut words[1]);
        // Windows run so far, and how many the next round runs (doubling: a wait per round).
        let (mut done, mut more, mut state_words) = (1u32, 1u32, words[0].clone());
        while state_words[1] == 0 && state_words[2] != 0 && done < MAX_WINDOWS {
            more *= 2;
            let mut encoder = device.create_command_encoder(&Default::default());
            queries.encode_more(gpu, &mut encoder, more);
            done += more;
            state_words = read_copies(gpu, encoder, &[(state, at, 12)], "region queries")?.remove(0);
        }
        if state_words[1] != 0 || state_words[2] != 0 {
            let why = "a query's box meets too many bodies, or their shapes have too many vertices";
            return Err(loops_cut(gpu.adapter_info(), why));
        }
        let total = u64::from(state_words[0]);
        if total > room {
            return Ok(Walked { hits: None, entries, total });
        }
        if done > 1 {
            hits = read_copies(
                gpu,
                device.create_command_encoder(&Default::default()),
                &[queries.hits(total)],
                "region queries",
            )?
            .remove(0);
        }
        hits.truncate(2 * total as usize);
        Ok(Walked { hits: Some(bytemuck::cast_slice(&hits).to_vec()), entries, total })
    }
}

/// What one batch's walks gave: the `(query, body)` pairs (`None` where the strip entries or the
/// hits did not fit), the strip entries the bodies needed (0 with all pairs), the hits found.
struct Walked {
    hits: Option<Vec<[u32; 2]>>,
    entries: u64,
    total: u64,
}

/// The most windows of a walk (software adapters) before the answer is refused as cut short.
const MAX_WINDOWS: u32 = 1 << 16;

/// The least room for hits a batch of queries starts with.
const MIN_ROOM: u64 = 1024;
