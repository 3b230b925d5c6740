//! satgpu from Python: shapes built one by one or in bulk from NumPy arrays, pairs out as NumPy
//! arrays, every `satgpu::Error` a Python exception of its own kind. The Python package
//! (`satgpu/__init__.py`) wraps this module, `satgpu._satgpu`.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use satgpu::{Contact, ContactDetail, DetectOptions, Filter, Manifold, Polygon};

mod crowd;
mod pack;

/// The class of `satgpu.errors` named `name`, raised with `message` (the classes live in Python,
/// so that input errors can also be `ValueError`s and file errors `OSError`s).
fn error_of(name: &str, message: String) -> PyErr {
    Python::attach(|py| {
        let class = py.import("satgpu.errors").and_then(|m| m.getattr(name));
        match class.and_then(|c| c.call1((message.clone(),))) {
            Ok(instance) => PyErr::from_value(instance),
            Err(e) => e,
        }
    })
}

/// The Python exception for a satgpu error: the class of its kind, with the Rust message.
pub(crate) fn raise(e: satgpu::Error) -> PyErr {
    use satgpu::Error as E;
    let class = match &e {
        E::InvalidPolygon { .. } | E::Polygon(_) => "InvalidPolygonError",
        E::UnknownShape { .. } => "UnknownShapeError",
        E::NonFiniteTransform { .. } => "NonFiniteTransformError",
        E::TransformOutOfRange { .. } => "TransformOutOfRangeError",
        E::RotationNotUnit { .. } => "RotationNotUnitError",
        E::TransformCount { .. } => "TransformCountError",
        E::FilterCount { .. } => "FilterCountError",
        E::InvalidSetting { .. } => "InvalidSettingError",
        E::Io { .. } => "SceneFileError",
        E::Json { .. } => "SceneJsonError",
        E::MissingPolygons { .. } => "MissingPolygonsError",
        E::Wkt { .. } => "WktError",
        E::Crowd { .. } => "InvalidCrowdError",
        E::InvalidWalls { .. } => "InvalidWallsError",
        E::NoAdapter { .. } => "NoAdapterError",
        E::UnsuitableAdapter { .. } => "UnsuitableAdapterError",
        E::TooLarge { .. } => "BufferTooLargeError",
        E::NotEnoughMemory { .. } => "NotEnoughMemoryError",
        E::HostMemory { .. } => "HostMemoryError",
        E::Device(_) => "DeviceFailureError",
        E::DeviceLost(_) => "DeviceLostError",
        E::Timeout { .. } => "DeviceTimeoutError",
        _ => "Error",
    };
    error_of(class, e.to_string())
}

/// A shape: a convex polygon, optionally rounded, a circle or a capsule.
#[pyclass(frozen, module = "satgpu")]
struct Shape {
    inner: Polygon,
}

#[pymethods]
impl Shape {
    /// The core's vertices, counter-clockwise (an n x 2 float64 array).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        points(py, self.inner.vertices())
    }

    /// The radius around the core (0 for a plain polygon).
    #[getter]
    fn radius(&self) -> f64 {
        self.inner.radius()
    }

    fn __repr__(&self) -> String {
        format!("satgpu.Shape({} vertices, radius {})", self.inner.vertices().len(), self.inner.radius())
    }

    /// Pickled as its core and radius (Ray, multiprocessing).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        pack::reduce(py, "shape", std::slice::from_ref(&self.inner))
    }
}

/// Many shapes held in Rust, made in bulk from arrays: a million shapes are not a million
/// Python objects.
#[pyclass(frozen, module = "satgpu")]
struct Shapes {
    inner: Vec<Polygon>,
}

#[pymethods]
impl Shapes {
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The shape at `index` (negative counts from the end).
    fn __getitem__(&self, index: isize) -> PyResult<Shape> {
        let n = self.inner.len() as isize;
        let i = if index < 0 { index + n } else { index };
        if !(0..n).contains(&i) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!("shape {index} of {n}")));
        }
        Ok(Shape { inner: self.inner[i as usize].clone() })
    }

    fn __repr__(&self) -> String {
        format!("satgpu.Shapes({} shapes)", self.inner.len())
    }

    /// The shapes at `indices` (uint32), in that order.
    fn take(&self, indices: PyReadonlyArray1<'_, u32>) -> PyResult<Shapes> {
        let indices = indices.as_slice().map_err(|_| PyValueError::new_err("indices must be C-contiguous"))?;
        let n = self.inner.len();
        let inner = indices
            .iter()
            .map(|&i| {
                self.inner
                    .get(i as usize)
                    .cloned()
                    .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err(format!("shape {i} of {n}")))
            })
            .collect::<PyResult<_>>()?;
        Ok(Shapes { inner })
    }

    /// Pickled as flat arrays of cores and radii (Ray, multiprocessing).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        pack::reduce(py, "shapes", &self.inner)
    }
}

/// An n x 2 float64 array of points.
fn points<'py>(py: Python<'py>, p: &[[f64; 2]]) -> Bound<'py, PyArray2<f64>> {
    PyArray1::from_iter(py, p.iter().flatten().copied()).reshape([p.len(), 2]).expect("n x 2 elements")
}

/// A point `[x, y]` from a sequence of two numbers.
fn point(name: &str, p: Vec<f64>) -> PyResult<[f64; 2]> {
    match p[..] {
        [x, y] => Ok([x, y]),
        _ => Err(PyValueError::new_err(format!("{name} must be two numbers [x, y], got {}", p.len()))),
    }
}

/// `array` as a contiguous n x 2 float64 array (its values, row by row), or a ValueError naming
/// `name`.
fn xy<'a>(name: &str, array: &'a PyReadonlyArray2<'_, f64>) -> PyResult<&'a [f64]> {
    if array.shape()[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "{name} must be an n x 2 float64 array, got shape {:?}",
            array.shape()
        )));
    }
    let flat = array.as_slice().map_err(|_| {
        PyValueError::new_err(format!("{name} must be C-contiguous (numpy.ascontiguousarray makes it so)"))
    })?;
    Ok(flat)
}

/// A shape error as the Python exception, naming the argument and the index.
fn shape_error(what: &str, index: Option<usize>, e: satgpu::geometry::PolygonError) -> PyErr {
    match index {
        Some(i) => error_of("InvalidPolygonError", format!("{what} {i}: {e}")),
        None => error_of("InvalidPolygonError", format!("{what}: {e}")),
    }
}

/// A convex polygon from its vertices (an n x 2 array or a list of [x, y]), either winding,
/// rounded by `radius` when it is positive.
#[pyfunction]
#[pyo3(signature = (vertices, radius = 0.0))]
fn polygon(vertices: Vec<[f64; 2]>, radius: f64) -> PyResult<Shape> {
    let made = if radius == 0.0 { Polygon::new(vertices) } else { Polygon::rounded(vertices, radius) };
    made.map(|inner| Shape { inner }).map_err(|e| shape_error("polygon", None, e))
}

/// A circle of radius `r` around `center`.
#[pyfunction]
fn circle(center: Vec<f64>, r: f64) -> PyResult<Shape> {
    Polygon::circle(point("center", center)?, r)
        .map(|inner| Shape { inner })
        .map_err(|e| shape_error("circle", None, e))
}

