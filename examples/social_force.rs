//! A social-force crowd on the GPU (Helbing and Molnár's model, the neighbour search of JuPedSim's
//! social force model): every agent is pushed away from each neighbour within two body radii by
//! a force that falls off with their distance, and pulled toward its goal at its preferred speed.
//! satgpu finds the neighbours: a world with a margin of two radii reports every pair at most
//! that far apart with its signed distance (`depth` is minus it) and the direction from one to
//! the other; this program's own WGSL pass reads them from [`World::contacts_buffer`] with an
//! indirect dispatch from [`World::totals_buffer`], sums each agent's forces, and moves the agents
//! through [`World::transforms_buffer`]. Nothing is read back per frame.
//!
//! The repulsion of a pair at distance `d` is `A (exp(-d / B) - exp(-m / B))` along the line
//! between them (the second term makes it fall to 0 at the margin `m`, so a pair at the edge
//! of the neighbourhood adds nothing whether or not it is reported), plus a body force `K`
//! times the overlap when they overlap. Forces are summed with integer atomics on fixed-point
//! values, so the same input gives the same positions on every run.
//!
//! cargo run --release --example social_force

// This program's own buffers: create_buffer_init (barred in the library by clippy.toml, since it
// panics on a lost device) keeps the example short.
#![allow(clippy::disallowed_methods)]

use satgpu::gpu::{Gpu, GpuOptions, World, WorldOptions};
use satgpu::{Polygon, Transform};

/// Body radius (world units, metres).
pub const RADIUS: f64 = 0.25;
/// Neighbours: every pair at most two radii apart.
pub const MARGIN: f64 = 2.0 * RADIUS;
/// Repulsion strength and range, and the body force per unit of overlap (per unit mass).
pub const A: f64 = 2.0;
pub const B: f64 = 0.15;
pub const K: f64 = 40.0;
/// Seconds per frame.
const DT: f32 = 0.04;

/// The caller's passes: `forces` over the neighbour pairs, then `integrate` over the agents.
const SOCIAL_FORCE: &str = r#"

struct Params {
    bodies: u32,
    dt: f32,
    margin: f32,
    pad: f32,
    a: f32,
    b: f32,
    k: f32,
    tau: f32,
}

@group(0) @binding(0) var<storage, read> totals: array<u32>;       // [TOTAL_COLLIDING] = neighbour pairs
@group(0) @binding(1) var<storage, read> contacts: array<Contact>;
@group(0) @binding(2) var<storage, read_write> sums: array<atomic<i32>>; // 2 per agent, fixed point
@group(0) @binding(3) var<storage, read_write> transforms: array<vec4<f32>>; // x, y, cos, sin
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read> goals: array<vec4<f32>>;   // goal x, y, preferred speed
@group(0) @binding(6) var<storage, read_write> velocities: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read_write> forces: array<vec2<f32>>; // the last frame's, to look at

const FIXED: f32 = 4096.0; // forces in 1/4096 units: integer sums are order-free

// The repulsion of two agents at signed distance `d` (negative when they overlap).
fn repulsion(d: f32) -> f32 {
    let social = params.a * max(exp(-d / params.b) - exp(-params.margin / params.b), 0.0);
    return social + params.k * max(-d, 0.0);
}

@compute @workgroup_size(64)
fn pair_forces(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 64u;
    if i >= totals[TOTAL_COLLIDING] {
        return;
    }
    let c = contacts[i];
    // The normal points from a to b: a is pushed against it, b along it.
    let f = vec2<f32>(c.normal_x, c.normal_y) * repulsion(-c.depth);
    let q = vec2<i32>(round(f * FIXED));
    atomicSub(&sums[2u * c.a], q.x);
    atomicSub(&sums[2u * c.a + 1u], q.y);
    atomicAdd(&sums[2u * c.b], q.x);
    atomicAdd(&sums[2u * c.b + 1u], q.y);
}

