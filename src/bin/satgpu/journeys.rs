//! `satgpu sim --journeys FILE.json`: the stages and journeys of a crowd's walkable area
//! (docs/file-formats.md), read into [`Journeys`].

use std::path::Path;

use satgpu::crowd::{Journey, Journeys, Stage, Transition};
use satgpu::Error;
use serde::Deserialize;

use crate::Failure;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    stages: Vec<StageJson>,
    journeys: Vec<Vec<NodeJson>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum StageJson {
    /// `{"waypoint": {"position": [x, y], "distance": d}}`
    Waypoint { position: [f64; 2], distance: f64 },
    /// `{"exit": {"polygon": [[x, y], ...]}}`
    Exit { polygon: Vec<[f64; 2]> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeJson {
    stage: usize,
    #[serde(default)]
    next: Option<NextJson>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum NextJson {
    /// `{"fixed": stage}`
    Fixed(usize),
    /// `{"round_robin": [[stage, weight], ...]}`
    RoundRobin(Vec<(usize, u64)>),
    /// `{"least_targeted": [stage, ...]}`
    LeastTargeted(Vec<usize>),
}

/// The stages and journeys in the JSON file at `path`; what is wrong with the file is exit 2
/// naming it and where (serde's line and column). Whether they fit the area is
/// [`Geometry::with_journeys`](satgpu::crowd::Geometry::with_journeys)'s to say.
pub fn read(path: &Path) -> Result<Journeys, Failure> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let file: File = serde_json::from_str(&text).map_err(|e| Failure(2, format!("{}: {e}", path.display())))?;
    let stages = file
        .stages
        .into_iter()
        .map(|s| match s {
            StageJson::Waypoint { position, distance } => Stage::Waypoint { position, distance },
            StageJson::Exit { polygon } => Stage::Exit { polygon },
        })
        .collect();
    let journeys = file
        .journeys
        .into_iter()
        .map(|nodes| Journey {
            stages: nodes
                .into_iter()
                .map(|n| {
                    let next = n.next.map(|t| match t {
                        NextJson::Fixed(s) => Transition::Fixed(s),
                        NextJson::RoundRobin(list) => Transition::RoundRobin(list),
                        NextJson::LeastTargeted(list) => Transition::LeastTargeted(list),
                    });
                    (n.stage, next)
                })
                .collect(),
        })
        .collect();
    Ok(Journeys { stages, journeys })
}
