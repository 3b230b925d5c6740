"""satgpu's collision-free speed model (and its V2, and the anticipation velocity model) beside
JuPedSim 1.4.2's, in one run on one machine.

    python scripts/jupedsim_compare.py agreement [--seeds 5] [--n 150] [--corners 120] [--scenes S,..]
                                                 [--backend gpu|cpu] [--model cfsm|cfsm-v2|avm] [--json OUT.json]
    python scripts/jupedsim_compare.py steps [--steps 20] [--backend gpu|cpu]
    python scripts/jupedsim_compare.py studies [--seeds 5]
    python scripts/jupedsim_compare.py timing [--sizes 1000,10000,100000,1000000] [--steps 20] [--satgpu-only]

`agreement`: the bottleneck of `satgpu.crowd.bottleneck` at 1.0, 1.2 and 2.0 m, the room of
`satgpu.crowd.room`, and corridors 2.4 m wide that turn (`corner`: 90 degrees, `u_turn`, `zigzag`:
two turns, one each way), over several seeds (`--scenes`: the names' starts to run, as "corner,u"):
the same area, starting positions and parameters
(JuPedSim's defaults) in both; evacuation time and flow (agents per second over the middle 80 %
of exits) of each, and their ratio. `studies`: issue 66's studies, built with JuPedSim's own
API (two exits dealt by a round robin, waypoints round a pillar, agents arriving into a
bottleneck, CollisionFreeSpeedModelV2), their evacuation time, flow and exit shares. `timing`:
milliseconds per step of the room from 1,000 to 1,000,000 agents, satgpu plain and with journeys
on, JuPedSim with journeys, in turns; JuPedSim stops where one step takes over a minute.
`steps`: the anticipation velocity model's first steps of a bottleneck, agent by agent: how far
each of satgpu's agents is from JuPedSim's.
Needs `pip install jupedsim` beside satgpu (and shapely, which JuPedSim installs)."""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from dataclasses import dataclass

import numpy as np

import satgpu
from satgpu.crowd import Exit, Fixed, Journey, RoundRobin, Source, Waypoint, bottleneck, corner, flow, room, u_turn, zigzag


REPULSION = ("strength_neighbor_repulsion", "range_neighbor_repulsion", "strength_geometry_repulsion",
             "range_geometry_repulsion")


def own_repulsion(n: int, seed: int) -> dict:
    """For CollisionFreeSpeedModelV2: each of `n` agents' own repulsion, drawn (seeded) from
    wide ranges about JuPedSim's defaults (8, 0.1 m, 5, 0.02 m)."""
    rng = np.random.default_rng(1000 + seed)
    ranges = ((4.0, 12.0), (0.06, 0.15), (3.0, 8.0), (0.01, 0.04))
    return {name: rng.uniform(lo, hi, n) for name, (lo, hi) in zip(REPULSION, ranges)}


def jupedsim_model(model: str, rng_seed: int = 0):
    """JuPedSim's model by satgpu's name, and the class of its agents' parameters."""
    import jupedsim as jps

    return {
        "cfsm": (jps.CollisionFreeSpeedModel, jps.CollisionFreeSpeedModelAgentParameters),
        "cfsm-v2": (jps.CollisionFreeSpeedModelV2, jps.CollisionFreeSpeedModelV2AgentParameters),
        "avm": (lambda: jps.AnticipationVelocityModel(rng_seed=rng_seed), jps.AnticipationVelocityModelAgentParameters),
    }[model]


def jupedsim_run(scenario, max_time: float, dt: float = 0.01, steps: int | None = None, model: str = "cfsm",
                 own: dict | None = None, rng_seed: int = 0) -> dict:
    """JuPedSim's CollisionFreeSpeedModel (its defaults; `model` "cfsm-v2": its V2, with the
    agents' `own` repulsion, name -> one value per agent) on `scenario`: the exit box an exit
    stage, every agent's journey to it. Returns sorted `exit_times` (s), the agents
    `remaining`, and `step_ms` (wall clock per iteration). With `steps`, runs that many
    iterations only."""
    import jupedsim as jps
    import shapely

    kind, parameters = jupedsim_model(model, rng_seed)
    sim = jps.Simulation(model=kind(), geometry=shapely.from_wkt(scenario.geometry), dt=dt)
    exit_id = sim.add_exit_stage(shapely.box(*scenario.exit))
    journey = sim.add_journey(jps.JourneyDescription([exit_id]))
    for i, (x, y) in enumerate(scenario.positions):
        mine = {name: float(values[i]) for name, values in (own or {}).items()}
        sim.add_agent(parameters(journey_id=journey, stage_id=exit_id, position=(float(x), float(y)), **mine))
    present = sim.agent_count()
    times = []
    started = time.perf_counter()
    iterations = 0
    while sim.agent_count() > 0 and sim.elapsed_time() < max_time and (steps is None or iterations < steps):
        sim.iterate()
        iterations += 1
        now = sim.agent_count()
        # JuPedSim removes an agent the iteration after the one that found it in the exit.
        times.extend([sim.elapsed_time()] * (present - now))
        present = now
    ms = (time.perf_counter() - started) * 1e3 / max(iterations, 1)
    return {"exit_times": sorted(times), "remaining": sim.agent_count(), "step_ms": ms}


