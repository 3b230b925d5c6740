//! `satgpu sim`: the built-in crowd scenarios on the GPU (part of the CLI).

use std::path::{Path, PathBuf};

use satgpu::gpu::WorldOptions;
use satgpu::sim::{FrameReport, Resolve, Scenario, SimKind, SimOptions, Simulation};
use satgpu::{reference, Aabb, Contact, Error, Polygon};

use crate::bench::median;
use crate::{render, DeviceArgs, Failure, ScenarioArg};

/// What `satgpu sim` was asked to do.
pub struct SimArgs {
    pub scenario: ScenarioArg,
    pub kind: SimKind,
    pub n: usize,
    pub frames: usize,
    pub iterations: u32,
    pub seed: u64,
    pub resolve: Resolve,
    pub json: Option<PathBuf>,
    pub frames_out: Option<PathBuf>,
    pub every: usize,
    pub size: u32,
}

/// What `--json` writes.
#[derive(serde::Serialize)]
struct SimJson<'a> {
    scenario: &'a str,
    kind: &'a str,
    n: usize,
    frames: usize,
    iterations: u32,
    seed: u64,
    resolve: &'a str,
    adapter: String,
    /// The smallest bounding radius of a moving body (world units).
    body_radius: f64,
    frame_ms_median: f64,
    /// Per frame: the largest penetration left after that frame's resolution.
    max_depth: Vec<f64>,
    /// Per frame: the sum of the penetrations left.
    total_depth: Vec<f64>,
    /// Per frame: colliding pairs left.
    colliding: Vec<u64>,
    /// Per frame: pairs that began colliding since the previous frame (null for scenarios with
    /// concave walls, whose pairs the GPU names by part).
    began: Option<Vec<u64>>,
    /// Per frame: pairs that stopped colliding since the previous frame (null as `began`).
    ended: Option<Vec<u64>>,
    /// FNV-1a of the bits of every final position, as 16 hex digits.
    state_hash: String,
    /// Windows run again because the world's buffers had to grow.
    reruns: u32,
}

