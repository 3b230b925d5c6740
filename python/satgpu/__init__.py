"""satgpu: every colliding pair among large sets of 2D convex shapes, on the GPU, each answer
checked against an f64 CPU reference.

    import numpy as np, satgpu
    gpu = satgpu.Gpu()                                   # best adapter; "software" for lavapipe
    shapes = satgpu.circles(np.random.rand(1000, 2) * 30, np.full(1000, 0.5))
    pairs = satgpu.detect(shapes, gpu=gpu)               # NumPy arrays, sorted by (a, b)
    print(len(pairs), pairs.a[:5], pairs.depth.max())

Shapes come one by one (`polygon`, `circle`, `capsule`, `segment`), in bulk from arrays (`circles`,
`polygons`), from the built-in generators (`generate`) or from scene files (`read_scene`): a
million shapes are one `Shapes` object, not a million Python objects. Errors are `satgpu.Error`
subclasses, one per kind (see `satgpu.errors`), carrying satgpu's own messages; bad arrays are
`ValueError`s naming the argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from os import PathLike

from . import _satgpu, errors
from ._satgpu import Compound, Gpu, Shape, Shapes, adapters, capsule, chain, circle, compound, concave, polygon, segment
from .errors import *  # noqa: F403  (one class per kind of satgpu::Error, see satgpu.errors)

__all__ = [
    "Compound",
    "Contacts",
    "Crowd",
    "Evacuation",
    "Gpu",
    "MAX_WORLDS",
    "Neighbours",
    "RayHits",
    "SCENE_KINDS",
    "Scene",
    "Shape",
    "Shapes",
    "World",
    "adapters",
    "capsule",
    "segment",
    "chain",
    "circle",
    "circles",
    "compound",
    "concave",
    "default_gpu",
    "detect",
    "errors",
    "generate",
    "neighbours",
    "polygon",
    "polygons",
    "read_scene",
    "reference",
    "walls",
    "write_scene",
] + errors.__all__

ShapesLike = Union[Shapes, Sequence[Union[Shape, Compound]]]
FiltersLike = Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Contacts:
    """Colliding pairs sorted by (a, b), one row each: `a < b` (uint32), the unit `normal` from a
    to b (n x 2 float64) and the penetration `depth` (float64). With `contacts="full"` also
    `a_in_b`, `b_in_a` (bool), `points` (n x 2 x 2, NaN where a pair has one point) and
    `point_depth` (n x 2). Among `Compound` bodies, `parts` (n x 2 uint32) names each pair's
    deepest part pair, whose normal, depth and manifold the row holds."""

    a: np.ndarray
    b: np.ndarray
    normal: np.ndarray
    depth: np.ndarray
    a_in_b: Optional[np.ndarray] = None
    b_in_a: Optional[np.ndarray] = None
    points: Optional[np.ndarray] = None
    point_depth: Optional[np.ndarray] = None
    parts: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return len(self.a)


@dataclass(frozen=True)
class RayHits:
    """Each ray's nearest hit, one row per ray: the `body` (int64, -1 where the ray meets
    nothing), the `fraction` of the ray's length, the `point` and the body's outward unit `normal`
    there (n x 2); NaN where the ray meets nothing."""

    body: np.ndarray
    fraction: np.ndarray
    point: np.ndarray
    normal: np.ndarray

    def __len__(self) -> int:
        return len(self.body)


@dataclass(frozen=True)
class Neighbours:
    """Each body's neighbours, nearest first: body i's are rows `offsets[i]:offsets[i + 1]` of
    `neighbour` (uint32), `distance` (float64, the signed distance: negative where they overlap)
    and `normal` (m x 2, the unit direction from the body toward the neighbour), sorted by
    distance, then by neighbour. `offsets` (uint64) has one entry more than there are bodies."""

    offsets: np.ndarray
    neighbour: np.ndarray
    distance: np.ndarray
    normal: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def of(self, i: int) -> np.ndarray:
        """Body `i`'s neighbours, nearest first."""
        return self.neighbour[self.offsets[i] : self.offsets[i + 1]]

    @classmethod
    def from_contacts(cls, bodies: int, contacts: "Contacts", k: Optional[int] = None) -> "Neighbours":
        """Each of `bodies` bodies' neighbours from the pairs of a frame with a margin (a
        `World(..., margin=radius)`'s `step()`), the `k` nearest where given: `satgpu.neighbours`
        for a world that steps every frame."""
        return cls(*_satgpu.neighbours_from_pairs(bodies, contacts.a, contacts.b, contacts.normal, contacts.depth, k))


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


