//! Benchmark frames: the numbers `satgpu bench` prints and writes as JSON (part of the CLI).
//!
//! A *frame* goes from polygons in host memory to the sorted list of colliding pairs in host
//! memory: packing and upload of the vertex data ([`World::set_polygons`]), every GPU pass, and
//! readback, so it compares fairly with a CPU library given the same polygons. The *simulation
//! frame* is the persistent case: shapes uploaded once, only 16 bytes of transform per body per
//! frame ([`World::set_transforms`]), then the same passes and readback. The *resident frame*
//! keeps everything on the GPU: the passes alone, nothing read back, as a simulation that
//! consumes the contacts in its own GPU pass runs them.

use std::collections::BTreeMap;
use std::time::Instant;

use satgpu::gpu::{FrameStats, Gpu, GpuTransform, World, WorldOptions};
use satgpu::Result;
use satgpu::{reference, validate};
use satgpu::{Contact, Polygon, Transform};

use crate::trace::Trace;

/// Figures for one scene.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchResult {
    /// Scene name (kind or file).
    pub scene: String,
    /// Adapter description.
    pub adapter: String,
    /// wgpu backend (`Vulkan`, `Gl`, ...).
    pub backend: String,
    /// Number of polygons.
    pub n: usize,
    /// Broad phase used.
    pub broad_phase: String,
    /// Strip entries per frame.
    pub entries: u64,
    /// Candidate pairs per frame.
    pub candidates: u64,
    /// Colliding pairs per frame.
    pub colliding: u64,
    /// Timed frames.
    pub frames: usize,
    /// Median whole-frame wall time (upload, passes, readback), milliseconds.
    pub frame_ms_median: f64,
    /// Median simulation-frame wall time (transforms only, passes, readback), milliseconds.
    pub sim_frame_ms_median: f64,
    /// The same through the f32 API (`World::step_f32_into`): no conversion to f64.
    pub sim_frame_f32_ms_median: f64,
    /// The cheapest host path: f32 `GpuTransform`s in (checked and copied) and the contacts
    /// lent (`World::step_view`: the mapped memory itself when the GPU ordered them).
    pub sim_frame_view_ms_median: f64,
    /// Where the pairs were ordered by (a, b): `"host"` or `"gpu"` (`--order`).
    pub order: String,
    /// Median wall time of a GPU-resident frame, milliseconds: `World::dispatch` (every pass,
    /// results left on the GPU, nothing read back) and the wait for it to finish.
    pub resident_frame_ms_median: f64,
    /// Throughput of a batch run of independent scenes, one after another on one world
    /// (`set_polygons`, then `step_into`): wall time per frame over the timed frames in a row,
    /// milliseconds.
    pub batch_frame_ms: f64,
    /// The same with two frames in flight: two worlds taking turns, each frame submitted before
    /// the other world's previous frame is collected, so that one frame's upload and readback
    /// overlap the other's GPU work.
    pub batch_two_in_flight_ms: f64,
    /// Median time of each pass, milliseconds: GPU passes from timestamp queries (or one
    /// wall-clock `gpu_total`), `upload` and `readback` on the host wall clock.
    pub passes: BTreeMap<String, f64>,
    /// `"gpu"` when the GPU passes come from timestamp queries, `"wall"` otherwise.
    pub pass_clock: String,
    /// Median host time of each kind of span in a whole frame, milliseconds, wall clock (see
    /// `FrameStats::host`): `pack`, `staging_write`, `submit`, `wait`, `map`, `copy_out`, `order`
    /// or `widen`. A span that repeats in a frame counts once, summed.
    pub host_spans: BTreeMap<String, f64>,
    /// The same for simulation frames: `transform_conversion`, `staging_write`, `submit`, ...
    pub sim_host_spans: BTreeMap<String, f64>,
    /// The same for simulation frames read as f32 records (`World::step_f32_into`).
    pub sim_f32_host_spans: BTreeMap<String, f64>,
    /// The same for the frames of `sim_frame_view_ms_median`.
    pub sim_view_host_spans: BTreeMap<String, f64>,
    /// What the host spans are measured against, in the same run: the median time of one copy
    /// of the frame's f64 transforms into memory already in use (`copy_from_slice`),
    /// milliseconds.
    pub transforms_copy_ms: f64,
    /// ... and of one copy of its f32 contacts, the same way, milliseconds.
    pub contacts_copy_ms: f64,
    /// The floor of `pack` and `staging_write`: one copy of as many bytes as the world packs
    /// (`World::packed_bytes`) into memory already in use, on every core, milliseconds.
    pub packed_copy_ms: f64,
    /// CPU reference (f64, one thread) on the same scene, milliseconds.
    pub reference_ms: f64,
    /// Whether the GPU pairs of the last frame equal the reference's under the numerics contract.
    pub agrees: bool,
}

