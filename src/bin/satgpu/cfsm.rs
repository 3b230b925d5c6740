//! `satgpu sim --model cfsm|cfsm-v2|avm`: JuPedSim's collision-free speed model (or its V2, or
//! the anticipation velocity model) on a walkable area read from WKT, agents from CSV, until
//! everyone has left or the time is up.

use std::path::{Path, PathBuf};

use satgpu::crowd::{
    read_agents_csv, Anticipation, Crowd, Evacuation, Geometry, Model, Recorded, Repulsion, Trajectory,
};
use satgpu::{reference, Error};

use crate::bench::median;
use crate::{Backend, DeviceArgs, Failure};

/// Which of JuPedSim's models `satgpu sim` runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Cfsm,
    /// CollisionFreeSpeedModelV2: each agent's own repulsion.
    CfsmV2,
    /// AnticipationVelocityModel, with the seed of its coin.
    Avm(u64),
}

/// Where a crowd's agents go: `--exit X0,Y0,X1,Y1`, or `--journeys FILE.json`.
pub enum Way {
    Exit(String),
    Journeys(PathBuf),
}

/// What `satgpu sim --model cfsm` (or `cfsm-v2`, `avm`) was asked to do.
pub struct CfsmArgs {
    pub which: Which,
    pub geometry: PathBuf,
    /// Where the agents leave: an exit box, or the stages and journeys of a file.
    pub way: Way,
    pub agents: PathBuf,
    pub dt: f64,
    pub max_time: f64,
    pub backend: Backend,
    pub json: Option<PathBuf>,
    /// The trajectory file and the steps between its frames.
    pub trajectory: Option<(PathBuf, usize)>,
}

/// What `--json` writes.
#[derive(serde::Serialize)]
struct CfsmJson {
    model: &'static str,
    backend: &'static str,
    adapter: String,
    agents: usize,
    dt: f64,
    max_time: f64,
    steps: u64,
    /// Seconds until the last agent left; null while some remain at `max_time`.
    evacuation_time: Option<f64>,
    /// The times the agents that left left, sorted (s).
    exit_times: Vec<f64>,
    /// Agents still inside at the end.
    remaining: usize,
    /// Agents per second over the middle 80 % of exits; null with fewer than 10.
    flow: Option<f64>,
    /// Wall-clock milliseconds per step, the median over batches of steps.
    frame_ms_median: f64,
}

/// `X0,Y0,X1,Y1` as four numbers.
fn parse_exit(text: &str) -> Result<[f64; 4], Failure> {
    let numbers: Vec<f64> =
        text.split(',').map(|v| v.trim().parse()).collect::<Result<_, _>>().map_err(|_| bad_exit(text))?;
    numbers.try_into().map_err(|_| bad_exit(text))
}

fn bad_exit(text: &str) -> Failure {
    Failure(2, format!("--exit {text:?}: expected four numbers X0,Y0,X1,Y1"))
}

