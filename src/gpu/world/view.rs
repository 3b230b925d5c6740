//! A frame's contacts lent rather than copied: the mapped readback memory itself when the GPU
//! sorted them.

use crate::error::Result;
use crate::geometry::Manifold;
use crate::gpu::host::order;
use crate::gpu::kernels::layout::GpuContact;
use crate::gpu::stages::readback::Mapped;
use crate::gpu::world::options::FrameStats;
use crate::gpu::world::World;

/// A frame's contacts as f32 [`GpuContact`] records sorted by (a, b), lent by
/// [`World::step_view`]: it derefs to `&[GpuContact]`. With the ordering on the GPU
/// ([`ContactOrder::Gpu`](crate::gpu::ContactOrder::Gpu), the default on GPUs) and the
/// candidates in one binding, the slice is the mapped readback memory itself and the host copies
/// nothing; otherwise it is a vector the world keeps and reuses. The world is borrowed until the
/// view is dropped, which unmaps the memory.
pub struct ContactView<'w> {
    mapped: Option<Mapped>,
    host: &'w [GpuContact],
    shapes: &'w [[u32; 2]],
    manifolds: &'w [Manifold],
    stats: FrameStats,
}

impl ContactView<'_> {
    /// The frame's figures, as [`World::step`] reports them.
    pub fn stats(&self) -> &FrameStats {
        &self.stats
    }

    /// The frame's manifolds, at the index of their contacts
    /// ([`ContactDetail::Full`](crate::gpu::ContactDetail::Full); empty otherwise).
    pub fn manifolds(&self) -> &[Manifold] {
        self.manifolds
    }

    /// The frame's shape pairs, at the index of their pairs of bodies (see
    /// [`Frame::shapes`](crate::gpu::Frame::shapes); empty when every body has one shape).
    pub fn shapes(&self) -> &[[u32; 2]] {
        self.shapes
    }

    /// Whether the records are the mapped readback memory (nothing copied on the host).
    pub fn is_mapped(&self) -> bool {
        self.mapped.is_some()
    }
}

impl std::ops::Deref for ContactView<'_> {
    type Target = [GpuContact];

    fn deref(&self) -> &[GpuContact] {
        match &self.mapped {
            Some(mapped) => mapped.aligned().expect("checked when the view was made"),
            None => self.host,
        }
    }
}

impl std::fmt::Debug for ContactView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContactView").field("contacts", &self.len()).field("mapped", &self.is_mapped()).finish()
    }
}

impl World {
    /// As [`step_f32_into`](World::step_f32_into), lending the records instead of copying them
    /// (see [`ContactView`]): the cheapest way to read a frame's pairs on the host.
    pub fn step_view(&mut self) -> Result<ContactView<'_>> {
        self.submit()?;
        self.collect_view()
    }

    /// As [`collect_f32_into`](World::collect_f32_into), lending the records (see [`ContactView`]).
    pub fn collect_view(&mut self) -> Result<ContactView<'_>> {
        let mut host = std::mem::take(&mut self.view);
        let collected = self.collect_sink(&mut host, true);
        self.view = host;
        let (stats, mapped) = collected?;
        let mapped = match mapped {
            Some(m) if m.aligned::<GpuContact>().is_none() => {
                order::copy_records(&m.records(), &mut self.view)?;
                None
            }
            kept => kept,
        };
        Ok(ContactView { mapped, host: &self.view, shapes: &self.shape_pairs, manifolds: &self.manifolds, stats })
    }
}
