//! Shape casts (issue 44) against parry2d doing the same job: the first body each of many discs
//! moved along a line touches (an agent looking for the nearest body ahead), with the distance.
//!
//! * **gpu**: `World::cast_shapes` on a world of the scene (made once, not timed: the bodies are
//!   on the GPU already, as in a simulation); each call runs the transform, entry and sort
//!   passes, then the casts;
//! * **parry2d**: a BVH over the bodies' boxes (built once, not timed), then per cast
//!   `Bvh::intersect_aabb` of the box the disc sweeps and `query::cast_shapes` (a `Ball` against
//!   each shape reached, `ShapeCastOptions::with_max_time_of_impact`), the nearest kept; on one
//!   thread and on all cores (casts in parallel).
//!
//! Casts: the rays of `compare/rays.rs` (a low-discrepancy scatter, every direction, 10 mean box
//! widths long), each a disc of a quarter of the mean box width. Checked: the GPU against parry2d
//! (the same body, or another at the same distance, or both none); in test mode also against
//! `reference::cast_shapes`.

use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::{Pose, Vector};
use parry2d::query::{cast_shapes, ShapeCastOptions};
use parry2d::shape::Ball;
use rayon::prelude::*;
use satgpu::gpu::{Gpu, World, WorldOptions};
use satgpu::scene::{self, SceneKind};
use satgpu::{reference, Polygon, ShapeCast};

use crate::{measure, parry_scene, ParryScene};

/// One scene's results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CastsRow {
    pub kind: String,
    pub n: usize,
    pub casts: usize,
    pub radius: f64,
    pub hits: usize,
    pub gpu_ms: f64,
    pub parry_ms: f64,
    pub parry_all_cores_ms: f64,
    pub threads: usize,
    /// Casts whose body differs between the GPU and parry2d at another distance (grazing casts
    /// may).
    pub differing: usize,
    /// In test mode: casts whose body differs from the reference's at another distance.
    pub reference_differing: usize,
}

/// parry2d's answer: the body and the distance moved.
fn parry_cast(scene: &ParryScene, ball: &Ball, cast: &ShapeCast) -> Option<(u32, f32)> {
    let len = cast.direction[0].hypot(cast.direction[1]);
    let d = [cast.direction[0] / len, cast.direction[1] / len];
    let end = [cast.origin[0] + d[0] * cast.max_length, cast.origin[1] + d[1] * cast.max_length];
    let r = f64::from(ball.radius);
    let swept = ParryAabb::new(
        Vector::new((cast.origin[0].min(end[0]) - r) as f32, (cast.origin[1].min(end[1]) - r) as f32),
        Vector::new((cast.origin[0].max(end[0]) + r) as f32, (cast.origin[1].max(end[1]) + r) as f32),
    );
    let options = ShapeCastOptions::with_max_time_of_impact(cast.max_length as f32);
    let vel = Vector::new(d[0] as f32, d[1] as f32);
    let mut best: Option<(u32, f32)> = None;
    for i in scene.bvh.intersect_aabb(&swept) {
        let o = scene.anchors[i as usize];
        let at = Pose::from_translation(Vector::new((cast.origin[0] - o[0]) as f32, (cast.origin[1] - o[1]) as f32));
        let still = Vector::new(0.0, 0.0);
        let Ok(Some(hit)) = cast_shapes(&at, vel, ball, &Pose::IDENTITY, still, &*scene.shapes[i as usize], options)
        else {
            continue;
        };
        let t = hit.time_of_impact;
        if best.is_none_or(|(b, bt)| t < bt || (t == bt && i < b)) {
            best = Some((i, t));
        }
    }
    best
}

/// Whether two answers name the same body, or bodies at the same distance (within `tol`).
fn same(a: Option<(u32, f64)>, b: Option<(u32, f64)>, tol: f64) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.0 == b.0 || (a.1 - b.1).abs() <= tol,
        _ => false,
    }
}

