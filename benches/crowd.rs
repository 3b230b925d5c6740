//! The crowd of `satgpu sim` on the GPU against the same crowd on the CPU with parry2d, in one
//! run, frame for frame.
//!
//! Both run `Scenario::crossing` with the same frame: integrate (velocity relaxed toward the
//! goal), K iterations of a fresh detection and a push-out (each pair apart along its normal by
//! its depth plus the margin, shared by inverse mass; each body moves by `relax` times the
//! average of its pushes), the position-based velocity update, and one more detection that
//! measures the penetration left. The CPU side is what a parry2d user writes for that frame on
//! one thread, twice: with a `Bvh` rebuilt over the bodies' AABBs per detection, and with one
//! `Bvh` kept across detections whose leaves are updated in place, refitted and incrementally
//! optimised (`insert_or_update_partially`, `refit`, `optimize_incremental`: what rapier's broad
//! phase does); then its self-traversal and `parry2d::query::contact` per candidate (Ball for circles, Capsule, RoundShape and
//! ConvexPolygon), in f32 like the GPU. The two are not bitwise equal (different narrow phases
//! and summation), so the bench compares times and how far each resolves the overlaps.
//!
//! `cargo bench --bench crowd` runs `--kind agents` at 10,000 and 100,000 bodies for 10 frames
//! (`SATGPU_CROWD_N=10000,100000`, `SATGPU_CROWD_FRAMES`, `SATGPU_CROWD_KINDS=agents,crowd,shapes`
//! change that). Without `--bench` (`cargo test --benches`) it runs every kind on 600 bodies and
//! checks that both sides resolve the start's overlaps.

use std::time::Instant;

use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::{Pose, Vector};
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry2d::query::contact;
use parry2d::shape::{Ball, Capsule, ConvexPolygon, RoundShape, Shape};
use satgpu::gpu::{Gpu, GpuOptions};
use satgpu::sim::{Scenario, SimKind, SimOptions, Simulation};
use satgpu::{Polygon, ShapeKind};

/// The shape a parry2d user would pick for a satgpu shape in local coordinates.
fn parry_shape(p: &Polygon) -> Box<dyn Shape> {
    let local: Vec<Vector> = p.vertices().iter().map(|v| Vector::new(v[0] as f32, v[1] as f32)).collect();
    let r = p.radius() as f32;
    match p.kind() {
        ShapeKind::Circle => Box::new(Ball::new(r)),
        ShapeKind::Capsule => Box::new(Capsule::new(local[0], local[1], r)),
        kind => {
            let polygon = ConvexPolygon::from_convex_polyline_unmodified(local).expect("a valid convex polygon");
            if kind == ShapeKind::RoundedPolygon {
                Box::new(RoundShape { inner_shape: polygon, border_radius: r })
            } else {
                Box::new(polygon)
            }
        }
    }
}

/// How the CPU crowd keeps its BVH from one detection to the next.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tree {
    /// `Bvh::from_leaves` for every detection.
    Rebuild,
    /// One `Bvh`: leaves updated in place, then `refit` and `optimize_incremental`.
    Refit,
}

/// The crowd on the CPU, in f32 like the GPU (see the module docs).
struct CpuCrowd<'a> {
    scenario: &'a Scenario,
    options: &'a SimOptions,
    tree: Tree,
    bvh: Option<Bvh>,
    workspace: BvhWorkspace,
    shapes: Vec<Box<dyn Shape>>,
    position: Vec<[f32; 2]>,
    velocity: Vec<[f32; 2]>,
    margin: f32,
    max_speed: f32,
}

/// A colliding pair: bodies, unit normal from a to b, depth.
type Pair = (usize, usize, [f32; 2], f32);

