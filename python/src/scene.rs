//! Scene files and the built-in scene kinds.

use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::arrays::{filter_list, FilterArrays};
use crate::errors::raise;
use crate::shapes::{shape_list, Compound, Shapes};

/// A scene's periodic box as Python holds it: `((x0, y0, x1, y1), axes)`.
type PeriodicBox = ((f64, f64, f64, f64), &'static str);

/// A scene file as `read_scene` hands it to Python: shapes, filters, box.
type SceneParts<'py> = (Bound<'py, PyAny>, Option<Bound<'py, pyo3::types::PyTuple>>, Option<PeriodicBox>);

/// The shapes of a scene file, when any has a collision filter the `(category, mask, group)`
/// arrays (else `None`), and its periodic box (else `None`); every shape is validated, errors
/// name the file and the shape.
#[pyfunction]
pub(crate) fn read_scene(py: Python<'_>, path: std::path::PathBuf) -> PyResult<SceneParts<'_>> {
    use satgpu::named::Named;
    let scene = py.detach(|| satgpu::scene::read_scene(&path)).map_err(raise)?;
    let periodic = scene.periodic.map(|p| {
        let [x0, y0, x1, y1] = p.bounds();
        let axes = satgpu::PeriodicAxes::of(p.wraps()).expect("a box wraps an axis");
        ((x0, y0, x1, y1), axes.word())
    });

    let filters = if scene.filters.is_empty() {
        None
    } else {
        let f = &scene.filters;
        let category = PyArray1::from_iter(py, f.iter().map(|f| f.category));
        let mask = PyArray1::from_iter(py, f.iter().map(|f| f.mask));
        let group = PyArray1::from_iter(py, f.iter().map(|f| f.group));
        Some(pyo3::types::PyTuple::new(py, [category.into_any(), mask.into_any(), group.into_any()])?)
    };
    // A scene with compound bodies gives a list of `Compound`s (one per body), else `Shapes`.
    let shapes = if scene.compound {
        let bodies: Vec<Compound> = scene.bodies.into_iter().map(Compound::new).collect();
        pyo3::types::PyList::new(py, bodies)?.into_any()
    } else {
        Bound::new(py, Shapes { inner: scene.into_shapes() })?.into_any()
    };
    Ok((shapes, filters, periodic))
}

/// Writes `shapes` (and their filters, where not the default, and the periodic box `periodic`
/// wrapping `periodic_axes`) as a scene file, whole or not at all.
#[pyfunction]
#[pyo3(signature = (path, shapes, filters = None, periodic = None, periodic_axes = "xy"))]
pub(crate) fn write_scene(
    py: Python<'_>,
    path: std::path::PathBuf,
    shapes: &Bound<'_, PyAny>,
    filters: Option<FilterArrays<'_>>,
    periodic: Option<(f64, f64, f64, f64)>,
    periodic_axes: &str,
) -> PyResult<()> {
    let periodic = match periodic {
        Some((x0, y0, x1, y1)) => {
            let axes: satgpu::PeriodicAxes = periodic_axes.parse().map_err(PyValueError::new_err)?;
            Some(satgpu::Periodic::new([x0, y0, x1, y1], axes.wraps()).map_err(raise)?)
        }
        None => None,
    };
    let polygons = shape_list(shapes)?;
    let filters = match filters {
        Some(f) => filter_list(Some(f), polygons.len())?,
        None => vec![],
    };
    let scene = satgpu::scene::Scene { filters, periodic, ..satgpu::scene::Scene::new(polygons) };
    py.detach(|| satgpu::scene::write_scene(&path, &scene)).map_err(raise)
}

/// The names of the built-in scene kinds, as `generate` takes them (the compound ones last).
#[pyfunction]
pub(crate) fn scene_kinds() -> Vec<&'static str> {
    satgpu::scene::SceneKind::ALL.iter().chain(&satgpu::scene::SceneKind::COMPOUND).map(|k| k.name()).collect()
}

/// `n` shapes of a built-in scene kind (as `satgpu gen` writes them), the same for the same
/// seed on every machine: a `Shapes`, or for a compound kind ("rooms") a list of `Compound`s.
#[pyfunction]
#[pyo3(signature = (kind, n, seed = 1))]
pub(crate) fn generate<'py>(py: Python<'py>, kind: &str, n: usize, seed: u64) -> PyResult<Bound<'py, PyAny>> {
    use satgpu::memory::{self, SceneSize, Work};
    let kind: satgpu::scene::SceneKind = kind.parse().map_err(PyValueError::new_err)?;
    // Refused before anything is made where the shapes would not fit in the host's memory (the
    // text's share of the CLI's estimate stands for the arrays the shapes are packed into).
    let needed = memory::estimate(SceneSize::generated(kind, n, seed), Work::GENERATE).host;
    let what = || format!("{} {kind} shapes", memory::grouped(n as u64));
    memory::check(what, "host", needed, memory::available_within(None)).map_err(raise)?;
    if kind.is_compound() {
        let bodies = py.detach(|| satgpu::scene::generate_bodies(kind, n, seed));
        let bodies: Vec<Compound> = bodies.into_iter().map(Compound::new).collect();
        return Ok(pyo3::types::PyList::new(py, bodies)?.into_any());
    }
    let inner = py.detach(|| satgpu::scene::generate(kind, n, seed));
    Ok(Bound::new(py, Shapes { inner })?.into_any())
}
