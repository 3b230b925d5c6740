//! Making a world: its packing, the pages its arrays need, its buffers and stages.

use std::borrow::Borrow;
use std::sync::atomic::{AtomicBool, AtomicUsize};

use crate::error::Result;
use crate::geometry::{ContactEvents, Polygon};
use crate::gpu::device::context::Gpu;
use crate::gpu::device::pass::SpanLog;
use crate::gpu::host::events::HostEvents;
use crate::gpu::host::order;
use crate::gpu::host::pack::Packed;
use crate::gpu::kernels::buffers::init;
use crate::gpu::kernels::control;
use crate::gpu::kernels::layout::{GpuContact, GpuManifold, GpuParams};
use crate::gpu::resources::{BodyBuffers, Wiring};
use crate::gpu::stages::readback::Readback;
use crate::gpu::stages::transform::TransformStage;
use crate::gpu::world::bodies::BodyMap;
use crate::gpu::world::fits::{check_bindings, check_memory, entry_paging};
use crate::gpu::world::options::{ContactDetail, ContactOrder, WorldOptions, STRIP_HEIGHT_FACTOR};
use crate::gpu::world::periodic;
use crate::gpu::world::plan::Plans;
use crate::gpu::world::sized::{Capacity, CapacityStages};
use crate::gpu::world::World;

impl World {
    /// One body per polygon: the one-shot case. Each polygon becomes a shape relative to its
    /// first vertex (rounded to f32), and that vertex becomes the body's translation, so the GPU
    /// holds every polygon to the precision of its own size wherever it lies.
    ///
    /// Polygons whose world would not fit in memory are [`Error::NotEnoughMemory`](crate::Error::NotEnoughMemory), before
    /// anything is allocated (see [`memory`](crate::memory)).
    pub fn from_polygons(gpu: &Gpu, polygons: &[Polygon], options: &WorldOptions) -> Result<World> {
        World::from_borrowed(gpu, polygons, options)
    }

    /// [`from_polygons`](World::from_polygons) of polygons borrowed (`&Polygon`) or owned.
    pub(crate) fn from_borrowed<P: Borrow<Polygon> + Sync>(
        gpu: &Gpu,
        polygons: &[P],
        options: &WorldOptions,
    ) -> Result<World> {
        let vertices = polygons.iter().map(|p| p.borrow().vertices().len()).sum();
        check_memory(gpu, polygons.len(), vertices, options)?;
        let packed = match periodic::wrapped(polygons, options.periodic.as_ref()) {
            Some(wrapped) => Packed::from_polygons(&wrapped)?,
            None => Packed::from_polygons(polygons)?,
        };
        World::build(gpu, packed, options, None)
    }

