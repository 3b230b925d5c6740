//! Whether a world fits the device: buffer bindings and memory, checked before anything is
//! allocated.

use crate::error::{Error, Result};
use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::bindings::storage_needed;
use crate::gpu::kernels::shaders::{Kind, Pages, Paging};
use crate::gpu::world::options::WorldOptions;
use crate::memory::{self, grouped, SceneSize, Work};

/// What one binding and the storage bindings per stage of `gpu` allow.
struct Room {
    /// Bytes one binding (and one buffer) may hold.
    binding: u64,
    /// Bytes one buffer may hold.
    buffer: u64,
    /// Storage bindings per shader stage.
    storage: u32,
    /// Log2 of the records of a page.
    shift: u32,
}

impl Room {
    fn of(gpu: &Gpu) -> Room {
        let limits = gpu.device().limits();
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        Room {
            binding,
            buffer: limits.max_buffer_size,
            storage: limits.max_storage_buffers_per_shader_stage,
            shift: Pages::shift_for(binding),
        }
    }

    /// The pages of `records` 16-byte records.
    fn pages(&self, records: u64) -> Pages {
        Pages::of(records, self.binding / 16, self.shift)
    }

    fn fits(&self, paging: Paging) -> bool {
        storage_needed(paging) <= self.storage
    }
}

/// How a world of `bodies` bodies and `records` shape records (vertices, and one more per shape
/// of more than 8) binds them on `gpu`: each 16-byte array in one binding, or past it in pages,
/// as many as the device's storage bindings per shader stage leave room for (strip entries in
/// one binding here; see [`entry_paging`]). [`Error::TooLarge`](crate::Error::TooLarge) where
/// they do not fit those, one buffer, or (bodies) one binding of 4-byte records.
pub(super) fn check_bindings(gpu: &Gpu, bodies: u64, records: u64) -> Result<Paging> {
    let room = Room::of(gpu);
    if bodies >= (1 << 31) {
        return Err(Error::TooLarge { what: "bodies", needed: bodies, limit: 1 << 31 });
    }
    let paging = Paging { shapes: room.pages(records), instances: room.pages(bodies), entries: Pages::ONE };
    // What the pages allow: as many as fit beside the other arrays' pages, and one buffer.
    let limit = |what: Kind| {
        let most = (1..=64)
            .take_while(|&count| {
                let pages = if count == 1 { Pages::ONE } else { Pages { count, shift: room.shift } };
                room.fits(match what {
                    Kind::Shapes => Paging { shapes: pages, ..paging },
                    _ => Paging { instances: pages, ..paging },
                })
            })
            .last()
            .unwrap_or(1);
        let paged = if most == 1 { room.binding } else { u64::from(most) << (room.shift + 4) };
        paged.min(room.buffer)
    };
    let needed = records.saturating_mul(16);
    if paging.shapes != Pages::ONE && (!room.fits(paging) || needed > room.buffer) {
        return Err(Error::TooLarge { what: "shape vertices", needed, limit: limit(Kind::Shapes) });
    }
    // Per body, 4-byte arrays (the entries' counts) stay in one binding.
    let needed = 16 * bodies;
    if paging.instances != Pages::ONE && (!room.fits(paging) || needed > room.buffer || 4 * bodies > room.binding) {
        return Err(Error::TooLarge { what: "AABBs", needed, limit: limit(Kind::Instances).min(4 * room.binding) });
    }
    Ok(paging)
}

/// `paging` with the strip entries' pages for a capacity of `entries` (`strips`; without strips
/// the ray casts read the bodies' AABBs where they would read entries), and the most entries
/// `gpu` binds beside the other arrays' pages: the sweep's 8 bytes per entry (counts and cursors)
/// in one binding, 16-byte records in pages and one buffer.
pub(super) fn entry_paging(gpu: &Gpu, paging: Paging, entries: u64, strips: bool) -> (Paging, u64) {
    let room = Room::of(gpu);
    let most = (2..=64)
        .take_while(|&count| room.fits(Paging { entries: Pages { count, shift: room.shift }, ..paging }))
        .last()
        .map_or(room.binding / 16, |count| u64::from(count) << room.shift);
    // The sweep's counts and (on software adapters) its cursors share one binding: 8 bytes.
    let max_entries = most.min(room.binding / 8 - 1).min(room.buffer / 16).min(u64::from(u32::MAX / 2));
    let entries = if strips { room.pages(entries.min(max_entries)) } else { paging.instances };
    (Paging { entries, ..paging }, max_entries)
}

/// Whether `work` on a scene of `size` fits `gpu`, checked before anything is allocated: the
/// buffer bindings a world's bodies and vertices need ([`Error::TooLarge`](crate::Error::TooLarge)) and the memory of
/// [`memory::estimate`] against what `gpu` may use ([`Error::NotEnoughMemory`](crate::Error::NotEnoughMemory), naming `what`).
/// Every [`World`](crate::gpu::World) checks its own size; call this before work that comes first, such as
/// generating or reading the scene.
pub fn check_fits(gpu: &Gpu, size: SceneSize, work: Work, what: impl Fn() -> String) -> Result<()> {
    gpu.check_memory(what, memory::estimate(size, work))?;
    if work.world {
        check_bindings(gpu, size.bodies, size.vertices)?;
    }
    Ok(())
}

/// [`check_fits`] for a world of `bodies` bodies and `vertices` shape vertices, with the
/// capacities `options` ask for.
pub(super) fn check_memory(gpu: &Gpu, bodies: usize, vertices: usize, options: &WorldOptions) -> Result<()> {
    let size = SceneSize {
        bodies: bodies as u64,
        vertices: vertices as u64,
        candidates: options.candidate_capacity.map_or(0, u64::from),
    };
    let work = Work { continuous: options.continuous, ..Work::WORLD };
    check_fits(gpu, size, work, || format!("{} bodies", grouped(size.bodies)))
}
