//! A crowd that lives on the GPU: integrate, detect, push out, all in one submission per frame
//! and nothing read back unless asked for.
//!
//! [`Simulation`] is built on [`World`]'s public GPU-resident interface, exactly as an embedding
//! program would use it (see also `examples/crowd.rs`): its own WGSL passes
//! (`shaders/push.wgsl`) write [`World::transforms_buffer`], read [`World::contacts_buffer`]
//! with an indirect dispatch from [`World::totals_buffer`], and rebind when
//! [`World::generation`] changes.
//!
//! A frame:
//!
//! 1. `integrate`: each moving body relaxes its velocity toward its goal and moves;
//! 2. `iterations` times: a fresh detection ([`Resolve::Fresh`]), or one detection whose
//!    contacts the later iterations reuse with their separations updated
//!    ([`Resolve::Reuse`]); then `push` (every colliding pair moves apart along its normal by
//!    its depth, shared by inverse mass; static bodies have none) and `apply` (each body moves
//!    by the average of its pushes);
//! 3. `finish`: the velocity becomes what the frame actually moved the body (position-based
//!    dynamics), capped;
//! 4. one more detection, and the largest and total penetration
//!    left after resolution, kept on the GPU per frame.
//!
//! Determinism: displacements are summed with integer atomics on fixed-point values, so the
//! order in which the GPU runs the pairs cannot change a bit of the result; the penetration
//! sums run in one workgroup in a fixed order. The same scenario and options on the same
//! adapter give the same positions ([`Simulation::state_hash`]).
//!
//! Buffers that a frame outgrows are caught, not ignored: after every detection a one-invocation
//! pass records the largest totals, and every [`SimOptions::window`] frames the host reads them
//! (a few bytes). If a detection needed more room than the world had, its contacts were
//! incomplete: the world grows, the state goes back to the copy taken at the start of the
//! window (on the GPU), and the window runs again. No pair is silently dropped.

mod pipelines;
mod scenario;
mod window;

use std::time::Instant;

pub use scenario::{Scenario, SimKind, Walker};

use crate::error::{Error, Result};
use crate::gpu::{Gpu, World, WorldOptions};
use pipelines::{Agent, Params, Pipelines};
use window::{events_at, stats_size};

/// The simulation's WGSL, composed (`shaders/push.wgsl`): its passes, one entry point each. It
/// reads the world's records through [`RECORDS_WGSL`](crate::gpu::RECORDS_WGSL), as any
/// caller's shader does, so it starts with them.
pub fn shader() -> String {
    crate::gpu::shader_sources().into_iter().find(|(name, _)| *name == "push.wgsl").map(|(_, s)| s).unwrap_or_default()
}

/// How the iterations of a frame find the pairs they push apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolve {
    /// Every iteration runs a fresh detection on the moved bodies.
    Fresh,
    /// One detection per frame; later iterations reuse its contacts, each pair's depth reduced
    /// by how far the two bodies have since moved apart along its normal.
    Reuse,
}

crate::named::named!(
    Resolve,
    "resolve",
    [
        (Resolve::Fresh, "fresh", "A fresh detection per push-out iteration"),
        (Resolve::Reuse, "reuse", "One detection per frame, its contacts reused with updated separations"),
    ]
);

/// How a [`Simulation`] runs.
#[derive(Debug, Clone)]
pub struct SimOptions {
    /// Push-out iterations per frame (at least 1).
    pub iterations: u32,
    /// Seconds per frame.
    pub dt: f64,
    /// How iterations find their pairs.
    pub resolve: Resolve,
    /// Frames between the host's checks of the buffers (and of the penetration figures).
    pub window: usize,
    /// The world's options (capacities up front, broad phase, GPU timestamps).
    pub world: WorldOptions,
    /// Over-relaxation: each iteration moves a body by this times the average of its pushes
    /// (1: plain averaging; up to 2 converges faster in crowds).
    pub relax: f64,
    /// The separation each push aims for beyond touching, as a fraction of the smallest moving
    /// body's radius: personal space, so that the next frame's small steps do not overlap.
    pub margin: f64,
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            iterations: 6,
            dt: 1.0 / 60.0,
            resolve: Resolve::Fresh,
            window: 32,
            relax: 1.8,
            margin: 0.05,
            world: WorldOptions::default(),
        }
    }
}

