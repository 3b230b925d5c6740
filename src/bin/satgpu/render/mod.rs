//! Pictures of scenes: `satgpu render`, and the frames `satgpu sim` writes.
//!
//! Every shape is drawn as what it is (a circle as a circle, a capsule as a stadium, a rounded
//! polygon as its core grown by the radius, arcs as short segments), colliding shapes in a second
//! colour, and each pair's minimum translation vector as an arrow centred where the two bounding
//! boxes meet. A picture of thousands of shapes at full extent is a solid blob, so above
//! [`CROP_ABOVE`] shapes [`View::Auto`] shows a window of about [`CROP_TARGET`] shapes around the
//! densest area, with an overview density map of the whole scene in the legend. Axes are in
//! world units; the title says which view it is.
//!
//! The frame writer's entry point is [`draw_bodies`]: world-space shapes in, a [`Picture`] out,
//! shapes outside the view culled before any drawing, so 100,000 bodies cost little more than
//! the thousand that are drawn.

mod parts;
mod periodic;
mod window;

use std::path::Path;

use satgpu::gpu;
use satgpu::{Aabb, Contact, DetectOptions, Error, Polygon};

use crate::draw::{self, fit, line_height, text_width, ticks, Anchor, Color, Drawing, Format, Paint, Rect};
use crate::{DeviceArgs, Failure, SceneArgs};
use parts::*;
pub use window::auto_window;
use window::*;

/// Above this many shapes, [`View::Auto`] crops.
pub const CROP_ABOVE: usize = 2000;
/// About how many shapes an automatic crop holds.
pub const CROP_TARGET: usize = 1000;

const BODY: Paint = Paint::both(Color::rgb(158, 202, 225).alpha(190), Color::rgb(33, 102, 172), 1.0);
/// The second group of bodies ([`Bodies::groups`]).
const SECOND: Paint = Paint::both(Color::rgb(161, 217, 155).alpha(190), Color::rgb(35, 139, 69), 1.0);
const COLLIDING: Paint = Paint::both(Color::rgb(252, 141, 89).alpha(200), Color::rgb(179, 0, 0), 1.0);
const FIXED: Paint = Paint::both(Color::rgb(200, 200, 200), Color::rgb(80, 80, 80), 1.0);
/// An image of a body across a periodic box's edge ([`Bodies::image_of`]), and the box.
const IMAGE: Paint = Paint::both(Color::rgb(158, 202, 225).alpha(60), Color::rgb(33, 102, 172).alpha(90), 1.0);
const PERIODIC_BOX: Color = Color::rgb(118, 42, 131);
const MTV: Color = Color::rgb(0, 110, 50);
const VIEW_BOX: Color = Color::rgb(0, 0, 200);
/// Blank space around the picture's edges, in pixels.
const MARGIN: f32 = 16.0;
/// Shapes smaller than this, in pixels, are drawn as dots so that they stay visible.
const DOT_BELOW_PX: f64 = 2.0;
/// The radius of those dots, in pixels.
const DOT_PX: f32 = 2.0;

/// Which part of the scene a picture shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum View {
    /// [`View::All`] up to [`CROP_ABOVE`] shapes; above, a window of about [`CROP_TARGET`]
    /// shapes around the densest area ([`auto_window`]).
    Auto,
    /// Every shape, however many.
    All,
    /// This world-space window (widened to the picture's aspect ratio). Frames of an animation
    /// should all use one window, for example [`auto_window`] of the first frame.
    Window(Aabb),
    /// A heat map of shapes per cell over the whole scene instead of the shapes.
    Density,
}

/// `--view` on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewArg {
    /// Every shape up to 2000; above, a crop of about 1000 around the densest area.
    Auto,
    /// Every shape, however many.
    All,
    /// A heat map of shapes per cell.
    Density,
}

/// How to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Picture width in pixels; the height follows from the view and the legend.
    pub width: u32,
    pub view: View,
    /// The first title line: scene name, frame number, ...
    pub title: String,
    /// Where the contacts come from, for the legend ("from pairs.csv"); empty says nothing.
    pub contacts_source: String,
}

