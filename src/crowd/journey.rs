//! Journeys through stages, as JuPedSim 1.4 has them: where each agent heads for, and where it
//! heads next once there.
//!
//! - A [`Stage::Waypoint`] is reached when the agent's centre is within its distance of it; a
//!   [`Stage::Exit`], a convex polygon, when the agent ends a step in it (its boundary counts),
//!   and the agent then leaves. An agent heads for a waypoint's position, or for the mean of an
//!   exit's vertices, round inner corners as [`Geometry::destination`](super::Geometry::destination)
//!   says.
//! - A [`Journey`] lists stages, each with a [`Transition`] to the stage after it: the same
//!   stage always ([`Transition::Fixed`]), the stages of a list in turn by weight
//!   ([`Transition::RoundRobin`]: weights 2 and 1 give A A B A A B, one counter per journey
//!   and stage, shared by its agents) or the stage of a list fewest agents head for now
//!   ([`Transition::LeastTargeted`], the first of those tied, counting the agents of every
//!   journey). A stage without one keeps the agent there.
//! - At the start of each step, agent by agent in index order, an agent that has reached its
//!   waypoint takes its transition (one a step), and the agents after it see its choice. The
//!   step then moves every agent toward its stage.

use crate::crowd::refuse;
use crate::error::Result;

/// Where an agent heads for (JuPedSim's waypoint and exit stages).
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Reached within `distance` (m, above 0) of `position`, which lies in the walkable area.
    Waypoint {
        /// Where it stands.
        position: [f64; 2],
        /// How near an agent's centre comes to reach it.
        distance: f64,
    },
    /// A convex polygon in the walkable area, no wall through it; an agent that ends a step in it
    /// leaves.
    Exit {
        /// Its vertices, in either order, not repeating the first at the end.
        polygon: Vec<[f64; 2]>,
    },
}

impl Stage {
    /// An exit box `[x0, y0, x1, y1]`.
    pub fn exit_box([x0, y0, x1, y1]: [f64; 4]) -> Stage {
        Stage::Exit { polygon: vec![[x0, y0], [x1, y0], [x1, y1], [x0, y1]] }
    }

    /// Where an agent heads for: the waypoint, or the mean of the exit's vertices.
    pub fn target(&self) -> [f64; 2] {
        match self {
            Stage::Waypoint { position, .. } => *position,
            Stage::Exit { polygon } => {
                // Summed in pairs: a box's centre is exactly (x0 + x1) / 2, (y0 + y1) / 2.
                fn sum(v: &[[f64; 2]]) -> [f64; 2] {
                    match v {
                        [] => [0.0, 0.0],
                        [p] => *p,
                        _ => {
                            let (a, b) = (sum(&v[..v.len() / 2]), sum(&v[v.len() / 2..]));
                            [a[0] + b[0], a[1] + b[1]]
                        }
                    }
                }
                let (total, n) = (sum(polygon), polygon.len() as f64);
                [total[0] / n, total[1] / n]
            }
        }
    }
}

/// Where an agent goes from a stage it has reached (JuPedSim's transitions).
#[derive(Debug, Clone, PartialEq)]
pub enum Transition {
    /// Always to this stage.
    Fixed(usize),
    /// To these stages in turn, each as many times in a row as its weight (above 0).
    RoundRobin(Vec<(usize, u64)>),
    /// To the stage of these that the fewest agents head for now (the first of those tied).
    LeastTargeted(Vec<usize>),
}

impl Transition {
    /// The stages it may lead to.
    pub fn stages(&self) -> Vec<usize> {
        match self {
            Transition::Fixed(s) => vec![*s],
            Transition::RoundRobin(list) => list.iter().map(|&(s, _)| s).collect(),
            Transition::LeastTargeted(list) => list.clone(),
        }
    }
}

/// A journey: its stages, and the transition out of each (none: the agent stays).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Journey {
    /// The stages, by index into [`Journeys::stages`], each with its transition.
    pub stages: Vec<(usize, Option<Transition>)>,
}

impl Journey {
    /// The stages in order, each to the next by a fixed transition; the last without one.
    pub fn through(stages: &[usize]) -> Journey {
        let fixed = |k: usize| stages.get(k + 1).map(|&next| Transition::Fixed(next));
        Journey { stages: stages.iter().enumerate().map(|(k, &s)| (s, fixed(k))).collect() }
    }

    /// The place in [`Journey::stages`] of `stage`, if it is one of them.
    pub fn node(&self, stage: usize) -> Option<usize> {
        self.stages.iter().position(|&(s, _)| s == stage)
    }
}

