//! Pictures in pixel coordinates, written as SVG or PNG: `render` (scenes) and `plot` (bench
//! figures) build one [`Drawing`], a list of items, and the same list becomes either file.
//!
//! Text has one metric in both formats, an 8x8 cell per character times a whole `scale` (the
//! font8x8 bitmap glyphs in PNG; a monospace font stretched to the same length in SVG), so a
//! layout computed once holds in both.

mod png;
mod svg;

use std::path::{Path, PathBuf};

use satgpu::Error;

use crate::Failure;

/// An sRGB colour with straight (not premultiplied) alpha.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Color {
    pub r: u8,
    pub g: u8,
    pub b: u8,
    pub a: u8,
}

impl Color {
    pub const BLACK: Color = Color::rgb(0, 0, 0);
    pub const GREY: Color = Color::rgb(110, 110, 110);
    pub const LIGHT_GREY: Color = Color::rgb(225, 225, 225);

    /// An opaque colour.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Color {
        Color { r, g, b, a: 255 }
    }

    /// The same colour with alpha `a`.
    pub const fn alpha(self, a: u8) -> Color {
        Color { a, ..self }
    }

    /// From `a` (t = 0) to `b` (t = 1), alpha included.
    pub fn mix(a: Color, b: Color, t: f32) -> Color {
        let t = t.clamp(0.0, 1.0);
        let m = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round() as u8;
        Color { r: m(a.r, b.r), g: m(a.g, b.g), b: m(a.b, b.b), a: m(a.a, b.a) }
    }
}

/// How a closed shape is filled and outlined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paint {
    pub fill: Option<Color>,
    pub stroke: Option<Color>,
    /// Outline width in pixels.
    pub width: f32,
}

impl Paint {
    /// Filled, no outline.
    pub const fn fill(c: Color) -> Paint {
        Paint { fill: Some(c), stroke: None, width: 0.0 }
    }

    /// Outlined, not filled.
    pub const fn stroke(c: Color, width: f32) -> Paint {
        Paint { fill: None, stroke: Some(c), width }
    }

    /// Filled and outlined.
    pub const fn both(fill: Color, stroke: Color, width: f32) -> Paint {
        Paint { fill: Some(fill), stroke: Some(stroke), width }
    }
}

/// Which point of a text line its position names (always the top edge of the cells).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// An axis-aligned pixel rectangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Rect {
    pub fn new(x: f32, y: f32, w: f32, h: f32) -> Rect {
        Rect { x, y, w, h }
    }

    pub fn right(&self) -> f32 {
        self.x + self.w
    }

    pub fn bottom(&self) -> f32 {
        self.y + self.h
    }
}

/// One thing drawn, in pixels (y down), in order; `class` names it in SVG and is ignored in PNG.
enum Item {
    Polygon {
        points: Vec<[f32; 2]>,
        paint: Paint,
        class: &'static str,
    },
    Circle {
        center: [f32; 2],
        radius: f32,
        paint: Paint,
        class: &'static str,
    },
    Rect {
        rect: Rect,
        paint: Paint,
        class: &'static str,
    },
    Line {
        from: [f32; 2],
        to: [f32; 2],
        color: Color,
        width: f32,
    },
    Arrow {
        from: [f32; 2],
        to: [f32; 2],
        color: Color,
        width: f32,
        class: &'static str,
    },
    Text {
        at: [f32; 2],
        text: String,
        scale: u32,
        color: Color,
        anchor: Anchor,
    },
    /// Items after this one are clipped to the rectangle (`None`: no clipping).
    Clip(Option<Rect>),
}

/// A picture: a size and the items drawn on a white background, first item at the bottom.
pub struct Drawing {
    width: u32,
    height: u32,
    items: Vec<Item>,
}

/// Pixels a character advances at text `scale`.
pub fn char_width(scale: u32) -> f32 {
    8.0 * scale as f32
}

/// Pixels of one line of text at `scale` (the cell height).
pub fn line_height(scale: u32) -> f32 {
    8.0 * scale as f32
}

/// Width of `text` in pixels at `scale`.
pub fn text_width(text: &str, scale: u32) -> f32 {
    text.chars().count() as f32 * char_width(scale)
}

/// `text` cut to at most `max_px` wide, ending in `...` when cut.
pub fn fit(text: &str, max_px: f32, scale: u32) -> String {
    let max = (max_px / char_width(scale)).floor().max(0.0) as usize;
    if text.chars().count() <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(3);
    text.chars().take(keep).chain("...".chars()).take(max).collect()
}

/// `text` broken at spaces into lines at most `max_px` wide (a longer word is cut by [`fit`]).
pub fn wrap(text: &str, max_px: f32, scale: u32) -> Vec<String> {
    let mut lines: Vec<String> = vec![];
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_width(line, scale) + text_width(word, scale) + char_width(scale) <= max_px => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(fit(word, max_px, scale)),
        }
    }
    lines
}

