//! A walkable area from WKT, the text format of JuPedSim's (and shapely's) geometry: one
//! `POLYGON ((x y, ...), (x y, ...), ...)`, its exterior ring then its holes.

use crate::error::{Error, Result};
use crate::geometry::{Body, PolygonError};

/// A polygon with holes, as WKT gives it: rings of points, each repeating its first point at its
/// end as WKT does (or not).
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    /// The outer ring.
    pub exterior: Vec<[f64; 2]>,
    /// The holes (obstacles inside the area), in order.
    pub holes: Vec<Vec<[f64; 2]>>,
}

impl Area {
    /// The area's boundary as walls: one closed chain per ring ([`Body::walls`]).
    pub fn walls(&self, radius: f64) -> std::result::Result<Vec<Body>, PolygonError> {
        Body::walls(&self.exterior, &self.holes, radius)
    }

    /// The area as WKT, `POLYGON ((x y, ...), (x y, ...))`: each ring closed (its first point
    /// repeated at its end), every coordinate at full precision (it reads back to the same f64).
    pub fn wkt(&self) -> String {
        let ring = |points: &[[f64; 2]]| {
            let closed = points.first().filter(|&first| points.last() != Some(first));
            let text: Vec<String> = points.iter().chain(closed).map(|p| format!("{:?} {:?}", p[0], p[1])).collect();
            format!("({})", text.join(", "))
        };
        let rings: Vec<String> = std::iter::once(&self.exterior).chain(&self.holes).map(|r| ring(r)).collect();
        format!("POLYGON ({})", rings.join(", "))
    }
}

/// Reads one WKT `POLYGON` (case-insensitive, 2D coordinates). Anything else, `POLYGON EMPTY`
/// and coordinates with Z or M included, is [`Error::Wkt`] naming the column (in characters,
/// from 1) where reading stopped. Coordinates are read as Rust reads an f64 (so `nan` and `inf`
/// parse, and the walls refuse them by ring, segment and point).
pub fn parse_wkt_polygon(text: &str) -> Result<Area> {
    let mut r = Reader { text, at: 0 };
    r.skip_space();
    let start = r.at;
    let word = r.word().to_string();
    if !word.eq_ignore_ascii_case("POLYGON") {
        r.at = start;
        let what = if word.is_empty() { "nothing".to_string() } else { format!("{word:?}") };
        return Err(r.error(format!("expected POLYGON, found {what} (a walkable area is one polygon with holes)")));
    }
    r.skip_space();
    let tag = r.word().to_string();
    if tag.eq_ignore_ascii_case("EMPTY") {
        return Err(r.error("POLYGON EMPTY has no walls".into()));
    }
    if !tag.is_empty() {
        return Err(r.error(format!("POLYGON {tag} is not read: walls take 2D coordinates (x y)")));
    }
    let mut rings = vec![];
    r.expect('(')?;
    loop {
        rings.push(r.ring()?);
        if !r.comma_or_close()? {
            break;
        }
    }
    r.skip_space();
    if r.at < text.len() {
        return Err(r.error("text after the polygon".into()));
    }
    let exterior = rings.remove(0);
    Ok(Area { exterior, holes: rings })
}

/// The text and how far it has been read (in bytes).
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn skip_space(&mut self) {
        self.at = self.text.len() - self.rest().trim_start().len();
    }

    /// The run of letters here (a keyword), consumed.
    fn word(&mut self) -> &str {
        let len = self.rest().find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(self.rest().len());
        self.at += len;
        &self.text[self.at - len..self.at]
    }

    fn error(&self, message: String) -> Error {
        Error::Wkt { column: self.text[..self.at].chars().count() + 1, message }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        self.skip_space();
        if self.rest().starts_with(c) {
            self.at += 1;
            return Ok(());
        }
        let found = self.rest().chars().next().map_or("the end".to_string(), |f| format!("{f:?}"));
        Err(self.error(format!("expected {c:?}, found {found}")))
    }

    /// After an element of a list: true at a comma (another follows), false at the closing
    /// parenthesis.
    fn comma_or_close(&mut self) -> Result<bool> {
        self.skip_space();
        if self.rest().starts_with(',') {
            self.at += 1;
            return Ok(true);
        }
        self.expect(')').map(|()| false)
    }

    fn number(&mut self) -> Result<f64> {
        self.skip_space();
        let len = self.rest().find(|c: char| c.is_whitespace() || c == ',' || c == ')').unwrap_or(self.rest().len());
        let token = &self.rest()[..len];
        let value = token.parse::<f64>().map_err(|_| {
            let what = if token.is_empty() { "nothing".to_string() } else { format!("{token:?}") };
            self.error(format!("expected a number, found {what}"))
        })?;
        self.at += len;
        Ok(value)
    }

    fn ring(&mut self) -> Result<Vec<[f64; 2]>> {
        self.expect('(')?;
        let mut points = vec![];
        loop {
            let point = [self.number()?, self.number()?];
            points.push(point);
            self.skip_space();
            if !self.rest().starts_with([',', ')']) {
                return Err(
                    self.error("expected ',' or ')' after a point's x and y (walls take 2D coordinates)".into())
                );
            }
            if !self.comma_or_close()? {
                return Ok(points);
            }
        }
    }
}
