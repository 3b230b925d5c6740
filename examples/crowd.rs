//! A crowd that lives on the GPU: two groups of bodies walk through each other toward their
//! goals; satgpu finds the contacts, and this program's own WGSL pass pushes overlapping bodies
//! apart along each contact's normal and walks them on, with nothing read back per frame.
//! The pattern a simulation embeds (`satgpu::sim` and `satgpu sim` are the full version: a
//! velocity model, walls, several iterations per frame, figures kept on the GPU):
//!
//! - shapes are uploaded once; the caller's pass writes [`World::transforms_buffer`] directly;
//! - the caller's pass runs over the colliding pairs with an indirect dispatch from
//!   [`World::totals_buffer`] (arguments at byte 16) and reads [`World::contacts_buffer`];
//! - capacities are reserved up front, and bind groups are rebuilt whenever
//!   [`World::generation`] changes (the sized buffers were replaced);
//! - one submission and no host wait per frame; the host reads the contacts only when it wants
//!   to look (here: before and after).
//!
//! Displacements are summed with integer atomics on fixed-point values, so the result does not
//! depend on the order the GPU runs the pairs in: the same input gives the same positions.
//!
//! cargo run --release --example crowd

// This program's own buffers: create_buffer_init (barred in the library by clippy.toml, since it
// panics on a lost device) keeps the example short.
#![allow(clippy::disallowed_methods)]

use satgpu::gpu::{Gpu, GpuOptions, World, WorldOptions};
use satgpu::{Polygon, Transform};

/// The caller's passes: `push` over the colliding pairs, then `integrate` over the bodies
/// (apply the pushes, then walk).
const PUSH_OUT: &str = r#"

@group(0) @binding(0) var<storage, read> totals: array<u32>;       // [TOTAL_COLLIDING] = colliding pairs
@group(0) @binding(1) var<storage, read> contacts: array<Contact>;
@group(0) @binding(2) var<storage, read_write> moves: array<atomic<i32>>; // 2 per body, fixed point
@group(0) @binding(3) var<storage, read_write> transforms: array<vec4<f32>>; // x, y, cos, sin
@group(0) @binding(4) var<uniform> bodies: vec4<u32>;              // x = number of bodies
@group(0) @binding(5) var<storage, read> goals: array<vec4<f32>>;  // goal x, y, step per frame

const FIXED: f32 = 65536.0; // displacements in 1/65536 units: integer sums are order-free

@compute @workgroup_size(64)
fn push(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 64u;
    if i >= totals[TOTAL_COLLIDING] {
        return;
    }
    let c = contacts[i];
    // Each body moves half the depth (plus a little, so touching bodies part), a against the
    // normal and b along it.
    let step = vec2<f32>(c.normal_x, c.normal_y) * (0.5 * c.depth + 0.001);
    let q = vec2<i32>(round(step * FIXED));
    atomicSub(&moves[2u * c.a], q.x);
    atomicSub(&moves[2u * c.a + 1u], q.y);
    atomicAdd(&moves[2u * c.b], q.x);
    atomicAdd(&moves[2u * c.b + 1u], q.y);
}

@compute @workgroup_size(64)
fn integrate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 64u;
    if i >= bodies.x {
        return;
    }
    let d = vec2<f32>(f32(atomicExchange(&moves[2u * i], 0)), f32(atomicExchange(&moves[2u * i + 1u], 0)));
    let t = transforms[i];
    let p = t.xy + d / FIXED;
    // Walk one step toward the goal, stopping on it.
    let to_goal = goals[i].xy - p;
    let distance = length(to_goal);
    var walk = vec2<f32>(0.0);
    if distance > 0.0 {
        walk = to_goal * (min(goals[i].z, distance) / distance);
    }
    transforms[i] = vec4<f32>(p + walk, t.zw);
}
"#;

/// What a run leaves: the deepest overlap before and after, and the final positions' bits.
pub struct Summary {
    pub colliding_before: usize,
    pub depth_before: f64,
    pub colliding_after: usize,
    pub depth_after: f64,
    pub positions: Vec<[f32; 2]>,
}

/// The caller's pipelines and the bind group over the world's buffers of one generation.
struct PushOut {
    push: wgpu::ComputePipeline,
    integrate: wgpu::ComputePipeline,
    moves: wgpu::Buffer,
    count: wgpu::Buffer,
    goals: wgpu::Buffer,
    /// The bind groups of `push` and `integrate`, and the world generation they were made for.
    groups: Option<(u64, wgpu::BindGroup, wgpu::BindGroup)>,
}