@compute @workgroup_size(64)
fn integrate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 64u;
    if i >= params.bodies {
        return;
    }
    let f = vec2<f32>(f32(atomicExchange(&sums[2u * i], 0)), f32(atomicExchange(&sums[2u * i + 1u], 0))) / FIXED;
    forces[i] = f;
    let t = transforms[i];
    let goal = goals[i];
    let to_goal = goal.xy - t.xy;
    let distance = length(to_goal);
    var wish = vec2<f32>(0.0);
    if distance > 0.05 {
        wish = to_goal * (goal.z / distance);
    }
    // Relax toward the wished velocity, pushed by the neighbours (unit mass).
    var v = velocities[i] + params.dt * ((wish - velocities[i]) / params.tau + f);
    let speed = length(v);
    if speed > 2.0 * goal.z {
        v = v * (2.0 * goal.z / speed);
    }
    velocities[i] = v;
    transforms[i] = vec4<f32>(t.xy + params.dt * v, t.zw);
}
"#;

/// What a run leaves: the forces the first frame applied, and the positions at the end.
pub struct Summary {
    /// The agents' starting positions.
    pub start: Vec<Transform>,
    /// Per agent, the sum of its neighbours' forces in the first frame.
    pub first_forces: Vec<[f32; 2]>,
    /// Neighbour pairs in the first and the last frame.
    pub neighbours: (usize, usize),
    /// The deepest overlap in the first and the last frame.
    pub depth: (f64, f64),
    pub positions: Vec<[f32; 2]>,
}

/// The caller's pipelines, buffers, and bind groups over the world's buffers of one generation.
struct SocialForce {
    pair_forces: wgpu::ComputePipeline,
    integrate: wgpu::ComputePipeline,
    buffers: [wgpu::Buffer; 5], // sums, params, goals, velocities, forces
    groups: Option<(u64, wgpu::BindGroup, wgpu::BindGroup)>,
}

impl SocialForce {
    fn new(device: &wgpu::Device, goals: &[[f32; 4]]) -> SocialForce {
        use wgpu::util::DeviceExt;
        use wgpu::BufferUsages as U;
        let n = goals.len() as u64;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("example.social_force"),
            // satgpu's records (struct Contact, the TOTAL_* words), then this program's passes.
            source: wgpu::ShaderSource::Wgsl(format!("{}\n{SOCIAL_FORCE}", satgpu::gpu::RECORDS_WGSL).into()),
        });
        let pipeline = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let zeroed = |label: &str, size: u64, usage: U| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(16),
                usage,
                mapped_at_creation: false,
            })
        };
        let params: [f32; 8] = [f32::from_bits(n as u32), DT, MARGIN as f32, 0.0, A as f32, B as f32, K as f32, 0.5];
        let buffers = [
            zeroed("example.sums", 8 * n, U::STORAGE),
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("example.params"),
                contents: bytemuck::cast_slice(&params),
                usage: U::UNIFORM,
            }),
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("example.goals"),
                contents: bytemuck::cast_slice(goals),
                usage: U::STORAGE,
            }),
            zeroed("example.velocities", 8 * n, U::STORAGE),
            zeroed("example.forces", 8 * n, U::STORAGE | U::COPY_SRC),
        ];
        SocialForce { pair_forces: pipeline("pair_forces"), integrate: pipeline("integrate"), buffers, groups: None }
    }

    /// Records the two passes after the world's frame; rebinds when the world's buffers changed.
    fn encode(&mut self, world: &World, encoder: &mut wgpu::CommandEncoder) {
        if self.groups.as_ref().is_none_or(|(g, _, _)| *g != world.generation()) {
            let device = world.gpu().device();
            let bind = |pipeline: &wgpu::ComputePipeline, entries: &[(u32, &wgpu::Buffer)]| {
                let entries: Vec<_> = entries
                    .iter()
                    .map(|(binding, buffer)| wgpu::BindGroupEntry {
                        binding: *binding,
                        resource: buffer.as_entire_binding(),
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("example.social_force"),
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            };
            let [sums, params, goals, velocities, forces] = &self.buffers;
            let pairs = bind(
                &self.pair_forces,
                &[(0, world.totals_buffer()), (1, world.contacts_buffer()), (2, sums), (4, params)],
            );
            let integrate = bind(
                &self.integrate,
                &[(2, sums), (3, world.transforms_buffer()), (4, params), (5, goals), (6, velocities), (7, forces)],
            );
            self.groups = Some((world.generation(), pairs, integrate));
        }
        let (_, pairs, integrate) = self.groups.as_ref().expect("bound above");
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pair_forces);
        pass.set_bind_group(0, pairs, &[]);
        pass.dispatch_workgroups_indirect(world.totals_buffer(), 16);
        pass.set_pipeline(&self.integrate);
        pass.set_bind_group(0, integrate, &[]);
        let groups = (world.len() as u32).div_ceil(64);
        pass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
    }
}