/// Each span's time in `stats`, summed by name, appended to `into`.
fn add_spans(into: &mut BTreeMap<String, Vec<f64>>, stats: &FrameStats) {
    let mut sums: BTreeMap<&str, f64> = BTreeMap::new();
    for span in &stats.host {
        *sums.entry(span.name).or_default() += span.ms;
    }
    for (name, ms) in sums {
        into.entry(name.into()).or_default().push(ms);
    }
}

fn medians(spans: BTreeMap<String, Vec<f64>>) -> BTreeMap<String, f64> {
    spans.into_iter().map(|(k, v)| (k, median(v))).collect()
}

/// The median of `v` (NaN when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// A batch run of `frames` independent scenes (here the same polygons each time), timed as a
/// whole: one world one frame after another, then two worlds taking turns with two frames in
/// flight. Returns the wall time per frame of each, and whether every frame gave `want`'s bits.
fn batch_throughput(
    gpu: &Gpu,
    world: &mut World,
    (polygons, options): (&[Polygon], &WorldOptions),
    (warmup, frames): (usize, usize),
    want: &[Contact],
    mut tick: impl FnMut(),
) -> Result<(f64, f64, bool)> {
    let bits =
        |c: &[Contact]| c.iter().map(|c| (c.a, c.b, c.normal.map(f64::to_bits), c.depth.to_bits())).collect::<Vec<_>>();
    let want = bits(want);
    let mut same = true;
    let mut contacts = [vec![], vec![]];
    let start = Instant::now();
    for _ in 0..frames {
        world.set_polygons(polygons)?;
        world.step_into(&mut contacts[0])?;
        same &= bits(&contacts[0]) == want;
        tick();
    }
    let serial_ms = start.elapsed().as_secs_f64() * 1e3 / frames as f64;
    let mut other = World::from_polygons(gpu, polygons, options)?;
    // Warmed up as the timed frames run it: its packing alternates between two buffers, whose
    // first use touches fresh pages.
    for _ in 0..warmup.max(2) {
        other.set_polygons(polygons)?;
        other.step_into(&mut contacts[1])?;
    }
    let start = Instant::now();
    let mut worlds = [world, &mut other];
    for i in 0..frames + 2 {
        let (w, out) = (&mut worlds[i % 2], &mut contacts[i % 2]);
        if i >= 2 {
            // Frame i - 2 ran on this world while the other one's frame was packed and submitted.
            w.collect_into(out)?;
            same &= bits(out) == want;
            tick();
        }
        if i < frames {
            w.set_polygons(polygons)?;
            w.submit()?;
        }
    }
    let two_ms = start.elapsed().as_secs_f64() * 1e3 / frames as f64;
    Ok((serial_ms, two_ms, same))
}

