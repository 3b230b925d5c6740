//! The command line's arguments: the commands, their options and the parsers of their values.
//! Options that choose a library value by a word take the library's own words ([`Named`]).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use satgpu::gpu::{AdapterChoice, ContactDetail, ContactOrder};
use satgpu::named::Named;
use satgpu::scene::{self, SceneKind};
use satgpu::sim::Resolve;

use crate::{render, Failure};

#[derive(Parser)]
#[command(name = "satgpu", version, about = "Every colliding pair among 2D convex polygons, on the GPU")]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The built-in simulation scenarios (`satgpu::sim::Scenario`).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScenarioArg {
    /// Two crowds crossing in a corridor with straight walls and a row of pillars.
    Crossing,
    /// One crowd walking through a doorway in concave walls (compound static bodies).
    Doorway,
    /// Two crowds walking through each other in a periodic box, with no walls.
    Torus,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModelArg {
    /// The built-in crowds, overlaps pushed apart.
    Push,
    /// JuPedSim's collision-free speed model.
    Cfsm,
    /// JuPedSim's CollisionFreeSpeedModelV2: the same, with each agent's own repulsion.
    CfsmV2,
    /// JuPedSim's AnticipationVelocityModel.
    Avm,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Backend {
    /// The GPU pipeline.
    Gpu,
    /// The f64 CPU reference.
    Cpu,
}

#[derive(clap::Args)]
pub(crate) struct DeviceArgs {
    /// Which adapter to use (WGPU_BACKEND and WGPU_ADAPTER_NAME narrow it further).
    #[arg(long, value_parser = word::<AdapterChoice>(), default_value = "auto")]
    pub(crate) adapter: AdapterChoice,
    /// Seconds any wait on the GPU may take before it is an error (at least 1).
    #[arg(long, default_value_t = 120, value_parser = parse_timeout)]
    pub(crate) timeout: u64,
}

/// `--kind`: one of [`SceneKind::ALL`] or [`SceneKind::COMPOUND`], the list `--help` shows and
/// the parser takes.
pub(crate) fn scene_kind() -> impl clap::builder::TypedValueParser<Value = SceneKind> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    let names = SceneKind::ALL.into_iter().chain(SceneKind::COMPOUND).map(SceneKind::name);
    PossibleValuesParser::new(names).try_map(|name| name.parse::<SceneKind>())
}

/// An option of the library's chosen by a word ([`Named`]): its words, each with what it does,
/// are what `--help` lists and what the parser takes.
pub(crate) fn word<T: Named + Clone + Send + Sync>() -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let words = T::VALUES.iter().map(|(_, word, what)| PossibleValue::new(*word).help(*what));
    PossibleValuesParser::new(words).try_map(|word| satgpu::named::parse::<T>(&word))
}

/// `--timeout`: whole seconds, at least 1 (0 would fail every wait at once).
pub(crate) fn parse_timeout(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("must be at least 1 second".into()),
        Ok(s) => Ok(s),
        Err(e) => Err(format!("{e}: a whole number of seconds, at least 1")),
    }
}

