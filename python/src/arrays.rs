//! NumPy in and out: filters, rays, casts, worlds and poses read from arrays; pairs, hits,
//! neighbours, impacts and a frame's figures written as arrays and dicts.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use satgpu::{Contact, ContactDetail, DetectOptions, Filter, Manifold, Polygon};

use crate::errors::raise;
use crate::shapes::{body_list, compound_dict, shape_list};

/// Filters as Python passes them: `(category, mask, group)` arrays.
pub(crate) type FilterArrays<'py> =
    (PyReadonlyArray1<'py, u32>, PyReadonlyArray1<'py, u32>, PyReadonlyArray1<'py, i32>);

/// Filters from `(category, mask, group)` arrays (uint32, uint32, int32), one per shape or
/// body: arrays of unequal lengths are a ValueError, `n` filters of another number a
/// `FilterCountError` (never a silent default).
pub(crate) fn filter_list(filters: Option<FilterArrays<'_>>, n: usize) -> PyResult<Vec<Filter>> {
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
pub(crate) struct Columns {
    pub(crate) a: Vec<u32>,
    pub(crate) b: Vec<u32>,
    pub(crate) normal: Vec<f64>,
    pub(crate) depth: Vec<f64>,
    pub(crate) manifolds: Option<Vec<Manifold>>,
}

impl Columns {
    /// The columns of `rows`, `row` giving each one's `(a, b, normal, depth)`.
    pub(crate) fn of<T: Sync>(rows: &[T], row: impl Fn(&T) -> (u32, u32, [f64; 2], f64) + Sync) -> Columns {
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
    pub(crate) fn of_contacts(contacts: &[Contact]) -> Columns {
        Columns::of(contacts, |c| (c.a, c.b, c.normal, c.depth))
    }

    /// The pairs as a dict of NumPy arrays: `a`, `b` (uint32), `normal` (n x 2), `depth`; with
    /// manifolds also `a_in_b`, `b_in_a` (bool), `points` (n x 2 x 2, NaN where a pair has one
    /// point), `point_depth` (n x 2).
    pub(crate) fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
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

/// The one-shot options of `filters`, `contacts` and `margin` for `n` bodies.
pub(crate) fn detect_options(
    filters: Option<FilterArrays<'_>>,
    n: usize,
    contacts: &str,
    margin: f64,
    periodic: Option<PeriodicArg<'_>>,
) -> PyResult<DetectOptions> {
    let detail: ContactDetail = contacts.parse().map_err(PyValueError::new_err)?;
    let mut options =
        DetectOptions::default().with_filters(filter_list(filters, n)?).with_margin(margin).with_contact_detail(detail);
    options.world.periodic = periodic_box(periodic)?;
    Ok(options)
}

/// A periodic box as Python gives it: `(x0, y0, x1, y1)` and the axes' word.
pub(crate) type PeriodicArg<'a> = ((f64, f64, f64, f64), &'a str);

/// The box of `periodic=`, `periodic_axes=` (none without one): a bad word is a `ValueError`, a
/// bad box an `InvalidSettingError`.
pub(crate) fn periodic_box(periodic: Option<PeriodicArg<'_>>) -> PyResult<Option<satgpu::Periodic>> {
    let Some(((x0, y0, x1, y1), axes)) = periodic else { return Ok(None) };
    let axes: satgpu::PeriodicAxes = axes.parse().map_err(PyValueError::new_err)?;
    satgpu::Periodic::new([x0, y0, x1, y1], axes.wraps()).map(Some).map_err(crate::errors::raise)
}

/// Whether every body fits `options`' periodic box, as a World checks it (the reference only
/// judges what fits): an `InvalidSettingError` naming the first that does not.
pub(crate) fn check_fits<B: AsRef<[satgpu::Polygon]>>(bodies: &[B], options: &DetectOptions) -> PyResult<()> {
    let Some(p) = &options.world.periodic else { return Ok(()) };
    let boxes = bodies.iter().map(|b| {
        let boxes = b.as_ref().iter().map(satgpu::Polygon::aabb);
        boxes.reduce(|a, c| a.union(&c)).unwrap_or(satgpu::Aabb { min: [0.0; 2], max: [0.0; 2] })
    });
    p.check_boxes(boxes, options.world.margin).map_err(crate::errors::raise)
}

/// A one-shot answer as a dict of arrays: the pairs, their manifolds with the full detail, and,
/// where the bodies were given as a list with a `Compound` among them, each pair's deepest part
/// pair (`parts`).
pub(crate) fn pairs_dict<'py>(
    py: Python<'py>,
    (contacts, manifolds, shapes): (Vec<Contact>, Vec<Manifold>, Vec<[u32; 2]>),
    options: &DetectOptions,
    compound: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let manifolds = (options.world.contact_detail == ContactDetail::Full).then_some(manifolds);
    if !compound {
        return Columns { manifolds, ..py.detach(|| Columns::of_contacts(&contacts)) }.into_dict(py);
    }
    // Bodies of one part each name part 0.
    let parts = if shapes.is_empty() { vec![[0, 0]; contacts.len()] } else { shapes };
    compound_dict(py, &contacts, manifolds, &parts)
}

/// Ray hits as NumPy arrays: body (int64, -1 for none), fraction, point (n x 2) and normal
/// (n x 2), NaN where a ray meets nothing.
pub(crate) type HitArrays<'py> =
    (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>);

pub(crate) fn hit_arrays<'py>(py: Python<'py>, hits: &[Option<satgpu::RayHit>]) -> PyResult<HitArrays<'py>> {
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
pub(crate) fn ray_list(
    rays: PyReadonlyArray2<'_, f64>,
    filters: Option<FilterArrays<'_>>,
) -> PyResult<Vec<satgpu::Ray>> {
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
pub(crate) fn cast_list(
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
pub(crate) fn world_list(worlds: Option<PyReadonlyArray1<'_, u32>>, n: usize, what: &str) -> PyResult<Vec<u32>> {
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
pub(crate) type FlatScene = (Vec<Polygon>, Option<Vec<u32>>, Vec<Filter>);

pub(crate) fn flat_scene(shapes: &Bound<'_, PyAny>, filters: Option<FilterArrays<'_>>) -> PyResult<FlatScene> {
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
pub(crate) fn by_body(mut hits: Vec<Option<satgpu::RayHit>>, owner: Option<Vec<u32>>) -> Vec<Option<satgpu::RayHit>> {
    if let Some(owner) = owner {
        for hit in hits.iter_mut().flatten() {
            hit.body = owner[hit.body as usize];
        }
    }
    hits
}

/// Each body's neighbours as NumPy arrays: offsets (n + 1, uint64), neighbour (uint32),
/// distance (float64) and normal (m x 2 float64).
pub(crate) type NeighbourArrays<'py> =
    (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<f64>>);

pub(crate) fn neighbour_arrays(py: Python<'_>, n: satgpu::neighbours::Neighbours) -> PyResult<NeighbourArrays<'_>> {
    let rows = n.neighbour.len();
    let offsets = PyArray1::from_iter(py, n.offsets.iter().map(|&o| o as u64));
    let normal = PyArray1::from_iter(py, n.normal.iter().flatten().copied()).reshape([rows, 2])?;
    Ok((offsets, PyArray1::from_vec(py, n.neighbour), PyArray1::from_vec(py, n.distance), normal))
}

/// Contacts back from the result dict `name` among `bodies` bodies, or a ValueError naming what
/// does not fit (arrays of different lengths, a body past the last).
pub(crate) fn contact_list(d: &Bound<'_, PyDict>, name: &str, bodies: usize) -> PyResult<Vec<Contact>> {
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
pub(crate) fn pose_slices<'a, T: numpy::Element + bytemuck::Pod>(
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

/// Places every body of `world` from `xy` and `angle` (float64 or float32 arrays of one dtype),
/// read where they lie: no copy is made; without a world, checks them as placing `bodies`
/// bodies would, with the same errors. The GIL stays held, so that no Python thread writes the
/// arrays while they are read (on every core).
pub(crate) fn set_poses(
    world: Option<&mut satgpu::gpu::World>,
    bodies: usize,
    xy: &Bound<'_, PyAny>,
    angle: &Bound<'_, PyAny>,
) -> PyResult<()> {
    use satgpu::gpu::{PoseArrays, PoseScalar};
    fn place<T: PoseScalar>(
        world: Option<&mut satgpu::gpu::World>,
        bodies: usize,
        poses: PoseArrays<'_, T>,
    ) -> PyResult<()> {
        match world {
            Some(world) => world.set_pose_arrays(poses),
            None => poses.check(bodies),
        }
        .map_err(raise)
    }
    if let (Ok(p), Ok(a)) = (xy.extract::<PyReadonlyArray2<'_, f64>>(), angle.extract::<PyReadonlyArray1<'_, f64>>()) {
        let (xy, angle) = pose_slices(&p, &a)?;
        return place(world, bodies, PoseArrays { xy, angle });
    }
    if let (Ok(p), Ok(a)) = (xy.extract::<PyReadonlyArray2<'_, f32>>(), angle.extract::<PyReadonlyArray1<'_, f32>>()) {
        let (xy, angle) = pose_slices(&p, &a)?;
        return place(world, bodies, PoseArrays { xy, angle });
    }
    Err(PyValueError::new_err("xy and angle must be NumPy arrays of one dtype, float64 or float32: xy n x 2, angle n"))
}

/// Impacts as NumPy arrays: a, b (uint32) and toi (float64).
pub(crate) type ImpactArrays<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<f64>>);

pub(crate) fn impact_arrays<'py>(py: Python<'py>, found: &[satgpu::Impact]) -> ImpactArrays<'py> {
    (
        PyArray1::from_iter(py, found.iter().map(|i| i.a)),
        PyArray1::from_iter(py, found.iter().map(|i| i.b)),
        PyArray1::from_iter(py, found.iter().map(|i| i.toi)),
    )
}

/// A frame's figures as a dict.
pub(crate) fn stats_dict<'py>(py: Python<'py>, frame: &satgpu::gpu::FrameStats) -> PyResult<Bound<'py, PyDict>> {
    let stats = PyDict::new(py);
    stats.set_item("entries", frame.entries)?;
    stats.set_item("candidates", frame.candidates)?;
    stats.set_item("colliding", frame.colliding)?;
    stats.set_item("frame_ms", frame.frame_ms)?;
    stats.set_item("reruns", frame.reruns)?;
    stats.set_item("batches", frame.batches)?;
    Ok(stats)
}
