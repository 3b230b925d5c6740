//! The ground a crowd walks on: the walkable area's walls, its exit, and the way to the exit.
//!
//! Everything here is decided in f64 with exact predicates ([`orient`](crate::geometry)), once,
//! on the host: which points lie in the area, which sight lines a wall blocks, and the
//! waypoints of the shortest way out.

use crate::crowd::journey::{Journeys, Stage};
use crate::error::{Error, Result};
use crate::geometry::{orient, segments_meet};
use crate::scene::Area;

/// How far the waypoints at inner corners stand off the corner, along its bisector (m): as
/// JuPedSim narrows each portal of its navigation mesh by 0.2 m at both ends.
pub const CORNER_OFFSET: f64 = 0.2;

/// A point of the way round an inner corner of the area: the corner stood off by
/// [`CORNER_OFFSET`] along its bisector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corner {
    /// Where the way passes.
    pub at: [f64; 2],
    /// The inner corner it stands off. The segment from here to [`Corner::at`] is the corner's
    /// stand-off: a way that crosses it cuts the corner ([`Geometry::passes_clear`]).
    pub corner: [f64; 2],
}

/// A walkable area (a polygon with holes) and its stages and journeys ([`Journeys`]): the walls
/// as line segments, and the points of the shortest way from anywhere in it to each stage.
#[derive(Debug, Clone)]
pub struct Geometry {
    area: Area,
    segments: Vec<[[f64; 2]; 2]>,
    journeys: Journeys,
    corners: Vec<Corner>,
    /// Per stage, per corner: the length of the shortest way on from the corner to the stage's
    /// target (infinite where none leads).
    to_target: Vec<Vec<f64>>,
}

fn crowd_error(what: impl Into<String>, detail: impl Into<String>) -> Error {
    Error::Crowd { what: what.into(), detail: detail.into() }
}

/// A ring without the repeated closing point, turned so that the walkable side is on its left
/// (the exterior counterclockwise, holes clockwise).
fn ring(points: &[[f64; 2]], hole: bool) -> Vec<[f64; 2]> {
    let mut ring = match points {
        [first, .., last] if first == last && points.len() > 2 => points[..points.len() - 1].to_vec(),
        _ => points.to_vec(),
    };
    let twice_area: f64 = (0..ring.len())
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
            a[0] * b[1] - a[1] * b[0]
        })
        .sum();
    if (twice_area < 0.0) != hole {
        ring.reverse();
    }
    ring
}

impl Geometry {
    /// The area's boundary as walls and `exit = [x0, y0, x1, y1]` as the one exit (x0 < x1,
    /// y0 < y1, its corners in the area and no wall through it), every agent's journey 0 to
    /// stage 0, it ([`Journeys::exit_box`]). A ring that is not a loop of distinct points is
    /// [`Error::Polygon`] naming the ring; a ring that crosses itself, a bad exit or an exit no
    /// way reaches is [`Error::Crowd`].
    pub fn new(area: Area, exit: [f64; 4]) -> Result<Geometry> {
        let [x0, y0, x1, y1] = exit;
        if !exit.iter().all(|v| v.is_finite()) || x0 >= x1 || y0 >= y1 {
            let exit_name = format!("exit ({x0}, {y0}, {x1}, {y1})");
            return Err(crowd_error(exit_name, "is not a box x0 < x1, y0 < y1 of finite numbers"));
        }
        Geometry::with_journeys(area, Journeys::exit_box(exit)).map_err(|e| match e {
            Error::Crowd { what, detail } if what == "stage 0 (an exit)" => {
                Error::Crowd { what: format!("exit ({x0}, {y0}, {x1}, {y1})"), detail }
            }
            e => e,
        })
    }

