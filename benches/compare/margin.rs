//! Neighbours within a margin (issue 26) against parry2d doing the same job: every pair of
//! shapes at most `margin` apart, with its signed distance (satgpu: `depth` = minus it).
//!
//! * **gpu frame**: `World::set_polygons` + `step()` on a world with `WorldOptions::margin`, as
//!   the main table's gpu frame;
//! * **reference**: `reference::detect_within`, f64, one thread;
//! * **parry2d**: the main table's shapes, their AABBs loosened by the margin, `Bvh::from_leaves`,
//!   the self-traversal, and `query::contact` with `prediction = margin` per candidate (its
//!   distance, negative when penetrating, as satgpu's), then a sort; on one thread and on all
//!   cores (shapes and tests; the BVH is sequential).
//!
//! The margin is a fraction of the scene's mean box width (`SATGPU_BENCH_MARGIN`, default 0.5).
//! The GPU is checked with `validate::compare_within`, parry2d pair for pair against the
//! reference, differences tolerated only within its GJK tolerance or the band of the margin.

use std::collections::BTreeSet;

use parry2d::bounding_volume::BoundingVolume;
use parry2d::math::{Pose, Vector};
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry2d::query::contact;
use parry2d::shape::Shape;
use rayon::prelude::*;
use satgpu::gpu::{Gpu, World, WorldOptions};
use satgpu::scene::{self, SceneKind};
use satgpu::{reference, validate, Polygon};

use crate::{measure, parry_gjk_tolerance, parry_shape};
use satgpu::DetectOptions;

/// One scene's results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MarginRow {
    pub kind: String,
    pub n: usize,
    pub margin: f64,
    pub pairs_gpu: usize,
    pub pairs_apart: usize,
    pub pairs_reference: usize,
    pub pairs_parry: usize,
    pub gpu_frame_ms: f64,
    pub reference_ms: f64,
    pub parry_ms: f64,
    pub parry_all_cores_ms: f64,
    pub threads: usize,
    pub gpu_ok: bool,
    pub gpu_disagreements: usize,
    pub parry_tolerated: usize,
    pub parry_out_of_band: Vec<(u32, u32, f64)>,
}

/// The pairs within `margin` with parry2d, on one thread or all cores.
fn parry_within(polygons: &[Polygon], margin: f64, all_cores: bool) -> Vec<(u32, u32)> {
    let built: Vec<_> = if all_cores {
        polygons.par_iter().enumerate().map(|(i, p)| parry_shape(i, p)).collect()
    } else {
        polygons.iter().enumerate().map(|(i, p)| parry_shape(i, p)).collect()
    };
    let m = margin as f32;
    let aabbs: Vec<_> = built.iter().map(|b| b.2.loosened(m)).collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs);
    let mut candidates = vec![];
    bvh.traverse_bvtt_single_tree::<false>(&mut BvhWorkspace::default(), &mut |i, j| {
        candidates.push((i.min(j), i.max(j)));
    });
    let hit = |&(a, b): &(u32, u32)| {
        let ((oa, sa, _), (ob, sb, _)) = (&built[a as usize], &built[b as usize]);
        let pos12 = Pose::from_translation(Vector::new((ob[0] - oa[0]) as f32, (ob[1] - oa[1]) as f32));
        let (sa, sb): (&dyn Shape, &dyn Shape) = (&**sa, &**sb);
        contact(&Pose::IDENTITY, sa, &pos12, sb, m)
            .expect("parry2d supports contacts between these shapes")
            .is_some_and(|c| std::hint::black_box(c.dist) <= m)
    };
    let mut pairs: Vec<(u32, u32)> = if all_cores {
        candidates.into_par_iter().filter(hit).collect()
    } else {
        candidates.into_iter().filter(hit).collect()
    };
    pairs.par_sort_unstable();
    pairs
}

