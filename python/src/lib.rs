//! satgpu from Python: shapes built one by one or in bulk from NumPy arrays, pairs out as NumPy
//! arrays, every `satgpu::Error` a Python exception of its own kind. The Python package
//! (`satgpu/__init__.py`) wraps this module, `satgpu._satgpu`. One file per concern: errors,
//! shapes, arrays (NumPy in and out), device, detect (one-shot calls and the reference), world,
//! scene, crowd, pack.

use pyo3::prelude::*;

mod arrays;
mod crowd;
mod detect;
mod device;
mod errors;
mod pack;
mod scene;
mod shapes;
mod world;

pub(crate) use device::Gpu;
pub(crate) use errors::raise;
pub(crate) use shapes::{body_list, shape_error, shape_list, xy, Compound, Shape, Shapes};

#[pymodule]
fn _satgpu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Gpu>()?;
    m.add_class::<Shape>()?;
    m.add_class::<Shapes>()?;
    m.add_class::<world::World>()?;
    m.add_class::<Compound>()?;
    m.add_class::<crowd::Crowd>()?;
    m.add("MAX_WORLDS", satgpu::gpu::MAX_WORLDS)?;
    for f in [
        wrap_pyfunction!(device::adapters, m)?,
        wrap_pyfunction!(shapes::polygon, m)?,
        wrap_pyfunction!(shapes::circle, m)?,
        wrap_pyfunction!(shapes::capsule, m)?,
        wrap_pyfunction!(shapes::segment, m)?,
        wrap_pyfunction!(shapes::chain, m)?,
        wrap_pyfunction!(shapes::walls, m)?,
        wrap_pyfunction!(shapes::wkt_polygon, m)?,
        wrap_pyfunction!(shapes::circles, m)?,
        wrap_pyfunction!(shapes::polygons, m)?,
        wrap_pyfunction!(shapes::compound, m)?,
        wrap_pyfunction!(shapes::concave, m)?,
        wrap_pyfunction!(detect::detect, m)?,
        wrap_pyfunction!(detect::neighbours, m)?,
        wrap_pyfunction!(detect::neighbours_from_pairs, m)?,
        wrap_pyfunction!(detect::reference_detect, m)?,
        wrap_pyfunction!(detect::reference_cast_rays, m)?,
        wrap_pyfunction!(detect::reference_cast_shapes, m)?,
        wrap_pyfunction!(detect::reference_sweep, m)?,
        wrap_pyfunction!(detect::disagreements, m)?,
        wrap_pyfunction!(scene::read_scene, m)?,
        wrap_pyfunction!(scene::write_scene, m)?,
        wrap_pyfunction!(scene::scene_kinds, m)?,
        wrap_pyfunction!(scene::generate, m)?,
        wrap_pyfunction!(pack::shape_bounds, m)?,
        wrap_pyfunction!(pack::_from_cores, m)?,
        wrap_pyfunction!(world::check_world_options, m)?,
        wrap_pyfunction!(world::check_transforms, m)?,
        wrap_pyfunction!(world::check_filters, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
