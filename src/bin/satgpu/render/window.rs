//! What part of a scene a picture shows: the window around the densest area, and the density
//! overview of the whole scene.

// The picture's types, colours and helpers, from render/mod.rs.
use super::*;

/// The overview: a density map of the whole scene in `inset`, the view's box on it, a line
/// above and one below. Returns how many shapes lie outside the map (far outliers).
pub(super) fn draw_overview(
    d: &mut Drawing,
    centres: &[[f64; 2]],
    extent: Aabb,
    view: Aabb,
    inset: Rect,
    s: u32,
) -> usize {
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

/// Density cells across and down for `n` shapes in `area`: square cells of at least 4 px, big
/// enough that a uniform scene averages 8 shapes per cell, so that the map shows density rather
/// than noise.
pub(super) fn grid_for(n: usize, area: Rect) -> [usize; 2] {
    let cell = (area.w * area.h * 8.0 / n.max(1) as f32).sqrt().clamp(4.0, area.w.min(area.h) / 4.0);
    [(area.w / cell).round().max(1.0) as usize, (area.h / cell).round().max(1.0) as usize]
}

/// Shape centres per cell of a `cols` x `rows` grid over `extent`, row 0 at the bottom.
pub(super) fn density(centres: &[[f64; 2]], extent: Aabb, cols: usize, rows: usize) -> Vec<u32> {
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
pub(super) fn draw_density(d: &mut Drawing, counts: &[u32], cols: usize, rows: usize, area: Rect) -> u32 {
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
pub(super) fn heat(t: f32) -> Color {
    let stops = [Color::rgb(255, 237, 160), Color::rgb(254, 178, 76), Color::rgb(240, 59, 32), Color::rgb(128, 0, 38)];
    let x = t.clamp(0.0, 1.0) * 3.0;
    let i = (x.floor() as usize).min(2);
    Color::mix(stops[i], stops[i + 1], x - i as f32)
}

pub(super) fn centre(b: &Aabb) -> [f64; 2] {
    [(b.min[0] + b.max[0]) / 2.0, (b.min[1] + b.max[1]) / 2.0]
}

pub(super) fn contains(b: &Aabb, p: [f64; 2]) -> bool {
    b.min[0] <= p[0] && p[0] <= b.max[0] && b.min[1] <= p[1] && p[1] <= b.max[1]
}

/// The box around every box (a unit box at the origin when there are none).
pub(super) fn union(boxes: &[Aabb]) -> Aabb {
    if boxes.is_empty() {
        return Aabb { min: [0.0, 0.0], max: [1.0, 1.0] };
    }
    boxes.iter().fold(Aabb { min: [f64::INFINITY; 2], max: [f64::NEG_INFINITY; 2] }, |u, b| Aabb {
        min: [u.min[0].min(b.min[0]), u.min[1].min(b.min[1])],
        max: [u.max[0].max(b.max[0]), u.max[1].max(b.max[1])],
    })
}

/// `b` grown by `fraction` of its size on each side; a point or a line grows to a visible box.
pub(super) fn pad(b: Aabb, fraction: f64) -> Aabb {
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
pub(super) fn robust_extent(centres: &[[f64; 2]], boxes: &[Aabb]) -> Aabb {
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
