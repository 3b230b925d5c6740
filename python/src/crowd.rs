//! `satgpu.Crowd`'s engine: JuPedSim's collision-free speed model on the GPU or on the f64
//! reference (`satgpu::crowd`), agents in and positions and exit times out as NumPy arrays.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use satgpu::crowd::{
    Agent, Anticipation, Geometry, Journey, Journeys, Model, Recorded, Repulsion, Snapshot, Stage, Trajectory,
    Transition,
};

use crate::{raise, Gpu};

#[allow(clippy::large_enum_variant)] // one per crowd, behind its mutex
enum Engine {
    Gpu(satgpu::crowd::Crowd),
    Cpu(satgpu::reference::cfsm::Crowd),
}

/// Agents from Python for `model`: n x 14 rows of x, y, desired speed, radius, time gap, the four
/// of the repulsion, the three of the anticipation (read under the anticipation velocity model
/// only), journey and stage.
fn agents_of(agents: &PyReadonlyArray2<'_, f64>, model: &Model) -> PyResult<Vec<Agent>> {
    if agents.ndim() != 2 || agents.shape()[1] != 14 {
        return Err(PyValueError::new_err(
            "agents must be an n x 14 array (x, y, desired_speed, radius, time_gap, the four of the repulsion, \
             the three of the anticipation, journey, stage)",
        ));
    }
    let rows = agents.as_slice().map_err(|_| PyValueError::new_err("agents must be C-contiguous"))?;
    Ok(rows
        .chunks_exact(14)
        .map(|r| Agent {
            position: [r[0], r[1]],
            desired_speed: r[2],
            radius: r[3],
            time_gap: r[4],
            repulsion: Some(Repulsion::from_values([r[5], r[6], r[7], r[8]])),
            anticipation: model.anticipates().then(|| Anticipation::from_values([r[9], r[10], r[11]])),
            journey: r[12] as usize,
            stage: r[13] as usize,
        })
        .collect())
}

/// The model Python names: "cfsm" or "cfsm-v2" (one model; the agents carry their repulsion),
/// or "avm" with its pushout strength and seed.
fn model_of(name: &str, pushout_strength: f64, seed: u64) -> PyResult<Model> {
    match name {
        "cfsm" | "cfsm-v2" => Ok(Model::default()),
        "avm" => {
            Ok(Model { kind: satgpu::crowd::Kind::AnticipationVelocity { pushout_strength, seed }, ..Model::default() })
        }
        other => Err(PyValueError::new_err(format!("model must be \"cfsm\", \"cfsm-v2\" or \"avm\", got {other:?}"))),
    }
}

/// Stages from Python: (0, [x, y, distance]) a waypoint, (1, [x0, y0, x1, y1, ...]) an exit.
fn stages_of(stages: Vec<(u8, Vec<f64>)>) -> PyResult<Vec<Stage>> {
    let bad = |k: usize| {
        PyValueError::new_err(format!("stage {k}: expected a waypoint (x, y, distance) or an exit's vertices"))
    };
    stages
        .into_iter()
        .enumerate()
        .map(|(k, (kind, v))| match (kind, v.as_slice()) {
            (0, &[x, y, distance]) => Ok(Stage::Waypoint { position: [x, y], distance }),
            (1, v) if v.len() % 2 == 0 => {
                Ok(Stage::Exit { polygon: v.chunks_exact(2).map(|p| [p[0], p[1]]).collect() })
            }
            _ => Err(bad(k)),
        })
        .collect()
}

/// A journey's stage from Python: (stage, kind, [(stage, weight)]), kind 0 none, 1 fixed, 2
/// round robin, 3 least targeted.
type Node = (usize, u8, Vec<(usize, u64)>);

/// Journeys from Python: per journey, its stages as [`Node`]s.
fn journeys_of(journeys: Vec<Vec<Node>>) -> PyResult<Vec<Journey>> {
    let node = |(stage, kind, list): Node| {
        let transition = match kind {
            0 => None,
            1 => Some(Transition::Fixed(list.first().map_or(usize::MAX, |&(s, _)| s))),
            2 => Some(Transition::RoundRobin(list)),
            3 => Some(Transition::LeastTargeted(list.into_iter().map(|(s, _)| s).collect())),
            _ => return Err(PyValueError::new_err(format!("stage {stage}: transition kind {kind} is not 0 to 3"))),
        };
        Ok((stage, transition))
    };
    journeys
        .into_iter()
        .map(|stages| Ok(Journey { stages: stages.into_iter().map(node).collect::<PyResult<_>>()? }))
        .collect()
}

