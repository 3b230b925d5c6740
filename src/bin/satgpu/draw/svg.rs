//! [`Drawing`] as SVG text, written directly.

use std::fmt::Write;

use super::{arrow_parts, char_width, line_height, Anchor, Color, Drawing, Item, Paint, Rect};

/// The document: a white background, then every item in order.
pub fn render(d: &Drawing) -> String {
    let mut s = String::with_capacity(256 + 120 * d.items.len());
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace">"#,
        w = d.width,
        h = d.height
    );
    let _ = writeln!(s, r#"<rect width="{}" height="{}" fill="white"/>"#, d.width, d.height);
    let mut clips = 0;
    let mut open_group = false;
    for item in &d.items {
        match item {
            Item::Polygon { points, paint, class } => {
                let _ = write!(s, r#"<path class="{class}" d=""#);
                for (i, p) in points.iter().enumerate() {
                    let _ = write!(s, "{}{:.1} {:.1}", if i == 0 { "M" } else { "L" }, p[0], p[1]);
                }
                let _ = writeln!(s, r#"Z"{}/>"#, paint_attrs(paint));
            }
            Item::Circle { center, radius, paint, class } => {
                let _ = writeln!(
                    s,
                    r#"<circle class="{class}" cx="{:.1}" cy="{:.1}" r="{:.2}"{}/>"#,
                    center[0],
                    center[1],
                    radius,
                    paint_attrs(paint)
                );
            }
            Item::Rect { rect, paint, class } => {
                let _ = writeln!(
                    s,
                    r#"<rect class="{class}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"{}/>"#,
                    rect.x,
                    rect.y,
                    rect.w,
                    rect.h,
                    paint_attrs(paint)
                );
            }
            Item::Line { from, to, color, width } => {
                let _ = writeln!(
                    s,
                    r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke-width="{width}"{}/>"#,
                    from[0],
                    from[1],
                    to[0],
                    to[1],
                    color_attr("stroke", *color)
                );
            }
            Item::Arrow { from, to, color, width, class } => {
                let (base, head) = arrow_parts(*from, *to, *width);
                let _ = writeln!(
                    s,
                    r#"<path class="{class}" d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" stroke-width="{width}"{}{}/>"#,
                    from[0],
                    from[1],
                    base[0],
                    base[1],
                    head[0][0],
                    head[0][1],
                    head[1][0],
                    head[1][1],
                    head[2][0],
                    head[2][1],
                    color_attr("stroke", *color),
                    color_attr("fill", *color)
                );
            }
            Item::Text { at, text, scale, color, anchor } => {
                let cell = char_width(*scale);
                let len = text.chars().count() as f32 * cell;
                let anchor_name = match anchor {
                    Anchor::Start => "start",
                    Anchor::Middle => "middle",
                    Anchor::End => "end",
                };
                // The bitmap glyphs' baseline is 7 of 8 rows down; a monospace font at 1.1 cells
                // has about the same cap height, stretched (spacing only) to the cell length.
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" font-size="{:.1}" xml:space="preserve" text-anchor="{anchor_name}" textLength="{len:.1}" lengthAdjust="spacing"{}>{}</text>"#,
                    at[0],
                    at[1] + 0.85 * line_height(*scale),
                    1.1 * cell,
                    color_attr("fill", *color),
                    escape(text)
                );
            }
            Item::Clip(rect) => {
                if open_group {
                    s.push_str("</g>\n");
                    open_group = false;
                }
                if let Some(Rect { x, y, w, h }) = rect {
                    clips += 1;
                    let _ = writeln!(
                        s,
                        r#"<clipPath id="clip{clips}"><rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}"/></clipPath><g clip-path="url(#clip{clips})">"#
                    );
                    open_group = true;
                }
            }
        }
    }
    if open_group {
        s.push_str("</g>\n");
    }
    s.push_str("</svg>\n");
    s
}

fn paint_attrs(p: &Paint) -> String {
    let mut s = match p.fill {
        Some(c) => color_attr("fill", c),
        None => r#" fill="none""#.to_string(),
    };
    if let Some(c) = p.stroke {
        s.push_str(&color_attr("stroke", c));
        let _ = write!(s, r#" stroke-width="{}""#, p.width);
    }
    s
}

fn color_attr(name: &str, c: Color) -> String {
    let mut s = format!(r##" {name}="#{:02x}{:02x}{:02x}""##, c.r, c.g, c.b);
    if c.a != 255 {
        let _ = write!(s, r#" {name}-opacity="{:.3}""#, f32::from(c.a) / 255.0);
    }
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