impl<'a> CpuCrowd<'a> {
    fn new(scenario: &'a Scenario, options: &'a SimOptions, tree: Tree) -> CpuCrowd<'a> {
        let position: Vec<[f32; 2]> = scenario.start.iter().map(|t| [t.x as f32, t.y as f32]).collect();
        let velocity = scenario
            .walkers
            .iter()
            .zip(&scenario.start)
            .map(|(w, t)| w.preferred_velocity([t.x, t.y]).map(|v| v as f32))
            .collect();
        CpuCrowd {
            scenario,
            options,
            tree,
            bvh: None,
            workspace: BvhWorkspace::default(),
            shapes: scenario.shapes.iter().map(parry_shape).collect(),
            position,
            velocity,
            margin: (options.margin * scenario.body_radius()) as f32,
            max_speed: (2.0 * scenario.walkers.iter().map(|w| w.speed).fold(0.0, f64::max)) as f32,
        }
    }

    fn pose(&self, i: usize) -> Pose {
        let p = self.position[i];
        Pose::new(Vector::new(p[0], p[1]), self.scenario.start[i].angle as f32)
    }

    fn shape(&self, i: usize) -> &dyn Shape {
        &*self.shapes[self.scenario.body_shapes[i] as usize]
    }

    /// Every overlapping pair: BVH over the AABBs (rebuilt, or refitted), self-traversal,
    /// `contact` per candidate.
    fn detect(&mut self) -> Vec<Pair> {
        let n = self.position.len();
        let aabbs: Vec<ParryAabb> = (0..n).map(|i| self.shape(i).compute_aabb(&self.pose(i))).collect();
        let mut workspace = std::mem::take(&mut self.workspace);
        let bvh = match (self.tree, self.bvh.take()) {
            (Tree::Refit, Some(mut bvh)) => {
                for (i, aabb) in aabbs.iter().enumerate() {
                    bvh.insert_or_update_partially(*aabb, i as u32, 0.0);
                }
                bvh.refit(&mut workspace);
                bvh.optimize_incremental(&mut workspace);
                bvh
            }
            _ => Bvh::from_leaves(BvhBuildStrategy::Binned, &aabbs),
        };
        let mut pairs = vec![];
        bvh.traverse_bvtt_single_tree::<false>(&mut workspace, &mut |i, j| {
            let (a, b) = (i.min(j) as usize, i.max(j) as usize);
            let c = contact(&self.pose(a), self.shape(a), &self.pose(b), self.shape(b), 0.0)
                .expect("parry2d supports contacts between these shapes");
            if let Some(c) = c.filter(|c| c.dist <= 0.0) {
                pairs.push((a, b, [c.normal1.x, c.normal1.y], -c.dist));
            }
        });
        self.bvh = Some(bvh);
        self.workspace = workspace;
        pairs
    }

    fn frame(&mut self) -> (f64, f64) {
        let (dt, n) = (self.options.dt as f32, self.position.len());
        let blend = (dt / 0.5).min(1.0);
        let start = self.position.clone();
        for i in 0..n {
            let w = &self.scenario.walkers[i];
            if w.inv_mass == 0.0 {
                continue;
            }
            let p = self.position[i];
            let to = [w.goal[0] as f32 - p[0], w.goal[1] as f32 - p[1]];
            let d = to[0].hypot(to[1]);
            let mut preferred = [0.0; 2];
            if d > 1e-6 {
                let s = w.speed as f32 * (d / (w.radius as f32).max(1e-6)).min(1.0) / d;
                preferred = [to[0] * s, to[1] * s];
            }
            let v = &mut self.velocity[i];
            *v = [v[0] + (preferred[0] - v[0]) * blend, v[1] + (preferred[1] - v[1]) * blend];
            self.position[i] = [p[0] + v[0] * dt, p[1] + v[1] * dt];
        }
        let mut moves = vec![([0.0f32; 2], 0u32); n];
        for _ in 0..self.options.iterations {
            for (a, b, normal, depth) in self.detect() {
                let (wa, wb) = (self.scenario.walkers[a].inv_mass as f32, self.scenario.walkers[b].inv_mass as f32);
                if wa + wb == 0.0 {
                    continue;
                }
                let k = (depth + self.margin) / (wa + wb);
                for (body, sign, w) in [(a, -1.0, wa), (b, 1.0, wb)] {
                    if w > 0.0 {
                        let m = &mut moves[body];
                        m.0 = [m.0[0] + sign * normal[0] * k * w, m.0[1] + sign * normal[1] * k * w];
                        m.1 += 1;
                    }
                }
            }
            let relax = self.options.relax as f32;
            for (p, m) in self.position.iter_mut().zip(&mut moves) {
                if m.1 > 0 {
                    let s = relax / m.1 as f32;
                    *p = [p[0] + m.0[0] * s, p[1] + m.0[1] * s];
                }
                *m = ([0.0; 2], 0);
            }
        }
        let moved = self.position.iter().zip(&start).zip(&self.scenario.walkers);
        for (((p, s), w), velocity) in moved.zip(&mut self.velocity) {
            if w.inv_mass == 0.0 {
                continue;
            }
            let mut v = [(p[0] - s[0]) / dt, (p[1] - s[1]) / dt];
            let speed = v[0].hypot(v[1]);
            if speed > self.max_speed {
                v = [v[0] * self.max_speed / speed, v[1] * self.max_speed / speed];
            }
            *velocity = v;
        }
        let left = self.detect();
        let max = left.iter().map(|p| f64::from(p.3)).fold(0.0, f64::max);
        (max, left.iter().map(|p| f64::from(p.3)).sum())
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        (v[(v.len() - 1) / 2] + v[v.len() / 2]) / 2.0
    }
}

fn env_list(name: &str) -> Option<Vec<String>> {
    let value = std::env::var(name).ok()?;
    Some(value.split(',').map(|s| s.trim().replace('_', "")).filter(|s| !s.is_empty()).collect())
}

struct Row {
    kind: SimKind,
    n: usize,
    frames: usize,
    gpu_ms: f64,
    /// Median frame and penetration left (first, last frame) with a rebuilt BVH.
    cpu_ms: f64,
    cpu_depth: (f64, f64),
    /// The same with a refitted BVH.
    refit_ms: f64,
    refit_depth: (f64, f64),
    gpu_depth: (f64, f64),
    radius: f64,
}