def timed(crowd, max_time: float, steps: int | None):
    """Runs `crowd` until everyone has left or `max_time` (or `steps` steps); its evacuation and
    the wall-clock milliseconds per step."""
    started = time.perf_counter()
    if steps is None:
        out = crowd.run(max_time)
    else:
        crowd.iterate(steps)
        out = crowd.evacuation()
    return out, (time.perf_counter() - started) * 1e3 / max(crowd.steps, 1)


def satgpu_run(scenario, max_time: float, dt: float = 0.01, backend: str = "gpu", steps: int | None = None,
               model: str = "cfsm", own: dict | None = None, rng_seed: int = 0) -> dict:
    """satgpu's run of what `jupedsim_run` runs, on the GPU or its f64 reference (`backend`)."""
    seed = {"rng_seed": rng_seed} if model == "avm" else {}
    crowd = satgpu.Crowd(scenario.geometry, scenario.exit, scenario.positions, dt=dt, backend=backend, model=model,
                         **seed, **(own or {}))
    out, ms = timed(crowd, max_time, steps)
    return {"exit_times": list(map(float, out.exit_times)), "remaining": out.remaining, "step_ms": ms}


@dataclass(frozen=True)
class Routed:
    """A scene with journeys: the area (WKT), the agents' starting `positions`, satgpu's
    `stages` (Waypoint, Exit) and `journeys` (Journey), every agent on journey 0 heading for
    its stage 0."""

    geometry: str
    positions: np.ndarray
    stages: list
    journeys: list


