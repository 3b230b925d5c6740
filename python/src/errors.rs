//! Every `satgpu::Error` a Python exception of its own kind (the classes live in `satgpu.errors`).

use pyo3::prelude::*;

/// The class of `satgpu.errors` named `name`, raised with `message` (the classes live in Python,
/// so that input errors can also be `ValueError`s and file errors `OSError`s).
pub(crate) fn error_of(name: &str, message: String) -> PyErr {
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