def _ring(name: str, points) -> list:
    """A ring of a walkable area as a list of [x, y]: a sequence of points or an n x 2 array."""
    ring = np.asarray(points, dtype=np.float64)
    if ring.ndim != 2 or ring.shape[1] != 2:
        raise ValueError(f"{name} must be an n x 2 array of x, y (walls take 2D coordinates), got shape {ring.shape}")
    return ring.tolist()


def walls(exterior, holes=(), radius: float = 0.0) -> list:
    """The walls of a walkable area, as JuPedSim describes a scene: one closed `chain` per ring
    of its boundary, the exterior's first, then each hole's (a list of `Compound`s).

    `exterior` is the outer ring (an n x 2 array or a list of [x, y]) with `holes` its holes; or
    a shapely `Polygon` (its exterior and interiors; then `holes` stays empty); or a WKT
    `POLYGON` string, JuPedSim's geometry format. A ring may repeat its first point at the end,
    as WKT and shapely do. Bad rings are `InvalidPolygonError`s naming the ring, text that is no
    WKT POLYGON a `WktError`."""
    if isinstance(exterior, str):
        if len(holes):
            raise ValueError("holes come from the WKT polygon: pass holes=() with a WKT string")
        exterior, holes = _satgpu.wkt_polygon(exterior)
    elif hasattr(exterior, "exterior") and hasattr(exterior, "interiors"):
        if len(holes):
            raise ValueError("holes come from the shapely Polygon: pass holes=() with a Polygon")
        exterior, holes = exterior.exterior.coords, [ring.coords for ring in exterior.interiors]
    rings = [_ring("exterior", exterior)] + [_ring(f"holes[{i}]", h) for i, h in enumerate(holes)]
    return _satgpu.walls(rings[0], rings[1:], radius)


def _rays(origins, directions, lengths) -> np.ndarray:
    """Rays as one n x 5 float64 array (x, y, dx, dy, length)."""
    origins = np.asarray(origins, dtype=np.float64).reshape(-1, 2)
    directions = np.asarray(directions, dtype=np.float64).reshape(-1, 2)
    lengths = np.asarray(lengths, dtype=np.float64).reshape(-1)
    if not len(origins) == len(directions) == len(lengths):
        raise ValueError(
            f"origins, directions and lengths must be as long, got {len(origins)}, {len(directions)}, {len(lengths)}"
        )
    return np.ascontiguousarray(np.hstack([origins, directions, lengths[:, None]]))


def _casts(shapes, origins, directions, lengths, which, angles):
    """Shape casts as the shapes (a list), one n x 6 float64 array (x, y, angle, dx, dy, length)
    and the uint32 index of each cast's shape."""
    shapes = [shapes] if isinstance(shapes, Shape) else list(shapes)
    rays = _rays(origins, directions, lengths)
    n = len(rays)
    which = np.zeros(n, dtype=np.uint32) if which is None else _array("which", which, np.uint32, 1)
    angles = np.zeros(n) if angles is None else np.asarray(angles, dtype=np.float64).reshape(-1)
    if not len(which) == len(angles) == n:
        raise ValueError(f"which and angles must have one entry per cast ({n}), got {len(which)} and {len(angles)}")
    casts = np.ascontiguousarray(np.hstack([rays[:, :2], angles[:, None], rays[:, 2:]]))
    return shapes, casts, np.ascontiguousarray(which)


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


def _box(periodic) -> Optional[Tuple[float, float, float, float]]:
    """A periodic box `(x0, y0, x1, y1)` as floats, or None."""
    return None if periodic is None else tuple(float(c) for c in periodic)


def _worlds(worlds) -> Optional[np.ndarray]:
    return None if worlds is None else _array("worlds", worlds, np.uint32, 1)


