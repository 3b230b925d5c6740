//! Where a frame's fixed cost goes on the adapter at hand: the price of a host wait, a submission,
//! a compute pass, a dispatch (direct and indirect), a timestamp pair and a small readback, each
//! measured alone with a kernel that does next to nothing.
//!
//! `cargo bench --bench overhead` prints one line per item: the median wall-clock cost over many
//! repetitions, and for the per-item costs the slope between 1 and `K` items in one submission
//! (so the wait's own cost cancels). Run without `--bench` (as `cargo test --benches` does) it
//! uses few repetitions and only checks that every measurement ran and the kernel wrote what it
//! should.

use std::time::{Duration, Instant};

use satgpu::gpu::{Gpu, GpuOptions};
use wgpu::util::DeviceExt;

const KERNEL: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<atomic<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x == 0u { atomicAdd(&out[0], 1u); }
}";

struct Rig {
    gpu: Gpu,
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    out: wgpu::Buffer,
    args: wgpu::Buffer,
    read: wgpu::Buffer,
    queries: Option<wgpu::QuerySet>,
    resolve: wgpu::Buffer,
}

/// What one submission holds.
#[derive(Clone, Copy)]
struct Shape {
    passes: u32,
    dispatches_per_pass: u32,
    indirect: bool,
    timestamps: bool,
    readback: bool,
}

impl Shape {
    const NONE: Shape =
        Shape { passes: 0, dispatches_per_pass: 0, indirect: false, timestamps: false, readback: false };
}

