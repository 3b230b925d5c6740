//! The collision-free speed model in f64 on one core, written straight from the rules in
//! [`crowd`](crate::crowd)'s docs, to judge the GPU's [`Crowd`](crate::crowd::Crowd).
//!
//! Neighbours come from a grid of cells the size of the cutoff (every agent in the 3 x 3 cells
//! around, then the exact distance); sight lines and walls are tested against every wall.

use std::collections::HashMap;

use crate::crowd::{
    check, check_added, check_switch, closest_on_segment, coin, distance, Agent, Evacuation, Geometry, Kind, Model,
    Routing,
};
use crate::error::Result;

/// An agent's next position, direction and velocity.
type Motion = ([f64; 2], [f64; 2], [f64; 2]);

/// A crowd stepped in f64 on the CPU.
#[derive(Debug, Clone)]
pub struct Crowd {
    geometry: Geometry,
    model: Model,
    agents: Vec<Agent>,
    dt: f64,
    positions: Vec<[f64; 2]>,
    directions: Vec<[f64; 2]>,
    /// Per agent its velocity in its last step (the anticipation velocity model's; zero else).
    velocities: Vec<[f64; 2]>,
    /// Per agent, the step after which it left (0 while it walks).
    exited: Vec<u64>,
    /// Per agent, the stage it heads for.
    stages: Vec<usize>,
    /// The journeys' counters and counts.
    routing: Routing,
    steps: u64,
}

fn unit(v: [f64; 2]) -> [f64; 2] {
    let len = v[0].hypot(v[1]);
    if len > 0.0 {
        [v[0] / len, v[1] / len]
    } else {
        [0.0, 0.0]
    }
}

impl Crowd {
    /// A crowd of `agents` on `geometry`, stepped by `dt` seconds; refused as [`check`] says.
    pub fn new(geometry: &Geometry, model: &Model, agents: &[Agent], dt: f64) -> Result<Crowd> {
        check(geometry, model, agents, dt)?;
        Ok(Crowd {
            geometry: geometry.clone(),
            model: *model,
            agents: agents.to_vec(),
            dt,
            positions: agents.iter().map(|a| a.position).collect(),
            directions: vec![[0.0, 0.0]; agents.len()],
            velocities: vec![[0.0, 0.0]; agents.len()],
            exited: vec![0; agents.len()],
            stages: agents.iter().map(|a| a.stage).collect(),
            routing: Routing::new(geometry.journeys(), agents.iter().map(|a| (a.journey, a.stage))),
            steps: 0,
        })
    }

    /// Every agent's position (those that left stay where they left).
    pub fn positions(&self) -> &[[f64; 2]] {
        &self.positions
    }

    /// Every agent's orientation: its direction in its last step, (0, 0) before its first.
    pub fn orientations(&self) -> &[[f64; 2]] {
        &self.directions
    }

    /// Every agent's velocity in its last step under the anticipation velocity model, (0, 0)
    /// before its first (and always under the collision-free speed model, which keeps none).
    pub fn velocities(&self) -> &[[f64; 2]] {
        &self.velocities
    }

    /// Sets every agent's orientation and velocity, unchecked but for their counts (the tests
    /// step the GPU and the reference from one state of a run).
    pub fn set_motion(&mut self, orientations: &[[f64; 2]], velocities: &[[f64; 2]]) {
        self.directions.copy_from_slice(orientations);
        self.velocities.copy_from_slice(velocities);
    }

    /// Moves every agent to `positions` (and back to walking), unchecked: to step from any state
    /// a run has reached, as the tests do with the GPU's.
    pub fn set_positions(&mut self, positions: &[[f64; 2]]) {
        self.positions.copy_from_slice(positions);
        self.exited.fill(0);
        let counters = std::mem::take(&mut self.routing.counters);
        let heading = self.agents.iter().zip(&self.stages).map(|(a, &s)| (a.journey, s));
        self.routing = Routing { counters, ..Routing::new(self.geometry.journeys(), heading) };
    }

    /// Per agent, the step after which it left (0 while it walks).
    pub fn exit_steps(&self) -> &[u64] {
        &self.exited
    }