@dataclass(frozen=True)
class Scene:
    """A scene file's contents: its `shapes` (a `Shapes`, or a list of `Compound` bodies when the
    file has compound ones: "parts" entries or concave outlines) and, when any has a collision
    filter, the `filters` as (category, mask, group) arrays (else None)."""

    shapes: Union[Shapes, list]
    filters: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None
    # The scene's periodic box (x0, y0, x1, y1), or None, and which axes wrap ("xy", "x", "y"):
    # `World(scene.shapes, ..., periodic=scene.periodic, periodic_axes=scene.periodic_axes)`.
    periodic: Optional[Tuple[float, float, float, float]] = None
    periodic_axes: str = "xy"


def read_scene(path: Union[str, PathLike]) -> Scene:
    """Reads and validates a scene file (the JSON format of `satgpu gen` and `satgpu run`).
    Errors are `SceneError`s naming the file, or an `InvalidPolygonError` naming the shape."""
    shapes, filters, periodic = _satgpu.read_scene(path)
    box, axes = periodic if periodic is not None else (None, "xy")
    return Scene(shapes, filters, box, axes)


def write_scene(
    path: Union[str, PathLike],
    shapes: ShapesLike,
    filters: FiltersLike = None,
    periodic: Optional[Tuple[float, float, float, float]] = None,
    periodic_axes: str = "xy",
) -> None:
    """Writes `shapes` (and their filters, where not the default, and a periodic box) as a
    scene file that `read_scene` and the `satgpu` command line read back. The file appears
    whole or not at all."""
    _satgpu.write_scene(path, shapes, _filters(filters), periodic, periodic_axes)


SCENE_KINDS: Tuple[str, ...] = tuple(_satgpu.scene_kinds())
# The most worlds one `World` holds (`World(..., worlds=)`).
MAX_WORLDS: int = _satgpu.MAX_WORLDS


def generate(kind: str, n: int, seed: int = 1) -> Union[Shapes, list]:
    """`n` shapes of a built-in scene kind (one of `SCENE_KINDS`: "crowd", "grid", "round", ...),
    the same shapes as `satgpu gen --kind KIND --n N --seed SEED`, on every machine; for "rooms"
    (walls and pillars of several parts among agents) a list of `n` `Compound` bodies."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, got {seed!r}")
    return _satgpu.generate(kind, int(n), int(seed))


_default: Optional[Gpu] = None


def default_gpu() -> Gpu:
    """The device `detect` uses when given none: `Gpu()`, opened once on first use."""
    global _default
    if _default is None:
        _default = Gpu()
    return _default


def detect(
    shapes: ShapesLike,
    filters: FiltersLike = None,
    contacts: str = "basic",
    gpu: Optional[Gpu] = None,
    margin: float = 0.0,
    periodic: Optional[Tuple[float, float, float, float]] = None,
    periodic_axes: str = "xy",
) -> Contacts:
    """Every colliding pair among `shapes` (a `Shapes`, or a sequence of `Shape` and `Compound`
    bodies), sorted by (a, b), computed on the GPU. Among compound bodies a pair carries its
    deepest part pair's normal and depth, `parts` names it, and parts of one body never collide. `filters`: optional (category, mask, group) arrays, one entry per
    shape, as Box2D's filters. `contacts`: "basic" or "full" (manifolds and containment).
    `margin`: also the pairs apart by at most this distance, with `depth` minus their distance
    (negative). `periodic`, `periodic_axes`: a periodic box, as `World` takes one. The GIL is
    released while the GPU works."""
    result = _satgpu.detect(
        gpu or default_gpu(), shapes, _filters(filters), contacts, margin, _box(periodic), periodic_axes
    )
    return Contacts(**result)


def neighbours(
    shapes: ShapesLike,
    radius: float,
    k: Optional[int] = None,
    filters: FiltersLike = None,
    gpu: Optional[Gpu] = None,
    periodic: Optional[Tuple[float, float, float, float]] = None,
    periodic_axes: str = "xy",
) -> Neighbours:
    """Each body's neighbours at signed distance at most `radius` (negative where they overlap),
    nearest first and ties by index, the `k` nearest where `k` is given, on the GPU: what a crowd
    model asks of its neighbour search (JuPedSim's models: every neighbour within a cutoff; RVO2:
    the k nearest). Each pair appears for both of its bodies; pairs the `filters` exclude are no
    neighbours. In a `periodic` box (as `World` takes one) each neighbour is its nearest image,
    as freud's periodic neighbour queries give it. The GIL is released while the GPU works."""
    return Neighbours(
        *_satgpu.neighbours(
            gpu or default_gpu(), shapes, radius, k, _filters(filters), _box(periodic), periodic_axes
        )
    )


