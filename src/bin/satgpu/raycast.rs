//! `satgpu raycast`: the nearest body each ray of a CSV meets.

use std::path::Path;
use std::time::Instant;

use satgpu::{reference, scene, Error, Ray, RayHit};

use crate::query::{open_world, read_rows, Flat};
use crate::{Backend, DeviceArgs, Failure, SceneArgs};

/// The rays of a CSV: `x,y,dx,dy,length` (origin, direction, how far), each with the optional
/// columns `category,mask,group`. Errors name the file and the line.
fn read_rays(path: &Path) -> Result<Vec<Ray>, Failure> {
    let (_, rows) = read_rows(path, &[&["x", "y", "dx", "dy", "length"]])?;
    rows.into_iter()
        .enumerate()
        .map(|(k, (line, v, filter))| {
            let ray = Ray { origin: [v[0], v[1]], direction: [v[2], v[3]], max_length: v[4], filter, world: 0 };
            ray.check(k).map(|()| ray).map_err(|e| Failure(2, format!("{}: line {line}: {e}", path.display())))
        })
        .collect()
}

pub(crate) fn raycast(
    source: &SceneArgs,
    rays_path: &Path,
    backend: Backend,
    out: Option<&Path>,
    device: &DeviceArgs,
) -> Result<(), Failure> {
    let rays = read_rays(rays_path)?;
    let scene = source.read_boxed(0.0)?;
    let t = Instant::now();
    let hits = match backend {
        Backend::Cpu => {
            let flat = Flat::of(&scene);
            let mut hits = match &scene.periodic {
                Some(p) => reference::cast_rays_periodic(&flat.parts, &flat.filters, &rays, p),
                None => reference::cast_rays(&flat.parts, &flat.filters, &rays),
            };
            for hit in hits.iter_mut().flatten() {
                hit.body = flat.body(hit.body);
            }
            hits
        }
        Backend::Gpu => open_world(&device.open()?, &scene)?.cast_rays(&rays)?,
    };
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let hit = hits.iter().flatten().count();
    let said = format!("{} rays, {hit} hit a body ({} none)", rays.len(), rays.len() - hit);
    write_hits(out, "ray", &hits, &said, ms)
}

/// Writes `hits` as `{what},body,fraction,point_x,point_y,normal_x,normal_y` rows (one per hit,
/// in order) to `out` and says so, or prints `said` alone.
pub(crate) fn write_hits(
    out: Option<&Path>,
    what: &str,
    hits: &[Option<RayHit>],
    said: &str,
    ms: f64,
) -> Result<(), Failure> {
    match out {
        Some(out) => {
            scene::write_atomically(out, |w| {
                let io = |source| Error::Io { path: out.to_path_buf(), source };
                writeln!(w, "{what},body,fraction,point_x,point_y,normal_x,normal_y").map_err(io)?;
                for (k, h) in hits.iter().enumerate() {
                    let Some(h) = h else { continue };
                    let ([px, py], [nx, ny]) = (h.point, h.normal);
                    writeln!(w, "{k},{},{},{px},{py},{nx},{ny}", h.body, h.fraction).map_err(io)?;
                }
                Ok(())
            })?;
            println!("wrote {}: {said} in {ms:.1} ms", out.display());
        }
        None => println!("{said} in {ms:.1} ms"),
    }
    Ok(())
}