/// A capsule: the segment from `a` to `b`, rounded by `r`.
#[pyfunction]
fn capsule(a: Vec<f64>, b: Vec<f64>, r: f64) -> PyResult<Shape> {
    Polygon::capsule(point("a", a)?, point("b", b)?, r)
        .map(|inner| Shape { inner })
        .map_err(|e| shape_error("capsule", None, e))
}

/// A segment from `a` to `b` grown by `r >= 0`: `r = 0` is the line segment itself (a wall with
/// no thickness), above 0 a capsule.
#[pyfunction]
#[pyo3(signature = (a, b, r = 0.0))]
fn segment(a: Vec<f64>, b: Vec<f64>, r: f64) -> PyResult<Shape> {
    Polygon::segment(point("a", a)?, point("b", b)?, r)
        .map(|inner| Shape { inner })
        .map_err(|e| shape_error("segment", None, e))
}

/// A chain: the polyline through `points` (a list of [x, y] or an n x 2 array), open or with
/// `loop=True` closed, grown by `radius >= 0`: one body (a `Compound`) of segments.
#[pyfunction]
#[pyo3(signature = (points, r#loop = false, radius = 0.0))]
fn chain(points: Vec<[f64; 2]>, r#loop: bool, radius: f64) -> PyResult<Compound> {
    satgpu::Body::chain(&points, r#loop, radius)
        .map(|inner| Compound { inner })
        .map_err(|e| shape_error("chain", None, e))
}

/// The walls of a walkable area: one closed chain per ring, the exterior's first, then each
/// hole's (`satgpu.walls` in Python takes arrays, a shapely Polygon or WKT and calls this).
#[pyfunction]
#[pyo3(signature = (exterior, holes, radius = 0.0))]
fn walls(exterior: Vec<[f64; 2]>, holes: Vec<Vec<[f64; 2]>>, radius: f64) -> PyResult<Vec<Compound>> {
    let bodies = satgpu::Body::walls(&exterior, &holes, radius).map_err(|e| shape_error("walls", None, e))?;
    Ok(bodies.into_iter().map(|inner| Compound { inner }).collect())
}

/// A ring: its points.
type Ring = Vec<[f64; 2]>;

/// The rings of one WKT `POLYGON`: (exterior, holes), each ring a list of [x, y].
#[pyfunction]
fn wkt_polygon(text: &str) -> PyResult<(Ring, Vec<Ring>)> {
    let area = satgpu::scene::parse_wkt_polygon(text).map_err(raise)?;
    Ok((area.exterior, area.holes))
}

/// Circles in bulk: `centers` (n x 2) and `radii` (n), float64.
#[pyfunction]
fn circles(centers: PyReadonlyArray2<'_, f64>, radii: PyReadonlyArray1<'_, f64>) -> PyResult<Shapes> {
    let centers = xy("centers", &centers)?;
    let radii = radii.as_slice().map_err(|_| PyValueError::new_err("radii must be C-contiguous"))?;
    if radii.len() != centers.len() / 2 {
        return Err(PyValueError::new_err(format!("{} centers but {} radii", centers.len() / 2, radii.len())));
    }
    let inner = centers
        .chunks_exact(2)
        .zip(radii)
        .enumerate()
        .map(|(i, (c, r))| Polygon::circle([c[0], c[1]], *r).map_err(|e| shape_error("circle", Some(i), e)))
        .collect::<PyResult<_>>()?;
    Ok(Shapes { inner })
}

/// Polygons in bulk: all their vertices in one m x 2 float64 array, polygon i being rows
/// `offsets[i]` to `offsets[i + 1]` (`offsets`: n + 1 increasing uint64, the first 0, the last
/// m); each rounded by `radii[i]` when given.
#[pyfunction]
#[pyo3(signature = (vertices, offsets, radii = None))]
fn polygons(
    vertices: PyReadonlyArray2<'_, f64>,
    offsets: PyReadonlyArray1<'_, u64>,
    radii: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<Shapes> {
    let vertices = xy("vertices", &vertices)?;
    let offsets = offsets.as_slice().map_err(|_| PyValueError::new_err("offsets must be C-contiguous"))?;
    let bad = |why: String| PyValueError::new_err(format!("offsets {why}"));
    match (offsets.first(), offsets.last()) {
        (Some(0), Some(&last)) if last == vertices.len() as u64 / 2 => {}
        _ => return Err(bad(format!("must start at 0 and end at the number of vertices, {}", vertices.len() / 2))),
    }
    if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(bad(format!("must not decrease (at {i})")));
    }
    let n = offsets.len() - 1;
    let radii = match &radii {
        Some(r) => Some(r.as_slice().map_err(|_| PyValueError::new_err("radii must be C-contiguous"))?),
        None => None,
    };
    if let Some(r) = radii.filter(|r| r.len() != n) {
        return Err(PyValueError::new_err(format!("{n} polygons but {} radii", r.len())));
    }
    let inner = (0..n)
        .map(|i| {
            let rows = &vertices[2 * offsets[i] as usize..2 * offsets[i + 1] as usize];
            let v = rows.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
            let made = match radii.map(|r| r[i]).filter(|&r| r != 0.0) {
                Some(r) => Polygon::rounded(v, r),
                None => Polygon::new(v),
            };
            made.map_err(|e| shape_error("polygon", Some(i), e))
        })
        .collect::<PyResult<_>>()?;
    Ok(Shapes { inner })
}

/// The shapes an argument names: a `Shapes`, or a sequence of `Shape`s.
fn shape_list(shapes: &Bound<'_, PyAny>) -> PyResult<Vec<Polygon>> {
    if let Ok(s) = shapes.cast::<Shapes>() {
        return Ok(s.get().inner.clone());
    }
    let mut out = vec![];
    for (i, item) in shapes.try_iter()?.enumerate() {
        let item = item?;
        let shape = item.cast::<Shape>().map_err(|_| {
            PyValueError::new_err(format!(
                "shapes must be satgpu.Shapes or a sequence of satgpu.Shape; item {i} is not"
            ))
        })?;
        out.push(shape.get().inner.clone());
    }
    Ok(out)
}

/// A body of several convex parts (a concave outline split at the door, or parts given one by
/// one): pairs are reported between bodies, with their deepest part pair's normal and depth.
#[pyclass(frozen, module = "satgpu")]
struct Compound {
    inner: satgpu::Body,
}

#[pymethods]
impl Compound {
    /// The convex parts.
    #[getter]
    fn parts(&self) -> Shapes {
        Shapes { inner: self.inner.shapes().to_vec() }
    }

    fn __len__(&self) -> usize {
        self.inner.shapes().len()
    }

    fn __repr__(&self) -> String {
        format!("satgpu.Compound({} parts)", self.inner.shapes().len())
    }

    /// Pickled as its parts' cores and radii (Ray, multiprocessing).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        pack::reduce(py, "compound", self.inner.shapes())
    }
}

/// One body of `parts` (a `Shapes`, or a sequence of `Shape`), which may overlap.
#[pyfunction]
fn compound(parts: &Bound<'_, PyAny>) -> PyResult<Compound> {
    let parts = shape_list(parts)?;
    satgpu::Body::new(parts).map(|inner| Compound { inner }).map_err(|e| shape_error("compound", None, e))
}

