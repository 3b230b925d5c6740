//! Pedestrians walking out of a walkable area: JuPedSim's collision-free speed model (Tordeux,
//! Chraibi and Seyfried, 2016) on the GPU ([`Crowd`]), with the f64 reference beside it
//! ([`reference::cfsm`](crate::reference::cfsm)).
//!
//! A step: first, agent by agent in index order, each that has reached its waypoint takes its
//! journey's transition to its next stage ([`journey`](Journeys)); then, for every agent still
//! walking, all from the state before the step (Jacobi):
//!
//! 1. its neighbours: the agents within [`Model::cutoff`] of its centre whose centre it sees
//!    (no wall meets the segment between the centres; touching one blocks it);
//! 2. repulsion from each neighbour, `-e * a * exp((r_i + r_j - d) / D)` along the unit vector
//!    `e` toward it ([`Model::neighbour_strength`], [`Model::neighbour_range`]), and from each
//!    wall within the cutoff, `-e * a_w * exp((r_i - d) / D_w)` toward its closest point;
//! 3. its direction: the unit vector toward its destination (its stage's target, or the next
//!    corner of the shortest way there, kept until the straight way on passes the corner by
//!    the offset, [`Geometry::destination`]) plus both repulsions, normalised (its last
//!    direction when the sum is zero);
//! 4. its speed: `min(max(s / T, 0), v0)` with `s` the spacing to the nearest neighbour ahead
//!    (in front, `e . d >= 0`, and within the corridor `|e_perp . d| <= r_i + r_j`): `|d| - r_i - r_j`;
//! 5. it moves by direction x speed x dt; an agent whose stage is an exit and that ends the
//!    step in it leaves, and its exit time is the end of that step. (JuPedSim moves it once
//!    more and removes it at the start of the step after: its agents leave a step later.)
//!
//! The repulsion is the model's ([`Model`]), or, as in JuPedSim's `CollisionFreeSpeedModelV2`,
//! each agent's own ([`Agent::repulsion`], [`Repulsion`]): the repulsion an agent feels from a
//! neighbour and from a wall is its own, whatever the neighbour's.
//!
//! [`Model::anticipation`] is JuPedSim's `AnticipationVelocityModel` instead, on the same
//! neighbours, journeys and exits: [`Anticipation`] has its rules.
//!
//! These are JuPedSim 1.4's rules (libsimulator's `CollisionFreeSpeedModel`) with its defaults,
//! and two choices of ours: walls count within the cutoff (JuPedSim sums a superset of them,
//! all of whose extra terms are below 1e-60 of the nearest), and the way out stands off inner
//! corners along their bisector, one stand-off a corner (JuPedSim narrows each portal of its
//! navigation mesh, a constrained Delaunay triangulation, by 0.2 m at both ends, and bends the
//! way where a straight line would cross a portal within that of a corner; which portals meet
//! a corner depends on the triangulation, ours does not).

mod agents;
mod geometry;
mod gpu;
mod ground;
mod journey;
#[cfg(feature = "trajectory")]
mod trajectory;

pub use agents::{parse_agents_csv, read_agents_csv};
pub use geometry::{Corner, Geometry, CORNER_OFFSET};
pub use gpu::Crowd;
pub use journey::{Journey, Journeys, Routing, Stage, Transition};
#[cfg(feature = "trajectory")]
pub use trajectory::{Recorded, Snapshot, Trajectory, TRAJECTORY_VERSION};

use crate::error::{Error, Result};
pub(crate) use geometry::{closest_on_segment, distance};

/// The model's constants, shared by every agent (JuPedSim's `CollisionFreeSpeedModel`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    /// Strength of the repulsion between agents (JuPedSim's `strengthNeighborRepulsion`).
    pub neighbour_strength: f64,
    /// Range of the repulsion between agents, m (`rangeNeighborRepulsion`).
    pub neighbour_range: f64,
    /// Strength of the repulsion from walls (`strengthGeometryRepulsion`).
    pub wall_strength: f64,
    /// Range of the repulsion from walls, m (`rangeGeometryRepulsion`).
    pub wall_range: f64,
    /// How far an agent looks for neighbours (and walls), centre to centre, m.
    pub cutoff: f64,
    /// Which of JuPedSim's models moves the agents.
    pub kind: Kind,
}

