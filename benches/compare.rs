//! satgpu on the GPU against its own CPU reference and against parry2d, on the same scenes in
//! one run.
//!
//! `cargo bench --bench compare` runs the full comparison (crowd, dense, mixed and clustered at
//! 10,000 and 100,000 polygons unless `SATGPU_BENCH_N=10000,100000,1000000` and
//! `SATGPU_BENCH_KINDS=crowd,dense` say otherwise; `SATGPU_BENCH_REPS` sets the repetitions,
//! `SATGPU_BENCH_SEED` the scene seed), prints an aligned table and writes the same numbers to
//! `target/bench-compare.json`. Compound kinds (`SATGPU_BENCH_KINDS=rooms`) run against parry2d's
//! `Compound` (`compare/compound.rs`); `SATGPU_BENCH_MARGIN=F` runs the kinds as neighbours
//! within F mean box widths against parry2d's `contact` with a prediction (`compare/margin.rs`);
//! `SATGPU_BENCH_EVENTS=F` runs them as F frames of moving bodies with contact events against
//! parry2d's contacts and a merge of each two frames' pairs (`compare/events.rs`);
//! `SATGPU_BENCH_RAYS=R` casts R rays (0: as many as bodies) against parry2d's BVH ray casts
//! (`compare/rays.rs`); `SATGPU_BENCH_CASTS=C` casts C discs against parry2d's BVH and
//! `query::cast_shapes` (`compare/casts.rs`); `SATGPU_BENCH_SWEEPS=1` moves and turns every
//! body over one frame, continuous collision against parry2d's `cast_shapes_nonlinear`
//! (`compare/sweeps.rs`);
//! `SATGPU_BENCH_QUERIES=Q` runs Q box and Q point queries against parry2d's BVH queries
//! (`compare/queries.rs`).
//! Run without `--bench` (as `cargo test --benches` and
//! `cargo test --all-targets` do) it shrinks every kind, grid included, to 300 polygons, times
//! nothing worth reading, and asserts that the three contenders agree: the GPU with the
//! reference under `satgpu::validate::compare`, parry2d with the reference on every pair whose
//! SAT separation lies outside `satgpu::validate::band`, except false positives within
//! parry2d's own GJK tolerance, which are counted and shown instead (see
//! [`parry_gjk_tolerance`]). In bench mode the same checks are reported but do not abort.
//!
//! What is timed, per contender, is what a user pays to go from polygons in host memory to the
//! list of colliding pairs in host memory, wall clock, median of several repetitions after one
//! warm-up (whose output is the one checked):
//!
//! * **gpu frame**: `World::set_polygons` (packing and upload of all the vertex data into an
//!   existing world) plus `step()` (every GPU pass and the readback of sorted contacts). This is
//!   what a program that gets new polygons every frame pays per frame, the `frame_ms_median` of
//!   `satgpu bench`, and the number the ratios use: like the CPU contenders, it starts from the
//!   polygons in host memory every time. The device and its pipelines are created once, before
//!   timing: a process pays that once.
//! * **gpu cold**: `World::from_polygons` (buffer and bind group creation, upload) plus the
//!   first `step()`, including any rerun when a buffer has to grow: the one-shot cost of a
//!   program that calls satgpu once.
//! * **gpu step**: `step()` alone on an existing world, the steady-state cost per frame of a
//!   simulation whose bodies are already on the device. Shown for context, not in the ratios.
//! * **reference**: `satgpu::reference::detect`, single-threaded f64 sort-and-sweep plus SAT
//!   with minimum translation vectors.
//! * **parry2d**: everything a parry2d user needs for the same answer, single-threaded:
//!   a `ConvexPolygon` per polygon (`from_convex_polyline_unmodified`, which neither recomputes
//!   the hull nor drops vertices; satgpu polygons are already validated convex and
//!   counter-clockwise), a `Ball` per circle, a `Capsule` per capsule and a
//!   `RoundShape<ConvexPolygon>` per rounded polygon, the AABBs, `Bvh::from_leaves` (binned SAH build), the BVH's
//!   self-traversal for overlapping leaf pairs (`traverse_bvtt_single_tree`), and
//!   `parry2d::query::intersection_test` (GJK for two polygons) on each candidate, then a sort
//!   of the pairs so that all three produce the same sorted list. parry2d only answers yes or
//!   no per pair, while the other two also compute a normal and a depth, so this favours
//!   parry2d; the ratios `parry/gpu` use it.
//! * **parry2d contact**: the same with `parry2d::query::contact` (prediction 0: GJK, then EPA
//!   for overlapping shapes) per candidate, which gives a normal and a depth as satgpu does:
//!   what a parry2d user pays for the same output. Shown beside it (`contact/gpu`).
//! * **parry2d contact, all cores**: the same on every core with rayon: shapes built in
//!   parallel, the BVH built and traversed on one thread (parry2d's traversal is sequential), its
//!   candidates tested in parallel, the pairs sorted in parallel (`all cores/gpu`). Its pairs
//!   must equal the one-thread run's.
//!
//! parry2d works in f32. To keep its rounding proportional to the size of a pair rather than to
//! the distance from the origin (the same contract the GPU meets, see `satgpu::validate`),
//! each shape is stored relative to its own first vertex and the relative pose of a pair is
//! computed in f64 before rounding to f32. Without this, polygons tens of thousands of units
//! from the origin would be rounded to about 1/256 of a unit and near-touching pairs would
//! flip. The BVH's AABBs are rounded outwards to f32, so the broad phase stays conservative.