impl Default for Options {
    fn default() -> Options {
        Options { width: 1000, view: View::Auto, title: String::new(), contacts_source: String::new() }
    }
}

/// What to draw.
#[derive(Debug, Clone, Copy)]
pub struct Bodies<'a> {
    /// Shapes in world coordinates; contacts index into this slice.
    pub shapes: &'a [Polygon],
    /// Which shapes are static (walls): drawn grey, never as colliding. Empty: none.
    pub fixed: &'a [bool],
    /// Colliding pairs with their minimum translation vectors.
    pub contacts: &'a [Contact],
    /// Which bodies belong to the second group, drawn in a second colour (empty: none), and the
    /// legend's names of the two groups.
    pub groups: &'a [bool],
    pub group_names: [&'a str; 2],
    /// The body of each shape where bodies have several parts (empty: each shape is a body):
    /// a body is drawn as its outline, the seams between its parts faint, and coloured as one.
    pub owners: &'a [u32],
    /// In a periodic box, for each shape the shape it is an image of, across an edge, drawn faint
    /// (`u32::MAX`: the scene's own); empty: none.
    pub image_of: &'a [u32],
    /// The periodic box, outlined.
    pub periodic: Option<Aabb>,
}

/// A drawn scene, a one-line description of its view (the title's second line) and the world
/// window it shows.
pub struct Picture {
    pub drawing: Drawing,
    pub view: String,
    pub window: Aabb,
}

impl Picture {
    /// Writes the picture as SVG or PNG, by the extension of `path`.
    pub fn save(&self, path: &Path) -> Result<(), Failure> {
        self.drawing.save(path)
    }
}

