//! Compound bodies (issue 25) against parry2d's `Compound` doing the same job: every colliding
//! pair of bodies, each with the normal and depth of its deepest part pair, sorted.
//!
//! * **gpu cold**: `World::from_bodies` plus the first `step()`;
//! * **gpu step**: `set_transforms` (every body, 16 bytes each) plus `step()` on that world:
//!   what a simulation pays per frame (pairs ordered and the deepest part pair per pair of
//!   bodies kept where `ContactOrder::Auto` puts them: on the GPU on GPUs, on the host on CPU
//!   adapters); **gpu step, on GPU**: the same with `ContactOrder::Gpu`, both on the GPU;
//! * **reference**: `reference::detect_compound`, f64, one thread;
//! * **parry2d contact**: a parry2d user's one-shot job: per body a `Compound` of its parts (a
//!   plain shape for a body of one part), its AABB, `Bvh::from_leaves`, the self-traversal, and
//!   `query::contact` (prediction 0; parry2d's best contact of a composite shape is its deepest
//!   part pair) per candidate, then a sort; **all cores**: the same with rayon where parry2d
//!   allows (shapes and tests; its BVH build and traversal are sequential).
//!
//! Each contender's pairs are checked against the reference: the GPU with
//! `validate::compare_compound`, parry2d's pairs by the bodies' separation (the smallest of
//! their part pairs'), which must lie inside the band or parry2d's GJK tolerance when they
//! differ.

use std::collections::BTreeSet;

use parry2d::bounding_volume::{Aabb as ParryAabb, BoundingVolume};
use parry2d::math::{Pose, Vector};
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry2d::query::contact;
use parry2d::shape::{Compound as ParryCompound, Shape, SharedShape};
use satgpu::gpu::{ContactOrder, Gpu, World, WorldOptions};
use satgpu::scene::{generate_bodies, SceneKind};
use satgpu::{reference, validate, Body, Contact, Transform};

use crate::{measure, parry_gjk_tolerance, parry_shape};
use satgpu::DetectOptions;

/// One compound scene's results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CompoundRow {
    pub kind: String,
    pub bodies: usize,
    pub parts: usize,
    pub candidates_gpu: u64,
    pub candidates_parry: u64,
    pub pairs_gpu: usize,
    pub pairs_reference: usize,
    pub pairs_parry: usize,
    pub gpu_cold_ms: f64,
    pub gpu_step_ms: f64,
    pub gpu_step_on_gpu_ms: f64,
    pub reference_ms: f64,
    pub parry_contact_ms: f64,
    pub parry_contact_all_cores_ms: f64,
    pub threads: usize,
    pub gpu_ok: bool,
    pub gpu_disagreements: usize,
    /// Pairs only one of parry2d and the reference report, inside the band or parry2d's GJK
    /// tolerance (allowed), and outside both (disagreements).
    pub parry_tolerated: usize,
    pub parry_out_of_band: Vec<(u32, u32, f64)>,
}

/// What a parry2d user builds for body `i`: its anchor, its shape relative to the anchor (a
/// `Compound` of its parts, each placed by its own anchor, or the one part's shape), and its
/// AABB in world space, rounded outward.
fn parry_body(i: usize, body: &Body) -> ([f64; 2], Box<dyn Shape>, ParryAabb) {
    let parts: Vec<_> = body.shapes().iter().map(|p| parry_shape(i, p)).collect();
    let o = parts[0].0;
    let mut aabb = parts[0].2;
    for p in &parts[1..] {
        aabb.merge(&p.2);
    }
    if parts.len() == 1 {
        let (o, shape, aabb) = parts.into_iter().next().expect("one part");
        return (o, shape, aabb);
    }
    let placed = parts
        .into_iter()
        .map(|(at, shape, _)| {
            let delta = Vector::new((at[0] - o[0]) as f32, (at[1] - o[1]) as f32);
            (Pose::from_translation(delta), SharedShape(shape.into()))
        })
        .collect();
    (o, Box::new(ParryCompound::new(placed)), aabb)
}

