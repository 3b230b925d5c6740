//! Continuous collision (issue 44) against parry2d doing the same job: every pair of a scene's
//! bodies that touches while each moves along a line and turns over one frame, with its first
//! moment.
//!
//! * **gpu**: a `World` with `WorldOptions::continuous` of the scene's shapes, each in its own
//!   frame about its first vertex (made and stepped once at the start poses, not timed); per
//!   call the next poses uploaded (the end and the start in turn) and one frame stepped: the
//!   broad phase over the swept boxes, the narrow phase, the impacts, all read back;
//! * **parry2d**: per call, each body's swept box (its anchor's path grown by its reach), a BVH
//!   over them, each body's box queried for later bodies, and `query::cast_shapes_nonlinear`
//!   per candidate pair (`NonlinearRigidMotion` about the anchor, stopping at penetration: a
//!   pair touching at the start hits at 0); on one thread and on all cores (bodies in
//!   parallel).
//!
//! Motion: each body moves up to 3 mean box widths in each axis; every other body turns up to
//! 0.3 radians either way. Checked: the GPU's pairs against parry2d's (pairs found by one only,
//! or first moments more than 1e-3 of the frame apart); in test mode also against
//! `reference::sweep`.

use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::{Pose, Vector};
use parry2d::partitioning::{Bvh, BvhBuildStrategy};
use parry2d::query::{cast_shapes_nonlinear, NonlinearRigidMotion};
use rayon::prelude::*;
use satgpu::gpu::{Gpu, World, WorldOptions};
use satgpu::scene::{self, SceneKind};
use satgpu::{reference, Impact, Polygon, Transform};

use crate::{measure, parry_scene, ParryScene};

/// One scene's results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SweepsRow {
    pub kind: String,
    pub n: usize,
    pub impacts: usize,
    pub turning: usize,
    pub gpu_ms: f64,
    pub parry_ms: f64,
    pub parry_all_cores_ms: f64,
    pub threads: usize,
    /// Pairs found by one of the GPU and parry2d only, or with first moments more than 1e-3
    /// apart (grazing pairs may).
    pub differing: usize,
    /// Of those, the pairs where the GPU differs from the reference on the two bodies alone,
    /// and where parry2d does.
    pub gpu_wrong: usize,
    pub parry_wrong: usize,
    /// In test mode: pairs that differ between the GPU and the reference over the whole scene.
    pub reference_differing: usize,
}

/// A number in [0, 1) from `i` and `salt` (a hash: the same motion every run).
fn unit(i: usize, salt: u64) -> f64 {
    let mut x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 31;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 29;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// parry2d's answer: each pair that touches during the motions, with its first moment.
fn parry_sweep(
    scene: &ParryScene,
    motions: &[NonlinearRigidMotion],
    reach: &[f64],
    end: &[Transform],
    all: bool,
) -> Vec<Impact> {
    let boxes: Vec<ParryAabb> = scene
        .anchors
        .iter()
        .zip(end)
        .zip(reach)
        .map(|((a, e), r)| {
            ParryAabb::new(
                Vector::new((a[0].min(e.x) - r) as f32, (a[1].min(e.y) - r) as f32),
                Vector::new((a[0].max(e.x) + r) as f32, (a[1].max(e.y) + r) as f32),
            )
        })
        .collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &boxes);
    let body = |i: usize| -> Vec<Impact> {
        let mut found: Vec<Impact> = bvh
            .intersect_aabb(&boxes[i])
            .filter(|&j| j as usize > i)
            .filter_map(|j| {
                let (a, b) = (&*scene.shapes[i], &*scene.shapes[j as usize]);
                let hit = cast_shapes_nonlinear(&motions[i], a, &motions[j as usize], b, 0.0, 1.0, true).ok()??;
                Some(Impact { a: i as u32, b: j, toi: f64::from(hit.time_of_impact) })
            })
            .collect();
        found.sort_by_key(|f| f.b);
        found
    };
    match all {
        true => (0..motions.len()).into_par_iter().flat_map_iter(body).collect(),
        false => (0..motions.len()).flat_map(body).collect(),
    }
}

/// The pairs of `a` and `b` (each sorted by (a, b)) that differ: in one only, or first moments
/// more than `tol` apart.
fn differing(a: &[Impact], b: &[Impact], tol: f64) -> Vec<(u32, u32)> {
    let (mut i, mut j, mut pairs) = (0, 0, vec![]);
    while i < a.len() || j < b.len() {
        let (x, y) = (a.get(i).map(|p| (p.a, p.b)), b.get(j).map(|p| (p.a, p.b)));
        match (x, y) {
            (Some(x), Some(y)) if x == y => {
                if (a[i].toi - b[j].toi).abs() > tol {
                    pairs.push(x);
                }
                (i, j) = (i + 1, j + 1);
            }
            (Some(x), Some(y)) if x < y => {
                pairs.push(x);
                i += 1;
            }
            (Some(x), None) => {
                pairs.push(x);
                i += 1;
            }
            (_, Some(y)) => {
                pairs.push(y);
                j += 1;
            }
            (None, None) => unreachable!("the loop runs while either has pairs"),
        }
    }
    pairs
}

/// Of `pairs`, those where `got` differs from the reference on those two bodies alone.
fn wrong(
    got: &[Impact],
    pairs: &[(u32, u32)],
    local: &[Polygon],
    poses: (&[Transform], &[Transform]),
    tol: f64,
) -> usize {
    let (start, end) = poses;
    let mine = |a: u32, b: u32| got.binary_search_by_key(&(a, b), |i| (i.a, i.b)).ok().map(|k| got[k].toi);
    pairs
        .iter()
        .filter(|&&(a, b)| {
            let (a_, b_) = (a as usize, b as usize);
            let two = [&local[a_], &local[b_]];
            let want = reference::sweep(&two, &[start[a_], start[b_]], &[end[a_], end[b_]], &[]).first().map(|i| i.toi);
            match (mine(a, b), want) {
                (Some(g), Some(w)) => (g - w).abs() > tol,
                (g, w) => g.is_some() != w.is_some(),
            }
        })
        .count()
}

