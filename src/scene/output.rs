//! The contact output formats: CSV and JSON of contacts, manifolds and neighbours (their headers
//! and keys are a contract, see docs/file-formats.md).

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::geometry::{Contact, Manifold};

/// One output row; field names are the CSV header and the JSON keys.
#[derive(Serialize)]
struct ContactRow {
    a: u32,
    b: u32,
    normal_x: f64,
    normal_y: f64,
    depth: f64,
}

impl From<&Contact> for ContactRow {
    fn from(c: &Contact) -> Self {
        ContactRow { a: c.a, b: c.b, normal_x: c.normal[0], normal_y: c.normal[1], depth: c.depth }
    }
}

/// Writes contacts as CSV with the header `a,b,normal_x,normal_y,depth`, one row per contact,
/// numbers in the shortest form that reads back to the same f64 (ryu), rows ending in `\n`.
///
/// `path` only names the destination in errors (pass something like `-` for stdout), because
/// the writer may be a file, a pipe or a buffer.
pub fn write_contacts_csv(w: impl Write, contacts: &[Contact], path: &Path) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut w = std::io::BufWriter::new(w);
    w.write_all(b"a,b,normal_x,normal_y,depth\n").map_err(io)?;
    let mut f = ryu::Buffer::new();
    for c in contacts {
        write!(w, "{},{},", c.a, c.b).map_err(io)?;
        w.write_all(f.format(c.normal[0]).as_bytes()).map_err(io)?;
        w.write_all(b",").map_err(io)?;
        w.write_all(f.format(c.normal[1]).as_bytes()).map_err(io)?;
        w.write_all(b",").map_err(io)?;
        w.write_all(f.format(c.depth).as_bytes()).map_err(io)?;
        w.write_all(b"\n").map_err(io)?;
    }
    w.flush().map_err(io)
}

/// Writes each body's neighbours as CSV: header `body,neighbour,distance,normal_x,normal_y`, one
/// row per (body, neighbour) in the lists' order (by body, then distance, then neighbour), f64
/// in their shortest round-trip form. `path` only names the destination in errors.
pub fn write_neighbours_csv(w: impl Write, neighbours: &crate::neighbours::Neighbours, path: &Path) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut w = std::io::BufWriter::new(w);
    w.write_all(b"body,neighbour,distance,normal_x,normal_y\n").map_err(io)?;
    let mut f = ryu::Buffer::new();
    for body in 0..neighbours.len() {
        let (n, d, normal) = neighbours.of(body);
        for j in 0..n.len() {
            write!(w, "{body},{},", n[j]).map_err(io)?;
            for (k, x) in [d[j], normal[j][0], normal[j][1]].into_iter().enumerate() {
                w.write_all(f.format(x).as_bytes()).map_err(io)?;
                w.write_all(if k == 2 { b"\n" } else { b"," }).map_err(io)?;
            }
        }
    }
    w.flush().map_err(io)
}

/// Writes contacts as `{"pairs": [{"a":..,"b":..,"normal_x":..,"normal_y":..,"depth":..}, ...]}`,
/// one pair per line.
///
/// `path` only names the destination in errors, as for [`write_contacts_csv`].
pub fn write_contacts_json(mut w: impl Write, contacts: &[Contact], path: &Path) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    w.write_all(b"{\"pairs\": [").map_err(io)?;
    for (i, c) in contacts.iter().enumerate() {
        w.write_all(if i == 0 { b"\n" } else { b",\n" }).map_err(io)?;
        serde_json::to_writer(&mut w, &ContactRow::from(c))
            .map_err(|e| Error::Io { path: path.to_path_buf(), source: std::io::Error::from(e) })?;
    }
    w.write_all(b"\n]}\n").map_err(io)?;
    w.flush().map_err(io)
}

/// The header of [`write_manifolds_csv`]: the default header, then the containment flags and the
/// manifold's points.
pub const FULL_HEADER: &str = "a,b,normal_x,normal_y,depth,a_in_b,b_in_a,points,p1_x,p1_y,p1_depth,p2_x,p2_y,p2_depth";

/// One output row of `--contacts full`; field names are [`FULL_HEADER`] and the JSON keys.
#[derive(Serialize)]
struct FullRow {
    #[serde(flatten)]
    contact: ContactRow,
    a_in_b: u8,
    b_in_a: u8,
    points: usize,
    p1_x: Option<f64>,
    p1_y: Option<f64>,
    p1_depth: Option<f64>,
    p2_x: Option<f64>,
    p2_y: Option<f64>,
    p2_depth: Option<f64>,
}

impl FullRow {
    fn new(c: &Contact, m: &Manifold) -> FullRow {
        let p = m.points();
        let (first, second) = (p.first(), p.get(1));
        FullRow {
            contact: ContactRow::from(c),
            a_in_b: m.a_in_b.into(),
            b_in_a: m.b_in_a.into(),
            points: p.len(),
            p1_x: first.map(|q| q.point[0]),
            p1_y: first.map(|q| q.point[1]),
            p1_depth: first.map(|q| q.depth),
            p2_x: second.map(|q| q.point[0]),
            p2_y: second.map(|q| q.point[1]),
            p2_depth: second.map(|q| q.depth),
        }
    }
}

