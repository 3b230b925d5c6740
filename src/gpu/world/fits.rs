//! Whether a world fits the device: buffer bindings and memory, checked before anything is
//! allocated.

use crate::error::{Error, Result};
use crate::gpu::device::context::Gpu;
use crate::gpu::kernels::shaders::Pages;
use crate::gpu::world::options::WorldOptions;
use crate::memory::{self, grouped, SceneSize, Work};

/// The most storage bindings of a kernel that reads the packed shapes, their first page among
/// them (sat.wgsl, query.wgsl, ray.wgsl): each page after the first takes one more.
const SHAPE_KERNEL_STORAGE: u32 = 8;

/// How `records` shape records (vertices, and one more per shape of more than 8) are bound on
/// `gpu`: in one binding, or in as many pages as the device's storage bindings per shader
/// stage leave room for. [`Error::TooLarge`](crate::Error::TooLarge) where they do not fit
/// those, or `bodies` bodies do not fit one binding of AABBs.
pub(super) fn check_bindings(gpu: &Gpu, bodies: u64, records: u64) -> Result<Pages> {
    let limits = gpu.device().limits();
    let binding_limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
    if bodies >= (1 << 31) {
        return Err(Error::TooLarge { what: "bodies", needed: bodies, limit: 1 << 31 });
    }
    let shift = Pages::shift_for(binding_limit);
    let pages = Pages::of(records, binding_limit / 16, shift);
    let most = (limits.max_storage_buffers_per_shader_stage + 1).saturating_sub(SHAPE_KERNEL_STORAGE).max(1);
    if pages.count > most {
        let limit = if most == 1 { binding_limit } else { u64::from(most) * (16 << shift) };
        return Err(Error::TooLarge { what: "shape vertices", needed: records.saturating_mul(16), limit });
    }
    if 16 * bodies > binding_limit {
        return Err(Error::TooLarge { what: "AABBs", needed: 16 * bodies, limit: binding_limit });
    }
    Ok(pages)
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
    check_fits(gpu, size, Work::WORLD, || format!("{} bodies", grouped(size.bodies)))
}