/// Where the colliding pairs of `satgpu render` come from.
pub enum PairSource<'a> {
    None,
    File(&'a Path),
    Detect(&'a DeviceArgs),
}

/// `satgpu render`: reads the scene and the pairs, draws, writes `out`, prints what it wrote.
pub fn command(
    input: &SceneArgs,
    pairs: PairSource<'_>,
    out: &Path,
    width: u32,
    view: ViewArg,
    window: &[f64],
) -> Result<(), Failure> {
    Format::of(out, "--out")?;
    if !(200..=20_000).contains(&width) {
        return Err(Failure(2, format!("--size {width}: must be between 200 and 20000 pixels")));
    }
    let view = match (window, view) {
        ([], ViewArg::Auto) => View::Auto,
        ([], ViewArg::All) => View::All,
        ([], ViewArg::Density) => View::Density,
        (&[x0, y0, x1, y1], _) if x0 < x1 && y0 < y1 && window.iter().all(|v| v.is_finite()) => {
            View::Window(Aabb { min: [x0, y0], max: [x1, y1] })
        }
        _ => return Err(Failure(2, "--window takes X0,Y0,X1,Y1 with X0 < X1 and Y0 < Y1".into())),
    };
    let scene = input.read()?;
    let (bodies, compound) = (&scene.bodies, scene.compound);
    // Compound bodies are drawn part by part; a pair of bodies marks its deepest part pair
    // (pairs read from a file, whose parts are not known, the bodies' first parts).
    let owners: Vec<u32> = if compound { scene.owners() } else { vec![] };
    let first = |body: u32| owners.partition_point(|&o| o < body) as u32;
    let to_parts = |contacts: Vec<Contact>, parts: Option<Vec<[u32; 2]>>| -> Vec<Contact> {
        if !compound {
            return contacts;
        }
        let deepest = |i: usize, k: usize| parts.as_ref().and_then(|p| p.get(i)).map_or(0, |p| p[k]);
        contacts
            .into_iter()
            .enumerate()
            .map(|(i, c)| Contact { a: first(c.a) + deepest(i, 0), b: first(c.b) + deepest(i, 1), ..c })
            .collect()
    };
    let (contacts, source) = match pairs {
        PairSource::None => (vec![], String::new()),
        PairSource::File(path) => {
            (to_parts(read_pairs(path, bodies.len())?, None), format!("from {}", file_name(path)))
        }
        PairSource::Detect(device) => {
            let gpu = device.open()?;
            let mut options = DetectOptions::default().with_filters(scene.filters.clone());
            options.world.periodic = scene.periodic;
            let frame = gpu::detect(&gpu, bodies, &options)?;
            (to_parts(frame.contacts, Some(frame.shapes)), "detected on the GPU".to_string())
        }
    };
    // Every shape, body after body, moved out of the scene (in a periodic box, into it, with the
    // images across its edges).
    let periodic = scene.periodic;
    let polygons: Vec<Polygon> = scene.into_shapes();
    let (polygons, image_of, owners, contacts) = match &periodic {
        Some(p) => {
            let w = periodic::wrap(polygons, &owners, contacts, p);
            (w.shapes, w.image_of, w.owners, w.contacts)
        }
        None => (polygons, vec![], owners, contacts),
    };
    let frame = periodic.map(|p| p.bounds()).map(|[x0, y0, x1, y1]| Aabb { min: [x0, y0], max: [x1, y1] });
    let options = Options { width, view, title: file_name(&input.scene), contacts_source: source };
    let picture = draw_bodies(
        &Bodies {
            shapes: &polygons,
            fixed: &[],
            contacts: &contacts,
            groups: &[],
            group_names: ["", ""],
            owners: &owners,
            image_of: &image_of,
            periodic: frame,
        },
        &options,
    );
    picture.save(out)?;
    let w = picture.window;
    println!(
        "wrote {}: {} shapes, {} x {} px, {} (x {}..{}, y {}..{}), {} colliding pairs",
        out.display(),
        polygons.len(),
        picture.drawing.width(),
        picture.drawing.height(),
        picture.view,
        draw::short(w.min[0]),
        draw::short(w.max[0]),
        draw::short(w.min[1]),
        draw::short(w.max[1]),
        contacts.len()
    );
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// Reads pairs written by `satgpu detect --out FILE.csv` (either `--contacts`): the columns are
/// found by their header names `a`, `b`, `normal_x`, `normal_y` and `depth`, others ignored.
/// Errors name the file and the line.
pub fn read_pairs(path: &Path, shapes: usize) -> Result<Vec<Contact>, Failure> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let name = path.display();
    let bad = |line: usize, what: String| Failure(2, format!("{name}: line {line}: {what}"));
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::trim).collect(),
        None => return Err(bad(1, "empty file; expected the header a,b,normal_x,normal_y,depth".into())),
    };
    let mut columns = [0; 5];
    for (slot, want) in columns.iter_mut().zip(["a", "b", "normal_x", "normal_y", "depth"]) {
        *slot = header.iter().position(|h| *h == want).ok_or_else(|| {
            bad(1, format!("the header has no column {want:?} (expected a,b,normal_x,normal_y,depth)"))
        })?;
    }
    let mut contacts = vec![];
    for (line, text) in lines {
        if text.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        let field = |k: usize| -> Result<&str, Failure> {
            fields.get(columns[k]).copied().ok_or_else(|| {
                bad(
                    line,
                    format!(
                        "{} fields, but the header puts {:?} in field {}",
                        fields.len(),
                        header[columns[k]],
                        columns[k] + 1
                    ),
                )
            })
        };
        let index = |k: usize| -> Result<u32, Failure> {
            let f = field(k)?;
            let i: u32 =
                f.parse().map_err(|_| bad(line, format!("{} = {f:?} is not a shape index", header[columns[k]])))?;
            if i as usize >= shapes {
                return Err(bad(
                    line,
                    format!("{} = {i} is out of range: the scene has {shapes} shapes", header[columns[k]]),
                ));
            }
            Ok(i)
        };
        let number = |k: usize| -> Result<f64, Failure> {
            let f = field(k)?;
            f.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(line, format!("{} = {f:?} is not a finite number", header[columns[k]])))
        };
        let (a, b) = (index(0)?, index(1)?);
        if a == b {
            return Err(bad(line, format!("a pair of shape {a} with itself")));
        }
        let normal = [number(2)?, number(3)?];
        let depth = number(4)?;
        if depth < 0.0 {
            return Err(bad(line, format!("depth {depth} is negative")));
        }
        contacts.push(Contact { a, b, normal, depth });
    }
    Ok(contacts)
}