impl Recorded for Engine {
    fn advance(&mut self, steps: u64) -> satgpu::Result<usize> {
        match self {
            Engine::Gpu(crowd) => crowd.advance(steps),
            Engine::Cpu(crowd) => crowd.advance(steps),
        }
    }

    fn snapshot(&self) -> satgpu::Result<Snapshot> {
        match self {
            Engine::Gpu(crowd) => crowd.snapshot(),
            Engine::Cpu(crowd) => crowd.snapshot(),
        }
    }
}

/// The engine and the trajectory file it writes, if any.
struct Stepped {
    engine: Engine,
    trajectory: Option<Trajectory>,
}

/// A crowd walking out of a walkable area (the Python package's `satgpu.Crowd` wraps it).
#[pyclass(module = "satgpu")]
pub(crate) struct Crowd {
    engine: std::sync::Mutex<Stepped>,
    dt: f64,
    model: Model,
}

impl Crowd {
    fn with<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Engine) -> T + Send) -> PyResult<T> {
        self.with_all(py, |stepped| f(&mut stepped.engine))
    }

    fn with_all<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Stepped) -> T + Send) -> PyResult<T> {
        py.detach(|| {
            let mut stepped =
                self.engine.lock().map_err(|_| PyValueError::new_err("the crowd was poisoned by a panic"))?;
            Ok(f(&mut stepped))
        })
    }
}

