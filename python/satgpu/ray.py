"""One world over several GPUs, on Ray (pip `ray`): `TiledWorld` cuts a `World` into tiles, one
Ray actor per tile, each with its own `satgpu.Gpu`, and gives back what one `World` gives.

    import ray, satgpu.ray
    ray.init()                                            # or ray.init(address=...) for a cluster
    world = satgpu.ray.TiledWorld(shapes, body_shapes, tiles=4)
    world.set_transforms(xy, angle)
    pairs = world.step()                                  # the Contacts satgpu.World gives, bit for bit

How. The bodies are cut into `tiles` slabs across the scene's longer side, as many bodies each.
Each body is bounded by a circle (its shape's, moved by its transform, grown by the margin and by
more than the GPU's rounding); a tile holds every body whose circle reaches into its slab: its
halo is as wide as its largest body plus the margin. A pair is reported by one tile, the one whose
slab holds the left edge of the overlap of the two bodies' circles, and both bodies are in that
tile. Each pair is computed from its two bodies alone, in their own frames, so a tile computes it
bit for bit as one `World` does. A tile's world also holds the bodies within `slack` of its halo,
so that it is rebuilt only when a body comes nearer than that; the slabs are cut again when one
tile holds half as many bodies again as the average. See docs/distributed.md.
"""

from __future__ import annotations

import os
import subprocess
import time
from typing import List, Optional

import numpy as np

try:
    import ray
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("satgpu.ray needs Ray: pip install ray") from e

import satgpu
from satgpu import Contacts, FiltersLike, ShapesLike, _array, _filters, _poses, _satgpu

__all__ = ["TiledWorld", "assigned_gpu"]

# How far past its circle a body may be found, relative to the circle's radius (the GPU's band is
# 64 f32 epsilons of the pair's size, 7.6e-6) and to its translation (rounded to f32, 6e-8).
_GROW = 2.0**-12
_FAR = 2.0**-16
# How many times a step asks a tile that fails, the first time included.
_TRIES = 3


