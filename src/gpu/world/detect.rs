//! The one-shot calls: a world made, stepped once and dropped.

use crate::error::Result;
use crate::geometry::{Contact, Filter, Manifold, Polygon};
use crate::gpu::device::context::Gpu;
use crate::gpu::world::options::{ContactDetail, Frame, WorldOptions};
use crate::gpu::world::World;

/// Detects every colliding pair among `polygons` on the GPU: the one-shot call.
/// Returns the pairs sorted by (a, b), with a and b indices into `polygons`.
pub fn detect(gpu: &Gpu, polygons: &[Polygon]) -> Result<Vec<Contact>> {
    Ok(World::from_polygons(gpu, polygons, &WorldOptions::default())?.step()?.contacts)
}

/// As [`detect`], with one collision filter per polygon (`filters` empty: the default
/// everywhere): pairs the filters exclude are never reported.
pub fn detect_filtered(gpu: &Gpu, polygons: &[Polygon], filters: &[Filter]) -> Result<Vec<Contact>> {
    Ok(one_frame(gpu, polygons, filters, &WorldOptions::default())?.contacts)
}

/// As [`detect_filtered`], with [`ContactDetail::Full`]: each pair's manifold and containment
/// flags too, at the same index as its contact.
pub fn detect_full(gpu: &Gpu, polygons: &[Polygon], filters: &[Filter]) -> Result<(Vec<Contact>, Vec<Manifold>)> {
    let options = WorldOptions::default().with_contact_detail(ContactDetail::Full);
    let frame = one_frame(gpu, polygons, filters, &options)?;
    Ok((frame.contacts, frame.manifolds))
}

/// As [`detect_filtered`], with every pair at most `margin` apart too (see
/// [`WorldOptions::margin`]): the GPU's [`reference::detect_within`](crate::reference::detect_within).
pub fn detect_within(gpu: &Gpu, polygons: &[Polygon], filters: &[Filter], margin: f64) -> Result<Vec<Contact>> {
    Ok(one_frame(gpu, polygons, filters, &WorldOptions::default().with_margin(margin))?.contacts)
}

/// As [`detect_within`], with [`ContactDetail::Full`]: each pair's manifold too; pairs apart get
/// the points midway between their closest features (see [`ContactPoint`](crate::ContactPoint)).
pub fn detect_full_within(
    gpu: &Gpu,
    polygons: &[Polygon],
    filters: &[Filter],
    margin: f64,
) -> Result<(Vec<Contact>, Vec<Manifold>)> {
    let options = WorldOptions::default().with_contact_detail(ContactDetail::Full).with_margin(margin);
    let frame = one_frame(gpu, polygons, filters, &options)?;
    Ok((frame.contacts, frame.manifolds))
}

/// One frame of a world of `polygons` under `options`, with `filters` (empty: the default).
fn one_frame(gpu: &Gpu, polygons: &[Polygon], filters: &[Filter], options: &WorldOptions) -> Result<Frame> {
    let mut world = World::from_polygons(gpu, polygons, options)?;
    if !filters.is_empty() {
        world.set_filters(filters)?;
    }
    world.step()
}
