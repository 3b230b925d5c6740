//! The `satgpu` command line: a thin layer over the library.
//!
//! Exit codes: 0 success, 1 GPU/reference disagreement outside the band, 2 bad input or usage,
//! 3 no adapter, device failure or input too large for the device.

mod bench;
mod cast;
mod cfsm;
mod commands;
mod draw;
mod plot;
mod query;
mod raycast;
mod render;
mod sim;
mod trace;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};
use satgpu::gpu::{self, AdapterChoice, ContactDetail, ContactOrder, Gpu, GpuOptions, World, WorldOptions};
use satgpu::memory::{self, MemoryEstimate, SceneSize, Work};
use satgpu::scene::{self, SceneKind};
use satgpu::{reference, validate, Contact, DetectOptions, Error, Manifold};

use commands::{adapters, bench, detect, gen, run, Scenes};

#[derive(Parser)]
#[command(name = "satgpu", version, about = "Every colliding pair among 2D convex polygons, on the GPU")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum AdapterArg {
    /// The best adapter (discrete, integrated, virtual, then CPU).
    Auto,
    /// A CPU adapter only (Mesa lavapipe or llvmpipe).
    Software,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Detail {
    /// The pair, its normal and its depth.
    Basic,
    /// Also containment flags and a contact manifold.
    Full,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OrderArg {
    /// On the GPU on a GPU, on the host on a CPU adapter.
    Auto,
    /// On the host after the readback.
    Host,
    /// On the GPU by a radix sort; the readback is a copy.
    Gpu,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ResolveArg {
    /// A fresh detection per push-out iteration.
    Fresh,
    /// One detection per frame, its contacts reused with updated separations.
    Reuse,
}

/// The built-in simulation scenarios (`satgpu::sim::Scenario`).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScenarioArg {
    /// Two crowds crossing in a corridor with straight walls and a row of pillars.
    Crossing,
    /// One crowd walking through a doorway in concave walls (compound static bodies).
    Doorway,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModelArg {
    /// The built-in crowds, overlaps pushed apart.
    Push,
    /// JuPedSim's collision-free speed model.
    Cfsm,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// The GPU pipeline.
    Gpu,
    /// The f64 CPU reference.
    Cpu,
}

#[derive(clap::Args)]
struct DeviceArgs {
    /// Which adapter to use (WGPU_BACKEND and WGPU_ADAPTER_NAME narrow it further).
    #[arg(long, value_enum, default_value = "auto")]
    adapter: AdapterArg,
    /// Seconds any wait on the GPU may take before it is an error (at least 1).
    #[arg(long, default_value_t = 120, value_parser = parse_timeout)]
    timeout: u64,
}

/// `--kind`: one of [`SceneKind::ALL`] or [`SceneKind::COMPOUND`], the list `--help` shows and
/// the parser takes.
fn scene_kind() -> impl clap::builder::TypedValueParser<Value = SceneKind> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    let names = SceneKind::ALL.into_iter().chain(SceneKind::COMPOUND).map(SceneKind::name);
    PossibleValuesParser::new(names).try_map(|name| name.parse::<SceneKind>())
}

/// `--timeout`: whole seconds, at least 1 (0 would fail every wait at once).
fn parse_timeout(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("must be at least 1 second".into()),
        Ok(s) => Ok(s),
        Err(e) => Err(format!("{e}: a whole number of seconds, at least 1")),
    }
}

/// `SATGPU_MEMORY_LIMIT` (bytes): the most memory the command may count on, below what the
/// host has available. For tests and shared machines; unset, the host's available memory alone.
fn memory_limit() -> Result<Option<u64>, Failure> {
    match std::env::var("SATGPU_MEMORY_LIMIT") {
        Err(_) => Ok(None),
        Ok(text) => text
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| Failure(2, format!("SATGPU_MEMORY_LIMIT={text:?}: expected a number of bytes"))),
    }
}

/// Refuses, before anything is generated, a scene of `n` `kind` polygons whose `work` does not
/// fit in the memory `gpu` may use; otherwise its estimate.
fn check_generated(gpu: &Gpu, kind: SceneKind, n: usize, seed: u64, work: Work) -> satgpu::Result<MemoryEstimate> {
    let size = SceneSize::generated(kind, n, seed);
    gpu::check_fits(gpu, size, work, || format!("{} {kind} polygons", memory::grouped(n as u64)))?;
    Ok(memory::estimate(size, work))
}

