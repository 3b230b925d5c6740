//! Ray and shape casts against a world's bodies where they are now (see `stages/ray.rs`).

use crate::error::Result;
use crate::geometry::{Polygon, Ray, RayHit, ShapeCast, MAX_COORDINATE};
use crate::gpu::device::adapter::loops_cut;
use crate::gpu::stages::ray::{GpuRay, GpuRayHit, RayCast, CUT, HEADER_WORDS};
use crate::gpu::stages::readback::read_copies;
use crate::gpu::world::growth::Fit;
use crate::gpu::world::periodic::{self, Piece, Way};
use crate::gpu::world::record::Asked;
use crate::gpu::world::World;

/// How far a ray reaches on the GPU: past every point a body can hold from every origin a ray
/// can have (coordinates within [`MAX_COORDINATE`]), well inside f32.
const REACH: f64 = 8.0 * MAX_COORDINATE;

/// Bytes per ray's record on the GPU (over which its answer is written), and in the readback.
const RECORD: u64 = std::mem::size_of::<GpuRay>() as u64;

impl World {
    /// The nearest body each ray meets within its `max_length`, as the bodies stand now (their
    /// last transforms), seen through the ray's filter (a body is seen when
    /// `ray.filter.should_collide(body's filter)`); `None` where it meets none. A ray that starts
    /// in a body (or on its boundary) hits it at fraction 0 with normal `[0, 0]`; of bodies hit
    /// at the same distance, the lowest index wins.
    ///
    /// Runs the frame's transform, strip-entry and sort passes, then one invocation per ray that
    /// walks the strips the ray crosses, in order, looking up in each the entries that can reach
    /// it by binary search, and stops at the strip of its nearest hit: about log N per strip
    /// crossed plus the bodies near the ray, not every body. Exact on the shapes, to f32 in each
    /// body's frame (the GPU's answer against [`reference::cast_rays`](crate::reference::cast_rays)
    /// in tests/rays.rs). A ray whose origin is not finite or past [`MAX_COORDINATE`], whose
    /// direction is zero or not finite, or whose length is negative or not finite, is
    /// [`Error::InvalidSetting`](crate::Error::InvalidSetting) naming it.
    pub fn cast_rays(&mut self, rays: &[Ray]) -> Result<Vec<Option<RayHit>>> {
        self.gpu.check_lost()?;
        let records = gpu_rays(rays)?;
        let ways: Vec<Way> = rays.iter().map(|r| way(r.origin, r.direction, r.max_length, 0.0)).collect();
        self.cast(&records, &ways, &[], "ray", |k, hit, piece| widen(&rays[k], hit, piece))
    }