    /// Per agent, the stage it heads for now.
    pub fn stages(&self) -> &[usize] {
        &self.stages
    }

    /// The journeys' round robin counters and how many agents head for each stage.
    pub fn routing(&self) -> &Routing {
        &self.routing
    }

    /// Puts `agent` on `journey`, heading for its `stage` from the next step (JuPedSim's
    /// `switch_agent_journey`); refused by name, the crowd as it was, for a journey or stage
    /// that is not there, an agent that is not, or one that has left.
    pub fn switch_journey(&mut self, agent: usize, journey: usize, stage: usize) -> Result<()> {
        check_switch(self.geometry.journeys(), self.agents.len(), agent, journey, stage)?;
        if self.exited[agent] != 0 {
            return Err(crate::crowd::refuse(format!("switching agent {agent}"), "it has left"));
        }
        self.routing.targeting[self.stages[agent]] -= 1;
        self.routing.targeting[stage] += 1;
        (self.agents[agent].journey, self.stages[agent]) = (journey, stage);
        Ok(())
    }

    /// Adds `added` as agents `len()`, `len() + 1`, ... (the range returned), walking from the
    /// next step on; refused as the GPU's [`Crowd::add_agents`](crate::crowd::Crowd::add_agents)
    /// says, the crowd as it was.
    pub fn add_agents(&mut self, added: &[Agent]) -> Result<std::ops::Range<usize>> {
        let n = self.agents.len();
        let walking: Vec<(usize, [f64; 2], f64)> =
            (0..n).filter(|&i| self.exited[i] == 0).map(|i| (i, self.positions[i], self.agents[i].radius)).collect();
        check_added(&self.geometry, &self.model, added, self.dt, n, &walking)?;
        for a in added {
            self.agents.push(*a);
            self.positions.push(a.position);
            self.directions.push([0.0, 0.0]);
            self.velocities.push([0.0, 0.0]);
            self.exited.push(0);
            self.stages.push(a.stage);
            self.routing.targeting[a.stage] += 1;
        }
        Ok(n..self.agents.len())
    }

    /// Agents still walking.
    pub fn walking(&self) -> usize {
        self.exited.iter().filter(|&&e| e == 0).count()
    }

    /// Steps run so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// One step of every walking agent (see [`crowd`](crate::crowd)).
    pub fn step(&mut self) {
        // Agent by agent, in order: a waypoint reached leads on (journey::Routing).
        let journeys = self.geometry.journeys();
        for i in (0..self.agents.len()).filter(|&i| self.exited[i] == 0) {
            let stage = self.stages[i];
            if !self.geometry.is_exit(stage) && self.geometry.reached(stage, self.positions[i]) {
                self.stages[i] = self.routing.next(journeys, self.agents[i].journey, stage);
            }
        }
        let cutoff = self.model.cutoff;
        let cell = |p: [f64; 2]| ((p[0] / cutoff).floor() as i64, (p[1] / cutoff).floor() as i64);
        let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
        for i in (0..self.agents.len()).filter(|&i| self.exited[i] == 0) {
            grid.entry(cell(self.positions[i])).or_default().push(i);
        }
        let updates: Vec<(usize, Motion)> = (0..self.agents.len())
            .filter(|&i| self.exited[i] == 0)
            .map(|i| {
                let (cx, cy) = cell(self.positions[i]);
                let mut near: Vec<usize> = (-1..=1)
                    .flat_map(|dy| (-1..=1).map(move |dx| (cx + dx, cy + dy)))
                    .filter_map(|c| grid.get(&c))
                    .flatten()
                    .copied()
                    .filter(|&j| j != i && distance(self.positions[i], self.positions[j]) <= cutoff)
                    .filter(|&j| self.geometry.sees(self.positions[i], self.positions[j]))
                    .collect();
                near.sort_unstable();
                let (position, direction, velocity) = match self.model.kind {
                    Kind::CollisionFreeSpeed => {
                        let (position, direction) = self.update(i, &near);
                        (position, direction, [0.0, 0.0])
                    }
                    Kind::AnticipationVelocity { pushout_strength, seed } => {
                        self.anticipate(i, &near, pushout_strength, seed)
                    }
                };
                (i, (position, direction, velocity))
            })
            .collect();
        self.steps += 1;
        for (i, (position, direction, velocity)) in updates {
            self.positions[i] = position;
            self.directions[i] = direction;
            self.velocities[i] = velocity;
            let stage = self.stages[i];
            if self.geometry.is_exit(stage) && self.geometry.reached(stage, position) {
                self.exited[i] = self.steps;
                self.routing.targeting[stage] -= 1;
            }
        }
    }

