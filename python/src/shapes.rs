//! Shapes: `Shape`, `Shapes` (many in one array) and `Compound` (a body of several), built one by one
//! or in bulk from NumPy arrays, and the shape lists every call takes.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use satgpu::{Contact, Manifold, Polygon};

use crate::arrays::Columns;
use crate::errors::{error_of, raise};

/// A shape: a convex polygon, optionally rounded, a circle or a capsule.
#[pyclass(frozen, module = "satgpu")]
pub(crate) struct Shape {
    pub(crate) inner: Polygon,
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
        crate::pack::reduce(py, "shape", std::slice::from_ref(&self.inner))
    }
}

/// Many shapes held in Rust, made in bulk from arrays: a million shapes are not a million
/// Python objects.
#[pyclass(frozen, module = "satgpu")]
pub(crate) struct Shapes {
    pub(crate) inner: Vec<Polygon>,
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
        crate::pack::reduce(py, "shapes", &self.inner)
    }
}

/// An n x 2 float64 array of points.
pub(crate) fn points<'py>(py: Python<'py>, p: &[[f64; 2]]) -> Bound<'py, PyArray2<f64>> {
    PyArray1::from_iter(py, p.iter().flatten().copied()).reshape([p.len(), 2]).expect("n x 2 elements")
}

/// A point `[x, y]` from a sequence of two numbers.
pub(crate) fn point(name: &str, p: Vec<f64>) -> PyResult<[f64; 2]> {
    match p[..] {
        [x, y] => Ok([x, y]),
        _ => Err(PyValueError::new_err(format!("{name} must be two numbers [x, y], got {}", p.len()))),
    }
}