/// The body whose outline is the simple polygon `vertices` (an n x 2 array or a list of
/// [x, y], either winding, concave or not, up to 8,192 vertices), split into convex parts, each
/// rounded by `radius`.
#[pyfunction]
#[pyo3(signature = (vertices, radius = 0.0))]
fn concave(vertices: Vec<[f64; 2]>, radius: f64) -> PyResult<Compound> {
    satgpu::Body::from_outline(vertices, radius)
        .map(|inner| Compound { inner })
        .map_err(|e| shape_error("outline", None, e))
}

/// The bodies an argument names when any of them is a `Compound` (a `Shape` then being a body
/// of one part), else `None`.
fn body_list(shapes: &Bound<'_, PyAny>) -> PyResult<Option<Vec<satgpu::Body>>> {
    if shapes.cast::<Shapes>().is_ok() {
        return Ok(None);
    }
    let items: Vec<Bound<'_, PyAny>> = shapes.try_iter()?.collect::<PyResult<_>>()?;
    if !items.iter().any(|i| i.cast::<Compound>().is_ok()) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if let Ok(c) = item.cast::<Compound>() {
            out.push(c.get().inner.clone());
        } else if let Ok(s) = item.cast::<Shape>() {
            out.push(s.get().inner.clone().into());
        } else {
            return Err(PyValueError::new_err(format!(
                "bodies must be satgpu.Shape or satgpu.Compound objects; item {i} is neither"
            )));
        }
    }
    Ok(Some(out))
}

/// The pairs of compound bodies as the result dict, with `parts` (n x 2 uint32).
fn compound_dict<'py>(
    py: Python<'py>,
    contacts: &[Contact],
    manifolds: Option<Vec<Manifold>>,
    parts: &[[u32; 2]],
) -> PyResult<Bound<'py, PyDict>> {
    let d = Columns { manifolds, ..Columns::of_contacts(contacts) }.into_dict(py)?;
    add_parts(py, &d, parts)?;
    Ok(d)
}

/// Each pair's deepest part pair into the result dict as `parts` (n x 2 uint32).
fn add_parts(py: Python<'_>, d: &Bound<'_, PyDict>, parts: &[[u32; 2]]) -> PyResult<()> {
    let flat: Vec<u32> = parts.iter().flatten().copied().collect();
    d.set_item("parts", PyArray1::from_vec(py, flat).reshape([parts.len(), 2])?)
}

/// Filters as Python passes them: `(category, mask, group)` arrays.
type FilterArrays<'py> = (PyReadonlyArray1<'py, u32>, PyReadonlyArray1<'py, u32>, PyReadonlyArray1<'py, i32>);

/// Filters from `(category, mask, group)` arrays (uint32, uint32, int32), one per shape or
/// body: arrays of unequal lengths are a ValueError, `n` filters of another number a
/// `FilterCountError` (never a silent default).
fn filter_list(filters: Option<FilterArrays<'_>>, n: usize) -> PyResult<Vec<Filter>> {
    let Some((category, mask, group)) = filters else { return Ok(vec![Filter::DEFAULT; n]) };
    let contiguous = |name: &str| PyValueError::new_err(format!("filters: {name} must be C-contiguous"));
    let (category, mask, group) = (
        category.as_slice().map_err(|_| contiguous("category"))?,
        mask.as_slice().map_err(|_| contiguous("mask"))?,
        group.as_slice().map_err(|_| contiguous("group"))?,
    );
    if category.len() != mask.len() || category.len() != group.len() {
        return Err(PyValueError::new_err(format!(
            "filters: category, mask and group must have one entry per shape each, got {}, {} and {}",
            category.len(),
            mask.len(),
            group.len()
        )));
    }
    if category.len() != n {
        return Err(raise(satgpu::Error::FilterCount { got: category.len(), expected: n }));
    }
    Ok((0..n).map(|i| Filter { category: category[i], mask: mask[i], group: group[i] }).collect())
}

/// A frame's pairs as columns, each filled on every core and handed to NumPy as it is (no
/// copy): `a`, `b`, `normal` (x, y per pair) and `depth`, and the manifolds when asked for.
struct Columns {
    a: Vec<u32>,
    b: Vec<u32>,
    normal: Vec<f64>,
    depth: Vec<f64>,
    manifolds: Option<Vec<Manifold>>,
}

impl Columns {
    /// The columns of `rows`, `row` giving each one's `(a, b, normal, depth)`.
    fn of<T: Sync>(rows: &[T], row: impl Fn(&T) -> (u32, u32, [f64; 2], f64) + Sync) -> Columns {
        use rayon::prelude::*;
        const CHUNK: usize = 16 * 1024;
        let n = rows.len();
        let (mut a, mut b, mut normal, mut depth) = (vec![0; n], vec![0; n], vec![0.0; 2 * n], vec![0.0; n]);
        rows.par_chunks(CHUNK)
            .zip(a.par_chunks_mut(CHUNK))
            .zip(b.par_chunks_mut(CHUNK))
            .zip(normal.par_chunks_mut(2 * CHUNK))
            .zip(depth.par_chunks_mut(CHUNK))
            .for_each(|((((rows, a), b), normal), depth)| {
                for (i, r) in rows.iter().enumerate() {
                    let (ra, rb, rn, rd) = row(r);
                    (a[i], b[i], depth[i]) = (ra, rb, rd);
                    normal[2 * i..2 * i + 2].copy_from_slice(&rn);
                }
            });
        Columns { a, b, normal, depth, manifolds: None }
    }

    /// The columns of contacts in the library's f64 records.
    fn of_contacts(contacts: &[Contact]) -> Columns {
        Columns::of(contacts, |c| (c.a, c.b, c.normal, c.depth))
    }

    /// The pairs as a dict of NumPy arrays: `a`, `b` (uint32), `normal` (n x 2), `depth`; with
    /// manifolds also `a_in_b`, `b_in_a` (bool), `points` (n x 2 x 2, NaN where a pair has one
    /// point), `point_depth` (n x 2).
    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        let n = self.a.len();
        d.set_item("a", PyArray1::from_vec(py, self.a))?;
        d.set_item("b", PyArray1::from_vec(py, self.b))?;
        d.set_item("normal", PyArray1::from_vec(py, self.normal).reshape([n, 2])?)?;
        d.set_item("depth", PyArray1::from_vec(py, self.depth))?;
        if let Some(m) = self.manifolds {
            d.set_item("a_in_b", PyArray1::from_iter(py, m.iter().map(|m| m.a_in_b)))?;
            d.set_item("b_in_a", PyArray1::from_iter(py, m.iter().map(|m| m.b_in_a)))?;
            let at = |m: &Manifold, k: usize| m.points().get(k).copied();
            let xy = m.iter().flat_map(|m| (0..2).flat_map(move |k| at(m, k).map_or([f64::NAN; 2], |p| p.point)));
            d.set_item("points", PyArray1::from_iter(py, xy).reshape([m.len(), 2, 2])?)?;
            let depth = m.iter().flat_map(|m| (0..2).map(move |k| at(m, k).map_or(f64::NAN, |p| p.depth)));
            d.set_item("point_depth", PyArray1::from_iter(py, depth).reshape([m.len(), 2])?)?;
        }
        Ok(d)
    }
}