#[derive(Subcommand)]
pub(crate) enum Command {
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
        #[arg(long, value_parser = word::<ContactDetail>(), default_value = "basic")]
        contacts: ContactDetail,
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
        /// In a periodic box (both axes wrap) whose density is the kind's: the box the bodies'
        /// centres span, with the bodies as generated (those near an edge reach round it).
        #[arg(long)]
        periodic: bool,
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
        #[arg(long, value_parser = word::<ContactDetail>(), default_value = "basic")]
        contacts: ContactDetail,
        /// Where the colliding pairs are ordered by (a, b).
        #[arg(long, value_parser = word::<ContactOrder>(), default_value = "auto")]
        order: ContactOrder,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Runs a crowd on the GPU. `--model push` (the default): the built-in crowds, two crossing
    /// in a corridor with walls and pillars, one through a doorway in concave walls, or two
    /// through each other in a periodic box (torus); each
    /// frame integrates, detects and pushes overlapping bodies apart, all on the GPU; prints
    /// frames per second and the penetration left at the first and last frame. `--model cfsm`:
    /// JuPedSim's collision-free speed model (cfsm-v2, avm: its V2 and its anticipation velocity
    /// model), agents from --agents walking out of the area in --geometry through --exit; prints the evacuation time and the flow (the push model's
    /// options are not read).
    Sim {
        /// push: the built-in crowds pushed apart; cfsm: the collision-free speed model; cfsm-v2:
        /// the same with each agent's own repulsion (CSV columns strength_neighbor_repulsion,
        /// range_neighbor_repulsion, strength_geometry_repulsion, range_geometry_repulsion); avm:
        /// the anticipation velocity model (CSV columns strength_neighbor_repulsion,
        /// range_neighbor_repulsion, wall_buffer_distance, anticipation_time, reaction_time;
        /// --seed is its rng_seed).
        #[arg(long, value_enum, default_value = "push")]
        model: ModelArg,
        /// cfsm: the walkable area, a file holding one WKT POLYGON (holes allowed).
        #[arg(long, value_name = "AREA.wkt")]
        geometry: Option<PathBuf>,
        /// cfsm: the exit, an axis-aligned box inside the area: X0,Y0,X1,Y1.
        #[arg(long, value_name = "X0,Y0,X1,Y1", allow_hyphen_values = true)]
        exit: Option<String>,
        /// cfsm: instead of --exit, the stages (waypoints, exits) and journeys through them, a
        /// JSON file (docs/file-formats.md); each agent's journey_id and stage_id are CSV columns.
        #[arg(long, value_name = "FILE.json")]
        journeys: Option<PathBuf>,
        /// cfsm: the agents, CSV with header x,y and optionally desired_speed, radius, time_gap
        /// (and the model's own columns, journey_id and stage_id).
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
        /// walls whose jambs leave a door a third of the corridor wide; torus: two crowds walking
        /// through each other in a periodic box, no walls.
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
        /// Random seed of the starting positions (avm: of the model's coin, JuPedSim's rng_seed).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// `fresh`: every iteration detects anew; `reuse`: one detection per frame, later
        /// iterations update its contacts' separations.
        #[arg(long, value_parser = word::<Resolve>(), default_value = "fresh")]
        resolve: Resolve,
        /// Also write the figures as JSON. push: n, frames, iterations, frame_ms_median,
        /// max_depth and total_depth per frame, state_hash; cfsm: model, agents, dt,
        /// evacuation_time, exit_times, flow, frame_ms_median.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write PNG frames (frame_00000.png, ...) into DIR.
        #[arg(long)]
        frames_out: Option<PathBuf>,
        /// With --frames-out: one picture every N frames (10 if not given); with --trajectory: one
        /// frame every N steps (4 if not given, as JuPedSim's writer).
        #[arg(long, value_name = "N")]
        every: Option<usize>,
        /// cfsm: write the agents' trajectories to this SQLite file in JuPedSim's format (PedPy's
        /// `load_trajectory_from_jupedsim_sqlite` reads it), frame 0 before the first step.
        #[arg(long, value_name = "OUT.sqlite")]
        trajectory: Option<PathBuf>,
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

/// A scene file, and the walls of a walkable area to add to it.
#[derive(clap::Args, Debug)]
pub(crate) struct SceneArgs {
    /// Scene JSON: {"polygons": [{"vertices": [[x, y], ...]}, ...]} (see docs/file-formats.md).
    pub(crate) scene: PathBuf,
    /// A file holding one WKT POLYGON, a walkable area (JuPedSim's geometry): its boundary
    /// becomes walls, one closed chain per ring, after the scene's bodies (as a scene file's
    /// "walls").
    #[arg(long, value_name = "FILE.wkt")]
    pub(crate) walls: Option<PathBuf>,
}

impl SceneArgs {
    /// The scene, with the walls added, its bodies checked against its periodic box where it has
    /// one (`margin` apart): both backends refuse a body too wide for the box by name (a World
    /// checks its instances too; the reference only judges what passed).
    pub(crate) fn read_boxed(&self, margin: f64) -> Result<scene::Scene, Failure> {
        let read = self.read()?;
        if let Some(p) = &read.periodic {
            p.check_boxes(read.bodies.iter().map(|b| b.aabb()), margin)?;
        }
        Ok(read)
    }

    /// The scene, with the walls added.
    pub(crate) fn read(&self) -> Result<scene::Scene, Failure> {
        let mut read = scene::read_scene(&self.scene)?;
        if let Some(walls) = &self.walls {
            read.add_walls(scene::read_walls(walls)?);
        }
        Ok(read)
    }
}
