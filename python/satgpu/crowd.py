"""Pedestrians walking out of a walkable area: JuPedSim's collision-free speed model (Tordeux,
Chraibi and Seyfried, 2016, as JuPedSim 1.4 implements it, with its defaults), every step on the
GPU, or on satgpu's f64 reference with `backend="cpu"`.

    crowd = satgpu.Crowd("POLYGON ((0 0, 10 0, 10 4, 12 4, 12 6, 10 6, 10 10, 0 10, 0 0))",
                         exit=(11.5, 4, 12, 6), positions=xy)      # xy: n x 2
    while crowd.iterate(100):                                      # agents still walking
        frames.append(crowd.positions())
    print(crowd.evacuation().evacuation_time)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np

from . import _satgpu, errors


@dataclass(frozen=True)
class Evacuation:
    """How a crowd left: `exit_times` (sorted, s) of the agents that left, `evacuation_time`
    (the last of them, None while any remains), `remaining`, `flow` (agents per second over the
    middle 80 % of exits, None with fewer than 10) and `step_ms` (wall-clock ms per step, one
    figure per batch of steps the GPU ran)."""

    exit_times: np.ndarray
    evacuation_time: Optional[float]
    remaining: int
    flow: Optional[float]
    step_ms: List[float]


def flow(sorted_exit_times: Sequence[float]) -> Optional[float]:
    """Agents per second over the middle 80 % of sorted exit times (from the 10th to the 90th
    percentile's exit); None with fewer than 10."""
    t = np.asarray(sorted_exit_times, dtype=np.float64)
    n = len(t)
    if n < 10:
        return None
    first, last = n // 10, n - 1 - n // 10
    span = t[last] - t[first]
    return float((last - first) / span) if span > 0 else None


@dataclass(frozen=True)
class Scenario:
    """A walkable area (`geometry`, WKT), its `exit` box and the agents' starting `positions`
    (n x 2): what `Crowd` and JuPedSim both take."""

    geometry: str
    exit: tuple
    positions: np.ndarray

    def rings(self) -> list:
        """The area's rings as n x 2 arrays, the exterior first, then the holes (to draw it)."""
        exterior, holes = _satgpu.wkt_polygon(self.geometry)
        return [np.asarray(r, dtype=np.float64) for r in [exterior, *holes]]


def _grid(n: int, rows: int, x0: float, y0: float, seed: int) -> np.ndarray:
    """n points on a 0.5 m grid of `rows` rows from (x0, y0), column by column, each moved by up
    to 4 cm at random (so that no two agents start in a line)."""
    k = np.arange(n)
    xy = np.stack([x0 + 0.5 * (k // rows), y0 + 0.5 * (k % rows)], axis=1).astype(np.float64)
    return xy + np.random.default_rng(seed).uniform(-0.04, 0.04, size=(n, 2))


def bottleneck(width: float = 1.0, n: int = 100, seed: int = 1) -> Scenario:
    """A room 10 m high with a corridor `width` wide and 2 m long off the middle of its right
    wall, the exit the corridor's last half metre; `n` agents from the room's left wall on a
    jittered 0.5 m grid (18 rows; the room is 10 m long, or longer where the agents need it)."""
    length = max(10.0, 0.5 * -(-n // 18) + 1.0)
    lo, hi = 5.0 - width / 2, 5.0 + width / 2
    wkt = f"POLYGON ((0 0, {length} 0, {length} {lo}, {length + 2} {lo}, {length + 2} {hi}, {length} {hi}, {length} 10, 0 10, 0 0))"
    return Scenario(wkt, (length + 1.5, lo, length + 2, hi), _grid(n, 18, 0.5, 0.75, seed))


def _corridor(width: float, n: int, seed: int, way) -> Scenario:
    """A corridor `width` wide along y = 0 to `width` from x = 0, its `n` agents from its start
    on a jittered 0.5 m grid (as many rows as fit, 0.45 m from the walls), 2 m free before its
    first turn (round x = L - width; its outer wall at x = L): `way(L)` gives the outline from (L, 0) round to (L - width, width) and the
    exit box."""
    rows = max(1, int((width - 0.9) // 0.5) + 1)
    length = 0.5 * -(-n // rows) + 2.5 + width
    outline, exit = way(length)
    points = [(0, 0), *outline, (0, width), (0, 0)]
    wkt = "POLYGON ((" + ", ".join(f"{float(x)!r} {float(y)!r}" for x, y in points) + "))"
    return Scenario(wkt, exit, _grid(n, rows, 0.5, 0.45, seed))


def corner(width: float = 2.4, n: int = 120, seed: int = 1) -> Scenario:
    """A corridor `width` wide that turns left by 90 degrees and runs on 6 m; its agents start
    in its first leg, the exit is its last half metre."""
    w = width

    def way(x):
        top = w + 6
        return [(x, 0), (x, top), (x - w, top), (x - w, w)], (x - w, top - 0.5, x, top)

    return _corridor(width, n, seed, way)


def u_turn(width: float = 2.4, n: int = 120, seed: int = 1) -> Scenario:
    """A corridor `width` wide that turns back round the end of a wall 1 m thick and runs 6 m
    back above its first leg; its agents start in the first leg, the exit is its last half metre."""
    w = width

    def way(x):
        top = 2 * w + 1
        outline = [(x, 0), (x, top), (x - 6, top), (x - 6, w + 1), (x - w, w + 1), (x - w, w)]
        return outline, (x - 6, w + 1, x - 5.5, top)

    return _corridor(width, n, seed, way)


def zigzag(width: float = 2.4, n: int = 120, seed: int = 1) -> Scenario:
    """A corridor `width` wide that turns left, runs 3 m up, turns right and runs 4 m on: two
    turns, one each way; its agents start in the first leg, the exit is its last half metre."""
    w = width

    def way(x):
        outline = [(x, 0), (x, 3), (x + 4, 3), (x + 4, w + 3), (x - w, w + 3), (x - w, w)]
        return outline, (x + 3.5, 3, x + 4, w + 3)

    return _corridor(width, n, seed, way)


def room(n: int = 1000, seed: int = 1) -> Scenario:
    """A square room just large enough for `n` agents on a jittered 0.5 m grid (4 per square
    metre), its exit a 2 m wide, 0.5 m deep box against the middle of its right wall."""
    side = int(np.ceil(np.sqrt(n)))
    size = 0.5 * side + 1.5
    wkt = f"POLYGON ((0 0, {size} 0, {size} {size}, 0 {size}, 0 0))"
    return Scenario(wkt, (size - 0.5, size / 2 - 1, size, size / 2 + 1), _grid(n, side, 0.75, 0.75, seed))


MODELS = ("cfsm", "cfsm-v2", "avm")

# Each model's parameters of an agent beyond its speed, radius and time gap, with JuPedSim
# 1.4's defaults: the repulsion ("cfsm" one number for all agents), and the anticipation
# velocity model's ("avm").
_REPULSION = {
    "strength_neighbor_repulsion": 8.0,
    "range_neighbor_repulsion": 0.1,
    "strength_geometry_repulsion": 5.0,
    "range_geometry_repulsion": 0.02,
}
_ANTICIPATION = {"wall_buffer_distance": 0.1, "anticipation_time": 1.0, "reaction_time": 0.3}
_PARAMETERS = {
    "cfsm": _REPULSION,
    "cfsm-v2": _REPULSION,
    "avm": {**{k: _REPULSION[k] for k in ("strength_neighbor_repulsion", "range_neighbor_repulsion")}, **_ANTICIPATION},
}
_TIME_GAP = {"cfsm": 1.0, "cfsm-v2": 1.0, "avm": 1.06}


@dataclass(frozen=True)
class Waypoint:
    """A stage reached when an agent's centre comes within `distance` (m) of `position`."""

    position: tuple
    distance: float


@dataclass(frozen=True)
class Exit:
    """A stage that agents leave by: a convex `polygon` (n x 2 points, or a shapely Polygon);
    an agent that ends a step in it (its boundary counts) leaves."""

    polygon: object

    def points(self) -> np.ndarray:
        coords = getattr(getattr(self.polygon, "exterior", None), "coords", None)
        if coords is not None:
            return np.asarray(coords, dtype=np.float64)[:-1]
        return np.asarray(self.polygon, dtype=np.float64).reshape(-1, 2)


@dataclass(frozen=True)
class Fixed:
    """A transition to `stage`, always."""

    stage: int


@dataclass(frozen=True)
class RoundRobin:
    """A transition to the stages of `weighted`, (stage, weight) pairs, in turn, each as many
    times in a row as its weight (JuPedSim's round robin: one counter per journey and stage)."""

    weighted: Sequence


@dataclass(frozen=True)
class LeastTargeted:
    """A transition to the stage of `stages` that the fewest agents head for now (the first of
    those tied), counting every journey's agents and the choices of the agents before."""

    stages: Sequence


@dataclass(frozen=True)
class Journey:
    """Stages (indices into the crowd's `stages`) and the transition out of each
    (`transitions`: stage -> Fixed, RoundRobin or LeastTargeted; a stage without one keeps the
    agent there). `Journey.through([a, b, c])`: a to b to c."""

    stages: Sequence
    transitions: dict = field(default_factory=dict)

    @staticmethod
    def through(stages: Sequence) -> "Journey":
        return Journey(list(stages), {a: Fixed(b) for a, b in zip(stages, stages[1:])})


class Source:
    """Agents arriving at `rate` per second from time `start`, `count` of them (None: no end),
    each at a place drawn (seeded by `seed`) in `box` (x0, y0, x1, y1), with the agent
    parameters `params` (as `Crowd.add_agents` takes them, one number each).

    `source.feed(crowd)` adds every arrival due by the crowd's time, in order, and returns their
    indices; an arrival whose place is taken (it would touch an agent walking) waits there, and
    those after it wait behind it, until a later `feed` finds the place free."""

    def __init__(self, box, rate: float, seed: int = 1, start: float = 0.0, count=None, **params):
        if not rate > 0:
            raise ValueError(f"rate must be above 0 agents per second, got {rate!r}")
        self.box = tuple(float(v) for v in box)
        self.rate, self.start, self.count, self.params = float(rate), float(start), count, params
        self._rng = np.random.default_rng(seed)
        self._made = 0
        self._waiting = None

    def places(self, n: int) -> np.ndarray:
        """The places of the next `n` arrivals not yet drawn (what `feed` will use)."""
        x0, y0, x1, y1 = self.box
        return self._rng.uniform((x0, y0), (x1, y1), size=(n, 2))

    def feed(self, crowd: "Crowd") -> np.ndarray:
        added = []
        while self.count is None or self._made < self.count:
            due = self.start + self._made / self.rate
            if due > crowd.elapsed_time + 1e-9:
                break
            if self._waiting is None:
                self._waiting = self.places(1)
            try:
                added.extend(crowd.add_agents(self._waiting, **self.params).tolist())
            except errors.InvalidCrowdError as e:
                if "overlaps agent" not in str(e):
                    raise
                break
            self._waiting = None
            self._made += 1
        return np.asarray(added, dtype=np.int64)


def _stage_rows(stages) -> list:
    rows = []
    for k, stage in enumerate(stages):
        if isinstance(stage, Waypoint):
            x, y = stage.position
            rows.append((0, [float(x), float(y), float(stage.distance)]))
        elif isinstance(stage, Exit):
            rows.append((1, [float(v) for v in stage.points().ravel()]))
        else:
            raise ValueError(f"stage {k} must be a satgpu.crowd.Waypoint or Exit, got {type(stage).__name__}")
    return rows


def _journey_rows(journeys) -> list:
    rows = []
    for j, journey in enumerate(journeys):
        if not isinstance(journey, Journey):
            raise ValueError(f"journey {j} must be a satgpu.crowd.Journey, got {type(journey).__name__}")
        nodes = []
        for stage in journey.stages:
            t = journey.transitions.get(stage)
            if t is None:
                nodes.append((int(stage), 0, []))
            elif isinstance(t, Fixed):
                nodes.append((int(stage), 1, [(int(t.stage), 1)]))
            elif isinstance(t, RoundRobin):
                nodes.append((int(stage), 2, [(int(s), int(w)) for s, w in t.weighted]))
            elif isinstance(t, LeastTargeted):
                nodes.append((int(stage), 3, [(int(s), 1) for s in t.stages]))
            else:
                raise ValueError(f"journey {j}'s transition from stage {stage} must be Fixed, RoundRobin or LeastTargeted")
        if set(journey.transitions) - set(journey.stages):
            extra = sorted(set(journey.transitions) - set(journey.stages))
            raise ValueError(f"journey {j} has transitions from stages {extra} that are not among its stages")
        rows.append(nodes)
    return rows


class Crowd:
    """A crowd walking to an exit (see the module docs).

    `geometry`: the walkable area, a WKT `POLYGON` string (holes allowed) or a shapely
    `Polygon`; `exit`: the exit box `(x0, y0, x1, y1)`, inside the area; an agent that ends a
    step in it leaves. `positions`: n x 2 starting points; `desired_speed` (m/s), `radius` (m)
    and `time_gap` (s): one number for all or one per agent (JuPedSim's defaults 1.2, 0.2 and
    1.0; 1.06 under "avm"). `model`: "cfsm", JuPedSim's CollisionFreeSpeedModel, whose repulsion
    (`strength_neighbor_repulsion` 8, `range_neighbor_repulsion` 0.1 m,
    `strength_geometry_repulsion` 5, `range_geometry_repulsion` 0.02 m) is one number for all
    agents; "cfsm-v2", its CollisionFreeSpeedModelV2, where each may be one per agent (the
    repulsion an agent feels is its own); or "avm", its AnticipationVelocityModel, with
    `pushout_strength` (0.3) and `rng_seed` (0) for all and, one number or one per agent,
    `strength_neighbor_repulsion`, `range_neighbor_repulsion`, `wall_buffer_distance` (0.1 m),
    `anticipation_time` (1 s) and `reaction_time` (0.3 s). A parameter the model has not is a
    `ValueError`. In place of `exit`, `stages` (Waypoint and Exit) and
    `journeys` (Journey) route the agents as JuPedSim's journeys do, each agent on its
    `journey` heading for its `stage` first (one each or one per agent, indices). `dt`: seconds per step. `trajectory`: a path to write the agents' trajectories to, in
    JuPedSim's SQLite format (PedPy's `load_trajectory_from_jupedsim_sqlite` reads it): frame 0
    now, then a frame every `every` steps (JuPedSim's default 4), each with the agents walking
    and those that left in its step; agent ids are their indices plus 1. Bad input is an
    `InvalidCrowdError` (or `WktError`, `InvalidPolygonError`, `InvalidSettingError`) naming what
    is wrong; a trajectory file that cannot be written is a `SceneFileError` (an `OSError`)."""

    def __init__(
        self,
        geometry,
        exit: Optional[Sequence[float]] = None,
        positions=None,
        desired_speed=1.2,
        radius=0.2,
        time_gap=None,
        dt: float = 0.01,
        backend: str = "gpu",
        gpu=None,
        trajectory=None,
        every: int = 4,
        model: str = "cfsm",
        stages=None,
        journeys=None,
        journey=0,
        stage=0,
        pushout_strength: Optional[float] = None,
        rng_seed: Optional[int] = None,
        **parameters,
    ):
        from . import default_gpu

        if model not in MODELS:
            raise ValueError(f"model must be one of {', '.join(map(repr, MODELS))}, got {model!r}")
        area = geometry if isinstance(geometry, str) else getattr(geometry, "wkt", None)
        if not isinstance(area, str):
            raise ValueError("geometry must be a WKT POLYGON string or a shapely Polygon")
        self._model = model
        avm = {"pushout_strength": pushout_strength, "rng_seed": rng_seed}
        if model != "avm" and any(v is not None for v in avm.values()):
            raise ValueError(f"pushout_strength and rng_seed belong to model 'avm', not {model!r}")
        self._parameters = self._known(parameters)
        own = dict(desired_speed=desired_speed, radius=radius, time_gap=time_gap, journey=journey, stage=stage)
        agents = self._rows(positions, own, self._parameters)
        n = len(agents)
        if (stages is None) != (journeys is None) or (stages is None) == (exit is None):
            raise ValueError("give either exit=(x0, y0, x1, y1), or stages= and journeys=")
        if exit is not None:
            exit = tuple(float(v) for v in exit)
            if len(exit) != 4:
                raise ValueError(f"exit must be (x0, y0, x1, y1), got {len(exit)} numbers")
        stage_rows = None if stages is None else _stage_rows(stages)
        journey_rows = None if journeys is None else _journey_rows(journeys)
        if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
            raise ValueError(f"every must be a positive integer (steps between frames), got {every!r}")
        path = None if trajectory is None else os.fspath(trajectory)
        device = (gpu or default_gpu()) if backend == "gpu" else None
        pushout = 0.3 if pushout_strength is None else float(pushout_strength)
        seed = 0 if rng_seed is None else int(rng_seed)
        if not 0 <= seed < 2**64:
            raise ValueError(f"rng_seed must be an integer from 0 to 2**64 - 1, got {rng_seed!r}")
        self._crowd = _satgpu.Crowd(device, area, exit, agents, float(dt), backend, path, int(every), stage_rows,
                                    journey_rows, model, pushout, seed)
        self._walking = n

    def _known(self, parameters: dict) -> dict:
        """The model's agent parameters, JuPedSim's defaults where `parameters` has none; a
        parameter of another model is a ValueError."""
        known = _PARAMETERS[self._model]
        unknown = sorted(set(parameters) - set(known))
        if unknown:
            raise ValueError(f"model {self._model!r} has no agent parameters {unknown} (it has {sorted(known)})")
        return {**known, **parameters}

    def _rows(self, positions, own: dict, parameters: dict) -> np.ndarray:
        """The agents as the engine takes them: n x 14 rows of x, y, desired speed, radius, time
        gap, the four of the repulsion, the three of the anticipation, journey and stage."""
        if self._model == "cfsm":
            for name, value in parameters.items():
                if np.ndim(value) != 0:
                    raise ValueError(f"{name} is one number for all agents in model 'cfsm' (one per agent: 'cfsm-v2')")
        own = {**own, "time_gap": _TIME_GAP[self._model] if own["time_gap"] is None else own["time_gap"]}
        full = {**_REPULSION, **_ANTICIPATION, **parameters}
        if positions is None:
            raise ValueError("positions must be given: an n x 2 array of x, y")
        xy = np.asarray(positions, dtype=np.float64)
        if xy.ndim != 2 or xy.shape[1] != 2:
            raise ValueError(f"positions must be an n x 2 array of x, y, got shape {xy.shape}")
        n = len(xy)
        for name in ("journey", "stage"):
            ints = np.asarray(own[name])
            if ints.dtype.kind not in "iu" or (ints < 0).any():
                raise ValueError(f"{name} must be a non-negative integer or one per agent, got {own[name]!r}")
        columns = [xy[:, 0], xy[:, 1]]
        values = {k: own[k] for k in ("desired_speed", "radius", "time_gap")}
        values.update({k: full[k] for k in (*_REPULSION, *_ANTICIPATION)})
        values.update(journey=own["journey"], stage=own["stage"])
        for name, value in values.items():
            column = np.asarray(value, dtype=np.float64)
            if column.ndim > 1 or (column.ndim == 1 and len(column) != n):
                raise ValueError(f"{name} must be one number or one per agent ({n}), got shape {column.shape}")
            columns.append(np.broadcast_to(column, (n,)))
        return np.ascontiguousarray(np.stack(columns, axis=1).reshape(n, 14))

    def add_agents(self, positions, desired_speed=1.2, radius=0.2, time_gap=None, journey=0, stage=0,
                   **parameters) -> np.ndarray:
        """Adds agents between steps (JuPedSim's `add_agent`): `positions` n x 2, the rest one
        number or one per agent, as for the crowd (under "cfsm-v2" also the four of the
        repulsion, under "avm" its five; under "cfsm" the crowd's). Returns their indices, which
        follow every agent before (an agent's index never changes). Each must lie in the area,
        farther than its radius from the walls and apart from every agent walking now; else an
        `InvalidCrowdError` names it and no agent is added."""
        if self._model == "cfsm" and parameters:
            self._known(parameters)
            raise ValueError("the repulsion is the crowd's in model 'cfsm' (one per agent: 'cfsm-v2')")
        own = dict(desired_speed=desired_speed, radius=radius, time_gap=time_gap, journey=journey, stage=stage)
        rows = self._rows(positions, own, {**self._parameters, **self._known(parameters)})
        first, end = self._crowd.add_agents(rows)
        self._walking += end - first
        return np.arange(first, end)

    def switch_journey(self, agent: int, journey: int, stage: int) -> None:
        """Puts `agent` on `journey`, heading for its `stage` from the next step (JuPedSim's
        `switch_agent_journey`); an `InvalidCrowdError` names a journey, stage or agent that is
        not there, or an agent that has left, and the crowd stays as it was."""
        self._crowd.switch_journey(int(agent), int(journey), int(stage))

    def stages(self) -> np.ndarray:
        """Per agent, the stage it heads for now (uint64): where it left, for those that left."""
        return self._crowd.stages()

    def close(self) -> None:
        """Closes the trajectory file, if any; later steps write none. A `with` block closes it too."""
        self._crowd.close()

    def __enter__(self) -> "Crowd":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def iterate(self, steps: int = 1) -> int:
        """Runs `steps` steps, writing the trajectory's frames due on the way; returns the
        agents still walking (the clock runs on when none walks: agents may arrive). The GIL is
        released while they run."""
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
            raise ValueError(f"steps must be a non-negative integer, got {steps!r}")
        self._walking = self._crowd.iterate(int(steps))
        return self._walking

    def agent_count(self) -> int:
        """Agents still walking (as of the last `iterate`)."""
        return self._walking

    @property
    def steps(self) -> int:
        """Steps run so far."""
        return self._crowd.steps

    @property
    def elapsed_time(self) -> float:
        """Seconds simulated so far."""
        return self._crowd.steps * self._crowd.dt

    def positions(self) -> np.ndarray:
        """Every agent's position, n x 2 float64, in the order given (those that left stay where
        they left)."""
        return self._crowd.positions()

    def velocities(self) -> np.ndarray:
        """Every agent's velocity in its last step, n x 2 float64, under "avm" (zero before its
        first step, and always under "cfsm", whose agents keep none)."""
        return self._crowd.velocities()

    def exit_times(self) -> np.ndarray:
        """Per agent, the time it left (s), NaN while it walks."""
        steps = self._crowd.exit_steps()
        return np.where(steps > 0, steps * self._crowd.dt, np.nan)

    def evacuation(self) -> Evacuation:
        """The exits so far (see `Evacuation`)."""
        times = self.exit_times()
        left = np.sort(times[~np.isnan(times)])
        remaining = len(times) - len(left)
        last = float(left[-1]) if remaining == 0 and len(left) else None
        return Evacuation(left, last if len(times) else 0.0, remaining, flow(left), self._crowd.step_ms())

    def run(self, max_time: float) -> Evacuation:
        """Steps until everyone has left or `max_time` seconds have passed; the `evacuation`."""
        last = int(np.ceil(max_time / self._crowd.dt))
        while self._walking and self._crowd.steps < last:
            self.iterate(min(100, last - self._crowd.steps))
        return self.evacuation()
