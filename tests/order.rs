//! Ordering by (a, b) on the GPU ([`ContactOrder::Gpu`]) against the host's ordering: the same
//! pairs in the same order with the same bits, through the f64 and the f32 APIs, with manifolds,
//! in batches, past 65,536 bodies (two sorts) and in pile-ups (long runs of one `a`), on the
//! software adapter's own tuning and on the tuning for GPUs; and the GPU-resident contacts buffer
//! sorted as it lies.

mod common;

use common::{bits, read_back, small_device};
use satgpu::gpu::layout::GpuContact;
use satgpu::gpu::{ContactDetail, ContactOrder, Gpu, World, WorldOptions};
use satgpu::scene::{generate, SceneKind};
use satgpu::validate;

use satgpu::DetectOptions;
use satgpu::{reference, Contact, Manifold, Polygon, Transform};

/// One frame through the f64 API, then the next through the f32 API, then one lent as a view:
/// the same records as the f32 API, from the mapped memory exactly when the GPU ordered them in
/// one batch.
fn both_apis(
    gpu: &Gpu,
    polygons: &[Polygon],
    options: &WorldOptions,
) -> (Vec<Contact>, Vec<Manifold>, Vec<GpuContact>) {
    let mut world = World::from_polygons(gpu, polygons, options).expect("world");
    let frame = world.step().expect("frame");
    let mut raw = vec![];
    world.step_f32_into(&mut raw).expect("f32 frame");
    let on_gpu = world.orders_on_gpu();
    let view = world.step_view().expect("lent frame");
    assert_eq!(f32_bits(&view), f32_bits(&raw), "the view differs from the f32 records");
    assert_eq!(view.manifolds(), &frame.manifolds[..], "the view's manifolds differ");
    assert_eq!(view.stats().colliding as usize, view.len());
    assert_eq!(view.is_mapped(), on_gpu && view.stats().batches == 1, "{view:?}, {:?}", view.stats());
    drop(view);
    (frame.contacts, frame.manifolds, raw)
}

fn f32_bits(contacts: &[GpuContact]) -> Vec<(u32, u32, u32, u32, u32)> {
    contacts.iter().map(|c| (c.a, c.b, c.normal_x.to_bits(), c.normal_y.to_bits(), c.depth.to_bits())).collect()
}

/// Host and GPU ordering agree bit for bit, through both APIs; the f32 records are the f64
/// contacts before their conversion; the pairs agree with the reference.
fn orders_agree(gpu: &Gpu, polygons: &[Polygon], detail: ContactDetail, what: &str) -> usize {
    let options = WorldOptions::default().with_contact_detail(detail);
    let (host, host_manifolds, host_raw) = both_apis(gpu, polygons, &options.clone().with_order(ContactOrder::Host));
    let (on_gpu, gpu_manifolds, gpu_raw) = both_apis(gpu, polygons, &options.with_order(ContactOrder::Gpu));
    assert_eq!(bits(&on_gpu), bits(&host), "{what}: GPU and host ordering differ");
    assert_eq!(gpu_manifolds, host_manifolds, "{what}: manifolds differ");
    assert_eq!(f32_bits(&gpu_raw), f32_bits(&host_raw), "{what}: f32 records differ");
    assert!(host.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)), "{what}: not sorted by (a, b)");
    let widened: Vec<Contact> = host_raw
        .iter()
        .map(|c| Contact { a: c.a, b: c.b, normal: [c.normal_x.into(), c.normal_y.into()], depth: c.depth.into() })
        .collect();
    assert_eq!(bits(&widened), bits(&host), "{what}: f32 records are not the f64 contacts");
    assert!(host_raw.iter().all(|c| c.normal_x.to_bits() != 1 << 31 && c.normal_y.to_bits() != 1 << 31));
    if detail == ContactDetail::Full {
        assert_eq!(host_manifolds.len(), host.len(), "{what}: one manifold per contact");
    }
    let report = validate::compare(
        polygons,
        &host,
        &reference::detect(polygons, &DetectOptions::default()).contacts,
        &DetectOptions::default(),
    );
    assert!(report.ok(), "{what}: {} disagreements", report.disagreements.len());
    host.len()
}

#[test]
fn gpu_and_host_ordering_give_the_same_bits_on_every_kind() {
    let gpu = common::gpu();
    for kind in SceneKind::ALL {
        // 16 bodies: 8-bit keys; 700: 24-bit keys (one sort each).
        for n in [16, 700] {
            let pairs = orders_agree(&gpu, &generate(kind, n, 11), ContactDetail::Basic, &format!("{kind} n={n}"));
            assert!(n == 16 || pairs > 0, "{kind} n={n}: no pairs to order");
        }
    }
    orders_agree(&gpu, &generate(SceneKind::Shapes, 500, 2), ContactDetail::Full, "shapes with manifolds");
    orders_agree(&gpu, &[], ContactDetail::Basic, "no polygons");
    drop(gpu);
    let tuned = common::gpu_tuned_for_gpus();
    orders_agree(&tuned, &generate(SceneKind::Mixed, 700, 4), ContactDetail::Full, "mixed, tuned for GPUs");
}

