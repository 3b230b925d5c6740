//! What the GPU's crowd reads and never writes, laid out in one buffer of words (`ground` in
//! shaders/crowd.wgsl): the grid's wall lists, the walls, the corners' points and stand-offs,
//! the ways on from each corner to each stage, the stages, the exits' vertices and the
//! journeys' nodes.

use crate::crowd::{Geometry, Stage, Transition};
use crate::error::{Error, Result};

/// The words, and where each part starts.
pub(super) struct Ground {
    pub words: Vec<u32>,
    pub list_off: u32,
    pub seg_off: u32,
    pub way_off: u32,
    pub to_off: u32,
    pub stage_off: u32,
    pub poly_off: u32,
    pub node_off: u32,
    /// Whether some stage has a transition (else no agent ever changes stage).
    pub routed: bool,
}

const NONE: u32 = u32::MAX;

fn f(v: f64) -> u32 {
    (v as f32).to_bits()
}

/// The cells' wall lists (CSR): every wall whose box, grown by `reach`, overlaps the cell.
fn wall_lists(
    geometry: &Geometry,
    origin: [f64; 2],
    cell: f64,
    (gx, gy): (u32, u32),
    reach: f64,
) -> (Vec<u32>, Vec<u32>) {
    let mut lists: Vec<Vec<u32>> = vec![vec![]; (gx * gy) as usize];
    let to_cell = |v: f64, o: f64, g: u32| (((v - o) / cell).floor().max(0.0) as u32).min(g - 1);
    for (k, &[a, b]) in geometry.segments().iter().enumerate() {
        let (x0, x1) = (to_cell(a[0].min(b[0]) - reach, origin[0], gx), to_cell(a[0].max(b[0]) + reach, origin[0], gx));
        let (y0, y1) = (to_cell(a[1].min(b[1]) - reach, origin[1], gy), to_cell(a[1].max(b[1]) + reach, origin[1], gy));
        for y in y0..=y1 {
            for x in x0..=x1 {
                lists[(y * gx + x) as usize].push(k as u32);
            }
        }
    }
    let mut starts = Vec::with_capacity(lists.len() + 1);
    let mut flat = vec![];
    for list in lists {
        starts.push(flat.len() as u32);
        flat.extend(list);
    }
    starts.push(flat.len() as u32);
    (starts, flat)
}

impl Ground {
    /// The ground of `geometry` over a grid of `dims` cells of side `cell` from `origin`, each
    /// cell listing the walls within `reach`. A round robin whose weights sum past u32 is
    /// [`Error::InvalidSetting`] (the GPU counts in 32 bits).
    pub fn new(geometry: &Geometry, origin: [f64; 2], cell: f64, dims: (u32, u32), reach: f64) -> Result<Ground> {
        let (starts, lists) = wall_lists(geometry, origin, cell, dims, reach);
        let mut words: Vec<u32> = starts;
        let at = |words: &Vec<u32>| words.len() as u32;
        let list_off = at(&words);
        words.extend(lists);
        let seg_off = at(&words);
        words.extend(geometry.segments().iter().flatten().flatten().map(|&v| f(v)));
        // The corners' points, then their stand-offs as walls are: corner, point.
        let way_off = at(&words);
        for c in geometry.corners() {
            words.extend([f(c.at[0]), f(c.at[1]), 0, 0]);
        }
        for c in geometry.corners() {
            words.extend([c.corner[0], c.corner[1], c.at[0], c.at[1]].map(f));
        }
        let journeys = geometry.journeys();
        let to_off = at(&words);
        for s in 0..journeys.stages.len() {
            words.extend(geometry.to_target(s).iter().map(|&to| f(if to.is_finite() { to } else { -1.0 })));
        }
        // Stages: kind, target, distance, polygon start and length (in vertices), 0, 0.
        let stage_off = at(&words);
        let mut vertices: Vec<u32> = vec![];
        for (s, stage) in journeys.stages.iter().enumerate() {
            let [tx, ty] = geometry.target(s);
            match stage {
                Stage::Waypoint { distance, .. } => words.extend([0, f(tx), f(ty), f(*distance), 0, 0, 0, 0]),
                Stage::Exit { polygon } => {
                    let first = vertices.len() as u32 / 2;
                    let n = polygon.len();
                    let twice_area: f64 = (0..n)
                        .map(|i| polygon[i][0] * polygon[(i + 1) % n][1] - polygon[(i + 1) % n][0] * polygon[i][1])
                        .sum();
                    let ccw: Vec<[f64; 2]> =
                        if twice_area < 0.0 { polygon.iter().rev().copied().collect() } else { polygon.clone() };
                    vertices.extend(ccw.iter().flat_map(|p| [f(p[0]), f(p[1])]));
                    words.extend([1, f(tx), f(ty), 0, first, n as u32, 0, 0]);
                }
            }
        }
        let poly_off = at(&words);
        words.extend(vertices);
        // Per journey, per stage: its node; then the nodes (kind, list start, length, weights'
        // sum), then their lists of (stage, weight).
        let node_off = at(&words);
        let (n_stages, mut nodes, mut lists) = (journeys.stages.len(), vec![], vec![]);
        let mut table = vec![NONE; journeys.journeys.len() * n_stages];
        let mut routed = false;
        for (j, journey) in journeys.journeys.iter().enumerate() {
            for (s, transition) in &journey.stages {
                table[j * n_stages + s] = (nodes.len() / 4) as u32;
                let list: Vec<(usize, u64)> = match transition {
                    None => vec![],
                    Some(Transition::Fixed(t)) => vec![(*t, 1)],
                    Some(Transition::RoundRobin(list)) => list.clone(),
                    Some(Transition::LeastTargeted(list)) => list.iter().map(|&t| (t, 1)).collect(),
                };
                let kind = match transition {
                    None => 0,
                    Some(Transition::Fixed(_)) => 1,
                    Some(Transition::RoundRobin(_)) => 2,
                    Some(Transition::LeastTargeted(_)) => 3,
                };
                routed |= kind != 0;
                let total: u64 = list.iter().map(|&(_, w)| w).sum();
                let total = u32::try_from(total).map_err(|_| Error::InvalidSetting {
                    what: "round robin",
                    detail: format!("journey {j}'s weights from stage {s} sum to {total}, past the GPU's 2^32 - 1"),
                })?;
                nodes.extend([kind, lists.len() as u32, list.len() as u32, total]);
                lists.extend(list.iter().flat_map(|&(t, w)| [t as u32, w as u32]));
            }
        }
        let lists_at = node_off + table.len() as u32 + nodes.len() as u32;
        for node in nodes.chunks_exact_mut(4) {
            node[1] += lists_at;
        }
        words.extend(table);
        words.extend(nodes);
        words.extend(lists);
        Ok(Ground { words, list_off, seg_off, way_off, to_off, stage_off, poly_off, node_off, routed })
    }
}