    /// The area's boundary as walls, and `journeys` through its stages. Each stage must lie in
    /// the area: a waypoint's position, and an exit's every vertex, with no wall through the
    /// exit, which is a convex polygon; a waypoint's distance is above 0. A fault is
    /// [`Error::Crowd`] naming the stage (or the journey, as [`Journeys::check`] says).
    pub fn with_journeys(area: Area, journeys: Journeys) -> Result<Geometry> {
        area.walls(0.0)?;
        let rings: Vec<Vec<[f64; 2]>> =
            std::iter::once(ring(&area.exterior, false)).chain(area.holes.iter().map(|h| ring(h, true))).collect();
        let mut segments = vec![];
        for (r, points) in rings.iter().enumerate() {
            let n = points.len();
            let edges: Vec<_> = (0..n).map(|i| [points[i], points[(i + 1) % n]]).collect();
            for i in 0..n {
                for j in i + 2..n {
                    if (i == 0 && j == n - 1) || !segments_meet((edges[i][0], edges[i][1]), (edges[j][0], edges[j][1]))
                    {
                        continue;
                    }
                    return Err(crowd_error(
                        format!("ring {r} of the walkable area"),
                        format!("crosses itself (edges {i} and {j})"),
                    ));
                }
            }
            segments.extend(edges);
        }
        journeys.check()?;
        let mut geometry = Geometry { area, segments, journeys, corners: vec![], to_target: vec![] };
        for (k, stage) in geometry.journeys.stages.iter().enumerate() {
            geometry.check_stage(k, stage)?;
        }
        geometry.corners = geometry.stand_offs(&rings);
        geometry.to_target = (0..geometry.journeys.stages.len()).map(|k| geometry.route(k)).collect();
        Ok(geometry)
    }

    fn check_stage(&self, k: usize, stage: &Stage) -> Result<()> {
        match stage {
            Stage::Waypoint { position: p, distance } => {
                let name = format!("stage {k} (a waypoint at ({}, {}))", p[0], p[1]);
                if !(p.iter().all(|v| v.is_finite()) && self.contains(*p)) {
                    return Err(crowd_error(name, "is not inside the walkable area"));
                }
                if !(distance.is_finite() && *distance > 0.0) {
                    return Err(crowd_error(name, format!("has distance {distance}: it must be above 0")));
                }
            }
            Stage::Exit { polygon } => {
                let name = || format!("stage {k} (an exit)");
                let n = polygon.len();
                if n < 3 || polygon.iter().flatten().any(|v| !v.is_finite()) {
                    return Err(crowd_error(name(), "needs 3 or more vertices of finite numbers"));
                }
                let turns: Vec<f64> =
                    (0..n).map(|i| orient(polygon[i], polygon[(i + 1) % n], polygon[(i + 2) % n])).collect();
                if !(turns.iter().all(|&t| t > 0.0) || turns.iter().all(|&t| t < 0.0)) {
                    return Err(crowd_error(name(), "is not a convex polygon (every corner turning one way)"));
                }
                if let Some(c) = polygon.iter().find(|&&c| !self.contains(c)) {
                    return Err(crowd_error(
                        name(),
                        format!("is not inside the walkable area (its corner ({}, {}))", c[0], c[1]),
                    ));
                }
                let inside = |p: [f64; 2]| (0..n).all(|i| orient(polygon[i], polygon[(i + 1) % n], p) * turns[0] > 0.0);
                let crosses = |&[a, b]: &[[f64; 2]; 2]| {
                    inside(a)
                        || inside(b)
                        || (0..n).any(|i| {
                            let (c, d) = (polygon[i], polygon[(i + 1) % n]);
                            orient(a, b, c) * orient(a, b, d) < 0.0 && orient(c, d, a) * orient(c, d, b) < 0.0
                        })
                };
                if self.segments.iter().any(crosses) {
                    return Err(crowd_error(name(), "has a wall through it"));
                }
            }
        }
        Ok(())
    }

    /// Reads the area as WKT ([`parse_wkt_polygon`](crate::scene::parse_wkt_polygon)), then
    /// [`Geometry::new`].
    pub fn from_wkt(text: &str, exit: [f64; 4]) -> Result<Geometry> {
        Geometry::new(crate::scene::parse_wkt_polygon(text)?, exit)
    }