    /// Agent `i`'s next position and direction, given its neighbours.
    fn update(&self, i: usize, neighbours: &[usize]) -> ([f64; 2], [f64; 2]) {
        let (me, p) = (&self.agents[i], self.positions[i]);
        let m = me.repulsion_in(&self.model);
        let mut push = [0.0, 0.0];
        for &j in neighbours {
            let q = self.positions[j];
            let d = distance(p, q);
            let e = unit([q[0] - p[0], q[1] - p[1]]);
            let size = -m.neighbour_strength * ((me.radius + self.agents[j].radius - d) / m.neighbour_range).exp();
            push = [push[0] + e[0] * size, push[1] + e[1] * size];
        }
        for &[a, b] in self.geometry.segments() {
            let c = closest_on_segment(a, b, p);
            let d = distance(p, c);
            if d <= self.model.cutoff {
                let e = unit([c[0] - p[0], c[1] - p[1]]);
                let size = -m.wall_strength * ((me.radius - d) / m.wall_range).exp();
                push = [push[0] + e[0] * size, push[1] + e[1] * size];
            }
        }
        let to = self.geometry.destination(p, self.stages[i]).unwrap_or(p);
        let e0 = unit([to[0] - p[0], to[1] - p[1]]);
        let mut direction = unit([e0[0] + push[0], e0[1] + push[1]]);
        if direction == [0.0, 0.0] {
            direction = self.directions[i];
        }
        let speed = self.speed(i, neighbours, direction);
        ([p[0] + direction[0] * speed * self.dt, p[1] + direction[1] * speed * self.dt], direction)
    }

    /// Agent `i`'s speed along `direction`: from the spacing to the nearest neighbour ahead.
    fn speed(&self, i: usize, neighbours: &[usize], direction: [f64; 2]) -> f64 {
        let (me, p) = (&self.agents[i], self.positions[i]);
        let side = [-direction[1], direction[0]];
        let spacing = neighbours
            .iter()
            .filter_map(|&j| {
                let q = self.positions[j];
                let d = [q[0] - p[0], q[1] - p[1]];
                let reach = me.radius + self.agents[j].radius;
                let ahead = direction[0] * d[0] + direction[1] * d[1] >= 0.0;
                let beside = (side[0] * d[0] + side[1] * d[1]).abs() <= reach;
                (ahead && beside).then(|| d[0].hypot(d[1]) - reach)
            })
            .fold(f64::MAX, f64::min);
        (spacing / me.time_gap).max(0.0).min(me.desired_speed)
    }