#[pymethods]
impl Crowd {
    /// `area`: WKT POLYGON; `exit`: (x0, y0, x1, y1); `agents`: n x 9 float64 rows of x, y,
    /// desired speed, radius, time gap and the repulsion (`Repulsion::NAMES`, each agent's own); `backend`: "gpu" (with `gpu`) or "cpu"; `trajectory`:
    /// a JuPedSim SQLite file to write a frame to every `every` steps, frame 0 now.
    #[new]
    #[pyo3(signature = (gpu, area, exit, agents, dt, backend, trajectory=None, every=4, stages=None, journeys=None,
                        model="cfsm", pushout_strength=0.3, rng_seed=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        gpu: Option<&Gpu>,
        area: &str,
        exit: Option<[f64; 4]>,
        agents: PyReadonlyArray2<'_, f64>,
        dt: f64,
        backend: &str,
        trajectory: Option<std::path::PathBuf>,
        every: u64,
        stages: Option<Vec<(u8, Vec<f64>)>>,
        journeys: Option<Vec<Vec<Node>>>,
        model: &str,
        pushout_strength: f64,
        rng_seed: u64,
    ) -> PyResult<Crowd> {
        let model = model_of(model, pushout_strength, rng_seed)?;
        let agents = agents_of(&agents, &model)?;
        let geometry = match (exit, stages, journeys) {
            (Some(exit), None, None) => Geometry::from_wkt(area, exit),
            (None, Some(stages), Some(journeys)) => {
                let journeys = Journeys { stages: stages_of(stages)?, journeys: journeys_of(journeys)? };
                satgpu::scene::parse_wkt_polygon(area).and_then(|area| Geometry::with_journeys(area, journeys))
            }
            _ => return Err(PyValueError::new_err("give either an exit box, or stages and journeys")),
        }
        .map_err(raise)?;
        let engine = match (backend, gpu) {
            ("gpu", Some(gpu)) => {
                let g = &gpu.inner;
                Engine::Gpu(py.detach(|| satgpu::crowd::Crowd::new(g, &geometry, &model, &agents, dt)).map_err(raise)?)
            }
            ("cpu", _) => Engine::Cpu(
                py.detach(|| satgpu::reference::cfsm::Crowd::new(&geometry, &model, &agents, dt)).map_err(raise)?,
            ),
            (other, _) => {
                return Err(PyValueError::new_err(format!("backend must be \"gpu\" or \"cpu\", got {other:?}")))
            }
        };
        let trajectory = match trajectory {
            Some(path) => {
                let area = geometry.area();
                let mut file = py.detach(|| Trajectory::create(&path, area, dt, every)).map_err(raise)?;
                py.detach(|| file.record(&engine.snapshot()?)).map_err(raise)?;
                Some(file)
            }
            None => None,
        };
        Ok(Crowd { engine: std::sync::Mutex::new(Stepped { engine, trajectory }), dt, model })
    }

    /// Runs `steps` steps, writing the trajectory's frames on the way;
    /// returns the agents still walking.
    fn iterate(&self, py: Python<'_>, steps: u64) -> PyResult<usize> {
        self.with_all(py, |stepped| match &mut stepped.trajectory {
            Some(trajectory) => trajectory.advance(&mut stepped.engine, steps),
            None => stepped.engine.advance(steps),
        })?
        .map_err(raise)
    }

    /// Closes the trajectory file, if any (later steps write none).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        match self.with_all(py, |stepped| stepped.trajectory.take())? {
            Some(trajectory) => py.detach(|| trajectory.close()).map_err(raise),
            None => Ok(()),
        }
    }

    /// Steps run so far.
    #[getter]
    fn steps(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |engine| match engine {
            Engine::Gpu(crowd) => crowd.steps(),
            Engine::Cpu(crowd) => crowd.steps(),
        })
    }

    /// Seconds per step.
    #[getter]
    fn dt(&self) -> f64 {
        self.dt
    }

    /// Every agent's position, n x 2 float64 (those that left stay where they left).
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows: Vec<f64> = self.with(py, |engine| match engine {
            Engine::Gpu(crowd) => crowd
                .positions()
                .map(|p| p.iter().flat_map(|p| [f64::from(p[0]), f64::from(p[1])]).collect())
                .map_err(raise),
            Engine::Cpu(crowd) => Ok(crowd.positions().iter().flatten().copied().collect()),
        })??;
        let n = rows.len() / 2;
        PyArray1::from_vec(py, rows).reshape([n, 2])
    }

    /// Every agent's velocity in its last step, n x 2 float64 (the anticipation velocity model's;
    /// zero under the collision-free speed model, which keeps none).
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows: Vec<f64> = self.with(py, |engine| match engine {
            Engine::Gpu(crowd) => crowd
                .velocities()
                .map(|v| v.iter().flat_map(|v| [f64::from(v[0]), f64::from(v[1])]).collect())
                .map_err(raise),
            Engine::Cpu(crowd) => Ok(crowd.velocities().iter().flatten().copied().collect()),
        })??;
        let n = rows.len() / 2;
        PyArray1::from_vec(py, rows).reshape([n, 2])
    }

    /// Per agent, the step after which it left (0 while it walks), uint64.
    fn exit_steps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let steps: Vec<u64> = self.with(py, |engine| match engine {
            Engine::Gpu(crowd) => crowd.exit_steps().map(|s| s.into_iter().map(u64::from).collect()).map_err(raise),
            Engine::Cpu(crowd) => Ok(crowd.exit_steps().to_vec()),
        })??;
        Ok(PyArray1::from_vec(py, steps))
    }

    /// Adds agents (rows as `new` takes them) between steps; returns the range of their indices.
    fn add_agents(&self, py: Python<'_>, agents: PyReadonlyArray2<'_, f64>) -> PyResult<(usize, usize)> {
        let agents = agents_of(&agents, &self.model)?;
        let range = self
            .with(py, |engine| match engine {
                Engine::Gpu(crowd) => crowd.add_agents(&agents),
                Engine::Cpu(crowd) => crowd.add_agents(&agents),
            })?
            .map_err(raise)?;
        Ok((range.start, range.end))
    }

    /// Puts `agent` on `journey`, heading for its `stage` from the next step.
    fn switch_journey(&self, py: Python<'_>, agent: usize, journey: usize, stage: usize) -> PyResult<()> {
        self.with(py, |engine| match engine {
            Engine::Gpu(crowd) => crowd.switch_journey(agent, journey, stage),
            Engine::Cpu(crowd) => crowd.switch_journey(agent, journey, stage),
        })?
        .map_err(raise)
    }

    /// Per agent, the stage it heads for now, uint64.
    fn stages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let stages: Vec<u64> = self.with(py, |engine| match engine {
            Engine::Gpu(crowd) => crowd.stages().map(|s| s.into_iter().map(u64::from).collect()).map_err(raise),
            Engine::Cpu(crowd) => Ok(crowd.stages().iter().map(|&s| s as u64).collect()),
        })??;
        Ok(PyArray1::from_vec(py, stages))
    }

    /// Wall-clock milliseconds per step, one figure per batch the GPU ran (empty on "cpu").
    fn step_ms(&self, py: Python<'_>) -> PyResult<Vec<f64>> {
        self.with(py, |engine| match engine {
            Engine::Gpu(crowd) => crowd.step_ms().to_vec(),
            Engine::Cpu(_) => vec![],
        })
    }
}