    /// The world of `packed`; with `map`, of bodies of several shapes (their instances packed).
    pub(super) fn build(gpu: &Gpu, mut packed: Packed, options: &WorldOptions, map: Option<BodyMap>) -> Result<World> {
        let margin = gpu_margin(options)?;
        periodic::check_packed(&mut packed, options)?;
        // A margin measures the distance between apart shapes: the narrow phase's rounded variant.
        let (rounded, large) = (packed.rounded || margin > 0.0, packed.large);
        let limits = gpu.device().limits();
        let binding_limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let n = packed.bodies.len();
        let paging = check_bindings(gpu, n as u64, packed.shape_data.len() as u64)?;
        let fold = options
            .max_workgroups_per_dimension
            .unwrap_or(limits.max_compute_workgroups_per_dimension)
            .clamp(1, limits.max_compute_workgroups_per_dimension);
        let strips = options.broad_phase.strips(n);
        let strip_height = options.strip_height.unwrap_or(STRIP_HEIGHT_FACTOR * packed.typical_height) as f32;
        // Per candidate, the largest record is a manifold (32 bytes; a contact takes 24).
        let record = std::mem::size_of::<GpuManifold>().max(std::mem::size_of::<GpuContact>()) as u64;
        let max_candidates = (binding_limit / record).min(u64::from(u32::MAX / 2));
        let candidates = options.candidate_capacity.unwrap_or((6 * n as u32).max(1024));
        let entries = options.entry_capacity.unwrap_or((3 * n as u32).saturating_add(1024));
        let (paging, max_entries) = entry_paging(gpu, paging, u64::from(entries), strips);
        // The handle records with the kernels of this world's pages.
        let gpu = &gpu.paged(paging)?;
        let capacity = Capacity {
            entries: if strips { u64::from(entries).clamp(1, max_entries) as u32 } else { 1 },
            candidates: u64::from(candidates).clamp(1, max_candidates) as u32,
            max_entries,
            max_candidates,
        };
        let mut world = gpu.scoped(|| {
            use wgpu::BufferUsages as U;
            let device = gpu.device();
            let control = control::buffer(device, "satgpu.control", fold);
            let params =
                init(device, "satgpu.params", &[0; std::mem::size_of::<GpuParams>()], U::UNIFORM | U::COPY_DST);
            let bodies = BodyBuffers::new(device, &packed, options.continuous);
            let transform = TransformStage::new(gpu, &params, &bodies, fold);
            let wiring = Wiring { params: &params, control: &control, bodies: &bodies, fold };
            let mut sized = CapacityStages::new(gpu, &wiring, strips, capacity);
            // The GPU's events name instances: in a world of bodies of several shapes the host
            // computes them from the pairs of bodies.
            let events_on_host = map.is_some();
            add_stages(gpu, options, &wiring, &mut sized, events_on_host);
            let mut world = World {
                gpu: gpu.clone(),
                options: options.clone(),
                packed,
                spare: Packed::default(),
                spare_transforms: vec![],
                frame_poses: AtomicBool::new(false),
                uploaded: false,
                order_scratch: order::Scratch::default(),
                raw: vec![],
                view: vec![],
                fold,
                strip_height,
                params,
                control,
                bodies,
                transform,
                sized,
                readback: Readback::new(gpu),
                generation: 0,
                in_flight: None,
                filters: vec![],
                worlds: vec![],
                world_count: 1,
                owners: vec![],
                rounded,
                large,
                margin,
                manifolds: vec![],
                impact_records: vec![],
                impacts: vec![],
                contact_events: options.events.then(ContactEvents::default),
                host_events: (options.events && (options.order == ContactOrder::Host || events_on_host))
                    .then(HostEvents::default),
                parity: AtomicUsize::new(0),
                saved_parity: 0,
                plans: Plans::default(),
                spans: SpanLog::default(),
                poison: false,
                map: None,
                shape_pairs: vec![],
                query_hits: 0,
                turns_fit: false,
            };
            world.replan();
            world.write_params(0);
            world
        })?;
        if let Some(map) = map {
            // Shapes of one body never become candidates: the broad phase drops them with the
            // filters' kernels, which a world of bodies of one shape does not run.
            world.set_owners(map.owners().expect("bodies of several shapes"))?;
            world.map = Some(map);
        }
        Ok(world)
    }
}

/// The margin of `options` as the GPU uses it: rounded up to f32, so that no pair within the
/// margin is lost; the options refused as [`WorldOptions::check`] says.
fn gpu_margin(options: &WorldOptions) -> Result<f32> {
    options.check()?;
    let m = options.margin;
    let f = m as f32;
    Ok(if f64::from(f) < m { f.next_up() } else { f })
}

/// Adds the stages `options` ask for to `sized`: the GPU ordering, the manifolds and the events
/// (not where they have moved to the host, `events_on_host`).
pub(super) fn add_stages(
    gpu: &Gpu,
    options: &WorldOptions,
    wiring: &Wiring<'_>,
    sized: &mut CapacityStages,
    events_on_host: bool,
) {
    let on_gpu = match options.order {
        ContactOrder::Gpu => true,
        ContactOrder::Host => false,
        ContactOrder::Auto => options.events || gpu.adapter_info().device_type != wgpu::DeviceType::Cpu,
    };
    // With the pairs ordered on the host, the host computes the events from them.
    if options.events && on_gpu && !events_on_host {
        sized.add_events(gpu, wiring.fold);
    }
    if on_gpu {
        sized.add_order(gpu, wiring.control, wiring.bodies.len() as usize, wiring.fold);
    }
    if options.contact_detail == ContactDetail::Full {
        sized.add_manifolds(gpu, wiring.params, wiring.bodies);
    }
    if options.continuous {
        sized.add_impacts(gpu, wiring);
    }
}
