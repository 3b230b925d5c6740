//! Scene files, the contact output formats, and (feature `generate`) deterministic scene
//! generators.
//!
//! A scene file is JSON: `{"polygons": [entry, ...]}` in world coordinates; an entry's index is
//! its position in the list. Each entry is one of
//!
//! ```text
//! {"vertices": [[x, y], ...]}                    a convex polygon
//! {"vertices": [[x, y], ...], "radius": r}       a rounded polygon (r >= 0)
//! {"circle": {"center": [x, y], "radius": r}}    a circle (r > 0)
//! {"capsule": {"a": [x, y], "b": [x, y], "radius": r}}
//! {"segment": {"a": [x, y], "b": [x, y], "radius": r}}   a segment; radius optional (>= 0, default 0)
//! {"chain": {"points": [[x, y], ...], "loop": false, "radius": r}}   a chain of segments (one body);
//!                                                 loop and radius optional (false, 0)
//! {"parts": [entry, ...]}                        a compound body: each part any entry above
//! ```
//!
//! A `vertices` outline that is concave (simple, either winding) or has more than 1,024 vertices
//! (up to 8,192) is split into convex parts at the door ([`decompose`](crate::geometry::decompose)):
//! it becomes a compound body, as does a `parts` entry (a concave part is split too).
//!
//! Each entry may carry a collision filter: `"category"` and `"mask"` (u32 bits) and `"group"` (i32),
//! see [`Filter`]; a compound body's filter applies to all its parts. Every shape is validated on the way in, so the rest of the crate can trust the
//! invariants.
//!
//! A top-level `"periodic": {"box": [x0, y0, x1, y1], "x": true, "y": true}` puts the bodies in a
//! periodic box ([`Scene::periodic`]; `x` and `y` default to true).

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::geometry::{Body, Filter, Periodic, Polygon, ShapeKind};
use entry::{Entry, ShapeFile};

mod entry;
#[cfg(feature = "generate")]
mod generate;
mod output;
mod wkt;
#[cfg(feature = "generate")]
pub use generate::{generate, generate_bodies, SceneKind};
pub use output::{
    write_compound_manifolds_csv, write_compound_manifolds_json, write_contacts_csv, write_contacts_json,
    write_manifolds_csv, write_manifolds_json, write_neighbours_csv, COMPOUND_FULL_HEADER, FULL_HEADER,
};
pub use wkt::{parse_wkt_polygon, Area};

/// A scene: bodies to test against each other, each one shape or several; the index of a body
/// is its identity in every reported pair.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scene {
    /// The bodies, in file order, then one per ring of the walls ([`Scene::add_walls`]). A plain
    /// entry (one convex shape) is a body of one shape. [`gpu::detect`](crate::gpu::detect),
    /// [`World::from_bodies`](crate::gpu::World::from_bodies) and the reference take them as they
    /// are; where every body is one shape they run the plain frame.
    pub bodies: Vec<Body>,
    /// One collision filter per body, or empty when every body has [`Filter::DEFAULT`].
    pub filters: Vec<Filter>,
    /// Whether the scene is compound: some entry has parts (`"parts"`, a chain, or an outline
    /// split at the door), or the scene has walls. Its pairs then name their bodies' deepest
    /// part pair too, and [`scene_to_json`] writes every entry as parts, so that the file reads
    /// back as the same scene.
    pub compound: bool,
    /// The periodic box the bodies live in (`"periodic"`), if any: every command that reads the
    /// scene runs its world in it ([`WorldOptions::periodic`](crate::gpu::WorldOptions::periodic)).
    pub periodic: Option<Periodic>,
}

impl Scene {
    /// A plain scene: a body of one shape for each of `shapes`, with the default filter
    /// everywhere.
    pub fn new(shapes: Vec<Polygon>) -> Scene {
        Scene { bodies: shapes.into_iter().map(Body::from).collect(), filters: vec![], compound: false, periodic: None }
    }

    /// A compound scene of `bodies` with the default filter everywhere (no bodies: an empty
    /// plain scene, as a file of no entries reads).
    pub fn from_bodies(bodies: Vec<Body>) -> Scene {
        Scene { compound: !bodies.is_empty(), bodies, filters: vec![], periodic: None }
    }

    /// The former name of [`Scene::from_bodies`].
    #[deprecated(since = "0.2.0", note = "a scene is bodies: `Scene::from_bodies`")]
    pub fn from_compounds(bodies: Vec<Body>) -> Scene {
        Scene::from_bodies(bodies)
    }

    /// Adds `walls` (bodies, as [`Area::walls`] gives them) after the scene's bodies, with the
    /// default filter; the scene is then compound.
    pub fn add_walls(&mut self, walls: Vec<Body>) {
        if walls.is_empty() {
            return;
        }
        if !self.filters.is_empty() {
            self.filters.resize(self.filters.len() + walls.len(), Filter::DEFAULT);
        }
        self.compound = true;
        self.bodies.extend(walls);
    }

