//! Region queries against a world's bodies where they are now (see `stages/query.rs`).

use crate::error::{Error, Result};
use crate::geometry::frame::split;
use crate::geometry::{check_region, BoxQuery, Filter, PointQuery};
use crate::gpu::device::adapter::loops_cut;
use crate::gpu::stages::query::{self, GpuQuery, Queries};
use crate::gpu::stages::readback::read_copies;
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
    /// (docs/numerics.md). Runs the transform pass, then counts, scans and writes the hits on the
    /// GPU (two waits); the queries are sorted by left edge on the host so that each body
    /// visits only those that can reach its box. A box with `min`
    /// above `max`, or not finite, or past [`MAX_COORDINATE`](crate::MAX_COORDINATE), is
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) naming it.
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

    fn query_regions(&mut self, regions: &[([f64; 2], [f64; 2], Filter, u32)], what: &str) -> Result<Vec<Vec<u32>>> {
        use rayon::prelude::*;
        self.gpu.check_lost()?;
        self.check_worlds(regions.iter().map(|r| r.3), "query", what)?;
        let mut records = Vec::with_capacity(regions.len());
        for (i, &(lo, hi, filter, world)) in regions.iter().enumerate() {
            check_region(what, i, lo, hi)?;
            let ([lx, ly], [hx, hy]) = (lo.map(split), hi.map(split));
            records.push(GpuQuery {
                lo: [lx[0], ly[0]],
                hi: [hx[0], hy[0]],
                reach: 0.0,
                index: i as u32,
                category: filter.category,
                mask: filter.mask,
                group: filter.group,
                first: 0,
                world,
                pad: 0,
                lo_rest: [lx[1], ly[1], lx[2], ly[2]],
                hi_rest: [hx[1], hy[1], hx[2], hy[2]],
            });
        }
        if records.is_empty() || self.is_empty() {
            return Ok(vec![vec![]; regions.len()]);
        }
        let binned = query::strips(&records);
        let gpu = self.gpu.clone();
        let filtered = !self.filters.is_empty();
        let hits = gpu.scoped(|| self.run_queries(&binned, filtered))??;
        // Each list made as long as it will be, then filled in body order: each comes out sorted.
        let mut counts = vec![0u32; regions.len()];
        for &[q, _] in &hits {
            counts[q as usize] += 1;
        }
        let mut out: Vec<Vec<u32>> = counts.par_iter().map(|&c| Vec::with_capacity(c as usize)).collect();
        for [q, body] in hits {
            out[q as usize].push(body);
        }
        // Shapes as their bodies, each body once.
        Ok(match &self.map {
            Some(map) => map.bodies_of(out),
            None => out,
        })
    }

    /// The `(query, body)` pairs of the sorted `records`, in body order: the transform pass and
    /// the count (one wait for the total), then the write (one more).
    fn run_queries(&self, records: &query::Strips, filtered: bool) -> Result<Vec<[u32; 2]>> {
        use wgpu::BufferUsages as U;
        let (gpu, device) = (&self.gpu, self.gpu.device());
        let n = self.bodies.len();
        let limit = device.limits().max_storage_buffer_binding_size;
        let needed = Queries::counts_bytes(n, self.world_count);
        if needed > limit {
            return Err(Error::TooLarge { what: "region queries' counts and worlds", needed, limit });
        }
        let queries = Queries::new(gpu, &self.bodies, records, (filtered, self.world_count), self.fold);
        let mut encoder = device.create_command_encoder(&Default::default());
        self.record_asking(&mut encoder, &self.plans.queries, Some(Asked::Queries(&queries)));
        let (counts, at) = queries.total();
        let words = read_copies(gpu, encoder, &[(counts, at, 8)], "region queries")?;
        let [total, cut] = words[0][..] else { unreachable!("two words read") };
        if cut != 0 {
            return Err(loops_cut(gpu.adapter_info(), "one body's box meets too many queries"));
        }
        let total = u64::from(total);
        if total == 0 {
            return Ok(vec![]);
        }
        if 8 * total > limit {
            return Err(Error::TooLarge { what: "region query results", needed: 8 * total, limit });
        }
        let hits = crate::gpu::kernels::buffers::storage(device, "satgpu.query.hits", 8 * total, U::COPY_SRC);
        let mut encoder = device.create_command_encoder(&Default::default());
        queries.encode_write(gpu, &mut encoder, &hits);
        let words = read_copies(gpu, encoder, &[(&hits, 0, 8 * total)], "region queries")?;
        Ok(bytemuck::cast_slice(&words[0]).to_vec())
    }
}
