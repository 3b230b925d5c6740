//! `satgpu query`: region queries from a CSV, the bodies each box meets or each point lies in;
//! the CSV reader `satgpu raycast` shares.

use std::path::Path;
use std::time::Instant;

use satgpu::gpu::{Gpu, World, WorldOptions};
use satgpu::{reference, scene, Aabb, BoxQuery, Error, Filter, PointQuery, Polygon};

use crate::{Backend, DeviceArgs, Failure, SceneArgs};

/// The queries of a CSV: boxes (`min_x,min_y,max_x,max_y`) or points (`x,y`), each with the
/// optional columns `category,mask,group` (default: the default filter). Errors name the file
/// and the line.
enum Regions {
    Boxes(Vec<BoxQuery>),
    Points(Vec<PointQuery>),
}

/// The rows of a CSV of queries, rays or casts: a header naming the columns of one of `layouts`
/// (a column ending in `?` may be left out, or a field of it empty: NaN), and optionally
/// `category,mask,group` (each row's filter; default: the default filter); then per line, its
/// number, the finite numbers of the layout's columns and its filter. Returns which layout the
/// header has. Errors name the file and the line.
pub(crate) type Row = (usize, Vec<f64>, Filter);

pub(crate) fn read_rows(path: &Path, layouts: &[&[&str]]) -> Result<(usize, Vec<Row>), Failure> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let name = path.display();
    let bad = |line: usize, what: String| Failure(2, format!("{name}: line {line}: {what}"));
    let required = |l: &[&str]| l.iter().filter(|c| !c.ends_with('?')).copied().collect::<Vec<_>>().join(",");
    let wanted = layouts.iter().map(|l| required(l)).collect::<Vec<_>>().join(" or ");
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::trim).collect(),
        None => return Err(bad(1, format!("empty file; expected the header {wanted}"))),
    };
    let find = |name: &str| header.iter().position(|h| *h == name);
    // Each column's place; usize::MAX for an optional column left out.
    let place = |c: &str| match c.strip_suffix('?') {
        Some(optional) => Some(find(optional).unwrap_or(usize::MAX)),
        None => find(c),
    };
    let found: Vec<(usize, Vec<usize>)> = layouts
        .iter()
        .enumerate()
        .filter_map(|(k, layout)| layout.iter().map(|c| place(c)).collect::<Option<Vec<_>>>().map(|c| (k, c)))
        .collect();
    let [(layout, columns)] = &found[..] else {
        return Err(bad(1, format!("the header needs {wanted}, one of them")));
    };
    let filter_columns = ["category", "mask", "group"].map(find);
    let mut rows = vec![];
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
            let optional = layouts[*layout][columns.iter().position(|&c| c == k).unwrap_or(0)].ends_with('?');
            if k == usize::MAX || (optional && field(k)?.is_empty()) {
                return Ok(f64::NAN);
            }
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
        rows.push((line, v, filter));
    }
    Ok((*layout, rows))
}

fn read_regions(path: &Path) -> Result<Regions, Failure> {
    let (layout, rows) = read_rows(path, &[&["min_x", "min_y", "max_x", "max_y"], &["x", "y"]])?;
    let bad = |line: usize, e: satgpu::Error| Failure(2, format!("{}: line {line}: {e}", path.display()));
    if layout == 1 {
        let mut points = vec![];
        for (k, (line, v, filter)) in rows.into_iter().enumerate() {
            let point = PointQuery { point: [v[0], v[1]], filter, world: 0 };
            point.check(k).map_err(|e| bad(line, e))?;
            points.push(point);
        }
        return Ok(Regions::Points(points));
    }
    let mut boxes = vec![];
    for (k, (line, v, filter)) in rows.into_iter().enumerate() {
        let query = BoxQuery { aabb: Aabb { min: [v[0], v[1]], max: [v[2], v[3]] }, filter, world: 0 };
        query.check(k).map_err(|e| bad(line, e))?;
        boxes.push(query);
    }
    Ok(Regions::Boxes(boxes))
}

/// A scene for the reference: its convex shapes, or its compound bodies' parts with each part's
/// body (numbered body by body) and filter.
pub(crate) struct Flat {
    pub parts: Vec<Polygon>,
    pub filters: Vec<Filter>,
    /// The body of each part; empty for a scene of convex shapes.
    owner: Vec<u32>,
}

impl Flat {
    pub fn of(scene: &scene::Scene) -> Flat {
        let parts = scene.shapes().cloned().collect();
        if !scene.compound {
            return Flat { parts, filters: scene.filters.clone(), owner: vec![] };
        }
        let owner = scene.owners();
        let filters = match scene.filters.is_empty() {
            true => vec![],
            false => owner.iter().map(|&b| scene.filters[b as usize]).collect(),
        };
        Flat { parts, filters, owner }
    }

    /// The body of part `p`.
    pub fn body(&self, p: u32) -> u32 {
        if self.owner.is_empty() {
            p
        } else {
            self.owner[p as usize]
        }
    }

    /// A sorted list of parts as the sorted list of their bodies.
    fn bodies(&self, parts: Vec<u32>) -> Vec<u32> {
        let mut bodies: Vec<u32> = parts.into_iter().map(|p| self.body(p)).collect();
        bodies.dedup();
        bodies
    }
}

/// A scene on the GPU: a world of its bodies (its convex shapes, or its compound bodies), with
/// its filters.
pub(crate) fn open_world(gpu: &Gpu, scene: &scene::Scene) -> Result<World, Failure> {
    let mut options = WorldOptions::default();
    options.periodic = scene.periodic;
    let mut world = World::from_bodies(gpu, &scene.bodies, &options)?;
    if !scene.filters.is_empty() {
        world.set_filters(&scene.filters)?;
    }
    Ok(world)
}

pub(crate) fn query(
    source: &SceneArgs,
    regions_path: &Path,
    backend: Backend,
    out: Option<&Path>,
    device: &DeviceArgs,
) -> Result<(), Failure> {
    let regions = read_regions(regions_path)?;
    let scene = source.read_boxed(0.0)?;
    let t = Instant::now();
    let answers = match backend {
        Backend::Cpu => {
            let flat = Flat::of(&scene);
            let (parts, filters) = (&flat.parts, &flat.filters);
            let parts = match (&regions, &scene.periodic) {
                (Regions::Boxes(q), None) => reference::query_boxes(parts, filters, q),
                (Regions::Points(q), None) => reference::query_points(parts, filters, q),
                (Regions::Boxes(q), Some(p)) => reference::query_boxes_periodic(parts, filters, q, p),
                (Regions::Points(q), Some(p)) => reference::query_points_periodic(parts, filters, q, p),
            };
            parts.into_iter().map(|list| flat.bodies(list)).collect()
        }
        Backend::Gpu => match (open_world(&device.open()?, &scene)?, &regions) {
            (mut w, Regions::Boxes(q)) => w.query_boxes(q)?,
            (mut w, Regions::Points(q)) => w.query_points(q)?,
        },
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