fn parry_hit(anchors: &[[f64; 2]], shapes: &[Box<dyn Shape>], a: u32, b: u32) -> bool {
    let (oa, ob) = (anchors[a as usize], anchors[b as usize]);
    let pos12 = Pose::from_translation(Vector::new((ob[0] - oa[0]) as f32, (ob[1] - oa[1]) as f32));
    contact(&Pose::IDENTITY, &*shapes[a as usize], &pos12, &*shapes[b as usize], 0.0)
        .expect("parry2d supports contacts between these shapes")
        .is_some_and(|c| std::hint::black_box(c.dist) <= 0.0)
}

/// Every colliding pair of bodies with parry2d, and its BVH's candidate count.
fn parry_detect(bodies: &[Body], all_cores: bool) -> (Vec<(u32, u32)>, u64) {
    use rayon::prelude::*;
    let built: Vec<_> = if all_cores {
        bodies.par_iter().enumerate().map(|(i, b)| parry_body(i, b)).collect()
    } else {
        bodies.iter().enumerate().map(|(i, b)| parry_body(i, b)).collect()
    };
    let (mut anchors, mut shapes, mut aabbs) = (vec![], vec![], vec![]);
    for (o, s, a) in built {
        anchors.push(o);
        shapes.push(s);
        aabbs.push(a);
    }
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs);
    let mut candidates = vec![];
    bvh.traverse_bvtt_single_tree::<false>(&mut BvhWorkspace::default(), &mut |i, j| {
        candidates.push((i.min(j), i.max(j)));
    });
    let count = candidates.len() as u64;
    let mut pairs: Vec<(u32, u32)> = if all_cores {
        candidates.into_par_iter().filter(|&(a, b)| parry_hit(&anchors, &shapes, a, b)).collect()
    } else {
        candidates.into_iter().filter(|&(a, b)| parry_hit(&anchors, &shapes, a, b)).collect()
    };
    if all_cores {
        pairs.par_sort_unstable();
    } else {
        pairs.sort_unstable();
    }
    (pairs, count)
}

/// Pairs only one of parry2d and the reference report: (tolerated, outside every tolerance).
fn check_parry(bodies: &[Body], parry: &[(u32, u32)], want: &[Contact]) -> (usize, Vec<(u32, u32, f64)>) {
    let p: BTreeSet<(u32, u32)> = parry.iter().copied().collect();
    let r: BTreeSet<(u32, u32)> = want.iter().map(|c| (c.a, c.b)).collect();
    let (mut tolerated, mut out) = (0, vec![]);
    for &(a, b) in p.symmetric_difference(&r) {
        let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
        // The bodies' separation is their closest part pair's, judged at that pair's scale.
        let (separation, tolerance) = ba
            .shapes()
            .iter()
            .flat_map(|pa| bb.shapes().iter().map(move |pb| (pa, pb)))
            .map(|(pa, pb)| (reference::separation(pa, pb), parry_gjk_tolerance(pa, pb)))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .expect("bodies have parts");
        if separation.abs() <= tolerance.max(validate::body_band(ba.shapes(), bb.shapes())) {
            tolerated += 1;
        } else {
            out.push((a, b, separation));
        }
    }
    (tolerated, out)
}

