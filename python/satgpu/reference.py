"""The f64 CPU reference (one thread): the same pairs from the definitions, to validate the GPU's."""

from __future__ import annotations

from typing import Optional

from . import Contacts, FiltersLike, Neighbours, RayHits, ShapesLike, _casts, _filters, _rays, _satgpu

__all__ = ["cast_rays", "cast_shapes", "detect", "disagreements", "neighbours"]


def detect(shapes: ShapesLike, filters: FiltersLike = None, contacts: str = "basic", margin: float = 0.0) -> Contacts:
    """The colliding pairs of `shapes` from the f64 reference, as `satgpu.detect` returns them
    (with `margin`, also the pairs apart by at most that distance, depth minus their distance)."""
    return Contacts(**_satgpu.reference_detect(shapes, _filters(filters), contacts, margin))


def neighbours(shapes: ShapesLike, radius: float, k: Optional[int] = None, filters: FiltersLike = None) -> Neighbours:
    """Each body's neighbours within `radius` (the `k` nearest) from the f64 reference, as
    `satgpu.neighbours` returns them."""
    return Neighbours(*_satgpu.neighbours(None, shapes, radius, k, _filters(filters)))


def cast_rays(
    shapes: ShapesLike, origins, directions, lengths, filters: FiltersLike = None, ray_filters: FiltersLike = None
) -> RayHits:
    """The nearest of `shapes` (as placed; `Compound` bodies named whole) each ray meets, from the
    f64 reference, as `World.cast_rays` returns it: `filters` the shapes', `ray_filters` the rays'
    (category, mask, group) arrays."""
    rays = _rays(origins, directions, lengths)
    return RayHits(*_satgpu.reference_cast_rays(shapes, rays, _filters(filters), _filters(ray_filters)))


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
) -> RayHits:
    """The first of `shapes` (as placed; `Compound` bodies named whole) each shape cast touches,
    from the f64 reference, as `World.cast_shapes(cast, origins, ...)` returns it: `filters` the
    shapes', `cast_filters` the casts' (category, mask, group) arrays."""
    cast, casts, which = _casts(cast, origins, directions, lengths, which, angles)
    return RayHits(*_satgpu.reference_cast_shapes(shapes, cast, casts, which, _filters(filters), _filters(cast_filters)))


def disagreements(shapes: ShapesLike, got: Contacts, want: Contacts, margin: float = 0.0) -> int:
    """How many pairs of `got` and `want` (the reference's) disagree under satgpu's numerics
    contract: 0 when the GPU's answer is right. `margin`: the one both were found with."""
    fields = ("a", "b", "normal", "depth")
    got_d, want_d = ({k: getattr(c, k) for k in fields} for c in (got, want))
    return _satgpu.disagreements(shapes, got_d, want_d, margin)
