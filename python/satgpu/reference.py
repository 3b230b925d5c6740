"""The f64 CPU reference (one thread): the same pairs from the definitions, to validate the GPU's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import Contacts, FiltersLike, Neighbours, RayHits, ShapesLike, _box, _casts, _filters, _rays, _satgpu

__all__ = ["Impacts", "cast_rays", "cast_shapes", "detect", "disagreements", "neighbours", "sweep"]


def detect(
    shapes: ShapesLike,
    filters: FiltersLike = None,
    contacts: str = "basic",
    margin: float = 0.0,
    periodic=None,
    periodic_axes: str = "xy",
) -> Contacts:
    """The colliding pairs of `shapes` from the f64 reference, as `satgpu.detect` returns them
    (with `margin`, also the pairs apart by at most that distance, depth minus their distance;
    in a `periodic` box, each pair with the image of b that touches a)."""
    return Contacts(
        **_satgpu.reference_detect(shapes, _filters(filters), contacts, margin, _box(periodic), periodic_axes)
    )


def neighbours(
    shapes: ShapesLike,
    radius: float,
    k: Optional[int] = None,
    filters: FiltersLike = None,
    periodic=None,
    periodic_axes: str = "xy",
) -> Neighbours:
    """Each body's neighbours within `radius` (the `k` nearest) from the f64 reference, as
    `satgpu.neighbours` returns them (in a `periodic` box too)."""
    return Neighbours(*_satgpu.neighbours(None, shapes, radius, k, _filters(filters), _box(periodic), periodic_axes))


def cast_rays(
    shapes: ShapesLike,
    origins,
    directions,
    lengths,
    filters: FiltersLike = None,
    ray_filters: FiltersLike = None,
    periodic=None,
    periodic_axes: str = "xy",
) -> RayHits:
    """The nearest of `shapes` (as placed; `Compound` bodies named whole) each ray meets, from the
    f64 reference, as `World.cast_rays` returns it: `filters` the shapes', `ray_filters` the rays'
    (category, mask, group) arrays. In a `periodic` box a ray leaving it goes on from the
    opposite edge."""
    rays = _rays(origins, directions, lengths)
    return RayHits(
        *_satgpu.reference_cast_rays(
            shapes, rays, _filters(filters), _filters(ray_filters), _box(periodic), periodic_axes
        )
    )


def cast_shapes(
    shapes: ShapesLike,
    cast: object,
    origins,
    directions,
    lengths,
    which=None,
    angles=None,
    filters: FiltersLike = None,
    cast_filters: FiltersLike = None,
    periodic=None,
    periodic_axes: str = "xy",
) -> RayHits:
    """The first of `shapes` (as placed; `Compound` bodies named whole) each shape cast touches,
    from the f64 reference, as `World.cast_shapes(cast, origins, ...)` returns it: `filters` the
    shapes', `cast_filters` the casts' (category, mask, group) arrays; in a `periodic` box as
    `cast_rays`."""
    cast, casts, which = _casts(cast, origins, directions, lengths, which, angles)
    return RayHits(
        *_satgpu.reference_cast_shapes(
            shapes, cast, casts, which, _filters(filters), _filters(cast_filters), _box(periodic), periodic_axes
        )
    )


@dataclass(frozen=True)
class Impacts:
    """The pairs that touch during a sweep, sorted by (a, b): bodies `a` < `b` (uint32) and the
    first moment they touch, `toi` (float64, in [0, 1]: 0 at the start of the frame, 1 at its
    end)."""

    a: np.ndarray
    b: np.ndarray
    toi: np.ndarray

    def __len__(self) -> int:
        return len(self.a)


def sweep(
    shapes: ShapesLike, start, end, filters: FiltersLike = None, periodic=None, periodic_axes: str = "xy"
) -> Impacts:
    """Continuous collision from the f64 reference: every pair of `shapes` (each body in its own
    frame) that touches at some moment while each moves from its `start` pose to its `end` pose
    (each `(xy, angle)`: n x 2 and n arrays; position and angle linearly in time), with the first
    such moment. A small fast body shot through a thin wall between two frames is caught. In a
    `periodic` box each body goes the shortest way, across an edge where it left the box."""

    def poses(name, pose):
        xy, angle = pose
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        angle = np.asarray(angle, dtype=np.float64).reshape(-1)
        if len(xy) != len(angle):
            raise ValueError(f"{name}: xy and angle must be as long, got {len(xy)} and {len(angle)}")
        return np.ascontiguousarray(np.hstack([xy, angle[:, None]]))

    return Impacts(
        *_satgpu.reference_sweep(
            shapes, poses("start", start), poses("end", end), _filters(filters), _box(periodic), periodic_axes
        )
    )


def disagreements(
    shapes: ShapesLike, got: Contacts, want: Contacts, margin: float = 0.0, periodic=None, periodic_axes: str = "xy"
) -> int:
    """How many pairs of `got` and `want` (the reference's) disagree under satgpu's numerics
    contract: 0 when the GPU's answer is right. `margin` and `periodic`: those both were found
    with."""
    fields = ("a", "b", "normal", "depth")
    got_d, want_d = ({k: getattr(c, k) for k in fields} for c in (got, want))
    return _satgpu.disagreements(shapes, got_d, want_d, margin, _box(periodic), periodic_axes)