impl Rig {
    fn new(gpu: Gpu) -> Rig {
        let device = gpu.device();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("overhead"),
            source: wgpu::ShaderSource::Wgsl(KERNEL.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("overhead"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        use wgpu::BufferUsages as U;
        let out = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overhead.out"),
            size: 16,
            usage: U::STORAGE | U::COPY_SRC | U::COPY_DST,
            mapped_at_creation: false,
        });
        // A benchmark's own buffer: a panic on a lost device is fine here (clippy.toml).
        #[allow(clippy::disallowed_methods)]
        let args = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("overhead.args"),
            contents: bytemuck::cast_slice(&[1u32, 1, 1, 0]),
            usage: U::INDIRECT | U::STORAGE,
        });
        let read = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overhead.read"),
            size: 16,
            usage: U::MAP_READ | U::COPY_DST,
            mapped_at_creation: false,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("overhead"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: out.as_entire_binding() }],
        });
        let queries = gpu.has_timestamps().then(|| {
            device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("overhead.ts"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * 64,
            })
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overhead.resolve"),
            size: 8 * 2 * 64,
            usage: U::QUERY_RESOLVE,
            mapped_at_creation: false,
        });
        Rig { gpu, pipeline, group, out, args, read, queries, resolve }
    }

    /// Records, submits and waits for one submission of the given shape; returns its wall time.
    fn run(&self, s: Shape) -> Duration {
        let (device, queue) = (self.gpu.device(), self.gpu.queue());
        let start = Instant::now();
        let mut encoder = device.create_command_encoder(&Default::default());
        for p in 0..s.passes {
            let ts = self.queries.as_ref().filter(|_| s.timestamps).map(|set| wgpu::ComputePassTimestampWrites {
                query_set: set,
                beginning_of_pass_write_index: Some(2 * p),
                end_of_pass_write_index: Some(2 * p + 1),
            });
            let mut pass =
                encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: ts });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.group, &[]);
            for _ in 0..s.dispatches_per_pass {
                if s.indirect {
                    pass.dispatch_workgroups_indirect(&self.args, 0);
                } else {
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
        }
        if let (Some(set), true) = (&self.queries, s.timestamps && s.passes > 0) {
            encoder.resolve_query_set(set, 0..2 * s.passes, &self.resolve, 0);
        }
        if s.readback {
            encoder.copy_buffer_to_buffer(&self.out, 0, &self.read, 0, 16);
        }
        let index = queue.submit([encoder.finish()]);
        if s.readback {
            std::hint::black_box(self.read_word(index));
        } else {
            self.wait(index);
        }
        start.elapsed()
    }

    fn wait(&self, index: wgpu::SubmissionIndex) {
        let wait = wgpu::PollType::Wait { submission_index: Some(index), timeout: Some(Duration::from_secs(60)) };
        self.gpu.device().poll(wait).expect("poll");
    }

    /// Maps `read` after `index` (which copied into it) and returns its first word.
    fn read_word(&self, index: wgpu::SubmissionIndex) -> u32 {
        let (tx, rx) = std::sync::mpsc::channel();
        self.read.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait(index);
        rx.recv().expect("map callback").expect("map");
        let v = u32::from_le_bytes(self.read.slice(..4).get_mapped_range().expect("mapped")[..4].try_into().unwrap());
        self.read.unmap();
        v
    }

    /// Median wall time of `reps` submissions of the shape, in microseconds.
    fn median_us(&self, s: Shape, reps: usize) -> f64 {
        self.run(s);
        let mut t: Vec<f64> = (0..reps).map(|_| self.run(s).as_secs_f64() * 1e6).collect();
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    }

    /// The counter the kernel increments once per dispatch.
    fn counter(&self) -> u32 {
        let mut encoder = self.gpu.device().create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.out, 0, &self.read, 0, 16);
        self.read_word(self.gpu.queue().submit([encoder.finish()]))
    }
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let (reps, k) = if bench { (200, 40) } else { (5, 4) };
    let gpu = Gpu::new(&GpuOptions::default()).expect("a GPU adapter (set WGPU_BACKEND=vulkan or gl)");
    println!("adapter {}", gpu.describe());
    if let Ok(cpu) = std::fs::read_to_string("/proc/cpuinfo") {
        if let Some(line) = cpu.lines().find(|l| l.starts_with("model name")) {
            println!("cpu {}", line.split(':').nth(1).unwrap_or("").trim());
        }
    }
    let rig = Rig::new(gpu);
    let one = |passes, dispatches| Shape { passes, dispatches_per_pass: dispatches, ..Shape::NONE };

    let wait = rig.median_us(Shape::NONE, reps);
    let readback = rig.median_us(Shape { readback: true, ..Shape::NONE }, reps);
    let pass1 = rig.median_us(one(1, 1), reps);
    let dispatch_k = rig.median_us(one(1, k), reps);
    let passes_k = rig.median_us(one(k, 1), reps);
    let indirect_k = rig.median_us(Shape { indirect: true, ..one(1, k) }, reps);
    let per = |many: f64| (many - pass1) / f64::from(k - 1);
    println!("item                                          us (median of {reps})");
    println!("empty submission + host wait                  {wait:10.1}");
    println!("  + copy 16 B and map it (a readback)         {:10.1}", readback - wait);
    println!("one pass, one dispatch (beyond the wait)      {:10.1}", pass1 - wait);
    println!("each further dispatch in the same pass        {:10.1}", per(dispatch_k));
    println!("each further indirect dispatch                {:10.1}", per(indirect_k));
    let validated = std::env::var("WGPU_VALIDATION_INDIRECT_CALL").is_ok_and(|v| v != "0");
    println!("  (wgpu's indirect-call validation {})", if validated { "on" } else { "off, satgpu's default" });
    println!("each further pass of one dispatch             {:10.1}", per(passes_k));
    if rig.queries.is_some() {
        let ts_k = rig.median_us(Shape { timestamps: true, ..one(k, 1) }, reps);
        println!("each pass's timestamp pair and its resolve    {:10.1}", (ts_k - passes_k) / f64::from(k));
    } else {
        println!("timestamps                                    not supported by this adapter");
    }

    // The kernel really ran: one increment per dispatch, counted from a cleared buffer.
    let mut encoder = rig.gpu.device().create_command_encoder(&Default::default());
    encoder.clear_buffer(&rig.out, 0, None);
    rig.gpu.queue().submit([encoder.finish()]);
    rig.run(Shape { indirect: true, ..one(2, 3) });
    assert_eq!(rig.counter(), 6, "6 dispatches must each add 1");
}
