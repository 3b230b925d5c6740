//! [`Drawing`] rasterised with tiny-skia (anti-aliased) and encoded as PNG; text from the
//! font8x8 bitmap glyphs, each glyph pixel a `scale` x `scale` square.

use font8x8::UnicodeFonts;
use tiny_skia::{FillRule, Mask, Path, PathBuilder, Pixmap, PremultipliedColorU8, Stroke, Transform};

use super::{arrow_parts, char_width, Anchor, Color, Drawing, Item, Paint, Rect};

pub fn render(d: &Drawing) -> Result<Vec<u8>, String> {
    let mut pixmap = Pixmap::new(d.width.max(1), d.height.max(1))
        .ok_or_else(|| format!("cannot allocate a {} x {} picture", d.width, d.height))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    let mut clip: Option<(Rect, Mask)> = None;
    for item in &d.items {
        let mask = clip.as_ref().map(|(_, m)| m);
        match item {
            Item::Polygon { points, paint, .. } => {
                let mut pb = PathBuilder::new();
                pb.move_to(points[0][0], points[0][1]);
                for p in &points[1..] {
                    pb.line_to(p[0], p[1]);
                }
                pb.close();
                if let Some(path) = pb.finish() {
                    draw_path(&mut pixmap, &path, paint, mask);
                }
            }
            Item::Circle { center, radius, paint, .. } => {
                if let Some(path) = PathBuilder::from_circle(center[0], center[1], radius.max(0.1)) {
                    draw_path(&mut pixmap, &path, paint, mask);
                }
            }
            Item::Rect { rect, paint, .. } => {
                if let Some(r) = tiny_skia::Rect::from_xywh(rect.x, rect.y, rect.w, rect.h) {
                    draw_path(&mut pixmap, &PathBuilder::from_rect(r), paint, mask);
                }
            }
            Item::Line { from, to, color, width } => stroke_line(&mut pixmap, *from, *to, *color, *width, mask),
            Item::Arrow { from, to, color, width, .. } => {
                let (base, head) = arrow_parts(*from, *to, *width);
                stroke_line(&mut pixmap, *from, base, *color, *width, mask);
                let mut pb = PathBuilder::new();
                pb.move_to(head[0][0], head[0][1]);
                pb.line_to(head[1][0], head[1][1]);
                pb.line_to(head[2][0], head[2][1]);
                pb.close();
                if let Some(path) = pb.finish() {
                    draw_path(&mut pixmap, &path, &Paint::fill(*color), mask);
                }
            }
            Item::Text { at, text, scale, color, anchor } => {
                let bounds = clip.as_ref().map(|(r, _)| *r);
                draw_text(&mut pixmap, *at, text, *scale, *color, *anchor, bounds)
            }
            Item::Clip(rect) => {
                clip = rect.and_then(|r| {
                    let mut m = Mask::new(pixmap.width(), pixmap.height())?;
                    let path = PathBuilder::from_rect(tiny_skia::Rect::from_xywh(r.x, r.y, r.w, r.h)?);
                    m.fill_path(&path, FillRule::Winding, false, Transform::identity());
                    Some((r, m))
                });
            }
        }
    }
    pixmap.encode_png().map_err(|e| e.to_string())
}

fn paint_of(c: Color) -> tiny_skia::Paint<'static> {
    let mut p = tiny_skia::Paint::default();
    p.set_color_rgba8(c.r, c.g, c.b, c.a);
    p.anti_alias = true;
    p
}

fn draw_path(pixmap: &mut Pixmap, path: &Path, paint: &Paint, mask: Option<&Mask>) {
    if let Some(c) = paint.fill {
        pixmap.fill_path(path, &paint_of(c), FillRule::Winding, Transform::identity(), mask);
    }
    if let Some(c) = paint.stroke {
        let stroke = Stroke { width: paint.width, ..Stroke::default() };
        pixmap.stroke_path(path, &paint_of(c), &stroke, Transform::identity(), mask);
    }
}

fn stroke_line(pixmap: &mut Pixmap, from: [f32; 2], to: [f32; 2], c: Color, width: f32, mask: Option<&Mask>) {
    let mut pb = PathBuilder::new();
    pb.move_to(from[0], from[1]);
    pb.line_to(to[0], to[1]);
    if let Some(path) = pb.finish() {
        let stroke = Stroke { width, ..Stroke::default() };
        pixmap.stroke_path(&path, &paint_of(c), &stroke, Transform::identity(), mask);
    }
}

/// Sets the glyph pixels directly (text is opaque and axis-aligned, so no rasteriser is needed),
/// inside the picture and `bounds`.
fn draw_text(
    pixmap: &mut Pixmap,
    at: [f32; 2],
    text: &str,
    scale: u32,
    c: Color,
    anchor: Anchor,
    bounds: Option<Rect>,
) {
    let len = text.chars().count() as f32 * char_width(scale);
    let x0 = match anchor {
        Anchor::Start => at[0],
        Anchor::Middle => at[0] - len / 2.0,
        Anchor::End => at[0] - len,
    }
    .round() as i64;
    let y0 = at[1].round() as i64;
    let (w, h) = (i64::from(pixmap.width()), i64::from(pixmap.height()));
    let (lo_x, lo_y, hi_x, hi_y) = match bounds {
        Some(r) => (r.x.max(0.0) as i64, r.y.max(0.0) as i64, (r.right() as i64).min(w), (r.bottom() as i64).min(h)),
        None => (0, 0, w, h),
    };
    let color = PremultipliedColorU8::from_rgba(c.r, c.g, c.b, 255).expect("opaque colours are valid");
    let s = i64::from(scale);
    let pixels = pixmap.pixels_mut();
    for (i, ch) in text.chars().enumerate() {
        let Some(glyph) = font8x8::BASIC_FONTS.get(ch) else { continue };
        let gx = x0 + i as i64 * 8 * s;
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8 {
                if bits & (1 << col) == 0 {
                    continue;
                }
                for dy in 0..s {
                    let y = y0 + row as i64 * s + dy;
                    if y < lo_y || y >= hi_y {
                        continue;
                    }
                    for dx in 0..s {
                        let x = gx + col * s + dx;
                        if x >= lo_x && x < hi_x {
                            pixels[(y * w + x) as usize] = color;
                        }
                    }
                }
            }
        }
    }
}