/// Which of JuPedSim 1.4's operational models moves the agents.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// `CollisionFreeSpeedModel` (and `CollisionFreeSpeedModelV2`, where agents have their own
    /// [`Repulsion`]): the rules in this module's docs.
    CollisionFreeSpeed,
    /// `AnticipationVelocityModel` (Xu, Chraibi and Seyfried, 2021): each agent turns away
    /// sideways from where its neighbours will be after their anticipation time, turns toward
    /// that at its reaction time, slides along the nearest wall, and keeps the spacing ahead
    /// as the collision-free speed model does (see [`Anticipation`]).
    AnticipationVelocity {
        /// How hard an agent within its wall buffer is pushed off the nearest wall
        /// (`pushout_strength`, 0.3).
        pushout_strength: f64,
        /// The seed of the coin that picks a side where a neighbour's way is straight ahead
        /// (`rng_seed`).
        seed: u64,
    },
}

impl Model {
    /// JuPedSim 1.4's `AnticipationVelocityModel` with its defaults (`pushout_strength` 0.3)
    /// and `seed` for its coin; neighbours within 3 m.
    pub fn anticipation(seed: u64) -> Model {
        Model { kind: Kind::AnticipationVelocity { pushout_strength: 0.3, seed }, ..Model::default() }
    }

    /// Whether this is the anticipation velocity model.
    pub fn anticipates(&self) -> bool {
        matches!(self.kind, Kind::AnticipationVelocity { .. })
    }
}

/// An agent's own parameters under the anticipation velocity model (JuPedSim's
/// `AnticipationVelocityModelAgentParameters`, beside the speed, radius, time gap and the
/// neighbours' half of [`Repulsion`]). A step of agent `i`, from the state before it:
///
/// 1. each neighbour `j` (as the collision-free speed model's) that lies ahead of `i`'s desired
///    direction `d` or of its orientation `e` (`d . u >= 0` or `e . u >= 0`, `u` the unit vector
///    toward it) pushes sideways, perpendicular to `d`, away from the side where `j` will be
///    after its anticipation time (`p_j + v_j ta_j - p_i`; within 1 mm of straight ahead the
///    side is a coin's), with strength
///    `a (1 + 0.5 (1 - d . e_j)) exp(-max(|p_j - p_i| - r_i - r_j - (v_i - v_j) . u ta_i, 0) / D)`;
/// 2. the direction is `normalize(d + sum)` (the orientation where that is zero); the agent turns
///    from its orientation toward it at `1 / reaction_time` over the step, unless the two lie
///    on opposite sides of `d`, where it takes it at once;
/// 3. the nearest wall: closer than `wall_buffer_distance + r` the direction slides along it
///    and is pushed off by `pushout_strength`; closer than twice that, while heading toward it,
///    the part toward the wall fades linearly to none at the buffer;
/// 4. its speed from the spacing ahead along that direction, as the collision-free speed
///    model's, and its velocity is direction x speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anticipation {
    /// How far from a wall, beyond its radius, an agent keeps (`wall_buffer_distance`, 0 to 1 m).
    pub wall_buffer_distance: f64,
    /// How far ahead in time it looks at its neighbours' ways (`anticipation_time`, 0 to 5 s).
    pub anticipation_time: f64,
    /// How fast it turns toward a new direction (`reaction_time`, above 0, at most 1 s).
    pub reaction_time: f64,
}

impl Default for Anticipation {
    /// JuPedSim 1.4's defaults: 0.1 m, 1 s, 0.3 s.
    fn default() -> Anticipation {
        Anticipation { wall_buffer_distance: 0.1, anticipation_time: 1.0, reaction_time: 0.3 }
    }
}