impl DeviceArgs {
    fn open(&self) -> Result<Gpu, Failure> {
        let adapter = match self.adapter {
            AdapterArg::Auto => AdapterChoice::Auto,
            AdapterArg::Software => AdapterChoice::Software,
        };
        let mut options = GpuOptions::default().with_adapter(adapter).with_timeout(Duration::from_secs(self.timeout));
        if let Some(limit) = memory_limit()? {
            options = options.with_memory_limit(limit);
        }
        Ok(Gpu::new(&options)?)
    }
}

#[derive(Subcommand)]
enum Command {
    /// The main job: generate a scene (default: a crowd of 100,000 polygons), detect on the GPU,
    /// validate every pair against the CPU reference, print the figures. Exits 1 on disagreement.
    Run {
        /// Scene kind.
        #[arg(long, default_value = "crowd", value_parser = scene_kind())]
        kind: SceneKind,
        /// Number of polygons.
        #[arg(long, default_value_t = 100_000)]
        n: usize,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Detects the colliding pairs of a scene file.
    Detect {
        #[command(flatten)]
        scene: SceneArgs,
        /// Where to detect.
        #[arg(long, value_enum, default_value = "gpu")]
        backend: Backend,
        /// Write the pairs to FILE.csv or FILE.json (by extension); without it, print a summary.
        #[arg(long)]
        out: Option<PathBuf>,
        /// What each pair reports: `basic` (a,b,normal_x,normal_y,depth) or `full` (also the
        /// containment flags a_in_b, b_in_a and one or two contact points with their depths).
        #[arg(long, value_enum, default_value = "basic")]
        contacts: Detail,
        /// Also report pairs apart by at most D (world units), with depth = minus their
        /// distance (negative); 0: colliding pairs only.
        #[arg(long, default_value_t = 0.0)]
        margin: f64,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Region queries: the bodies of a scene each box of a CSV meets, or each point lies in.
    Query {
        #[command(flatten)]
        scene: SceneArgs,
        /// Queries CSV: a header `min_x,min_y,max_x,max_y` (boxes) or `x,y` (points), optionally
        /// `category,mask,group` (each query's filter), then one query a line.
        regions: PathBuf,
        /// Where to query.
        #[arg(long, value_enum, default_value = "gpu")]
        backend: Backend,
        /// Write `query,body` rows (each query's bodies sorted) to FILE.csv; without it, print a
        /// summary.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Neighbours within a radius: for each body of a scene, the others at signed distance at
    /// most R (negative where they overlap), nearest first, the K nearest where K is given.
    Neighbours {
        #[command(flatten)]
        scene: SceneArgs,
        /// The radius (world units, at least 0): neighbours at signed distance at most R.
        #[arg(long)]
        radius: f64,
        /// Keep each body's K nearest (ties by index); without it, every neighbour within R.
        #[arg(long)]
        k: Option<usize>,
        /// Where to search.
        #[arg(long, value_enum, default_value = "gpu")]
        backend: Backend,
        /// Write `body,neighbour,distance,normal_x,normal_y` rows (by body, then distance, then
        /// neighbour; each pair for both of its bodies) to FILE.csv; without it, print a summary.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Ray casts: the nearest body of a scene each ray of a CSV meets.
    Raycast {
        #[command(flatten)]
        scene: SceneArgs,
        /// Rays CSV: a header `x,y,dx,dy,length` (origin, direction, how far), optionally
        /// `category,mask,group` (each ray's filter), then one ray a line.
        rays: PathBuf,
        /// Where to cast.
        #[arg(long, value_enum, default_value = "gpu")]
        backend: Backend,
        /// Write `ray,body,fraction,point_x,point_y,normal_x,normal_y` rows (one per ray that hits,
        /// in ray order; normal 0,0 for a ray starting in the body) to FILE.csv; without it, print
        /// a summary.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Shape casts: the first body of a scene each shape of a CSV touches, moved along a line.
    Cast {
        #[command(flatten)]
        scene: SceneArgs,
        /// Casts CSV: a header `x,y,radius,dx,dy,length` (a circle of radius at x,y moved along
        /// dx,dy for length), optionally `shape` (a scene entry cast instead, its box's centre at
        /// x,y, grown by radius; empty: the circle), `angle` (the entry turned, radians) and
        /// `category,mask,group`, then one cast a line.
        casts: PathBuf,
        /// Where to cast.
        #[arg(long, value_enum, default_value = "gpu")]
        backend: Backend,
        /// Write `cast,body,fraction,point_x,point_y,normal_x,normal_y` rows (one per cast that
        /// touches a body, in cast order; the point on the body's boundary; at fraction 0, a cast
        /// that starts touching: its origin and normal 0,0) to FILE.csv; without it, print a
        /// summary.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Writes a deterministic generated scene.
    Gen {
        /// Scene kind.
        #[arg(long, value_parser = scene_kind())]
        kind: SceneKind,
        /// Number of polygons.
        #[arg(long)]
        n: usize,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output scene JSON.
        #[arg(long)]
        out: PathBuf,
    },
    /// Benchmarks frames on generated scenes or a scene file: per-pass GPU times, whole-frame and
    /// simulation-frame medians, counts, and the CPU reference time on the same scene.
    Bench {
        /// A scene file to benchmark instead of generated scenes.
        #[arg(long, conflicts_with_all = ["kind", "n"])]
        scene: Option<PathBuf>,
        /// Scene kind; several separated by commas.
        #[arg(long, value_delimiter = ',', default_value = "crowd", value_parser = scene_kind())]
        kind: Vec<SceneKind>,
        /// Number of polygons; several separated by commas.
        #[arg(long, value_delimiter = ',', default_value = "100000")]
        n: Vec<usize>,
        /// Timed frames per scene (after 2 warm-up frames).
        #[arg(long, default_value_t = 10)]
        frames: usize,
        /// Random seed of generated scenes.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write the figures as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Also draw the per-pass times as stacked bars, one bar per scene: FILE.svg or FILE.png.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Also write every timed frame's host spans and GPU passes as a Chrome trace (JSON) that
        /// Perfetto (ui.perfetto.dev) and chrome://tracing open.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// `full` times frames that also compute manifolds and containment flags (the `manifold`
        /// pass).
        #[arg(long, value_enum, default_value = "basic")]
        contacts: Detail,
        /// Where the colliding pairs are ordered by (a, b).
        #[arg(long, value_enum, default_value = "auto")]
        order: OrderArg,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Runs a crowd on the GPU. `--model push` (the default): the built-in crowds, two crossing
    /// in a corridor with walls and pillars or one through a doorway in concave walls; each
    /// frame integrates, detects and pushes overlapping bodies apart, all on the GPU; prints
    /// frames per second and the penetration left at the first and last frame. `--model cfsm`:
    /// JuPedSim's collision-free speed model, agents from --agents walking out of the area in
    /// --geometry through --exit; prints the evacuation time and the flow (the push model's
    /// options are not read).
    Sim {
        /// push: the built-in crowds pushed apart; cfsm: the collision-free speed model.
        #[arg(long, value_enum, default_value = "push")]
        model: ModelArg,
        /// cfsm: the walkable area, a file holding one WKT POLYGON (holes allowed).
        #[arg(long, value_name = "AREA.wkt")]
        geometry: Option<PathBuf>,
        /// cfsm: the exit, an axis-aligned box inside the area: X0,Y0,X1,Y1.
        #[arg(long, value_name = "X0,Y0,X1,Y1", allow_hyphen_values = true)]
        exit: Option<String>,
        /// cfsm: the agents, CSV with header x,y and optionally desired_speed, radius, time_gap.
        #[arg(long, value_name = "AGENTS.csv")]
        agents: Option<PathBuf>,
        /// cfsm: seconds per step.
        #[arg(long, default_value_t = 0.01)]
        dt: f64,
        /// cfsm: stop after this many seconds if agents remain.
        #[arg(long, default_value_t = 600.0)]
        max_time: f64,
        /// cfsm: gpu, or the f64 reference on one core (cpu).
        #[arg(long, value_enum, default_value = "gpu")]
        backend: Backend,
        /// crossing: two crowds, straight walls and pillars; doorway: one crowd through concave
        /// walls whose jambs leave a door a third of the corridor wide.
        #[arg(long, value_enum, default_value = "crossing")]
        scenario: ScenarioArg,
        /// Body shapes: agents (circles), crowd (polygons) or shapes (circles, capsules, rounded
        /// boxes, hexagons).
        #[arg(long, default_value = "agents")]
        kind: satgpu::sim::SimKind,
        /// Moving bodies.
        #[arg(long, default_value_t = 100_000)]
        n: usize,
        /// Frames to run (1/60 s each).
        #[arg(long, default_value_t = 100)]
        frames: usize,
        /// Push-out iterations per frame.
        #[arg(long, default_value_t = 6)]
        iterations: u32,
        /// Random seed of the starting positions.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// `fresh`: every iteration detects anew; `reuse`: one detection per frame, later
        /// iterations update its contacts' separations.
        #[arg(long, value_enum, default_value = "fresh")]
        resolve: ResolveArg,
        /// Also write the figures as JSON. push: n, frames, iterations, frame_ms_median,
        /// max_depth and total_depth per frame, state_hash; cfsm: model, agents, dt,
        /// evacuation_time, exit_times, flow, frame_ms_median.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write PNG frames (frame_00000.png, ...) into DIR.
        #[arg(long)]
        frames_out: Option<PathBuf>,
        /// With --frames-out: one picture every M frames.
        #[arg(long, default_value_t = 10)]
        every: usize,
        /// With --frames-out: picture width in pixels.
        #[arg(long, default_value_t = 1000)]
        size: u32,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Draws a scene as SVG or PNG: every shape, colliding bodies in a second colour, each
    /// pair's minimum translation vector as an arrow, a legend and axes in world units. Above
    /// 2000 shapes it shows a crop of about 1000 around the densest area and an overview map.
    Render {
        #[command(flatten)]
        scene: SceneArgs,
        /// Pairs to draw: a CSV from `detect --out` (a,b,normal_x,normal_y,depth, more columns
        /// allowed). Without it or --detect, only the shapes.
        #[arg(long, conflicts_with = "detect")]
        pairs: Option<PathBuf>,
        /// Detect the pairs on the GPU first.
        #[arg(long)]
        detect: bool,
        /// The picture: FILE.svg or FILE.png.
        #[arg(long)]
        out: PathBuf,
        /// Picture width in pixels.
        #[arg(long, default_value_t = 1000)]
        size: u32,
        /// `auto` (every shape up to 2000, else a crop), `all` or `density` (shapes per cell).
        #[arg(long, value_enum, default_value = "auto")]
        view: render::ViewArg,
        /// Show this world window instead: X0,Y0,X1,Y1.
        #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
        window: Vec<f64>,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Lists the adapters wgpu sees, best first, and marks those satgpu cannot run on.
    Adapters,
}

/// A failure with its exit code.
struct Failure(u8, String);

/// A scene file, and the walls of a walkable area to add to it.
#[derive(clap::Args, Debug)]
struct SceneArgs {
    /// Scene JSON: {"polygons": [{"vertices": [[x, y], ...]}, ...]} (see docs/file-formats.md).
    scene: PathBuf,
    /// A file holding one WKT POLYGON, a walkable area (JuPedSim's geometry): its boundary
    /// becomes walls, one closed chain per ring, after the scene's bodies (as a scene file's
    /// "walls").
    #[arg(long, value_name = "FILE.wkt")]
    walls: Option<PathBuf>,
}

impl SceneArgs {
    /// The scene, with the walls added.
    fn read(&self) -> Result<scene::Scene, Failure> {
        let mut read = scene::read_scene(&self.scene)?;
        if let Some(walls) = &self.walls {
            read.add_walls(scene::read_walls(walls)?);
        }
        Ok(read)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let code = match e {
            Error::NoAdapter { .. }
            | Error::UnsuitableAdapter { .. }
            | Error::Device(_)
            | Error::DeviceLost(_)
            | Error::Timeout { .. }
            | Error::TooLarge { .. }
            | Error::HostMemory { .. }
            | Error::NotEnoughMemory { .. } => 3,
            _ => 2,
        };
        Failure(code, e.to_string())
    }
}

/// Libwayland, reached through EGL (the GL backend) or through Mesa's Vulkan device-select
/// layer, prints "XDG_RUNTIME_DIR is invalid or not set" twice when the variable is missing, as
/// in many containers and CI shells. The CLI gives it a private directory of its own (mode 0700,
/// as the XDG spec asks) before any thread starts, and removes it when the command ends, on
/// every exit path ([`RuntimeDir`] is dropped at the end of `main`).
fn ensure_runtime_dir() -> RuntimeDir {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return RuntimeDir(None);
    }
    let dir = std::env::temp_dir().join(format!("satgpu-runtime-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return RuntimeDir(None);
    }
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
    std::env::set_var("XDG_RUNTIME_DIR", &dir);
    RuntimeDir(Some(dir))
}

/// The runtime directory the CLI made, removed when dropped.
struct RuntimeDir(Option<PathBuf>);

impl Drop for RuntimeDir {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn main() -> ExitCode {
    let _runtime = ensure_runtime_dir();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    // Not Cli::parse, which exits the process on --help and usage errors without dropping the
    // runtime directory.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // Output cut short by its reader (`satgpu run | head`) ends the command quietly, as a
    // process killed by SIGPIPE would (exit 141), instead of a panic's message and backtrace;
    // the runtime directory is removed all the same.
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !broken_pipe(info.payload()) {
            quiet(info);
        }
    }));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dispatch(cli))) {
        Ok(code) => code,
        Err(payload) if broken_pipe(&*payload) => ExitCode::from(141),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// Whether a panic is the standard library's complaint that stdout's reader went away.
fn broken_pipe(payload: &(dyn std::any::Any + Send)) -> bool {
    let message = match (payload.downcast_ref::<String>(), payload.downcast_ref::<&str>()) {
        (Some(s), _) => s.as_str(),
        (None, Some(s)) => s,
        (None, None) => return false,
    };
    message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
}

/// Runs the command and turns its result into the exit code.
fn dispatch(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Run { kind, n, seed, device } => run(kind, n, seed, &device),
        Command::Detect { scene, backend, out, contacts, margin, device } => {
            detect(&scene, backend, out.as_deref(), (contacts == Detail::Full, margin), &device)
        }
        Command::Query { scene, regions, backend, out, device } => {
            query::query(&scene, &regions, backend, out.as_deref(), &device)
        }
        Command::Neighbours { scene, radius, k, backend, out, device } => {
            commands::neighbours(&scene, (radius, k), backend, out.as_deref(), &device)
        }
        Command::Raycast { scene, rays, backend, out, device } => {
            raycast::raycast(&scene, &rays, backend, out.as_deref(), &device)
        }
        Command::Cast { scene, casts, backend, out, device } => {
            cast::cast(&scene, &casts, backend, out.as_deref(), &device)
        }
        Command::Gen { kind, n, seed, out } => gen(kind, n, seed, &out),
        Command::Bench { scene, kind, n, frames, seed, json, plot, trace, contacts, order, device } => {
            let detail = if contacts == Detail::Full { ContactDetail::Full } else { ContactDetail::Basic };
            let order = match order {
                OrderArg::Auto => ContactOrder::Auto,
                OrderArg::Host => ContactOrder::Host,
                OrderArg::Gpu => ContactOrder::Gpu,
            };
            let options = WorldOptions::default().with_contact_detail(detail).with_order(order);
            let scenes = Scenes { file: scene.as_deref(), kinds: &kind, sizes: &n, seed };
            bench(scenes, frames, (json.as_deref(), plot.as_deref(), trace.as_deref()), &options, &device)
        }
        Command::Sim { model: ModelArg::Cfsm, geometry, exit, agents, dt, max_time, backend, json, device, .. } => {
            match (geometry, exit, agents) {
                (Some(geometry), Some(exit), Some(agents)) => {
                    cfsm::run(&cfsm::CfsmArgs { geometry, exit, agents, dt, max_time, backend, json }, &device)
                }
                _ => Err(Failure(
                    2,
                    "--model cfsm needs --geometry AREA.wkt, --exit X0,Y0,X1,Y1 and --agents AGENTS.csv".into(),
                )),
            }
        }
        Command::Sim { geometry: Some(_), .. }
        | Command::Sim { exit: Some(_), .. }
        | Command::Sim { agents: Some(_), .. } => {
            Err(Failure(2, "--geometry, --exit and --agents are read by --model cfsm only".into()))
        }
        Command::Sim {
            scenario,
            kind,
            n,
            frames,
            iterations,
            seed,
            resolve,
            json,
            frames_out,
            every,
            size,
            device,
            ..
        } => {
            let resolve = match resolve {
                ResolveArg::Fresh => satgpu::sim::Resolve::Fresh,
                ResolveArg::Reuse => satgpu::sim::Resolve::Reuse,
            };
            let args =
                sim::SimArgs { scenario, kind, n, frames, iterations, seed, resolve, json, frames_out, every, size };
            sim::run(&args, &device)
        }
        Command::Render { scene, pairs, detect, out, size, view, window, device } => {
            let pairs = match (pairs.as_deref(), detect) {
                (Some(path), _) => render::PairSource::File(path),
                (None, true) => render::PairSource::Detect(&device),
                (None, false) => render::PairSource::None,
            };
            render::command(&scene, pairs, &out, size, view, &window)
        }
        Command::Adapters => adapters(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(code, message)) => {
            eprintln!("satgpu: error: {message}");
            ExitCode::from(code)
        }
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
