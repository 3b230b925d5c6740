"""satgpu: every colliding pair among large sets of 2D convex shapes, on the GPU, each answer
checked against an f64 CPU reference.

    import numpy as np, satgpu
    gpu = satgpu.Gpu()                                   # best adapter; "software" for lavapipe
    shapes = satgpu.circles(np.random.rand(1000, 2) * 30, np.full(1000, 0.5))
    pairs = satgpu.detect(shapes, gpu=gpu)               # NumPy arrays, sorted by (a, b)
    print(len(pairs), pairs.a[:5], pairs.depth.max())

Shapes come one by one (`polygon`, `circle`, `capsule`) or in bulk from arrays (`circles`,
`polygons`): a million shapes are one `Shapes` object, not a million Python objects. Errors are
`satgpu.Error` subclasses carrying satgpu's own messages; bad arrays are `ValueError`s naming
the argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from . import _satgpu
from ._satgpu import (
    CountError,
    DeviceError,
    Error,
    Gpu,
    InvalidPolygonError,
    InvalidTransformError,
    NoAdapterError,
    SceneError,
    Shape,
    Shapes,
    TooLargeError,
    adapters,
    capsule,
    circle,
    polygon,
)

__all__ = [
    "Contacts",
    "CountError",
    "DeviceError",
    "Error",
    "Gpu",
    "InvalidPolygonError",
    "InvalidTransformError",
    "NoAdapterError",
    "SceneError",
    "Shape",
    "Shapes",
    "TooLargeError",
    "adapters",
    "capsule",
    "circle",
    "circles",
    "default_gpu",
    "detect",
    "polygon",
    "polygons",
    "reference",
]

ShapesLike = Union[Shapes, Sequence[Shape]]
FiltersLike = Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Contacts:
    """Colliding pairs sorted by (a, b), one row each: `a < b` (uint32), the unit `normal` from a
    to b (n x 2 float64) and the penetration `depth` (float64). With `contacts="full"` also
    `a_in_b`, `b_in_a` (bool), `points` (n x 2 x 2, NaN where a pair has one point) and
    `point_depth` (n x 2)."""

    a: np.ndarray
    b: np.ndarray
    normal: np.ndarray
    depth: np.ndarray
    a_in_b: Optional[np.ndarray] = None
    b_in_a: Optional[np.ndarray] = None
    points: Optional[np.ndarray] = None
    point_depth: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return len(self.a)


def _array(name: str, value, dtype, ndim: int, columns: Optional[int] = None) -> np.ndarray:
    """`value` as a C-contiguous array of `dtype`: lists are converted, arrays must already be of
    that dtype and contiguous (a silent copy of a large array is refused)."""
    if not isinstance(value, np.ndarray):
        value = np.asarray(value, dtype=dtype)
    want = f"{'n' if ndim == 1 else 'n x ' + str(columns)} {np.dtype(dtype).name} array"
    if value.dtype != dtype:
        raise ValueError(f"{name} must be an {want}, got dtype {value.dtype}")
    if value.ndim != ndim or (columns is not None and value.shape[1] != columns):
        raise ValueError(f"{name} must be an {want}, got shape {value.shape}")
    if not value.flags.c_contiguous:
        raise ValueError(f"{name} must be C-contiguous (numpy.ascontiguousarray makes it so)")
    return value


def circles(centers, radii) -> Shapes:
    """Circles in bulk: `centers` (n x 2 float64) and `radii` (n float64)."""
    return _satgpu.circles(_array("centers", centers, np.float64, 2, 2), _array("radii", radii, np.float64, 1))


def polygons(vertices, offsets, radii=None) -> Shapes:
    """Convex polygons in bulk: every vertex in one m x 2 float64 array, polygon i being rows
    `offsets[i]` to `offsets[i + 1]` (n + 1 uint64 offsets, from 0 to m); each rounded by
    `radii[i]` when `radii` (n float64) is given."""
    vertices = _array("vertices", vertices, np.float64, 2, 2)
    offsets = _array("offsets", offsets, np.uint64, 1)
    if radii is not None:
        radii = _array("radii", radii, np.float64, 1)
    return _satgpu.polygons(vertices, offsets, radii)


def _filters(filters: FiltersLike):
    if filters is None:
        return None
    if len(filters) != 3:
        raise ValueError("filters must be (category, mask, group): uint32, uint32 and int32 arrays")
    category, mask, group = filters
    return (
        _array("filters category", category, np.uint32, 1),
        _array("filters mask", mask, np.uint32, 1),
        _array("filters group", group, np.int32, 1),
    )


_default: Optional[Gpu] = None


def default_gpu() -> Gpu:
    """The device `detect` uses when given none: `Gpu()`, opened once on first use."""
    global _default
    if _default is None:
        _default = Gpu()
    return _default


def detect(shapes: ShapesLike, filters: FiltersLike = None, contacts: str = "basic", gpu: Optional[Gpu] = None) -> Contacts:
    """Every colliding pair among `shapes` (a `Shapes`, or a sequence of `Shape`), sorted by
    (a, b), computed on the GPU. `filters`: optional (category, mask, group) arrays, one entry per
    shape, as Box2D's filters. `contacts`: "basic" or "full" (manifolds and containment). The
    GIL is released while the GPU works."""
    result = _satgpu.detect(gpu or default_gpu(), shapes, _filters(filters), contacts)
    return Contacts(**result)


from . import reference  # noqa: E402  (uses the names above)