pub fn run(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, reps: usize) -> CompoundRow {
    let bodies = generate_bodies(kind, n, seed);
    let (gpu_cold_ms, (mut world, frame)) = measure(reps, || {
        let mut world = World::from_bodies(gpu, &bodies, &WorldOptions::default()).expect("compound world");
        let frame = world.step().expect("World::step failed");
        (world, frame)
    });
    // The transforms from_bodies placed the bodies by: each first vertex, rounded to f32.
    let anchors: Vec<Transform> = bodies
        .iter()
        .map(|b| {
            let [x, y] = b.shapes()[0].vertices()[0].map(|c| f64::from(c as f32));
            Transform { x, y, angle: 0.0 }
        })
        .collect();
    let (gpu_step_ms, stepped) = measure(reps, || {
        world.set_transforms(&anchors).expect("set_transforms");
        world.step().expect("World::step failed")
    });
    assert_eq!(stepped.contacts, frame.contacts, "a stepped frame differs from the first");
    drop(world);
    let options = WorldOptions::default().with_order(ContactOrder::Gpu);
    let mut world = World::from_bodies(gpu, &bodies, &options).expect("compound world");
    let (gpu_step_on_gpu_ms, on_gpu) = measure(reps, || {
        world.set_transforms(&anchors).expect("set_transforms");
        world.step().expect("World::step failed")
    });
    assert_eq!(on_gpu.contacts, frame.contacts, "ordered on the GPU, a frame differs");
    let (reference_ms, want) = measure(reps, || reference::detect(&bodies, &DetectOptions::default()).contacts);
    let (parry_contact_ms, (parry, candidates_parry)) = measure(reps, || parry_detect(&bodies, false));
    let (parry_contact_all_cores_ms, (parry_all, _)) = measure(reps, || parry_detect(&bodies, true));
    assert_eq!(parry_all, parry, "parry2d on all cores finds the pairs it finds on one");
    let report = validate::compare(&bodies, &frame.contacts, &want, &DetectOptions::default());
    let (parry_tolerated, parry_out_of_band) = check_parry(&bodies, &parry, &want);
    CompoundRow {
        kind: kind.to_string(),
        bodies: bodies.len(),
        parts: bodies.iter().map(|b| b.shapes().len()).sum(),
        candidates_gpu: frame.stats.candidates,
        candidates_parry,
        pairs_gpu: frame.contacts.len(),
        pairs_reference: want.len(),
        pairs_parry: parry.len(),
        gpu_cold_ms,
        gpu_step_ms,
        gpu_step_on_gpu_ms,
        reference_ms,
        parry_contact_ms,
        parry_contact_all_cores_ms,
        threads: rayon::current_num_threads(),
        gpu_ok: report.ok(),
        gpu_disagreements: report.disagreements.len(),
        parry_tolerated,
        parry_out_of_band,
    }
}

/// The rows as an aligned table, and what failed to agree.
pub fn print(rows: &[CompoundRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec![];
    }
    println!();
    println!("compound bodies (pairs of bodies, deepest part pair each):");
    println!(
        "{:<6} {:>8} {:>8} {:>12} {:>9} {:>9} {:>9} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12} {:>10} {:>8}",
        "kind",
        "bodies",
        "parts",
        "part cands",
        "pairs",
        "ref",
        "parry",
        "gpu cold",
        "gpu step",
        "on gpu",
        "ref ms",
        "parry 1 thr",
        "parry all",
        "all/step",
        "agree"
    );
    let mut failures = vec![];
    for r in rows {
        let agree = r.gpu_ok && r.parry_out_of_band.is_empty();
        println!(
            "{:<6} {:>8} {:>8} {:>12} {:>9} {:>9} {:>9} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>12.2} {:>12.2} {:>9.2}x {:>8}",
            r.kind,
            r.bodies,
            r.parts,
            r.candidates_gpu,
            r.pairs_gpu,
            r.pairs_reference,
            r.pairs_parry,
            r.gpu_cold_ms,
            r.gpu_step_ms,
            r.gpu_step_on_gpu_ms,
            r.reference_ms,
            r.parry_contact_ms,
            r.parry_contact_all_cores_ms,
            r.parry_contact_all_cores_ms / r.gpu_step_ms,
            if agree { "yes" } else { "NO" }
        );
        let name = format!("{} n={}", r.kind, r.bodies);
        if !r.gpu_ok {
            failures.push(format!("{name}: GPU disagrees with the reference on {} pair(s)", r.gpu_disagreements));
        }
        if !r.parry_out_of_band.is_empty() {
            let first: Vec<_> = r.parry_out_of_band.iter().take(5).collect();
            failures.push(format!("{name}: parry2d's Compound disagrees with the reference on {first:?}"));
        }
    }
    println!(
        "gpu cold = World::from_bodies + step(); gpu step = set_transforms + step() (on gpu: ordered and \
         reduced on the GPU); parry = Compound shapes, BVH, contact() per candidate, sort (all: on {} threads); \
         tolerated parry2d differences: {}",
        rows[0].threads,
        rows.iter().map(|r| r.parry_tolerated.to_string()).collect::<Vec<_>>().join(", ")
    );
    failures
}