def _given_gpu() -> Optional[str]:
    """The PCI bus id of the GPU Ray gave the calling task or actor, from nvidia-smi; None where
    Ray gave none or nvidia-smi cannot tell."""
    ids = ray.get_gpu_ids()
    if not ids:
        return None
    query = ["nvidia-smi", "--query-gpu=pci.bus_id", "--format=csv,noheader", "-i", str(ids[0])]
    try:
        found = subprocess.run(query, capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return found or None


def _open(adapter: str, timeout: float):
    """The Gpu `assigned_gpu` opens, and its PCI bus id where it was chosen by one."""
    pci = _given_gpu() if adapter == "auto" else None
    if pci is not None:
        try:
            return satgpu.Gpu(adapter, timeout=timeout, pci_bus_id=pci), pci
        except satgpu.NoAdapterError:
            # Where no adapter tells its bus id (a backend without it), the best one, as without
            # Ray; where some do, the GPU Ray gave is missing: said, not hidden.
            if any(a["usable"] and a["pci_bus_id"] for a in satgpu.adapters()):
                raise
    return satgpu.Gpu(adapter, timeout=timeout), None


def assigned_gpu(adapter: str = "auto", timeout: float = 60.0) -> satgpu.Gpu:
    """The `Gpu` of the GPU Ray gave the calling task or actor (`num_gpus=1`): Vulkan ignores
    `CUDA_VISIBLE_DEVICES`, by which Ray steers CUDA, so the GPU is found by its PCI bus id
    (`nvidia-smi`) and opened by it. Elsewhere (no GPU given, `adapter="software"`, no
    nvidia-smi) `satgpu.Gpu(adapter, timeout=timeout)`."""
    return _open(adapter, timeout)[0]


class _Tile:
    """One tile: a `World` of the bodies near one slab, rebuilt when they change."""

    def __init__(self, shapes, body_shapes: np.ndarray, options: dict, adapter: str, timeout: float):
        self._gpu, self._pci = _open(adapter, timeout)
        self._shapes, self._body_shapes, self._options = shapes, body_shapes, options
        self._compound = not isinstance(shapes, satgpu.Shapes) and any(isinstance(s, satgpu.Compound) for s in shapes)
        self._world: Optional[satgpu.World] = None
        self._members = np.zeros(0, dtype=np.uint32)
        # The driver's number for the bodies this tile's world holds; None until it has been
        # sent any (a new actor, or one Ray restarted, knows nothing the driver believes).
        self._epoch: Optional[int] = None
        self._faults: List[tuple] = []

    def adapter(self) -> str:
        return self._gpu.adapter + (f" at PCI {self._pci}" if self._pci else "")

    def pid(self) -> int:
        """The worker process's id (for tests that kill it)."""
        return os.getpid()

    def inject(self, fault: str, times: int = 1, seconds: float = 0.0) -> None:
        """For tests of faults: the next `times` frames `"raise"` a RuntimeError, `"exit"` the
        worker process, or `"sleep"` `seconds` first."""
        self._faults = [(fault, seconds)] * times

    def _rebuild(self, members: np.ndarray) -> None:
        # No world until the new one stands: a failed rebuild leaves none, never the old one
        # with the new bodies' numbers.
        self._world = None
        self._members = np.zeros(0, dtype=np.uint32)
        if len(members) == 0:
            return
        used, local = np.unique(self._body_shapes[members], return_inverse=True)
        if isinstance(self._shapes, satgpu.Shapes):
            shapes = self._shapes.take(used.astype(np.uint32))
        else:
            shapes = [self._shapes[i] for i in used]
            if self._compound and not any(isinstance(s, satgpu.Compound) for s in shapes):
                # Bodies of one part, as one World of compound bodies holds them: pairs name parts.
                shapes = [satgpu.compound([s]) for s in shapes]
        body_shapes = np.ascontiguousarray(local.reshape(-1), dtype=np.uint32)
        self._world = satgpu.World(shapes, body_shapes, gpu=self._gpu, **self._options)
        self._members = members

    def frame(self, epoch, members, filters, xy, angle, lo, slab):
        """Places the tile's bodies (rebuilt first where `members` is given, as the driver's
        `epoch`; filtered where `filters` is), steps, and returns the pairs whose overlap starts
        in `slab` (global indices) and the frame's figures; `(None, None)` where this actor does
        not hold the bodies of `epoch` (it was restarted, or a rebuild failed)."""
        if self._faults:
            fault, seconds = self._faults.pop()
            if fault == "exit":
                os._exit(1)
            if fault == "sleep":
                time.sleep(seconds)
            if fault == "raise":
                raise RuntimeError("a fault injected for a test")
        if members is not None:
            self._epoch = None
            self._rebuild(members)
            self._epoch = epoch
        if self._epoch != epoch:
            return None, None
        if self._world is None:
            return None, {"bodies": 0}
        if filters is not None:
            self._world.set_filters(*filters)
        self._world.set_transforms(xy, angle)
        pairs = self._world.step()
        start = np.maximum(lo[pairs.a], lo[pairs.b])
        keep = (start >= slab[0]) & (start < slab[1])
        rows = {k: v[keep] for k, v in vars(pairs).items() if v is not None}
        rows["a"], rows["b"] = self._members[rows["a"]], self._members[rows["b"]]
        return rows, dict(self._world.stats, bodies=len(self._members))


def _empty(contacts: str, compound: bool) -> dict:
    rows = {
        "a": np.zeros(0, np.uint32),
        "b": np.zeros(0, np.uint32),
        "normal": np.zeros((0, 2)),
        "depth": np.zeros(0),
    }
    if contacts == "full":
        rows.update(
            a_in_b=np.zeros(0, bool), b_in_a=np.zeros(0, bool), points=np.zeros((0, 2, 2)), point_depth=np.zeros((0, 2))
        )
    if compound:
        rows["parts"] = np.zeros((0, 2), np.uint32)
    return rows


def _pairs(rows: np.ndarray) -> np.ndarray:
    """(a, b) rows as one sorted uint64 key each."""
    return (rows[:, 0].astype(np.uint64) << np.uint64(32)) | rows[:, 1].astype(np.uint64)


def _rows(keys: np.ndarray) -> np.ndarray:
    return np.stack([keys >> np.uint64(32), keys & np.uint64(0xFFFFFFFF)], axis=1).astype(np.uint32).reshape(-1, 2)


class TiledWorld:
    """A `satgpu.World` cut into `tiles` tiles, one Ray actor each with its own `Gpu` (opened
    with `adapter`, waits bounded by `timeout` seconds): `set_transforms` moves bodies between
    tiles, `step()` returns the `Contacts` one `World` of the same arguments gives, every pair
    once, sorted by (a, b), bit for bit. `order`, `contacts`, `margin` and `events` as for
    `World` (events are found here, from the pairs of the two steps). `slack`: how far (in scene
    units) a body may move past a tile's halo before that tile's world is rebuilt (default: the
    average body's diameter). `actor_options`: Ray's options for each actor (default: one GPU
    each where the cluster has as many GPUs as tiles, else none asked). The first Ray call
    starts a local Ray unless `ray.init` was called. Where Ray gives an actor one of a node's
    GPUs, the actor opens that one (by its PCI bus id, from nvidia-smi). `adapters` names each
    tile's adapter;
    `stats` holds the last frame's figures, with one dict per tile in `stats["tiles"]`."""

    def __init__(
        self,
        shapes: ShapesLike,
        body_shapes,
        tiles: int = 2,
        order: str = "auto",
        contacts: str = "basic",
        margin: float = 0.0,
        events: bool = False,
        adapter: str = "auto",
        timeout: float = 60.0,
        slack: Optional[float] = None,
        actor_options: Optional[dict] = None,
    ):
        if isinstance(tiles, bool) or not isinstance(tiles, (int, np.integer)) or tiles < 1:
            raise ValueError(f"tiles must be a positive integer, got {tiles!r}")
        # Refused as a World refuses them, before any tile starts.
        _satgpu.check_world_options(order=order, contacts=contacts, margin=margin)
        self._body_shapes = _array("body_shapes", body_shapes, np.uint32, 1)
        self._n = len(self._body_shapes)
        bounds = _satgpu.shape_bounds(shapes)
        if self._n and int(self._body_shapes.max()) >= len(bounds):
            i = int(np.argmax(self._body_shapes >= len(bounds)))
            raise satgpu.UnknownShapeError(
                f"body {i} uses shape {self._body_shapes[i]}, but only {len(bounds)} shapes were given"
            )
        self._circle = bounds[self._body_shapes]
        self._margin = float(margin)
        self._slack = 2.0 * float(np.mean(self._circle[:, 2])) if slack is None and self._n else float(slack or 0.0)
        if not (np.isfinite(self._slack) and self._slack >= 0):
            raise ValueError(f"slack must be a finite distance of at least 0, got {slack!r}")
        self._contacts, self._events = contacts, events
        self._compound = not isinstance(shapes, satgpu.Shapes) and any(isinstance(s, satgpu.Compound) for s in shapes)
        options = dict(order=order, contacts=contacts, margin=margin)
        if not ray.is_initialized():
            ray.init()
        if actor_options is None:
            gpus = ray.cluster_resources().get("GPU", 0)
            actor_options = {"num_gpus": 1} if gpus >= tiles else {}
        self._actor = ray.remote(_Tile).options(**actor_options)
        # Held for the world's life: Ray restarts an actor (max_restarts) from these arguments,
        # which must still be referenced then; a lost tile's new actor starts from them too.
        self._shapes, self._options = shapes, (options, adapter, timeout)
        self._args = (ray.put(shapes), ray.put(self._body_shapes), *self._options)
        self._wait = 3.0 * float(timeout) + 60.0
        self._tiles = [self._actor.remote(*self._args) for _ in range(tiles)]
        self._ray_gone = False
        try:
            self.adapters: List[str] = ray.get([t.adapter.remote() for t in self._tiles], timeout=max(timeout, 60.0))
        except ray.exceptions.GetTimeoutError:
            raise satgpu.DeviceTimeoutError(
                f"{tiles} tile actors did not start within {max(timeout, 60.0)} s: does the cluster have "
                f"what each asks ({actor_options or 'one CPU to schedule'})?"
            ) from None
        # Each tile's epoch: the number of the bodies its world was last sent, echoed by the tile.
        self._epochs = [0] * tiles
        self._sent = 0
        self._member = np.zeros((tiles, self._n), dtype=bool)
        self._members: List[Optional[np.ndarray]] = [None] * tiles
        self._cuts: Optional[np.ndarray] = None
        self._axis = 0
        self._filters = None
        self._filters_sent = [True] * tiles
        self._placed = None
        self._last: Optional[np.ndarray] = None
        self._changes = None
        self.stats: dict = {}

    def __len__(self) -> int:
        return self._n

    @property
    def tiles(self) -> int:
        return len(self._tiles)

    def set_transforms(self, xy, angle) -> None:
        """Places every body, as `World.set_transforms` does, and decides which tile holds it."""
        xy, angle = _poses(xy, angle)
        # Refused as one World refuses them, with its errors, before any tile sees them.
        _satgpu.check_transforms(xy, angle, self._n)
        x, y, a = (v.astype(np.float64) for v in (xy[:, 0], xy[:, 1], angle))
        c, s = np.cos(a), np.sin(a)
        lx, ly, r = self._circle[:, 0], self._circle[:, 1], self._circle[:, 2]
        center = np.stack([x + c * lx - s * ly, y + s * lx + c * ly], axis=1)
        grow = (r + self._margin) * _GROW + (np.abs(x) + np.abs(y) + (np.hypot(lx, ly) + r) * (1 + np.abs(a))) * _FAR
        # Copies: the caller may change its arrays before the step.
        self._placed = (xy.copy(), angle.copy(), center, r + self._margin + grow)

    def set_filters(self, category, mask, group) -> None:
        """Each body's filter, as `World.set_filters`."""
        category, mask, group = _filters((category, mask, group))
        _satgpu.check_filters(category, mask, group, self._n)
        self._filters = (category.copy(), mask.copy(), group.copy())
        self._filters_sent = [False] * self.tiles

    def _cut(self, along: np.ndarray) -> None:
        """Slabs of as many bodies each, across the side of the scene that is longer."""
        k = self.tiles
        order = np.sort(along[:, self._axis])
        self._cuts = order[(np.arange(1, k) * len(order)) // k] if len(order) else np.zeros(k - 1)
        self._member[:] = False
        self._members = [None] * k

    def step(self) -> Contacts:
        """Runs a frame on every tile: the colliding pairs, sorted by (a, b). A tile that fails
        (its actor died or was restarted, it raised, it did not answer) is started again from
        the driver's copy and asked again, up to three times in all; then `satgpu.TileError`
        names it and the cause, and the next step starts it again. See docs/distributed.md."""
        if not self._tiles:
            raise satgpu.Error("this TiledWorld was closed: its tiles' actors have ended")
        if self._placed is None:
            raise satgpu.TransformCountError(f"set_transforms first: 0 transforms for {self._n} bodies")
        start = time.perf_counter()
        if not ray.is_initialized():
            self._ray_gone = True
            raise self._no_ray(None)
        if self._ray_gone:  # Ray was started again: every actor is new
            self._args = (ray.put(self._shapes), ray.put(self._body_shapes), *self._options)
            self._tiles = [self._actor.remote(*self._args) for _ in self._tiles]
            self._members = [None] * self.tiles
            self._ray_gone = False
        xy, angle, center, reach = self._placed
        if self._cuts is None:
            extent = np.ptp(center, axis=0) if self._n else np.zeros(2)
            self._axis = int(extent[1] > extent[0])
            self._cut(center)
        along = center[:, self._axis]
        lo, hi = along - reach, along + reach
        first, last = np.searchsorted(self._cuts, lo, "right"), np.searchsorted(self._cuts, hi, "right")
        need = [(first <= k) & (last >= k) for k in range(self.tiles)]
        counts = np.array([m.sum() for m in need])
        if self._n and counts.max() > 1.5 * counts.mean() + 16 and any(m is not None for m in self._members):
            self._cut(center)
            first, last = np.searchsorted(self._cuts, lo, "right"), np.searchsorted(self._cuts, hi, "right")
            need = [(first <= k) & (last >= k) for k in range(self.tiles)]
        near = None
        edges = np.concatenate([[-np.inf], self._cuts, [np.inf]])
        results: dict = {}
        rebuilt = [False] * self.tiles
        todo = list(range(self.tiles))
        for attempt in range(_TRIES):
            calls = {}
            for k in todo:
                members = None
                if self._members[k] is None or (need[k] & ~self._member[k]).any():
                    if near is None:  # the tiles each body's circle and slack reach, once a step
                        near = [np.searchsorted(self._cuts, x, "right") for x in (lo - self._slack, hi + self._slack)]
                    self._member[k] = (near[0] <= k) & (near[1] >= k)
                    members = self._members[k] = np.flatnonzero(self._member[k]).astype(np.uint32)
                    self._sent += 1
                    self._epochs[k] = self._sent
                m = self._members[k]
                filters = None
                if self._filters is not None and (members is not None or not self._filters_sent[k]):
                    filters = tuple(np.ascontiguousarray(f[m]) for f in self._filters)
                    self._filters_sent[k] = True
                rebuilt[k] |= members is not None
                epoch = self._epochs[k]
                calls[k] = self._tiles[k].frame.remote(epoch, members, filters, xy[m], angle[m], lo[m], edges[k : k + 2])
            if attempt == 0:
                sent = time.perf_counter()
            faults = self._gather(calls, results)
            if not faults:
                break
            for k, (_, _, dead) in faults.items():
                # Started again next try: a new actor where it is gone, a new world in any case.
                self._members[k] = None
                self._filters_sent[k] = False
                if dead:
                    self._replace(k)
            todo = sorted(faults)
        else:
            tiles = sorted(faults)
            causes = [f"tile {k}: {faults[k][0]}" for k in tiles]
            raise satgpu.TileError(
                f"{len(tiles)} of {self.tiles} tiles failed {_TRIES} times in this step: " + "; ".join(causes),
                tiles,
                causes,
            ) from next((faults[k][1] for k in tiles if faults[k][1] is not None), None)
        got = time.perf_counter()
        results = [results[k] for k in range(self.tiles)]
        found = [rows for rows, _ in results if rows is not None and len(rows["a"])]
        if found:
            rows = {key: np.concatenate([f[key] for f in found]) for key in found[0]}
            keys = _pairs(np.stack([rows["a"], rows["b"]], axis=1))
            order = np.argsort(keys, kind="stable")
            rows = {key: v[order] for key, v in rows.items()}
            keys = keys[order]
        else:
            rows, keys = _empty(self._contacts, self._compound), np.zeros(0, np.uint64)
        if self._events:
            before = np.zeros(0, np.uint64) if self._last is None else self._last
            self._changes = (_rows(np.setdiff1d(keys, before)), _rows(np.setdiff1d(before, keys)))
            self._last = keys
        tile_stats = [dict(stats, rebuilt=r) for (_, stats), r in zip(results, rebuilt)]
        end = time.perf_counter()
        self.stats = {
            "frame_ms": 1e3 * (end - start),
            "send_ms": 1e3 * (sent - start),
            "wait_ms": 1e3 * (got - sent),
            "merge_ms": 1e3 * (end - got),
            "colliding": len(keys),
            "retries": attempt,
            "tiles": tile_stats,
        }
        return Contacts(**rows)

    def _gather(self, calls: dict, results: dict) -> dict:
        """Waits (at most the world's answer time) for each tile's frame; puts the answers in
        `results` and returns the faults, `{tile: (cause, Ray's exception, actor gone)}`."""
        faults = {}
        try:
            _, late = ray.wait(list(calls.values()), num_returns=len(calls), timeout=self._wait)
            for k, ref in calls.items():
                if any(ref == r for r in late):
                    faults[k] = (f"did not answer within {self._wait:g} s", None, True)
                    continue
                try:
                    rows, stats = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    cause = getattr(e, "cause", None) or e
                    faults[k] = (f"raised {type(cause).__name__}: {cause}", e, False)
                except ray.exceptions.RayError as e:
                    faults[k] = (f"its actor was lost ({type(e).__name__})", e, True)
                else:
                    if stats is None:
                        faults[k] = ("its actor had lost its world (restarted by Ray)", None, False)
                    else:
                        results[k] = (rows, stats)
        except BaseException as e:
            # A tile may have stopped halfway through a rebuild: every tile is rebuilt next step.
            self._members = [None] * self.tiles
            self._filters_sent = [False] * self.tiles
            if isinstance(e, Exception) and not ray.is_initialized():
                self._ray_gone = True
                raise self._no_ray(e) from e
            raise
        return faults

    def _replace(self, k: int) -> None:
        """A new actor for tile `k`, started from the driver's copies (the old one ended)."""
        try:
            ray.kill(self._tiles[k], no_restart=True)
        except Exception:  # already gone
            pass
        self._tiles[k] = self._actor.remote(*self._args)

    def _no_ray(self, cause) -> "satgpu.TileError":
        tiles = list(range(self.tiles))
        why = "Ray is not running (ray.shutdown() was called or its cluster was lost)"
        return satgpu.TileError(
            f"{why}: call ray.init() again, and the next step starts every tile anew", tiles, [why] * len(tiles)
        )

    def events(self):
        """With `events=True`: `(began, ended)` as `World.events` gives them; `None` without."""
        if not self._events:
            return None
        if self._changes is None:
            return (np.zeros((0, 2), np.uint32), np.zeros((0, 2), np.uint32))
        return self._changes

    def close(self) -> None:
        """Ends the tile actors (also done when the world is collected)."""
        for tile in self._tiles:
            try:
                ray.kill(tile, no_restart=True)
            except Exception:  # already gone, or Ray is
                pass
        self._tiles = []

    def __enter__(self) -> "TiledWorld":
        return self

    def __exit__(self, *_) -> None:
        self.close()