/// Whether `contacts` asks for manifolds: "basic" or "full".
fn full(contacts: &str) -> PyResult<bool> {
    match contacts {
        "basic" => Ok(false),
        "full" => Ok(true),
        other => Err(PyValueError::new_err(format!("contacts must be \"basic\" or \"full\", got {other:?}"))),
    }
}

/// An open device: the adapter, its queue and satgpu's compiled pipelines.
#[pyclass(frozen, module = "satgpu")]
pub(crate) struct Gpu {
    pub(crate) inner: satgpu::gpu::Gpu,
}

#[pymethods]
impl Gpu {
    /// Opens the best adapter ("auto") or a software one ("software"), of those at PCI bus id
    /// `pci_bus_id` where given (one GPU of several alike); every wait on the GPU times out after
    /// `timeout` seconds; the worlds made on it may use at most `memory_limit` bytes (default:
    /// the memory available).
    #[new]
    #[pyo3(signature = (adapter = "auto", timeout = 60.0, memory_limit = None, pci_bus_id = None))]
    fn new(
        py: Python<'_>,
        adapter: &str,
        timeout: f64,
        memory_limit: Option<u64>,
        pci_bus_id: Option<String>,
    ) -> PyResult<Gpu> {
        use satgpu::gpu::{AdapterChoice, GpuOptions};
        let choice = match adapter {
            "auto" => AdapterChoice::Auto,
            "software" => AdapterChoice::Software,
            other => {
                return Err(PyValueError::new_err(format!("adapter must be \"auto\" or \"software\", got {other:?}")))
            }
        };
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(PyValueError::new_err(format!("timeout must be a positive number of seconds, got {timeout}")));
        }
        let mut options = GpuOptions::default()
            .with_adapter(choice)
            .with_timeout(std::time::Duration::try_from_secs_f64(timeout).unwrap_or(std::time::Duration::MAX));
        if let Some(bytes) = memory_limit {
            options = options.with_memory_limit(bytes);
        }
        if let Some(id) = pci_bus_id {
            options = options.with_pci_bus_id(id);
        }
        let inner = py.detach(|| satgpu::gpu::Gpu::new(&options)).map_err(raise)?;
        Ok(Gpu { inner })
    }

    /// The adapter: its name, backend and driver.
    #[getter]
    fn adapter(&self) -> String {
        self.inner.describe()
    }

    fn __repr__(&self) -> String {
        format!("satgpu.Gpu({})", self.inner.describe())
    }
}

/// Every adapter wgpu sees, best first: dicts with `name`, `backend`, `device_type`, `driver`,
/// `usable` and, when not usable, `reason`.
#[pyfunction]
fn adapters(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let reports = py.detach(satgpu::gpu::list_adapters);
    reports
        .iter()
        .map(|r| {
            let d = PyDict::new(py);
            d.set_item("name", &r.info.name)?;
            d.set_item("backend", format!("{:?}", r.info.backend))?;
            d.set_item("device_type", format!("{:?}", r.info.device_type))?;
            d.set_item("pci_bus_id", &r.info.device_pci_bus_id)?;
            d.set_item("driver", format!("{} {}", r.info.driver, r.info.driver_info).trim().to_string())?;
            d.set_item("usable", r.unsuitable.is_none())?;
            d.set_item("reason", r.unsuitable.clone())?;
            Ok(d)
        })
        .collect()
}

/// The one-shot options of `filters`, `contacts` and `margin` for `n` bodies.
fn detect_options(filters: Option<FilterArrays<'_>>, n: usize, contacts: &str, margin: f64) -> PyResult<DetectOptions> {
    let detail = if full(contacts)? { ContactDetail::Full } else { ContactDetail::Basic };
    Ok(DetectOptions::default().with_filters(filter_list(filters, n)?).with_margin(margin).with_contact_detail(detail))
}

/// A one-shot answer as a dict of arrays: the pairs, their manifolds with the full detail, and,
/// where the bodies were given as a list with a `Compound` among them, each pair's deepest part
/// pair (`parts`).
fn pairs_dict<'py>(
    py: Python<'py>,
    (contacts, manifolds, shapes): (Vec<Contact>, Vec<Manifold>, Vec<[u32; 2]>),
    options: &DetectOptions,
    compound: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let manifolds = (options.contact_detail == ContactDetail::Full).then_some(manifolds);
    if !compound {
        return Columns { manifolds, ..py.detach(|| Columns::of_contacts(&contacts)) }.into_dict(py);
    }
    // Bodies of one part each name part 0.
    let parts = if shapes.is_empty() { vec![[0, 0]; contacts.len()] } else { shapes };
    compound_dict(py, &contacts, manifolds, &parts)
}

/// Every colliding pair among `shapes` on the GPU, sorted by (a, b); the GIL is released while
/// the GPU works.
#[pyfunction]
#[pyo3(signature = (gpu, shapes, filters = None, contacts = "basic", margin = 0.0))]
fn detect<'py>(
    py: Python<'py>,
    gpu: &Gpu,
    shapes: &Bound<'py, PyAny>,
    filters: Option<FilterArrays<'_>>,
    contacts: &str,
    margin: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let g = &gpu.inner;
    let frame = |f: satgpu::gpu::Frame| (f.contacts, f.manifolds, f.shapes);
    match body_list(shapes)? {
        Some(bodies) => {
            let options = detect_options(filters, bodies.len(), contacts, margin)?;
            let found = py.detach(|| satgpu::gpu::detect(g, &bodies, &options)).map_err(raise)?;
            pairs_dict(py, frame(found), &options, true)
        }
        None => {
            let polygons = shape_list(shapes)?;
            let options = detect_options(filters, polygons.len(), contacts, margin)?;
            let found = py.detach(|| satgpu::gpu::detect(g, &polygons, &options)).map_err(raise)?;
            pairs_dict(py, frame(found), &options, false)
        }
    }
}

/// Ray hits as NumPy arrays: body (int64, -1 for none), fraction, point (n x 2) and normal
/// (n x 2), NaN where a ray meets nothing.
type HitArrays<'py> =
    (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>);

fn hit_arrays<'py>(py: Python<'py>, hits: &[Option<satgpu::RayHit>]) -> PyResult<HitArrays<'py>> {
    let n = hits.len();
    let body = PyArray1::from_iter(py, hits.iter().map(|h| h.map_or(-1, |h| i64::from(h.body))));
    let fraction = PyArray1::from_iter(py, hits.iter().map(|h| h.map_or(f64::NAN, |h| h.fraction)));
    let pairs = |f: fn(&satgpu::RayHit) -> [f64; 2]| {
        PyArray1::from_iter(py, hits.iter().flat_map(|h| h.as_ref().map_or([f64::NAN; 2], f))).reshape([n, 2])
    };
    Ok((body, fraction, pairs(|h| h.point)?, pairs(|h| h.normal)?))
}

