//! Region queries (issue 26) against parry2d doing the same job: for each of many boxes the
//! bodies sharing a point with it, and for each of many points the bodies containing it.
//!
//! * **gpu**: `World::query_boxes` / `World::query_points` on a world of the scene (made once,
//!   not timed: the bodies are on the GPU already, as in a simulation);
//! * **parry2d**: a BVH over the bodies' boxes (built once, not timed: the same standing), then
//!   per box `Bvh::intersect_aabb` and `query::intersection_test` of a `Cuboid` against each
//!   candidate, per point `intersect_aabb` of the point and `contains_local_point`, each list
//!   sorted; on one thread and on all cores (queries in parallel).
//!
//! Queries: boxes of a hundredth of the scene's side at random, and as many points. Checked:
//! the GPU against parry2d; in test mode also against `reference::query_boxes`/`query_points`.

use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::{Pose, Vector};
use parry2d::query::intersection_test;
use parry2d::shape::Cuboid;
use rayon::prelude::*;
use satgpu::gpu::{Gpu, World, WorldOptions};
use satgpu::scene::{self, SceneKind};
use satgpu::{reference, Aabb, BoxQuery, Filter, PointQuery};

use crate::{measure, parry_scene, ParryScene};

/// One scene's results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct QueriesRow {
    pub kind: String,
    pub n: usize,
    pub queries: usize,
    pub box_hits: usize,
    pub point_hits: usize,
    pub gpu_boxes_ms: f64,
    pub gpu_points_ms: f64,
    pub parry_boxes_ms: f64,
    pub parry_points_ms: f64,
    pub parry_boxes_all_cores_ms: f64,
    pub parry_points_all_cores_ms: f64,
    pub threads: usize,
    /// Queries whose bodies differ between the GPU and parry2d (bodies at a query's edge may).
    pub differing: usize,
    /// In test mode: queries whose GPU answer differs from the reference's.
    pub reference_differing: usize,
}

fn parry_box(scene: &ParryScene, q: &BoxQuery) -> Vec<u32> {
    let (lo, hi) = (q.aabb.min, q.aabb.max);
    let aabb = ParryAabb::new(Vector::new(lo[0] as f32, lo[1] as f32), Vector::new(hi[0] as f32, hi[1] as f32));
    let centre = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    let cuboid = Cuboid::new(Vector::new(((hi[0] - lo[0]) / 2.0) as f32, ((hi[1] - lo[1]) / 2.0) as f32));
    let mut out: Vec<u32> = scene
        .bvh
        .intersect_aabb(&aabb)
        .filter(|&i| {
            let o = scene.anchors[i as usize];
            let pos12 = Pose::from_translation(Vector::new((o[0] - centre[0]) as f32, (o[1] - centre[1]) as f32));
            intersection_test(&Pose::IDENTITY, &cuboid, &pos12, &*scene.shapes[i as usize])
                .expect("parry2d tests cuboids against these shapes")
                .intersecting
        })
        .collect();
    out.sort_unstable();
    out
}

fn parry_point(scene: &ParryScene, q: &PointQuery) -> Vec<u32> {
    let p = Vector::new(q.point[0] as f32, q.point[1] as f32);
    let mut out: Vec<u32> = scene
        .bvh
        .intersect_aabb(&ParryAabb::new(p, p))
        .filter(|&i| {
            let o = scene.anchors[i as usize];
            let local = Vector::new((q.point[0] - o[0]) as f32, (q.point[1] - o[1]) as f32);
            scene.shapes[i as usize].contains_local_point(local)
        })
        .collect();
    out.sort_unstable();
    out
}