    /// The first body each shape cast touches on its way (see [`ShapeCast`]: `shapes[cast.shape]`
    /// turned by `cast.angle`, placed at `cast.origin`, moved along `cast.direction` for at most
    /// `cast.max_length`), as the bodies stand now, seen through the cast's filter; `None` where
    /// it touches none. The hit's fraction is of `max_length`, its point the point of the body's
    /// boundary touched, its normal the body's outward unit normal there. A shape that touches a
    /// body at the start hits it at fraction 0, at the cast's origin, with normal `[0, 0]`; of
    /// bodies hit at the same distance, the lowest index wins.
    ///
    /// Runs as [`World::cast_rays`] does, each cast a ray from its origin that sees the bodies'
    /// boxes grown by how far the shape reaches from it; the exact test is rays from the
    /// vertices of each core against the other core grown by both radii (the GPU's answer
    /// against [`reference::cast_shapes`](crate::reference::cast_shapes) in tests/casts.rs). A
    /// cast that fails [`ShapeCast::check`] is [`Error::InvalidSetting`](crate::Error::InvalidSetting)
    /// naming it.
    pub fn cast_shapes(&mut self, shapes: &[Polygon], casts: &[ShapeCast]) -> Result<Vec<Option<RayHit>>> {
        self.gpu.check_lost()?;
        let mut table = Vec::new();
        let mut placed = Vec::with_capacity(shapes.len());
        for p in shapes {
            let reach = p.vertices().iter().map(|v| v[0].hypot(v[1])).fold(0.0, f64::max) + p.radius();
            placed.push((HEADER_WORDS + 4 * table.len() as u32, p.vertices().len() as u32, reach));
            let vertices = p.vertices().iter().zip(p.edge_normals());
            table.extend(vertices.map(|(v, n)| [v[0] as f32, v[1] as f32, n[0] as f32, n[1] as f32]));
        }
        let records = casts
            .iter()
            .enumerate()
            .map(|(i, cast)| {
                cast.check(i, shapes.len())?;
                let ray = Ray {
                    origin: cast.origin,
                    direction: cast.direction,
                    max_length: cast.max_length,
                    filter: cast.filter,
                    world: cast.world,
                };
                let (start, count, reach) = placed[cast.shape as usize];
                let shape = &shapes[cast.shape as usize];
                let (sin, cos) = cast.angle.sin_cos();
                // Rounded up, past the rounding of the shape's vertices and rotation to f32.
                let extent = (reach * (1.0 + 1e-6)) as f32;
                Ok(GpuRay {
                    start,
                    count,
                    radius: shape.radius() as f32,
                    extent,
                    turn: [cos as f32, sin as f32],
                    ..gpu_ray(&ray)
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let ways: Vec<Way> =
            casts.iter().map(|c| way(c.origin, c.direction, c.max_length, placed[c.shape as usize].2)).collect();
        self.cast(&records, &ways, &table, "cast", |k, hit, piece| widen_cast(&casts[k], hit, piece))
    }

    /// The answers to `records` (rays, or casts of the shapes in `table`: `what`; their `ways`
    /// in f64), each widened by `widen(index, answer, piece)`, in batches of one binding; each
    /// hit's body mapped from its shape. In a periodic box each way is cut into pieces laid in
    /// the box ([`periodic::lay_ways`]), and the nearest of its pieces' hits is its answer.
    fn cast(
        &mut self,
        records: &[GpuRay],
        ways: &[Way],
        table: &[[f32; 4]],
        what: &'static str,
        widen: impl Fn(usize, &GpuRayHit, Piece) -> Option<RayHit>,
    ) -> Result<Vec<Option<RayHit>>> {
        self.check_worlds(records.iter().map(|r| r.world), what, what)?;
        if records.is_empty() || self.is_empty() {
            return Ok(vec![None; records.len()]);
        }
        let laid = match &self.options.periodic {
            Some(p) => Some(periodic::lay_ways(p, ways, what, |i, at, length| GpuRay {
                origin: at.map(|x| x as f32),
                length: length as f32,
                ..records[i]
            })?),
            None => None,
        };
        let asked = laid.as_ref().map_or(records, |l| l.records.as_slice());
        let of = |j: usize| laid.as_ref().map_or((j, Piece::default()), |l| (l.owner[j] as usize, l.pieces[j]));
        let limits = self.gpu.device().limits();
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        // The rays follow the strips' widths and starts and the cast shapes in one binding.
        let header = 4 * u64::from(HEADER_WORDS) + 16 * table.len() as u64;
        if header + RECORD >= binding {
            let what = format!("the cast shapes' {} vertices", crate::memory::grouped(table.len() as u64));
            return Err(crate::Error::InvalidSetting {
                what: "cast",
                detail: format!("{what} do not fit one binding"),
            });
        }
        let batch = ((binding - header) / RECORD).max(1) as usize;
        let mut out = Vec::with_capacity(asked.len());
        for chunk in asked.chunks(batch) {
            let hits = self.cast_batch(chunk, table)?;
            if hits.iter().any(|h| h.body == CUT) {
                let why = "a ray or a cast passes too many bodies' boxes, or its shapes have too many vertices";
                return Err(loops_cut(self.gpu.adapter_info(), why));
            }
            let at = out.len();
            out.extend(hits.iter().enumerate().map(|(k, hit)| {
                let (i, piece) = of(at + k);
                widen(i, hit, piece)
            }));
        }
        // A shape's hit is its body's (of shapes hit at the same distance the first, so of
        // bodies the lowest).
        if let Some(map) = &self.map {
            out.iter_mut().flatten().for_each(|hit| hit.body = map.body_of(hit.body));
        }
        Ok(match &laid {
            Some(l) => periodic::nearest(out, &l.owner, records.len()),
            None => out,
        })
    }

    /// One batch of rays; the strip entries grown and the batch cast again where the bodies as
    /// they stand now need more entries than the buffers hold.
    fn cast_batch(&mut self, rays: &[GpuRay], table: &[[f32; 4]]) -> Result<Vec<GpuRayHit>> {
        self.gpu.check_memory(
            || format!("{} rays", crate::memory::grouped(rays.len() as u64)),
            crate::memory::MemoryEstimate {
                host: 32 * rays.len() as u64,
                device: 2 * RECORD * rays.len() as u64 + 16 * table.len() as u64,
            },
        )?;
        loop {
            let gpu = self.gpu.clone();
            let (hits, entries) = gpu.scoped(|| self.record_rays(rays, table))??;
            if self.fit(entries, 0, 0)? == Fit::Fits {
                return Ok(hits);
            }
        }
    }

    /// The answers to `rays` and the strip entries the bodies needed (0 with all pairs): the
    /// transform, entry and sort passes, the casts, one wait.
    fn record_rays(&self, rays: &[GpuRay], table: &[[f32; 4]]) -> Result<(Vec<GpuRayHit>, u64)> {
        let (gpu, device) = (&self.gpu, self.gpu.device());
        let strip = self.sized.broad.index();
        let filtered = !self.filters.is_empty();
        let images = self.options.periodic.is_some() && strip.is_some();
        let cast =
            RayCast::new(gpu, strip, &self.bodies, (rays, table), (filtered, self.world_count, images), self.fold);
        let mut encoder = device.create_command_encoder(&Default::default());
        self.record_asking(&mut encoder, &self.plans.casts, Some(Asked::Casts(&cast)));
        let (hits, at) = cast.hits();
        let mut copies = vec![(hits, at, RECORD * rays.len() as u64)];
        if let (Some((total, at)), _) = self.sized.broad.totals() {
            copies.push((total, at, 4));
        }
        let words = read_copies(gpu, encoder, &copies, "ray casts")?;
        let entries = words.get(1).map_or(0, |w| u64::from(w[0]));
        let records: &[[GpuRayHit; 2]] = bytemuck::cast_slice(&words[0]);
        Ok((records.iter().map(|r| r[0]).collect(), entries))
    }
}

/// The ray as the GPU reads it (checked by the caller), with no shape.
fn gpu_ray(ray: &Ray) -> GpuRay {
    let len = ray.direction[0].hypot(ray.direction[1]);
    let f = ray.filter;
    GpuRay {
        origin: ray.origin.map(|x| x as f32),
        dir: ray.direction.map(|x| (x / len) as f32),
        length: ray.max_length.min(REACH) as f32,
        category: f.category,
        mask: f.mask,
        group: f.group,
        turn: [1.0, 0.0],
        world: ray.world,
        ..bytemuck::Zeroable::zeroed()
    }
}

/// The rays as the GPU reads them, each checked.
fn gpu_rays(rays: &[Ray]) -> Result<Vec<GpuRay>> {
    rays.iter().enumerate().map(|(i, ray)| ray.check(i).map(|()| gpu_ray(ray))).collect()
}

/// A ray's or a cast's way in f64 (checked by the caller).
fn way(origin: [f64; 2], direction: [f64; 2], length: f64, reach: f64) -> Way {
    let len = direction[0].hypot(direction[1]);
    Way { origin, dir: [direction[0] / len, direction[1] / len], length, reach }
}

/// The GPU's answer to `ray` (of its `piece`, `t0` along it) in f64: the point along the ray's
/// own (f64) direction.
fn widen(ray: &Ray, hit: &GpuRayHit, piece: Piece) -> Option<RayHit> {
    if hit.body == u32::MAX {
        return None;
    }
    let len = ray.direction[0].hypot(ray.direction[1]);
    let t = (piece.t0 + f64::from(hit.t)).min(ray.max_length);
    let d = [ray.direction[0] / len, ray.direction[1] / len];
    Some(RayHit {
        body: hit.body,
        fraction: if ray.max_length > 0.0 { t / ray.max_length } else { 0.0 },
        point: [ray.origin[0] + t * d[0], ray.origin[1] + t * d[1]],
        normal: unit(hit.normal),
    })
}

/// The GPU's answer to `cast` (of its `piece`: the point touched moved back by its whole
/// boxes) in f64: at fraction 0 the cast's origin, with no normal.
fn widen_cast(cast: &ShapeCast, hit: &GpuRayHit, piece: Piece) -> Option<RayHit> {
    if hit.body == u32::MAX {
        return None;
    }
    let t = (piece.t0 + f64::from(hit.t)).min(cast.max_length);
    let fraction = if cast.max_length > 0.0 { t / cast.max_length } else { 0.0 };
    let (point, normal) = match t > 0.0 {
        true => {
            let [x, y] = hit.point.map(f64::from);
            ([x + piece.shift[0], y + piece.shift[1]], unit(hit.normal))
        }
        false => (cast.origin, [0.0, 0.0]),
    };
    Some(RayHit { body: hit.body, fraction, point, normal })
}

/// The GPU's normal made unit in f64 (`[0, 0]` stays).
fn unit(n: [f32; 2]) -> [f64; 2] {
    let n = n.map(f64::from);
    let len = n[0].hypot(n[1]);
    if len > 0.0 {
        [n[0] / len, n[1] / len]
    } else {
        [0.0, 0.0]
    }
}