/// Past 65,536 bodies a key cannot hold both indices: a sort by b, then a stable one by a. A
/// stack of 400 squares on one spot gives runs of up to 399 pairs with one `a`.
#[test]
fn two_sorts_past_65536_bodies_and_long_runs_in_a_pile_up() {
    let gpu = common::gpu();
    let mut crowd = generate(SceneKind::Crowd, 70_000, 3);
    let square = Polygon::new(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]).unwrap();
    let stack: Vec<Polygon> = (0..400)
        .map(|i| square.transformed(&Transform { x: 1e4 + (i % 3) as f64 * 0.01, y: 0.0, angle: 0.0 }))
        .collect();
    crowd.extend(stack);
    let pairs = orders_agree(&gpu, &crowd, ContactDetail::Basic, "crowd of 70,400 with a stack");
    assert!(pairs > 400 * 399 / 2, "{pairs} pairs: the stack's 79,800 are missing");
}

/// More candidates than a 1 MiB binding holds run in batches, each ordered on the GPU and merged
/// on the host: the same bits as one unbatched frame.
#[test]
fn batches_ordered_on_the_gpu_merge_to_the_unbatched_order() {
    let lock = common::gpu();
    let small = small_device();
    let polygons = generate(SceneKind::Pile, 6000, 3);
    let gpu_order = WorldOptions::default().with_order(ContactOrder::Gpu);
    let (want, _, want_raw) = both_apis(&lock, &polygons, &gpu_order);
    let mut world = World::from_polygons(&small, &polygons, &gpu_order).unwrap();
    let frame = world.step().unwrap();
    assert!(frame.stats.batches > 1, "{} candidates ran in one batch", frame.stats.candidates);
    assert_eq!(bits(&frame.contacts), bits(&want));
    let mut raw = vec![];
    world.step_f32_into(&mut raw).unwrap();
    assert_eq!(f32_bits(&raw), f32_bits(&want_raw));
    let view = world.step_view().unwrap();
    assert!(!view.is_mapped(), "batches merged on the host cannot be lent from one mapping");
    assert_eq!(f32_bits(&view), f32_bits(&want_raw));
}

/// With the ordering on the GPU, the contacts buffer of a frame left on the GPU is already
/// sorted by (a, b): the same records the f32 API reads back.
#[test]
fn the_resident_contacts_buffer_is_sorted() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Clustered, 3000, 8);
    let mut world =
        World::from_polygons(&gpu, &polygons, &WorldOptions::default().with_order(ContactOrder::Gpu)).unwrap();
    let mut want = vec![];
    world.step_f32_into(&mut want).unwrap();
    assert!(want.len() > 1000, "{} pairs", want.len());
    world.dispatch().unwrap();
    let totals: Vec<u32> = bytemuck::pod_collect_to_vec(&read_back(&gpu, world.totals_buffer(), 32));
    assert_eq!(totals[2] as usize, want.len());
    let resident: Vec<GpuContact> =
        bytemuck::pod_collect_to_vec(&read_back(&gpu, world.contacts_buffer(), 24 * u64::from(totals[2])));
    assert_eq!(f32_bits(&resident), f32_bits(&want));
    assert!(resident.windows(2).all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
    assert!(world.passes().iter().any(|p| p.name() == "order"));
}

/// A world that starts too small grows its buffers, the ordering's with them, and reruns; a world
/// rebuilt by `set_polygons` with another body count gets the key layout of its new size.
#[test]
fn the_ordering_grows_and_follows_the_body_count() {
    let gpu = common::gpu();
    let polygons = generate(SceneKind::Dense, 3000, 6);
    let small = WorldOptions::default().with_order(ContactOrder::Gpu).with_candidate_capacity(64);
    let mut world = World::from_polygons(&gpu, &polygons, &small).unwrap();
    let frame = world.step().unwrap();
    assert!(frame.stats.reruns > 0 && world.generation() > 0, "the buffers never grew");
    let (want, _) = common::gpu_contacts(&gpu, &polygons, &WorldOptions::default().with_order(ContactOrder::Host));
    assert_eq!(bits(&frame.contacts), bits(&want));
    // From 3,000 bodies (24-bit keys, one sort) to 300 (24-bit) and to 20 (16-bit).
    for n in [300, 20] {
        let fewer = generate(SceneKind::Dense, n, 7);
        world.set_polygons(&fewer).unwrap();
        assert!(world.orders_on_gpu());
        let (want, _) = common::gpu_contacts(&gpu, &fewer, &WorldOptions::default().with_order(ContactOrder::Host));
        assert_eq!(bits(&world.step().unwrap().contacts), bits(&want), "n={n}");
    }
}