pub fn run(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, reps: usize, count: usize, test: bool) -> CastsRow {
    let polygons = scene::generate(kind, n, seed);
    let rays = crate::rays::rays_over(&polygons, if count == 0 { n } else { count });
    let width = polygons.iter().map(|p| p.aabb().max[0] - p.aabb().min[0]).sum::<f64>() / polygons.len() as f64;
    let radius = 0.25 * width;
    let disc = [Polygon::circle([0.0, 0.0], radius).expect("a disc")];
    let casts: Vec<ShapeCast> = rays.iter().map(|r| ShapeCast::new(0, r.origin, r.direction, r.max_length)).collect();
    let mut world = World::from_polygons(gpu, &polygons, &WorldOptions::default()).expect("a world");
    let (gpu_ms, got) = measure(reps, || world.cast_shapes(&disc, &casts).expect("cast_shapes"));
    let scene = parry_scene(&polygons);
    let ball = Ball::new(radius as f32);
    let (parry_ms, parry) = measure(reps, || casts.iter().map(|c| parry_cast(&scene, &ball, c)).collect::<Vec<_>>());
    let (parry_all_cores_ms, all) =
        measure(reps, || casts.par_iter().map(|c| parry_cast(&scene, &ball, c)).collect::<Vec<_>>());
    assert!(all == parry, "parry2d on all cores answers as on one");
    let answer = |h: &Option<satgpu::RayHit>, c: &ShapeCast| h.map(|h| (h.body, h.fraction * c.max_length));
    let tol = |c: &ShapeCast| 1e-4 * c.max_length;
    let differing = got
        .iter()
        .zip(&casts)
        .zip(&parry)
        .filter(|((g, c), p)| !same(answer(g, c), p.map(|(b, t)| (b, f64::from(t))), tol(c)))
        .count();
    let reference_differing = match test {
        true => {
            let want = reference::cast_shapes(&polygons, &[], &disc, &casts);
            got.iter().zip(&want).zip(&casts).filter(|((g, w), c)| !same(answer(g, c), answer(w, c), tol(c))).count()
        }
        false => 0,
    };
    CastsRow {
        kind: kind.to_string(),
        n,
        casts: casts.len(),
        radius,
        hits: got.iter().flatten().count(),
        gpu_ms,
        parry_ms,
        parry_all_cores_ms,
        threads: rayon::current_num_threads(),
        differing,
        reference_differing,
    }
}

/// The rows as an aligned table, and what failed to agree.
pub fn print(rows: &[CastsRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec![];
    }
    println!();
    println!(
        "shape casts (discs of a quarter of the mean box width, 10 widths long, every direction; bodies standing):"
    );
    println!(
        "{:<10} {:>8} {:>8} {:>8} {:>9} {:>10} {:>10} {:>12} {:>6}",
        "kind", "n", "casts", "hits", "gpu", "parry", "all cores", "gpu ns/cast", "differ"
    );
    let mut failures = vec![];
    for r in rows {
        println!(
            "{:<10} {:>8} {:>8} {:>8} {:>9.2} {:>10.2} {:>10.2} {:>12.1} {:>6}",
            r.kind,
            r.n,
            r.casts,
            r.hits,
            r.gpu_ms,
            r.parry_ms,
            r.parry_all_cores_ms,
            r.gpu_ms * 1e6 / r.casts as f64,
            r.differing
        );
        // A few grazing casts may differ (f32 on both sides); more is wrong.
        if r.differing > r.casts / 100 + 2 || r.reference_differing > r.casts / 100 + 2 {
            failures.push(format!(
                "{} n={} casts: {} bodies differ from parry2d, {} from the reference",
                r.kind, r.n, r.differing, r.reference_differing
            ));
        }
    }
    println!(
        "ms per call of all the casts; parry = BVH (built once) + intersect_aabb of the swept box + cast_shapes per leaf; {} threads",
        rows[0].threads
    );
    failures
}
