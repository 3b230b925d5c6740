//! One scene entry as the file gives it (serde's structs), and its validation into a shape or a
//! body of several shapes.

use serde::Deserialize;

use crate::geometry::{Body, Filter, Polygon, PolygonError};

/// One entry as written in the file, before validation: exactly one of `vertices`, `circle`,
/// `capsule`, `segment`, `chain` and `parts`, checked in [`ShapeFile::body`].
#[derive(Deserialize)]
pub(super) struct ShapeFile {
    parts: Option<Vec<ShapeFile>>,
    vertices: Option<Vec<[f64; 2]>>,
    radius: Option<f64>,
    circle: Option<CircleFile>,
    capsule: Option<CapsuleFile>,
    segment: Option<SegmentFile>,
    chain: Option<ChainFile>,
    category: Option<u32>,
    mask: Option<u32>,
    group: Option<i32>,
    /// Not supported: refused ([`PolygonError::Holes`]) rather than ignored.
    holes: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct CircleFile {
    center: [f64; 2],
    radius: f64,
}

#[derive(Deserialize)]
struct ChainFile {
    points: Vec<[f64; 2]>,
    #[serde(rename = "loop")]
    closed: Option<bool>,
    radius: Option<f64>,
}

#[derive(Deserialize)]
struct SegmentFile {
    a: [f64; 2],
    b: [f64; 2],
    radius: Option<f64>,
}

#[derive(Deserialize)]
struct CapsuleFile {
    a: [f64; 2],
    b: [f64; 2],
    radius: f64,
}

/// A scene entry as the file gives it: one convex shape, or several (`"parts"`, or an outline
/// split at the door).
pub(super) enum Entry {
    Shape(Polygon),
    Parts(Body),
}

impl From<Body> for Entry {
    fn from(body: Body) -> Entry {
        match body.shapes().len() {
            1 => Entry::Shape(body.into_shapes().pop().expect("one shape")),
            _ => Entry::Parts(body),
        }
    }
}

impl ShapeFile {
    pub(super) fn body(self) -> std::result::Result<Entry, PolygonError> {
        if self.holes.is_some() {
            return Err(PolygonError::Holes);
        }
        let given: Vec<&str> = [
            ("vertices", self.vertices.is_some()),
            ("circle", self.circle.is_some()),
            ("capsule", self.capsule.is_some()),
            ("segment", self.segment.is_some()),
            ("chain", self.chain.is_some()),
            ("parts", self.parts.is_some()),
            ("radius", self.radius.is_some() && self.vertices.is_none()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect();
        if given.len() > 1 {
            return Err(PolygonError::ConflictingShapes { fields: given.join(", ") });
        }
        if let Some(c) = self.chain {
            return Body::chain(&c.points, c.closed.unwrap_or(false), c.radius.unwrap_or(0.0)).map(Entry::from);
        }
        if let Some(parts) = self.parts {
            let mut all = vec![];
            for (part, entry) in parts.into_iter().enumerate() {
                let nested = [
                    ("category", entry.category.is_some()),
                    ("mask", entry.mask.is_some()),
                    ("group", entry.group.is_some()),
                    ("parts", entry.parts.is_some()),
                ];
                if let Some((field, _)) = nested.into_iter().find(|(_, given)| *given) {
                    return Err(PolygonError::PartField { part, field });
                }
                match entry.body().map_err(|reason| PolygonError::InPart { part, reason: Box::new(reason) })? {
                    Entry::Shape(p) => all.push(p),
                    Entry::Parts(c) => all.extend(c.into_shapes()),
                }
            }
            return Body::new(all).map(Entry::Parts);
        }
        match (self.vertices, self.circle, self.capsule, self.segment) {
            (Some(v), None, None, None) => Body::from_outline(v, self.radius.unwrap_or(0.0)).map(Entry::from),
            (None, Some(c), None, None) => Polygon::circle(c.center, c.radius).map(Entry::Shape),
            (None, None, Some(c), None) => Polygon::capsule(c.a, c.b, c.radius).map(Entry::Shape),
            (None, None, None, Some(s)) => Polygon::segment(s.a, s.b, s.radius.unwrap_or(0.0)).map(Entry::Shape),
            _ => Err(PolygonError::MissingShape),
        }
    }

    pub(super) fn filter(&self) -> Filter {
        Filter {
            category: self.category.unwrap_or(Filter::DEFAULT.category),
            mask: self.mask.unwrap_or(Filter::DEFAULT.mask),
            group: self.group.unwrap_or(Filter::DEFAULT.group),
        }
    }
}
