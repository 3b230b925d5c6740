//! The buffers the stages of a frame read and write, made here, below the stages, and handed to
//! each stage by the one place that wires the frame (`world/`): no stage names another.
//!
//! - [`BodyBuffers`]: per body, made once per world from its packing;
//! - [`StripBuffers`]: per strip entry, sized by the entry capacity;
//! - [`PairBuffers`]: per candidate pair, sized by the candidate capacity.

use crate::gpu::host::pack::{Packed, Staging};
use crate::gpu::kernels::buffers::{init, storage, write_parallel};
use crate::gpu::kernels::layout::{GpuContact, GpuInstance};
use crate::gpu::kernels::shared::LARGE_LIST;

/// What every stage binds or dispatches by: the per-world constants, the control buffer, the
/// number of bodies and the fold width.
pub(crate) struct Wiring<'a> {
    /// `GpuParams` (uniform).
    pub params: &'a wgpu::Buffer,
    /// The counts and indirect arguments only the GPU knows during a frame (`control`).
    pub control: &'a wgpu::Buffer,
    pub bodies: &'a BodyBuffers,
    /// Most workgroups per dispatch row.
    pub fold: u32,
}

/// Per body: written by the host (shapes, transforms, filters) and by the transform stage
/// (AABBs, bounds), read by the broad phase, the narrow phase and the manifolds.
pub(crate) struct BodyBuffers {
    /// Where each body finds its shape (`Body` in the shaders).
    pub bodies: wgpu::Buffer,
    /// Shape vertices and edge normals, local.
    pub shapes: wgpu::Buffer,
    /// Per body, its core's box in local coordinates (min.xy, max.xy).
    pub boxes: wgpu::Buffer,
    /// Per body (x, y, cos, sin).
    pub transforms: wgpu::Buffer,
    /// With [`WorldOptions::continuous`](crate::gpu::WorldOptions::continuous), per body its pose
    /// at the start of the frame, (x, y, cos, sin): the last frame's poses.
    pub starts: Option<wgpu::Buffer>,
    /// With continuous collision, the poses a frame read back ran with, copied there by its own
    /// commands (a pose uploaded while it runs waits for the next), and from there to `starts`
    /// once it is collected.
    pub ends: Option<wgpu::Buffer>,
    /// Per body world AABB (min.xy, max.xy).
    pub aabbs: wgpu::Buffer,
    /// Scene bounds as sortable u32 (~min.x, ~min.y, max.x, max.y).
    pub bounds: wgpu::Buffer,
    /// Per body collision filter (category, mask, group, 0), read by the broad phase only when
    /// some filter differs from the default.
    pub filters: wgpu::Buffer,
    /// Per body world (`World::set_worlds`), read by the broad phase only where there are
    /// several; as many as one binding holds (the world refuses worlds for more bodies).
    pub worlds: wgpu::Buffer,
    n: u32,
}

impl BodyBuffers {
    /// `continuous`: with a buffer of start poses, the transforms at first.
    pub fn new(device: &wgpu::Device, packed: &Packed, continuous: bool) -> BodyBuffers {
        use wgpu::BufferUsages as U;
        let n = packed.bodies.len();
        let worlds_bytes = device.limits().max_storage_buffer_binding_size & !3;
        BodyBuffers {
            bodies: init(
                device,
                "satgpu.bodies",
                bytemuck::cast_slice::<GpuInstance, u8>(&packed.bodies),
                U::STORAGE | U::COPY_DST,
            ),
            filters: storage(device, "satgpu.filters", 16 * n.max(1) as u64, U::COPY_DST),
            worlds: storage(
                device,
                "satgpu.worlds",
                (4 * n.max(1) as u64).min(worlds_bytes),
                U::COPY_DST | U::COPY_SRC,
            ),
            transforms: init(
                device,
                "satgpu.transforms",
                bytemuck::cast_slice(&packed.transforms),
                U::STORAGE | U::COPY_DST | U::COPY_SRC,
            ),
            starts: continuous.then(|| {
                init(device, "satgpu.starts", bytemuck::cast_slice(&packed.transforms), U::STORAGE | U::COPY_DST)
            }),
            ends: continuous.then(|| {
                init(device, "satgpu.ends", bytemuck::cast_slice(&packed.transforms), U::COPY_SRC | U::COPY_DST)
            }),
            shapes: init(device, "satgpu.shapes", bytemuck::cast_slice(&packed.shape_data), U::STORAGE | U::COPY_DST),
            boxes: init(device, "satgpu.boxes", bytemuck::cast_slice(&packed.boxes), U::STORAGE | U::COPY_DST),
            aabbs: storage(device, "satgpu.aabbs", 16 * n as u64, U::COPY_SRC),
            bounds: storage(device, "satgpu.bounds", 16, U::COPY_DST),
            n: n as u32,
        }
    }

    /// Overwrites the vertex data, radii and transforms of a layout with the same bodies, each
    /// copied into the staging memory on every core.
    pub fn write(&self, queue: &wgpu::Queue, packed: &Packed) {
        write_parallel(queue, &self.bodies, bytemuck::cast_slice(&packed.bodies));
        write_parallel(queue, &self.shapes, bytemuck::cast_slice(&packed.shape_data));
        write_parallel(queue, &self.boxes, bytemuck::cast_slice(&packed.boxes));
        write_parallel(queue, &self.transforms, bytemuck::cast_slice(&packed.transforms));
        if let Some(starts) = &self.starts {
            write_parallel(queue, starts, bytemuck::cast_slice(&packed.transforms));
        }
    }

