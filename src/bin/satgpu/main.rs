//! The `satgpu` command line: a thin layer over the library.
//!
//! Exit codes: 0 success, 1 GPU/reference disagreement outside the band, 2 bad input or usage,
//! 3 no adapter, device failure or input too large for the device.

mod args;
mod bench;
mod cast;
mod cfsm;
mod commands;
mod draw;
mod journeys;
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

use clap::Parser;
use satgpu::gpu::{self, ContactDetail, Gpu, GpuOptions, World, WorldOptions};
use satgpu::memory::{self, MemoryEstimate, SceneSize, Work};
use satgpu::scene::{self, SceneKind};
use satgpu::{reference, validate, Contact, DetectOptions, Error, Manifold};

use args::{Backend, Cli, Command, DeviceArgs, ModelArg, ScenarioArg, SceneArgs};
use commands::{adapters, bench, detect, gen, run, Scenes};

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
        let mut options =
            GpuOptions::default().with_adapter(self.adapter).with_timeout(Duration::from_secs(self.timeout));
        if let Some(limit) = memory_limit()? {
            options = options.with_memory_limit(limit);
        }
        Ok(Gpu::new(&options)?)
    }
}

/// A failure with its exit code.
struct Failure(u8, String);

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
            detect(&scene, backend, out.as_deref(), (contacts, margin), &device)
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
        Command::Gen { kind, n, seed, out, periodic } => gen(kind, n, seed, &out, periodic),
        Command::Bench { scene, kind, n, frames, seed, json, plot, trace, contacts, order, device } => {
            let options = WorldOptions::default().with_contact_detail(contacts).with_order(order);
            let scenes = Scenes { file: scene.as_deref(), kinds: &kind, sizes: &n, seed };
            bench(scenes, frames, (json.as_deref(), plot.as_deref(), trace.as_deref()), &options, &device)
        }
        Command::Sim {
            model: model @ (ModelArg::Cfsm | ModelArg::CfsmV2 | ModelArg::Avm),
            geometry,
            exit,
            agents,
            dt,
            max_time,
            backend,
            json,
            trajectory,
            every,
            device,
            seed,
            journeys,
            ..
        } => match (geometry, exit, journeys, agents) {
            (Some(geometry), exit, journeys, Some(agents)) if exit.is_some() != journeys.is_some() => {
                let way = match (exit, journeys) {
                    (Some(exit), _) => cfsm::Way::Exit(exit),
                    (_, journeys) => cfsm::Way::Journeys(journeys.unwrap_or_default()),
                };
                let trajectory = trajectory.map(|path| (path, every.unwrap_or(4)));
                let which = match model {
                    ModelArg::CfsmV2 => cfsm::Which::CfsmV2,
                    ModelArg::Avm => cfsm::Which::Avm(seed),
                    _ => cfsm::Which::Cfsm,
                };
                cfsm::run(
                    &cfsm::CfsmArgs { which, geometry, way, agents, dt, max_time, backend, json, trajectory },
                    &device,
                )
            }
            _ => Err(Failure(
                2,
                "--model cfsm, cfsm-v2 and avm need --geometry AREA.wkt, --agents AGENTS.csv, and --exit X0,Y0,X1,Y1 \
                 or --journeys FILE.json (one of the two)"
                    .into(),
            )),
        },
        Command::Sim { geometry: Some(_), .. }
        | Command::Sim { exit: Some(_), .. }
        | Command::Sim { agents: Some(_), .. }
        | Command::Sim { journeys: Some(_), .. }
        | Command::Sim { trajectory: Some(_), .. } => Err(Failure(
            2,
            "--geometry, --exit, --journeys, --agents and --trajectory are read by --model cfsm, cfsm-v2 and avm only"
                .into(),
        )),
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
            let args = sim::SimArgs {
                scenario,
                kind,
                n,
                frames,
                iterations,
                seed,
                resolve,
                json,
                frames_out,
                every: every.unwrap_or(10),
                size,
            };
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