/// What one frame left behind, after its resolution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameReport {
    /// The largest penetration depth among colliding pairs (world units).
    pub max_depth: f64,
    /// The sum of the penetration depths.
    pub total_depth: f64,
    /// Colliding pairs.
    pub colliding: u64,
    /// With [`WorldOptions::events`] in [`SimOptions::world`], the pairs that began and ended
    /// colliding since the previous frame's last detection (the first frame: since the starting
    /// positions), as `(began, ended)`; `None` without events.
    pub events: Option<(u64, u64)>,
    /// Wall-clock time of the frame, from submission to the GPU finishing it (ms).
    pub ms: f64,
}

/// A crowd on the GPU: a [`World`] and the passes that move its bodies (see the module docs).
pub struct Simulation {
    world: World,
    options: SimOptions,
    pipelines: Pipelines,
    params: Params,
    params_buffer: wgpu::Buffer,
    agents: wgpu::Buffer,
    marks: wgpu::Buffer,
    moves: wgpu::Buffer,
    stats: wgpu::Buffer,
    stats_read: wgpu::Buffer,
    /// Copies of the transforms and agents taken at the start of the window.
    saved: (wgpu::Buffer, wgpu::Buffer),
    /// The bind group and the world generation it was made for.
    group: Option<(u64, wgpu::BindGroup)>,
    /// Frame times of the window so far (ms).
    window_ms: Vec<f64>,
    reports: Vec<FrameReport>,
    /// Windows run again because a detection outgrew the world's buffers.
    reruns: u32,
}

/// The world's owner of each body for `scenario`'s compound bodies (the first part of its body
/// plus one; 0 for a body of its own), or `None` when it has none. Compound bodies must be
/// static (the simulation moves every body on its own), their ranges in bounds and disjoint.
fn compound_owners(scenario: &Scenario) -> Result<Option<Vec<u32>>> {
    if scenario.compounds.iter().all(|r| r.len() <= 1) {
        return Ok(None);
    }
    let n = scenario.body_shapes.len();
    let mut owners = vec![0u32; n];
    for (k, range) in scenario.compounds.iter().enumerate() {
        let bad = |why: String| Error::InvalidSetting {
            what: "scenario compounds",
            detail: format!("compound {k} ({range:?}): {why}"),
        };
        if range.end > n {
            return Err(bad(format!("past the last of {n} bodies")));
        }
        for i in range.clone() {
            if owners[i] != 0 {
                return Err(bad(format!("body {i} is in two compound bodies")));
            }
            match scenario.walkers.get(i).map(|w| w.inv_mass) {
                Some(0.0) => {}
                m => return Err(bad(format!("body {i} is not static (inverse mass {m:?}); compound bodies must be"))),
            }
            if range.len() > 1 {
                owners[i] = range.start as u32 + 1;
            }
        }
    }
    Ok(Some(owners))
}