/// Rays from n x 5 rows (x, y, dx, dy, length), each with its filter (default: sees every body),
/// each checked (`InvalidSettingError` naming the ray).
fn ray_list(rays: PyReadonlyArray2<'_, f64>, filters: Option<FilterArrays<'_>>) -> PyResult<Vec<satgpu::Ray>> {
    let shape = rays.shape();
    if shape[1] != 5 {
        let what = "rays must be n x 5 (x, y, dx, dy, length)";
        return Err(PyValueError::new_err(format!("{what}, got {} x {}", shape[0], shape[1])));
    }
    let rows: Vec<f64> = rays.as_array().iter().copied().collect();
    let filters = filter_list(filters, shape[0])?;
    let rays: Vec<satgpu::Ray> = rows
        .chunks(5)
        .zip(filters)
        .map(|(r, filter)| satgpu::Ray { filter, ..satgpu::Ray::new([r[0], r[1]], [r[2], r[3]], r[4]) })
        .collect();
    for (i, ray) in rays.iter().enumerate() {
        ray.check(i).map_err(raise)?;
    }
    Ok(rays)
}

/// Shape casts from n x 6 rows (x, y, angle, dx, dy, length) and each cast's shape (`which`, an
/// index into a list of `shapes`), each with its filter (default: sees every body), each checked
/// (`InvalidSettingError` naming the cast).
fn cast_list(
    casts: PyReadonlyArray2<'_, f64>,
    which: PyReadonlyArray1<'_, u32>,
    shapes: usize,
    filters: Option<FilterArrays<'_>>,
) -> PyResult<Vec<satgpu::ShapeCast>> {
    let shape = casts.shape();
    if shape[1] != 6 {
        let what = "casts must be n x 6 (x, y, angle, dx, dy, length)";
        return Err(PyValueError::new_err(format!("{what}, got {} x {}", shape[0], shape[1])));
    }
    let which = which.as_array();
    if which.len() != shape[0] {
        return Err(PyValueError::new_err(format!("one shape index per cast: {} for {} casts", which.len(), shape[0])));
    }
    let rows: Vec<f64> = casts.as_array().iter().copied().collect();
    let filters = filter_list(filters, shape[0])?;
    let casts: Vec<satgpu::ShapeCast> = rows
        .chunks(6)
        .zip(which.iter())
        .zip(filters)
        .map(|((r, &shape), filter)| satgpu::ShapeCast {
            shape,
            origin: [r[0], r[1]],
            angle: r[2],
            direction: [r[3], r[4]],
            max_length: r[5],
            filter,
            world: 0,
        })
        .collect();
    for (i, cast) in casts.iter().enumerate() {
        cast.check(i, shapes).map_err(raise)?;
    }
    Ok(casts)
}

/// The world each of `n` rays, casts or queries looks into (default: world 0).
fn world_list(worlds: Option<PyReadonlyArray1<'_, u32>>, n: usize, what: &str) -> PyResult<Vec<u32>> {
    let Some(worlds) = worlds else { return Ok(vec![0; n]) };
    let worlds = worlds.as_slice().map_err(|_| PyValueError::new_err("worlds must be C-contiguous"))?;
    if worlds.len() != n {
        return Err(PyValueError::new_err(format!(
            "worlds must have one entry per {what} ({n}), got {}",
            worlds.len()
        )));
    }
    Ok(worlds.to_vec())
}

/// A scene for the reference: its shapes as placed, or its compound bodies' parts (with each
/// part's body), each with its body's filter.
type FlatScene = (Vec<Polygon>, Option<Vec<u32>>, Vec<Filter>);

fn flat_scene(shapes: &Bound<'_, PyAny>, filters: Option<FilterArrays<'_>>) -> PyResult<FlatScene> {
    Ok(match body_list(shapes)? {
        Some(bodies) => {
            let filters = filter_list(filters, bodies.len())?;
            let (mut parts, mut owner, mut part_filters) = (vec![], vec![], vec![]);
            for (i, body) in bodies.iter().enumerate() {
                for part in body.shapes() {
                    parts.push(part.clone());
                    owner.push(i as u32);
                    part_filters.push(filters[i]);
                }
            }
            (parts, Some(owner), part_filters)
        }
        None => {
            let polygons = shape_list(shapes)?;
            let filters = filter_list(filters, polygons.len())?;
            (polygons, None, filters)
        }
    })
}

/// Each hit named by its part's body, where the parts have bodies.
fn by_body(mut hits: Vec<Option<satgpu::RayHit>>, owner: Option<Vec<u32>>) -> Vec<Option<satgpu::RayHit>> {
    if let Some(owner) = owner {
        for hit in hits.iter_mut().flatten() {
            hit.body = owner[hit.body as usize];
        }
    }
    hits
}

/// The nearest body each ray meets, from the f64 CPU reference (one thread): shapes as placed
/// (or compound bodies, a hit naming the body), `filters` the bodies', `ray_filters` the rays'.
#[pyfunction]
#[pyo3(signature = (shapes, rays, filters = None, ray_filters = None))]
fn reference_cast_rays<'py>(
    py: Python<'py>,
    shapes: &Bound<'py, PyAny>,
    rays: PyReadonlyArray2<'py, f64>,
    filters: Option<FilterArrays<'_>>,
    ray_filters: Option<FilterArrays<'_>>,
) -> PyResult<HitArrays<'py>> {
    let rays = ray_list(rays, ray_filters)?;
    let (parts, owner, filters) = flat_scene(shapes, filters)?;
    let hits = py.detach(|| satgpu::reference::cast_rays(&parts, &filters, &rays));
    hit_arrays(py, &by_body(hits, owner))
}

/// The first body each shape cast touches, from the f64 CPU reference (one thread): bodies as
/// `reference_cast_rays` takes them, `cast_shapes` the shapes cast (each in its own frame),
/// `casts` and `which` as `World.cast_shapes`.
#[pyfunction]
#[pyo3(signature = (shapes, cast_shapes, casts, which, filters = None, cast_filters = None))]
fn reference_cast_shapes<'py>(
    py: Python<'py>,
    shapes: &Bound<'py, PyAny>,
    cast_shapes: &Bound<'py, PyAny>,
    casts: PyReadonlyArray2<'py, f64>,
    which: PyReadonlyArray1<'py, u32>,
    filters: Option<FilterArrays<'_>>,
    cast_filters: Option<FilterArrays<'_>>,
) -> PyResult<HitArrays<'py>> {
    let cast_shapes = shape_list(cast_shapes)?;
    let casts = cast_list(casts, which, cast_shapes.len(), cast_filters)?;
    let (parts, owner, filters) = flat_scene(shapes, filters)?;
    let hits = py.detach(|| satgpu::reference::cast_shapes(&parts, &filters, &cast_shapes, &casts));
    hit_arrays(py, &by_body(hits, owner))
}

