//! `satgpu query`: region queries from a CSV, the bodies each box meets or each point lies in.

use std::path::Path;
use std::time::Instant;

use satgpu::gpu::{World, WorldOptions};
use satgpu::{reference, scene, Aabb, BoxQuery, Error, Filter, PointQuery};

use crate::{Backend, DeviceArgs, Failure};

/// The queries of a CSV: boxes (`min_x,min_y,max_x,max_y`) or points (`x,y`), each with the
/// optional columns `category,mask,group` (default: the default filter). Errors name the file
/// and the line.
enum Regions {
    Boxes(Vec<BoxQuery>),
    Points(Vec<PointQuery>),
}

fn read_regions(path: &Path) -> Result<Regions, Failure> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let name = path.display();
    let bad = |line: usize, what: String| Failure(2, format!("{name}: line {line}: {what}"));
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::trim).collect(),
        None => return Err(bad(1, "empty file; expected the header min_x,min_y,max_x,max_y or x,y".into())),
    };
    let find = |name: &str| header.iter().position(|h| *h == name);
    let boxes = ["min_x", "min_y", "max_x", "max_y"].map(find);
    let points = ["x", "y"].map(find);
    let columns: Vec<usize> = match (boxes.iter().all(Option::is_some), points.iter().all(Option::is_some)) {
        (true, false) => boxes.iter().flatten().copied().collect(),
        (false, true) => points.iter().flatten().copied().collect(),
        _ => return Err(bad(1, "the header needs min_x,min_y,max_x,max_y (boxes) or x,y (points), not both".into())),
    };
    let filter_columns = ["category", "mask", "group"].map(find);
    let (mut out_boxes, mut out_points) = (vec![], vec![]);
    for (line, text) in lines {
        if text.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        let field = |k: usize| {
            fields
                .get(k)
                .copied()
                .ok_or_else(|| bad(line, format!("{} fields, but {:?} is field {}", fields.len(), header[k], k + 1)))
        };
        let number = |k: usize| -> Result<f64, Failure> {
            let f = field(k)?;
            f.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(line, format!("{} = {f:?} is not a finite number", header[k])))
        };
        let mut filter = Filter::DEFAULT;
        for (k, column) in filter_columns.iter().enumerate() {
            let Some(c) = *column else { continue };
            let f = field(c)?;
            let wrong = || bad(line, format!("{} = {f:?} is not a {}", header[c], ["u32", "u32", "i32"][k]));
            match k {
                0 => filter.category = f.parse().map_err(|_| wrong())?,
                1 => filter.mask = f.parse().map_err(|_| wrong())?,
                _ => filter.group = f.parse().map_err(|_| wrong())?,
            }
        }
        let v: Vec<f64> = columns.iter().map(|&c| number(c)).collect::<Result<_, _>>()?;
        if columns.len() == 4 {
            if v[0] > v[2] || v[1] > v[3] {
                return Err(bad(
                    line,
                    format!("the box's min ({}, {}) is above its max ({}, {})", v[0], v[1], v[2], v[3]),
                ));
            }
            out_boxes.push(BoxQuery { aabb: Aabb { min: [v[0], v[1]], max: [v[2], v[3]] }, filter });
        } else {
            out_points.push(PointQuery { point: [v[0], v[1]], filter });
        }
    }
    Ok(if columns.len() == 4 { Regions::Boxes(out_boxes) } else { Regions::Points(out_points) })
}

pub(crate) fn query(
    path: &Path,
    regions_path: &Path,
    backend: Backend,
    out: Option<&Path>,
    device: &DeviceArgs,
) -> Result<(), Failure> {
    let regions = read_regions(regions_path)?;
    let scene::Scene { polygons, filters, compounds } = scene::read_scene(path)?;
    if !compounds.is_empty() {
        return Err(Failure(2, format!("{}: region queries on compound bodies are not supported yet", path.display())));
    }
    let t = Instant::now();
    let answers = match backend {
        Backend::Cpu => match &regions {
            Regions::Boxes(q) => {
                if let Some((i, _)) =
                    q.iter().enumerate().find(|(_, b)| b.aabb.min[0] == b.aabb.max[0] || b.aabb.min[1] == b.aabb.max[1])
                {
                    return Err(Failure(
                        2,
                        format!(
                            "{}: box {i} has no area (the cpu backend needs one; a point is x,y)",
                            regions_path.display()
                        ),
                    ));
                }
                reference::query_boxes(&polygons, &filters, q)
            }
            Regions::Points(q) => reference::query_points(&polygons, &filters, q),
        },
        Backend::Gpu => {
            let gpu = device.open()?;
            let mut world = World::from_polygons(&gpu, &polygons, &WorldOptions::default())?;
            if !filters.is_empty() {
                world.set_filters(&filters)?;
            }
            match &regions {
                Regions::Boxes(q) => world.query_boxes(q)?,
                Regions::Points(q) => world.query_points(q)?,
            }
        }
    };
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let hits: usize = answers.iter().map(Vec::len).sum();
    let empty = answers.iter().filter(|a| a.is_empty()).count();
    let said = format!("{} queries, {hits} bodies found ({empty} queries found none)", answers.len());
    match out {
        Some(out) => {
            scene::write_atomically(out, |w| {
                let io = |source| Error::Io { path: out.to_path_buf(), source };
                writeln!(w, "query,body").map_err(io)?;
                for (q, bodies) in answers.iter().enumerate() {
                    for b in bodies {
                        writeln!(w, "{q},{b}").map_err(io)?;
                    }
                }
                Ok(())
            })?;
            println!("wrote {}: {said} in {ms:.1} ms", out.display());
        }
        None => println!("{said} in {ms:.1} ms"),
    }
    Ok(())
}
