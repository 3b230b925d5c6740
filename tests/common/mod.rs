//! Shared by the GPU tests: one device per test process, used by one test at a time, and the
//! helpers every subject needs. There is no skip: without an adapter every GPU test fails and
//! says how to get one.

#![allow(dead_code)] // each test binary uses a different subset

use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use satgpu::gpu::{self, Gpu, GpuOptions, World, WorldOptions};
use satgpu::validate::compare;
use satgpu::DetectOptions;
use satgpu::{reference, Contact, Polygon};

pub mod periodic;

/// A small deterministic generator (xorshift), so the scenes need no features.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

static GPU: OnceLock<Mutex<Gpu>> = OnceLock::new();

/// The test device (honours WGPU_BACKEND and WGPU_ADAPTER_NAME), locked for this test.
pub fn gpu() -> MutexGuard<'static, Gpu> {
    GPU.get_or_init(|| {
        let gpu = Gpu::new(&GpuOptions::default())
            .unwrap_or_else(|e| panic!("GPU tests need an adapter and never skip: {e}"));
        eprintln!("test adapter: {}", gpu.describe());
        Mutex::new(gpu)
    })
    .lock()
    .unwrap_or_else(|p| p.into_inner())
}

static GPU_TUNED: OnceLock<Mutex<Gpu>> = OnceLock::new();

/// A second device on the same adapter whose kernels are tuned as for a discrete GPU (short
/// chunks, many workgroups), so CI on a software adapter covers that tuning too. Lock the main
/// device first, so GPU tests stay serial.
pub fn gpu_tuned_for_gpus() -> MutexGuard<'static, Gpu> {
    GPU_TUNED
        .get_or_init(|| {
            let tuned = gpu::testing::open_tuned_as(&GpuOptions::default(), wgpu::DeviceType::DiscreteGpu);
            Mutex::new(tuned.unwrap_or_else(|e| panic!("GPU tests need an adapter and never skip: {e}")))
        })
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

static GPU_PRUNING: OnceLock<Mutex<Gpu>> = OnceLock::new();

/// The GPU tuning with the narrow phase's walk pruned on every pair, however few its vertices
/// (GPUs and CPU adapters prune only from 128 vertices in all).
pub fn gpu_pruning_every_pair() -> MutexGuard<'static, Gpu> {
    GPU_PRUNING
        .get_or_init(|| {
            let tuned = gpu::testing::open_pruning_every_pair(&GpuOptions::default());
            Mutex::new(tuned.unwrap_or_else(|e| panic!("GPU tests need an adapter and never skip: {e}")))
        })
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// A device the test owns, as an embedding program would make one, with `limits` over the
/// downlevel defaults.
pub fn caller_device(limits: wgpu::Limits) -> (wgpu::Device, wgpu::Queue, wgpu::AdapterInfo) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).expect("adapter");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: limits,
        required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
        ..Default::default()
    }))
    .expect("device");
    (device, queue, adapter.get_info())
}

/// The limits satgpu needs: 8 storage buffers per stage.
pub fn satgpu_limits() -> wgpu::Limits {
    wgpu::Limits { max_storage_buffers_per_shader_stage: 8, ..wgpu::Limits::downlevel_defaults() }
}

/// A device whose storage bindings hold only 1 MiB: 43,690 candidates per batch.
pub fn small_device() -> Gpu {
    let (device, queue, info) =
        caller_device(wgpu::Limits { max_storage_buffer_binding_size: 1 << 20, ..satgpu_limits() });
    Gpu::from_device(device, queue, info, Duration::from_secs(60)).unwrap()
}

/// The pairs of one frame, and how often it was rerun.
pub fn gpu_contacts(gpu: &Gpu, polygons: &[Polygon], options: &WorldOptions) -> (Vec<Contact>, u32) {
    let mut world = World::from_polygons(gpu, polygons, options).expect("world");
    let frame = world.step().expect("frame");
    (frame.contacts, frame.stats.reruns)
}

/// Every field's bits, for bitwise comparisons.
pub fn bits(contacts: &[Contact]) -> Vec<(u32, u32, u64, u64, u64)> {
    contacts.iter().map(|c| (c.a, c.b, c.normal[0].to_bits(), c.normal[1].to_bits(), c.depth.to_bits())).collect()
}