/// Every pair of bodies (`shapes`, each in its own frame; `Compound` bodies whole) that touches
/// while each moves from its `start` pose to its `end` pose (n x 3 float64: x, y, angle; linearly
/// in time), with the first moment in [0, 1], from the f64 CPU reference (one thread): (a, b as
/// uint32, toi as float64), sorted by (a, b).
#[pyfunction]
#[pyo3(signature = (shapes, start, end, filters = None))]
fn reference_sweep<'py>(
    py: Python<'py>,
    shapes: &Bound<'py, PyAny>,
    start: PyReadonlyArray2<'py, f64>,
    end: PyReadonlyArray2<'py, f64>,
    filters: Option<FilterArrays<'_>>,
) -> PyResult<ImpactArrays<'py>> {
    let bodies: Vec<satgpu::Body> = match body_list(shapes)? {
        Some(bodies) => bodies,
        None => shape_list(shapes)?.into_iter().map(satgpu::Body::from).collect(),
    };
    let n = bodies.len();
    let poses = |name: &str, a: &PyReadonlyArray2<'_, f64>| -> PyResult<Vec<satgpu::Transform>> {
        let shape = a.shape();
        if shape[0] != n || shape[1] != 3 {
            let what =
                format!("{name} must be n x 3 (x, y, angle), one row per body ({n}), got {} x {}", shape[0], shape[1]);
            return Err(PyValueError::new_err(what));
        }
        let rows: Vec<f64> = a.as_array().iter().copied().collect();
        if let Some(k) = rows.iter().position(|v| !v.is_finite()) {
            return Err(PyValueError::new_err(format!("{name}: body {} has a pose that is not finite", k / 3)));
        }
        Ok(rows.chunks(3).map(|r| satgpu::Transform { x: r[0], y: r[1], angle: r[2] }).collect())
    };
    let (start, end) = (poses("start", &start)?, poses("end", &end)?);
    let filters = match filters {
        Some(f) => filter_list(Some(f), n)?,
        None => vec![],
    };
    let found = py.detach(|| satgpu::reference::sweep(&bodies, &start, &end, &filters));
    Ok(impact_arrays(py, &found))
}

/// Each body's neighbours as NumPy arrays: offsets (n + 1, uint64), neighbour (uint32),
/// distance (float64) and normal (m x 2 float64).
type NeighbourArrays<'py> =
    (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<f64>>);

fn neighbour_arrays(py: Python<'_>, n: satgpu::neighbours::Neighbours) -> PyResult<NeighbourArrays<'_>> {
    let rows = n.neighbour.len();
    let offsets = PyArray1::from_iter(py, n.offsets.iter().map(|&o| o as u64));
    let normal = PyArray1::from_iter(py, n.normal.iter().flatten().copied()).reshape([rows, 2])?;
    Ok((offsets, PyArray1::from_vec(py, n.neighbour), PyArray1::from_vec(py, n.distance), normal))
}

/// Each body's neighbours within `radius` (the `k` nearest), on the GPU (`gpu` given) or from
/// the f64 reference; the GIL is released meanwhile.
#[pyfunction]
#[pyo3(signature = (gpu, shapes, radius, k = None, filters = None))]
fn neighbours<'py>(
    py: Python<'py>,
    gpu: Option<&Gpu>,
    shapes: &Bound<'py, PyAny>,
    radius: f64,
    k: Option<usize>,
    filters: Option<FilterArrays<'_>>,
) -> PyResult<NeighbourArrays<'py>> {
    if !(radius >= 0.0 && radius.is_finite()) {
        return Err(error_of(
            "InvalidSettingError",
            format!("invalid radius: {radius}: must be finite and at least 0"),
        ));
    }
    if k == Some(0) {
        return Err(error_of("InvalidSettingError", "invalid k: 0: must be at least 1 (None: every neighbour)".into()));
    }
    let found = match body_list(shapes)? {
        Some(bodies) => {
            let filters = filter_list(filters, bodies.len())?;
            match gpu {
                Some(g) => {
                    py.detach(|| satgpu::gpu::neighbours(&g.inner, &bodies, radius, k, &filters)).map_err(raise)?
                }
                None => py.detach(|| satgpu::reference::neighbours(&bodies, radius, k, &filters)),
            }
        }
        None => {
            let polygons = shape_list(shapes)?;
            let filters = filter_list(filters, polygons.len())?;
            match gpu {
                Some(g) => {
                    py.detach(|| satgpu::gpu::neighbours(&g.inner, &polygons, radius, k, &filters)).map_err(raise)?
                }
                None => py.detach(|| satgpu::reference::neighbours(&polygons, radius, k, &filters)),
            }
        }
    };
    neighbour_arrays(py, found)
}

/// Each of `bodies` bodies' neighbours from a frame's pairs within its margin (columns a, b,
/// normal, depth as `World.step` gives them), the `k` nearest where given.
#[pyfunction]
#[pyo3(signature = (bodies, a, b, normal, depth, k = None))]
fn neighbours_from_pairs<'py>(
    py: Python<'py>,
    bodies: usize,
    a: PyReadonlyArray1<'_, u32>,
    b: PyReadonlyArray1<'_, u32>,
    normal: PyReadonlyArray2<'_, f64>,
    depth: PyReadonlyArray1<'_, f64>,
    k: Option<usize>,
) -> PyResult<NeighbourArrays<'py>> {
    if k == Some(0) {
        return Err(error_of("InvalidSettingError", "invalid k: 0: must be at least 1 (None: every neighbour)".into()));
    }
    let contiguous = |name: &str| PyValueError::new_err(format!("{name} must be C-contiguous"));
    let (a, b) = (a.as_slice().map_err(|_| contiguous("a"))?, b.as_slice().map_err(|_| contiguous("b"))?);
    let (normal, depth) = (xy("normal", &normal)?, depth.as_slice().map_err(|_| contiguous("depth"))?);
    let n = a.len();
    if b.len() != n || normal.len() != 2 * n || depth.len() != n {
        return Err(PyValueError::new_err("a, b, normal and depth must have one row per pair"));
    }
    if let Some(i) = (0..n).find(|&i| a[i] >= b[i] || b[i] as usize >= bodies) {
        let message = format!("pair {i} ({}, {}): a pair needs a < b < bodies ({bodies})", a[i], b[i]);
        return Err(PyValueError::new_err(message));
    }
    // Refused before anything is made where the lists would not fit in the host's memory.
    let needed = satgpu::memory::neighbours(bodies as u64, n as u64);
    let what = || format!("the neighbours of {} bodies", satgpu::memory::grouped(bodies as u64));
    satgpu::memory::check(what, "host", needed, satgpu::memory::available_within(None)).map_err(raise)?;
    let contacts: Vec<Contact> = (0..n)
        .map(|i| Contact { a: a[i], b: b[i], normal: [normal[2 * i], normal[2 * i + 1]], depth: depth[i] })
        .collect();
    let found = py.detach(|| satgpu::neighbours::Neighbours::from_contacts(bodies, &contacts, k));
    neighbour_arrays(py, found)
}