/// Draws world-space shapes, their collisions and a legend (see the module docs).
pub fn draw_bodies(bodies: &Bodies<'_>, options: &Options) -> Picture {
    let shapes = bodies.shapes;
    let n = shapes.len();
    let boxes: Vec<Aabb> = shapes.iter().map(Polygon::aabb).collect();
    let centres: Vec<[f64; 2]> = boxes.iter().map(centre).collect();
    let fixed: Vec<bool> = (0..n).map(|i| bodies.fixed.get(i).copied().unwrap_or(false)).collect();
    let contacts: Vec<&Contact> =
        bodies.contacts.iter().filter(|c| (c.a as usize) < n && (c.b as usize) < n && c.a != c.b).collect();
    let mut colliding = vec![false; n];
    // An image's pair makes the body it copies collide.
    let source = |i: usize| bodies.image_of.get(i).filter(|&&s| s != u32::MAX).map_or(i, |&s| s as usize);
    for c in &contacts {
        for i in [source(c.a as usize), source(c.b as usize)] {
            colliding[i] = !fixed[i];
        }
    }
    // A body of several parts collides as one.
    if !bodies.owners.is_empty() {
        let hit: std::collections::HashSet<u32> = (0..n).filter(|&i| colliding[i]).map(|i| bodies.owners[i]).collect();
        for i in 0..n {
            colliding[i] |= !fixed[i] && hit.contains(&bodies.owners[i]);
        }
    }

    // The world window, its description, and the picture's layout around it.
    let (view, auto) = match options.view {
        View::Auto if n > CROP_ABOVE => (View::Window(auto_window(shapes, CROP_TARGET)), true),
        View::Auto => (View::All, false),
        v => (v, false),
    };
    let overview = robust_extent(&centres, &boxes);
    let window = match view {
        View::Window(w) => w,
        View::Density => overview,
        _ => pad(union(&boxes), 0.03),
    };
    let cropped = matches!(view, View::Window(_));
    let aspect_range = if cropped { (1.0, 1.0) } else { (0.3, 1.2) };
    let overview_aspect = (overview.max[1] - overview.min[1]) / (overview.max[0] - overview.min[0]);
    let inset = ((n > CROP_ABOVE || cropped) && view != View::Density).then_some(overview_aspect);
    let layout = Layout::new(options.width, window, aspect_range, inset, n);
    let window = layout.window;
    let visible: Vec<usize> = (0..n).filter(|&i| boxes[i].overlaps(&window)).collect();
    let view_text = match view {
        View::Density => format!(
            "view: density, {n} shapes, cells {} x {}",
            draw::short(layout.cell[0]),
            draw::short(layout.cell[1])
        ),
        View::Window(_) => {
            format!("view: crop{}, {} of {n} shapes", if auto { " of densest area" } else { "" }, visible.len())
        }
        _ => format!("view: all {n} shapes"),
    };

    let mut d = Drawing::new(layout.width, layout.height);
    let s = layout.scale;
    let title_w = layout.width as f32 - 2.0 * MARGIN;
    d.text([MARGIN, MARGIN], &fit(&options.title, title_w, s), s, Color::BLACK, Anchor::Start);
    d.text([MARGIN, MARGIN + line_height(s) + 6.0], &fit(&view_text, title_w, s), s, Color::GREY, Anchor::Start);

    d.clip(Some(layout.plot));
    let mut legend: Vec<(Mark, String)> = vec![];
    if view == View::Density {
        let counts = density(&centres, window, layout.grid[0], layout.grid[1]);
        let max = draw_density(&mut d, &counts, layout.grid[0], layout.grid[1], layout.plot);
        legend.push((Mark::Heat, format!("shapes per cell, 1 to {max}")));
        if !(contacts.is_empty() && options.contacts_source.is_empty()) {
            legend.push((Mark::None, format!("{} colliding pairs", contacts.len())));
        }
    } else {
        let px = f64::from(layout.plot.w) / (window.max[0] - window.min[0]);
        let second: Vec<bool> = (0..n).map(|i| bodies.groups.get(i).copied().unwrap_or(false)).collect();
        // Static shapes first, then bodies, then the colliding ones on top.
        let style: Vec<(u8, Paint)> = (0..n)
            .map(|i| match (fixed[i], colliding[i], second[i]) {
                _ if source(i) != i => (0, IMAGE),
                (true, _, _) => (0, FIXED),
                (_, true, _) => (2, COLLIDING),
                (_, _, true) => (1, SECOND),
                _ => (1, BODY),
            })
            .collect();
        let dots = draw_shapes(&mut d, (shapes, bodies.owners), &boxes, &visible, &style, &layout);
        let factor = draw_arrows(&mut d, &contacts, &boxes, window, px, &layout);
        if let Some(b) = bodies.periodic {
            let to_px = layout.to_px();
            let corners = [b.min, [b.max[0], b.min[1]], b.max, [b.min[0], b.max[1]]].map(to_px);
            d.polygon(corners.to_vec(), Paint::stroke(PERIODIC_BOX, 1.5 * layout.scale as f32 / 2.0), "periodic-box");
        }
        let colliding_count = colliding.iter().filter(|&&c| c).count();
        let fixed_count = fixed.iter().filter(|&&f| f).count();
        if second.iter().any(|&g| g) {
            legend.push((Mark::Swatch(BODY), format!("body, {}", bodies.group_names[0])));
            legend.push((Mark::Swatch(SECOND), format!("body, {}", bodies.group_names[1])));
        } else {
            legend.push((Mark::Swatch(BODY), "body".into()));
        }
        // Of the scene's own shapes: images are not counted.
        let own = (0..n).filter(|&i| source(i) == i).count();
        legend.push((Mark::Swatch(COLLIDING), format!("colliding body ({colliding_count} of {own})")));
        if fixed_count > 0 {
            legend.push((Mark::Swatch(FIXED), format!("static shape ({fixed_count})")));
        }
        if bodies.periodic.is_some() {
            let images = (0..n).filter(|&i| source(i) != i).count();
            legend.push((Mark::Swatch(IMAGE), format!("image across the periodic box's edge ({images})")));
        }
        let len = if factor == 1.0 { "depth".to_string() } else { format!("{} x depth", draw::short(factor)) };
        let (lo, hi) = arrow_px(s);
        legend.push((Mark::Arrow, format!("MTV a->b, length = {len}")));
        legend.push((Mark::None, format!("  (drawn {lo:.0} to {hi:.0} px long)")));
        let source =
            if options.contacts_source.is_empty() { String::new() } else { format!(" {}", options.contacts_source) };
        if contacts.is_empty() && source.is_empty() {
            legend.push((Mark::None, "no pairs given".into()));
        } else {
            legend.push((Mark::None, format!("{} pairs{source}", contacts.len())));
        }
        if dots > 0 {
            legend.push((Mark::Dot, format!("{dots} under {DOT_BELOW_PX} px: dots")));
        }
    }
    d.clip(None);
    d.rect(layout.plot, Paint::stroke(Color::BLACK, 1.0), "frame");
    draw_axes(&mut d, &layout);
    if let Some(inset) = layout.inset {
        let outside = draw_overview(&mut d, &centres, overview, window, inset, s);
        legend.push((Mark::ViewBox, "the view, on the overview".into()));
        if outside > 0 {
            legend.push((Mark::None, format!("{outside} far outliers off the overview")));
        }
    }
    legend.push((Mark::None, "axes: world units".into()));
    let bottom = draw_legend(&mut d, &legend, &layout);
    d.set_height(bottom.max(layout.height as f32).ceil() as u32 + MARGIN as u32);
    Picture { drawing: d, view: view_text, window }
}

#[cfg(test)]
mod tests;