def two_exits(n: int = 120, seed: int = 1) -> Routed:
    """A corridor 30 m by 4 m with an exit at each end, and a room 8 m wide above its middle, open
    to it; `n` agents on a jittered grid in the room walk down to a waypoint in the corridor's
    middle (2 m), where a round robin deals them the left exit twice for each right one."""
    rows = 14
    k = np.arange(n)
    xy = np.stack([11.6 + 0.5 * (k % rows), 5.0 + 0.5 * (k // rows)], axis=1)
    xy = xy + np.random.default_rng(seed).uniform(-0.04, 0.04, size=(n, 2))
    top = max(12.0, 5.0 + 0.5 * (n // rows) + 1.0)
    area = f"POLYGON ((0 0, 30 0, 30 4, 19 4, 19 {top}, 11 {top}, 11 4, 0 4, 0 0))"
    stages = [Waypoint((15.0, 2.0), 2.0), Exit([(0, 0), (0.5, 0), (0.5, 4), (0, 4)]),
              Exit([(29.5, 0), (30, 0), (30, 4), (29.5, 4)])]
    journeys = [Journey([0, 1, 2], {0: RoundRobin([(1, 2), (2, 1)])})]
    return Routed(area, xy, stages, journeys)


def pillar(n: int = 100, seed: int = 1) -> Routed:
    """A room 14 m by 10 m with a pillar 4 m by 6 m in its middle; `n` agents from its lower
    left pass waypoints (1.5 m) over the pillar's two upper corners to an exit 2 m wide in the
    middle of its right wall."""
    rows = 12
    k = np.arange(n)
    xy = np.stack([0.6 + 0.5 * (k // rows), 0.6 + 0.5 * (k % rows)], axis=1)
    xy = xy + np.random.default_rng(seed).uniform(-0.04, 0.04, size=(n, 2))
    area = "POLYGON ((0 0, 14 0, 14 10, 0 10, 0 0), (5 1, 9 1, 9 7, 5 7, 5 1))"
    stages = [Waypoint((4.5, 8.0), 1.5), Waypoint((9.5, 8.0), 1.5), Exit([(13.5, 4), (14, 4), (14, 6), (13.5, 6)])]
    return Routed(area, xy, stages, [Journey.through([0, 1, 2])])


def jupedsim_routed(scene: Routed, max_time: float, dt: float = 0.01, steps: int | None = None) -> dict:
    """JuPedSim's CollisionFreeSpeedModel on `scene`'s journeys; `exit_times` (sorted) and
    `exits`, per agent the stage (satgpu's index) it left by."""
    import jupedsim as jps
    import shapely

    sim = jps.Simulation(model=jps.CollisionFreeSpeedModel(), geometry=shapely.from_wkt(scene.geometry), dt=dt)
    ids = []
    for stage in scene.stages:
        if isinstance(stage, Waypoint):
            ids.append(sim.add_waypoint_stage(tuple(map(float, stage.position)), float(stage.distance)))
        else:
            ids.append(sim.add_exit_stage(shapely.Polygon(stage.points())))
    journeys = []
    for journey in scene.journeys:
        description = jps.JourneyDescription([ids[s] for s in journey.stages])
        for s, t in journey.transitions.items():
            if isinstance(t, Fixed):
                made = jps.Transition.create_fixed_transition(ids[t.stage])
            elif isinstance(t, RoundRobin):
                made = jps.Transition.create_round_robin_transition([(ids[a], int(w)) for a, w in t.weighted])
            else:
                made = jps.Transition.create_least_targeted_transition([ids[a] for a in t.stages])
            description.set_transition_for_stage(ids[s], made)
        journeys.append(sim.add_journey(description))
    first = ids[scene.journeys[0].stages[0]]
    agents = [sim.add_agent(jps.CollisionFreeSpeedModelAgentParameters(journey_id=journeys[0], stage_id=first,
                                                                        position=(float(x), float(y))))
              for x, y in scene.positions]
    index = {stage_id: k for k, stage_id in enumerate(ids)}
    last = {a: first for a in agents}
    times, exits = [], {}
    started, iterations = time.perf_counter(), 0
    while sim.agent_count() > 0 and sim.elapsed_time() < max_time and (steps is None or iterations < steps):
        sim.iterate()
        iterations += 1
        present = {a.id: a.stage_id for a in sim.agents()}
        for a in [a for a in last if a not in present]:
            times.append(sim.elapsed_time())
            exits[a] = index[last.pop(a)]
        last.update(present)
    ms = (time.perf_counter() - started) * 1e3 / max(iterations, 1)
    return {"exit_times": sorted(times), "remaining": sim.agent_count(), "step_ms": ms,
            "exits": [exits.get(a, -1) for a in agents]}


def satgpu_routed(scene: Routed, max_time: float, dt: float = 0.01, backend: str = "gpu",
                  steps: int | None = None) -> dict:
    """satgpu's run of what `jupedsim_routed` runs."""
    crowd = satgpu.Crowd(scene.geometry, positions=scene.positions, stages=scene.stages, journeys=scene.journeys,
                         dt=dt, backend=backend)
    out, ms = timed(crowd, max_time, steps)
    left = ~np.isnan(crowd.exit_times())
    exits = np.where(left, crowd.stages().astype(np.int64), -1)
    return {"exit_times": list(map(float, out.exit_times)), "remaining": out.remaining, "step_ms": ms,
            "exits": exits.tolist()}


ARRIVALS_BOX = (0.5, 1.0, 3.0, 9.0)


def jupedsim_arrivals(width: float, rate: float, count: int, seed: int, max_time: float, dt: float = 0.01,
                      every: int = 10) -> dict:
    """JuPedSim's CollisionFreeSpeedModel on `satgpu.crowd.bottleneck(width)`'s area, `count`
    agents arriving at `rate` per second at the places `satgpu.crowd.Source(ARRIVALS_BOX, rate,
    seed)` draws, looked at every `every` steps; one whose place is taken waits there (JuPedSim
    refuses it), and the rest behind it. Returns sorted `exit_times`."""
    import jupedsim as jps
    import shapely

    scene = bottleneck(width, 1, seed)
    sim = jps.Simulation(model=jps.CollisionFreeSpeedModel(), geometry=shapely.from_wkt(scene.geometry), dt=dt)
    exit_id = sim.add_exit_stage(shapely.box(*scene.exit))
    journey = sim.add_journey(jps.JourneyDescription([exit_id]))
    source = Source(ARRIVALS_BOX, rate, seed, count=count)
    made, waiting, times, present = 0, None, [], 0
    while (made < count or sim.agent_count() > 0) and sim.elapsed_time() < max_time:
        while made < count and made / rate <= sim.elapsed_time() + 1e-9:
            waiting = source.places(1)[0] if waiting is None else waiting
            try:
                sim.add_agent(jps.CollisionFreeSpeedModelAgentParameters(
                    journey_id=journey, stage_id=exit_id, position=(float(waiting[0]), float(waiting[1]))))
            except RuntimeError:
                break
            waiting, made, present = None, made + 1, present + 1
        for _ in range(every):
            sim.iterate()
            now = sim.agent_count()
            times.extend([sim.elapsed_time()] * (present - now))
            present = now
    return {"exit_times": sorted(times), "remaining": count - len(times), "step_ms": 0.0}


def satgpu_arrivals(width: float, rate: float, count: int, seed: int, max_time: float, dt: float = 0.01,
                    every: int = 10, backend: str = "gpu") -> dict:
    """satgpu's run of what `jupedsim_arrivals` runs, fed by `satgpu.crowd.Source`."""
    scene = bottleneck(width, 1, seed)
    crowd = satgpu.Crowd(scene.geometry, scene.exit, np.zeros((0, 2)), dt=dt, backend=backend)
    source = Source(ARRIVALS_BOX, rate, seed, count=count)
    added = 0
    while (added < count or crowd.agent_count() > 0) and crowd.elapsed_time < max_time:
        added += len(source.feed(crowd))
        crowd.iterate(every)
    out = crowd.evacuation()
    return {"exit_times": list(map(float, out.exit_times)), "remaining": count - len(out.exit_times), "step_ms": 0.0}


def shares(run: dict, exits: list) -> list:
    """The share of the agents that left by each of `exits` (stage indices)."""
    left = [e for e in run["exits"] if e >= 0]
    return [sum(e == x for e in left) / max(len(left), 1) for x in exits]


def summary(run: dict) -> dict:
    t = run["exit_times"]
    return {
        "evacuation_time": t[-1] if t and run["remaining"] == 0 else None,
        "flow": flow(t),
        "remaining": run["remaining"],
        "step_ms": run["step_ms"],
    }


def agreement(args) -> list:
    rows = []
    scenes = [(f"bottleneck {w} m", lambda s, w=w: bottleneck(w, args.n, s)) for w in (1.0, 1.2, 2.0)]
    scenes.append((f"room, {args.room} agents", lambda s: room(args.room, s)))
    for make in (corner, u_turn, zigzag):
        scenes.append((f"{make.__name__} 2.4 m", lambda s, make=make: make(2.4, args.corners, s)))
    if args.scenes:
        scenes = [(name, make) for name, make in scenes if any(name.startswith(w) for w in args.scenes.split(","))]
    for name, make in scenes:
        for seed in range(1, args.seeds + 1):
            scene = make(seed)
            own = own_repulsion(len(scene.positions), seed) if args.model == "cfsm-v2" else None
            j = summary(jupedsim_run(scene, args.max_time, model=args.model, own=own, rng_seed=seed))
            g = summary(satgpu_run(scene, args.max_time, backend=args.backend, model=args.model, own=own,
                                   rng_seed=seed))
            rows.append({"scene": name, "seed": seed, "jupedsim": j, "satgpu": g})
            print(
                f"{name:<22} seed {seed}: evacuation {j['evacuation_time']} / {g['evacuation_time']} s, "
                f"flow {j['flow'] and round(j['flow'], 3)} / {g['flow'] and round(g['flow'], 3)} per s "
                f"(JuPedSim / satgpu), remaining {j['remaining']} / {g['remaining']}",
                flush=True,
            )
    print("\nscene                  evacuation JuPedSim  satgpu  ratio | flow JuPedSim  satgpu  ratio | jammed runs")
    for name, _ in scenes:
        mine = [r for r in rows if r["scene"] == name]
        done = [r for r in mine if r["jupedsim"]["evacuation_time"] and r["satgpu"]["evacuation_time"]]
        jammed = (sum(r["jupedsim"]["remaining"] > 0 for r in mine), sum(r["satgpu"]["remaining"] > 0 for r in mine))
        def mean(side, key, rs):
            values = [r[side][key] for r in rs if r[side][key] is not None]
            return statistics.mean(values) if values else float("nan")

        te, tg = mean("jupedsim", "evacuation_time", done), mean("satgpu", "evacuation_time", done)
        fe, fg = mean("jupedsim", "flow", mine), mean("satgpu", "flow", mine)
        print(
            f"{name:<22} {te:>13.2f} {tg:>7.2f} {tg / te:>6.3f} | {fe:>13.3f} {fg:>7.3f} {fg / fe:>6.3f} | "
            f"{jammed[0]} / {jammed[1]} of {len(mine)}"
        )
    return rows


def steps_apart(scene, steps: int, backend: str = "cpu", rng_seed: int = 0, dt: float = 0.01) -> np.ndarray:
    """The anticipation velocity model on `scene` for `steps` steps in JuPedSim and in satgpu:
    per agent, how far apart the two put it (m)."""
    import jupedsim as jps
    import shapely

    kind, parameters = jupedsim_model("avm", rng_seed)
    sim = jps.Simulation(model=kind(), geometry=shapely.from_wkt(scene.geometry), dt=dt)
    exit_id = sim.add_exit_stage(shapely.box(*scene.exit))
    journey = sim.add_journey(jps.JourneyDescription([exit_id]))
    ids = [sim.add_agent(parameters(journey_id=journey, stage_id=exit_id, position=(float(x), float(y))))
           for x, y in scene.positions]
    crowd = satgpu.Crowd(scene.geometry, scene.exit, scene.positions, dt=dt, backend=backend, model="avm",
                         rng_seed=rng_seed)
    for _ in range(steps):
        sim.iterate()
    crowd.iterate(steps)
    theirs = {a.id: a.position for a in sim.agents()}
    return np.array([np.hypot(*(p - np.array(theirs[i]))) for i, p in zip(ids, crowd.positions())])


def steps(args) -> list:
    scene = bottleneck_spaced(2.0, 40, 1, 1.0, 8)
    apart = steps_apart(scene, args.steps, args.backend, rng_seed=1)
    print(f"after {args.steps} steps, agents apart from JuPedSim's (m): " + " ".join(f"{d:.1e}" for d in apart))
    print(f"{(apart <= 1e-9).sum()} of {len(apart)} within 1e-9 m")
    return [{"steps": args.steps, "apart": apart.tolist()}]


def bottleneck_spaced(width: float, n: int, seed: int, apart: float, rows: int):
    """`satgpu.crowd.bottleneck`'s area with `n` agents `apart` m apart, `rows` to a column."""
    scene = bottleneck(width, n, seed)
    rng = np.random.default_rng(seed)
    k = np.arange(n)
    xy = np.stack([0.5 + apart * (k // rows), 0.75 + apart * (k % rows)], axis=1) + rng.uniform(-0.04, 0.04, (n, 2))
    return type(scene)(scene.geometry, scene.exit, xy)


def room_routed(n: int, seed: int = 1) -> Routed:
    """`room(n, seed)` with journeys on: every agent heads for a waypoint in the room's middle
    (a quarter of its side), then a round robin deals it the exit on the right wall or one on the
    left."""
    scene = room(n, seed)
    x0, y0, x1, y1 = scene.exit
    size = x1
    stages = [Waypoint((size / 2, size / 2), size / 4), Exit([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]),
              Exit([(0, y0), (0.5, y0), (0.5, y1), (0, y1)])]
    return Routed(scene.geometry, scene.positions, stages, [Journey([0, 1, 2], {0: RoundRobin([(1, 1), (2, 1)])})])


def timing(args) -> list:
    """Milliseconds per step of the room, plain and with journeys on (`room_routed`): satgpu
    both ways and their ratio, JuPedSim with journeys."""
    rows = []
    jupedsim_on = True
    for n in [int(v) for v in args.sizes.split(",")]:
        row = {"n": n}
        row["satgpu_ms"] = satgpu_run(room(n, 1), 1e9, steps=args.steps)["step_ms"]
        row["satgpu_journeys_ms"] = satgpu_routed(room_routed(n, 1), 1e9, steps=args.steps)["step_ms"]
        if jupedsim_on and not args.satgpu_only:
            row["jupedsim_ms"] = jupedsim_routed(room_routed(n, 1), 1e9, steps=args.steps)["step_ms"]
            jupedsim_on = row["jupedsim_ms"] < 60_000
        rows.append(row)
        j = row.get("jupedsim_ms")
        print(f"{n:>9} agents: satgpu {row['satgpu_ms']:.2f} ms/step plain, {row['satgpu_journeys_ms']:.2f} with "
              f"journeys ({row['satgpu_journeys_ms'] / row['satgpu_ms']:.2f}x); JuPedSim with journeys "
              f"{j and round(j, 2)} ms/step", flush=True)
    return rows


def studies(args) -> list:
    """The studies of issue 66 beside JuPedSim, `args.seeds` seeds each: two exits dealt by a
    round robin, waypoints round a pillar, arrivals into a bottleneck, and the bottleneck under
    CollisionFreeSpeedModelV2 with each agent's own repulsion."""
    runs = {
        "two exits, round robin (120)": (lambda s: jupedsim_routed(two_exits(120, s), args.max_time),
                                         lambda s: satgpu_routed(two_exits(120, s), args.max_time), [1, 2]),
        "waypoints round a pillar (100)": (lambda s: jupedsim_routed(pillar(100, s), args.max_time),
                                           lambda s: satgpu_routed(pillar(100, s), args.max_time), [2]),
        "arrivals, 2/s into 1.2 m (60)": (lambda s: jupedsim_arrivals(1.2, 2.0, 60, s, args.max_time),
                                          lambda s: satgpu_arrivals(1.2, 2.0, 60, s, args.max_time), None),
        "V2 bottleneck 2 m (150)": (
            lambda s: jupedsim_run(bottleneck(2.0, 150, s), args.max_time, model="cfsm-v2", own=own_repulsion(150, s)),
            lambda s: satgpu_run(bottleneck(2.0, 150, s), args.max_time, model="cfsm-v2", own=own_repulsion(150, s)),
            None),
    }
    rows = []
    print("study                            evacuation JuPedSim  satgpu  ratio | flow JuPedSim  satgpu  ratio | shares")
    for name, (theirs, ours, exits) in runs.items():
        j = [theirs(seed) for seed in range(1, args.seeds + 1)]
        g = [ours(seed) for seed in range(1, args.seeds + 1)]
        mean = lambda rs, key: statistics.mean(summary(r)[key] for r in rs)  # noqa: E731
        te, tg, fe, fg = mean(j, "evacuation_time"), mean(g, "evacuation_time"), mean(j, "flow"), mean(g, "flow")
        share = "" if exits is None else " / ".join(
            f"{100 * np.mean([shares(r, exits)[k] for r in j]):.1f} % : {100 * np.mean([shares(r, exits)[k] for r in g]):.1f} %"
            for k in range(len(exits)))
        rows.append({"study": name, "jupedsim": [summary(r) for r in j], "satgpu": [summary(r) for r in g]})
        print(f"{name:<32} {te:>13.2f} {tg:>7.2f} {tg / te:>6.3f} | {fe:>13.3f} {fg:>7.3f} {fg / fe:>6.3f} | {share}",
              flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["agreement", "studies", "timing", "steps"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n", type=int, default=150, help="agents in the bottleneck")
    parser.add_argument("--room", type=int, default=400, help="agents in the room")
    parser.add_argument("--corners", type=int, default=120, help="agents in the corridors that turn")
    parser.add_argument("--scenes", help="the scenes to run, by the start of their names (default: all)")
    parser.add_argument("--backend", choices=["gpu", "cpu"], default="gpu", help="satgpu's GPU or its f64 reference")
    parser.add_argument("--model", choices=["cfsm", "cfsm-v2", "avm"], default="cfsm",
                        help="cfsm-v2: each agent's own repulsion, drawn per seed about the defaults; avm: the "
                             "anticipation velocity model, its rng_seed the run's seed")
    parser.add_argument("--max-time", type=float, default=400.0)
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--satgpu-only", action="store_true", help="timing without JuPedSim (a machine without it)")
    parser.add_argument("--json")
    args = parser.parse_args()
    version = "not run"
    if not args.satgpu_only:
        import jupedsim

        version = jupedsim.__version__
    print(f"JuPedSim {version}; satgpu on {satgpu.default_gpu().adapter}; {platform.processor() or platform.machine()}")
    rows = {"agreement": agreement, "studies": studies, "timing": timing, "steps": steps}[args.what](args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
