//! `World`: bodies kept on the GPU between steps, moved, filtered and queried.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{
    cast_list, filter_list, hit_arrays, impact_arrays, ray_list, set_poses, stats_dict, world_list, Columns,
    FilterArrays, HitArrays, ImpactArrays,
};
use crate::device::Gpu;
use crate::errors::{error_of, raise};
use crate::shapes::{add_parts, body_list, shape_list};

/// A persistent world: shapes uploaded once, bodies placed by transforms every frame.
#[pyclass(module = "satgpu")]
pub(crate) struct World {
    pub(crate) inner: std::sync::Mutex<satgpu::gpu::World>,
    pub(crate) bodies: usize,
    /// Frames compute manifolds (`contacts="full"`).
    pub(crate) full: bool,
    /// The shapes were given as a list with a `Compound` among them: pairs name their parts.
    pub(crate) compound: bool,
}

impl World {
    /// The world, once no other thread uses it. A thread waits with the GIL released: the
    /// thread that holds the world may need the GIL to finish (its step returns arrays).
    fn lock(&self, py: Python<'_>) -> PyResult<std::sync::MutexGuard<'_, satgpu::gpu::World>> {
        use std::sync::TryLockError;
        loop {
            match self.inner.try_lock() {
                Ok(world) => return Ok(world),
                Err(TryLockError::Poisoned(_)) => {
                    return Err(error_of("Error", "the world was poisoned by a panic in another thread".into()))
                }
                Err(TryLockError::WouldBlock) => py.detach(|| drop(self.inner.lock())),
            }
        }
    }
}

/// A `World`'s options from its keyword arguments, refused as the `World` would refuse them
/// (a `ValueError` naming the word, an `InvalidSettingError` naming the setting).
fn world_options(
    order: &str,
    contacts: &str,
    margin: f64,
    (events, continuous): (bool, bool),
    periodic: Option<(Bounds, &str)>,
) -> PyResult<satgpu::gpu::WorldOptions> {
    use satgpu::gpu::{ContactDetail, ContactOrder, WorldOptions};
    let order: ContactOrder = order.parse().map_err(PyValueError::new_err)?;
    let detail: ContactDetail = contacts.parse().map_err(PyValueError::new_err)?;
    let mut options = WorldOptions::default()
        .with_order(order)
        .with_contact_detail(detail)
        .with_margin(margin)
        .with_events(events)
        .with_continuous(continuous);
    options.check().map_err(raise)?;
    if let Some(((x0, y0, x1, y1), axes)) = periodic {
        let axes: satgpu::PeriodicAxes = axes.parse().map_err(PyValueError::new_err)?;
        options.periodic = Some(satgpu::Periodic::new([x0, y0, x1, y1], axes.wraps()).map_err(raise)?);
    }
    Ok(options)
}

/// A periodic box as Python gives it: `(x0, y0, x1, y1)`.
type Bounds = (f64, f64, f64, f64);

/// Checks a `World`'s keyword arguments without making one (for `satgpu.ray.TiledWorld`, whose
/// tiles make theirs later), refused with the errors a `World` gives.
#[pyfunction]
#[pyo3(signature = (order = "auto", contacts = "basic", margin = 0.0))]
pub fn check_world_options(order: &str, contacts: &str, margin: f64) -> PyResult<()> {
    world_options(order, contacts, margin, (false, false), None).map(|_| ())
}

/// Whether `xy` and `angle` can place `bodies` bodies, with `World.set_transforms`' errors (a
/// tiled world holds the transforms for its tiles' worlds).
#[pyfunction]
pub fn check_transforms(xy: &Bound<'_, PyAny>, angle: &Bound<'_, PyAny>, bodies: usize) -> PyResult<()> {
    set_poses(None, bodies, xy, angle)
}

/// Whether `category`, `mask` and `group` are one filter for each of `bodies` bodies, with
/// `World.set_filters`' errors.
#[pyfunction]
pub fn check_filters(
    category: PyReadonlyArray1<'_, u32>,
    mask: PyReadonlyArray1<'_, u32>,
    group: PyReadonlyArray1<'_, i32>,
    bodies: usize,
) -> PyResult<()> {
    filter_list(Some((category, mask, group)), bodies).map(|_| ())
}

#[pymethods]
impl World {
    /// `shapes` (a `Shapes`, or a sequence of `Shape` and `Compound`), each placed relative to
    /// the origin, and `body_shapes` (n uint32: the shape of each body); with compounds, pairs
    /// are between bodies and each has its deepest part pair in `parts`. `order`: where the pairs are sorted by
    /// (a, b), "auto", "gpu" or "host"; `contacts`: "basic" or "full"; `periodic`: a periodic box
    /// `(x0, y0, x1, y1)` wrapping `periodic_axes` ("xy", "x" or "y").
    #[new]
    #[pyo3(signature = (gpu, shapes, body_shapes, order = "auto", contacts = "basic", margin = 0.0, events = false, continuous = false, periodic = None, periodic_axes = "xy"))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn new(
        py: Python<'_>,
        gpu: &Gpu,
        shapes: &Bound<'_, PyAny>,
        body_shapes: PyReadonlyArray1<'_, u32>,
        order: &str,
        contacts: &str,
        margin: f64,
        events: bool,
        continuous: bool,
        periodic: Option<Bounds>,
        periodic_axes: &str,
    ) -> PyResult<World> {
        let bodies = body_list(shapes)?;
        let shapes = if bodies.is_some() { vec![] } else { shape_list(shapes)? };
        let body_shapes =
            body_shapes.as_slice().map_err(|_| PyValueError::new_err("body_shapes must be C-contiguous"))?;
        let options =
            world_options(order, contacts, margin, (events, continuous), periodic.map(|b| (b, periodic_axes)))?;
        let full = options.contact_detail == satgpu::gpu::ContactDetail::Full;
        let g = &gpu.inner;
        let world = py
            .detach(|| match &bodies {
                Some(bodies) => satgpu::gpu::World::new(g, bodies, body_shapes, &options),
                None => satgpu::gpu::World::new(g, &shapes, body_shapes, &options),
            })
            .map_err(raise)?;
        let compound = bodies.is_some();
        Ok(World { bodies: body_shapes.len(), inner: std::sync::Mutex::new(world), full, compound })
    }