impl Anticipation {
    /// JuPedSim's names of the three, in the order of the fields.
    pub const NAMES: [&'static str; 3] = ["wall_buffer_distance", "anticipation_time", "reaction_time"];

    /// The three, in the order of [`Anticipation::NAMES`].
    pub fn values(&self) -> [f64; 3] {
        [self.wall_buffer_distance, self.anticipation_time, self.reaction_time]
    }

    /// From three values in the order of [`Anticipation::NAMES`].
    pub fn from_values([wall_buffer_distance, anticipation_time, reaction_time]: [f64; 3]) -> Anticipation {
        Anticipation { wall_buffer_distance, anticipation_time, reaction_time }
    }
}

impl Default for Model {
    /// JuPedSim 1.4's defaults: 8, 0.1 m, 5, 0.02 m, and neighbours within 3 m.
    fn default() -> Model {
        let r = Repulsion::default();
        Model {
            neighbour_strength: r.neighbour_strength,
            neighbour_range: r.neighbour_range,
            wall_strength: r.wall_strength,
            wall_range: r.wall_range,
            cutoff: 3.0,
            kind: Kind::CollisionFreeSpeed,
        }
    }
}

impl Model {
    /// The repulsion every agent without its own has.
    pub fn repulsion(&self) -> Repulsion {
        Repulsion {
            neighbour_strength: self.neighbour_strength,
            neighbour_range: self.neighbour_range,
            wall_strength: self.wall_strength,
            wall_range: self.wall_range,
        }
    }
}

/// An agent's own repulsion, as JuPedSim's `CollisionFreeSpeedModelV2` gives each agent:
/// `strength_neighbor_repulsion`, `range_neighbor_repulsion`, `strength_geometry_repulsion` and
/// `range_geometry_repulsion`. The repulsion an agent feels from a neighbour is its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Repulsion {
    /// Strength of the repulsion from other agents (at least 0).
    pub neighbour_strength: f64,
    /// Its range, m (above 0).
    pub neighbour_range: f64,
    /// Strength of the repulsion from walls (at least 0).
    pub wall_strength: f64,
    /// Its range, m (above 0).
    pub wall_range: f64,
}

impl Default for Repulsion {
    /// JuPedSim 1.4's defaults: 8, 0.1 m, 5, 0.02 m.
    fn default() -> Repulsion {
        Repulsion { neighbour_strength: 8.0, neighbour_range: 0.1, wall_strength: 5.0, wall_range: 0.02 }
    }
}

impl Repulsion {
    /// JuPedSim's names of the four, in the order of the fields.
    pub const NAMES: [&'static str; 4] = [
        "strength_neighbor_repulsion",
        "range_neighbor_repulsion",
        "strength_geometry_repulsion",
        "range_geometry_repulsion",
    ];

    /// The four, in the order of [`Repulsion::NAMES`].
    pub fn values(&self) -> [f64; 4] {
        [self.neighbour_strength, self.neighbour_range, self.wall_strength, self.wall_range]
    }

    /// From four values in the order of [`Repulsion::NAMES`].
    pub fn from_values([neighbour_strength, neighbour_range, wall_strength, wall_range]: [f64; 4]) -> Repulsion {
        Repulsion { neighbour_strength, neighbour_range, wall_strength, wall_range }
    }
}

/// One pedestrian: where it starts and its own parameters (JuPedSim's
/// `CollisionFreeSpeedModelAgentParameters`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agent {
    /// Where it starts, m.
    pub position: [f64; 2],
    /// The speed it walks at when nothing is ahead, m/s (`v0`, 0 to 10).
    pub desired_speed: f64,
    /// Its radius, m (above 0, at most 2).
    pub radius: f64,
    /// The time gap it keeps to the agent ahead, s (`T`, 0.1 to 10).
    pub time_gap: f64,
    /// Its own repulsion (JuPedSim's `CollisionFreeSpeedModelV2`; the anticipation velocity
    /// model reads the neighbours' half); `None`: the model's.
    pub repulsion: Option<Repulsion>,
    /// Its own parameters under the anticipation velocity model; `None`: JuPedSim's defaults.
    /// Refused under the collision-free speed model.
    pub anticipation: Option<Anticipation>,
    /// Its journey, by index into [`Journeys::journeys`].
    pub journey: usize,
    /// The stage of its journey it heads for first, by index into [`Journeys::stages`].
    pub stage: usize,
}