pub fn run(args: &CfsmArgs, device: &DeviceArgs) -> Result<(), Failure> {
    if !(args.max_time.is_finite() && args.max_time > 0.0) {
        return Err(Failure(2, format!("--max-time {}: must be a number of seconds above 0", args.max_time)));
    }
    let wkt =
        std::fs::read_to_string(&args.geometry).map_err(|source| Error::Io { path: args.geometry.clone(), source })?;
    let geometry = match &args.way {
        Way::Exit(exit) => Geometry::from_wkt(&wkt, parse_exit(exit)?).map_err(|e| in_file(&args.geometry, e))?,
        Way::Journeys(path) => {
            let area = satgpu::scene::parse_wkt_polygon(&wkt).map_err(|e| in_file(&args.geometry, e))?;
            Geometry::with_journeys(area, crate::journeys::read(path)?).map_err(|e| in_file(path, e))?
        }
    };
    let model = match args.which {
        Which::Avm(seed) => Model::anticipation(seed),
        Which::Cfsm | Which::CfsmV2 => Model::default(),
    };
    let agents = read_agents_csv(&args.agents, &model)?;
    let refuse = |names: &[&str], whose: &str| {
        let detail = format!("has a column of {}, which are --model {whose}'s", names.join(", "));
        Err(Failure(2, format!("{}: {detail}", args.agents.display())))
    };
    let text = std::fs::read_to_string(&args.agents).unwrap_or_default();
    let header: Vec<&str> = text.lines().next().unwrap_or("").split(',').map(str::trim).collect();
    let has = |names: &[&str]| names.iter().any(|n| header.contains(n));
    match args.which {
        Which::Cfsm if has(&Repulsion::NAMES) => return refuse(&Repulsion::NAMES, "cfsm-v2"),
        Which::Cfsm | Which::CfsmV2 if has(&Anticipation::NAMES) => return refuse(&Anticipation::NAMES, "avm"),
        Which::Avm(_) if has(&Repulsion::NAMES[2..]) => return refuse(&Repulsion::NAMES[2..], "cfsm-v2"),
        _ => {}
    }
    if let Some(path) = &args.json {
        let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !folder.is_dir() {
            let source = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
            return Err(Error::Io { path: path.clone(), source }.into());
        }
    }
    let mut trajectory = match &args.trajectory {
        Some((path, every)) => Some(Trajectory::create(path, geometry.area(), args.dt, *every as u64)?),
        None => None,
    };
    let last = (args.max_time / args.dt).ceil() as u64;
    let (evacuation, adapter, backend) = match args.backend {
        Backend::Gpu => {
            let gpu = device.open()?;
            let mut crowd = Crowd::new(&gpu, &geometry, &model, &agents, args.dt)?;
            println!("adapter    {}", gpu.describe());
            record(&mut crowd, trajectory.as_mut(), last)?;
            (crowd.run(args.max_time)?, gpu.describe(), "gpu")
        }
        Backend::Cpu => {
            let mut crowd = reference::cfsm::Crowd::new(&geometry, &model, &agents, args.dt)?;
            let started = std::time::Instant::now();
            record(&mut crowd, trajectory.as_mut(), last)?;
            let mut evacuation = crowd.run(args.max_time);
            evacuation.step_ms = vec![started.elapsed().as_secs_f64() * 1e3 / evacuation.steps.max(1) as f64];
            (evacuation, "CPU f64 reference (one core)".to_string(), "cpu")
        }
    };
    if let Some(trajectory) = trajectory {
        let path = trajectory.path().display().to_string();
        trajectory.close()?;
        println!("trajectory {path}");
    }
    report(args, &evacuation, adapter, backend)
}

/// With a trajectory, steps `crowd` up to `last` steps writing its frames (the run that follows
/// then only sums up); without, leaves the stepping to the run.
fn record(crowd: &mut impl Recorded, trajectory: Option<&mut Trajectory>, last: u64) -> Result<(), Failure> {
    if let Some(trajectory) = trajectory {
        // Until all have left, in steps of 100 (as the run without a trajectory stops).
        let mut steps = 0;
        while steps < last {
            let chunk = (last - steps).min(100);
            steps += chunk;
            if trajectory.advance(crowd, chunk)? == 0 {
                break;
            }
        }
    }
    Ok(())
}

/// A geometry error with the file it came from.
fn in_file(path: &Path, e: Error) -> Failure {
    let failure = Failure::from(e);
    Failure(failure.0, format!("{}: {}", path.display(), failure.1))
}

fn report(args: &CfsmArgs, evacuation: &Evacuation, adapter: String, backend: &'static str) -> Result<(), Failure> {
    let exit_times = evacuation.sorted_exit_times();
    let remaining = evacuation.exit_times.len() - exit_times.len();
    let frame_ms_median = median(evacuation.step_ms.clone());
    let n = evacuation.exit_times.len();
    println!("agents     {n}, dt {} s, {} steps ({:.2} s)", args.dt, evacuation.steps, evacuation.time);
    match evacuation.evacuation_time() {
        Some(t) => println!("evacuated  all in {t:.2} s"),
        None => println!("evacuated  {} of {n}; {remaining} remain at {:.2} s", exit_times.len(), evacuation.time),
    }
    if let Some(flow) = evacuation.flow() {
        println!("flow       {flow:.3} agents/s (middle 80 % of exits)");
    }
    println!("step       {frame_ms_median:.3} ms (median, wall clock)");
    if let Some(path) = &args.json {
        let json = CfsmJson {
            model: match args.which {
                Which::Cfsm => "cfsm",
                Which::CfsmV2 => "cfsm-v2",
                Which::Avm(_) => "avm",
            },
            backend,
            adapter,
            agents: n,
            dt: args.dt,
            max_time: args.max_time,
            steps: evacuation.steps,
            evacuation_time: evacuation.evacuation_time(),
            flow: evacuation.flow(),
            exit_times,
            remaining,
            frame_ms_median,
        };
        let text = serde_json::to_string_pretty(&json).map_err(|e| Failure(1, format!("JSON: {e}")))?;
        std::fs::write(path, text + "\n").map_err(|source| Error::Io { path: path.clone(), source })?;
    }
    Ok(())
}