    /// Every body's shapes, body after body.
    pub fn shapes(&self) -> impl Iterator<Item = &Polygon> {
        self.bodies.iter().flat_map(Body::shapes)
    }

    /// Every body's shapes, body after body, moved out of the scene (a plain scene's shapes in
    /// file order).
    pub fn into_shapes(self) -> Vec<Polygon> {
        let mut out = Vec::with_capacity(self.bodies.len());
        for body in self.bodies {
            out.extend(body.into_shapes());
        }
        out
    }

    /// The body of every shape, shape by shape (in the order of [`Scene::shapes`]).
    pub fn owners(&self) -> Vec<u32> {
        let each = self.bodies.iter().map(|body| body.shapes().len());
        each.enumerate().flat_map(|(b, n)| std::iter::repeat_n(b as u32, n)).collect()
    }

    /// The number of bodies (entries, then the walls' rings).
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether the scene has no bodies.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }
}

/// The file's top level. `polygons` is optional so that a missing array becomes the typed
/// [`Error::MissingPolygons`] instead of a generic serde message; unknown fields are ignored
/// so files can carry metadata.
#[derive(Deserialize)]
struct SceneFile {
    polygons: Option<Vec<ShapeFile>>,
    walls: Option<WallsFile>,
    periodic: Option<PeriodicFile>,
}

/// A periodic box: `{"box": [x0, y0, x1, y1], "x": true, "y": true}` (`x` and `y` default to
/// true).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeriodicFile {
    #[serde(rename = "box")]
    bounds: [f64; 4],
    x: Option<bool>,
    y: Option<bool>,
}

impl PeriodicFile {
    /// The box, or [`Error::InvalidSetting`] (`"periodic box"`) naming the file.
    fn periodic(self, path: &Path) -> Result<Periodic> {
        Periodic::new(self.bounds, [self.x.unwrap_or(true), self.y.unwrap_or(true)]).map_err(|e| match e {
            Error::InvalidSetting { what, detail } => {
                Error::InvalidSetting { what, detail: format!("{}: \"periodic\": {detail}", path.display()) }
            }
            e => e,
        })
    }
}

/// A walkable area's boundary as walls: `{"wkt": "POLYGON ((x y, ...), ...)", "radius": r}`.
#[derive(Deserialize)]
struct WallsFile {
    wkt: String,
    radius: Option<f64>,
}

/// Turns a serde_json error into [`Error::Json`] with its 1-based position.
fn json_error(path: &Path, e: serde_json::Error) -> Error {
    Error::Json { path: path.to_path_buf(), line: e.line(), column: e.column(), message: e.to_string() }
}

/// Parses and validates scene JSON. `path` is only used to name the source in errors.
///
/// Deserialises straight into typed structs rather than a `serde_json::Value`, because scenes
/// hold millions of polygons and a generic tree would cost several times the memory.
pub fn parse_scene(text: &str, path: &Path) -> Result<Scene> {
    // serde's derived structs also accept a JSON array positionally, which would silently read
    // `[[...]]` as a scene, so anything but an object at the top level is rejected up front
    // (after checking it is at least well-formed JSON, so syntax errors keep their position).
    if !text.trim_start().starts_with('{') {
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| json_error(path, e))?;
        return Err(Error::MissingPolygons { path: path.to_path_buf() });
    }
    let file: SceneFile = serde_json::from_str(text).map_err(|e| json_error(path, e))?;
    let Some(raw) = file.polygons else {
        return Err(Error::MissingPolygons { path: path.to_path_buf() });
    };
    let mut bodies = Vec::with_capacity(raw.len());
    let mut compound = false;
    // The filter list starts at the first non-default filter (which may be body 0's), so a
    // scene without filters never holds one per body.
    let mut filters: Option<Vec<Filter>> = None;
    for (index, entry) in raw.into_iter().enumerate() {
        let filter = entry.filter();
        match filters.as_mut() {
            Some(list) => list.push(filter),
            None if filter != Filter::DEFAULT => {
                let mut list = Vec::with_capacity(bodies.capacity());
                list.resize(index, Filter::DEFAULT);
                list.push(filter);
                filters = Some(list);
            }
            None => {}
        }
        let body = entry.body().map_err(|reason| Error::InvalidPolygon { index, reason })?;
        bodies.push(match body {
            Entry::Shape(p) => Body::from(p),
            Entry::Parts(c) => {
                compound = true;
                c
            }
        });
    }
    let periodic = file.periodic.map(|p| p.periodic(path)).transpose()?;
    let mut scene = Scene { bodies, filters: filters.unwrap_or_default(), compound, periodic };
    if let Some(walls) = file.walls {
        // The walls follow the entries, one body per ring.
        scene.add_walls(area_walls(&walls.wkt, walls.radius.unwrap_or(0.0), path)?);
    }
    Ok(scene)
}