    /// The walkable area as given.
    pub fn area(&self) -> &Area {
        &self.area
    }

    /// Every wall as a segment: the exterior's edges, then each hole's.
    pub fn segments(&self) -> &[[[f64; 2]; 2]] {
        &self.segments
    }

    /// The stages and the journeys through them.
    pub fn journeys(&self) -> &Journeys {
        &self.journeys
    }

    /// Where an agent heading for `stage` walks to: the waypoint, or the mean of the exit's
    /// vertices.
    pub fn target(&self, stage: usize) -> [f64; 2] {
        self.journeys.stages[stage].target()
    }

    /// The points of the ways round inner corners, stood off.
    pub fn corners(&self) -> &[Corner] {
        &self.corners
    }

    /// Per corner, the length of the shortest way on from it to `stage`'s target (infinite
    /// where none leads).
    pub fn to_target(&self, stage: usize) -> &[f64] {
        &self.to_target[stage]
    }

    /// Whether an agent at `p` has reached `stage`: within a waypoint's distance of it, or in
    /// an exit (its boundary included, decided exactly).
    pub fn reached(&self, stage: usize, p: [f64; 2]) -> bool {
        match &self.journeys.stages[stage] {
            Stage::Waypoint { position, distance: d } => distance(p, *position) <= *d,
            Stage::Exit { polygon } => {
                let n = polygon.len();
                let side = |i: usize| orient(polygon[i], polygon[(i + 1) % n], p);
                (0..n).all(|i| side(i) >= 0.0) || (0..n).all(|i| side(i) <= 0.0)
            }
        }
    }

    /// Whether `stage` is an exit.
    pub fn is_exit(&self, stage: usize) -> bool {
        matches!(self.journeys.stages[stage], Stage::Exit { .. })
    }

    /// Whether `p` is in the walkable area, its walls included (decided exactly).
    pub fn contains(&self, p: [f64; 2]) -> bool {
        let mut inside = false;
        for &[a, b] in &self.segments {
            if orient(a, b, p) == 0.0
                && p[0] >= a[0].min(b[0])
                && p[0] <= a[0].max(b[0])
                && p[1] >= a[1].min(b[1])
                && p[1] <= a[1].max(b[1])
            {
                return true;
            }
            // Crossings of the ray from p toward +x (half-open in y, so a vertex counts once).
            if (a[1] > p[1]) != (b[1] > p[1]) {
                let (lo, hi) = if a[1] < b[1] { (a, b) } else { (b, a) };
                if orient(lo, hi, p) > 0.0 {
                    inside = !inside;
                }
            }
        }
        inside
    }

    /// The distance from `p` to the nearest wall.
    pub fn wall_distance(&self, p: [f64; 2]) -> f64 {
        self.segments.iter().map(|&[a, b]| distance(p, closest_on_segment(a, b, p))).fold(f64::INFINITY, f64::min)
    }

    /// Whether the segment from `p` to `q` meets no wall (touching one blocks it).
    pub fn sees(&self, p: [f64; 2], q: [f64; 2]) -> bool {
        !self.segments.iter().any(|&[a, b]| segments_meet((p, q), (a, b)))
    }

    /// Whether the segment from `p` to `q` passes clear of every inner corner: it meets no wall
    /// and crosses no corner's stand-off (from the corner to its waypoint) but at the waypoint
    /// itself. JuPedSim's way bends where a straight line would cross a portal of its
    /// navigation mesh within 0.2 m of a corner; the stand-off is that stretch of a portal, one
    /// per corner, along its bisector.
    pub fn passes_clear(&self, p: [f64; 2], q: [f64; 2]) -> bool {
        self.sees(p, q) && !self.corners.iter().any(|w| cuts(p, q, w.corner, w.at))
    }

