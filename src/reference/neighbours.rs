//! Neighbours within a radius, the reference's way: every pair within the radius from
//! [`detect`] with that margin, each written for both of its bodies, all rows sorted by body,
//! distance and neighbour, and the first `k` of each body kept.

use crate::geometry::Polygon;
use crate::gpu::DetectOptions;
use crate::neighbours::Neighbours;
use crate::reference::detect;

/// Each body's neighbours at signed distance at most `radius` (negative where they overlap),
/// nearest first and ties by index, the first `k` where `k` is given, of the pairs `options`
/// asks for with `radius` as their margin: pairs that its filters (empty, or one per body)
/// exclude are no neighbours; in its periodic box a neighbour is its nearest image (every body
/// must fit the box, as [`detect`] asks). `radius` must be finite and at least 0.
pub fn neighbours<B: AsRef<[Polygon]>>(
    bodies: &[B],
    radius: f64,
    k: Option<usize>,
    options: &DetectOptions,
) -> Neighbours {
    let options = options.clone().with_margin(radius);
    let mut rows: Vec<(u32, f64, u32, [f64; 2])> = vec![];
    for c in detect(bodies, &options).contacts {
        rows.push((c.a, -c.depth, c.b, c.normal));
        rows.push((c.b, -c.depth, c.a, [-c.normal[0] + 0.0, -c.normal[1] + 0.0]));
    }
    rows.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)).then(x.2.cmp(&y.2)));
    let mut out = Neighbours::default();
    let mut rows = rows.into_iter().peekable();
    for body in 0..bodies.len() as u32 {
        out.offsets.push(out.neighbour.len());
        let mut taken = 0;
        while let Some((_, distance, neighbour, normal)) = rows.next_if(|r| r.0 == body) {
            if k.is_none_or(|k| taken < k) {
                out.neighbour.push(neighbour);
                out.distance.push(distance);
                out.normal.push(normal);
                taken += 1;
            }
        }
    }
    out.offsets.push(out.neighbour.len());
    out
}