impl Drawing {
    pub fn new(width: u32, height: u32) -> Drawing {
        Drawing { width, height, items: vec![] }
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// Grows or shrinks the picture downwards, for layouts that learn their height last.
    pub fn set_height(&mut self, height: u32) {
        self.height = height;
    }

    /// A closed polygon (at least 3 points; fewer draw nothing).
    pub fn polygon(&mut self, points: Vec<[f32; 2]>, paint: Paint, class: &'static str) {
        if points.len() >= 3 {
            self.items.push(Item::Polygon { points, paint, class });
        }
    }

    pub fn circle(&mut self, center: [f32; 2], radius: f32, paint: Paint, class: &'static str) {
        self.items.push(Item::Circle { center, radius, paint, class });
    }

    pub fn rect(&mut self, rect: Rect, paint: Paint, class: &'static str) {
        self.items.push(Item::Rect { rect, paint, class });
    }

    pub fn line(&mut self, from: [f32; 2], to: [f32; 2], color: Color, width: f32) {
        self.items.push(Item::Line { from, to, color, width });
    }

    /// A line with a filled head at `to`.
    pub fn arrow(&mut self, from: [f32; 2], to: [f32; 2], color: Color, width: f32, class: &'static str) {
        self.items.push(Item::Arrow { from, to, color, width, class });
    }

    /// One line of ASCII text whose cells' top edge is at `at[1]`; other characters draw as `?`.
    pub fn text(&mut self, at: [f32; 2], text: &str, scale: u32, color: Color, anchor: Anchor) {
        let text = text.chars().map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' }).collect();
        self.items.push(Item::Text { at, text, scale: scale.max(1), color, anchor });
    }

    /// Clips the items drawn after this call to `rect`, or stops clipping.
    pub fn clip(&mut self, rect: Option<Rect>) {
        self.items.push(Item::Clip(rect));
    }

    /// The picture as an SVG document.
    pub fn to_svg(&self) -> String {
        svg::render(self)
    }

    /// The picture as PNG file bytes.
    pub fn to_png(&self) -> Result<Vec<u8>, String> {
        png::render(self)
    }

    /// Writes the picture as SVG or PNG, by the extension of `path`.
    pub fn save(&self, path: &Path) -> Result<(), Failure> {
        let bytes = match Format::of(path, "--out")? {
            Format::Svg => self.to_svg().into_bytes(),
            Format::Png => self.to_png().map_err(|e| Failure(2, format!("{}: PNG encoding: {e}", path.display())))?,
        };
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        satgpu::scene::write_atomically(path, |w| w.write_all(&bytes).map_err(io)).map_err(Failure::from)
    }
}

/// A picture file format, from a file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    /// The format `path` names by its extension; `flag` names the option in the error.
    pub fn of(path: &Path, flag: &str) -> Result<Format, Failure> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            _ => Err(Failure(2, format!("{}: {flag} must end in .svg or .png", PathBuf::from(path).display()))),
        }
    }
}

/// About `max_count` round tick values (1, 2 or 5 times a power of ten) inside `[lo, hi]`, and
/// their step.
pub fn ticks(lo: f64, hi: f64, max_count: usize) -> (Vec<f64>, f64) {
    let span = hi - lo;
    if !span.is_finite() || span <= 0.0 {
        return (vec![lo], 1.0);
    }
    let rough = span / max_count.max(1) as f64;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|s| *s >= rough).unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    let values = (first..=last).map(|i| i as f64 * step).map(|v| if v.abs() < step * 1e-9 { 0.0 } else { v }).collect();
    (values, step)
}

/// A tick label: as many decimals as the step needs, or scientific notation for very large or
/// small values.
pub fn tick_label(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if v.abs() >= 1e6 || step < 1e-4 {
        let digits = ((v.abs().log10().floor() - step.log10().floor()).max(0.0) as usize).min(6);
        return format!("{v:.digits$e}");
    }
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{v:.decimals$}")
}

/// A short number for legends: 3 significant figures, no exponent between 0.001 and 1e6.
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        let text = format!("{v:.2e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        return format!("{}e{exponent}", trim_zeros(mantissa));
    }
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    trim_zeros(&format!("{v:.decimals$}"))
}

/// `1.50` to `1.5`, `2.0` to `2`; integers unchanged.
fn trim_zeros(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text.to_string()
    }
}

/// The shaft's end and the head triangle of an arrow from `from` to `to` drawn `width` wide:
/// the head is 4 widths long (at least 6 px, at most 60 % of the arrow) and 3 widths across.
fn arrow_parts(from: [f32; 2], to: [f32; 2], width: f32) -> ([f32; 2], [[f32; 2]; 3]) {
    let (dx, dy) = (to[0] - from[0], to[1] - from[1]);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1e-3 {
        return (to, [to, to, to]);
    }
    let (ux, uy) = (dx / len, dy / len);
    let head = (4.0 * width).max(6.0).min(0.6 * len);
    let half = (1.5 * width).max(3.0);
    let base = [to[0] - ux * head, to[1] - uy * head];
    (base, [to, [base[0] - uy * half, base[1] + ux * half], [base[0] + uy * half, base[1] - ux * half]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_labels_distinct() {
        let (t, step) = ticks(-1.3, 7.9, 5);
        assert_eq!((t, step), (vec![0.0, 2.0, 4.0, 6.0], 2.0));
        let (t, step) = ticks(-4.7e30, 1.63e32, 8);
        let labels: Vec<String> = t.iter().map(|v| tick_label(*v, step)).collect();
        let mut unique = labels.clone();
        unique.dedup();
        assert_eq!(labels, unique, "{labels:?}");
        assert_eq!(tick_label(0.25, 0.05), "0.25");
        assert_eq!(short(10.0), "10");
        assert_eq!(short(5e35), "5e35");
        assert_eq!(short(0.0333), "0.0333");
    }

    #[test]
    fn long_text_is_cut_and_wrapped_to_the_width() {
        assert_eq!(fit("abcdefghij", 8.0 * 2.0 * 6.0, 2), "abc...");
        assert_eq!(fit("abc", 100.0, 2), "abc");
        assert_eq!(wrap("one two three", 8.0 * 8.0, 1), vec!["one two", "three"]);
    }
}