pub fn run(args: &SimArgs, device: &DeviceArgs) -> Result<(), Failure> {
    if args.n == 0 || args.frames == 0 || args.iterations == 0 || args.every == 0 {
        return Err(Failure(2, "--n, --frames, --iterations and --every must be at least 1".into()));
    }
    if !(200..=20_000).contains(&args.size) {
        return Err(Failure(2, format!("--size {}: must be between 200 and 20000 pixels", args.size)));
    }
    let gpu = device.open()?;
    // The crowd's shapes are a handful: its size is its bodies, checked before the scenario is made.
    let size = satgpu::memory::SceneSize { bodies: args.n as u64, ..Default::default() };
    let what = || format!("{} bodies ({})", satgpu::memory::grouped(args.n as u64), args.kind);
    satgpu::gpu::check_fits(&gpu, size, satgpu::memory::Work::SIM, what)?;
    let (name, make): (_, fn(SimKind, usize, u64) -> _) = match args.scenario {
        ScenarioArg::Crossing => ("crossing", Scenario::crossing),
        ScenarioArg::Doorway => ("doorway", Scenario::doorway),
        ScenarioArg::Torus => ("torus", Scenario::torus),
    };
    let scenario = make(args.kind, args.n, args.seed)
        .map_err(|reason| Failure(2, format!("the {name} scenario of {} with n = {}: {reason}", args.kind, args.n)))?;
    // A JSON path whose folder does not exist fails before the run rather than after it; the
    // file itself is written whole at the end, or not at all.
    if let Some(path) = &args.json {
        let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !folder.is_dir() {
            let source = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
            return Err(Error::Io { path: path.clone(), source }.into());
        }
    }
    println!("adapter    {}", gpu.describe());
    let statics = scenario.body_shapes.len() - scenario.moving;
    let walls = match scenario.compounds.len() {
        0 => String::new(),
        k => format!(" (parts of {k} concave walls)"),
    };
    println!(
        "scenario   {name}: {} moving bodies ({}), {statics} static{walls}, seed {}",
        args.n, args.kind, args.seed
    );
    let resolve = match args.resolve {
        Resolve::Fresh => "fresh",
        Resolve::Reuse => "reuse",
    };
    println!("resolve    {} iterations per frame, {resolve} contacts", args.iterations);
    // Frames to disk need a look at the state every `every` frames; the checks line up with them.
    let window = if args.frames_out.is_some() { args.every.min(64) } else { 32 };
    // The JSON's contact events: the pairs sorted on the GPU and compared with the last frame's
    // (not yet where compound walls make the GPU's pairs name parts).
    let events = args.json.is_some() && scenario.compounds.is_empty();
    let world = WorldOptions::default().with_events(events);
    let options =
        SimOptions { iterations: args.iterations, resolve: args.resolve, window, world, ..SimOptions::default() };
    let mut sim = Simulation::new(&gpu, &scenario, &options)?;
    if let Some(dir) = &args.frames_out {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.clone(), source })?;
        write_frame(&mut sim, &scenario, args, 0)?;
    }
    let bar = indicatif::ProgressBar::new(args.frames as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    for frame in 1..=args.frames {
        sim.step()?;
        bar.inc(1);
        if args.frames_out.is_some() && frame % args.every == 0 {
            write_frame(&mut sim, &scenario, args, frame)?;
        }
    }
    sim.sync()?;
    let wall = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let reports: &[FrameReport] = sim.reports();
    let frame_ms = median(reports.iter().map(|r| r.ms).collect());
    let radius = scenario.body_radius();
    println!(
        "frames     {} in {:.2} s: {:.1} frames/s, frame median {:.2} ms (integrate, detect and push out, measure)",
        args.frames,
        wall,
        args.frames as f64 / wall,
        frame_ms
    );
    for (name, r) in [("first", reports.first()), ("last", reports.last())] {
        if let Some(r) = r {
            println!(
                "{name:<10} largest penetration {:.3e} ({:.2} % of the smallest body radius {radius}), total {:.3e}, {} colliding pairs",
                r.max_depth,
                100.0 * r.max_depth / radius,
                r.total_depth,
                r.colliding
            );
        }
    }
    let hash = format!("{:016x}", sim.state_hash()?);
    println!("state_hash {hash}");
    if sim.reruns() > 0 {
        println!("reruns     {} (windows run again after the buffers grew)", sim.reruns());
    }
    if let Some(path) = &args.json {
        let json = SimJson {
            scenario: name,
            kind: args.kind.name(),
            n: args.n,
            frames: args.frames,
            iterations: args.iterations,
            seed: args.seed,
            resolve,
            adapter: gpu.describe(),
            body_radius: radius,
            frame_ms_median: frame_ms,
            max_depth: reports.iter().map(|r| r.max_depth).collect(),
            total_depth: reports.iter().map(|r| r.total_depth).collect(),
            colliding: reports.iter().map(|r| r.colliding).collect(),
            began: reports.iter().map(|r| r.events.map(|e| e.0)).collect(),
            ended: reports.iter().map(|r| r.events.map(|e| e.1)).collect(),
            state_hash: hash,
            reruns: sim.reruns(),
        };
        let text = serde_json::to_string_pretty(&json).map_err(|e| Failure(2, format!("{}: {e}", path.display())))?;
        satgpu::scene::write_atomically(path, |w| {
            w.write_all(text.as_bytes()).map_err(|source| Error::Io { path: path.clone(), source })
        })?;
        println!("wrote {}: {} frames", path.display(), args.frames);
    }
    if let Some(dir) = &args.frames_out {
        println!("wrote {}: {} pictures (frame_NNNNN.png)", dir.display(), 1 + args.frames / args.every);
    }
    Ok(())
}