/// As [`write_contacts_csv`] with each pair's manifold (`manifolds[i]` belongs to
/// `contacts[i]`), under [`FULL_HEADER`]: the flags are `0` or `1`, `points` is 1 or 2, and the
/// p2 columns are empty when there is one point.
pub fn write_manifolds_csv(w: impl Write, contacts: &[Contact], manifolds: &[Manifold], path: &Path) -> Result<()> {
    manifolds_csv(w, contacts, manifolds, None, path)
}

/// The header of `--contacts full` on a scene of compound bodies: [`FULL_HEADER`], then the
/// indices of the pair's deepest part pair within its bodies.
pub const COMPOUND_FULL_HEADER: &str =
    "a,b,normal_x,normal_y,depth,a_in_b,b_in_a,points,p1_x,p1_y,p1_depth,p2_x,p2_y,p2_depth,part_a,part_b";

/// As [`write_manifolds_csv`] for pairs of compound bodies, under [`COMPOUND_FULL_HEADER`]:
/// `parts[i]` is pair `i`'s deepest part pair, whose manifold `manifolds[i]` is.
pub fn write_compound_manifolds_csv(
    w: impl Write,
    contacts: &[Contact],
    manifolds: &[Manifold],
    parts: &[[u32; 2]],
    path: &Path,
) -> Result<()> {
    manifolds_csv(w, contacts, manifolds, Some(parts), path)
}

fn manifolds_csv(
    w: impl Write,
    contacts: &[Contact],
    manifolds: &[Manifold],
    parts: Option<&[[u32; 2]]>,
    path: &Path,
) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut w = std::io::BufWriter::new(w);
    w.write_all(if parts.is_some() { COMPOUND_FULL_HEADER } else { FULL_HEADER }.as_bytes()).map_err(io)?;
    w.write_all(b"\n").map_err(io)?;
    let mut f = ryu::Buffer::new();
    for (i, (c, m)) in contacts.iter().zip(manifolds).enumerate() {
        let row = FullRow::new(c, m);
        write!(w, "{},{}", c.a, c.b).map_err(io)?;
        let points = [row.p1_x, row.p1_y, row.p1_depth, row.p2_x, row.p2_y, row.p2_depth];
        for x in [c.normal[0], c.normal[1], c.depth] {
            w.write_all(b",").map_err(io)?;
            w.write_all(f.format(x).as_bytes()).map_err(io)?;
        }
        write!(w, ",{},{},{}", row.a_in_b, row.b_in_a, row.points).map_err(io)?;
        for x in points {
            w.write_all(b",").map_err(io)?;
            if let Some(x) = x {
                w.write_all(f.format(x).as_bytes()).map_err(io)?;
            }
        }
        if let Some(parts) = parts {
            write!(w, ",{},{}", parts[i][0], parts[i][1]).map_err(io)?;
        }
        w.write_all(b"\n").map_err(io)?;
    }
    w.flush().map_err(io)
}

/// As [`write_contacts_json`] with each pair's manifold: every pair object also has the keys of
/// [`FULL_HEADER`] (flags 0 or 1; the p2 keys are `null` when there is one point).
pub fn write_manifolds_json(w: impl Write, contacts: &[Contact], manifolds: &[Manifold], path: &Path) -> Result<()> {
    manifolds_json(w, contacts, manifolds, None, path)
}

/// As [`write_manifolds_json`] for pairs of compound bodies: each row also has `part_a` and
/// `part_b`, its deepest part pair (see [`write_compound_manifolds_csv`]).
pub fn write_compound_manifolds_json(
    w: impl Write,
    contacts: &[Contact],
    manifolds: &[Manifold],
    parts: &[[u32; 2]],
    path: &Path,
) -> Result<()> {
    manifolds_json(w, contacts, manifolds, Some(parts), path)
}

/// A row of [`write_compound_manifolds_json`].
#[derive(Serialize)]
struct CompoundFullRow {
    #[serde(flatten)]
    row: FullRow,
    part_a: u32,
    part_b: u32,
}

fn manifolds_json(
    mut w: impl Write,
    contacts: &[Contact],
    manifolds: &[Manifold],
    parts: Option<&[[u32; 2]]>,
    path: &Path,
) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let json = |e: serde_json::Error| Error::Io { path: path.to_path_buf(), source: std::io::Error::from(e) };
    w.write_all(b"{\"pairs\": [").map_err(io)?;
    for (i, (c, m)) in contacts.iter().zip(manifolds).enumerate() {
        w.write_all(if i == 0 { b"\n" } else { b",\n" }).map_err(io)?;
        let row = FullRow::new(c, m);
        match parts {
            Some(parts) => {
                let [part_a, part_b] = parts[i];
                serde_json::to_writer(&mut w, &CompoundFullRow { row, part_a, part_b }).map_err(json)?;
            }
            None => serde_json::to_writer(&mut w, &row).map_err(json)?,
        }
    }
    w.write_all(b"\n]}\n").map_err(io)?;
    w.flush().map_err(io)
}