pub fn run(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, reps: usize, fraction: f64) -> MarginRow {
    let polygons = scene::generate(kind, n, seed);
    let width = polygons.iter().map(|p| p.aabb().max[0] - p.aabb().min[0]).sum::<f64>() / n.max(1) as f64;
    let margin = fraction * width;
    let options = WorldOptions::default().with_margin(margin);
    let mut world = World::from_polygons(gpu, &polygons, &options).expect("a world with a margin");
    let (gpu_frame_ms, frame) = measure(reps, || {
        world.set_polygons(&polygons).expect("World::set_polygons failed");
        world.step().expect("World::step failed")
    });
    let (reference_ms, want) =
        measure(reps, || reference::detect(&polygons, &DetectOptions::default().with_margin(margin)).contacts);
    let (parry_ms, parry) = measure(reps, || parry_within(&polygons, margin, false));
    let (parry_all_cores_ms, parry_all) = measure(reps, || parry_within(&polygons, margin, true));
    assert_eq!(parry_all, parry, "parry2d on all cores finds the pairs it finds on one");
    let report = validate::compare(&polygons, &frame.contacts, &want, &DetectOptions::default().with_margin(margin));
    let p: BTreeSet<(u32, u32)> = parry.iter().copied().collect();
    let r: BTreeSet<(u32, u32)> = want.iter().map(|c| (c.a, c.b)).collect();
    let (mut parry_tolerated, mut parry_out_of_band) = (0, vec![]);
    for &(a, b) in p.symmetric_difference(&r) {
        let (pa, pb) = (&polygons[a as usize], &polygons[b as usize]);
        let off = reference::signed_distance(pa, pb).1 - margin;
        let tolerance = validate::band(pa, pb).max(parry_gjk_tolerance(pa, pb)) + f64::from(f32::EPSILON) * margin;
        if off.abs() <= tolerance {
            parry_tolerated += 1;
        } else {
            parry_out_of_band.push((a, b, off));
        }
    }
    MarginRow {
        kind: kind.to_string(),
        n,
        margin,
        pairs_gpu: frame.contacts.len(),
        pairs_apart: frame.contacts.iter().filter(|c| c.depth < 0.0).count(),
        pairs_reference: want.len(),
        pairs_parry: parry.len(),
        gpu_frame_ms,
        reference_ms,
        parry_ms,
        parry_all_cores_ms,
        threads: rayon::current_num_threads(),
        gpu_ok: report.ok(),
        gpu_disagreements: report.disagreements.len(),
        parry_tolerated,
        parry_out_of_band,
    }
}

/// The rows as an aligned table, and what failed to agree.
pub fn print(rows: &[MarginRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec![];
    }
    println!();
    println!("neighbours within a margin (pairs at most the margin apart, with signed distances):");
    println!(
        "{:<10} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>10} {:>11} {:>9} {:>6}",
        "kind",
        "n",
        "margin",
        "pairs",
        "apart",
        "ref",
        "parry",
        "gpu frame",
        "ref ms",
        "parry 1",
        "parry all",
        "all/gpu",
        "agree"
    );
    let mut failures = vec![];
    for r in rows {
        let agree = r.gpu_ok && r.parry_out_of_band.is_empty();
        println!(
            "{:<10} {:>8} {:>9.3} {:>9} {:>9} {:>9} {:>9} {:>10.2} {:>10.2} {:>10.2} {:>11.2} {:>8.2}x {:>6}",
            r.kind,
            r.n,
            r.margin,
            r.pairs_gpu,
            r.pairs_apart,
            r.pairs_reference,
            r.pairs_parry,
            r.gpu_frame_ms,
            r.reference_ms,
            r.parry_ms,
            r.parry_all_cores_ms,
            r.parry_all_cores_ms / r.gpu_frame_ms,
            if agree { "yes" } else { "NO" }
        );
        let name = format!("{} n={} margin {}", r.kind, r.n, r.margin);
        if !r.gpu_ok {
            failures.push(format!("{name}: GPU disagrees with the reference on {} pair(s)", r.gpu_disagreements));
        }
        if !r.parry_out_of_band.is_empty() {
            let first: Vec<_> = r.parry_out_of_band.iter().take(5).collect();
            failures.push(format!("{name}: parry2d disagrees with the reference on {first:?}"));
        }
    }
    println!(
        "gpu frame = World::set_polygons + step() with WorldOptions::margin; parry = contact(prediction = margin) per \
         candidate of a BVH over loosened boxes (all: on {} threads); tolerated parry2d differences: {}",
        rows[0].threads,
        rows.iter().map(|r| r.parry_tolerated.to_string()).collect::<Vec<_>>().join(", ")
    );
    failures
}
