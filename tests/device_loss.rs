//! A GPU that goes away (issue 30): the device is destroyed (`Device::destroy`, how wgpu loses a
//! device on purpose) before a world is made, between steps, between `dispatch` and a resident
//! read, and during a simulation. Every call after the loss returns `Error::DeviceLost`, never
//! a panic or an empty result, and the world carried to a fresh `Gpu` (`World::rebuild_on`)
//! gives the same pairs as before the loss. Each test destroys a device of its own.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{bits, caller_device, satgpu_limits};
use satgpu::gpu::{self, ContactDetail, Gpu, GpuOptions, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::sim::{Scenario, SimKind, SimOptions, Simulation};
use satgpu::DetectOptions;
use satgpu::{Error, Filter, Transform};

fn fresh() -> Gpu {
    Gpu::new(&GpuOptions::default().with_timeout(Duration::from_secs(60))).expect("an adapter")
}

/// Asserts `result` is `DeviceLost`, naming `what` otherwise.
#[track_caller]
fn lost<T>(result: satgpu::Result<T>, what: &str) {
    match result {
        Err(Error::DeviceLost(why)) => assert!(!why.is_empty(), "{what}: a reason"),
        Err(other) => panic!("{what}: expected DeviceLost, got {other}"),
        Ok(_) => panic!("{what}: expected DeviceLost, got a result"),
    }
}

fn transforms(n: usize, dx: f64) -> Vec<Transform> {
    (0..n)
        .map(|i| Transform { x: 0.8 * (i % 40) as f64 + dx, y: 0.8 * (i / 40) as f64, angle: 0.1 * i as f64 })
        .collect()
}

#[test]
fn a_device_lost_before_anything_is_made() {
    let _lock = common::gpu();
    let gpu = fresh();
    gpu.device().destroy();
    let polygons = generate(SceneKind::Crowd, 300, 1);
    lost(World::from_polygons(&gpu, &polygons, &WorldOptions::default()), "from_polygons");
    lost(World::new(&gpu, &polygons[..3], &[0, 1, 2, 0], &WorldOptions::default()), "World::new");
    lost(gpu::detect(&gpu, &polygons, &DetectOptions::default()).map(|_| ()), "detect");
    let full = DetectOptions::default().with_contact_detail(ContactDetail::Full);
    lost(gpu::detect(&gpu, &polygons, &full).map(|_| ()), "detect, full contacts");
    let scenario = Scenario::crossing(SimKind::Agents, 500, 1).unwrap();
    lost(Simulation::new(&gpu, &scenario, &SimOptions::default()).map(|_| ()), "Simulation::new");
    assert!(gpu.lost().is_some());
    // The message says what happened, in one line.
    let e = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap_err().to_string();
    assert!(e.starts_with("the GPU device was lost (Destroyed"), "{e}");
    // A fresh Gpu works as before.
    let want = satgpu::reference::detect(&polygons, &DetectOptions::default()).contacts;
    let got = gpu::detect(&fresh(), &polygons, &DetectOptions::default()).unwrap().contacts;
    let report = satgpu::validate::compare(&polygons, &got, &want, &DetectOptions::default());
    assert!(report.ok() && !want.is_empty(), "{:?}", report.disagreements.first());
}

#[test]
fn a_device_lost_between_steps_and_the_world_carried_to_a_new_one() {
    let _lock = common::gpu();
    let gpu = fresh();
    let shapes = generate(SceneKind::Shapes, 6, 3);
    let body_shapes: Vec<u32> = (0..800).map(|i| i % 6).collect();
    let mut world = World::new(&gpu, &shapes, &body_shapes, &WorldOptions::default()).unwrap();
    // A filter on body 0, and transforms other than the identity: state to carry over.
    let mut filters = vec![Filter::DEFAULT; 800];
    filters[0] = Filter { category: 2, mask: 2, group: 0 };
    world.set_filters(&filters).unwrap();
    world.set_transforms(&transforms(800, 0.0)).unwrap();
    let before = bits(&world.step().unwrap().contacts);
    assert!(!before.is_empty());

    gpu.device().destroy();
    lost(world.set_transforms(&transforms(800, 0.5)), "set_transforms");
    lost(world.step(), "step");
    lost(world.step_into(&mut vec![]), "step_into");
    lost(world.step_f32_into(&mut vec![]), "step_f32_into");
    lost(world.submit(), "submit");
    lost(world.collect_into(&mut vec![]), "collect_into");
    lost(world.dispatch(), "dispatch");
    lost(world.set_filters(&filters), "set_filters");
    lost(world.set_polygons(&generate(SceneKind::Crowd, 800, 1)), "set_polygons");
    lost(world.reserve(1 << 20, 1 << 20), "reserve");
    lost(world.set_contact_detail(ContactDetail::Full), "set_contact_detail");
    lost(world.step(), "step, again");

    // Carried to a new device: same shapes, bodies, filters, options and last transforms.
    let mut again = world.rebuild_on(&fresh()).unwrap();
    assert_eq!(again.filters(), filters.as_slice());
    assert_eq!(bits(&again.step().unwrap().contacts), before, "the same pairs after the loss");
    // And it goes on from there.
    again.set_transforms(&transforms(800, 0.5)).unwrap();
    assert!(!again.step().unwrap().contacts.is_empty());
}

#[test]
fn a_device_lost_between_dispatch_and_a_resident_read() {
    let _lock = common::gpu();
    let gpu = fresh();
    let polygons = generate(SceneKind::Crowd, 400, 2);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let want = bits(&world.step().unwrap().contacts);
    let submission = world.dispatch().unwrap();
    gpu.device().destroy();
    lost(gpu.wait(submission), "wait");
    lost(world.dispatch(), "dispatch");
    let mut again = world.rebuild_on(&fresh()).unwrap();
    assert_eq!(bits(&again.step().unwrap().contacts), want);
}

#[test]
fn a_device_lost_during_a_simulation() {
    let _lock = common::gpu();
    let gpu = fresh();
    let scenario = Scenario::crossing(SimKind::Agents, 600, 4).unwrap();
    let options = SimOptions { window: 2, ..SimOptions::default() };
    let mut sim = Simulation::new(&gpu, &scenario, &options).unwrap();
    for _ in 0..3 {
        sim.step().unwrap();
    }
    gpu.device().destroy();
    lost(sim.step(), "sim step");
    lost(sim.sync(), "sim sync");
    lost(sim.positions(), "positions");
    lost(sim.state_hash(), "state_hash");
    lost(sim.reserve(1 << 16, 1 << 16), "sim reserve");
    // A new simulation on a new device runs.
    let mut next = Simulation::new(&fresh(), &scenario, &options).unwrap();
    next.step().unwrap();
    next.sync().unwrap();
    assert_eq!(next.frames(), 1);
}

/// A device the caller brought keeps the caller's device-lost callback; satgpu still notices
/// the loss itself.
#[test]
fn a_callers_device_keeps_its_callback_and_satgpu_notices_the_loss() {
    let _lock = common::gpu();
    let (device, queue, info) = caller_device(satgpu_limits());
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = seen.clone();
    device.set_device_lost_callback(move |reason, _| sink.lock().unwrap().push(format!("{reason:?}")));
    let gpu = Gpu::from_device(device.clone(), queue, info, Duration::from_secs(60)).unwrap();
    let polygons = generate(SceneKind::Crowd, 300, 5);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    let want = bits(&world.step().unwrap().contacts);
    device.destroy();
    lost(world.set_transforms(&vec![Transform { x: 0.0, y: 0.0, angle: 0.0 }; 300]), "set_transforms");
    lost(world.step(), "step");
    lost(World::from_polygons(&gpu, &polygons, &WorldOptions::default()), "from_polygons");
    let _ = device.poll(wgpu::PollType::Poll);
    assert_eq!(*seen.lock().unwrap(), ["Destroyed"], "the caller's callback ran, once");
    assert_eq!(bits(&world.rebuild_on(&fresh()).unwrap().step().unwrap().contacts), want);
}