impl PushOut {
    fn new(device: &wgpu::Device, goals: &[[f32; 4]]) -> PushOut {
        let bodies = goals.len() as u32;
        use wgpu::util::DeviceExt;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("example.push_out"),
            // satgpu's records (struct Contact, the TOTAL_* words), then this program's pass.
            source: wgpu::ShaderSource::Wgsl(format!("{}\n{PUSH_OUT}", satgpu::gpu::RECORDS_WGSL).into()),
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
        let (push, integrate) = (pipeline("push"), pipeline("integrate"));
        let moves = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("example.moves"),
            size: 8 * u64::from(bodies.max(1)),
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let count = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("example.bodies"),
            contents: bytemuck::cast_slice(&[bodies, 0, 0, 0]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let goals = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("example.goals"),
            contents: bytemuck::cast_slice(goals),
            usage: wgpu::BufferUsages::STORAGE,
        });
        PushOut { push, integrate, moves, count, goals, groups: None }
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
                    label: Some("example.push_out"),
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            };
            let push = bind(&self.push, &[(0, world.totals_buffer()), (1, world.contacts_buffer()), (2, &self.moves)]);
            let integrate = bind(
                &self.integrate,
                &[(2, &self.moves), (3, world.transforms_buffer()), (4, &self.count), (5, &self.goals)],
            );
            self.groups = Some((world.generation(), push, integrate));
        }
        let (_, push_group, integrate_group) = self.groups.as_ref().expect("bound above");
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.push);
        pass.set_bind_group(0, push_group, &[]);
        pass.dispatch_workgroups_indirect(world.totals_buffer(), 16);
        pass.set_pipeline(&self.integrate);
        pass.set_bind_group(0, integrate_group, &[]);
        let groups = (world.len() as u32).div_ceil(64);
        pass.dispatch_workgroups(groups.min(65535), groups.div_ceil(65535), 1);
    }
}

/// `n` bodies dropped at random into two boxes too small for them, side by side; each body's
/// goal is across the other box, so the groups walk through each other. Then `frames` frames of
/// detect, push out and walk, all on the GPU.
pub fn run(gpu: &Gpu, n: usize, frames: usize) -> Result<Summary, Box<dyn std::error::Error>> {
    let shapes = vec![
        Polygon::new(vec![[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])?,
        Polygon::new(vec![[-0.6, -0.4], [0.6, -0.4], [0.0, 0.6]])?,
        Polygon::new((0..8).map(|k| [0.45 * cos_sin(k)[0], 0.45 * cos_sin(k)[1]]).collect())?,
    ];
    let body_shapes: Vec<u32> = (0..n as u32).map(|i| i % 3).collect();
    let side = (n as f64 * 0.8).sqrt();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    // Even bodies start in the left box and walk right, odd ones the other way, 1.2 units/s.
    let start: Vec<Transform> = (0..n)
        .map(|i| {
            let x = random() * side / 2.0;
            Transform { x: if i % 2 == 0 { x } else { side - x }, y: random() * side, angle: random() * 6.0 }
        })
        .collect();
    let goals: Vec<[f32; 4]> = start.iter().map(|t| [(side - t.x) as f32, t.y as f32, 0.02, 0.0]).collect();

    let mut world = World::new(gpu, &shapes, &body_shapes, &WorldOptions::default())?;
    world.set_transforms(&start)?;
    // Look once, and reserve room for what was seen and more, so frames never outgrow the
    // buffers (an outgrown frame would leave some pairs out of contacts_buffer).
    let first = world.step()?;
    world.reserve(2 * first.stats.entries, 2 * first.stats.candidates)?;
    let deepest = |contacts: &[satgpu::Contact]| contacts.iter().map(|c| c.depth).fold(0.0, f64::max);
    let (colliding_before, depth_before) = (first.contacts.len(), deepest(&first.contacts));

    let mut push_out = PushOut::new(gpu.device(), &goals);
    for _ in 0..frames {
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        world.encode(&mut encoder);
        push_out.encode(&world, &mut encoder);
        gpu.queue().submit([encoder.finish()]);
    }
    // Look again: this step reads the contacts back (and waits for the frames above).
    let last = world.step()?;
    let positions = read_positions(gpu, &world)?;
    Ok(Summary {
        colliding_before,
        depth_before,
        colliding_after: last.contacts.len(),
        depth_after: deepest(&last.contacts),
        positions,
    })
}

/// (cos, sin) of k/8 of a turn.
fn cos_sin(k: usize) -> [f64; 2] {
    let a = k as f64 * std::f64::consts::TAU / 8.0;
    [a.cos(), a.sin()]
}

fn read_positions(gpu: &Gpu, world: &World) -> satgpu::Result<Vec<[f32; 2]>> {
    let size = 16 * world.len() as u64;
    let read = gpu.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("example.read"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(world.transforms_buffer(), 0, &read, 0, size);
    let submission = gpu.queue().submit([encoder.finish()]);
    read.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    gpu.wait(submission)?;
    let words: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(
        &read.slice(..).get_mapped_range().map_err(|e| satgpu::Error::Device(e.to_string()))?,
    );
    read.unmap();
    Ok(words.iter().map(|t| [t[0], t[1]]).collect())
}

#[allow(dead_code, reason = "tests/world.rs includes this file for `run` alone")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::new(&GpuOptions::default())?;
    println!("adapter: {}", gpu.describe());
    let (n, frames) = (20_000, 60);
    let started = std::time::Instant::now();
    let s = run(&gpu, n, frames)?;
    println!(
        "{n} bodies, {frames} frames on the GPU in {:.0} ms: {} overlapping pairs (deepest {:.3}) -> {} (deepest {:.3})",
        started.elapsed().as_secs_f64() * 1e3,
        s.colliding_before,
        s.depth_before,
        s.colliding_after,
        s.depth_after
    );
    if s.depth_after >= s.depth_before {
        return Err("pushing out did not reduce the overlaps".into());
    }
    Ok(())
}
