//! A crowd on the GPU, under the collision-free speed model or the anticipation velocity model:
//! buffers, pipelines and batches of steps (`shaders/crowd.wgsl` has the passes).

use std::sync::Arc;
use std::time::Instant;

use crate::crowd::ground::Ground;
use crate::crowd::{check, check_added, check_switch, refuse, Agent, Evacuation, Geometry, Kind, Model};
use crate::error::{Error, Result};
use crate::gpu::{init_buffer as init, Gpu, Program};

/// The most cells the grid has: a larger area gets larger cells.
const MAX_CELLS: f64 = (1u64 << 22) as f64;
/// Steps recorded into one submission.
const BATCH: u64 = 100;

/// `CfsmParams` in shaders/crowd.wgsl.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    cells: u32,
    gx: u32,
    gy: u32,
    origin: [f32; 2],
    cell: f32,
    cutoff: f32,
    dt: f32,
    stages: u32,
    journeys: u32,
    corners: u32,
    segments: u32,
    list_off: u32,
    seg_off: u32,
    way_off: u32,
    agents_off: u32,
    slot_off: u32,
    exited_off: u32,
    to_off: u32,
    stage_off: u32,
    poly_off: u32,
    node_off: u32,
    movers_off: u32,
    targeting_off: u32,
    routed: u32,
    stride: u32,
    pushout: f32,
    seed_lo: u32,
    seed_hi: u32,
    pad0: u32,
    pad1: u32,
}

/// shaders/crowd.wgsl's passes, in the order a step runs them (one of the two steps).
const ENTRIES: [&str; 9] = ["bin", "scan", "scatter", "sort", "reach", "route_movers", "step", "tick", "step_avm"];

/// A crowd walking out on the GPU (see [`crowd`](crate::crowd)): f32 positions, every step on
/// the GPU, nothing read back but a count per batch of steps.
pub struct Crowd {
    gpu: Gpu,
    n: usize,
    dt: f64,
    params: Params,
    program: Arc<Program>,
    /// Bind groups reading state 0 and writing state 1, and the other way round.
    groups: [wgpu::BindGroup; 2],
    states: [wgpu::Buffer; 2],
    counts: wgpu::Buffer,
    grid: wgpu::Buffer,
    /// Per agent its stage, the movers, per agent its journey, the round robins' counters.
    route: wgpu::Buffer,
    /// What it was made of, to make it anew with more agents.
    geometry: Geometry,
    model: Model,
    agents: Vec<Agent>,
    /// Which state holds the current positions.
    current: usize,
    /// Agents walking after the last batch.
    walking: usize,
    steps: u64,
    step_ms: Vec<f64>,
}

impl Crowd {
    /// A crowd of `agents` on `geometry`, stepped by `dt` seconds with `model`; refused as
    /// [`check`] says, or [`Error::TooLarge`] past the adapter's buffers.
    pub fn new(gpu: &Gpu, geometry: &Geometry, model: &Model, agents: &[Agent], dt: f64) -> Result<Crowd> {
        check(geometry, model, agents, dt)?;
        Crowd::build(gpu, geometry, model, agents, dt)
    }

