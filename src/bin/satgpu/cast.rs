//! `satgpu cast`: the first body each shape cast of a CSV touches on its way.

use std::collections::hash_map::Entry;
use std::path::Path;
use std::time::Instant;

use satgpu::{reference, scene, Polygon, PolygonError, RayHit, ShapeCast};

use crate::query::{open_world, read_rows, Flat};
use crate::raycast::write_hits;
use crate::{Backend, DeviceArgs, Failure, SceneArgs};

/// The shapes cast, and per row its casts (one per part of its shape) and its line.
type Casts = (Vec<Polygon>, Vec<(Vec<ShapeCast>, usize)>);

/// The casts of a CSV: `x,y,radius,dx,dy,length` (a circle of `radius` at (x, y) moved along
/// (dx, dy) for `length`), with the optional columns `shape` (a scene entry cast instead, its
/// box's centre at (x, y), grown by `radius`; empty: the circle), `angle` (the entry turned
/// about that centre, radians) and `category,mask,group`. The shapes cast (each a convex part:
/// an entry of several parts is cast part by part) and, per cast, its shapes' indices in that
/// list. Errors name the file and the line.
fn read_casts(path: &Path, scene: &scene::Scene) -> Result<Casts, Failure> {
    let layout: &[&str] = &["x", "y", "radius", "dx", "dy", "length", "shape?", "angle?"];
    let (_, rows) = read_rows(path, &[layout])?;
    let bodies = &scene.bodies;
    let entries = bodies.len();
    let mut shapes: Vec<Polygon> = vec![];
    let mut circles = std::collections::HashMap::new();
    let mut placed: std::collections::HashMap<_, std::ops::Range<usize>> = std::collections::HashMap::new();
    let mut casts = Vec::with_capacity(rows.len());
    for (k, (line, v, filter)) in rows.into_iter().enumerate() {
        let bad = |what: String| Failure(2, format!("{}: line {line}: cast {k}: {what}", path.display()));
        let [x, y, radius, dx, dy, length, shape, angle] = v[..] else { unreachable!("eight columns") };
        if radius.is_nan() || radius < 0.0 {
            return Err(bad(format!("its radius {radius} must be at least 0")));
        }
        let cast = |shape: usize| ShapeCast {
            shape: shape as u32,
            origin: [x, y],
            angle: if angle.is_nan() { 0.0 } else { angle },
            direction: [dx, dy],
            max_length: length,
            filter,
            world: 0,
        };
        let parts: Vec<ShapeCast> = if shape.is_nan() {
            let index = match circles.get(&radius.to_bits()) {
                Some(&i) => i,
                None => {
                    let circle = Polygon::circle([0.0, 0.0], radius)
                        .map_err(|e| bad(format!("a circle of radius {radius}: {e} (a ray is `satgpu raycast`)")))?;
                    shapes.push(circle);
                    circles.insert(radius.to_bits(), shapes.len() - 1);
                    shapes.len() - 1
                }
            };
            vec![cast(index)]
        } else {
            if shape.fract() != 0.0 || shape < 0.0 || shape >= entries as f64 {
                return Err(bad(format!(
                    "shape {shape} is not an entry of the scene (it has {entries}: 0 to {})",
                    entries.saturating_sub(1)
                )));
            }
            let key = (shape as usize, radius.to_bits());
            let parts = match placed.entry(key) {
                Entry::Occupied(parts) => parts.get().clone(),
                Entry::Vacant(slot) => {
                    let first = shapes.len();
                    shapes.extend(centred(bodies[shape as usize].shapes(), radius).map_err(|e| {
                        bad(format!("shape {shape}, centred on its box and grown by the radius, is no shape: {e}"))
                    })?);
                    slot.insert(first..shapes.len()).clone()
                }
            };
            parts.map(cast).collect()
        };
        for part in &parts {
            part.check(k, shapes.len()).map_err(|e| Failure(2, format!("{}: line {line}: {e}", path.display())))?;
        }
        casts.push((parts, line));
    }
    Ok((shapes, casts))
}

/// A body's convex `parts` moved so that their box's centre is the origin, grown by `radius`;
/// an error where a part is no longer a shape (the move rounds two vertices together, or the
/// radius grows past what a shape may have).
fn centred(parts: &[Polygon], radius: f64) -> Result<Vec<Polygon>, PolygonError> {
    let (lo, hi) = parts.iter().map(Polygon::aabb).fold(([f64::MAX; 2], [f64::MIN; 2]), |(lo, hi), b| {
        ([lo[0].min(b.min[0]), lo[1].min(b.min[1])], [hi[0].max(b.max[0]), hi[1].max(b.max[1])])
    });
    let c = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    parts
        .iter()
        .map(|p| {
            let core = p.vertices().iter().map(|v| [v[0] - c[0], v[1] - c[1]]).collect();
            Polygon::from_core(core, p.radius() + radius)
        })
        .collect()
}

pub(crate) fn cast(
    source: &SceneArgs,
    casts_path: &Path,
    backend: Backend,
    out: Option<&Path>,
    device: &DeviceArgs,
) -> Result<(), Failure> {
    let scene = source.read_boxed(0.0)?;
    let (shapes, casts) = read_casts(casts_path, &scene)?;
    let flat: Vec<ShapeCast> = casts.iter().flat_map(|(parts, _)| parts.iter().copied()).collect();
    let t = Instant::now();
    let hits = match backend {
        Backend::Cpu => {
            let parts = Flat::of(&scene);
            let mut hits = match &scene.periodic {
                Some(p) => reference::cast_shapes_periodic(&parts.parts, &parts.filters, &shapes, &flat, p),
                None => reference::cast_shapes(&parts.parts, &parts.filters, &shapes, &flat),
            };
            for hit in hits.iter_mut().flatten() {
                hit.body = parts.body(hit.body);
            }
            hits
        }
        Backend::Gpu => open_world(&device.open()?, &scene)?.cast_shapes(&shapes, &flat)?,
    };
    let ms = t.elapsed().as_secs_f64() * 1e3;
    // Each cast's nearest hit over its parts (of hits at one distance, the lowest body).
    let mut rest = hits.as_slice();
    let hits: Vec<Option<RayHit>> = casts
        .iter()
        .map(|(parts, _)| {
            let (mine, after) = rest.split_at(parts.len());
            rest = after;
            mine.iter().flatten().copied().min_by(|a, b| a.fraction.total_cmp(&b.fraction).then(a.body.cmp(&b.body)))
        })
        .collect();
    let hit = hits.iter().flatten().count();
    let said = format!("{} casts, {hit} touch a body ({} none)", hits.len(), hits.len() - hit);
    write_hits(out, "cast", &hits, &said, ms)
}