impl Agent {
    /// An agent at `(x, y)` with JuPedSim's defaults: 1.2 m/s, 0.2 m, 1 s, the model's repulsion;
    /// on journey 0, heading for stage 0.
    pub fn at(x: f64, y: f64) -> Agent {
        Agent {
            position: [x, y],
            desired_speed: 1.2,
            radius: 0.2,
            time_gap: 1.0,
            repulsion: None,
            anticipation: None,
            journey: 0,
            stage: 0,
        }
    }

    /// An agent at `(x, y)` with the anticipation velocity model's defaults in JuPedSim: 1.2 m/s,
    /// 0.2 m, a time gap of 1.06 s, repulsion 8 and 0.1 m, [`Anticipation::default`].
    pub fn anticipating(x: f64, y: f64) -> Agent {
        Agent { time_gap: 1.06, anticipation: Some(Anticipation::default()), ..Agent::at(x, y) }
    }

    /// Its parameters under the anticipation velocity model: its own, or JuPedSim's defaults.
    pub fn anticipation(&self) -> Anticipation {
        self.anticipation.unwrap_or_default()
    }

    /// Its repulsion under `model`: its own, or the model's.
    pub fn repulsion_in(&self, model: &Model) -> Repulsion {
        self.repulsion.unwrap_or_else(|| model.repulsion())
    }
}

/// How an evacuation went: when each agent left, and how long the steps took.
#[derive(Debug, Clone, PartialEq)]
pub struct Evacuation {
    /// Per agent, in the order given: the time it left (s), `None` if it had not.
    pub exit_times: Vec<Option<f64>>,
    /// Steps run.
    pub steps: u64,
    /// Seconds simulated (steps x dt).
    pub time: f64,
    /// Wall-clock milliseconds per step, one figure per batch of steps run together.
    pub step_ms: Vec<f64>,
}

impl Evacuation {
    /// The time the last agent left, `None` while any remains.
    pub fn evacuation_time(&self) -> Option<f64> {
        self.exit_times.iter().try_fold(0.0f64, |last, t| t.map(|t| last.max(t)))
    }

    /// The exit times of the agents that left, sorted.
    pub fn sorted_exit_times(&self) -> Vec<f64> {
        let mut times: Vec<f64> = self.exit_times.iter().flatten().copied().collect();
        times.sort_by(f64::total_cmp);
        times
    }

    /// Agents per second through the exit over the middle 80 % of exits (from the 10th to the
    /// 90th percentile of the sorted exit times); `None` with fewer than 10 exits.
    pub fn flow(&self) -> Option<f64> {
        flow(&self.sorted_exit_times())
    }
}

/// Agents per second over the middle 80 % of `sorted` exit times; `None` with fewer than 10.
pub fn flow(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    if n < 10 {
        return None;
    }
    let (first, last) = (n / 10, n - 1 - n / 10);
    let span = sorted[last] - sorted[first];
    (span > 0.0).then(|| (last - first) as f64 / span)
}