    fn build(gpu: &Gpu, geometry: &Geometry, model: &Model, agents: &[Agent], dt: f64) -> Result<Crowd> {
        let n = agents.len();
        // The grid covers the area's walls (agents stay inside them; one that strays is binned
        // in the nearest cell).
        let points = geometry.segments().iter().flatten();
        let lo = points.clone().fold([f64::INFINITY; 2], |m, p| [m[0].min(p[0]), m[1].min(p[1])]);
        let hi = points.fold([f64::NEG_INFINITY; 2], |m, p| [m[0].max(p[0]), m[1].max(p[1])]);
        let cell = model.cutoff.max(((hi[0] - lo[0]) * (hi[1] - lo[1]) / MAX_CELLS).sqrt());
        let dims = |span: f64| ((span / cell).floor() as u32 + 1).max(1);
        let (gx, gy) = (dims(hi[0] - lo[0]), dims(hi[1] - lo[1]));
        let cells = gx * gy;
        // The cells list the walls within the cutoff, and under the anticipation velocity model
        // those within twice an agent's wall buffer, where the nearest wall turns it.
        let buffers = agents.iter().map(|a| 2.0 * (a.radius + a.anticipation().wall_buffer_distance));
        let reach = if model.anticipates() { buffers.fold(model.cutoff, f64::max) } else { model.cutoff };
        let ground = Ground::new(geometry, lo, cell, (gx, gy), reach * 1.01 + 1e-6)?;
        let grid_words = cells as u64 + 1 + 3 * n as u64;
        let (stride, pushout, seed) = match model.kind {
            Kind::CollisionFreeSpeed => (1, 0.0, 0),
            Kind::AnticipationVelocity { pushout_strength, seed } => (2, pushout_strength, seed),
        };
        let limits = gpu.device().limits();
        let limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        for (what, words) in [("the crowd's grid", grid_words), ("the crowd's state", 4 * stride * n as u64)] {
            if 4 * words > limit {
                return Err(Error::TooLarge { what, needed: 4 * words, limit });
            }
        }
        let journeys = geometry.journeys();
        let n_stages = journeys.stages.len() as u32;
        let movers_off = 2 + cells;
        let targeting_off = movers_off + (n as u32).div_ceil(32);
        let params = Params {
            n: n as u32,
            cells,
            gx,
            gy,
            origin: [lo[0] as f32, lo[1] as f32],
            cell: cell as f32,
            cutoff: model.cutoff as f32,
            dt: dt as f32,
            stages: n_stages,
            journeys: journeys.journeys.len() as u32,
            corners: geometry.corners().len() as u32,
            segments: geometry.segments().len() as u32,
            list_off: ground.list_off,
            seg_off: ground.seg_off,
            way_off: ground.way_off,
            agents_off: cells + 1,
            slot_off: cells + 1 + n as u32,
            exited_off: cells + 1 + 2 * n as u32,
            to_off: ground.to_off,
            stage_off: ground.stage_off,
            poly_off: ground.poly_off,
            node_off: ground.node_off,
            movers_off,
            targeting_off,
            routed: u32::from(ground.routed),
            stride: stride as u32,
            pushout: pushout as f32,
            seed_lo: seed as u32,
            seed_hi: (seed >> 32) as u32,
            pad0: 0,
            pad1: 0,
        };
        let mut counts = vec![0u32; (targeting_off + n_stages) as usize];
        for a in agents {
            counts[targeting_off as usize + a.stage] += 1;
        }
        let nodes: usize = journeys.journeys.iter().map(|j| j.stages.len()).sum();
        let mut route = vec![0u32; 3 * n + nodes + 1];
        for (i, a) in agents.iter().enumerate() {
            (route[i], route[2 * n + i]) = (a.stage as u32, a.journey as u32);
        }
        let state = still(&agents.iter().map(|a| a.position).collect::<Vec<_>>(), stride as usize);
        let own: Vec<[f32; 4]> = agents
            .iter()
            .flat_map(|a| {
                let [sn, rn, sw, rw] = a.repulsion_in(model).values().map(|v| v as f32);
                let t = a.anticipation();
                let (v0, r, gap) = (a.desired_speed as f32, a.radius as f32, a.time_gap as f32);
                match model.kind {
                    Kind::CollisionFreeSpeed => [[v0, r, gap, 0.0], [sn, rn, sw, rw]],
                    Kind::AnticipationVelocity { .. } => {
                        let (buffer, ahead) = (t.wall_buffer_distance as f32, t.anticipation_time as f32);
                        [[v0, r, gap, t.reaction_time as f32], [sn, rn, buffer, ahead]]
                    }
                }
            })
            .collect();
        let device = gpu.device();
        use wgpu::BufferUsages as U;
        let program = gpu.program("satgpu.crowd", "crowd.wgsl", &ENTRIES)?;
        let buffers = gpu.scoped(|| {
            let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
            (
                init(device, "satgpu.crowd.params", bytemuck::bytes_of(&params), U::UNIFORM),
                [
                    init(device, "satgpu.crowd.state0", bytemuck::cast_slice(&state), storage),
                    init(device, "satgpu.crowd.state1", bytemuck::cast_slice(&state), storage),
                ],
                init(device, "satgpu.crowd.agents", bytemuck::cast_slice(&own), U::STORAGE),
                init(device, "satgpu.crowd.counts", bytemuck::cast_slice(&counts), storage),
                init(device, "satgpu.crowd.grid", &vec![0u8; 4 * grid_words as usize], storage),
                init(device, "satgpu.crowd.ground", bytemuck::cast_slice(&ground.words), U::STORAGE),
                init(device, "satgpu.crowd.route", bytemuck::cast_slice(&route), storage),
            )
        })?;
        let (params_buffer, states, own, counts, grid, ground, route) = buffers;
        let group = |from: usize| {
            let buffers = [&params_buffer, &states[from], &states[1 - from], &own, &counts, &grid, &ground, &route];
            program.bind(device, &buffers)
        };
        let groups = gpu.scoped(|| [group(0), group(1)])?;
        Ok(Crowd {
            gpu: gpu.clone(),
            n,
            dt,
            params,
            program,
            groups,
            states,
            counts,
            grid,
            route,
            geometry: geometry.clone(),
            model: *model,
            agents: agents.to_vec(),
            current: 0,
            walking: n,
            steps: 0,
            step_ms: vec![],
        })
    }