/// The CPU crowd's median frame time and its largest penetration after the first and the last
/// frame.
fn run_cpu(scenario: &Scenario, options: &SimOptions, tree: Tree, frames: usize) -> (f64, (f64, f64)) {
    let mut cpu = CpuCrowd::new(scenario, options, tree);
    let (mut times, mut depths) = (vec![], vec![]);
    for _ in 0..frames {
        let t = Instant::now();
        depths.push(cpu.frame().0);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    (median(times), (depths[0], depths[frames - 1]))
}

fn run(gpu: &Gpu, kind: SimKind, n: usize, frames: usize) -> Row {
    let scenario = Scenario::crossing(kind, n, 1).expect("the built-in scenario");
    let options = SimOptions::default();
    let mut sim = Simulation::new(gpu, &scenario, &options).expect("a simulation");
    for _ in 0..frames {
        sim.step().expect("a GPU frame");
    }
    sim.sync().expect("the GPU figures");
    let reports = sim.reports();
    let gpu_ms = median(reports.iter().map(|r| r.ms).collect());
    let gpu_depth = (reports[0].max_depth, reports[frames - 1].max_depth);

    let (cpu_ms, cpu_depth) = run_cpu(&scenario, &options, Tree::Rebuild, frames);
    let (refit_ms, refit_depth) = run_cpu(&scenario, &options, Tree::Refit, frames);
    Row { kind, n, frames, gpu_ms, cpu_ms, cpu_depth, refit_ms, refit_depth, gpu_depth, radius: scenario.body_radius() }
}

fn main() {
    let bench = std::env::args().skip(1).any(|a| a == "--bench");
    let parse_kind = |s: &String| s.parse::<SimKind>().unwrap_or_else(|e| panic!("SATGPU_CROWD_KINDS: {e}"));
    let parse_n = |s: &String| s.parse::<usize>().unwrap_or_else(|e| panic!("SATGPU_CROWD_N: {s:?}: {e}"));
    let (kinds, sizes, frames) = if bench {
        let kinds =
            env_list("SATGPU_CROWD_KINDS").map_or(vec![SimKind::Agents], |l| l.iter().map(parse_kind).collect());
        let sizes = env_list("SATGPU_CROWD_N").map_or(vec![10_000, 100_000], |l| l.iter().map(parse_n).collect());
        let frames = std::env::var("SATGPU_CROWD_FRAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(10usize);
        (kinds, sizes, frames.max(1))
    } else {
        (SimKind::ALL.to_vec(), vec![600], 12)
    };
    let gpu = Gpu::new(&GpuOptions::default()).expect("the crowd bench needs a GPU adapter");
    println!("adapter: {}", gpu.describe());
    println!(
        "mode: {}; {} iterations per frame, fresh detections; parry2d on one thread",
        if bench { "bench" } else { "test (timings not meaningful)" },
        SimOptions::default().iterations
    );
    println!(
        "{:<7} {:>9} {:>6} {:>10} {:>11} {:>10} {:>11} {:>10} {:>20} {:>20} {:>20}",
        "kind",
        "n",
        "frames",
        "satgpu ms",
        "rebuild ms",
        "rebuild/gpu",
        "refit ms",
        "refit/gpu",
        "satgpu depth % r",
        "rebuild depth % r",
        "refit depth % r"
    );
    let mut rows = vec![];
    for &n in &sizes {
        for &kind in &kinds {
            let r = run(&gpu, kind, n, frames);
            let pct = |d: (f64, f64)| format!("{:.1} -> {:.2}", 100.0 * d.0 / r.radius, 100.0 * d.1 / r.radius);
            println!(
                "{:<7} {:>9} {:>6} {:>10.1} {:>11.1} {:>10.2}x {:>11.1} {:>9.2}x {:>20} {:>20} {:>20}",
                r.kind.name(),
                r.n,
                r.frames,
                r.gpu_ms,
                r.cpu_ms,
                r.cpu_ms / r.gpu_ms,
                r.refit_ms,
                r.refit_ms / r.gpu_ms,
                pct(r.gpu_depth),
                pct(r.cpu_depth),
                pct(r.refit_depth)
            );
            rows.push(r);
        }
    }
    println!("frame: integrate, K detections and push-outs, velocity update, one measuring detection (median ms)");
    println!(
        "rebuild: parry2d with a BVH built per detection; refit: one BVH, leaves updated, refit, optimize_incremental"
    );
    println!("depth: the largest penetration left after the first -> the last frame, in % of the smallest radius");
    if !bench {
        // Both sides must undo most of the start's overlaps: a CPU crowd that does not resolve
        // would make the comparison meaningless, and a GPU one that does not is a bug.
        for r in &rows {
            for (side, d) in
                [("satgpu", r.gpu_depth), ("parry2d rebuild", r.cpu_depth), ("parry2d refit", r.refit_depth)]
            {
                assert!(
                    d.1 < 0.25 * d.0 && d.1 <= 0.05 * r.radius,
                    "{} {side}: depth {d:?}, radius {}",
                    r.kind.name(),
                    r.radius
                );
            }
        }
    }
}