#[path = "compare/casts.rs"]
mod casts;
#[path = "compare/compound.rs"]
mod compound;
#[path = "compare/events.rs"]
mod events;
#[path = "compare/margin.rs"]
mod margin;
#[path = "compare/queries.rs"]
mod queries;
#[path = "compare/rays.rs"]
mod rays;
#[path = "compare/sweeps.rs"]
mod sweeps;

use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::Instant;

use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::{Pose, Vector};
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry2d::query::{contact, intersection_test};
use parry2d::shape::{Ball, Capsule, ConvexPolygon, RoundShape, Shape};
use satgpu::gpu::{Gpu, GpuOptions, World, WorldOptions};
use satgpu::scene::{self, SceneKind};
use satgpu::DetectOptions;
use satgpu::{reference, validate, Contact, Polygon, ShapeKind};

/// Polygons per scene in test mode.
const TEST_N: usize = 300;
/// Default repetitions after the warm-up.
const DEFAULT_REPS: usize = 5;
/// Repetitions when one warm-up run already took longer than this many milliseconds.
const SLOW_MS: f64 = 3000.0;
const SLOW_REPS: usize = 3;

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn median(samples: &[f64]) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.is_empty() {
        f64::NAN
    } else if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

/// Runs `f` once as a warm-up and keeps its output, then `reps` more times (fewer when the
/// warm-up was slow) and returns the median wall-clock time of those, in milliseconds. Each
/// output is dropped after its time is taken.
fn measure<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let t = Instant::now();
    let out = f();
    let reps = if ms_since(t) > SLOW_MS { reps.min(SLOW_REPS) } else { reps };
    let samples: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            let r = f();
            let elapsed = ms_since(t);
            drop(black_box(r));
            elapsed
        })
        .collect();
    (median(&samples), out)
}

/// The largest f32 not above `x`.
fn f32_down(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) > x {
        f.next_down()
    } else {
        f
    }
}

/// The smallest f32 not below `x`.
fn f32_up(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x {
        f.next_up()
    } else {
        f
    }
}

/// Time of each parry2d phase in one run, in milliseconds.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
struct ParryPhases {
    shapes_ms: f64,
    bvh_build_ms: f64,
    traverse_and_test_ms: f64,
    sort_ms: f64,
}

struct ParryOut {
    /// Colliding pairs `(a, b)` with `a < b`, sorted.
    pairs: Vec<(u32, u32)>,
    /// BVH leaf pairs whose AABBs overlap.
    candidates: u64,
    phases: ParryPhases,
}

/// What parry2d computes per candidate pair.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ParryQuery {
    /// `intersection_test`: yes or no (GJK), less than satgpu computes.
    Intersection,
    /// `contact` with prediction 0: a normal and a penetration depth (GJK, then EPA when the
    /// shapes overlap), the same job as satgpu's.
    Contact,
}

/// A scene as a parry2d user queries it: each body's shape relative to its anchor, and a BVH
/// over their boxes (built once), shared by the ray, cast and query comparisons.
struct ParryScene {
    anchors: Vec<[f64; 2]>,
    shapes: Vec<Box<dyn Shape>>,
    bvh: Bvh,
}

fn parry_scene(polygons: &[Polygon]) -> ParryScene {
    let built: Vec<_> = polygons.iter().enumerate().map(|(i, p)| parry_shape(i, p)).collect();
    let aabbs: Vec<_> = built.iter().map(|b| b.2).collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs);
    let (anchors, shapes) = built.into_iter().map(|(a, s, _)| (a, s)).unzip();
    ParryScene { anchors, shapes, bvh }
}