pub fn run(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, reps: usize, count: usize, test: bool) -> QueriesRow {
    let polygons = scene::generate(kind, n, seed);
    let bounds = polygons.iter().map(|p| p.aabb()).fold(polygons[0].aabb(), |a, b| Aabb {
        min: [a.min[0].min(b.min[0]), a.min[1].min(b.min[1])],
        max: [a.max[0].max(b.max[0]), a.max[1].max(b.max[1])],
    });
    let (w, h) = (bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1]);
    // A fixed low-discrepancy scatter, the same for every contender.
    let at = |k: usize| {
        let (u, v) = ((k as f64 * 0.754_877_666).fract(), (k as f64 * 0.569_840_291).fract());
        [bounds.min[0] + u * w, bounds.min[1] + v * h]
    };
    let boxes: Vec<BoxQuery> = (0..count)
        .map(|k| {
            let lo = at(k);
            BoxQuery {
                aabb: Aabb { min: lo, max: [lo[0] + w / 100.0, lo[1] + h / 100.0] },
                filter: Filter::DEFAULT,
                world: 0,
            }
        })
        .collect();
    let points: Vec<PointQuery> =
        (0..count).map(|k| PointQuery { point: at(k + count), filter: Filter::DEFAULT, world: 0 }).collect();
    let mut world = World::from_polygons(gpu, &polygons, &WorldOptions::default()).expect("a world");
    let (gpu_boxes_ms, got_boxes) = measure(reps, || world.query_boxes(&boxes).expect("query_boxes"));
    let (gpu_points_ms, got_points) = measure(reps, || world.query_points(&points).expect("query_points"));
    let scene = parry_scene(&polygons);
    let (parry_boxes_ms, parry_boxes) =
        measure(reps, || boxes.iter().map(|q| parry_box(&scene, q)).collect::<Vec<_>>());
    let (parry_points_ms, parry_points) =
        measure(reps, || points.iter().map(|q| parry_point(&scene, q)).collect::<Vec<_>>());
    let (parry_boxes_all_cores_ms, all_boxes) =
        measure(reps, || boxes.par_iter().map(|q| parry_box(&scene, q)).collect::<Vec<_>>());
    let (parry_points_all_cores_ms, all_points) =
        measure(reps, || points.par_iter().map(|q| parry_point(&scene, q)).collect::<Vec<_>>());
    assert!(all_boxes == parry_boxes && all_points == parry_points, "parry2d on all cores answers as on one");
    let differ = |a: &[Vec<u32>], b: &[Vec<u32>]| a.iter().zip(b).filter(|(x, y)| x != y).count();
    let differing = differ(&got_boxes, &parry_boxes) + differ(&got_points, &parry_points);
    let reference_differing = match test {
        true => {
            differ(&got_boxes, &reference::query_boxes(&polygons, &[], &boxes))
                + differ(&got_points, &reference::query_points(&polygons, &[], &points))
        }
        false => 0,
    };
    QueriesRow {
        kind: kind.to_string(),
        n,
        queries: count,
        box_hits: got_boxes.iter().map(Vec::len).sum(),
        point_hits: got_points.iter().map(Vec::len).sum(),
        gpu_boxes_ms,
        gpu_points_ms,
        parry_boxes_ms,
        parry_points_ms,
        parry_boxes_all_cores_ms,
        parry_points_all_cores_ms,
        threads: rayon::current_num_threads(),
        differing,
        reference_differing,
    }
}

/// The rows as an aligned table, and what failed to agree.
pub fn print(rows: &[QueriesRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec![];
    }
    println!();
    println!("region queries (boxes a hundredth of the scene's side, and points; bodies standing):");
    println!(
        "{:<10} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>10} {:>10} {:>6}",
        "kind",
        "n",
        "queries",
        "box hits",
        "pt hits",
        "gpu box",
        "gpu pt",
        "parry box",
        "parry pt",
        "all box",
        "all pt",
        "differ"
    );
    let mut failures = vec![];
    for r in rows {
        println!(
            "{:<10} {:>8} {:>8} {:>9} {:>9} {:>9.2} {:>9.2} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>6}",
            r.kind,
            r.n,
            r.queries,
            r.box_hits,
            r.point_hits,
            r.gpu_boxes_ms,
            r.gpu_points_ms,
            r.parry_boxes_ms,
            r.parry_points_ms,
            r.parry_boxes_all_cores_ms,
            r.parry_points_all_cores_ms,
            r.differing
        );
        // A few answers at a query's edge may differ (f32 rounding on both sides); more is wrong.
        if r.differing > r.queries / 100 + 2 || r.reference_differing > r.queries / 100 + 2 {
            failures.push(format!(
                "{} n={} queries: {} answers differ from parry2d, {} from the reference",
                r.kind, r.n, r.differing, r.reference_differing
            ));
        }
    }
    println!("ms per call of all the queries; parry = BVH (built once) + intersection_test / contains_local_point per candidate; {} threads", rows[0].threads);
    failures
}