impl Simulation {
    /// Uploads `scenario` and sizes the world's buffers from a first detection, with room to
    /// spare; later growth is caught and handled (see the module docs).
    pub fn new(gpu: &Gpu, scenario: &Scenario, options: &SimOptions) -> Result<Simulation> {
        let bad = options.iterations == 0
            || options.window == 0
            || !(options.dt > 0.0 && options.dt.is_finite())
            || !(options.relax > 0.0 && options.relax < 2.0)
            || !(options.margin >= 0.0 && options.margin <= 1.0);
        if bad {
            return Err(Error::InvalidSetting {
                what: "simulation options",
                detail: format!(
                    "iterations and window must be at least 1, dt positive and finite, relax in (0, 2) and \
                     margin in [0, 1]; got {options:?}"
                ),
            });
        }
        let device = gpu.device();
        let n = scenario.body_shapes.len();
        // The crowd kernel binds the agents (and the transforms) in one binding each, unpaged.
        let limits = device.limits();
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let agents = (std::mem::size_of::<Agent>() * n) as u64;
        if agents > binding {
            let what = "simulation agents (one binding)";
            return Err(Error::TooLarge { what, needed: agents, limit: binding });
        }
        let mut world_options = options.world.clone();
        if let Some(p) = scenario.periodic {
            world_options.periodic = Some(p);
        }
        let mut world = World::new(gpu, &scenario.shapes, &scenario.body_shapes, &world_options)?;
        if let Some(owners) = compound_owners(scenario)? {
            world.set_owners(owners)?;
        }
        world.set_transforms(&scenario.start)?;
        let first = world.step()?;
        world.reserve(2 * first.stats.entries.max(64), 3 * first.stats.candidates.max(64))?;
        let largest = scenario.largest_radius().max(1e-30);
        let params = Params {
            bodies: n as u32,
            frame: 0,
            reuse: u32::from(options.resolve == Resolve::Reuse),
            wrap: world_options.periodic.map_or(0, |p| u32::from(p.wraps()[0]) | (u32::from(p.wraps()[1]) << 1)),
            dt: options.dt as f32,
            // Sums of a few dozen pushes of a few radii each stay far inside i32, to within a
            // millionth of a radius.
            fixed: 2f64.powi((2f64.powi(20) / largest).log2().floor() as i32) as f32,
            margin: (options.margin * scenario.body_radius()) as f32,
            relax: options.relax as f32,
            tau: 0.5,
            max_speed: (2.0 * scenario.walkers.iter().map(|w| w.speed).fold(0.0, f64::max)) as f32,
            pad1: 0.0,
            pad2: 0.0,
            box_lo: world_options.periodic.map_or([0.0; 2], |p| [p.bounds()[0] as f32, p.bounds()[1] as f32]),
            period: world_options.periodic.map_or([0.0; 2], |p| p.size().map(|x| x as f32)),
        };
        let agents: Vec<Agent> = scenario
            .walkers
            .iter()
            .zip(&scenario.start)
            .map(|(w, t)| {
                let v = w.preferred_velocity([t.x, t.y]);
                Agent {
                    goal: [w.goal[0] as f32, w.goal[1] as f32],
                    velocity: [v[0] as f32, v[1] as f32],
                    speed: w.speed as f32,
                    inv_mass: w.inv_mass as f32,
                    radius: w.radius as f32,
                    pad: 0.0,
                }
            })
            .collect();
        let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(16),
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        let pipelines = gpu.scoped(|| Pipelines::new(gpu))??;
        let (params_buffer, agents_buffer, marks, moves, stats, stats_read, saved) = gpu.scoped(|| {
            let agents_buffer = buffer("satgpu.sim.agents", 32 * n as u64, U::STORAGE | U::COPY_DST | U::COPY_SRC);
            gpu.queue().write_buffer(&agents_buffer, 0, bytemuck::cast_slice(&agents));
            let moves = buffer("satgpu.sim.moves", 12 * n as u64, U::STORAGE | U::COPY_DST);
            gpu.queue().write_buffer(&moves, 0, &vec![0u8; 12 * n]);
            (
                buffer("satgpu.sim.params", std::mem::size_of::<Params>() as u64, U::UNIFORM | U::COPY_DST),
                agents_buffer,
                buffer("satgpu.sim.marks", 16 * n as u64, U::STORAGE),
                moves,
                buffer("satgpu.sim.stats", stats_size(options.window), U::STORAGE | U::COPY_DST | U::COPY_SRC),
                buffer("satgpu.sim.stats_read", stats_size(options.window), U::MAP_READ | U::COPY_DST),
                (
                    buffer("satgpu.sim.saved_transforms", 16 * n as u64, U::COPY_SRC | U::COPY_DST),
                    buffer("satgpu.sim.saved_agents", 32 * n as u64, U::COPY_SRC | U::COPY_DST),
                ),
            )
        })?;
        let mut sim = Simulation {
            world,
            options: options.clone(),
            pipelines,
            params,
            params_buffer,
            agents: agents_buffer,
            marks,
            moves,
            stats,
            stats_read,
            saved,
            group: None,
            window_ms: vec![],
            reports: vec![],
            reruns: 0,
        };
        sim.start_window();
        Ok(sim)
    }

    /// The world the simulation detects with (its buffers hold the latest state).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Makes room in the world for at least `entries` strip entries and `candidates` candidate
    /// pairs, so that no frame up to that size has to run again (see the module docs).
    pub fn reserve(&mut self, entries: u64, candidates: u64) -> Result<()> {
        self.world.reserve(entries, candidates)
    }

    /// The options it runs with.
    pub fn options(&self) -> &SimOptions {
        &self.options
    }

    /// Frames run so far, checked (see [`sync`](Simulation::sync)) or not.
    pub fn frames(&self) -> usize {
        self.reports.len() + self.window_ms.len()
    }

    /// One report per checked frame: every frame up to the last [`sync`](Simulation::sync).
    pub fn reports(&self) -> &[FrameReport] {
        &self.reports
    }