/// All colliding pairs with parry2d: shapes, BVH over their AABBs, self-traversal, then `query`
/// per candidate.
/// What a parry2d user builds for polygon `i`: its anchor (first vertex), its shape relative to
/// the anchor, and its AABB in world space, rounded outward to f32.
fn parry_shape(i: usize, p: &Polygon) -> ([f64; 2], Box<dyn Shape>, ParryAabb) {
    let o = p.vertices()[0];
    let (mut lo, mut hi) = (o, o);
    let local: Vec<Vector> = p
        .vertices()
        .iter()
        .map(|v| {
            lo = [lo[0].min(v[0]), lo[1].min(v[1])];
            hi = [hi[0].max(v[0]), hi[1].max(v[1])];
            Vector::new((v[0] - o[0]) as f32, (v[1] - o[1]) as f32)
        })
        .collect();
    // What a parry2d user would pick for each shape: Ball, Capsule, a round or plain
    // ConvexPolygon.
    let r = p.radius();
    let shape: Box<dyn Shape> = match p.kind() {
        ShapeKind::Circle => Box::new(Ball::new(r as f32)),
        ShapeKind::Capsule => Box::new(Capsule::new(local[0], local[1], r as f32)),
        kind => {
            let polygon = ConvexPolygon::from_convex_polyline_unmodified(local)
                .unwrap_or_else(|| panic!("polygon {i} degenerates in f32"));
            if kind == ShapeKind::RoundedPolygon {
                Box::new(RoundShape { inner_shape: polygon, border_radius: r as f32 })
            } else {
                Box::new(polygon)
            }
        }
    };
    let aabb = ParryAabb::new(
        Vector::new(f32_down(lo[0] - r), f32_down(lo[1] - r)),
        Vector::new(f32_up(hi[0] + r), f32_up(hi[1] + r)),
    );
    (o, shape, aabb)
}

fn parry_detect(polygons: &[Polygon], query: ParryQuery) -> ParryOut {
    let t = Instant::now();
    let mut anchors = Vec::with_capacity(polygons.len());
    let mut shapes = Vec::with_capacity(polygons.len());
    let mut aabbs = Vec::with_capacity(polygons.len());
    for (i, p) in polygons.iter().enumerate() {
        let (anchor, shape, aabb) = parry_shape(i, p);
        anchors.push(anchor);
        shapes.push(shape);
        aabbs.push(aabb);
    }
    let shapes_ms = ms_since(t);

    let t = Instant::now();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs);
    let bvh_build_ms = ms_since(t);

    let t = Instant::now();
    let mut workspace = BvhWorkspace::default();
    let mut pairs = Vec::new();
    let mut candidates = 0u64;
    bvh.traverse_bvtt_single_tree::<false>(&mut workspace, &mut |i, j| {
        candidates += 1;
        let (a, b) = (i.min(j), i.max(j));
        if parry_hit(query, (&anchors, &shapes), a, b) {
            pairs.push((a, b));
        }
    });
    let traverse_and_test_ms = ms_since(t);

    let t = Instant::now();
    pairs.sort_unstable();
    let sort_ms = ms_since(t);

    ParryOut { pairs, candidates, phases: ParryPhases { shapes_ms, bvh_build_ms, traverse_and_test_ms, sort_ms } }
}

/// Whether bodies `a` and `b` collide, by `query`.
fn parry_hit(query: ParryQuery, (anchors, shapes): (&[[f64; 2]], &[Box<dyn Shape>]), a: u32, b: u32) -> bool {
    let (oa, ob) = (anchors[a as usize], anchors[b as usize]);
    let pos12 = Pose::from_translation(Vector::new((ob[0] - oa[0]) as f32, (ob[1] - oa[1]) as f32));
    let (sa, sb) = (&*shapes[a as usize], &*shapes[b as usize]);
    match query {
        ParryQuery::Intersection => {
            intersection_test(&Pose::IDENTITY, sa, &pos12, sb)
                .expect("parry2d supports intersection tests between these shapes")
                .intersecting
        }
        ParryQuery::Contact => contact(&Pose::IDENTITY, sa, &pos12, sb, 0.0)
            .expect("parry2d supports contacts between these shapes")
            .is_some_and(|c| black_box(c.dist) <= 0.0),
    }
}