/// GPU and reference agree under the contract on one scene; returns (reference pairs, pairs
/// inside the band).
pub fn agree(gpu: &Gpu, polygons: &[Polygon], what: &str) -> (usize, usize) {
    let (contacts, _) = gpu_contacts(gpu, polygons, &WorldOptions::default());
    let expected = reference::detect(polygons, &DetectOptions::default()).contacts;
    let report = compare(polygons, &contacts, &expected, &DetectOptions::default());
    assert!(
        report.ok(),
        "{what}: {} disagreements outside the band, first: {}",
        report.disagreements.len(),
        report.disagreements[0]
    );
    (expected.len(), report.in_band)
}

/// The first `size` bytes of `buffer` (COPY_SRC), read with the test's own staging buffer.
pub fn read_back(gpu: &Gpu, buffer: &wgpu::Buffer, size: u64) -> Vec<u8> {
    let read = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test.read"),
        size: size.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &read, 0, size.max(4));
    let index = gpu.queue().submit([encoder.finish()]);
    read.slice(..).map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    gpu.device()
        .poll(wgpu::PollType::Wait { submission_index: Some(index), timeout: Some(Duration::from_secs(60)) })
        .expect("poll");
    let bytes = read.slice(..size).get_mapped_range().expect("mapped").to_vec();
    read.unmap();
    bytes
}

/// A reported `(normal, depth)` against the expected one: the depth to `tol`, and the normal a
/// unit minimum translation direction (the reference's penetration along it equals the depth),
/// which accepts either of two tied normals.
pub fn check_case(
    what: &str,
    a: &Polygon,
    b: &Polygon,
    got: Option<([f64; 2], f64)>,
    want: Option<([f64; 2], f64)>,
    tol: f64,
) {
    match (got, want) {
        (None, None) => {}
        (Some((n, d)), Some((_, depth))) => {
            assert!((d - depth).abs() <= tol, "{what}: depth {d}, expected {depth}");
            assert!((n[0].hypot(n[1]) - 1.0).abs() <= 1e-6, "{what}: normal {n:?} is not a unit vector");
            let along = reference::penetration_along(a, b, n);
            assert!((along - d).abs() <= tol, "{what}: normal {n:?} is no minimum direction ({along} vs {d})");
        }
        (got, want) => panic!("{what}: got {got:?}, expected {want:?}"),
    }
}

/// A world's contacts for bodies of `shapes` placed by `transforms` agree with the reference on
/// the placed shapes.
pub fn placed_agree(
    shapes: &[Polygon],
    body_shapes: &[u32],
    transforms: &[satgpu::Transform],
    got: &[Contact],
    what: &str,
) {
    let placed: Vec<Polygon> =
        body_shapes.iter().zip(transforms).map(|(&s, t)| shapes[s as usize].transformed(t)).collect();
    let report = compare(
        &placed,
        got,
        &reference::detect(&placed, &DetectOptions::default()).contacts,
        &DetectOptions::default(),
    );
    assert!(report.ok(), "{what}: {}", report.disagreements[0]);
}

/// Bodies `0..n` of a world built from `shapes` (body i uses shape `i * stride` modulo their
/// count), spun and spread on a grid 20 bodies wide, one frame: its contacts agree with the
/// reference on the placed shapes. Returns the number of contacts.
pub fn spinning_bodies_agree(gpu: &Gpu, shapes: &[Polygon], n: usize, stride: usize, what: &str) -> usize {
    let body_shapes: Vec<u32> = (0..n).map(|i| (i * stride % shapes.len()) as u32).collect();
    let transforms: Vec<satgpu::Transform> = (0..n)
        .map(|i| satgpu::Transform { x: (i % 20) as f64 * 1.7, y: (i / 20) as f64 * 1.9, angle: 0.37 * i as f64 })
        .collect();
    let mut world = World::new(gpu, shapes, &body_shapes, &WorldOptions::default()).unwrap();
    world.set_transforms(&transforms).unwrap();
    let got = world.step().unwrap().contacts;
    placed_agree(shapes, &body_shapes, &transforms, &got, what);
    got.len()
}

