//! The one-shot calls: a world made, stepped once and dropped.

use crate::error::Result;
use crate::geometry::{Contact, Filter, Manifold, Polygon};
use crate::gpu::device::context::Gpu;
use crate::gpu::world::options::{ContactDetail, WorldOptions};
use crate::gpu::world::World;

/// Detects every colliding pair among `polygons` on the GPU: the one-shot call.
/// Returns the pairs sorted by (a, b), with a and b indices into `polygons`.
pub fn detect(gpu: &Gpu, polygons: &[Polygon]) -> Result<Vec<Contact>> {
    Ok(World::from_polygons(gpu, polygons, &WorldOptions::default())?.step()?.contacts)
}

/// As [`detect`], with one collision filter per polygon (`filters` empty: the default
/// everywhere): pairs the filters exclude are never reported.
pub fn detect_filtered(gpu: &Gpu, polygons: &[Polygon], filters: &[Filter]) -> Result<Vec<Contact>> {
    let mut world = World::from_polygons(gpu, polygons, &WorldOptions::default())?;
    if !filters.is_empty() {
        world.set_filters(filters)?;
    }
    Ok(world.step()?.contacts)
}

/// As [`detect_filtered`], with [`ContactDetail::Full`]: each pair's manifold and containment
/// flags too, at the same index as its contact.
pub fn detect_full(gpu: &Gpu, polygons: &[Polygon], filters: &[Filter]) -> Result<(Vec<Contact>, Vec<Manifold>)> {
    let options = WorldOptions::default().with_contact_detail(ContactDetail::Full);
    let mut world = World::from_polygons(gpu, polygons, &options)?;
    if !filters.is_empty() {
        world.set_filters(filters)?;
    }
    let frame = world.step()?;
    Ok((frame.contacts, frame.manifolds))
}
