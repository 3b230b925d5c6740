//! Shapes as flat arrays and back: what pickling (and so Ray, multiprocessing) sends of a
//! `Shape`, `Shapes` or `Compound`, and the bounds the tiles of `satgpu.ray.TiledWorld` are
//! decided from.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use satgpu::Polygon;

use crate::{body_list, shape_error, shape_list, xy, Compound, Shape, Shapes};

/// Every core as rows of one m x 2 array, shape i being rows `offsets[i]..offsets[i + 1]`, with
/// its radius: `Polygon::from_core` rebuilds each bit for bit.
fn cores<'py>(py: Python<'py>, shapes: &[Polygon]) -> Bound<'py, PyTuple> {
    let m: usize = shapes.iter().map(|s| s.vertices().len()).sum();
    let vertices = PyArray1::from_iter(py, shapes.iter().flat_map(|s| s.vertices().iter().flatten().copied()))
        .reshape([m, 2])
        .expect("m x 2 elements");
    let mut end = 0u64;
    let offsets = std::iter::once(0).chain(shapes.iter().map(|s| {
        end += s.vertices().len() as u64;
        end
    }));
    let offsets = PyArray1::from_iter(py, offsets);
    let radii = PyArray1::from_iter(py, shapes.iter().map(Polygon::radius));
    PyTuple::new(py, [vertices.into_any(), offsets.into_any(), radii.into_any()]).expect("a tuple of three")
}

/// The shapes `cores` wrote.
fn from_cores(
    vertices: PyReadonlyArray2<'_, f64>,
    offsets: PyReadonlyArray1<'_, u64>,
    radii: PyReadonlyArray1<'_, f64>,
) -> PyResult<Vec<Polygon>> {
    let vertices = xy("vertices", &vertices)?;
    let offsets = offsets.as_slice().map_err(|_| PyValueError::new_err("offsets must be C-contiguous"))?;
    let radii = radii.as_slice().map_err(|_| PyValueError::new_err("radii must be C-contiguous"))?;
    let rows = vertices.len() as u64 / 2;
    let fits = offsets.len() == radii.len() + 1
        && offsets.first() == Some(&0)
        && offsets.last() == Some(&rows)
        && offsets.windows(2).all(|w| w[0] < w[1]);
    if !fits {
        return Err(PyValueError::new_err("cores: offsets must rise from 0 to the rows of vertices, one radius each"));
    }
    (0..radii.len())
        .map(|i| {
            let rows = &vertices[2 * offsets[i] as usize..2 * offsets[i + 1] as usize];
            let core = rows.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
            Polygon::from_core(core, radii[i]).map_err(|e| shape_error("shape", Some(i), e))
        })
        .collect()
}

/// `(rebuild, args)` for `__reduce__`: `_from_cores(what, cores)`.
pub(crate) fn reduce<'py>(py: Python<'py>, what: &str, shapes: &[Polygon]) -> PyResult<Bound<'py, PyTuple>> {
    let rebuild = py.import("satgpu._satgpu")?.getattr("_from_cores")?;
    let mut args = vec![what.into_pyobject(py)?.into_any()];
    args.extend(cores(py, shapes).iter());
    PyTuple::new(py, [rebuild, PyTuple::new(py, args)?.into_any()])
}

/// What `reduce` wrote, rebuilt: a `Shape` ("shape"), a `Shapes` ("shapes") or a `Compound`
/// ("compound"). A chain has more parts than a body given part by part may
/// (`satgpu::MAX_PARTS`): segments of one radius, each starting where the last ended, are
/// rebuilt as the chain they are.
#[pyfunction]
pub(crate) fn _from_cores<'py>(
    py: Python<'py>,
    what: &str,
    vertices: PyReadonlyArray2<'_, f64>,
    offsets: PyReadonlyArray1<'_, u64>,
    radii: PyReadonlyArray1<'_, f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let parts = from_cores(vertices, offsets, radii)?;
    match what {
        "shapes" => return Ok(Bound::new(py, Shapes { inner: parts })?.into_any()),
        "shape" => {
            return match <[Polygon; 1]>::try_from(parts) {
                Ok([inner]) => Ok(Bound::new(py, Shape { inner })?.into_any()),
                Err(_) => Err(PyValueError::new_err("a Shape's cores hold one shape")),
            }
        }
        "compound" => {}
        other => return Err(PyValueError::new_err(format!("cores of a {other:?}: no such kind"))),
    }
    let inner = if parts.len() <= satgpu::geometry::MAX_PARTS {
        satgpu::Body::new(parts)
    } else {
        let chained = parts.windows(2).all(|w| {
            let (a, b) = (w[0].vertices(), w[1].vertices());
            a.len() == 2 && b.len() == 2 && a[1] == b[0] && w[0].radius() == w[1].radius()
        });
        if !chained {
            return Err(PyValueError::new_err(format!(
                "a compound of {} parts that is no chain (at most {} parts)",
                parts.len(),
                satgpu::geometry::MAX_PARTS
            )));
        }
        let mut points: Vec<[f64; 2]> = parts.iter().map(|p| p.vertices()[0]).collect();
        let last = parts[parts.len() - 1].vertices()[1];
        let closed = last == points[0];
        if !closed {
            points.push(last);
        }
        satgpu::Body::chain(&points, closed, parts[0].radius())
    };
    let body = inner.map_err(|e| shape_error("compound", None, e))?;
    Ok(Bound::new(py, Compound::new(body))?.into_any())
}

/// The circle around each body in its own frame (n x 3 float64: centre x, y, radius): centred
/// on its box, holding every part's core grown by its radius. A body turned by `angle` and moved
/// by `xy` lies within the circle of centre `xy + R(angle) c` and the same radius.
#[pyfunction]
pub(crate) fn shape_bounds<'py>(py: Python<'py>, shapes: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let bodies: Vec<Vec<Polygon>> = match body_list(shapes)? {
        Some(bodies) => bodies.into_iter().map(satgpu::Body::into_shapes).collect(),
        None => shape_list(shapes)?.into_iter().map(|s| vec![s]).collect(),
    };
    let circle = |parts: &Vec<Polygon>| {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for v in parts.iter().flat_map(|p| p.vertices()) {
            for k in 0..2 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
        }
        let c = [0.5 * lo[0] + 0.5 * hi[0], 0.5 * lo[1] + 0.5 * hi[1]];
        let r = parts
            .iter()
            .flat_map(|p| p.vertices().iter().map(move |v| (v[0] - c[0]).hypot(v[1] - c[1]) + p.radius()))
            .fold(0.0, f64::max);
        [c[0], c[1], r]
    };
    let rows: Vec<[f64; 3]> = bodies.iter().map(circle).collect();
    Ok(PyArray1::from_iter(py, rows.iter().flatten().copied()).reshape([rows.len(), 3]).expect("n x 3 elements"))
}