/// The same pairs from the f64 CPU reference (one thread), to validate against.
#[pyfunction]
#[pyo3(signature = (shapes, filters = None, contacts = "basic", margin = 0.0))]
fn reference_detect<'py>(
    py: Python<'py>,
    shapes: &Bound<'py, PyAny>,
    filters: Option<FilterArrays<'_>>,
    contacts: &str,
    margin: f64,
) -> PyResult<Bound<'py, PyDict>> {
    // The checks a world makes of its margin, made here too: the same error for the same input.
    if !(margin >= 0.0 && margin.is_finite()) {
        let message = format!("invalid margin: {margin}: must be finite and at least 0");
        return Err(error_of("InvalidSettingError", message));
    }
    let found = |f: satgpu::reference::Detection| (f.contacts, f.manifolds, f.shapes);
    match body_list(shapes)? {
        Some(bodies) => {
            let options = detect_options(filters, bodies.len(), contacts, margin)?;
            let answer = py.detach(|| satgpu::reference::detect(&bodies, &options));
            pairs_dict(py, found(answer), &options, true)
        }
        None => {
            let polygons = shape_list(shapes)?;
            let options = detect_options(filters, polygons.len(), contacts, margin)?;
            let answer = py.detach(|| satgpu::reference::detect(&polygons, &options));
            pairs_dict(py, found(answer), &options, false)
        }
    }
}

/// Whether `got` agrees with the reference pairs `want` on `shapes` under satgpu's numerics
/// contract; returns the number of disagreements.
#[pyfunction]
#[pyo3(signature = (shapes, got, want, margin = 0.0))]
fn disagreements(
    shapes: &Bound<'_, PyAny>,
    got: &Bound<'_, PyDict>,
    want: &Bound<'_, PyDict>,
    margin: f64,
) -> PyResult<usize> {
    // A margin the reference would refuse compares colliding pairs, as before.
    let margin = if margin > 0.0 && margin.is_finite() { margin } else { 0.0 };
    let options = DetectOptions::default().with_margin(margin);
    fn judge<B: AsRef<[Polygon]>>(
        bodies: &[B],
        got: &Bound<'_, PyDict>,
        want: &Bound<'_, PyDict>,
        options: &DetectOptions,
    ) -> PyResult<usize> {
        let (got, want) = (contact_list(got, "got", bodies.len())?, contact_list(want, "want", bodies.len())?);
        Ok(satgpu::validate::compare(bodies, &got, &want, options).disagreements.len())
    }
    match body_list(shapes)? {
        Some(bodies) => judge(&bodies, got, want, &options),
        None => judge(&shape_list(shapes)?, got, want, &options),
    }
}

/// Contacts back from the result dict `name` among `bodies` bodies, or a ValueError naming what
/// does not fit (arrays of different lengths, a body past the last).
fn contact_list(d: &Bound<'_, PyDict>, name: &str, bodies: usize) -> PyResult<Vec<Contact>> {
    let get = |k: &str| d.get_item(k)?.ok_or_else(|| PyValueError::new_err(format!("{name} has no {k:?}")));
    let a: Vec<u32> = get("a")?.extract::<PyReadonlyArray1<'_, u32>>()?.as_array().to_vec();
    let b: Vec<u32> = get("b")?.extract::<PyReadonlyArray1<'_, u32>>()?.as_array().to_vec();
    let normal = get("normal")?.extract::<PyReadonlyArray2<'_, f64>>()?;
    let depth: Vec<f64> = get("depth")?.extract::<PyReadonlyArray1<'_, f64>>()?.as_array().to_vec();
    let normal = normal.as_array();
    let n = a.len();
    if b.len() != n || depth.len() != n || normal.shape() != [n, 2] {
        let shapes = format!("a {n}, b {}, normal {:?}, depth {}", b.len(), normal.shape(), depth.len());
        return Err(PyValueError::new_err(format!(
            "{name}: a, b and depth must be n long and normal n x 2; got {shapes}"
        )));
    }
    if let Some(i) = (0..n).find(|&i| a[i] as usize >= bodies || b[i] as usize >= bodies) {
        let detail = format!("{name}: pair {i} ({}, {}) names a body past the last of {bodies}", a[i], b[i]);
        return Err(PyValueError::new_err(detail));
    }
    Ok((0..n)
        .map(|i| Contact { a: a[i], b: b[i], normal: [normal[[i, 0]], normal[[i, 1]]], depth: depth[i] })
        .collect())
}

/// `xy` (n x 2) and `angle` (n) as C-contiguous slices, or a ValueError naming the argument.
fn pose_slices<'a, T: numpy::Element + bytemuck::Pod>(
    xy: &'a PyReadonlyArray2<'_, T>,
    angle: &'a PyReadonlyArray1<'_, T>,
) -> PyResult<(&'a [[T; 2]], &'a [T])> {
    if xy.shape()[1] != 2 {
        return Err(PyValueError::new_err(format!("xy must be an n x 2 array, got shape {:?}", xy.shape())));
    }
    let contiguous = |name: &str| PyValueError::new_err(format!("{name} must be C-contiguous"));
    let (xy, angle) =
        (xy.as_slice().map_err(|_| contiguous("xy"))?, angle.as_slice().map_err(|_| contiguous("angle"))?);
    if xy.len() != 2 * angle.len() {
        return Err(PyValueError::new_err(format!("xy has {} rows but angle {} entries", xy.len() / 2, angle.len())));
    }
    Ok((bytemuck::cast_slice(xy), angle))
}

/// Places every body from `xy` and `angle` (float64 or float32 arrays of one dtype), read where
/// they lie: no copy is made. The GIL stays held, so that no Python thread writes the arrays
/// while they are read (on every core).
fn set_poses(world: &mut satgpu::gpu::World, xy: &Bound<'_, PyAny>, angle: &Bound<'_, PyAny>) -> PyResult<()> {
    use satgpu::gpu::PoseArrays;
    if let (Ok(p), Ok(a)) = (xy.extract::<PyReadonlyArray2<'_, f64>>(), angle.extract::<PyReadonlyArray1<'_, f64>>()) {
        let (xy, angle) = pose_slices(&p, &a)?;
        return world.set_pose_arrays(PoseArrays { xy, angle }).map_err(raise);
    }
    if let (Ok(p), Ok(a)) = (xy.extract::<PyReadonlyArray2<'_, f32>>(), angle.extract::<PyReadonlyArray1<'_, f32>>()) {
        let (xy, angle) = pose_slices(&p, &a)?;
        return world.set_pose_arrays(PoseArrays { xy, angle }).map_err(raise);
    }
    Err(PyValueError::new_err("xy and angle must be NumPy arrays of one dtype, float64 or float32: xy n x 2, angle n"))
}