    fn __len__(&self) -> usize {
        self.bodies
    }

    /// Places every body for the next frame: `xy` (n x 2) and `angle` (n, radians), both
    /// float64 or both float32, C-contiguous. A bad value is an `InvalidTransformError` naming
    /// the body, and nothing is uploaded.
    fn set_transforms(&self, py: Python<'_>, xy: &Bound<'_, PyAny>, angle: &Bound<'_, PyAny>) -> PyResult<()> {
        set_poses(Some(&mut *self.lock(py)?), self.bodies, xy, angle)
    }

    /// Sets each body's filter from `category`, `mask` (uint32) and `group` (int32) arrays.
    fn set_filters(
        &self,
        py: Python<'_>,
        category: PyReadonlyArray1<'_, u32>,
        mask: PyReadonlyArray1<'_, u32>,
        group: PyReadonlyArray1<'_, i32>,
    ) -> PyResult<()> {
        let filters = filter_list(Some((category, mask, group)), self.bodies)?;
        self.lock(py)?.set_filters(&filters).map_err(raise)
    }

    /// Puts each body in a world (`worlds`: one uint32 per body; empty: one world).
    fn set_worlds(&self, py: Python<'_>, worlds: PyReadonlyArray1<'_, u32>) -> PyResult<()> {
        let worlds = worlds.as_slice().map_err(|_| PyValueError::new_err("worlds must be C-contiguous"))?;
        self.lock(py)?.set_worlds(worlds).map_err(raise)
    }

