//! Agents from CSV: a header naming `x` and `y`, and optionally `desired_speed`, `radius` and
//! `time_gap`, the four of an agent's own repulsion ([`Repulsion::NAMES`], JuPedSim's
//! `CollisionFreeSpeedModelV2`) and the three of the anticipation velocity model
//! ([`Anticipation::NAMES`]), and `journey_id` and `stage_id` (an agent's journey and the stage
//! it heads for first, by index; 0 where absent), in any order; one agent per row, with
//! JuPedSim's defaults for the model where a column is absent. With any repulsion column, every agent has its own
//! repulsion; with any of the anticipation's, its own anticipation.

use std::path::Path;

use crate::crowd::{Agent, Anticipation, Model, Repulsion};
use crate::error::{Error, Result};

const COLUMNS: [&str; 14] = [
    "x",
    "y",
    "desired_speed",
    "radius",
    "time_gap",
    Repulsion::NAMES[0],
    Repulsion::NAMES[1],
    Repulsion::NAMES[2],
    Repulsion::NAMES[3],
    Anticipation::NAMES[0],
    Anticipation::NAMES[1],
    Anticipation::NAMES[2],
    "journey_id",
    "stage_id",
];

/// Reads agents for `model` from CSV text (see the module docs). A missing `x` or `y` column,
/// an unknown column, a row of another length or a field that is not a number is
/// [`Error::Crowd`] naming the line (from 1) and the column; whether the values are in range
/// is [`check`](super::check)'s to say.
pub fn parse_agents_csv(text: &str, model: &Model) -> Result<Vec<Agent>> {
    let refuse = |what: String, detail: String| Error::Crowd { what, detail };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(refuse("the agents' CSV".into(), "is empty: its first line must name the columns x,y".into()));
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut at = [None; COLUMNS.len()];
    for (k, name) in names.iter().enumerate() {
        let Some(c) = COLUMNS.iter().position(|c| c == name) else {
            return Err(refuse(
                format!("the agents' CSV column {name:?}"),
                format!("is not one of {}", COLUMNS.join(", ")),
            ));
        };
        if at[c].replace(k).is_some() {
            return Err(refuse(format!("the agents' CSV column {name:?}"), "appears twice".into()));
        }
    }
    if at[0].is_none() || at[1].is_none() {
        return Err(refuse("the agents' CSV header".into(), format!("{header:?} has no x and y columns")));
    }
    let mut agents = vec![];
    for (line, row) in lines {
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        if fields.len() != names.len() {
            return Err(refuse(
                format!("the agents' CSV line {}", line + 1),
                format!("has {} fields, the header {}", fields.len(), names.len()),
            ));
        }
        let mut values = [f64::NAN; COLUMNS.len()];
        for (c, k) in at.iter().enumerate() {
            if let Some(k) = *k {
                values[c] = fields[k].parse().map_err(|_| {
                    refuse(
                        format!("the agents' CSV line {}, column {}", line + 1, COLUMNS[c]),
                        format!("{:?} is not a number", fields[k]),
                    )
                })?;
            }
        }
        let mut agent = if model.anticipates() {
            Agent::anticipating(values[0], values[1])
        } else {
            Agent::at(values[0], values[1])
        };
        for (c, field) in [(2, &mut agent.desired_speed), (3, &mut agent.radius), (4, &mut agent.time_gap)] {
            if at[c].is_some() {
                *field = values[c];
            }
        }
        let given = |first: usize, defaults: &mut [f64]| {
            for (k, v) in defaults.iter_mut().enumerate() {
                if at[first + k].is_some() {
                    *v = values[first + k];
                }
            }
            at[first..first + defaults.len()].iter().any(Option::is_some)
        };
        let mut own = Repulsion::default().values();
        if given(5, &mut own) {
            agent.repulsion = Some(Repulsion::from_values(own));
        }
        let mut own = agent.anticipation().values();
        if given(9, &mut own) {
            agent.anticipation = Some(Anticipation::from_values(own));
        }
        for (c, index) in [(12, &mut agent.journey), (13, &mut agent.stage)] {
            let v = values[c];
            if at[c].is_some() {
                if !(v >= 0.0 && v.fract() == 0.0 && v < u32::MAX as f64) {
                    let what = format!("the agents' CSV line {}, column {}", line + 1, COLUMNS[c]);
                    return Err(refuse(what, format!("{v} is not an index (a whole number from 0)")));
                }
                *index = v as usize;
            }
        }
        agents.push(agent);
    }
    Ok(agents)
}

/// [`parse_agents_csv`] of the file at `path` ([`Error::Io`] naming it when it cannot be read).
pub fn read_agents_csv(path: &Path, model: &Model) -> Result<Vec<Agent>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    parse_agents_csv(&text, model)
}