/// A persistent world: shapes uploaded once, bodies placed by transforms every frame.
#[pyclass(module = "satgpu")]
struct World {
    inner: std::sync::Mutex<satgpu::gpu::World>,
    bodies: usize,
    /// Frames compute manifolds (`contacts="full"`).
    full: bool,
    /// The shapes were given as a list with a `Compound` among them: pairs name their parts.
    compound: bool,
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

#[pymethods]
impl World {
    /// `shapes` (a `Shapes`, or a sequence of `Shape` and `Compound`), each placed relative to
    /// the origin, and `body_shapes` (n uint32: the shape of each body); with compounds, pairs
    /// are between bodies and each has its deepest part pair in `parts`. `order`: where the pairs are sorted by
    /// (a, b), "auto", "gpu" or "host"; `contacts`: "basic" or "full".
    #[new]
    #[pyo3(signature = (gpu, shapes, body_shapes, order = "auto", contacts = "basic", margin = 0.0, events = false, continuous = false))]
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
    ) -> PyResult<World> {
        use satgpu::gpu::{ContactDetail, ContactOrder, WorldOptions};
        let bodies = body_list(shapes)?;
        let shapes = if bodies.is_some() { vec![] } else { shape_list(shapes)? };
        let body_shapes =
            body_shapes.as_slice().map_err(|_| PyValueError::new_err("body_shapes must be C-contiguous"))?;
        let order = match order {
            "auto" => ContactOrder::Auto,
            "gpu" => ContactOrder::Gpu,
            "host" => ContactOrder::Host,
            other => {
                return Err(PyValueError::new_err(format!(
                    "order must be \"auto\", \"gpu\" or \"host\", got {other:?}"
                )))
            }
        };
        let full = full(contacts)?;
        let detail = if full { ContactDetail::Full } else { ContactDetail::Basic };
        let options = WorldOptions::default()
            .with_order(order)
            .with_contact_detail(detail)
            .with_margin(margin)
            .with_events(events)
            .with_continuous(continuous);
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
        set_poses(&mut *self.lock(py)?, xy, angle)
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

/// Impacts as NumPy arrays: a, b (uint32) and toi (float64).
type ImpactArrays<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<f64>>);

fn impact_arrays<'py>(py: Python<'py>, found: &[satgpu::Impact]) -> ImpactArrays<'py> {
    (
        PyArray1::from_iter(py, found.iter().map(|i| i.a)),
        PyArray1::from_iter(py, found.iter().map(|i| i.b)),
        PyArray1::from_iter(py, found.iter().map(|i| i.toi)),
    )
}

/// A frame's figures as a dict.
fn stats_dict<'py>(py: Python<'py>, frame: &satgpu::gpu::FrameStats) -> PyResult<Bound<'py, PyDict>> {
    let stats = PyDict::new(py);
    stats.set_item("entries", frame.entries)?;
    stats.set_item("candidates", frame.candidates)?;
    stats.set_item("colliding", frame.colliding)?;
    stats.set_item("frame_ms", frame.frame_ms)?;
    stats.set_item("reruns", frame.reruns)?;
    stats.set_item("batches", frame.batches)?;
    Ok(stats)
}

/// The shapes of a scene file and, when any has a collision filter, the `(category, mask,
/// group)` arrays (else `None`); every shape is validated, errors name the file and the shape.
#[pyfunction]
fn read_scene(
    py: Python<'_>,
    path: std::path::PathBuf,
) -> PyResult<(Bound<'_, PyAny>, Option<Bound<'_, pyo3::types::PyTuple>>)> {
    let scene = py.detach(|| satgpu::scene::read_scene(&path)).map_err(raise)?;

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
    let shapes = if scene.is_compound() {
        let bodies: Vec<Compound> = scene.compounds.into_iter().map(|inner| Compound { inner }).collect();
        pyo3::types::PyList::new(py, bodies)?.into_any()
    } else {
        Bound::new(py, Shapes { inner: scene.polygons })?.into_any()
    };
    Ok((shapes, filters))
}

/// Writes `shapes` (and their filters, where not the default) as a scene file, whole or not at
/// all.
#[pyfunction]
#[pyo3(signature = (path, shapes, filters = None))]
fn write_scene(
    py: Python<'_>,
    path: std::path::PathBuf,
    shapes: &Bound<'_, PyAny>,
    filters: Option<FilterArrays<'_>>,
) -> PyResult<()> {
    let polygons = shape_list(shapes)?;
    let filters = match filters {
        Some(f) => filter_list(Some(f), polygons.len())?,
        None => vec![],
    };
    let scene = satgpu::scene::Scene { polygons, filters, compounds: vec![] };
    py.detach(|| satgpu::scene::write_scene(&path, &scene)).map_err(raise)
}

/// The names of the built-in scene kinds, as `generate` takes them (the compound ones last).
#[pyfunction]
fn scene_kinds() -> Vec<&'static str> {
    satgpu::scene::SceneKind::ALL.iter().chain(&satgpu::scene::SceneKind::COMPOUND).map(|k| k.name()).collect()
}

/// `n` shapes of a built-in scene kind (as `satgpu gen` writes them), the same for the same
/// seed on every machine: a `Shapes`, or for a compound kind ("rooms") a list of `Compound`s.
#[pyfunction]
#[pyo3(signature = (kind, n, seed = 1))]
fn generate<'py>(py: Python<'py>, kind: &str, n: usize, seed: u64) -> PyResult<Bound<'py, PyAny>> {
    use satgpu::memory::{self, SceneSize, Work};
    let kind: satgpu::scene::SceneKind = kind.parse().map_err(PyValueError::new_err)?;
    // Refused before anything is made where the shapes would not fit in the host's memory (the
    // text's share of the CLI's estimate stands for the arrays the shapes are packed into).
    let needed = memory::estimate(SceneSize::generated(kind, n, seed), Work::GENERATE).host;
    let what = || format!("{} {kind} shapes", memory::grouped(n as u64));
    memory::check(what, "host", needed, memory::available_within(None)).map_err(raise)?;
    if kind.is_compound() {
        let bodies = py.detach(|| satgpu::scene::generate_bodies(kind, n, seed));
        let bodies: Vec<Compound> = bodies.into_iter().map(|inner| Compound { inner }).collect();
        return Ok(pyo3::types::PyList::new(py, bodies)?.into_any());
    }
    let inner = py.detach(|| satgpu::scene::generate(kind, n, seed));
    Ok(Bound::new(py, Shapes { inner })?.into_any())
}

#[pymodule]
fn _satgpu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Gpu>()?;
    m.add_class::<Shape>()?;
    m.add_class::<Shapes>()?;
    m.add_class::<World>()?;
    m.add_class::<Compound>()?;
    m.add_class::<crowd::Crowd>()?;
    m.add("MAX_WORLDS", satgpu::gpu::MAX_WORLDS)?;
    for f in [
        wrap_pyfunction!(adapters, m)?,
        wrap_pyfunction!(polygon, m)?,
        wrap_pyfunction!(circle, m)?,
        wrap_pyfunction!(capsule, m)?,
        wrap_pyfunction!(segment, m)?,
        wrap_pyfunction!(chain, m)?,
        wrap_pyfunction!(walls, m)?,
        wrap_pyfunction!(neighbours, m)?,
        wrap_pyfunction!(neighbours_from_pairs, m)?,
        wrap_pyfunction!(wkt_polygon, m)?,
        wrap_pyfunction!(circles, m)?,
        wrap_pyfunction!(polygons, m)?,
        wrap_pyfunction!(compound, m)?,
        wrap_pyfunction!(concave, m)?,
        wrap_pyfunction!(detect, m)?,
        wrap_pyfunction!(reference_detect, m)?,
        wrap_pyfunction!(reference_cast_rays, m)?,
        wrap_pyfunction!(reference_cast_shapes, m)?,
        wrap_pyfunction!(reference_sweep, m)?,
        wrap_pyfunction!(disagreements, m)?,
        wrap_pyfunction!(read_scene, m)?,
        wrap_pyfunction!(write_scene, m)?,
        wrap_pyfunction!(scene_kinds, m)?,
        wrap_pyfunction!(generate, m)?,
        wrap_pyfunction!(pack::shape_bounds, m)?,
        wrap_pyfunction!(pack::_from_cores, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