/// `array` as a contiguous n x 2 float64 array (its values, row by row), or a ValueError naming
/// `name`.
pub(crate) fn xy<'a>(name: &str, array: &'a PyReadonlyArray2<'_, f64>) -> PyResult<&'a [f64]> {
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
pub(crate) fn shape_error(what: &str, index: Option<usize>, e: satgpu::geometry::PolygonError) -> PyErr {
    match index {
        Some(i) => error_of("InvalidPolygonError", format!("{what} {i}: {e}")),
        None => error_of("InvalidPolygonError", format!("{what}: {e}")),
    }
}

/// A convex polygon from its vertices (an n x 2 array or a list of [x, y]), either winding,
/// rounded by `radius` when it is positive.
#[pyfunction]
#[pyo3(signature = (vertices, radius = 0.0))]
pub(crate) fn polygon(vertices: Vec<[f64; 2]>, radius: f64) -> PyResult<Shape> {
    let made = if radius == 0.0 { Polygon::new(vertices) } else { Polygon::rounded(vertices, radius) };
    made.map(|inner| Shape { inner }).map_err(|e| shape_error("polygon", None, e))
}

/// A circle of radius `r` around `center`.
#[pyfunction]
pub(crate) fn circle(center: Vec<f64>, r: f64) -> PyResult<Shape> {
    Polygon::circle(point("center", center)?, r)
        .map(|inner| Shape { inner })
        .map_err(|e| shape_error("circle", None, e))
}

/// A capsule: the segment from `a` to `b`, rounded by `r`.
#[pyfunction]
pub(crate) fn capsule(a: Vec<f64>, b: Vec<f64>, r: f64) -> PyResult<Shape> {
    Polygon::capsule(point("a", a)?, point("b", b)?, r)
        .map(|inner| Shape { inner })
        .map_err(|e| shape_error("capsule", None, e))
}

/// A segment from `a` to `b` grown by `r >= 0`: `r = 0` is the line segment itself (a wall with
/// no thickness), above 0 a capsule.
#[pyfunction]
#[pyo3(signature = (a, b, r = 0.0))]
pub(crate) fn segment(a: Vec<f64>, b: Vec<f64>, r: f64) -> PyResult<Shape> {
    Polygon::segment(point("a", a)?, point("b", b)?, r)
        .map(|inner| Shape { inner })
        .map_err(|e| shape_error("segment", None, e))
}

/// A chain: the polyline through `points` (a list of [x, y] or an n x 2 array), open or with
/// `loop=True` closed, grown by `radius >= 0`: one body (a `Compound`) of segments.
#[pyfunction]
#[pyo3(signature = (points, r#loop = false, radius = 0.0))]
pub(crate) fn chain(points: Vec<[f64; 2]>, r#loop: bool, radius: f64) -> PyResult<Compound> {
    satgpu::Body::chain(&points, r#loop, radius).map(Compound::new).map_err(|e| shape_error("chain", None, e))
}

/// The walls of a walkable area: one closed chain per ring, the exterior's first, then each
/// hole's (`satgpu.walls` in Python takes arrays, a shapely Polygon or WKT and calls this).
#[pyfunction]
#[pyo3(signature = (exterior, holes, radius = 0.0))]
pub(crate) fn walls(exterior: Vec<[f64; 2]>, holes: Vec<Vec<[f64; 2]>>, radius: f64) -> PyResult<Vec<Compound>> {
    let bodies = satgpu::Body::walls(&exterior, &holes, radius).map_err(|e| shape_error("walls", None, e))?;
    Ok(bodies.into_iter().map(Compound::new).collect())
}

/// A ring: its points.
pub(crate) type Ring = Vec<[f64; 2]>;

/// The rings of one WKT `POLYGON`: (exterior, holes), each ring a list of [x, y].
#[pyfunction]
pub(crate) fn wkt_polygon(text: &str) -> PyResult<(Ring, Vec<Ring>)> {
    let area = satgpu::scene::parse_wkt_polygon(text).map_err(raise)?;
    Ok((area.exterior, area.holes))
}

/// Circles in bulk: `centers` (n x 2) and `radii` (n), float64.
#[pyfunction]
pub(crate) fn circles(centers: PyReadonlyArray2<'_, f64>, radii: PyReadonlyArray1<'_, f64>) -> PyResult<Shapes> {
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
pub(crate) fn polygons(
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
pub(crate) fn shape_list(shapes: &Bound<'_, PyAny>) -> PyResult<Vec<Polygon>> {
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
pub(crate) struct Compound {
    pub(crate) inner: satgpu::Body,
    /// `parts`, made at the first read and the same object at every read after it.
    parts: std::sync::OnceLock<Py<Shapes>>,
}

impl Compound {
    pub(crate) fn new(inner: satgpu::Body) -> Compound {
        Compound { inner, parts: std::sync::OnceLock::new() }
    }
}

#[pymethods]
impl Compound {
    /// The convex parts: one `Shapes`, made at the first read (a copy of the parts) and the same
    /// object after it, so that reading `parts[i]` in a loop costs no copy of them all.
    #[getter]
    fn parts(&self, py: Python<'_>) -> PyResult<Py<Shapes>> {
        if let Some(parts) = self.parts.get() {
            return Ok(parts.clone_ref(py));
        }
        let made = Py::new(py, Shapes { inner: self.inner.shapes().to_vec() })?;
        Ok(self.parts.get_or_init(|| made).clone_ref(py))
    }

    fn __len__(&self) -> usize {
        self.inner.shapes().len()
    }

    fn __repr__(&self) -> String {
        format!("satgpu.Compound({} parts)", self.inner.shapes().len())
    }

    /// Pickled as its parts' cores and radii (Ray, multiprocessing).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        crate::pack::reduce(py, "compound", self.inner.shapes())
    }
}

/// One body of `parts` (a `Shapes`, or a sequence of `Shape`), which may overlap.
#[pyfunction]
pub(crate) fn compound(parts: &Bound<'_, PyAny>) -> PyResult<Compound> {
    let parts = shape_list(parts)?;
    satgpu::Body::new(parts).map(Compound::new).map_err(|e| shape_error("compound", None, e))
}

/// The body whose outline is the simple polygon `vertices` (an n x 2 array or a list of
/// [x, y], either winding, concave or not, up to 8,192 vertices), split into convex parts, each
/// rounded by `radius`.
#[pyfunction]
#[pyo3(signature = (vertices, radius = 0.0))]
pub(crate) fn concave(vertices: Vec<[f64; 2]>, radius: f64) -> PyResult<Compound> {
    satgpu::Body::from_outline(vertices, radius).map(Compound::new).map_err(|e| shape_error("outline", None, e))
}

/// The bodies an argument names when any of them is a `Compound` (a `Shape` then being a body
/// of one part), else `None`.
pub(crate) fn body_list(shapes: &Bound<'_, PyAny>) -> PyResult<Option<Vec<satgpu::Body>>> {
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
pub(crate) fn compound_dict<'py>(
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
pub(crate) fn add_parts(py: Python<'_>, d: &Bound<'_, PyDict>, parts: &[[u32; 2]]) -> PyResult<()> {
    let flat: Vec<u32> = parts.iter().flatten().copied().collect();
    d.set_item("parts", PyArray1::from_vec(py, flat).reshape([parts.len(), 2])?)
}