def _transform_array(name: str, value, ndim: int) -> np.ndarray:
    """A float64 or float32 C-contiguous array read where it lies (lists become float64)."""
    if not isinstance(value, np.ndarray):
        value = np.asarray(value, dtype=np.float64)
    if value.dtype not in (np.float64, np.float32):
        raise ValueError(f"{name} must be a float64 or float32 array, got dtype {value.dtype}")
    want = "n x 2" if ndim == 2 else "n"
    if value.ndim != ndim or (ndim == 2 and value.shape[1] != 2):
        raise ValueError(f"{name} must be an {want} array, got shape {value.shape}")
    if not value.flags.c_contiguous:
        raise ValueError(f"{name} must be C-contiguous (numpy.ascontiguousarray makes it so)")
    return value


def _poses(xy, angle):
    """`xy` (n x 2) and `angle` (n) as `World.set_transforms` reads them: both float64 or both
    float32, read where they lie."""
    xy, angle = _transform_array("xy", xy, 2), _transform_array("angle", angle, 1)
    if xy.dtype != angle.dtype:
        raise ValueError(f"xy and angle must have one dtype, got {xy.dtype} and {angle.dtype}")
    return xy, angle


class World:
    """A persistent world: shapes uploaded once, every body placed by a transform each frame.

        world = satgpu.World(shapes, body_shapes)           # body_shapes: n uint32, a shape each
        world.set_transforms(xy, angle)                     # n x 2 and n, float64 or float32
        pairs = world.step()                                # Contacts, sorted by (a, b)

    `order`: where pairs are sorted by (a, b), "auto" (on the GPU on a GPU, on the host on a
    software adapter), "gpu" or "host". `contacts`: "basic" or "full". `margin`: also the pairs
    apart by at most this distance (neighbours), with `depth` minus their distance. `events`:
    after each step, `events()` gives the pairs that began and ended touching since the step
    before (computed on the GPU). `continuous`: after each step, `impacts()` gives the pairs that
    touched at some moment of it, each body moved from its transforms at the step before to its
    transforms now (continuous collision: a fast body is not lost through a thin wall).
    `worlds`: each body's world (n uint32, below `MAX_WORLDS`): many runs in one world, each
    frame running them all; pairs never cross worlds, and each world's are those it gives alone
    (`worlds[pairs.a]` names each pair's world); rays, shape casts and queries name the world
    they look into (`worlds=` of each call). `periodic`: a periodic box `(x0, y0, x1, y1)` the
    bodies live in, wrapping `periodic_axes` ("xy", "x" or "y"): a body past an edge comes back at
    the other, and each pair is judged with the image of b that touches a; queries see every
    image, rays and casts leaving the box come back from the opposite edge, and with continuous
    collision a body goes the shortest way across an edge. The GIL is released while the GPU
    works; `stats` holds the last frame's figures."""

    def __init__(
        self,
        shapes: ShapesLike,
        body_shapes,
        order: str = "auto",
        contacts: str = "basic",
        gpu: Optional[Gpu] = None,
        margin: float = 0.0,
        events: bool = False,
        continuous: bool = False,
        worlds=None,
        periodic: Optional[Tuple[float, float, float, float]] = None,
        periodic_axes: str = "xy",
    ):
        body_shapes = _array("body_shapes", body_shapes, np.uint32, 1)
        periodic = _box(periodic)
        self._world = _satgpu.World(
            gpu or default_gpu(),
            shapes,
            body_shapes,
            order,
            contacts,
            margin,
            events,
            continuous,
            periodic,
            periodic_axes,
        )
        if worlds is not None:
            self.set_worlds(worlds)
        self.stats: dict = {}

    def __len__(self) -> int:
        return len(self._world)

    def set_transforms(self, xy, angle) -> None:
        """Places every body: `xy` (n x 2) and `angle` (n, radians counter-clockwise), both
        float64 or both float32, read without a copy. Each value is rounded to f32 once."""
        self._world.set_transforms(*_poses(xy, angle))

    def set_worlds(self, worlds) -> None:
        """Puts each body in a world (`worlds`: n indices below `MAX_WORLDS`, uint32), as
        `satgpu.World(..., worlds=)` does; an empty array makes one world again."""
        self._world.set_worlds(_array("worlds", worlds, np.uint32, 1))

    @property
    def worlds(self) -> np.ndarray:
        """Each body's world (uint32), empty while every body is in world 0."""
        return self._world.worlds()

    def set_filters(self, category, mask, group) -> None:
        """Each body's filter, as Box2D's: `category`, `mask` (uint32) and `group` (int32)."""
        self._world.set_filters(*_filters((category, mask, group)))

    def reserve(self, entries: int, candidates: int) -> None:
        """Room for `entries` strip entries and `candidates` candidate pairs up front."""
        self._world.reserve(entries, candidates)

    def step(self) -> Contacts:
        """Runs a frame: the colliding pairs, sorted by (a, b)."""
        pairs, self.stats = self._world.step()
        return Contacts(**pairs)

    def query_boxes(self, boxes, filters: FiltersLike = None, worlds=None) -> list:
        """For each box (n x 4: min_x, min_y, max_x, max_y), the bodies (uint32 array, sorted)
        that share a point with it, as the bodies stand now (exact on the shapes). `filters`:
        (category, mask, group) arrays, one entry per box, as Box2D's query filter. `worlds`:
        the world each box looks into (n uint32, default 0), seeing that world's bodies alone."""
        boxes = np.ascontiguousarray(boxes, dtype=np.float64).reshape(-1, 4)
        return self._world.query(boxes, False, _filters(filters), _worlds(worlds))

    def query_points(self, points, filters: FiltersLike = None, worlds=None) -> list:
        """For each point (n x 2), the bodies (uint32 array, sorted) that contain it; `filters`
        and `worlds` as for `query_boxes`."""
        points = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)
        return self._world.query(points, True, _filters(filters), _worlds(worlds))

    def cast_rays(self, origins, directions, lengths, filters: FiltersLike = None, worlds=None) -> "RayHits":
        """The nearest body each ray meets (origins and directions n x 2, lengths n), as the
        bodies stand now, seen through `filters` ((category, mask, group) arrays, one entry per
        ray), in the world `worlds` names for it (n uint32, default 0). A ray starting in a body
        hits it at fraction 0 with normal (0, 0)."""
        rays = _rays(origins, directions, lengths)
        return RayHits(*self._world.cast_rays(rays, _filters(filters), _worlds(worlds)))

    def cast_shapes(
        self, shapes, origins, directions, lengths, which=None, angles=None, filters: FiltersLike = None, worlds=None
    ) -> "RayHits":
        """The first body each shape cast touches, as the bodies stand now. `shapes`: one
        `Shape` or a list of them, each in its own frame (`satgpu.circle((0, 0), r)` for a disk);
        cast `k` moves `shapes[which[k]]` (default 0), turned by `angles[k]` (radians, default
        0) and placed at `origins[k]`, along `directions[k]` for `lengths[k]`; `filters` as for
        `cast_rays`. Returns a `RayHits`: the point on the body's boundary first touched and the
        body's outward normal there; a shape that starts touching a body hits it at fraction 0,
        at its origin, with normal (0, 0). `worlds`: as for `cast_rays`."""
        shapes, casts, which = _casts(shapes, origins, directions, lengths, which, angles)
        return RayHits(*self._world.cast_shapes(shapes, casts, which, _filters(filters), _worlds(worlds)))

    def events(self):
        """With `events=True`: `(began, ended)`, the pairs (n x 2 uint32, each sorted by (a, b))
        that began and ended touching from the step before the last to the last (after the
        first step, all its pairs began). `None` without events."""
        return self._world.events()

    def impacts(self):
        """With `continuous=True`: a `satgpu.reference.Impacts` (a, b, toi), the pairs that
        touched at some moment of the last step, each body moved from its transforms at the step
        before (before the first step: those set before the last) to those of the step (position and angle linearly, the angle the shorter way
        round), with the first moment in [0, 1], sorted by (a, b). `None` without."""
        found = self._world.impacts()
        return None if found is None else reference.Impacts(*found)


from . import reference  # noqa: E402  (uses the names above)
from .crowd import Crowd, Evacuation  # noqa: E402  (uses default_gpu)
