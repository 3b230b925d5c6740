//! Devices: adapters that cannot run satgpu, devices the caller owns (their error handlers stay
//! theirs, their own errors stay out of satgpu's results), and several worlds on one device
//! stepped from several threads at once.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{bits, caller_device, satgpu_limits};
use satgpu::gpu::{self, Gpu, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::validate;

use satgpu::DetectOptions;
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

/// An adapter description as wgpu would report it.
fn adapter(name: &str, backend: wgpu::Backend, driver_info: &str) -> wgpu::AdapterInfo {
    wgpu::AdapterInfo {
        name: name.into(),
        driver_info: driver_info.into(),
        ..wgpu::AdapterInfo::new(wgpu::DeviceType::Other, backend)
    }
}

/// Issue 22: NVIDIA's EGL gives wgpu a desktop OpenGL 3.3 context, and wgpu reports compute
/// shaders there (the driver has GL_ARB_compute_shader) but cannot translate one to GLSL 3.30.
/// Such an adapter, and any without compute shaders, indirect dispatch or the storage buffers
/// satgpu needs, is named with its reason, from fake descriptions since CI has none of them.
#[test]
fn adapters_that_cannot_run_satgpu_are_named_with_the_reason() {
    let all = wgpu::DownlevelCapabilities::default();
    let roomy = wgpu::Limits { max_storage_buffers_per_shader_stage: 16, ..wgpu::Limits::downlevel_defaults() };
    let nvidia_gl = adapter("NVIDIA H100 80GB HBM3/PCIe/SSE2", wgpu::Backend::Gl, "3.3.0 NVIDIA 580.159.04");
    let reason = gpu::unsuitable_reason(&nvidia_gl, &all, &roomy).expect("GL 3.3 refused");
    assert!(reason.contains("OpenGL 3.3 cannot run compute shaders") && reason.contains("use Vulkan"), "{reason}");
    let old_es = adapter("Mali", wgpu::Backend::Gl, "OpenGL ES 3.0 v1.r32p1");
    assert!(gpu::unsuitable_reason(&old_es, &all, &roomy).unwrap().contains("OpenGL ES 3.0"));
    // What lavapipe's GL sibling and a GLES 3.1 driver report are fine, as is Vulkan.
    for ok in [
        adapter("llvmpipe (LLVM 15.0.6, 256 bits)", wgpu::Backend::Gl, "4.5 (Core Profile) Mesa 22.3.6"),
        adapter("Mali-G78", wgpu::Backend::Gl, "OpenGL ES 3.2 v1.r32p1"),
        adapter("NVIDIA H100 80GB HBM3", wgpu::Backend::Vulkan, "580.159.04"),
    ] {
        assert_eq!(gpu::unsuitable_reason(&ok, &all, &roomy), None, "{ok:?}");
    }
    let vulkan = adapter("NVIDIA H100 80GB HBM3", wgpu::Backend::Vulkan, "580.159.04");
    let no_compute = wgpu::DownlevelCapabilities {
        flags: wgpu::DownlevelFlags::all() - wgpu::DownlevelFlags::COMPUTE_SHADERS,
        ..all.clone()
    };
    assert_eq!(gpu::unsuitable_reason(&vulkan, &no_compute, &roomy).as_deref(), Some("it has no compute shaders"));
    let no_indirect = wgpu::DownlevelCapabilities {
        flags: wgpu::DownlevelFlags::all() - wgpu::DownlevelFlags::INDIRECT_EXECUTION,
        ..all.clone()
    };
    assert_eq!(gpu::unsuitable_reason(&vulkan, &no_indirect, &roomy).as_deref(), Some("it has no indirect dispatch"));
    let few = wgpu::Limits::downlevel_defaults();
    let reason = gpu::unsuitable_reason(&vulkan, &all, &few).unwrap();
    assert_eq!(reason, "it allows 4 storage buffers per shader stage, satgpu needs 7");
    let small = wgpu::Limits { max_compute_invocations_per_workgroup: 64, ..roomy };
    let reason = gpu::unsuitable_reason(&vulkan, &all, &small).unwrap();
    assert_eq!(reason, "its max_compute_invocations_per_workgroup is 64, satgpu needs 256");
    // The error a caller gets says so in one line, naming the adapter.
    let e = Error::UnsuitableAdapter { adapter: gpu::describe_adapter(&nvidia_gl), reason: "x".into() };
    assert!(e.to_string().starts_with("adapter \"NVIDIA H100 80GB HBM3/PCIe/SSE2 (Gl, Other"), "{e}");
}

/// A device the caller opened on such an adapter is refused the same way by `from_device`: a
/// real device whose description claims OpenGL 3.3.
#[test]
fn from_device_refuses_a_gl_33_description() {
    let _lock = common::gpu();
    let (device, queue, _) = caller_device(satgpu_limits());
    let claimed = adapter("NVIDIA H100 80GB HBM3/PCIe/SSE2", wgpu::Backend::Gl, "3.3.0 NVIDIA 580.159.04");
    match Gpu::from_device(device, queue, claimed, Duration::from_secs(60)) {
        Err(Error::UnsuitableAdapter { reason, .. }) => assert!(reason.contains("OpenGL 3.3"), "{reason}"),
        other => panic!("expected UnsuitableAdapter, got {other:?}"),
    }
}

#[test]
fn works_on_a_device_the_caller_owns() {
    let _lock = common::gpu();
    let (device, queue, info) = caller_device(satgpu_limits());
    let own = Gpu::from_device(device, queue, info, Duration::from_secs(60)).unwrap();
    let polygons = generate(SceneKind::Crowd, 500, 2);
    let got = gpu::detect(&own, &polygons, &DetectOptions::default()).map(|f| f.contacts).unwrap();
    assert!(validate::compare(
        &polygons,
        &got,
        &reference::detect(&polygons, &DetectOptions::default()).contacts,
        &DetectOptions::default()
    )
    .ok());
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
    let want = reference::detect(&polygons, &DetectOptions::default()).contacts;
    let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default()).unwrap();
    assert!(seen.lock().unwrap().is_empty(), "satgpu's own work raised errors: {:?}", seen.lock().unwrap());

    // The caller's mistake reaches the caller's handler, and not satgpu's next step.
    callers_mistake(&device);
    assert_eq!(seen.lock().unwrap().len(), 1, "the caller's handler did not see the caller's error");
    let frame = world.step().expect("a step after the caller's own error");
    assert!(validate::compare(&polygons, &frame.contacts, &want, &DetectOptions::default()).ok());
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
