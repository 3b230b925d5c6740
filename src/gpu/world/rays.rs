//! Ray casts against a world's bodies where they are now (see `stages/ray.rs`).

use crate::error::Result;
use crate::geometry::{Ray, RayHit, MAX_COORDINATE};
use crate::gpu::device::adapter::loops_cut;
use crate::gpu::device::pass::Recorder;
use crate::gpu::stages::ray::{GpuRay, GpuRayHit, RayCast, CUT, HEADER_WORDS};
use crate::gpu::stages::readback::read_as;
use crate::gpu::world::World;

/// How far a ray reaches on the GPU: past every point a body can hold from every origin a ray
/// can have (coordinates within [`MAX_COORDINATE`]), well inside f32.
const REACH: f64 = 8.0 * MAX_COORDINATE;

/// Bytes per ray on the GPU (its record, over which its answer is written) and in the readback.
const RAY_BYTES: u64 = 2 * std::mem::size_of::<GpuRay>() as u64;

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
        if records.is_empty() || self.is_empty() {
            return Ok(vec![None; rays.len()]);
        }
        let limits = self.gpu.device().limits();
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        // The rays follow the strips' widths and starts in one binding.
        let batch = ((binding - 4 * u64::from(HEADER_WORDS)) / 32).max(1) as usize;
        let mut out = Vec::with_capacity(rays.len());
        for (chunk, rays) in records.chunks(batch).zip(rays.chunks(batch)) {
            let hits = self.cast_batch(chunk)?;
            if hits.iter().any(|h| h.body == CUT) {
                return Err(loops_cut(self.gpu.adapter_info(), "a ray passes too many bodies' boxes"));
            }
            out.extend(rays.iter().zip(hits).map(|(ray, hit)| widen(ray, &hit)));
        }
        // A shape's hit is its body's (of shapes hit at the same distance the first, so of
        // bodies the lowest).
        if let Some(map) = &self.map {
            out.iter_mut().flatten().for_each(|hit| hit.body = map.body_of(hit.body));
        }
        Ok(out)
    }

    /// One batch of rays; the strip entries grown and the batch cast again where the bodies as
    /// they stand now need more entries than the buffers hold.
    fn cast_batch(&mut self, rays: &[GpuRay]) -> Result<Vec<GpuRayHit>> {
        self.gpu.check_memory(
            || format!("{} rays", crate::memory::grouped(rays.len() as u64)),
            crate::memory::MemoryEstimate { host: 16 * rays.len() as u64, device: RAY_BYTES * rays.len() as u64 },
        )?;
        loop {
            let gpu = self.gpu.clone();
            let (hits, entries) = gpu.scoped(|| self.record_rays(rays))??;
            if entries <= u64::from(self.sized.capacity.entries) {
                return Ok(hits);
            }
            self.reserve(entries, 0)?;
        }
    }

    /// The answers to `rays` and the strip entries the bodies needed (0 with all pairs): the
    /// transform, entry and sort passes, the casts, one wait.
    fn record_rays(&self, rays: &[GpuRay]) -> Result<(Vec<GpuRayHit>, u64)> {
        let (gpu, device) = (&self.gpu, self.gpu.device());
        let mut encoder = device.create_command_encoder(&Default::default());
        let strip = {
            let mut rec = Recorder::new(&mut encoder, gpu.kernels(), None);
            self.transform.encode(&mut rec);
            self.sized.broad.encode_sorted(&mut rec)
        };
        let filtered = !self.filters.is_empty();
        let cast = RayCast::new(gpu, strip, &self.bodies, rays, filtered, self.fold);
        cast.encode(gpu, &mut encoder, &self.control);
        let size = 32 * rays.len() as u64;
        let read = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("satgpu.ray.read"),
            size: size + 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let (hits, at) = cast.hits();
        encoder.copy_buffer_to_buffer(hits, at, &read, 0, size);
        if let (Some((total, at)), _) = self.sized.broad.totals() {
            encoder.copy_buffer_to_buffer(total, at, &read, size, 4);
        }
        let submission = gpu.queue().submit([encoder.finish()]);
        let words = read_as::<u32>(gpu, &read, size + 16, submission, "ray casts")?;
        let entries = if strip.is_some() { u64::from(words[words.len() - 4]) } else { 0 };
        let records: &[[GpuRayHit; 2]] = bytemuck::cast_slice(&words[..words.len() - 4]);
        Ok((records.iter().map(|r| r[0]).collect(), entries))
    }
}

/// The rays as the GPU reads them, each checked.
fn gpu_rays(rays: &[Ray]) -> Result<Vec<GpuRay>> {
    rays.iter()
        .enumerate()
        .map(|(i, ray)| {
            ray.check(i)?;
            let len = ray.direction[0].hypot(ray.direction[1]);
            let f = ray.filter;
            Ok(GpuRay {
                origin: ray.origin.map(|x| x as f32),
                dir: ray.direction.map(|x| (x / len) as f32),
                length: ray.max_length.min(REACH) as f32,
                category: f.category,
                mask: f.mask,
                group: f.group,
            })
        })
        .collect()
}

/// The GPU's answer to `ray` in f64: the point along the ray's own (f64) direction.
fn widen(ray: &Ray, hit: &GpuRayHit) -> Option<RayHit> {
    if hit.body == u32::MAX {
        return None;
    }
    let len = ray.direction[0].hypot(ray.direction[1]);
    let t = f64::from(hit.t).min(ray.max_length);
    let d = [ray.direction[0] / len, ray.direction[1] / len];
    let n = hit.normal.map(f64::from);
    let n_len = n[0].hypot(n[1]);
    Some(RayHit {
        body: hit.body,
        fraction: if ray.max_length > 0.0 { t / ray.max_length } else { 0.0 },
        point: [ray.origin[0] + t * d[0], ray.origin[1] + t * d[1]],
        normal: if n_len > 0.0 { [n[0] / n_len, n[1] / n_len] } else { [0.0, 0.0] },
    })
}