/// The anticipation velocity model's coin for agent `i` and neighbour `j` in the step after
/// `step` steps: `true` turns `i` to the right of its desired direction. JuPedSim draws from one
/// mt19937 in the order its agents are updated; the GPU updates them at once, so the coin is a
/// hash of the seed, the step and the two agents (the same on the GPU, shaders/crowd.wgsl `coin`).
pub fn coin(seed: u64, step: u64, i: u32, j: u32) -> bool {
    fn mix(mut x: u32) -> u32 {
        x ^= x >> 16;
        x = x.wrapping_mul(0x7feb_352d);
        x ^= x >> 15;
        x = x.wrapping_mul(0x846c_a68b);
        x ^ (x >> 16)
    }
    let h = mix(mix(mix(mix(mix(seed as u32) ^ (seed >> 32) as u32) ^ step as u32) ^ i) ^ j);
    h & 1 == 0
}

pub(crate) fn refuse(what: impl Into<String>, detail: impl Into<String>) -> Error {
    Error::Crowd { what: what.into(), detail: detail.into() }
}

/// Checks a switch of `agent` (of `n`) to `stage` of `journey`, in JuPedSim's order: a journey
/// that does not exist, then a stage not in it, then an agent that does not exist.
pub(crate) fn check_switch(journeys: &Journeys, n: usize, agent: usize, journey: usize, stage: usize) -> Result<()> {
    let Some(j) = journeys.journeys.get(journey) else {
        let detail = format!("is not one of the {} journeys", journeys.journeys.len());
        return Err(refuse(format!("switching agent {agent} to journey {journey}"), detail));
    };
    if j.node(stage).is_none() {
        return Err(refuse(format!("switching agent {agent} to stage {stage}"), format!("not in journey {journey}")));
    }
    if agent >= n {
        return Err(refuse(format!("switching agent {agent}"), format!("there are {n} agents")));
    }
    Ok(())
}

/// Checks what a crowd starts from, as JuPedSim does when agents are added: the model's
/// constants and `dt` positive and finite; each agent's parameters in range, its centre in the
/// area, farther than its radius from every wall, apart from every other agent (centres
/// farther than the sum of the radii) and with a way out. The first fault is
/// [`Error::Crowd`] naming it.
pub fn check(geometry: &Geometry, model: &Model, agents: &[Agent], dt: f64) -> Result<()> {
    check_added(geometry, model, agents, dt, 0, &[])
}