    /// Where an agent at `p` heading for `stage` walks to now: the stage's target when the way
    /// there passes clear of the corners ([`Geometry::passes_clear`]), else the corner so
    /// reached that starts the shortest way; where nothing is so reached (an agent within the
    /// offset of a corner), the same by sight alone ([`Geometry::sees`]). `None` when no way
    /// leads there from `p`.
    ///
    /// So an agent keeps heading for a corner's point until its straight line on passes the
    /// corner by the offset, as JuPedSim's agents keep to the narrowed portal, instead of
    /// turning as soon as it sees past the wall's corner.
    pub fn destination(&self, p: [f64; 2], stage: usize) -> Option<[f64; 2]> {
        self.destination_by(p, stage, |a, b| self.passes_clear(a, b))
            .or_else(|| self.destination_by(p, stage, |a, b| self.sees(a, b)))
    }

    fn destination_by(&self, p: [f64; 2], stage: usize, open: impl Fn([f64; 2], [f64; 2]) -> bool) -> Option<[f64; 2]> {
        let target = self.target(stage);
        if open(p, target) {
            return Some(target);
        }
        self.corners
            .iter()
            .zip(&self.to_target[stage])
            .filter(|(w, to)| to.is_finite() && open(p, w.at))
            .map(|(w, to)| (distance(p, w.at) + to, w.at))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, at)| at)
    }

    /// The inner corners stood off into the area.
    fn stand_offs(&self, rings: &[Vec<[f64; 2]>]) -> Vec<Corner> {
        let mut points = vec![];
        for ring in rings {
            let n = ring.len();
            for i in 0..n {
                let (prev, at, next) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
                if orient(prev, at, next) >= 0.0 {
                    continue; // a convex or straight corner: nobody walks around it
                }
                let normal = |a: [f64; 2], b: [f64; 2]| {
                    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                    let len = dx.hypot(dy);
                    [-dy / len, dx / len]
                };
                let (n1, n2) = (normal(prev, at), normal(at, next));
                let (bx, by) = (n1[0] + n2[0], n1[1] + n2[1]);
                let len = bx.hypot(by);
                if len == 0.0 {
                    continue;
                }
                let p = [at[0] + bx / len * CORNER_OFFSET, at[1] + by / len * CORNER_OFFSET];
                if self.contains(p) {
                    points.push((p, at));
                }
            }
        }
        points.into_iter().map(|(at, corner)| Corner { at, corner }).collect()
    }

    /// Per corner, its shortest way to `stage`'s target (Dijkstra from the target over the
    /// lines of sight between the corners).
    fn route(&self, stage: usize) -> Vec<f64> {
        let points: Vec<[f64; 2]> = self.corners.iter().map(|c| c.at).collect();
        let target = self.target(stage);
        let mut to_exit: Vec<f64> =
            points.iter().map(|&p| if self.sees(p, target) { distance(p, target) } else { f64::INFINITY }).collect();
        let mut done = vec![false; points.len()];
        while let Some(k) = (0..points.len())
            .filter(|&k| !done[k] && to_exit[k].is_finite())
            .min_by(|&a, &b| to_exit[a].total_cmp(&to_exit[b]))
        {
            done[k] = true;
            for j in 0..points.len() {
                let via = to_exit[k] + distance(points[k], points[j]);
                if !done[j] && via < to_exit[j] && self.sees(points[j], points[k]) {
                    to_exit[j] = via;
                }
            }
        }
        to_exit
    }
}

/// Whether the segment `p`-`q` crosses the stand-off `c`-`w` anywhere but at `w` (decided
/// exactly): meeting it only at `w` (on the line through `p` and `q`, `c` off it) passes clear.
fn cuts(p: [f64; 2], q: [f64; 2], c: [f64; 2], w: [f64; 2]) -> bool {
    segments_meet((p, q), (c, w)) && !(orient(p, q, w) == 0.0 && orient(p, q, c) != 0.0)
}

pub(crate) fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// The point of the segment `a`–`b` nearest to `p`.
pub(crate) fn closest_on_segment(a: [f64; 2], b: [f64; 2], p: [f64; 2]) -> [f64; 2] {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 { (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
    [a[0] + t * dx, a[1] + t * dy]
}
