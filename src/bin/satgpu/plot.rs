//! `satgpu bench --plot`: the per-pass median times of every benchmarked scene as stacked
//! horizontal bars, one bar per scene and one segment per pass, in the table's pass order.

use std::path::Path;

use crate::bench::BenchResult;
use crate::draw::{self, fit, line_height, text_width, ticks, wrap, Anchor, Color, Drawing, Paint, Rect};
use crate::Failure;

/// Colours of the GPU passes in order (Tableau 10, then two more).
const PALETTE: [Color; 12] = [
    Color::rgb(78, 121, 167),
    Color::rgb(242, 142, 43),
    Color::rgb(225, 87, 89),
    Color::rgb(118, 183, 178),
    Color::rgb(89, 161, 79),
    Color::rgb(237, 201, 72),
    Color::rgb(176, 122, 161),
    Color::rgb(255, 157, 167),
    Color::rgb(156, 117, 95),
    Color::rgb(31, 119, 180),
    Color::rgb(148, 103, 189),
    Color::rgb(23, 190, 207),
];
/// The host-side segments (wall clock) are grey, so they read apart from the GPU passes.
const UPLOAD: Color = Color::rgb(120, 120, 120);
const READBACK: Color = Color::rgb(190, 190, 190);
const FRAME_MARK: Color = Color::BLACK;

/// The segments of the bars: `names` (already in table order) without `gpu_total` when the
/// passes have timestamps of their own, since it would count them twice.
pub fn segments(names: &[String]) -> Vec<String> {
    let host = ["upload", "gpu_total", "readback"];
    let per_pass = names.iter().any(|n| !host.contains(&n.as_str()));
    names.iter().filter(|n| !(per_pass && n.as_str() == "gpu_total")).cloned().collect()
}

/// Writes the chart as SVG or PNG, by the extension of `path`.
pub fn write(path: &Path, results: &[BenchResult], names: &[String]) -> Result<(), Failure> {
    draw::Format::of(path, "--plot")?;
    chart(results, names, 1000).save(path)
}

