//! Devices: adapters that cannot run satgpu, devices the caller owns (their error handlers stay
//! theirs, their own errors stay out of satgpu's results), and several worlds on one device
//! stepped from several threads at once.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{bits, caller_device, satgpu_limits};
use satgpu::gpu::{self, Gpu, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::validate::compare;
use satgpu::{reference, Contact, Error, Transform};

#[test]
fn a_device_with_too_few_storage_buffers_is_refused() {
    let _lock = common::gpu();
    let (device, queue, info) = caller_device(wgpu::Limits::downlevel_defaults());
    match Gpu::from_device(device, queue, info, Duration::from_secs(60)) {
        Err(Error::UnsuitableAdapter { reason, .. }) => assert!(reason.contains("storage buffers"), "{reason}"),
        other => panic!("expected UnsuitableAdapter, got {other:?}"),
    }
}

#[test]
fn works_on_a_device_the_caller_owns() {
    let _lock = common::gpu();
    let (device, queue, info) = caller_device(satgpu_limits());
    let own = Gpu::from_device(device, queue, info, Duration::from_secs(60)).unwrap();
    let polygons = generate(SceneKind::Crowd, 500, 2);
    let got = gpu::detect(&own, &polygons).unwrap();
    assert!(compare(&polygons, &got, &reference::detect(&polygons)).ok());
    assert!(!got.is_empty());
}

/// A buffer the caller gets wrong: MAP_READ with STORAGE is a validation error.
fn callers_mistake(device: &wgpu::Device) {
    let _ = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("caller.bad"),
        size: 64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
}

#[test]
fn the_callers_error_handler_stays_and_the_callers_errors_stay_the_callers() {
    let _lock = common::gpu();
    let (device, queue, info) = caller_device(satgpu_limits());
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = seen.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| sink.lock().unwrap().push(e.to_string())));
    let gpu = Gpu::from_device(device.clone(), queue, info, Duration::from_secs(60)).unwrap();
    let polygons = generate(SceneKind::Crowd, 800, 5);
    let want = reference::detect(&polygons);
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    assert!(seen.lock().unwrap().is_empty(), "satgpu's own work raised errors: {:?}", seen.lock().unwrap());

    // The caller's mistake reaches the caller's handler, and not satgpu's next step.
    callers_mistake(&device);
    assert_eq!(seen.lock().unwrap().len(), 1, "the caller's handler did not see the caller's error");
    let frame = world.step().expect("a step after the caller's own error");
    assert!(compare(&polygons, &frame.contacts, &want).ok());
    // Nor a world created after it.
    let mut second = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    assert_eq!(bits(&second.step().unwrap().contacts), bits(&frame.contacts));
    assert_eq!(seen.lock().unwrap().len(), 1, "satgpu raised errors of its own: {:?}", seen.lock().unwrap());
}

/// Four worlds on one device, each stepped from its own thread at the same time, give the pairs a
/// single thread gives, on every step.
#[test]
fn worlds_on_one_device_stepped_from_four_threads() {
    let gpu = common::gpu().clone();
    let _lock = common::gpu();
    let shapes = generate(SceneKind::Crowd, 8, 11);
    let n = 300;
    let frame_transforms = |world: usize, step: usize| -> Vec<Transform> {
        (0..n)
            .map(|i| {
                let k = (i * 7 + world * 13 + step * 3) % 97;
                Transform {
                    x: (i % 20) as f64 * 2.1 + k as f64 * 0.01,
                    y: (i / 20) as f64 * 2.1,
                    angle: k as f64 * 0.05,
                }
            })
            .collect()
    };
    let bodies: Vec<u32> = (0..n as u32).map(|i| i % 8).collect();
    let steps = 200;
    let run = |w: usize| -> Vec<Vec<Contact>> {
        let mut world = World::new(&gpu, &shapes, &bodies, &WorldOptions::default()).unwrap();
        let mut out = vec![];
        let mut contacts = vec![];
        for step in 0..steps {
            world.set_transforms(&frame_transforms(w, step)).unwrap();
            world.step_into(&mut contacts).unwrap_or_else(|e| panic!("world {w} step {step}: {e}"));
            out.push(contacts.clone());
        }
        out
    };
    let single: Vec<_> = (0..4).map(run).collect();
    let threaded: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|w| s.spawn(move || run(w))).collect();
        handles.into_iter().map(|h| h.join().expect("thread")).collect()
    });
    for w in 0..4 {
        assert!(single[w].iter().any(|c| !c.is_empty()), "the scene has no pairs, so the test proves nothing");
        for step in 0..steps {
            assert_eq!(bits(&threaded[w][step]), bits(&single[w][step]), "world {w} step {step}");
        }
    }
}