    /// Agent `i`'s next position, direction and velocity under the anticipation velocity model
    /// ([`Anticipation`](crate::crowd::Anticipation) has the rules), given its neighbours.
    fn anticipate(&self, i: usize, neighbours: &[usize], pushout: f64, seed: u64) -> Motion {
        let (me, p) = (&self.agents[i], self.positions[i]);
        let (own, mine) = (me.repulsion_in(&self.model), me.anticipation());
        let dot = |a: [f64; 2], b: [f64; 2]| a[0] * b[0] + a[1] * b[1];
        let (e, v) = (self.directions[i], self.velocities[i]);
        let to = self.geometry.destination(p, self.stages[i]).unwrap_or(p);
        let desired = unit([to[0] - p[0], to[1] - p[1]]);
        let left = unit([-desired[1], desired[0]]);
        let mut push = [0.0, 0.0];
        for &j in neighbours {
            let (q, them) = (self.positions[j], &self.agents[j]);
            let d = [q[0] - p[0], q[1] - p[1]];
            let u = unit(d);
            if dot(desired, u) < 0.0 && dot(e, u) < 0.0 {
                continue;
            }
            let vj = self.velocities[j];
            let gap = dot([v[0] - vj[0], v[1] - vj[1]], u) * mine.anticipation_time;
            let apart = (d[0].hypot(d[1]) - me.radius - them.radius - gap).max(0.0);
            let strength = own.neighbour_strength
                * (1.0 + 0.5 * (1.0 - dot(desired, self.directions[j])))
                * (-apart / own.neighbour_range).exp();
            let ta = them.anticipation().anticipation_time;
            let ahead = dot(left, [d[0] + vj[0] * ta, d[1] + vj[1] * ta]);
            let right = if ahead.abs() < 1e-3 { coin(seed, self.steps, i as u32, j as u32) } else { ahead > 0.0 };
            let side = if right { -strength } else { strength };
            push = [push[0] + left[0] * side, push[1] + left[1] * side];
        }
        let mut direction = unit([desired[0] + push[0], desired[1] + push[1]]);
        if direction == [0.0, 0.0] {
            direction = e;
        }
        // Turning toward it at the reaction time, or at once from the other side of `desired`.
        if dot(desired, direction) * dot(desired, e) >= 0.0 {
            let rate = 1.0 / mine.reaction_time * self.dt;
            direction = unit([e[0] + (direction[0] - e[0]) * rate, e[1] + (direction[1] - e[1]) * rate]);
        }
        direction = self.slide(p, direction, me.radius + mine.wall_buffer_distance, pushout);
        let speed = self.speed(i, neighbours, direction);
        let velocity = [direction[0] * speed, direction[1] * speed];
        ([p[0] + velocity[0] * self.dt, p[1] + velocity[1] * self.dt], direction, velocity)
    }

    /// `direction` near the wall nearest `p` (the first of the nearest): within `buffer` along it
    /// and pushed off by `pushout`; heading toward it within twice that, its part toward the wall
    /// faded linearly to none at `buffer`.
    fn slide(&self, p: [f64; 2], direction: [f64; 2], buffer: f64, pushout: f64) -> [f64; 2] {
        let mut nearest: Option<(f64, [f64; 2], [[f64; 2]; 2])> = None;
        for &[a, b] in self.geometry.segments() {
            let c = closest_on_segment(a, b, p);
            let d = distance(p, c);
            if nearest.is_none_or(|(best, _, _)| d < best) {
                nearest = Some((d, c, [a, b]));
            }
        }
        let Some((d, c, [a, b])) = nearest else { return direction };
        let away = unit([p[0] - c[0], p[1] - c[1]]);
        let along = unit([b[0] - a[0], b[1] - a[1]]);
        let dot = |a: [f64; 2], b: [f64; 2]| a[0] * b[0] + a[1] * b[1];
        let parallel = [along[0] * dot(direction, along), along[1] * dot(direction, along)];
        if d < buffer {
            unit([parallel[0] + away[0] * pushout, parallel[1] + away[1] * pushout])
        } else if d < 2.0 * buffer && dot(direction, away) < 0.0 {
            let keep = 1.0 - (2.0 * buffer - d) / buffer;
            unit([parallel[0] + (direction[0] - parallel[0]) * keep, parallel[1] + (direction[1] - parallel[1]) * keep])
        } else {
            direction
        }
    }

    /// Runs `steps` steps and returns the agents still walking (the clock runs on when none
    /// walks: agents may arrive).
    pub fn iterate(&mut self, steps: u64) -> usize {
        for _ in 0..steps {
            self.step();
        }
        self.walking()
    }

    /// Steps until every agent has left or `max_time` seconds have passed.
    pub fn run(&mut self, max_time: f64) -> Evacuation {
        let last = (max_time / self.dt).ceil() as u64;
        while self.walking() > 0 && self.steps < last {
            self.step();
        }
        Evacuation {
            exit_times: self.exited.iter().map(|&e| (e > 0).then_some(e as f64 * self.dt)).collect(),
            steps: self.steps,
            time: self.steps as f64 * self.dt,
            step_ms: vec![],
        }
    }
}
