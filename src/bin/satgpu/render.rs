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

use std::path::Path;

use satgpu::gpu;
use satgpu::scene;
use satgpu::{Aabb, Contact, Error, Polygon};

use crate::draw::{self, fit, line_height, text_width, ticks, Anchor, Color, Drawing, Format, Paint, Rect};
use crate::{DeviceArgs, Failure};

/// Above this many shapes, [`View::Auto`] crops.
pub const CROP_ABOVE: usize = 2000;
/// About how many shapes an automatic crop holds.
pub const CROP_TARGET: usize = 1000;

const BODY: Paint = Paint::both(Color::rgb(158, 202, 225).alpha(190), Color::rgb(33, 102, 172), 1.0);
/// The second group of bodies ([`Bodies::groups`]).
const SECOND: Paint = Paint::both(Color::rgb(161, 217, 155).alpha(190), Color::rgb(35, 139, 69), 1.0);
const COLLIDING: Paint = Paint::both(Color::rgb(252, 141, 89).alpha(200), Color::rgb(179, 0, 0), 1.0);
const FIXED: Paint = Paint::both(Color::rgb(200, 200, 200), Color::rgb(80, 80, 80), 1.0);
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
    scene_path: &Path,
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
    let scene::Scene { polygons, filters } = scene::read_scene(scene_path)?;
    let (contacts, source) = match pairs {
        PairSource::None => (vec![], String::new()),
        PairSource::File(path) => (read_pairs(path, polygons.len())?, format!("from {}", file_name(path))),
        PairSource::Detect(device) => {
            let gpu = device.open()?;
            (gpu::detect_filtered(&gpu, &polygons, &filters)?, "detected on the GPU".to_string())
        }
    };
    let options = Options { width, view, title: file_name(scene_path), contacts_source: source };
    let picture = draw_bodies(
        &Bodies { shapes: &polygons, fixed: &[], contacts: &contacts, groups: &[], group_names: ["", ""] },
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
    for c in &contacts {
        for i in [c.a as usize, c.b as usize] {
            colliding[i] = !fixed[i];
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
                (true, _, _) => (0, FIXED),
                (_, true, _) => (2, COLLIDING),
                (_, _, true) => (1, SECOND),
                _ => (1, BODY),
            })
            .collect();
        let dots = draw_shapes(&mut d, shapes, &boxes, &visible, &style, &layout);
        let factor = draw_arrows(&mut d, &contacts, &boxes, window, px, &layout);
        let colliding_count = colliding.iter().filter(|&&c| c).count();
        let fixed_count = fixed.iter().filter(|&&f| f).count();
        if second.iter().any(|&g| g) {
            legend.push((Mark::Swatch(BODY), format!("body, {}", bodies.group_names[0])));
            legend.push((Mark::Swatch(SECOND), format!("body, {}", bodies.group_names[1])));
        } else {
            legend.push((Mark::Swatch(BODY), "body".into()));
        }
        legend.push((Mark::Swatch(COLLIDING), format!("colliding body ({colliding_count} of {n})")));
        if fixed_count > 0 {
            legend.push((Mark::Swatch(FIXED), format!("static shape ({fixed_count})")));
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

/// What stands left of a legend entry.
enum Mark {
    None,
    Swatch(Paint),
    Arrow,
    Dot,
    ViewBox,
    Heat,
}

/// The legend entries one per row under the plot, left of the overview; returns the bottom.
fn draw_legend(d: &mut Drawing, entries: &[(Mark, String)], layout: &Layout) -> f32 {
    let s = layout.scale;
    let lh = line_height(s);
    let (x, mut y) = (layout.plot.x, layout.legend_top);
    let mark_w = 2.0 * lh;
    for (mark, text) in entries {
        let mid = y + lh / 2.0;
        match mark {
            Mark::None => {}
            Mark::Swatch(paint) => d.rect(Rect::new(x, y, mark_w, lh), *paint, "legend"),
            Mark::Arrow => d.arrow([x, mid], [x + mark_w, mid], MTV, 2.0, "legend"),
            Mark::Dot => d.circle([x + lh, mid], DOT_PX, Paint::fill(dot_colour(BODY)), "legend"),
            Mark::ViewBox => {
                d.rect(Rect::new(x + 2.0, y + 2.0, mark_w - 4.0, lh - 4.0), Paint::stroke(VIEW_BOX, 2.0), "legend")
            }
            Mark::Heat => {
                for k in 0..8 {
                    let r = Rect::new(x + k as f32 * mark_w / 8.0, y, mark_w / 8.0 + 0.5, lh);
                    d.rect(r, Paint::fill(heat(k as f32 / 7.0)), "legend");
                }
            }
        }
        let text_x = x + mark_w + 8.0;
        d.text([text_x, y], &fit(text, layout.legend_w - mark_w - 8.0, s), s, Color::BLACK, Anchor::Start);
        y += lh + 8.0;
    }
    y
}

/// The visible shapes, each with its paint, in the order of their ranks (lowest first); shapes
/// under `DOT_BELOW_PX` as dots. Returns how many were dots.
fn draw_shapes(
    d: &mut Drawing,
    shapes: &[Polygon],
    boxes: &[Aabb],
    visible: &[usize],
    style: &[(u8, Paint)],
    layout: &Layout,
) -> usize {
    let to_px = layout.to_px();
    let px = f64::from(layout.plot.w) / (layout.window.max[0] - layout.window.min[0]);
    let mut order = visible.to_vec();
    order.sort_by_key(|&i| style[i].0);
    let mut dots = 0;
    for i in order {
        let paint = style[i].1;
        let b = &boxes[i];
        if (b.max[0] - b.min[0]).max(b.max[1] - b.min[1]) * px < DOT_BELOW_PX {
            dots += 1;
            d.circle(to_px(centre(b)), DOT_PX, Paint::fill(dot_colour(paint)), "dot");
            continue;
        }
        let p = &shapes[i];
        if p.vertices().len() == 1 {
            d.circle(to_px(p.vertices()[0]), (p.radius() * px) as f32, paint, "shape");
        } else {
            d.polygon(outline(p, px).into_iter().map(&to_px).collect(), paint, "shape");
        }
    }
    dots
}

fn dot_colour(paint: Paint) -> Color {
    paint.stroke.unwrap_or(Color::BLACK)
}

/// The overview: a density map of the whole scene in `inset`, the view's box on it, a line
/// above and one below. Returns how many shapes lie outside the map (far outliers).
fn draw_overview(d: &mut Drawing, centres: &[[f64; 2]], extent: Aabb, view: Aabb, inset: Rect, s: u32) -> usize {
    let lh = line_height(s);
    let [cols, rows] = grid_for(centres.len(), inset);
    let counts = density(centres, extent, cols, rows);
    let outside = centres.iter().filter(|c| !contains(&extent, **c)).count();
    d.text([inset.x, inset.y - lh - 6.0], "whole scene", s, Color::BLACK, Anchor::Start);
    d.rect(inset, Paint::fill(Color::rgb(250, 250, 250)), "overview");
    let max = draw_density(d, &counts, cols, rows, inset);
    d.rect(inset, Paint::stroke(Color::GREY, 1.0), "overview");
    let sx = f64::from(inset.w) / (extent.max[0] - extent.min[0]);
    let sy = f64::from(inset.h) / (extent.max[1] - extent.min[1]);
    let bx = |v: f64| (f64::from(inset.x) + (v - extent.min[0]) * sx).clamp(0.0, f64::from(inset.right())) as f32;
    let by =
        |v: f64| (f64::from(inset.bottom()) - (v - extent.min[1]) * sy).clamp(0.0, f64::from(inset.bottom())) as f32;
    let (x0, x1, y0, y1) = (bx(view.min[0]), bx(view.max[0]), by(view.max[1]), by(view.min[1]));
    d.rect(Rect::new(x0, y0, (x1 - x0).max(3.0), (y1 - y0).max(3.0)), Paint::stroke(VIEW_BOX, 2.0), "overview");
    let note = format!("1 to {max} per cell");
    d.text([inset.x, inset.bottom() + 6.0], &fit(&note, d.width() as f32 - inset.x, s), s, Color::BLACK, Anchor::Start);
    outside
}

/// A square window of about `target` shape centres around the densest area of the scene, the
/// smallest such square (by bisection) centred on the fullest 3 x 3 block of a grid whose blocks
/// would hold about `target` shapes if the scene were uniform. Blocks within 10 % of the fullest
/// count as equal and the one nearest the middle wins, so that a uniform scene is cropped in its
/// middle rather than wherever noise peaks. Every shape's box when there are `target` or fewer.
pub fn auto_window(shapes: &[Polygon], target: usize) -> Aabb {
    let boxes: Vec<Aabb> = shapes.iter().map(Polygon::aabb).collect();
    let all = union(&boxes);
    if shapes.len() <= target.max(1) {
        return all;
    }
    let centres: Vec<[f64; 2]> = boxes.iter().map(centre).collect();
    let extent = robust_extent(&centres, &boxes);
    let k = ((3.0 * (shapes.len() as f64 / target as f64).sqrt()).ceil() as usize).clamp(3, 256);
    let counts = density(&centres, extent, k, k);
    let size = [(extent.max[0] - extent.min[0]) / k as f64, (extent.max[1] - extent.min[1]) / k as f64];
    let mid = centre(&extent);
    let blocks: Vec<(u32, [f64; 2])> = (1..k - 1)
        .flat_map(|r| (1..k - 1).map(move |c| (c, r)))
        .map(|(c, r)| {
            let sum = (r - 1..=r + 1).flat_map(|rr| counts[rr * k + c - 1..=rr * k + c + 1].iter()).sum();
            (sum, [extent.min[0] + (c as f64 + 0.5) * size[0], extent.min[1] + (r as f64 + 0.5) * size[1]])
        })
        .collect();
    let fullest = blocks.iter().map(|b| b.0).max().unwrap_or(0);
    let distance = |p: &[f64; 2]| (p[0] - mid[0]).hypot(p[1] - mid[1]);
    let c = blocks
        .iter()
        .filter(|b| f64::from(b.0) >= 0.9 * f64::from(fullest))
        .map(|b| b.1)
        .min_by(|p, q| distance(p).total_cmp(&distance(q)))
        .unwrap_or(mid);
    let count = |h: f64| centres.iter().filter(|p| (p[0] - c[0]).abs() <= h && (p[1] - c[1]).abs() <= h).count();
    let reach = [all.min[0] - c[0], all.max[0] - c[0], all.min[1] - c[1], all.max[1] - c[1]];
    // Start from the typical extent, not from far outliers' reach, so that the bisection's
    // steps stay small next to the crop.
    let typical = (extent.max[0] - extent.min[0]).max(extent.max[1] - extent.min[1]);
    let reach = reach.iter().map(|v| v.abs()).fold(0.0, f64::max);
    let (mut lo, mut hi) = (0.0, if count(typical) >= target { typical } else { reach });
    for _ in 0..48 {
        let h = 0.5 * (lo + hi);
        if count(h) >= target {
            hi = h;
        } else {
            lo = h;
        }
    }
    Aabb { min: [c[0] - hi, c[1] - hi], max: [c[0] + hi, c[1] + hi] }
}

/// The picture's geometry: where the plot, the legend and the overview go, and the world
/// window (widened to the plot's aspect ratio).
struct Layout {
    width: u32,
    height: u32,
    /// Text scale (cells of 8 x `scale` pixels).
    scale: u32,
    plot: Rect,
    window: Aabb,
    legend_top: f32,
    legend_w: f32,
    inset: Option<Rect>,
    /// Density cells across and down, and a cell's size in world units.
    grid: [usize; 2],
    cell: [f64; 2],
}

impl Layout {
    /// `inset`: the aspect ratio (height / width) of the overview, if there is one; `n`: the
    /// number of shapes, for the density grid.
    fn new(width: u32, window: Aabb, aspect_range: (f64, f64), inset: Option<f64>, n: usize) -> Layout {
        let width = width.max(200);
        let scale = if width >= 800 { 2 } else { 1 };
        let lh = line_height(scale);
        let ww = (window.max[0] - window.min[0]).max(f64::MIN_POSITIVE);
        let wh = (window.max[1] - window.min[1]).max(f64::MIN_POSITIVE);
        let aspect = (wh / ww).clamp(aspect_range.0, aspect_range.1);
        // Widen the window so that one world unit is as long across as down.
        let (ww2, wh2) = if wh / ww > aspect { (wh / aspect, wh) } else { (ww, ww * aspect) };
        let c = centre(&window);
        let window = Aabb { min: [c[0] - ww2 / 2.0, c[1] - wh2 / 2.0], max: [c[0] + ww2 / 2.0, c[1] + wh2 / 2.0] };
        let (yt, ystep) = ticks(window.min[1], window.max[1], 8);
        let label_w = yt.iter().map(|v| text_width(&draw::tick_label(*v, ystep), scale)).fold(0.0, f32::max);
        let left = (label_w + 14.0).max(40.0);
        // The last x label is centred on the plot's right edge.
        let (xt, xstep) = ticks(window.min[0], window.max[0], 8);
        let x_label_w = xt.iter().map(|v| text_width(&draw::tick_label(*v, xstep), scale)).fold(0.0, f32::max);
        let right = (x_label_w / 2.0 + 8.0).max(2.0 * MARGIN);
        let top = MARGIN + 2.5 * lh + 6.0 + 14.0;
        let plot_w = (width as f32 - left - right).max(50.0);
        let plot_h = (f64::from(plot_w) * aspect) as f32;
        let plot = Rect::new(left, top, plot_w, plot_h);
        let legend_top = plot.bottom() + lh + 24.0;
        let mut legend_h: f32 = 0.0;
        let mut legend_w = width as f32 - left - MARGIN;
        let inset = inset.map(|aspect| {
            let w = (width as f32 * 0.26).round();
            let h = (w * aspect.clamp(0.4, 1.2) as f32).round();
            legend_w = plot_w - w - 2.0 * lh;
            legend_h = legend_h.max(h + 2.0 * lh + 24.0);
            Rect::new(plot.right() - w, legend_top + lh + 6.0, w, h)
        });
        let height = (legend_top + legend_h).ceil() as u32;
        let grid = grid_for(n, plot);
        let cell = [ww2 / grid[0] as f64, wh2 / grid[1] as f64];
        Layout { width, height, scale, plot, window, legend_top, legend_w, inset, grid, cell }
    }

    /// World to pixel coordinates (y up to y down).
    fn to_px(&self) -> impl Fn([f64; 2]) -> [f32; 2] {
        let (w, plot) = (self.window, self.plot);
        let s = f64::from(plot.w) / (w.max[0] - w.min[0]);
        move |p| {
            [
                (f64::from(plot.x) + (p[0] - w.min[0]) * s) as f32,
                (f64::from(plot.bottom()) - (p[1] - w.min[1]) * s) as f32,
            ]
        }
    }
}

/// The shape's outline in world coordinates: the core's vertices, each replaced by an arc of
/// the radius from the previous edge's normal to the next one's, in steps short enough to stay
/// within a quarter pixel of the true arc at `px` pixels per unit.
fn outline(p: &Polygon, px: f64) -> Vec<[f64; 2]> {
    let v = p.vertices();
    let r = p.radius();
    let r_px = r * px;
    if r_px < 0.5 {
        return v.to_vec();
    }
    let normals = p.edge_normals();
    let step = (2.0 / r_px).sqrt().min(std::f64::consts::FRAC_PI_4);
    let mut out = vec![];
    for i in 0..v.len() {
        let prev = normals[(i + v.len() - 1) % v.len()];
        let next = normals[i];
        let a0 = prev[1].atan2(prev[0]);
        let sweep = (next[1].atan2(next[0]) - a0).rem_euclid(std::f64::consts::TAU);
        let steps = ((sweep / step).ceil() as usize).clamp(1, 64);
        for k in 0..=steps {
            let a = a0 + sweep * k as f64 / steps as f64;
            out.push([v[i][0] + r * a.cos(), v[i][1] + r * a.sin()]);
        }
    }
    out
}

/// MTV arrows are drawn at least and at most this long, in pixels, at text `scale`.
fn arrow_px(scale: u32) -> (f64, f64) {
    (4.0 * f64::from(scale), 30.0 * f64::from(scale))
}

/// MTV arrows, centred where the pair's boxes overlap, a factor times the depth long within
/// [`arrow_px`]. The factor, returned, is the smallest of 1, 2, 5, 10, ... that makes the median
/// visible depth about 20 px (at text scale 2) long.
fn draw_arrows(d: &mut Drawing, contacts: &[&Contact], boxes: &[Aabb], window: Aabb, px: f64, layout: &Layout) -> f64 {
    let s = f64::from(layout.scale) / 2.0;
    let (min_px, max_px) = arrow_px(layout.scale);
    let to_px = layout.to_px();
    let at: Vec<([f64; 2], &Contact)> = contacts
        .iter()
        .map(|c| {
            let (a, b) = (&boxes[c.a as usize], &boxes[c.b as usize]);
            let lo = [a.min[0].max(b.min[0]), a.min[1].max(b.min[1])];
            let hi = [a.max[0].min(b.max[0]), a.max[1].min(b.max[1])];
            ([(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0], *c)
        })
        .filter(|(p, _)| contains(&window, *p))
        .collect();
    let mut depths: Vec<f64> = at.iter().map(|(_, c)| c.depth * px).filter(|d| *d > 0.0).collect();
    depths.sort_by(f64::total_cmp);
    let factor = depths.get(depths.len() / 2).map_or(1.0, |m| nice_at_least(20.0 * s / m));
    for (p, c) in &at {
        let len = c.normal[0].hypot(c.normal[1]);
        if len.is_nan() || len <= 0.0 {
            continue;
        }
        let n = [c.normal[0] / len, c.normal[1] / len];
        let half = (c.depth * px * factor).clamp(min_px, max_px) / 2.0 / px;
        let from = to_px([p[0] - n[0] * half, p[1] - n[1] * half]);
        let to = to_px([p[0] + n[0] * half, p[1] + n[1] * half]);
        d.arrow(from, to, MTV, 1.5 * s as f32, "mtv");
    }
    factor
}

/// The smallest of 1, 2, 5, 10, 20, ... at least `x` (and at least 1: arrows never shrink).
fn nice_at_least(x: f64) -> f64 {
    if x.is_nan() || x <= 1.0 {
        return 1.0;
    }
    let power = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|v| *v >= x).unwrap_or(10.0 * power)
}

/// Ticks and world-coordinate labels on the bottom and left edges of the plot.
fn draw_axes(d: &mut Drawing, layout: &Layout) {
    let (plot, w, s) = (layout.plot, layout.window, layout.scale);
    let to_px = layout.to_px();
    // As many x ticks as fit with two characters between labels.
    let (xt, xstep) = (2..=10)
        .rev()
        .map(|k| ticks(w.min[0], w.max[0], k))
        .find(|(t, step)| {
            let widest = t.iter().map(|v| text_width(&draw::tick_label(*v, *step), s)).fold(0.0, f32::max);
            t.len() as f32 * (widest + 2.0 * draw::char_width(s)) <= plot.w
        })
        .unwrap_or_else(|| ticks(w.min[0], w.max[0], 2));
    for v in xt {
        let x = to_px([v, w.min[1]])[0];
        d.line([x, plot.bottom()], [x, plot.bottom() + 6.0], Color::BLACK, 1.0);
        d.text([x, plot.bottom() + 9.0], &draw::tick_label(v, xstep), s, Color::BLACK, Anchor::Middle);
    }
    let max_y = (plot.h / (line_height(s) * 3.0)).floor().max(2.0) as usize;
    let (yt, ystep) = ticks(w.min[1], w.max[1], max_y.min(8));
    for v in yt {
        let y = to_px([w.min[0], v])[1];
        d.line([plot.x - 6.0, y], [plot.x, y], Color::BLACK, 1.0);
        d.text([plot.x - 9.0, y - line_height(s) / 2.0], &draw::tick_label(v, ystep), s, Color::BLACK, Anchor::End);
    }
}

/// Density cells across and down for `n` shapes in `area`: square cells of at least 4 px, big
/// enough that a uniform scene averages 8 shapes per cell, so that the map shows density rather
/// than noise.
fn grid_for(n: usize, area: Rect) -> [usize; 2] {
    let cell = (area.w * area.h * 8.0 / n.max(1) as f32).sqrt().clamp(4.0, area.w.min(area.h) / 4.0);
    [(area.w / cell).round().max(1.0) as usize, (area.h / cell).round().max(1.0) as usize]
}

/// Shape centres per cell of a `cols` x `rows` grid over `extent`, row 0 at the bottom.
fn density(centres: &[[f64; 2]], extent: Aabb, cols: usize, rows: usize) -> Vec<u32> {
    let mut counts = vec![0u32; cols * rows];
    let sx = cols as f64 / (extent.max[0] - extent.min[0]);
    let sy = rows as f64 / (extent.max[1] - extent.min[1]);
    for c in centres {
        let (fx, fy) = ((c[0] - extent.min[0]) * sx, (c[1] - extent.min[1]) * sy);
        if fx >= 0.0 && fy >= 0.0 && fx < cols as f64 && fy < rows as f64 {
            counts[fy as usize * cols + fx as usize] += 1;
        }
    }
    counts
}

/// One rectangle per non-empty cell, coloured from pale yellow (one shape) to dark red (the
/// most), into `area`; returns the most.
fn draw_density(d: &mut Drawing, counts: &[u32], cols: usize, rows: usize, area: Rect) -> u32 {
    let max = counts.iter().copied().max().unwrap_or(0).max(1);
    let (cw, ch) = (area.w / cols as f32, area.h / rows as f32);
    for r in 0..rows {
        for c in 0..cols {
            let k = counts[r * cols + c];
            if k == 0 {
                continue;
            }
            let y = area.bottom() - (r + 1) as f32 * ch;
            let t = (k - 1) as f32 / (max - 1).max(1) as f32;
            // Cells overlap by half a pixel so that no seams show between them.
            d.rect(Rect::new(area.x + c as f32 * cw, y, cw + 0.5, ch + 0.5), Paint::fill(heat(t)), "cell");
        }
    }
    max
}

/// The heat colour scale, t in [0, 1].
fn heat(t: f32) -> Color {
    let stops = [Color::rgb(255, 237, 160), Color::rgb(254, 178, 76), Color::rgb(240, 59, 32), Color::rgb(128, 0, 38)];
    let x = t.clamp(0.0, 1.0) * 3.0;
    let i = (x.floor() as usize).min(2);
    Color::mix(stops[i], stops[i + 1], x - i as f32)
}

fn centre(b: &Aabb) -> [f64; 2] {
    [(b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0]
}

fn contains(b: &Aabb, p: [f64; 2]) -> bool {
    b.min[0] <= p[0] && p[0] <= b.max[0] && b.min[1] <= p[1] && p[1] <= b.max[1]
}

/// The box around every box (a unit box at the origin when there are none).
fn union(boxes: &[Aabb]) -> Aabb {
    if boxes.is_empty() {
        return Aabb { min: [0.0, 0.0], max: [1.0, 1.0] };
    }
    boxes.iter().fold(Aabb { min: [f64::INFINITY; 2], max: [f64::NEG_INFINITY; 2] }, |u, b| Aabb {
        min: [u.min[0].min(b.min[0]), u.min[1].min(b.min[1])],
        max: [u.max[0].max(b.max[0]), u.max[1].max(b.max[1])],
    })
}

/// `b` grown by `fraction` of its size on each side; a point or a line grows to a visible box.
fn pad(b: Aabb, fraction: f64) -> Aabb {
    let size = (b.max[0] - b.min[0]).max(b.max[1] - b.min[1]);
    let c = centre(&b);
    let floor = if size > 0.0 { 0.0 } else { c[0].abs().max(c[1].abs()).max(1.0) * 1e-3 };
    let gx = (b.max[0] - b.min[0]) * fraction + floor;
    let gy = (b.max[1] - b.min[1]) * fraction + floor;
    Aabb { min: [b.min[0] - gx, b.min[1] - gy], max: [b.max[0] + gx, b.max[1] + gy] }
}

/// The box of the centres from the 0.1th to the 99.9th percentile on each axis, so that a few
/// far outliers do not shrink everything else to a dot; every box's union when that is no
/// smaller than half of it.
fn robust_extent(centres: &[[f64; 2]], boxes: &[Aabb]) -> Aabb {
    let all = union(boxes);
    if centres.len() < 1000 {
        return pad(all, 0.0);
    }
    let mut lo = [0.0; 2];
    let mut hi = [0.0; 2];
    for k in 0..2 {
        let mut v: Vec<f64> = centres.iter().map(|c| c[k]).collect();
        let q = |v: &mut Vec<f64>, f: f64| {
            let i = ((v.len() - 1) as f64 * f).round() as usize;
            *v.select_nth_unstable_by(i, f64::total_cmp).1
        };
        lo[k] = q(&mut v, 0.001);
        hi[k] = q(&mut v, 0.999);
    }
    let robust = pad(Aabb { min: lo, max: hi }, 0.02);
    let wide = |b: &Aabb| (b.max[0] - b.min[0]).max(b.max[1] - b.min[1]);
    if wide(&robust) * 2.0 >= wide(&all) {
        pad(all, 0.0)
    } else {
        robust
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capsule_outline_is_a_stadium_and_a_polygon_outline_its_vertices() {
        let (a, b, r) = ([1.0, 2.0], [5.0, 4.0], 0.5);
        let capsule = Polygon::capsule(a, b, r).unwrap();
        let points = outline(&capsule, 100.0);
        assert!(points.len() > 16, "arcs at 50 px radius need many steps: {}", points.len());
        for p in &points {
            // Distance to the segment a-b.
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let t = (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
            let d = (p[0] - a[0] - t * dx).hypot(p[1] - a[1] - t * dy);
            assert!((d - r).abs() < 1e-9, "{p:?} is {d} from the core");
        }
        let square = Polygon::new(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]).unwrap();
        assert_eq!(outline(&square, 100.0), square.vertices());
    }

    #[test]
    fn static_shapes_are_grey_and_never_colliding() {
        let mut shapes: Vec<Polygon> = (0..10).map(|i| Polygon::circle([i as f64 * 3.0, 1.0], 1.0).unwrap()).collect();
        shapes.push(Polygon::new(vec![[-2.0, -1.0], [30.0, -1.0], [30.0, 0.5], [-2.0, 0.5]]).unwrap());
        let mut fixed = vec![false; 10];
        fixed.push(true);
        let contacts = [Contact { a: 0, b: 10, normal: [0.0, -1.0], depth: 0.5 }];
        let options = Options { view: View::All, title: "walls".into(), ..Options::default() };
        let picture = draw_bodies(
            &Bodies { shapes: &shapes, fixed: &fixed, contacts: &contacts, groups: &[], group_names: ["", ""] },
            &options,
        );
        let svg = picture.drawing.to_svg();
        assert!(svg.contains("colliding body (1 of 11)") && svg.contains("static shape (1)"), "{svg}");
        assert_eq!(svg.matches(r#"class="mtv""#).count(), 1);
        assert_eq!(picture.view, "view: all 11 shapes");
    }

    #[test]
    fn the_second_group_has_its_own_colour_and_legend_entry() {
        let shapes: Vec<Polygon> = (0..4).map(|i| Polygon::circle([i as f64 * 3.0, 0.0], 1.0).unwrap()).collect();
        let groups = [false, true, true, false];
        let bodies =
            Bodies { shapes: &shapes, fixed: &[], contacts: &[], groups: &groups, group_names: ["east", "west"] };
        let svg = draw_bodies(&bodies, &Options { view: View::All, ..Options::default() }).drawing.to_svg();
        assert!(svg.contains("body, east") && svg.contains("body, west"), "{svg}");
        // Two shapes and the legend swatch in each colour.
        assert_eq!(svg.matches(r##"fill="#a1d99b""##).count(), 3, "{svg}");
        assert_eq!(svg.matches(r##"fill="#9ecae1""##).count(), 3, "{svg}");
    }

    #[test]
    fn auto_window_holds_about_the_target_and_auto_crops_above_the_limit() {
        let shapes: Vec<Polygon> = (0..10_000)
            .map(|i| {
                let (x, y) = ((i % 100) as f64 * 2.0, (i / 100) as f64 * 2.0);
                Polygon::new(vec![[x, y], [x + 1.0, y], [x, y + 1.0]]).unwrap()
            })
            .collect();
        let w = auto_window(&shapes, CROP_TARGET);
        let inside = shapes.iter().filter(|p| contains(&w, centre(&p.aabb()))).count();
        assert!((CROP_TARGET..CROP_TARGET + 150).contains(&inside), "{inside} in {w:?}");
        // A uniform scene is cropped in its middle.
        assert!((centre(&w)[0] - 99.0).abs() < 20.0 && (centre(&w)[1] - 99.0).abs() < 20.0, "{w:?}");
        let picture = draw_bodies(
            &Bodies { shapes: &shapes, fixed: &[], contacts: &[], groups: &[], group_names: ["", ""] },
            &Options::default(),
        );
        assert!(picture.view.starts_with("view: crop of densest area"), "{}", picture.view);
        assert!(picture.drawing.to_png().unwrap().starts_with(b"\x89PNG"));
    }
}