    /// The staging memory of every buffer [`write`](BodyBuffers::write) overwrites, for a layout
    /// of `records` shape records. None where there are no bodies or wgpu refuses one (those it
    /// gave are then written at the next submission as they are: the caller writes every buffer
    /// after them).
    pub fn staging_views(&self, queue: &wgpu::Queue, records: usize) -> Option<StagingViews> {
        let n = u64::from(self.n);
        let view =
            |buffer: &wgpu::Buffer, len: u64| queue.write_buffer_with(buffer, 0, std::num::NonZeroU64::new(16 * len)?);
        let mut transforms = vec![view(&self.transforms, n)?];
        if let Some(starts) = &self.starts {
            transforms.push(view(starts, n)?);
        }
        Some(StagingViews {
            shapes: view(&self.shapes, records as u64)?,
            bodies: view(&self.bodies, n)?,
            boxes: view(&self.boxes, n)?,
            transforms,
        })
    }

    /// The start poses: with continuous collision their own buffer, otherwise the transforms
    /// (every body still).
    pub fn starts(&self) -> &wgpu::Buffer {
        self.starts.as_ref().unwrap_or(&self.transforms)
    }

    /// Number of bodies.
    pub fn len(&self) -> u32 {
        self.n
    }
}

/// wgpu's staging memory of the per-body buffers, written at the next submission once dropped.
pub(crate) struct StagingViews {
    pub shapes: wgpu::QueueWriteBufferView,
    pub bodies: wgpu::QueueWriteBufferView,
    pub boxes: wgpu::QueueWriteBufferView,
    /// The transforms' and, with continuous collision, the start poses'.
    pub transforms: Vec<wgpu::QueueWriteBufferView>,
}

impl StagingViews {
    /// The memory to write.
    pub fn staging(&mut self) -> Staging<'_> {
        Staging {
            shapes: self.shapes.slice(..),
            bodies: self.bodies.slice(..),
            boxes: self.boxes.slice(..),
            transforms: self.transforms.iter_mut().map(|v| v.slice(..)).collect(),
        }
    }
}

/// Per strip entry: written by the entries stage, sorted by the sort stage, swept by the sweep.
pub(crate) struct StripBuffers {
    /// Sort keys (strip, then quantised min.x).
    pub keys: wgpu::Buffer,
    /// Bodies.
    pub values: wgpu::Buffer,
    /// The AABB of each sorted entry, gathered by the sort.
    pub boxes: wgpu::Buffer,
    /// Entries the buffers hold.
    pub capacity: u32,
}

impl StripBuffers {
    pub fn new(device: &wgpu::Device, capacity: u32) -> StripBuffers {
        let n = u64::from(capacity);
        StripBuffers {
            keys: storage(device, "satgpu.entries.keys", 4 * n, wgpu::BufferUsages::COPY_SRC),
            values: storage(device, "satgpu.entries.values", 4 * n, wgpu::BufferUsages::COPY_SRC),
            boxes: storage(device, "satgpu.entries.boxes", 16 * n, wgpu::BufferUsages::empty()),
            capacity,
        }
    }
}

/// Bytes of scratch the narrow phase needs for `capacity` candidates: its list of large pairs.
pub(crate) fn narrow_scratch_bytes(capacity: u64) -> u64 {
    4 * (u64::from(LARGE_LIST) + capacity)
}

/// Per candidate pair: the candidates (broad phase), their SAT results and flags (narrow
/// phase), the colliding pairs and their dispatch arguments (compaction, ordering).
pub(crate) struct PairBuffers {
    /// Candidate pairs `(a, b)`: written by the broad phase, read by the narrow phase.
    pub candidates: wgpu::Buffer,
    /// Per candidate: (normal.xy, depth, hit).
    pub results: wgpu::Buffer,
    /// Per candidate: 1 if the pair collides; scanned in place by the compaction into each
    /// colliding pair's offset.
    pub flags: wgpu::Buffer,
    /// Colliding pairs as `GpuContact`, in candidate order (or sorted by the ordering); until the
    /// compaction writes them, the narrow phase's list of large pairs.
    pub contacts: wgpu::Buffer,
    /// Indirect arguments (x, y, z) of a 64-wide pass over the colliding pairs, then the
    /// colliding count; cleared (no dispatch) before each frame, written by the compaction's last
    /// invocation.
    pub args: wgpu::Buffer,
    /// Candidates the buffers hold.
    pub capacity: u32,
}

impl PairBuffers {
    pub fn new(device: &wgpu::Device, capacity: u32) -> PairBuffers {
        use wgpu::BufferUsages as U;
        let pairs = u64::from(capacity);
        let record = std::mem::size_of::<GpuContact>() as u64;
        PairBuffers {
            candidates: storage(device, "satgpu.candidates", 8 * pairs, U::COPY_SRC),
            contacts: storage(
                device,
                "satgpu.contacts",
                (record * pairs).max(narrow_scratch_bytes(pairs)),
                U::COPY_SRC,
            ),
            results: storage(device, "satgpu.sat.results", 16 * pairs, U::empty()),
            flags: storage(device, "satgpu.sat.flags", 4 * pairs, U::empty()),
            args: storage(device, "satgpu.contacts.args", 16, U::COPY_SRC | U::COPY_DST | U::INDIRECT),
            capacity,
        }
    }
}