/// [`parry_detect`] on all cores, as a parry2d user with rayon would write it: the shapes built
/// in parallel, the BVH built and traversed on one thread (parry2d's traversal is sequential),
/// the candidates it lists tested in parallel, the pairs sorted in parallel.
fn parry_detect_all_cores(polygons: &[Polygon], query: ParryQuery) -> Vec<(u32, u32)> {
    use rayon::prelude::*;
    let built: Vec<_> = polygons.par_iter().enumerate().map(|(i, p)| parry_shape(i, p)).collect();
    let mut anchors = Vec::with_capacity(built.len());
    let mut shapes = Vec::with_capacity(built.len());
    let mut aabbs = Vec::with_capacity(built.len());
    for (anchor, shape, aabb) in built {
        anchors.push(anchor);
        shapes.push(shape);
        aabbs.push(aabb);
    }
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs);
    let mut workspace = BvhWorkspace::default();
    let mut candidates = Vec::new();
    bvh.traverse_bvtt_single_tree::<false>(&mut workspace, &mut |i, j| candidates.push((i.min(j), i.max(j))));
    let mut pairs: Vec<(u32, u32)> =
        candidates.into_par_iter().filter(|&(a, b)| parry_hit(query, (&anchors, &shapes), a, b)).collect();
    pairs.par_sort_unstable();
    pairs
}

/// Relative tolerance of parry2d's boolean GJK, `sqrt(10 * f32::EPSILON)` (about 1.1e-3, its
/// `eps_rel`). `intersection_test` reports some pairs as intersecting although they are apart
/// by far more than the satgpu band (2.9e-5 and 9.4e-5 for unit-sized polygons in the 300-polygon
/// clustered scene), while parry2d's own `distance` measures those gaps correctly. Such false
/// positives, if the gap is below this tolerance times the pair's size, are counted as `loose`
/// instead of failing the check; misses and larger gaps still fail it.
fn parry_gjk_tolerance(a: &Polygon, b: &Polygon) -> f64 {
    (10.0 * f64::from(f32::EPSILON)).sqrt() * validate::pair_scale(a, b)
}

/// How parry2d's verdicts compare with the reference's.
#[derive(Debug, Clone, Default, serde::Serialize)]
struct ParryCheck {
    /// Pairs only one of them reports, with the reference separation inside the band: allowed.
    in_band: usize,
    /// Pairs only parry2d reports, apart by more than the band but by less than
    /// [`parry_gjk_tolerance`]: a known looseness of its boolean GJK, tolerated.
    loose: Vec<(u32, u32, f64)>,
    /// Other pairs only one of them reports, outside the band: a disagreement.
    out_of_band: Vec<(u32, u32, f64)>,
    /// Reference pairs whose SAT separation is exactly zero (touching, not overlapping).
    touching: usize,
    /// How many of those parry2d reports as intersecting.
    touching_parry: usize,
    /// Whether parry2d reported some pair twice.
    duplicates: bool,
}

fn check_parry(polygons: &[Polygon], parry: &[(u32, u32)], reference: &[Contact]) -> ParryCheck {
    let p: BTreeSet<(u32, u32)> = parry.iter().copied().collect();
    let r: BTreeSet<(u32, u32)> = reference.iter().map(|c| (c.a, c.b)).collect();
    let mut check = ParryCheck { duplicates: p.len() != parry.len(), ..ParryCheck::default() };
    for &(a, b) in p.symmetric_difference(&r) {
        let (pa, pb) = (&polygons[a as usize], &polygons[b as usize]);
        let separation = reference::separation(pa, pb);
        if separation.abs() <= validate::band(pa, pb) {
            check.in_band += 1;
        } else if p.contains(&(a, b)) && separation <= parry_gjk_tolerance(pa, pb) {
            check.loose.push((a, b, separation));
        } else {
            check.out_of_band.push((a, b, separation));
        }
    }
    for c in reference.iter().filter(|c| c.depth == 0.0) {
        if reference::separation(&polygons[c.a as usize], &polygons[c.b as usize]) == 0.0 {
            check.touching += 1;
            check.touching_parry += usize::from(p.contains(&(c.a, c.b)));
        }
    }
    check
}