/// Writes frame `frame` as `DIR/frame_NNNNN.png`: the bodies at their positions on the GPU (read
/// back for the picture), the pairs the f64 reference finds among those in view, and the frame's
/// figures. Up to 2000 bodies all are drawn; above, the same 30 by 30 window at the middle of
/// the corridor on every frame, where the crowds meet at the pillars or pass the door.
fn write_frame(sim: &mut Simulation, scenario: &Scenario, args: &SimArgs, frame: usize) -> Result<(), Failure> {
    sim.sync()?;
    let positions = sim.positions()?;
    let placed = scenario.placed(&positions);
    let fixed: Vec<bool> = (0..placed.len()).map(|i| i >= scenario.moving).collect();
    let view = if placed.len() <= render::CROP_ABOVE {
        render::View::All
    } else {
        let starts = &scenario.start[..scenario.moving];
        let (low, high) = starts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), t| (l.min(t.y), h.max(t.y)));
        // Between the starts and the goals: where the crowds meet, or the door.
        let xs = starts.iter().map(|t| t.x).chain(scenario.walkers[..scenario.moving].iter().map(|w| w.goal[0]));
        let (left, right) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| (l.min(x), h.max(x)));
        let middle = [(left + right) / 2.0, (low + high) / 2.0];
        render::View::Window(Aabb {
            min: [middle[0] - 15.0, middle[1] - 15.0],
            max: [middle[0] + 15.0, middle[1] + 15.0],
        })
    };
    // The shapes in (or near) the window, and the pairs among them.
    let keep: Vec<usize> = match &view {
        render::View::Window(w) => (0..placed.len())
            .filter(|&i| {
                placed[i]
                    .aabb()
                    .overlaps(&Aabb { min: [w.min[0] - 1.0, w.min[1] - 1.0], max: [w.max[0] + 1.0, w.max[1] + 1.0] })
            })
            .collect(),
        _ => (0..placed.len()).collect(),
    };
    // The body of each shape: the first part of a compound wall's for its parts, whose seams
    // touch (pairs within a body are left out).
    let mut owners: Vec<u32> = (0..placed.len() as u32).collect();
    for range in &scenario.compounds {
        owners[range.clone()].fill(range.start as u32);
    }
    let near: Vec<Polygon> = keep.iter().map(|&i| placed[i].clone()).collect();
    let contacts: Vec<Contact> = reference::detect(&near, &Default::default())
        .contacts
        .into_iter()
        .map(|c| Contact { a: keep[c.a as usize] as u32, b: keep[c.b as usize] as u32, ..c })
        .filter(|c| owners[c.a as usize] != owners[c.b as usize])
        .collect();
    let (kind, dir) = (args.kind, args.frames_out.as_deref().unwrap_or(Path::new(".")));
    let title = match sim.reports().last().filter(|_| frame > 0) {
        Some(r) => format!(
            "sim {kind} n={} frame {frame} ({:.2} s): max depth {:.2} % r",
            scenario.moving,
            frame as f64 * sim.options().dt,
            100.0 * r.max_depth / scenario.body_radius()
        ),
        None => format!("sim {kind} n={} frame 0 (start)", scenario.moving),
    };
    let options = render::Options { width: args.size, view, title, contacts_source: "in view (f64 reference)".into() };
    let picture = {
        // Bodies walking left (their goal is left of their start) in the second colour.
        let left: Vec<bool> = (0..placed.len())
            .map(|i| i < scenario.moving && scenario.walkers[i].goal[0] < scenario.start[i].x)
            .collect();
        let bodies = render::Bodies {
            shapes: &placed,
            fixed: &fixed,
            contacts: &contacts,
            groups: &left,
            group_names: ["walking right", "walking left"],
            owners: if scenario.compounds.is_empty() { &[] } else { &owners },
            image_of: &[],
            periodic: None,
        };
        render::draw_bodies(&bodies, &options)
    };
    picture.save(&dir.join(format!("frame_{frame:05}.png")))
}
