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

use satgpu::gpu::{Gpu, World, WorldOptions};
use satgpu::Result;
use satgpu::{reference, validate};
use satgpu::{Polygon, Transform};

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
    /// Where the pairs were ordered by (a, b): `"host"` or `"gpu"` (`--order`).
    pub order: String,
    /// Median wall time of a GPU-resident frame, milliseconds: `World::dispatch` (every pass,
    /// results left on the GPU, nothing read back) and the wait for it to finish.
    pub resident_frame_ms_median: f64,
    /// Median time of each pass, milliseconds: GPU passes from timestamp queries (or one
    /// wall-clock `gpu_total`), `upload` and `readback` on the host wall clock.
    pub passes: BTreeMap<String, f64>,
    /// `"gpu"` when the GPU passes come from timestamp queries, `"wall"` otherwise.
    pub pass_clock: String,
    /// CPU reference (f64, one thread) on the same scene, milliseconds.
    pub reference_ms: f64,
    /// Whether the GPU pairs of the last frame equal the reference's under the numerics contract.
    pub agrees: bool,
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

/// Runs `warmup` untimed and `frames` timed frames of each kind on `polygons`, then the CPU
/// reference once. `progress` is called after every frame with (done, total). Whole frames are
/// timed without GPU timestamps, as a caller runs them; the per-pass times come from as many
/// frames of their own with timestamps on (each pass then a compute pass of its own).
pub fn run(
    gpu: &Gpu,
    scene: &str,
    polygons: &[Polygon],
    warmup: usize,
    frames: usize,
    options: &WorldOptions,
    mut progress: impl FnMut(usize, usize),
) -> Result<BenchResult> {
    let total = 5 * (warmup + frames);
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
        world.step()?;
        if i >= warmup {
            sim_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        done += 1;
        progress(done, total);
    }

    let mut sim_f32_ms = vec![];
    let mut raw = vec![];
    for i in 0..warmup + frames {
        let start = Instant::now();
        world.set_transforms(&transforms)?;
        world.step_f32_into(&mut raw)?;
        if i >= warmup {
            sim_f32_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        done += 1;
        progress(done, total);
    }

    let mut resident_ms = vec![];
    for i in 0..warmup + frames {
        let start = Instant::now();
        let submission = world.dispatch()?;
        gpu.wait(submission)?;
        if i >= warmup {
            resident_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        done += 1;
        progress(done, total);
    }

    let start = Instant::now();
    let expected = reference::detect(polygons);
    let reference_ms = start.elapsed().as_secs_f64() * 1e3;
    let agrees = validate::compare(polygons, &last.contacts, &expected).ok();
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
        order: if world.orders_on_gpu() { "gpu" } else { "host" }.to_string(),
        resident_frame_ms_median: median(resident_ms),
        passes: passes.into_iter().map(|(k, v)| (k, median(v))).collect(),
        pass_clock: pass_clock.to_string(),
        reference_ms,
        agrees,
    })
}