/// `n` agents at random in two groups side by side, each walking to the far side through the
/// other group at 1.2 m/s; `frames` frames of neighbour search, social forces and integration,
/// all on the GPU.
pub fn run(gpu: &Gpu, n: usize, frames: usize) -> Result<Summary, Box<dyn std::error::Error>> {
    let disc = vec![Polygon::circle([0.0, 0.0], RADIUS)?];
    // About one agent per 1.5 square metres.
    let side = (n as f64 * 1.5).sqrt();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut random = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let start: Vec<Transform> = (0..n)
        .map(|i| {
            let x = random() * side / 2.0;
            Transform { x: if i % 2 == 0 { x } else { side - x }, y: random() * side, angle: 0.0 }
        })
        .collect();
    let goals: Vec<[f32; 4]> = start.iter().map(|t| [(side - t.x) as f32, t.y as f32, 1.2, 0.0]).collect();

    let options = WorldOptions::default().with_margin(MARGIN);
    let mut world = World::new(gpu, &disc, &vec![0; n], &options)?;
    world.set_transforms(&start)?;
    // Look once, and reserve room for twice what was seen, so frames never outgrow the buffers
    // (an outgrown frame would leave some neighbours out of contacts_buffer).
    let first = world.step()?;
    world.reserve(2 * first.stats.entries, 2 * first.stats.candidates)?;
    let deepest = |contacts: &[satgpu::Contact]| contacts.iter().map(|c| c.depth).fold(0.0, f64::max);

    let mut model = SocialForce::new(gpu.device(), &goals);
    let mut first_forces = vec![];
    for frame in 0..frames {
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        world.encode(&mut encoder);
        model.encode(&world, &mut encoder);
        gpu.queue().submit([encoder.finish()]);
        if frame == 0 {
            first_forces = read(gpu, &model.buffers[4], n)?;
        }
    }
    // Look again: this step reads the neighbours back (and waits for the frames above).
    let last = world.step()?;
    let positions = read(gpu, world.transforms_buffer(), 2 * n)?.chunks(2).map(|t| t[0]).collect();
    Ok(Summary {
        start,
        first_forces,
        neighbours: (first.contacts.len(), last.contacts.len()),
        depth: (deepest(&first.contacts), deepest(&last.contacts)),
        positions,
    })
}

/// The first `pairs` f32 pairs of `buffer`.
fn read(gpu: &Gpu, buffer: &wgpu::Buffer, pairs: usize) -> satgpu::Result<Vec<[f32; 2]>> {
    let size = (8 * pairs as u64).max(8);
    let staging = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("example.read"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
    let submission = gpu.queue().submit([encoder.finish()]);
    staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    gpu.wait(submission)?;
    let words: Vec<[f32; 2]> = bytemuck::pod_collect_to_vec(
        &staging.slice(..).get_mapped_range().map_err(|e| satgpu::Error::Device(e.to_string()))?,
    );
    staging.unmap();
    Ok(words[..pairs].to_vec())
}

#[allow(dead_code, reason = "tests/proximity.rs includes this file for `run` alone")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::new(&GpuOptions::default())?;
    println!("adapter: {}", gpu.describe());
    let (n, frames) = (20_000, 100);
    let started = std::time::Instant::now();
    let s = run(&gpu, n, frames)?;
    println!(
        "{n} agents, {frames} frames on the GPU in {:.0} ms: {} neighbour pairs within {MARGIN} m (deepest overlap \
         {:.3} m) -> {} (deepest {:.3} m)",
        started.elapsed().as_secs_f64() * 1e3,
        s.neighbours.0,
        s.depth.0,
        s.neighbours.1,
        s.depth.1
    );
    if s.depth.1 >= s.depth.0 {
        return Err("the social forces did not reduce the overlaps".into());
    }
    Ok(())
}