/// One scene's results.
#[derive(Debug, Clone, serde::Serialize)]
struct Row {
    kind: String,
    n: usize,
    candidates_gpu: u64,
    candidates_reference: usize,
    candidates_parry: u64,
    pairs_gpu: usize,
    pairs_reference: usize,
    pairs_parry: usize,
    /// Median wall clock of `World::set_polygons` + `step()` on an existing world.
    gpu_frame_ms: f64,
    /// Median wall clock of `World::from_polygons` + `step()`.
    gpu_cold_ms: f64,
    /// Median wall clock of `step()` on an existing world.
    gpu_step_ms: f64,
    /// Median of the world's own `stats.frame_ms` over the step-only runs.
    gpu_step_stats_ms: f64,
    /// Candidate-buffer reruns in the one-shot frame.
    gpu_reruns: u32,
    reference_ms: f64,
    parry_ms: f64,
    /// Median of each parry2d phase over the timed runs.
    parry_phases: ParryPhases,
    parry_over_gpu_frame: f64,
    /// parry2d with `contact` per candidate (a normal and a depth, as satgpu gives).
    parry_contact_ms: f64,
    pairs_parry_contact: usize,
    parry_contact_over_gpu_frame: f64,
    parry_contact: ParryCheck,
    /// parry2d with `contact` per candidate on all cores ([`parry_detect_all_cores`]).
    parry_contact_all_cores_ms: f64,
    parry_contact_all_cores_over_gpu_frame: f64,
    /// Threads rayon ran on.
    threads: usize,
    reference_over_gpu_frame: f64,
    /// GPU vs reference under `satgpu::validate::compare`.
    gpu_ok: bool,
    gpu_in_band: usize,
    gpu_disagreements: usize,
    parry: ParryCheck,
}

#[derive(serde::Serialize)]
struct Report<'a> {
    adapter: String,
    seed: u64,
    reps: usize,
    rows: &'a [Row],
    compound_rows: &'a [compound::CompoundRow],
    margin_rows: &'a [margin::MarginRow],
    events_rows: &'a [events::EventsRow],
    queries_rows: &'a [queries::QueriesRow],
    rays_rows: &'a [rays::RaysRow],
    casts_rows: &'a [casts::CastsRow],
    sweeps_rows: &'a [sweeps::SweepsRow],
}

fn run_scene(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, reps: usize) -> Row {
    let polygons = scene::generate(kind, n, seed);

    let (gpu_cold_ms, (mut world, frame)) = measure(reps, || {
        let mut world =
            World::from_polygons(gpu, &polygons, &WorldOptions::default()).expect("World::from_polygons failed");
        let frame = world.step().expect("World::step failed");
        (world, frame)
    });
    let (gpu_frame_ms, _) = measure(reps, || {
        world.set_polygons(&polygons).expect("World::set_polygons failed");
        world.step().expect("World::step failed")
    });
    let mut step_stats = Vec::new();
    let (gpu_step_ms, _) = measure(reps, || {
        let f = world.step().expect("World::step failed");
        step_stats.push(f.stats.frame_ms);
        f
    });
    drop(world);

    let (reference_ms, reference_contacts) =
        measure(reps, || reference::detect(&polygons, &DetectOptions::default()).contacts);

    let mut phases = Vec::new();
    let (parry_ms, parry) = measure(reps, || {
        let out = parry_detect(&polygons, ParryQuery::Intersection);
        phases.push(out.phases);
        out
    });
    let (parry_contact_ms, parry_contact) = measure(reps, || parry_detect(&polygons, ParryQuery::Contact));
    let (parry_contact_all_cores_ms, parry_all) =
        measure(reps, || parry_detect_all_cores(&polygons, ParryQuery::Contact));
    assert_eq!(parry_all, parry_contact.pairs, "parry2d on all cores finds the pairs it finds on one");
    // The warm-up's phases are not part of the median.
    let timed = &phases[1..];
    let phase = |f: fn(&ParryPhases) -> f64| median(&timed.iter().map(f).collect::<Vec<_>>());
    let parry_phases = ParryPhases {
        shapes_ms: phase(|p| p.shapes_ms),
        bvh_build_ms: phase(|p| p.bvh_build_ms),
        traverse_and_test_ms: phase(|p| p.traverse_and_test_ms),
        sort_ms: phase(|p| p.sort_ms),
    };

    let gpu_report = validate::compare(&polygons, &frame.contacts, &reference_contacts, &DetectOptions::default());
    let parry_check = check_parry(&polygons, &parry.pairs, &reference_contacts);
    let parry_contact_check = check_parry(&polygons, &parry_contact.pairs, &reference_contacts);
    Row {
        kind: kind.to_string(),
        n,
        candidates_gpu: frame.stats.candidates,
        candidates_reference: reference::broad_phase(&polygons).len(),
        candidates_parry: parry.candidates,
        pairs_gpu: frame.contacts.len(),
        pairs_reference: reference_contacts.len(),
        pairs_parry: parry.pairs.len(),
        gpu_frame_ms,
        gpu_cold_ms,
        gpu_step_ms,
        gpu_step_stats_ms: median(step_stats.get(1..).unwrap_or_default()),
        gpu_reruns: frame.stats.reruns,
        reference_ms,
        parry_ms,
        parry_phases,
        parry_over_gpu_frame: parry_ms / gpu_frame_ms,
        parry_contact_ms,
        pairs_parry_contact: parry_contact.pairs.len(),
        parry_contact_over_gpu_frame: parry_contact_ms / gpu_frame_ms,
        parry_contact: parry_contact_check,
        parry_contact_all_cores_ms,
        parry_contact_all_cores_over_gpu_frame: parry_contact_all_cores_ms / gpu_frame_ms,
        threads: rayon::current_num_threads(),
        reference_over_gpu_frame: reference_ms / gpu_frame_ms,
        gpu_ok: gpu_report.ok(),
        gpu_in_band: gpu_report.in_band,
        gpu_disagreements: gpu_report.disagreements.len(),
        parry: parry_check,
    }
}