/// A hand-made pair and its exact answer: `(what, a, b, Some((normal, depth)))` for a colliding
/// pair, `None` for a pair apart.
pub type Case = (&'static str, Polygon, Polygon, Option<([f64; 2], f64)>);

/// Hand-made pairs of rounded shapes with their exact answers under the contract.
pub fn rounded_cases() -> Vec<Case> {
    let circle = |x: f64, y: f64, r: f64| Polygon::circle([x, y], r).unwrap();
    let capsule = |a: [f64; 2], b: [f64; 2], r: f64| Polygon::capsule(a, b, r).unwrap();
    let rect = |x0: f64, y0: f64, x1: f64, y1: f64, r: f64| {
        Polygon::rounded(vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]], r).unwrap()
    };
    let s = std::f64::consts::FRAC_1_SQRT_2;
    vec![
        ("circles touching (3-4-5)", circle(0.0, 0.0, 3.0), circle(3.0, 4.0, 2.0), Some(([0.6, 0.8], 0.0))),
        ("circles overlapping", circle(0.0, 0.0, 1.0), circle(2.5, 0.0, 2.0), Some(([1.0, 0.0], 0.5))),
        ("circles apart", circle(0.0, 0.0, 1.0), circle(3.0, 1.0, 2.0), None),
        ("coincident circles", circle(1.0, 1.0, 1.0), circle(1.0, 1.0, 0.5), Some(([1.0, 0.0], 1.5))),
        (
            "circle touching a square's edge",
            rect(0.0, 0.0, 2.0, 2.0, 0.0),
            circle(3.0, 1.0, 1.0),
            Some(([1.0, 0.0], 0.0)),
        ),
        ("circle into a square's edge", rect(0.0, 0.0, 2.0, 2.0, 0.0), circle(2.5, 1.0, 1.0), Some(([1.0, 0.0], 0.5))),
        (
            "circle centre inside a square",
            rect(0.0, 0.0, 2.0, 2.0, 0.0),
            circle(1.5, 1.0, 1.0),
            Some(([1.0, 0.0], 1.5)),
        ),
        (
            "circle at a square's corner",
            rect(0.0, 0.0, 2.0, 2.0, 0.0),
            circle(3.0, 3.0, 1.5),
            Some(([s, s], 1.5 - 2f64.sqrt())),
        ),
        ("circle near a square's corner, apart", rect(0.0, 0.0, 2.0, 2.0, 0.0), circle(3.0, 3.0, 1.4), None),
        (
            "square before circle, b to the left",
            circle(-1.0, 1.0, 1.5),
            rect(0.0, 0.0, 2.0, 2.0, 0.0),
            Some(([1.0, 0.0], 0.5)),
        ),
        (
            "crossing capsules",
            capsule([-1.0, 0.0], [1.0, 0.0], 0.5),
            capsule([0.0, -1.0], [0.0, 1.0], 0.5),
            Some(([0.0, 1.0], 2.0)),
        ),
        (
            "parallel capsules",
            capsule([0.0, 0.0], [4.0, 0.0], 0.5),
            capsule([1.0, 0.8], [3.0, 0.8], 0.5),
            Some(([0.0, 1.0], 0.2)),
        ),
        (
            "collinear capsules end to end",
            capsule([0.0, 0.0], [1.0, 0.0], 0.5),
            capsule([1.5, 0.0], [3.0, 0.0], 0.5),
            Some(([1.0, 0.0], 0.5)),
        ),
        ("collinear capsules apart", capsule([0.0, 0.0], [1.0, 0.0], 0.2), capsule([1.5, 0.0], [3.0, 0.0], 0.2), None),
        (
            "nearly collinear capsules apart",
            capsule([0.0, 0.0], [1.0, 0.0], 0.1),
            capsule([2.0, 0.0], [3.0, 1e-9], 0.1),
            None,
        ),
        (
            "capsule end on a capsule",
            capsule([0.0, 0.0], [2.0, 0.0], 0.25),
            capsule([1.0, 0.5], [1.0, 3.0], 0.25),
            Some(([0.0, 1.0], 0.0)),
        ),
        (
            "circle on a capsule's segment",
            capsule([0.0, 0.0], [2.0, 0.0], 0.5),
            circle(1.0, 0.0, 0.5),
            Some(([0.0, 1.0], 1.0)),
        ),
        (
            "circle at a capsule's end",
            capsule([0.0, 0.0], [2.0, 0.0], 0.5),
            circle(3.0, 0.0, 0.75),
            Some(([1.0, 0.0], 0.25)),
        ),
        (
            "capsule across a square",
            rect(0.0, 0.0, 2.0, 2.0, 0.0),
            capsule([-1.0, 1.0], [3.0, 1.0], 0.5),
            Some(([0.0, 1.0], 1.5)),
        ),
        (
            "rounded square beside a square",
            rect(0.0, 0.0, 1.0, 1.0, 0.5),
            rect(1.25, 0.0, 2.0, 1.0, 0.0),
            Some(([1.0, 0.0], 0.25)),
        ),
        ("rounded squares corner to corner", rect(0.0, 0.0, 1.0, 1.0, 0.5), rect(2.0, 2.0, 3.0, 3.0, 0.25), None),
        (
            "rounded squares overlapping",
            rect(0.0, 0.0, 2.0, 2.0, 0.25),
            rect(1.0, 0.5, 3.0, 1.5, 0.25),
            Some(([1.0, 0.0], 1.5)),
        ),
    ]
}