    /// Agents, walking or gone.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the crowd has no agents.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Steps run so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Wall-clock milliseconds per step, one figure per batch of steps run so far.
    pub fn step_ms(&self) -> &[f64] {
        &self.step_ms
    }

    /// Seconds simulated so far.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.dt
    }

    /// Records the binning of the walking agents (clear, bin, scan, scatter, sort), then, with
    /// `step`, one step and the clock's tick.
    fn encode(&self, encoder: &mut wgpu::CommandEncoder, from: usize, step: bool) {
        // The walking count, the cells' counts and the movers' bits start each step at 0.
        encoder.clear_buffer(&self.counts, 4, Some(4 * u64::from(self.params.targeting_off - 1)));
        let p: [_; 9] = std::array::from_fn(|k| self.program.pipeline(k));
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, &self.groups[from], &[]);
        let (n, cells) = (self.params.n, self.params.cells);
        let mut passes = vec![(p[0], n), (p[1], 0), (p[2], n), (p[3], cells)];
        if step {
            if self.params.routed != 0 {
                passes.extend([(p[4], n), (p[5], 0)]);
            }
            let step = if self.params.stride == 2 { p[8] } else { p[6] };
            passes.extend([(step, n), (p[7], 0)]);
        }
        for (pipeline, items) in passes {
            pass.set_pipeline(pipeline);
            // Items 0: one workgroup.
            let groups = items.div_ceil(64).max(1);
            pass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
        }
    }

    /// Runs `steps` steps on the GPU (batches of 100 in one submission each) and returns the
    /// agents still walking after them. The clock runs on when none walks (agents may arrive).
    pub fn iterate(&mut self, steps: u64) -> Result<usize> {
        let mut left = steps;
        while left > 0 {
            let batch = left.min(BATCH);
            let started = Instant::now();
            let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
            for _ in 0..batch {
                self.encode(&mut encoder, self.current, true);
                self.current = 1 - self.current;
            }
            // Bin once more, so that the count says who walks now.
            self.encode(&mut encoder, self.current, false);
            let counts = self.read_words(&mut encoder, &self.counts, 2)?;
            self.step_ms.push(started.elapsed().as_secs_f64() * 1e3 / batch as f64);
            self.steps += batch;
            left -= batch;
            self.walking = counts[1] as usize;
        }
        Ok(self.walking)
    }

    /// Steps until every agent has left or `max_time` seconds have passed.
    pub fn run(&mut self, max_time: f64) -> Result<Evacuation> {
        let last = (max_time / self.dt).ceil() as u64;
        while self.walking > 0 && self.steps < last {
            self.iterate((last - self.steps).min(BATCH))?;
        }
        Ok(Evacuation {
            exit_times: self.exit_steps()?.iter().map(|&e| (e > 0).then_some(e as f64 * self.dt)).collect(),
            steps: self.steps,
            time: self.time(),
            step_ms: self.step_ms.clone(),
        })
    }

    /// Puts `agent` on `journey`, heading for its `stage` from the next step (JuPedSim's
    /// `switch_agent_journey`); refused by name, the crowd as it was, for a journey or stage
    /// that is not there, an agent that is not, or one that has left.
    pub fn switch_journey(&mut self, agent: usize, journey: usize, stage: usize) -> Result<()> {
        check_switch(self.geometry.journeys(), self.n, agent, journey, stage)?;
        // Its exit step and stage alone, not every agent's.
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        let exited = 4 * (u64::from(self.params.exited_off) + agent as u64);
        if self.read_range(&mut encoder, &self.grid, exited, 1)?[0] != 0 {
            return Err(refuse(format!("switching agent {agent}"), "it has left"));
        }
        let old = self.read_range(&mut encoder, &self.route, 4 * agent as u64, 1)?[0] as usize;
        let mut targeting = self.targeting()?;
        targeting[old] -= 1;
        targeting[stage] += 1;
        let queue = self.gpu.queue();
        queue.write_buffer(&self.counts, 4 * u64::from(self.params.targeting_off), bytemuck::cast_slice(&targeting));
        queue.write_buffer(&self.route, 4 * agent as u64, bytemuck::bytes_of(&(stage as u32)));
        queue.write_buffer(&self.route, 4 * (2 * self.n + agent) as u64, bytemuck::bytes_of(&(journey as u32)));
        self.agents[agent].journey = journey;
        Ok(())
    }

    /// Adds `added` as agents `len()`, `len() + 1`, ... (the range returned), walking from the
    /// next step on, as JuPedSim's `add_agent` between steps: each checked as [`check`] does and
    /// apart from every agent walking now; the first fault is [`Error::Crowd`] naming it, the
    /// crowd as it was. The agents before keep their index, state and journey.
    pub fn add_agents(&mut self, added: &[Agent]) -> Result<std::ops::Range<usize>> {
        let (n, words, exited) = (self.n, self.state_words()?, self.exit_steps()?);
        let stride = 4 * self.params.stride as usize;
        let at = |i: usize, k: usize| f64::from(f32::from_bits(words[stride * i + k]));
        let walking: Vec<(usize, [f64; 2], f64)> =
            (0..n).filter(|&i| exited[i] == 0).map(|i| (i, [at(i, 0), at(i, 1)], self.agents[i].radius)).collect();
        check_added(&self.geometry, &self.model, added, self.dt, n, &walking)?;
        let nodes: usize = self.geometry.journeys().journeys.iter().map(|j| j.stages.len()).sum();
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        let route = self.read_range(&mut encoder, &self.route, 0, (3 * n + nodes) as u64)?;
        let mut targeting = self.targeting()?;
        for a in added {
            targeting[a.stage] += 1;
        }
        let agents = [&self.agents[..], added].concat();
        let next = Crowd::build(&self.gpu, &self.geometry, &self.model, &agents, self.dt)?;
        let m = agents.len() as u64;
        let queue = self.gpu.queue();
        queue.write_buffer(&next.states[0], 0, bytemuck::cast_slice(&words));
        queue.write_buffer(&next.grid, 4 * u64::from(next.params.exited_off), bytemuck::cast_slice(&exited));
        queue.write_buffer(&next.route, 0, bytemuck::cast_slice(&route[..n]));
        queue.write_buffer(&next.route, 4 * 3 * m, bytemuck::cast_slice(&route[3 * n..]));
        queue.write_buffer(&next.counts, 4 * u64::from(next.params.targeting_off), bytemuck::cast_slice(&targeting));
        queue.write_buffer(&next.counts, 0, bytemuck::bytes_of(&(self.steps as u32)));
        let (steps, step_ms) = (self.steps, std::mem::take(&mut self.step_ms));
        *self = Crowd { steps, step_ms, walking: walking.len() + added.len(), ..next };
        Ok(n..n + added.len())
    }

    /// Moves every agent to `positions` (and back to walking), unchecked but for their count: to
    /// step from any state a run has reached, as the tests do with the reference's.
    pub fn set_positions(&mut self, positions: &[[f64; 2]]) -> Result<()> {
        if positions.len() != self.n {
            let detail = format!("are {} for {} agents", positions.len(), self.n);
            return Err(Error::Crowd { what: "the positions".into(), detail });
        }
        let state = still(positions, self.params.stride as usize);
        let queue = self.gpu.queue();
        queue.write_buffer(&self.states[self.current], 0, bytemuck::cast_slice(&state));
        let exited = 4 * u64::from(self.params.exited_off);
        queue.write_buffer(&self.grid, exited, bytemuck::cast_slice(&vec![0u32; self.n]));
        // Every agent heads for its stage again.
        let mut targeting = vec![0u32; self.params.stages as usize];
        for s in self.stages()? {
            targeting[s as usize] += 1;
        }
        let offset = 4 * u64::from(self.params.targeting_off);
        queue.write_buffer(&self.counts, offset, bytemuck::cast_slice(&targeting));
        self.walking = self.n;
        Ok(())
    }

    /// Per agent, the stage it heads for now.
    pub fn stages(&self) -> Result<Vec<u32>> {
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        self.read_range(&mut encoder, &self.route, 0, self.n as u64)
    }

    /// Per stage, the agents heading for it now (those walking).
    pub fn targeting(&self) -> Result<Vec<u32>> {
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        let offset = 4 * u64::from(self.params.targeting_off);
        self.read_range(&mut encoder, &self.counts, offset, u64::from(self.params.stages))
    }

    /// Per agent, the step after which it left (0 while it walks).
    pub fn exit_steps(&self) -> Result<Vec<u32>> {
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        let offset = 4 * u64::from(self.params.exited_off);
        let words = self.read_range(&mut encoder, &self.grid, offset, self.n as u64)?;
        Ok(words)
    }

    /// Every agent's position (those that left stay where they left).
    pub fn positions(&self) -> Result<Vec<[f32; 2]>> {
        Ok(self.state()?.iter().map(|s| [s[0], s[1]]).collect())
    }

    /// Every agent's orientation: its direction in its last step, (0, 0) before its first.
    pub fn orientations(&self) -> Result<Vec<[f32; 2]>> {
        Ok(self.state()?.iter().map(|s| [s[2], s[3]]).collect())
    }

    /// Every agent's velocity in its last step under the anticipation velocity model, (0, 0)
    /// before its first (and always under the collision-free speed model, which keeps none).
    pub fn velocities(&self) -> Result<Vec<[f32; 2]>> {
        let words = self.state_words()?;
        let stride = 4 * self.params.stride as usize;
        Ok(words
            .chunks_exact(stride)
            .map(|s| if stride == 8 { [s[4], s[5]].map(f32::from_bits) } else { [0.0; 2] })
            .collect())
    }

    /// Sets every agent's orientation and velocity (the latter only under the anticipation
    /// velocity model), unchecked but for their counts: the tests step the GPU and the
    /// reference from one state of a run.
    pub fn set_motion(&mut self, orientations: &[[f64; 2]], velocities: &[[f64; 2]]) -> Result<()> {
        if orientations.len() != self.n || velocities.len() != self.n {
            let detail = format!("are {} and {} for {} agents", orientations.len(), velocities.len(), self.n);
            return Err(Error::Crowd { what: "the orientations and velocities".into(), detail });
        }
        let mut words = self.state_words()?;
        let stride = 4 * self.params.stride as usize;
        for (k, s) in words.chunks_exact_mut(stride).enumerate() {
            let [o, v] = [orientations[k], velocities[k]].map(|u| u.map(|c| (c as f32).to_bits()));
            s[2..4].copy_from_slice(&o);
            if stride == 8 {
                s[4..6].copy_from_slice(&v);
            }
        }
        self.gpu.queue().write_buffer(&self.states[self.current], 0, bytemuck::cast_slice(&words));
        Ok(())
    }

    /// Every agent's state: position, then orientation.
    pub(super) fn state(&self) -> Result<Vec<[f32; 4]>> {
        let words = self.state_words()?;
        let stride = 4 * self.params.stride as usize;
        Ok(words.chunks_exact(stride).map(|s| std::array::from_fn(|k| f32::from_bits(s[k]))).collect())
    }

    /// The state buffer's words: per agent `4 x stride`.
    fn state_words(&self) -> Result<Vec<u32>> {
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        let words = 4 * u64::from(self.params.stride) * self.n as u64;
        self.read_range(&mut encoder, &self.states[self.current], 0, words)
    }

    fn read_words(&self, encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer, words: u64) -> Result<Vec<u32>> {
        self.read_range(encoder, buffer, 0, words)
    }

    /// Submits `encoder` with a copy of `words` words of `buffer` from `offset`, and reads them.
    fn read_range(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        buffer: &wgpu::Buffer,
        offset: u64,
        words: u64,
    ) -> Result<Vec<u32>> {
        let gpu = &self.gpu;
        let encoder = std::mem::replace(encoder, gpu.device().create_command_encoder(&Default::default()));
        let mut read = crate::gpu::read_copies(gpu, encoder, &[(buffer, offset, 4 * words)], "the crowd's step")?;
        Ok(read.pop().unwrap_or_default())
    }
}

/// The state of agents standing at `positions`, facing nowhere: `stride` vec4s each.
fn still(positions: &[[f64; 2]], stride: usize) -> Vec<[f32; 4]> {
    let at = |p: &[f64; 2]| [p[0] as f32, p[1] as f32, 0.0, 0.0];
    positions.iter().flat_map(|p| [at(p), [0.0; 4]].into_iter().take(stride)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameters_match_their_wgsl_twin() {
        crate::twins::assert_twin!(
            Params,
            "crowd.wgsl",
            "CfsmParams",
            [
                n,
                cells,
                gx,
                gy,
                origin,
                cell,
                cutoff,
                dt,
                stages,
                journeys,
                corners,
                segments,
                list_off,
                seg_off,
                way_off,
                agents_off,
                slot_off,
                exited_off,
                to_off,
                stage_off,
                poly_off,
                node_off,
                movers_off,
                targeting_off,
                routed,
                stride,
                pushout,
                seed_lo,
                seed_hi,
                pad0,
                pad1
            ]
        );
    }
}