    /// Windows that ran again because a detection outgrew the world's buffers.
    pub fn reruns(&self) -> u32 {
        self.reruns
    }

    fn bind_group(&mut self) -> wgpu::BindGroup {
        let generation = self.world.generation();
        if let Some((g, group)) = &self.group {
            if *g == generation {
                return group.clone();
            }
        }
        let buffers = [
            &self.params_buffer,
            self.world.transforms_buffer(),
            &self.agents,
            &self.marks,
            &self.moves,
            self.world.totals_buffer(),
            self.world.contacts_buffer(),
            &self.stats,
        ];
        let entries: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        let group = self.world.gpu().device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("satgpu.sim"),
            layout: &self.pipelines.layout,
            entries: &entries,
        });
        self.group = Some((generation, group.clone()));
        group
    }

    /// Records one frame (see the module docs).
    fn encode(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let group = self.bind_group();
        let p = &self.pipelines;
        let bodies = self.world.len() as u32;
        let per_body = |encoder: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline| {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &group, &[]);
            let groups = bodies.div_ceil(64);
            pass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
        };
        let one = |encoder: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline| {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        };
        let detect = |encoder: &mut wgpu::CommandEncoder| {
            self.world.encode(encoder);
            one(encoder, &p.guard);
        };
        per_body(encoder, &p.integrate);
        for k in 0..self.options.iterations {
            if k == 0 || self.options.resolve == Resolve::Fresh {
                detect(encoder);
                // Only reused contacts need the positions at detection (their updated depths).
                if self.options.resolve == Resolve::Reuse {
                    per_body(encoder, &p.anchor);
                }
            }
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(&p.push);
                pass.set_bind_group(0, &group, &[]);
                pass.dispatch_workgroups_indirect(self.world.totals_buffer(), 16);
            }
            per_body(encoder, &p.apply);
        }
        per_body(encoder, &p.finish);
        // The penetration the frame leaves: what its reports say, measured, never estimated;
        // with events, the pairs it leaves against the previous frame's.
        match self.world.events_totals_buffer() {
            Some(totals) => {
                self.world.encode_with_events(encoder);
                one(encoder, &p.guard);
                let at = events_at(self.options.window, self.params.frame);
                encoder.copy_buffer_to_buffer(totals, 0, &self.stats, at, 8);
            }
            None => detect(encoder),
        }
        one(encoder, &p.measure);
    }

    /// Runs one frame on the GPU and waits for it (at most the [`Gpu`]'s timeout). Every
    /// [`SimOptions::window`] frames it also [`sync`](Simulation::sync)s.
    pub fn step(&mut self) -> Result<()> {
        self.run_frame()?;
        if self.window_ms.len() == self.options.window {
            self.sync()?;
        }
        Ok(())
    }

    fn run_frame(&mut self) -> Result<()> {
        self.params.frame = self.window_ms.len() as u32;
        let gpu = self.world.gpu().clone();
        gpu.queue().write_buffer(&self.params_buffer, 0, bytemuck::bytes_of(&self.params));
        let started = Instant::now();
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        self.encode(&mut encoder);
        let submission = gpu.queue().submit([encoder.finish()]);
        gpu.wait(submission)?;
        self.window_ms.push(started.elapsed().as_secs_f64() * 1e3);
        Ok(())
    }

    /// Reads every body's position (x, y) back from the GPU.
    pub fn positions(&self) -> Result<Vec<[f32; 2]>> {
        let gpu = self.world.gpu();
        let size = 16 * self.world.len() as u64;
        let encoder = gpu.device().create_command_encoder(&Default::default());
        let copies = [(self.world.transforms_buffer(), 0, size)];
        let words = crate::gpu::read_copies(gpu, encoder, &copies, "the positions")?.pop().unwrap_or_default();
        Ok(words.chunks_exact(4).map(|t| [f32::from_bits(t[0]), f32::from_bits(t[1])]).collect())
    }

    /// FNV-1a over the bits of every body's position: equal hashes, equal states.
    pub fn state_hash(&self) -> Result<u64> {
        Ok(hash_positions(&self.positions()?))
    }
}

/// FNV-1a (64 bits) over the little-endian bits of each x and y.
pub fn hash_positions(positions: &[[f32; 2]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for p in positions {
        for byte in p.iter().flat_map(|v| v.to_bits().to_le_bytes()) {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}