const COLUMNS: usize = 20;

const HEADER: [&str; COLUMNS] = [
    "kind",
    "n",
    "candidates",
    "pairs gpu",
    "pairs ref",
    "pairs parry",
    "gpu frame ms",
    "gpu cold ms",
    "gpu step ms",
    "ref ms",
    "parry ms",
    "parry/gpu",
    "parry contact ms",
    "contact/gpu",
    "contact all cores ms",
    "all cores/gpu",
    "ref/gpu",
    "agree",
    "parry loose",
    "touching (parry)",
];

fn cells(r: &Row) -> [String; COLUMNS] {
    let parry = r.parry.out_of_band.len() + r.parry_contact.out_of_band.len();
    let agree = match (r.gpu_ok, parry) {
        (true, 0) => "yes".to_string(),
        (gpu, parry) => format!("NO: gpu {}, parry {parry}", if gpu { 0 } else { r.gpu_disagreements }),
    };
    [
        r.kind.clone(),
        r.n.to_string(),
        r.candidates_gpu.to_string(),
        r.pairs_gpu.to_string(),
        r.pairs_reference.to_string(),
        r.pairs_parry.to_string(),
        format!("{:.2}", r.gpu_frame_ms),
        format!("{:.2}", r.gpu_cold_ms),
        format!("{:.2}", r.gpu_step_ms),
        format!("{:.2}", r.reference_ms),
        format!("{:.2}", r.parry_ms),
        format!("{:.2}x", r.parry_over_gpu_frame),
        format!("{:.2}", r.parry_contact_ms),
        format!("{:.2}x", r.parry_contact_over_gpu_frame),
        format!("{:.2}", r.parry_contact_all_cores_ms),
        format!("{:.2}x", r.parry_contact_all_cores_over_gpu_frame),
        format!("{:.2}x", r.reference_over_gpu_frame),
        agree,
        r.parry.loose.len().to_string(),
        format!("{} ({})", r.parry.touching, r.parry.touching_parry),
    ]
}

fn print_table(rows: &[Row]) {
    let body: Vec<[String; COLUMNS]> = rows.iter().map(cells).collect();
    let mut width = HEADER.map(str::len);
    for row in &body {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let line = |row: &[String]| {
        let cols: Vec<String> = row
            .iter()
            .zip(width)
            .enumerate()
            .map(|(i, (c, w))| if i == 0 { format!("{c:<w$}") } else { format!("{c:>w$}") })
            .collect();
        println!("{}", cols.join("  ").trim_end());
    };
    line(&HEADER.map(String::from));
    for row in &body {
        line(row);
    }
}

fn env_list<T>(name: &str, parse: impl Fn(&str) -> Result<T, String>) -> Option<Vec<T>> {
    let value = std::env::var(name).ok()?;
    let list = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse(s).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect();
    Some(list)
}

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    let value = std::env::var(name).ok()?;
    Some(value.trim().replace('_', "").parse().unwrap_or_else(|_| panic!("{name}: not a number: {value:?}")))
}

