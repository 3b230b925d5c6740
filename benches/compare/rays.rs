//! Ray casts (issue 26) against parry2d doing the same job: the nearest body each of many rays
//! meets, with the point and the normal there.
//!
//! * **gpu**: `World::cast_rays` on a world of the scene (made once, not timed: the bodies are on
//!   the GPU already, as in a simulation); each call runs the transform, entry and sort passes,
//!   then the casts;
//! * **parry2d**: a BVH over the bodies' boxes (built once, not timed: the same standing), then
//!   per ray `Bvh::cast_ray` with `cast_local_ray` on each leaf it reaches, and
//!   `cast_local_ray_and_get_normal` on the nearest; on one thread and on all cores (rays in
//!   parallel).
//!
//! Rays: from a low-discrepancy scatter over the scene, in every direction, each 10 mean box
//! widths long (the same reach at every size, so that the time per ray shows the search's
//! growth). Checked: the GPU against parry2d (the same body, or both none); in test mode also
//! against `reference::cast_rays`.

use parry2d::math::Vector;
use parry2d::query::Ray as ParryRay;
use rayon::prelude::*;
use satgpu::gpu::{Gpu, World, WorldOptions};
use satgpu::scene::{self, SceneKind};
use satgpu::{reference, Aabb, Polygon, Ray};

use crate::{measure, parry_scene, ParryScene};

/// One scene's results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RaysRow {
    pub kind: String,
    pub n: usize,
    pub rays: usize,
    pub hits: usize,
    pub gpu_ms: f64,
    pub parry_ms: f64,
    pub parry_all_cores_ms: f64,
    pub threads: usize,
    /// Rays whose body differs between the GPU and parry2d at another distance (grazing rays may).
    pub differing: usize,
    /// In test mode: rays whose body differs from the reference's.
    pub reference_differing: usize,
}

/// parry2d's answer: the body, the distance, and the normal (world frame, f32).
type ParryHit = Option<(u32, f32, [f32; 2])>;

fn parry_cast(scene: &ParryScene, ray: &Ray) -> ParryHit {
    let len = ray.direction[0].hypot(ray.direction[1]);
    let dir = Vector::new((ray.direction[0] / len) as f32, (ray.direction[1] / len) as f32);
    let local = |i: u32| {
        let o = scene.anchors[i as usize];
        ParryRay::new(Vector::new((ray.origin[0] - o[0]) as f32, (ray.origin[1] - o[1]) as f32), dir)
    };
    let world = ParryRay::new(Vector::new(ray.origin[0] as f32, ray.origin[1] as f32), dir);
    let (body, _) = scene.bvh.cast_ray(&world, ray.max_length as f32, |i, best| {
        scene.shapes[i as usize].cast_local_ray(&local(i), best, true)
    })?;
    let hit = scene.shapes[body as usize].cast_local_ray_and_get_normal(&local(body), ray.max_length as f32, true)?;
    Some((body, hit.time_of_impact, [hit.normal.x, hit.normal.y]))
}

/// `count` rays over the scene of `polygons`, each 10 mean box widths long.
pub fn rays_over(polygons: &[Polygon], count: usize) -> Vec<Ray> {
    let bounds = polygons.iter().map(|p| p.aabb()).fold(polygons[0].aabb(), |a, b| Aabb {
        min: [a.min[0].min(b.min[0]), a.min[1].min(b.min[1])],
        max: [a.max[0].max(b.max[0]), a.max[1].max(b.max[1])],
    });
    let (w, h) = (bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1]);
    let width = polygons.iter().map(|p| p.aabb().max[0] - p.aabb().min[0]).sum::<f64>() / polygons.len() as f64;
    (0..count)
        .map(|k| {
            let (u, v) = ((k as f64 * 0.754_877_666).fract(), (k as f64 * 0.569_840_291).fract());
            let angle = k as f64 * 2.399_963_229_7; // the golden angle
            Ray::new([bounds.min[0] + u * w, bounds.min[1] + v * h], [angle.cos(), angle.sin()], 10.0 * width)
        })
        .collect()
}

pub fn run(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, reps: usize, count: usize, test: bool) -> RaysRow {
    let polygons = scene::generate(kind, n, seed);
    let rays = rays_over(&polygons, if count == 0 { n } else { count });
    let mut world = World::from_polygons(gpu, &polygons, &WorldOptions::default()).expect("a world");
    let (gpu_ms, got) = measure(reps, || world.cast_rays(&rays).expect("cast_rays"));
    let scene = parry_scene(&polygons);
    let (parry_ms, parry) = measure(reps, || rays.iter().map(|r| parry_cast(&scene, r)).collect::<Vec<_>>());
    let (parry_all_cores_ms, all) =
        measure(reps, || rays.par_iter().map(|r| parry_cast(&scene, r)).collect::<Vec<_>>());
    assert!(all == parry, "parry2d on all cores answers as on one");
    let bodies = |hits: &[Option<satgpu::RayHit>]| hits.iter().map(|h| h.map(|h| h.body)).collect::<Vec<_>>();
    let mine = bodies(&got);
    // Another body at the same distance is a tie (rays starting in several bodies of a pile):
    // satgpu takes the lowest, parry2d's best-first search any.
    let differing = got
        .iter()
        .zip(&rays)
        .zip(&parry)
        .filter(|((g, ray), p)| match (g, p) {
            (Some(g), Some(p)) => {
                g.body != p.0 && (g.fraction * ray.max_length - f64::from(p.1)).abs() > 1e-4 * ray.max_length
            }
            (None, None) => false,
            _ => true,
        })
        .count();
    let reference_differing = match test {
        true => mine.iter().zip(bodies(&reference::cast_rays(&polygons, &[], &rays))).filter(|(g, w)| *g != w).count(),
        false => 0,
    };
    RaysRow {
        kind: kind.to_string(),
        n,
        rays: rays.len(),
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
pub fn print(rows: &[RaysRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec![];
    }
    println!();
    println!("ray casts (10 mean box widths long, every direction; bodies standing):");
    println!(
        "{:<10} {:>8} {:>8} {:>8} {:>9} {:>10} {:>10} {:>11} {:>13} {:>6}",
        "kind", "n", "rays", "hits", "gpu", "parry", "all cores", "gpu ns/ray", "ns/ray/log2n", "differ"
    );
    let mut failures = vec![];
    for r in rows {
        let per_ray = r.gpu_ms * 1e6 / r.rays as f64;
        println!(
            "{:<10} {:>8} {:>8} {:>8} {:>9.2} {:>10.2} {:>10.2} {:>11.1} {:>13.2} {:>6}",
            r.kind,
            r.n,
            r.rays,
            r.hits,
            r.gpu_ms,
            r.parry_ms,
            r.parry_all_cores_ms,
            per_ray,
            per_ray / (r.n as f64).log2(),
            r.differing
        );
        // A few grazing rays and near ties may differ (f32 on both sides); more is wrong.
        if r.differing > r.rays / 100 + 2 || r.reference_differing > r.rays / 100 + 2 {
            failures.push(format!(
                "{} n={} rays: {} bodies differ from parry2d, {} from the reference",
                r.kind, r.n, r.differing, r.reference_differing
            ));
        }
    }
    println!(
        "ms per call of all the rays; parry = BVH (built once) + cast_local_ray per leaf reached, normal of the nearest; {} threads",
        rows[0].threads
    );
    failures
}