pub fn run(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, reps: usize, test: bool) -> SweepsRow {
    let polygons = scene::generate(kind, n, seed);
    let width = polygons.iter().map(|p| p.aabb().max[0] - p.aabb().min[0]).sum::<f64>() / polygons.len() as f64;
    let scene = parry_scene(&polygons);
    // Each body in its own frame about its anchor (first vertex), where parry2d's shape is.
    let local: Vec<Polygon> = polygons
        .iter()
        .zip(&scene.anchors)
        .map(|(p, a)| p.transformed(&Transform { x: -a[0], y: -a[1], angle: 0.0 }))
        .collect();
    let reach: Vec<f64> =
        local.iter().map(|p| p.vertices().iter().map(|v| v[0].hypot(v[1])).fold(0.0, f64::max) + p.radius()).collect();
    let start: Vec<Transform> = scene.anchors.iter().map(|a| Transform { x: a[0], y: a[1], angle: 0.0 }).collect();
    let end: Vec<Transform> = start
        .iter()
        .enumerate()
        .map(|(i, s)| Transform {
            x: s.x + (unit(i, 1) - 0.5) * 6.0 * width,
            y: s.y + (unit(i, 2) - 0.5) * 6.0 * width,
            angle: if i % 2 == 1 { (unit(i, 3) - 0.5) * 0.6 } else { 0.0 },
        })
        .collect();
    let motions: Vec<NonlinearRigidMotion> = start
        .iter()
        .zip(&end)
        .map(|(s, e)| {
            let at = Pose::from_translation(Vector::new(s.x as f32, s.y as f32));
            let v = Vector::new((e.x - s.x) as f32, (e.y - s.y) as f32);
            NonlinearRigidMotion::new(at, Vector::new(0.0, 0.0), v, e.angle as f32)
        })
        .collect();
    let ids: Vec<u32> = (0..n as u32).collect();
    let options = WorldOptions::default().with_continuous(true);
    let mut world = World::new(gpu, &local, &ids, &options).expect("a world");
    // The frame the first sweep starts from; then each frame sweeps from the one before, to the
    // end poses and back in turn (the same pairs; the first, checked, forward).
    world.set_transforms(&start).expect("start poses");
    world.step().expect("a frame");
    let mut forward = false;
    let (gpu_ms, got) = measure(reps, || {
        forward = !forward;
        world.set_transforms(if forward { &end } else { &start }).expect("poses");
        world.step().expect("a frame").impacts
    });
    let (parry_ms, parry) = measure(reps, || parry_sweep(&scene, &motions, &reach, &end, false));
    let (parry_all_cores_ms, all) = measure(reps, || parry_sweep(&scene, &motions, &reach, &end, true));
    assert!(all == parry, "parry2d on all cores answers as on one");
    let tol = 1e-3;
    let reference_differing = match test {
        true => differing(&got, &reference::sweep(&local, &start, &end, &[]), tol).len(),
        false => 0,
    };
    let differ = differing(&got, &parry, tol);
    let gpu_wrong = wrong(&got, &differ, &local, (&start, &end), tol);
    let parry_wrong = wrong(&parry, &differ, &local, (&start, &end), tol);
    SweepsRow {
        kind: kind.to_string(),
        n,
        impacts: got.len(),
        turning: got.iter().filter(|i| i.a % 2 == 1 || i.b % 2 == 1).count(),
        gpu_ms,
        parry_ms,
        parry_all_cores_ms,
        threads: rayon::current_num_threads(),
        differing: differ.len(),
        gpu_wrong,
        parry_wrong,
        reference_differing,
    }
}

/// The rows as an aligned table, and what failed to agree.
pub fn print(rows: &[SweepsRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec![];
    }
    println!();
    println!("continuous collision (every body moved up to 3 mean box widths, every other turned up to 0.3 rad):");
    println!(
        "{:<10} {:>8} {:>8} {:>8} {:>9} {:>10} {:>10} {:>6} {:>9} {:>11} {:>6}",
        "kind", "n", "impacts", "turning", "gpu", "parry", "all cores", "differ", "gpu wrong", "parry wrong", "ref"
    );
    let mut failures = vec![];
    for r in rows {
        println!(
            "{:<10} {:>8} {:>8} {:>8} {:>9.2} {:>10.2} {:>10.2} {:>6} {:>9} {:>11} {:>6}",
            r.kind,
            r.n,
            r.impacts,
            r.turning,
            r.gpu_ms,
            r.parry_ms,
            r.parry_all_cores_ms,
            r.differing,
            r.gpu_wrong,
            r.parry_wrong,
            r.reference_differing
        );
        // A few grazing pairs may differ (f32 and each side's tolerance); more is wrong.
        if r.gpu_wrong > r.impacts / 1000 + 2 || r.reference_differing > r.impacts / 100 + 2 {
            failures.push(format!(
                "{} n={} sweeps: the GPU differs from the reference on {} of the {} pairs where it differs from parry2d, on {} over the scene",
                r.kind, r.n, r.gpu_wrong, r.differing, r.reference_differing
            ));
        }
    }
    println!(
        "ms per frame; gpu = poses uploaded + step() with WorldOptions::continuous; parry = swept boxes + BVH + cast_shapes_nonlinear per candidate; {} threads",
        rows[0].threads
    );
    failures
}