/// The stages of a walkable area and the journeys through them. An agent's journey and stage
/// are [`Agent::journey`](super::Agent::journey) and [`Agent::stage`](super::Agent::stage).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Journeys {
    /// Every stage.
    pub stages: Vec<Stage>,
    /// Every journey.
    pub journeys: Vec<Journey>,
}

impl Journeys {
    /// One exit box and one journey to it: what every agent of a crowd with one exit walks.
    pub fn exit_box(exit: [f64; 4]) -> Journeys {
        Journeys { stages: vec![Stage::exit_box(exit)], journeys: vec![Journey::through(&[0])] }
    }

    /// Checks the journeys (their stages are [`Geometry`](super::Geometry)'s to check): each
    /// names stages that exist, once each, and at least one; each transition leads to stages of
    /// its own journey, a round robin's weights are above 0, and no list is empty. The first
    /// fault is [`Error::Crowd`](crate::Error::Crowd) naming the journey and the stage.
    pub fn check(&self) -> Result<()> {
        for (j, journey) in self.journeys.iter().enumerate() {
            if journey.stages.is_empty() {
                return Err(refuse(format!("journey {j}"), "has no stage"));
            }
            for (k, (s, transition)) in journey.stages.iter().enumerate() {
                if *s >= self.stages.len() {
                    let detail = format!("names stage {s}, but there are {} stages", self.stages.len());
                    return Err(refuse(format!("journey {j}"), detail));
                }
                if journey.stages[..k].iter().any(|(t, _)| t == s) {
                    return Err(refuse(format!("journey {j}"), format!("names stage {s} twice")));
                }
                let Some(transition) = transition else { continue };
                let at = || format!("journey {j}'s transition from stage {s}");
                let next = transition.stages();
                if next.is_empty() {
                    return Err(refuse(at(), "leads to no stage"));
                }
                if let Some(t) = next.iter().find(|&&t| journey.node(t).is_none()) {
                    return Err(refuse(at(), format!("leads to stage {t}, which is not in the journey")));
                }
                if let Transition::RoundRobin(list) = transition {
                    if let Some((t, _)) = list.iter().find(|&&(_, w)| w == 0) {
                        return Err(refuse(at(), format!("weighs stage {t} 0: round robin's weights are above 0")));
                    }
                    if list.iter().try_fold(0u64, |sum, &(_, w)| sum.checked_add(w)).is_none() {
                        return Err(refuse(at(), "has weights whose sum passes 2^64"));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The journeys' shared state as a crowd walks them: each round robin's counter, and how many
/// agents head for each stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Routing {
    /// Per journey, per stage of it, the round robin's counter.
    pub counters: Vec<Vec<u64>>,
    /// Per stage, the agents heading for it.
    pub targeting: Vec<u64>,
}

impl Routing {
    /// No counter turned yet, and `agents` (journey, stage) heading for their stages.
    pub fn new(journeys: &Journeys, agents: impl IntoIterator<Item = (usize, usize)>) -> Routing {
        let mut targeting = vec![0; journeys.stages.len()];
        for (_, stage) in agents {
            targeting[stage] += 1;
        }
        let counters = journeys.journeys.iter().map(|j| vec![0; j.stages.len()]).collect();
        Routing { counters, targeting }
    }

    /// The stage after `stage` of `journey` for an agent that reached it (JuPedSim's
    /// `NextStage`), its counters and counts moved on.
    pub fn next(&mut self, journeys: &Journeys, journey: usize, stage: usize) -> usize {
        let j = &journeys.journeys[journey];
        let Some(node) = j.node(stage) else { return stage };
        let next = match &j.stages[node].1 {
            None => stage,
            Some(Transition::Fixed(s)) => *s,
            Some(Transition::RoundRobin(list)) => {
                let total: u64 = list.iter().map(|&(_, w)| w).sum();
                let called = &mut self.counters[journey][node];
                let (mut sum, mut pick) = (0, list[0].0);
                for &(s, w) in list {
                    if sum > *called {
                        break;
                    }
                    pick = s;
                    sum += w;
                }
                *called = (*called + 1) % total;
                pick
            }
            Some(Transition::LeastTargeted(list)) => {
                // The first of the fewest (a later one must have strictly fewer).
                let mut pick = list[0];
                for &s in &list[1..] {
                    if self.targeting[s] < self.targeting[pick] {
                        pick = s;
                    }
                }
                pick
            }
        };
        self.targeting[stage] -= 1;
        self.targeting[next] += 1;
        next
    }
}