/// The chart, `width` pixels wide.
pub fn chart(results: &[BenchResult], names: &[String], width: u32) -> Drawing {
    let names = segments(names);
    let scale = if width >= 800 { 2 } else { 1 };
    let lh = line_height(scale);
    let row = lh + 8.0;
    let colour = |i: usize, name: &str| match name {
        "upload" => UPLOAD,
        "readback" => READBACK,
        _ => PALETTE[i % PALETTE.len()],
    };
    let labels: Vec<String> = results.iter().map(|r| format!("{} n={}", r.scene, r.n)).collect();
    let sums: Vec<f64> = results.iter().map(|r| names.iter().filter_map(|n| r.passes.get(n)).sum()).collect();
    let max_ms = results
        .iter()
        .zip(&sums)
        .map(|(r, s)| s.max(if r.frame_ms_median.is_finite() { r.frame_ms_median } else { 0.0 }))
        .fold(0.0, f64::max)
        .max(1e-3)
        * 1.04;
    let totals: Vec<String> = sums.iter().map(|s| format!("{} ms", draw::short(*s))).collect();

    let left = 16.0 + labels.iter().map(|l| text_width(l, scale)).fold(0.0, f32::max).min(width as f32 * 0.35) + 12.0;
    let right = 16.0 + totals.iter().map(|t| text_width(t, scale)).fold(0.0, f32::max) + 8.0;
    let text_w = width as f32 - 32.0;
    let frames = results.first().map_or(0, |r| r.frames);
    let mut title = vec![format!("satgpu bench: median ms per pass (frames: {frames})")];
    title.extend(wrap(results.first().map_or("", |r| r.adapter.as_str()), text_w, scale));
    let top = 16.0 + title.len() as f32 * row + 16.0;
    let bar_h = 2.0 * lh;
    let gap = lh;
    let plot = Rect::new(
        left,
        top,
        (width as f32 - left - right).max(100.0),
        results.len().max(1) as f32 * (bar_h + gap) + gap,
    );

    let gpu_clock = results.first().map(|r| r.pass_clock.as_str()).unwrap_or("gpu");
    let swatch_w = 2.0 * lh;
    let column_w = swatch_w + 8.0 + names.iter().map(|n| text_width(n, scale)).fold(0.0, f32::max) + 2.0 * lh;
    let columns = ((width as f32 - 2.0 * 16.0) / column_w).floor().max(1.0) as usize;
    let legend_rows = names.len().div_ceil(columns);
    let legend_top = plot.bottom() + 2.0 * row + 8.0;
    let notes = [
        if gpu_clock == "gpu" {
            "GPU passes: GPU timestamp queries".to_string()
        } else {
            "gpu_total: every GPU pass, host wall clock (no timestamps)".to_string()
        },
        "upload, readback (grey): host wall clock".to_string(),
        "number: the segments' sum".to_string(),
        "black mark: whole-frame median, timestamps off".to_string(),
    ];
    let height = legend_top + (legend_rows as f32 + notes.len() as f32) * row + 16.0;
    let mut d = Drawing::new(width, height.ceil() as u32);

    for (i, line) in title.iter().enumerate() {
        let colour = if i == 0 { Color::BLACK } else { Color::GREY };
        d.text([16.0, 16.0 + i as f32 * row], &fit(line, text_w, scale), scale, colour, Anchor::Start);
    }

    let x_of = |ms: f64| plot.x + (ms / max_ms) as f32 * plot.w;
    let (xt, step) = ticks(0.0, max_ms, ((plot.w / (text_width("000.00", scale) + 24.0)).floor() as usize).max(2));
    for v in &xt {
        let x = x_of(*v);
        d.line([x, plot.y], [x, plot.bottom()], Color::LIGHT_GREY, 1.0);
        d.line([x, plot.bottom()], [x, plot.bottom() + 6.0], Color::BLACK, 1.0);
        d.text([x, plot.bottom() + 9.0], &draw::tick_label(*v, step), scale, Color::BLACK, Anchor::Middle);
    }
    d.text([plot.right(), plot.bottom() + 9.0 + row], "milliseconds", scale, Color::BLACK, Anchor::End);

    for (k, r) in results.iter().enumerate() {
        let y = plot.y + gap + k as f32 * (bar_h + gap);
        d.text(
            [plot.x - 10.0, y + (bar_h - lh) / 2.0],
            &fit(&labels[k], plot.x - 20.0, scale),
            scale,
            Color::BLACK,
            Anchor::End,
        );
        let mut at = 0.0;
        for (i, name) in names.iter().enumerate() {
            let Some(ms) = r.passes.get(name) else { continue };
            let (x0, x1) = (x_of(at), x_of(at + ms));
            d.rect(Rect::new(x0, y, (x1 - x0).max(0.0), bar_h), Paint::fill(colour(i, name)), "pass");
            at += ms;
        }
        d.rect(Rect::new(plot.x, y, x_of(at) - plot.x, bar_h), Paint::stroke(Color::GREY, 1.0), "bar");
        let mut end = x_of(at);
        if r.frame_ms_median.is_finite() {
            let x = x_of(r.frame_ms_median);
            d.line([x, y - 4.0], [x, y + bar_h + 4.0], FRAME_MARK, 3.0);
            end = end.max(x + 2.0);
        }
        d.text([end + 6.0, y + (bar_h - lh) / 2.0], &totals[k], scale, Color::BLACK, Anchor::Start);
    }
    d.line([plot.x, plot.y], [plot.x, plot.bottom()], Color::BLACK, 1.0);
    d.line([plot.x, plot.bottom()], [plot.right(), plot.bottom()], Color::BLACK, 1.0);

    for (i, name) in names.iter().enumerate() {
        let (c, r) = (i % columns, i / columns);
        let x = 16.0 + c as f32 * column_w;
        let y = legend_top + r as f32 * row;
        d.rect(Rect::new(x, y, swatch_w, lh), Paint::fill(colour(i, name)), "legend");
        d.text([x + swatch_w + 8.0, y], name, scale, Color::BLACK, Anchor::Start);
    }
    for (i, note) in notes.iter().enumerate() {
        let y = legend_top + (legend_rows + i) as f32 * row;
        d.text([16.0, y], &fit(note, text_w, scale), scale, Color::BLACK, Anchor::Start);
    }
    d
}