/// One range: `(what, value, low, high, low is in it)`.
type Range = (&'static str, f64, f64, f64, bool);

/// Agent `i`'s parameters in JuPedSim's ranges for `model`'s kind.
fn check_parameters(model: &Model, a: &Agent, i: usize) -> Result<()> {
    let name = |what: &str| format!("agent {i}'s {what}");
    let mut ranges: Vec<Range> =
        vec![("radius", a.radius, 0.0, 2.0, false), ("desired_speed", a.desired_speed, 0.0, 10.0, true)];
    if model.anticipates() {
        let r = a.repulsion_in(model);
        let t = a.anticipation();
        ranges.extend([
            ("time_gap", a.time_gap, 0.0, 10.0, false),
            (Repulsion::NAMES[0], r.neighbour_strength, 0.0, 20.0, true),
            (Repulsion::NAMES[1], r.neighbour_range, 0.0, 5.0, false),
            (Anticipation::NAMES[0], t.wall_buffer_distance, 0.0, 1.0, true),
            (Anticipation::NAMES[1], t.anticipation_time, 0.0, 5.0, true),
            (Anticipation::NAMES[2], t.reaction_time, 0.0, 1.0, false),
        ]);
    } else {
        ranges.push(("time_gap", a.time_gap, 0.1, 10.0, true));
        if a.anticipation.is_some() {
            return Err(refuse(name("anticipation"), "is the anticipation velocity model's"));
        }
    }
    for (what, v, lo, hi, closed) in ranges {
        let above = if closed { v >= lo } else { v > lo };
        if !(above && v <= hi) {
            let low = if closed { "[" } else { "(" };
            return Err(refuse(format!("{} {v}", name(what)), format!("is outside {low}{lo}, {hi}]")));
        }
    }
    if let (Some(r), false) = (&a.repulsion, model.anticipates()) {
        for (k, (what, v)) in Repulsion::NAMES.iter().zip(r.values()).enumerate() {
            let strength = k % 2 == 0;
            if !(v.is_finite() && (v > 0.0 || strength && v == 0.0)) {
                let range = if strength { "finite and at least 0" } else { "finite and above 0" };
                return Err(refuse(format!("{} {v}", name(what)), format!("must be {range}")));
            }
        }
    }
    Ok(())
}

/// [`check`] of `agents` added to a crowd as agents `first`, `first + 1`, ... (the names in its
/// refusals), and apart from each agent walking now, `walking` (index, centre, radius): JuPedSim's
/// `add_agent` refuses an agent that touches another.
pub(crate) fn check_added(
    geometry: &Geometry,
    model: &Model,
    agents: &[Agent],
    dt: f64,
    first: usize,
    walking: &[(usize, [f64; 2], f64)],
) -> Result<()> {
    let constants = [
        ("neighbour_strength", model.neighbour_strength),
        ("neighbour_range", model.neighbour_range),
        ("wall_strength", model.wall_strength),
        ("wall_range", model.wall_range),
        ("cutoff", model.cutoff),
        ("dt", dt),
    ];
    for (name, value) in constants {
        if !(value.is_finite() && value > 0.0) {
            return Err(refuse(format!("the model's {name} {value}"), "must be finite and above 0"));
        }
    }
    if let Kind::AnticipationVelocity { pushout_strength: v, .. } = model.kind {
        if !(v.is_finite() && v >= 0.0) {
            return Err(refuse(format!("the model's pushout_strength {v}"), "must be finite and at least 0"));
        }
    }
    for (i, a) in agents.iter().enumerate() {
        let i = first + i;
        let [x, y] = a.position;
        check_parameters(model, a, i)?;
        let at = || format!("agent {i} at ({x}, {y})");
        if !(x.is_finite() && y.is_finite() && geometry.contains(a.position)) {
            return Err(refuse(at(), "is outside the walkable area"));
        }
        let wall = geometry.wall_distance(a.position);
        if wall <= a.radius {
            return Err(refuse(at(), format!("is {wall} from a wall, within its radius {}", a.radius)));
        }
        let journeys = geometry.journeys();
        let Some(journey) = journeys.journeys.get(a.journey) else {
            let detail = format!("is not one of the {} journeys", journeys.journeys.len());
            return Err(refuse(format!("agent {i}'s journey {}", a.journey), detail));
        };
        if journey.node(a.stage).is_none() {
            return Err(refuse(
                format!("agent {i}'s stage {}", a.stage),
                format!("is not in its journey {}", a.journey),
            ));
        }
        if geometry.destination(a.position, a.stage).is_none() {
            return Err(refuse(at(), format!("has no way to its stage {}", a.stage)));
        }
    }
    // Overlaps: a sweep along x over agents sorted by their left edge.
    let mut order: Vec<usize> = (0..agents.len()).collect();
    let left = |i: usize| agents[i].position[0] - agents[i].radius;
    order.sort_by(|&a, &b| left(a).total_cmp(&left(b)).then(a.cmp(&b)));
    for (k, &i) in order.iter().enumerate() {
        let a = &agents[i];
        for &j in &order[k + 1..] {
            if left(j) > a.position[0] + a.radius {
                break;
            }
            let b = &agents[j];
            if distance(a.position, b.position) <= a.radius + b.radius {
                let (i, j) = (first + i.min(j), first + i.max(j));
                return Err(refuse(
                    format!("agents {i} and {j}"),
                    "overlap (their centres are no farther apart than their radii)",
                ));
            }
        }
    }
    for (k, a) in agents.iter().enumerate() {
        if let Some(&(w, p, _)) = walking.iter().find(|&&(_, p, r)| distance(a.position, p) <= a.radius + r) {
            let [x, y] = a.position;
            return Err(refuse(
                format!("agent {} at ({x}, {y})", first + k),
                format!("overlaps agent {w}, walking at ({}, {})", p[0], p[1]),
            ));
        }
    }
    Ok(())
}