/// Runs `warmup` untimed and `frames` timed frames of each kind on `polygons`, then the CPU
/// reference once. `progress` is called after every frame with (done, total). Whole frames are
/// timed without GPU timestamps, as a caller runs them; the per-pass times come from as many
/// frames of their own with timestamps on (each pass then a compute pass of its own). With
/// `trace`, every timed frame goes into it.
pub fn run(
    gpu: &Gpu,
    (scene, polygons): (&str, &[Polygon]),
    warmup: usize,
    frames: usize,
    options: &WorldOptions,
    mut trace: Option<&mut Trace>,
    mut progress: impl FnMut(usize, usize),
) -> Result<BenchResult> {
    if let Some(trace) = trace.as_deref_mut() {
        trace.scene(&format!("{scene} n={}", polygons.len()));
    }
    let mut host_spans = BTreeMap::new();
    let mut sim_host_spans = BTreeMap::new();
    let mut sim_f32_host_spans = BTreeMap::new();
    let mut sim_view_host_spans = BTreeMap::new();
    let total = 6 * (warmup + frames) + 2 * frames;
    let mut done = 0;
    let mut world = World::from_polygons(gpu, polygons, options)?;
    let mut frame_ms = vec![];
    let mut passes: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut last = None;
    for timed in [false, true] {
        world.set_timestamps(timed);
        for i in 0..warmup + frames {
            let start = Instant::now();
            world.set_polygons(polygons)?;
            let upload_ms = start.elapsed().as_secs_f64() * 1e3;
            let frame = world.step()?;
            let ms = start.elapsed().as_secs_f64() * 1e3;
            if i >= warmup && !timed {
                frame_ms.push(ms);
                add_spans(&mut host_spans, &frame.stats);
            }
            if let Some(trace) = trace.as_deref_mut().filter(|_| i >= warmup) {
                trace.frame(if timed { "frame (timestamps)" } else { "frame" }, start, ms, Some(&frame.stats));
            }
            if i >= warmup && timed {
                passes.entry("upload".into()).or_default().push(upload_ms);
                for p in &frame.stats.passes {
                    passes.entry(p.name.into()).or_default().push(p.ms);
                }
            }
            last = Some(frame);
            done += 1;
            progress(done, total);
        }
    }
    world.set_timestamps(false);
    let last = last.expect("at least one frame");
    let pass_clock = if gpu.has_timestamps() { "gpu" } else { "wall" };

    // The simulation case on the same world: its shapes are already on the GPU (each polygon
    // relative to its first vertex); a frame uploads only the transforms that place them.
    let transforms: Vec<Transform> = polygons
        .iter()
        .map(|p| Transform {
            x: f64::from(p.vertices()[0][0] as f32),
            y: f64::from(p.vertices()[0][1] as f32),
            angle: 0.0,
        })
        .collect();
    let mut sim_ms = vec![];
    for i in 0..warmup + frames {
        let start = Instant::now();
        world.set_transforms(&transforms)?;
        let frame = world.step()?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if i >= warmup {
            sim_ms.push(ms);
            add_spans(&mut sim_host_spans, &frame.stats);
            if let Some(trace) = trace.as_deref_mut() {
                trace.frame("sim frame", start, ms, Some(&frame.stats));
            }
        }
        done += 1;
        progress(done, total);
    }

    let mut sim_f32_ms = vec![];
    let mut raw = vec![];
    for i in 0..warmup + frames {
        let start = Instant::now();
        world.set_transforms(&transforms)?;
        let stats = world.step_f32_into(&mut raw)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if i >= warmup {
            sim_f32_ms.push(ms);
            add_spans(&mut sim_f32_host_spans, &stats);
            if let Some(trace) = trace.as_deref_mut() {
                trace.frame("sim frame f32", start, ms, Some(&stats));
            }
        }
        done += 1;
        progress(done, total);
    }

    // The same poses as the GPU's own records, and the contacts lent.
    let poses: Vec<GpuTransform> = transforms.iter().map(|t| GpuTransform::new(t.x, t.y, t.angle)).collect();
    let mut view_ms = vec![];
    for i in 0..warmup + frames {
        let start = Instant::now();
        world.set_transforms(&poses)?;
        let view = world.step_view()?;
        std::hint::black_box(view.last());
        let stats = view.stats().clone();
        drop(view);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if i >= warmup {
            view_ms.push(ms);
            add_spans(&mut sim_view_host_spans, &stats);
            if let Some(trace) = trace.as_deref_mut() {
                trace.frame("sim frame view", start, ms, Some(&stats));
            }
        }
        done += 1;
        progress(done, total);
    }

    // One copy of the bytes each way moves, for scale: into memory already in use, as a frame
    // that reuses its buffers would.
    let copy = |f: &mut dyn FnMut()| {
        median(
            (0..frames.max(3))
                .map(|_| {
                    let start = Instant::now();
                    f();
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect(),
        )
    };
    let mut transforms_dst = transforms.clone();
    let transforms_copy_ms = copy(&mut || transforms_dst.copy_from_slice(std::hint::black_box(&transforms)));
    let mut contacts_dst = raw.clone();
    let contacts_copy_ms = copy(&mut || contacts_dst.copy_from_slice(std::hint::black_box(&raw)));
    let packed: Vec<u8> = vec![1; world.packed_bytes() as usize];
    let mut packed_dst = vec![0u8; packed.len()];
    let packed_copy_ms = copy(&mut || {
        use rayon::prelude::*;
        let from = std::hint::black_box(&packed);
        packed_dst
            .par_chunks_mut(1 << 20)
            .zip(from.par_chunks(1 << 20))
            .for_each(|(to, from)| to.copy_from_slice(from));
    });
    std::hint::black_box((&transforms_dst, &contacts_dst, &packed_dst));

    let mut resident_ms = vec![];
    for i in 0..warmup + frames {
        let start = Instant::now();
        let submission = world.dispatch()?;
        gpu.wait(submission)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if i >= warmup {
            resident_ms.push(ms);
            if let Some(trace) = trace.as_deref_mut() {
                trace.frame("resident frame", start, ms, None);
            }
        }
        done += 1;
        progress(done, total);
    }

    let (batch_frame_ms, batch_two_in_flight_ms, batch_same) =
        batch_throughput(gpu, &mut world, (polygons, options), (warmup, frames), &last.contacts, || {
            done += 1;
            progress(done, total);
        })?;

    let start = Instant::now();
    // The reference in the world's periodic box, where it has one.
    let mut judged = satgpu::DetectOptions::default();
    judged.world.periodic = options.periodic;
    let expected = reference::detect(polygons, &judged).contacts;
    let reference_ms = start.elapsed().as_secs_f64() * 1e3;
    let agrees = batch_same && validate::compare(polygons, &last.contacts, &expected, &judged).ok();
    let info = gpu.adapter_info();
    Ok(BenchResult {
        scene: scene.to_string(),
        adapter: gpu.describe(),
        backend: format!("{:?}", info.backend),
        n: polygons.len(),
        broad_phase: last.stats.broad_phase.to_string(),
        entries: last.stats.entries,
        candidates: last.stats.candidates,
        colliding: last.stats.colliding,
        frames,
        frame_ms_median: median(frame_ms),
        sim_frame_ms_median: median(sim_ms),
        sim_frame_f32_ms_median: median(sim_f32_ms),
        sim_frame_view_ms_median: median(view_ms),
        order: if world.orders_on_gpu() { "gpu" } else { "host" }.to_string(),
        resident_frame_ms_median: median(resident_ms),
        batch_frame_ms,
        batch_two_in_flight_ms,
        passes: passes.into_iter().map(|(k, v)| (k, median(v))).collect(),
        pass_clock: pass_clock.to_string(),
        host_spans: medians(host_spans),
        sim_host_spans: medians(sim_host_spans),
        sim_f32_host_spans: medians(sim_f32_host_spans),
        sim_view_host_spans: medians(sim_view_host_spans),
        transforms_copy_ms,
        contacts_copy_ms,
        packed_copy_ms,
        reference_ms,
        agrees,
    })
}