/// The walls of the walkable area in `wkt` (one closed chain per ring, of radius `radius`);
/// errors are [`Error::InvalidWalls`] naming `path`.
fn area_walls(wkt: &str, radius: f64, path: &Path) -> Result<Vec<Body>> {
    let invalid = |reason: Error| Error::InvalidWalls { path: path.to_path_buf(), reason: Box::new(reason) };
    let area = parse_wkt_polygon(wkt).map_err(invalid)?;
    area.walls(radius).map_err(|e| invalid(Error::Polygon(e)))
}

/// Reads a file holding one WKT `POLYGON`, a walkable area (JuPedSim's geometry), as walls: one
/// closed chain of radius 0 per ring ([`Area::walls`]); I/O and parse errors name the file.
pub fn read_walls(path: &Path) -> Result<Vec<Body>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    area_walls(&text, 0.0, path)
}

/// Reads and validates a scene file; I/O and parse errors name the file.
pub fn read_scene(path: &Path) -> Result<Scene> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    parse_scene(&text, path)
}

/// Serialises a scene in the file format, one polygon per line so that large files stay
/// diffable and greppable.
///
/// Coordinates use serde_json's shortest round-trip formatting. Reading the text back gives
/// the same bits whenever each coordinate has at most 15 significant digits (as every scene
/// of `generate`, feature `generate`, does); serde_json's default float parser is not correctly
/// rounded for longer numbers and may be off by one ulp there unless its `float_roundtrip`
/// feature is on.
pub fn scene_to_json(scene: &Scene) -> String {
    let mut out = String::from("{\"polygons\": [");
    let filter = |out: &mut String, i: usize| {
        if let Some(f) = scene.filters.get(i).filter(|f| **f != Filter::DEFAULT) {
            out.push_str(&format!(", \"category\": {}, \"mask\": {}, \"group\": {}", f.category, f.mask, f.group));
        }
    };
    for (i, body) in scene.bodies.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        match (scene.compound, body.shapes()) {
            (false, [p]) => shape_json(&mut out, p),
            // Every body of a compound scene as parts, a single shape too, so that the file
            // reads back as the same scene.
            (_, shapes) => {
                out.push_str("{\"parts\": [");
                for (k, p) in shapes.iter().enumerate() {
                    out.push_str(if k == 0 { "" } else { ", " });
                    shape_json(&mut out, p);
                    out.push('}');
                }
                out.push(']');
            }
        }
        filter(&mut out, i);
        out.push('}');
    }
    out.push_str("\n]");
    if let Some(p) = &scene.periodic {
        let [x, y] = p.wraps();
        out.push_str(&format!(",\n\"periodic\": {{\"box\": {}, \"x\": {x}, \"y\": {y}}}", json(&p.bounds())));
    }
    out.push_str("}\n");
    out
}

/// One shape as its entry's fields, the entry left open (for a filter) after them.
fn shape_json(out: &mut String, p: &Polygon) {
    let v = p.vertices();
    match p.kind() {
        ShapeKind::Circle => {
            out.push_str(&format!("{{\"circle\": {{\"center\": {}, \"radius\": {}}}", json(&v[0]), json(&p.radius())));
        }
        ShapeKind::Capsule => out.push_str(&format!(
            "{{\"capsule\": {{\"a\": {}, \"b\": {}, \"radius\": {}}}",
            json(&v[0]),
            json(&v[1]),
            json(&p.radius())
        )),
        ShapeKind::Segment => {
            out.push_str(&format!("{{\"segment\": {{\"a\": {}, \"b\": {}}}", json(&v[0]), json(&v[1])))
        }
        ShapeKind::RoundedPolygon => {
            out.push_str(&format!("{{\"vertices\": {}, \"radius\": {}", json(v), json(&p.radius())));
        }
        ShapeKind::Polygon => out.push_str(&format!("{{\"vertices\": {}", json(v))),
    }
}

/// A value as JSON text. Serialising finite f64 values cannot fail (Polygon rejects NaN and inf).
fn json<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("finite coordinates serialise")
}

/// Writes a scene file (see [`scene_to_json`]); I/O errors name the file.
///
/// The file appears whole or not at all (see [`write_atomically`]).
pub fn write_scene(path: &Path, scene: &Scene) -> Result<()> {
    write_atomically(path, |w| {
        w.write_all(scene_to_json(scene).as_bytes()).map_err(|source| Error::Io { path: path.to_path_buf(), source })
    })
}

/// Writes `path` through `write`, into a hidden temporary file beside it that is renamed over
/// `path` only once `write` succeeded: a failure (here, in `write`, or a full disk) leaves no
/// empty or partial file, and an existing `path` as it was.
pub fn write_atomically(path: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let name = path.file_name().ok_or_else(|| io(std::io::Error::other("not a file name")))?;
    let tmp = path.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
        write(&mut w)?;
        w.into_inner().map_err(|e| io(e.into_error()))?;
        std::fs::rename(&tmp, path).map_err(io)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