fn main() {
    // libtest-style runners pass `--bench` only under `cargo bench`; anything else
    // (`cargo test --benches`, `cargo test --all-targets`) is a correctness run.
    let bench = std::env::args().skip(1).any(|a| a == "--bench");
    let seed = env_number("SATGPU_BENCH_SEED").unwrap_or(1);
    let (kinds, sizes, reps) = if bench {
        let kinds = env_list("SATGPU_BENCH_KINDS", |s| s.parse::<SceneKind>())
            .unwrap_or_else(|| vec![SceneKind::Crowd, SceneKind::Dense, SceneKind::Mixed, SceneKind::Clustered]);
        let sizes =
            env_list("SATGPU_BENCH_N", |s| s.replace('_', "").parse::<usize>().map_err(|e| format!("{s:?}: {e}")))
                .unwrap_or_else(|| vec![10_000, 100_000]);
        (kinds, sizes, env_number("SATGPU_BENCH_REPS").unwrap_or(DEFAULT_REPS).max(1))
    } else {
        // parry2d's GJK works to absolute tolerances, so `scales` (pairs from 1e-29 to 1e30) is
        // compared with the reference in tests/correctness.rs instead.
        let kinds = SceneKind::ALL.into_iter().filter(|&k| k != SceneKind::Scales);
        (kinds.chain(SceneKind::COMPOUND).collect(), vec![TEST_N], 1)
    };

    let gpu = Gpu::new(&GpuOptions::default()).expect("the compare bench needs a GPU adapter");
    println!("adapter: {}", gpu.describe());
    println!(
        "mode: {}, seed {seed}, median of {reps} run(s) after a warm-up; reference and parry2d on one thread, \
         parry2d contact also on all {} threads",
        if bench { "bench" } else { "test (timings not meaningful)" },
        rayon::current_num_threads()
    );

    // Neighbours within a margin instead of the main table: SATGPU_BENCH_MARGIN (a fraction of
    // the mean box width); in test mode, a check at half a width on a few kinds.
    let fraction: Option<f64> = env_number("SATGPU_BENCH_MARGIN");
    // Contact events instead: SATGPU_BENCH_EVENTS (frames); in test mode, 4 frames of a few kinds.
    let event_frames: Option<usize> = env_number("SATGPU_BENCH_EVENTS");
    let (mut rows, mut compound_rows, mut margin_rows) = (Vec::new(), Vec::new(), Vec::new());
    let mut events_rows = Vec::new();
    // Region queries instead: SATGPU_BENCH_QUERIES (how many of each); in test mode, 200 on a few kinds.
    let query_count: Option<usize> = env_number("SATGPU_BENCH_QUERIES");
    let mut queries_rows = Vec::new();
    // Ray casts instead: SATGPU_BENCH_RAYS (how many; 0: as many as bodies); in test mode, 300
    // on a few kinds.
    let ray_count: Option<usize> = env_number("SATGPU_BENCH_RAYS");
    let mut rays_rows = Vec::new();
    // Shape casts instead: SATGPU_BENCH_CASTS (how many discs; 0: as many as bodies); in test
    // mode, 300 on a few kinds.
    let cast_count: Option<usize> = env_number("SATGPU_BENCH_CASTS");
    let mut casts_rows = Vec::new();
    // Continuous collision instead: SATGPU_BENCH_SWEEPS (any value); in test mode, a few kinds.
    let sweeps_on = env_number::<u64>("SATGPU_BENCH_SWEEPS").is_some();
    let mut sweeps_rows = Vec::new();
    for &n in &sizes {
        for &kind in &kinds {
            eprintln!("running {kind} n={n} ...");
            if kind.is_compound() {
                compound_rows.push(compound::run(&gpu, kind, n, seed, reps));
            } else if sweeps_on && bench {
                sweeps_rows.push(sweeps::run(&gpu, kind, n, seed, reps, false));
            } else if let Some(count) = cast_count.filter(|_| bench) {
                casts_rows.push(casts::run(&gpu, kind, n, seed, reps, count, false));
            } else if let Some(count) = ray_count.filter(|_| bench) {
                rays_rows.push(rays::run(&gpu, kind, n, seed, reps, count, false));
            } else if let Some(count) = query_count.filter(|_| bench) {
                queries_rows.push(queries::run(&gpu, kind, n, seed, reps, count, false));
            } else if let Some(frames) = event_frames.filter(|_| bench) {
                events_rows.push(events::run(&gpu, kind, n, seed, frames.max(2)));
            } else if let Some(fraction) = fraction.filter(|_| bench) {
                margin_rows.push(margin::run(&gpu, kind, n, seed, reps, fraction));
            } else {
                rows.push(run_scene(&gpu, kind, n, seed, reps));
            }
        }
    }
    if !bench {
        for kind in [SceneKind::Crowd, SceneKind::Mixed, SceneKind::Shapes] {
            margin_rows.push(margin::run(&gpu, kind, TEST_N, seed, 1, 0.5));
        }
        for kind in [SceneKind::Crowd, SceneKind::Grid, SceneKind::Shapes] {
            events_rows.push(events::run(&gpu, kind, TEST_N, seed, 4));
        }
        for kind in [SceneKind::Crowd, SceneKind::Mixed, SceneKind::Shapes] {
            queries_rows.push(queries::run(&gpu, kind, TEST_N, seed, 1, 200, true));
        }
        for kind in [SceneKind::Crowd, SceneKind::Mixed, SceneKind::Shapes, SceneKind::Pile] {
            rays_rows.push(rays::run(&gpu, kind, TEST_N, seed, 1, 300, true));
            casts_rows.push(casts::run(&gpu, kind, TEST_N, seed, 1, 300, true));
            sweeps_rows.push(sweeps::run(&gpu, kind, TEST_N, seed, 1, true));
        }
    }
    let mut failures = compound::print(&compound_rows);
    failures.extend(margin::print(&margin_rows));
    failures.extend(events::print(&events_rows));
    failures.extend(queries::print(&queries_rows));
    failures.extend(rays::print(&rays_rows));
    failures.extend(casts::print(&casts_rows));
    failures.extend(sweeps::print(&sweeps_rows));
    if !rows.is_empty() {
        println!();
        print_table(&rows);
        println!();
        let list = |f: fn(&Row) -> String| rows.iter().map(f).collect::<Vec<_>>().join(", ");
        println!(
            "candidates: broad-phase pairs on the GPU (reference sweep: {}; parry2d BVH: {})",
            list(|r| r.candidates_reference.to_string()),
            list(|r| r.candidates_parry.to_string())
        );
        println!("gpu frame = World::set_polygons + step() (upload, passes, readback); gpu cold = World::from_polygons + step();");
        println!("gpu step = step() alone on an existing world; ratios use gpu frame");
        println!("parry = intersection_test per candidate (yes or no); parry contact = contact() per candidate (normal and depth, as satgpu)");
        println!("agree: GPU passes validate::compare and parry2d matches the reference outside the band");
        println!("parry loose: parry2d intersection_test says intersecting, the gap is above the band but below its GJK tolerance");
        println!("touching: reference pairs at SAT separation exactly 0, and (how many of them parry2d reports)");
    }

    if bench {
        let dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
        let path = dir.join("bench-compare.json");
        let report = Report {
            adapter: gpu.describe(),
            seed,
            reps,
            rows: &rows,
            compound_rows: &compound_rows,
            margin_rows: &margin_rows,
            events_rows: &events_rows,
            queries_rows: &queries_rows,
            rays_rows: &rays_rows,
            casts_rows: &casts_rows,
            sweeps_rows: &sweeps_rows,
        };
        let json = serde_json::to_string_pretty(&report).expect("rows serialise");
        std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, json + "\n")).unwrap_or_else(|e| {
            panic!("cannot write {}: {e}", path.display());
        });
        println!("wrote {}", path.display());
    }

    for r in &rows {
        let name = format!("{} n={}", r.kind, r.n);
        if !r.gpu_ok {
            failures.push(format!("{name}: GPU disagrees with the reference on {} pair(s)", r.gpu_disagreements));
        }
        for (query, check) in [("intersection_test", &r.parry), ("contact", &r.parry_contact)] {
            if !check.out_of_band.is_empty() {
                let first: Vec<_> = check.out_of_band.iter().take(5).collect();
                failures.push(format!(
                    "{name}: parry2d ({query}) disagrees with the reference outside the band on {} pair(s), e.g. (a, b, separation) {first:?}",
                    check.out_of_band.len()
                ));
            }
            if check.duplicates {
                failures.push(format!("{name}: parry2d's BVH traversal reported a pair twice"));
            }
        }
    }
    if failures.is_empty() {
        println!("all contenders agree (up to the tolerance band)");
    } else if bench {
        // A benchmark still reports its numbers; the disagreement is in the table and the JSON.
        eprintln!("WARNING:\n  {}", failures.join("\n  "));
    } else {
        panic!("contenders disagree:\n  {}", failures.join("\n  "));
    }
}