    /// Each body's world, empty while every body is in world 0.
    fn worlds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        Ok(PyArray1::from_slice(py, self.lock(py)?.worlds()))
    }

    /// Makes room for `entries` strip entries and `candidates` candidate pairs, so that no frame
    /// up to that size reruns.
    fn reserve(&self, py: Python<'_>, entries: u64, candidates: u64) -> PyResult<()> {
        let mut world = self.lock(py)?;
        let w = &mut *world;
        py.detach(|| w.reserve(entries, candidates)).map_err(raise)
    }

    /// Runs a frame and returns its pairs (the same dict of arrays as `detect`) and its figures
    /// (`colliding`, `candidates`, `frame_ms`, ...), with the GIL released meanwhile.
    fn step<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
        let mut world = self.lock(py)?;
        let w = &mut *world;
        let (full, compound) = (self.full, self.compound);
        // The pairs are read from the frame's records where they lie (the mapped readback memory
        // when the GPU sorted them) straight into the arrays NumPy is given.
        let (columns, parts, frame) = py
            .detach(|| -> satgpu::Result<_> {
                let view = w.step_view()?;
                let mut columns = Columns::of(&view, |c| {
                    let normal = [f64::from(c.normal_x) + 0.0, f64::from(c.normal_y) + 0.0];
                    (c.a, c.b, normal, f64::from(c.depth))
                });
                columns.manifolds = full.then(|| view.manifolds().to_vec());
                // Bodies of one part each name part 0.
                let parts = compound.then(|| match view.shapes() {
                    [] => vec![[0, 0]; view.len()],
                    shapes => shapes.to_vec(),
                });
                Ok((columns, parts, view.stats().clone()))
            })
            .map_err(raise)?;
        let pairs = columns.into_dict(py)?;
        if let Some(parts) = parts {
            add_parts(py, &pairs, &parts)?;
        }
        Ok((pairs, stats_dict(py, &frame)?))
    }

    /// For each box (n x 4 float64: min_x, min_y, max_x, max_y), the bodies (uint32, sorted) that
    /// share a point with it, as the bodies stand now; with `points=True`, `boxes` is n x 2 points
    /// and each gets the bodies containing it. `filters`: one (category, mask, group) per query,
    /// or every query sees every body (default filter).
    #[pyo3(signature = (regions, points = false, filters = None, worlds = None))]
    fn query<'py>(
        &self,
        py: Python<'py>,
        regions: PyReadonlyArray2<'py, f64>,
        points: bool,
        filters: Option<FilterArrays<'py>>,
        worlds: Option<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<Vec<Bound<'py, PyArray1<u32>>>> {
        let width = if points { 2 } else { 4 };
        let shape = regions.shape();
        if shape[1] != width {
            let what = if points { "points must be n x 2" } else { "boxes must be n x 4" };
            return Err(PyValueError::new_err(format!("{what}, got {} x {}", shape[0], shape[1])));
        }
        let rows: Vec<f64> = regions.as_array().iter().copied().collect();
        let filters = filter_list(filters, shape[0])?;
        let worlds = world_list(worlds, shape[0], "query")?;
        let mut world = self.lock(py)?;
        let world = &mut *world;
        let found = py
            .detach(|| {
                if points {
                    let q: Vec<_> = rows
                        .chunks(2)
                        .zip(filters.iter().zip(&worlds))
                        .map(|(r, (&filter, &world))| satgpu::PointQuery { point: [r[0], r[1]], filter, world })
                        .collect();
                    world.query_points(&q)
                } else {
                    let q: Vec<_> = rows
                        .chunks(4)
                        .zip(filters.iter().zip(&worlds))
                        .map(|(r, (&filter, &world))| satgpu::BoxQuery {
                            aabb: satgpu::Aabb { min: [r[0], r[1]], max: [r[2], r[3]] },
                            filter,
                            world,
                        })
                        .collect();
                    world.query_boxes(&q)
                }
            })
            .map_err(raise)?;
        Ok(found.into_iter().map(|bodies| PyArray1::from_vec(py, bodies)).collect())
    }

    /// Casts each ray (`rays`: n x 5 float64 rows of origin x, y, direction x, y and length): the
    /// nearest body each meets, as the bodies stand now, seen through `filters` (one (category,
    /// mask, group) per ray; default: every body). Returns
    /// (body as int64, -1 for none; fraction of the length; point n x 2; normal n x 2), NaN
    /// where a ray meets nothing.
    #[allow(clippy::type_complexity)]
    #[pyo3(signature = (rays, filters = None, worlds = None))]
    fn cast_rays<'py>(
        &self,
        py: Python<'py>,
        rays: PyReadonlyArray2<'py, f64>,
        filters: Option<FilterArrays<'py>>,
        worlds: Option<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<HitArrays<'py>> {
        let mut rays = ray_list(rays, filters)?;
        let worlds = world_list(worlds, rays.len(), "ray")?;
        for (ray, world) in rays.iter_mut().zip(worlds) {
            ray.world = world;
        }
        let mut world = self.lock(py)?;
        let world = &mut *world;
        let hits = py.detach(|| world.cast_rays(&rays)).map_err(raise)?;
        hit_arrays(py, &hits)
    }

    /// Casts each shape (`casts`: n x 6 float64 rows of origin x, y, angle, direction x, y and
    /// length; `which`: each cast's index into `shapes`, the shapes cast in their own frames):
    /// the first body each touches, as the bodies stand now, seen through `filters` (one
    /// (category, mask, group) per cast). Returns as `cast_rays`, the point on the body's
    /// boundary; a cast that starts touching a body hits it at fraction 0, at its origin.
    #[allow(clippy::type_complexity)]
    #[pyo3(signature = (shapes, casts, which, filters = None, worlds = None))]
    fn cast_shapes<'py>(
        &self,
        py: Python<'py>,
        shapes: &Bound<'py, PyAny>,
        casts: PyReadonlyArray2<'py, f64>,
        which: PyReadonlyArray1<'py, u32>,
        filters: Option<FilterArrays<'py>>,
        worlds: Option<PyReadonlyArray1<'py, u32>>,
    ) -> PyResult<HitArrays<'py>> {
        let shapes = shape_list(shapes)?;
        let mut casts = cast_list(casts, which, shapes.len(), filters)?;
        let worlds = world_list(worlds, casts.len(), "cast")?;
        for (cast, world) in casts.iter_mut().zip(worlds) {
            cast.world = world;
        }
        let mut world = self.lock(py)?;
        let world = &mut *world;
        let hits = py.detach(|| world.cast_shapes(&shapes, &casts)).map_err(raise)?;
        hit_arrays(py, &hits)
    }

    /// With `events=True`, the pairs that began and ended touching from the frame before the
    /// last step to the last (n x 2 uint32 arrays, each sorted by (a, b)); `None` without events.
    #[allow(clippy::type_complexity)]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Option<(Bound<'py, PyArray2<u32>>, Bound<'py, PyArray2<u32>>)>> {
        let world = self.lock(py)?;
        let Some(e) = world.events() else { return Ok(None) };
        let pairs = |p: &[[u32; 2]]| PyArray1::from_iter(py, p.iter().flatten().copied()).reshape([p.len(), 2]);
        Ok(Some((pairs(&e.began)?, pairs(&e.ended)?)))
    }

    /// With `continuous=True`, the pairs that touched at some moment of the last step, each
    /// body moved from its transforms at the step before to those of the step: (a, b, toi) arrays sorted by
    /// (a, b); `None` without.
    fn impacts<'py>(&self, py: Python<'py>) -> PyResult<Option<ImpactArrays<'py>>> {
        let world = self.lock(py)?;
        Ok(world.impacts().map(|found| impact_arrays(py, found)))
    }
}
