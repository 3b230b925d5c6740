"""The f64 CPU reference (one thread): the same pairs from the definitions, to validate the GPU's."""

from __future__ import annotations

from . import Contacts, FiltersLike, ShapesLike, _filters, _satgpu

__all__ = ["detect", "disagreements"]


def detect(shapes: ShapesLike, filters: FiltersLike = None, contacts: str = "basic") -> Contacts:
    """The colliding pairs of `shapes` from the f64 reference, as `satgpu.detect` returns them."""
    return Contacts(**_satgpu.reference_detect(shapes, _filters(filters), contacts))


def disagreements(shapes: ShapesLike, got: Contacts, want: Contacts) -> int:
    """How many pairs of `got` and `want` (the reference's) disagree under satgpu's numerics
    contract: 0 when the GPU's answer is right."""
    fields = ("a", "b", "normal", "depth")
    return _satgpu.disagreements(shapes, {k: getattr(got, k) for k in fields}, {k: getattr(want, k) for k in fields})
