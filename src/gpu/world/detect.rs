//! The one-shot call: a world made, stepped once and dropped.

use crate::error::Result;
use crate::geometry::Polygon;
use crate::gpu::device::context::Gpu;
use crate::gpu::world::options::{DetectOptions, Frame};
use crate::gpu::world::World;
use crate::neighbours::Neighbours;

/// Every pair of `bodies` that collide (or, under a margin, lie at most the margin apart), as
/// `options` asks, on the GPU: the one-shot call, the GPU's
/// [`reference::detect`](crate::reference::detect).
///
/// `bodies` is a slice of [`Body`](crate::Body) or of [`Polygon`] (each a body of one shape, with
/// no copy). The pairs come sorted by (a, b), with a and b indices into `bodies`; a pair of bodies
/// reports its deepest shape pair ([`Frame::shapes`]), shapes of one body never pair, and the
/// filters (empty, or one per body) apply to all of a body's shapes. A body of no shapes is
/// [`Error::InvalidPolygon`](crate::Error::InvalidPolygon).
///
/// ```no_run
/// # fn main() -> satgpu::Result<()> {
/// use satgpu::{gpu, DetectOptions, Polygon};
/// let gpu = gpu::Gpu::new(&gpu::GpuOptions::default())?;
/// let square = |x: f64| Polygon::new(vec![[x, 0.0], [x + 1.0, 0.0], [x + 1.0, 1.0], [x, 1.0]]);
/// let frame = gpu::detect(&gpu, &[square(0.0)?, square(0.5)?], &DetectOptions::default())?;
/// assert_eq!((frame.contacts[0].a, frame.contacts[0].b), (0, 1));
/// # Ok(())
/// # }
/// ```
pub fn detect<B: AsRef<[Polygon]>>(gpu: &Gpu, bodies: &[B], options: &DetectOptions) -> Result<Frame> {
    let mut world = World::from_bodies(gpu, bodies, &options.world)?;
    if !options.filters.is_empty() {
        world.set_filters(&options.filters)?;
    }
    world.step()
}

/// Each body's neighbours at signed distance at most `radius` (negative where they overlap),
/// nearest first and ties by index, the nearest `k` where `k` is given, on the GPU: the pairs of
/// a frame with `radius` as its margin (`options`' filters and periodic box; their margin is
/// replaced by `radius`, and in a periodic box a neighbour is its nearest image), each body's rows ranked by (distance, neighbour) on the
/// GPU and only the kept rows read back; bit for bit what [`Neighbours::from_contacts`] makes
/// of the same frame's pairs on the host (which gathers instead when a frame needs more
/// candidate pairs than one binding holds, or a body has more than 4,096 neighbours). Pairs
/// that the filters (empty, or one per body) exclude are no neighbours. The GPU's
/// [`reference::neighbours`](crate::reference::neighbours); a world that steps every frame gets
/// the same from its frames with `Neighbours::from_contacts`.
pub fn neighbours<B: AsRef<[Polygon]>>(
    gpu: &Gpu,
    bodies: &[B],
    radius: f64,
    k: Option<usize>,
    options: &DetectOptions,
) -> Result<Neighbours> {
    if !(radius >= 0.0 && radius.is_finite()) {
        let detail = format!("{radius}: must be finite and at least 0");
        return Err(crate::Error::InvalidSetting { what: "radius", detail });
    }
    let options = options.clone().with_margin(radius);
    if let Some(found) = crate::gpu::world::neighbours::neighbours(gpu, bodies, k, &options)? {
        return Ok(found);
    }
    let frame = detect(gpu, bodies, &options)?;
    Ok(Neighbours::from_contacts(bodies.len(), &frame.contacts, k))
}