/// A world of `polygons` under each broad phase (auto, strips, all pairs), named.
pub fn every_broad_phase(gpu: &Gpu, polygons: &[Polygon]) -> Vec<(World, &'static str)> {
    use satgpu::gpu::BroadPhase;
    [(BroadPhase::Auto, "auto"), (BroadPhase::Strips, "strips"), (BroadPhase::AllPairs, "all pairs")]
        .into_iter()
        .map(|(broad, name)| {
            let options = WorldOptions::default().with_broad_phase(broad);
            (World::from_polygons(gpu, polygons, &options).unwrap(), name)
        })
        .collect()
}

/// Issue 62: bodies near (5, 110) (a found heptagon, a rounded square, a capsule, a circle),
/// the shapes cast at them (a circle of 0.125, a square, a capsule, a rounded triangle), and
/// casts from 1e5 and 1e6 away at each body's corners (sharp and rounded) and the middle of
/// each side, head on and a hair to either side, from eight directions.
pub fn long_casts() -> (Vec<Polygon>, Vec<Polygon>, Vec<satgpu::ShapeCast>) {
    let heptagon = vec![
        [5.157409191131592, 109.88031768798828],
        [5.247644901275635, 109.61414337158203],
        [5.606997489929199, 109.5061264038086],
        [5.95948600769043, 109.74748992919922],
        [5.982041358947754, 110.02721405029297],
        [5.669214725494385, 110.39271545410156],
        [5.31924295425415, 110.27442932128906],
    ];
    let bodies = vec![
        Polygon::new(heptagon).unwrap(),
        Polygon::rounded(vec![[8.0, 108.0], [9.0, 108.0], [9.0, 109.0], [8.0, 109.0]], 0.2).unwrap(),
        Polygon::capsule([2.0, 112.0], [3.5, 112.75], 0.3).unwrap(),
        Polygon::circle([7.0, 113.0], 0.6).unwrap(),
    ];
    let shapes = vec![
        Polygon::circle([0.0, 0.0], 0.125).unwrap(),
        Polygon::new(vec![[-0.25, -0.25], [0.25, -0.25], [0.25, 0.25], [-0.25, 0.25]]).unwrap(),
        Polygon::capsule([-0.3, 0.0], [0.3, 0.0], 0.1).unwrap(),
        Polygon::rounded(vec![[-0.2, -0.15], [0.25, -0.1], [0.0, 0.25]], 0.05).unwrap(),
    ];
    let mut casts = Vec::new();
    for body in &bodies {
        let v = body.vertices();
        let mut targets: Vec<[f64; 2]> = v.to_vec();
        if v.len() > 1 {
            targets.extend((0..v.len()).map(|i| {
                let w = v[(i + 1) % v.len()];
                [(v[i][0] + w[0]) / 2.0, (v[i][1] + w[1]) / 2.0]
            }));
        }
        for (k, aim) in targets.iter().enumerate() {
            for far in [1e5, 1e6] {
                for j in 0..8 {
                    let a = j as f64 * std::f64::consts::FRAC_PI_4 + 0.1 + 0.05 * k as f64;
                    let back = [a.cos(), a.sin()];
                    for hair in [0.0, 0.1, -0.1] {
                        let at = [aim[0] - hair * back[1], aim[1] + hair * back[0]];
                        let origin = [at[0] + far * back[0], at[1] + far * back[1]];
                        let shape = ((j + k) % shapes.len()) as u32;
                        let cast = satgpu::ShapeCast::new(shape, origin, [-back[0], -back[1]], far + 10.0);
                        casts.push(satgpu::ShapeCast { angle: 0.3 * j as f64, ..cast });
                    }
                }
            }
        }
    }
    (bodies, shapes, casts)
}
