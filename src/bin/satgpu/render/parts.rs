//! The parts of a picture: shapes, arrows, legend and axes, and the layout that places them.

// The picture's types, colours and helpers, from render/mod.rs.
use super::*;

/// What stands left of a legend entry.
pub(super) enum Mark {
    None,
    Swatch(Paint),
    Arrow,
    Dot,
    ViewBox,
    Heat,
}

/// The legend entries one per row under the plot, left of the overview; returns the bottom.
pub(super) fn draw_legend(d: &mut Drawing, entries: &[(Mark, String)], layout: &Layout) -> f32 {
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
/// Draws the visible shapes (`owners`: the body of each, when bodies have several parts; see
/// [`Bodies::owners`](super::Bodies::owners)); returns how many were drawn as dots.
pub(super) fn draw_shapes(
    d: &mut Drawing,
    (shapes, owners): (&[Polygon], &[u32]),
    boxes: &[Aabb],
    visible: &[usize],
    style: &[(u8, Paint)],
    layout: &Layout,
) -> usize {
    let to_px = layout.to_px();
    let px = f64::from(layout.plot.w) / (layout.window.max[0] - layout.window.min[0]);
    let mut order = visible.to_vec();
    order.sort_by_key(|&i| style[i].0);
    // The edges of the plain polygon parts of bodies of several parts, by body: an edge that
    // another part of the body runs the other way is a seam.
    let mut parts_of = std::collections::HashMap::<u32, usize>::new();
    for &o in owners {
        *parts_of.entry(o).or_default() += 1;
    }
    let outlined = |i: usize| {
        owners.get(i).is_some_and(|o| parts_of[o] > 1) && shapes[i].radius() == 0.0 && shapes[i].vertices().len() >= 3
    };
    let key = |o: u32, a: [f64; 2], b: [f64; 2]| (o, a.map(f64::to_bits), b.map(f64::to_bits));
    let mut edges = std::collections::HashSet::new();
    for i in (0..shapes.len()).filter(|&i| outlined(i)) {
        let v = shapes[i].vertices();
        for k in 0..v.len() {
            edges.insert(key(owners[i], v[k], v[(k + 1) % v.len()]));
        }
    }
    let mut dots = 0;
    for i in order {
        if outlined(i)
            && (boxes[i].max[0] - boxes[i].min[0]).max(boxes[i].max[1] - boxes[i].min[1]) * px >= DOT_BELOW_PX
        {
            let paint = style[i].1;
            let v = shapes[i].vertices();
            d.polygon(v.iter().map(|&p| to_px(p)).collect(), Paint { stroke: None, ..paint }, "part");
            let stroke = paint.stroke.unwrap_or(Color::BLACK);
            for k in 0..v.len() {
                let (a, b) = (v[k], v[(k + 1) % v.len()]);
                if edges.contains(&key(owners[i], b, a)) {
                    d.line(to_px(a), to_px(b), Color::mix(stroke, Color::LIGHT_GREY, 0.75).alpha(160), 0.5);
                } else {
                    d.line(to_px(a), to_px(b), stroke, paint.width);
                }
            }
            continue;
        }
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
            let points: Vec<[f32; 2]> = outline(p, px).into_iter().map(&to_px).collect();
            match points[..] {
                // A segment thinner than a pixel (a wall of no thickness): its line.
                [a, b] => d.line(a, b, dot_colour(paint), paint.width.max(1.5)),
                _ => d.polygon(points, paint, "shape"),
            }
        }
    }
    dots
}

pub(super) fn dot_colour(paint: Paint) -> Color {
    paint.stroke.unwrap_or(Color::BLACK)
}

/// The picture's geometry: where the plot, the legend and the overview go, and the world
/// window (widened to the plot's aspect ratio).
pub(super) struct Layout {
    pub(super) width: u32,
    pub(super) height: u32,
    /// Text scale (cells of 8 x `scale` pixels).
    pub(super) scale: u32,
    pub(super) plot: Rect,
    pub(super) window: Aabb,
    pub(super) legend_top: f32,
    pub(super) legend_w: f32,
    pub(super) inset: Option<Rect>,
    /// Density cells across and down, and a cell's size in world units.
    pub(super) grid: [usize; 2],
    pub(super) cell: [f64; 2],
}

impl Layout {
    /// `inset`: the aspect ratio (height / width) of the overview, if there is one; `n`: the
    /// number of shapes, for the density grid.
    pub(super) fn new(width: u32, window: Aabb, aspect_range: (f64, f64), inset: Option<f64>, n: usize) -> Layout {
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
    pub(super) fn to_px(&self) -> impl Fn([f64; 2]) -> [f32; 2] {
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
pub(super) fn outline(p: &Polygon, px: f64) -> Vec<[f64; 2]> {
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
pub(super) fn arrow_px(scale: u32) -> (f64, f64) {
    (4.0 * f64::from(scale), 30.0 * f64::from(scale))
}

/// MTV arrows, centred where the pair's boxes overlap, a factor times the depth long within
/// [`arrow_px`]. The factor, returned, is the smallest of 1, 2, 5, 10, ... that makes the median
/// visible depth about 20 px (at text scale 2) long.
pub(super) fn draw_arrows(
    d: &mut Drawing,
    contacts: &[&Contact],
    boxes: &[Aabb],
    window: Aabb,
    px: f64,
    layout: &Layout,
) -> f64 {
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
pub(super) fn nice_at_least(x: f64) -> f64 {
    if x.is_nan() || x <= 1.0 {
        return 1.0;
    }
    let power = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|v| *v >= x).unwrap_or(10.0 * power)
}

/// Ticks and world-coordinate labels on the bottom and left edges of the plot.
pub(super) fn draw_axes(d: &mut Drawing, layout: &Layout) {
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
