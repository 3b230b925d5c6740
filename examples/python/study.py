"""A bottleneck study end to end: the same scene run by JuPedSim 1.4.2 and by satgpu (each writing
JuPedSim's SQLite trajectory file), then both analysed by PedPy as a study would: the N-t diagram
at the bottleneck's entrance, the flow over time, and the Voronoi density in front of it.

    python examples/python/study.py [--n 150] [--width 1.2] [--seed 1] [--out study.png]

Needs `pip install jupedsim pedpy matplotlib` beside satgpu."""

import argparse
import sys
import tempfile
from pathlib import Path

# This folder holds bottleneck.py, which pandas (under PedPy) would import for its optional
# "bottleneck" package: look for packages elsewhere.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import jupedsim as jps  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pedpy  # noqa: E402
import shapely  # noqa: E402

import satgpu  # noqa: E402
from satgpu.crowd import bottleneck  # noqa: E402

DT, EVERY = 0.01, 4


def run_jupedsim(scene, path: Path, max_time: float) -> None:
    writer = jps.SqliteTrajectoryWriter(output_file=path, every_nth_frame=EVERY)
    sim = jps.Simulation(model=jps.CollisionFreeSpeedModel(), geometry=shapely.from_wkt(scene.geometry), dt=DT,
                         trajectory_writer=writer)
    exit_id = sim.add_exit_stage(shapely.box(*scene.exit))
    journey = sim.add_journey(jps.JourneyDescription([exit_id]))
    for x, y in scene.positions:
        sim.add_agent(jps.CollisionFreeSpeedModelAgentParameters(journey_id=journey, stage_id=exit_id,
                                                                  position=(float(x), float(y))))
    while sim.agent_count() > 0 and sim.elapsed_time() < max_time:
        sim.iterate(100)
    writer.close()


def run_satgpu(scene, path: Path, max_time: float) -> None:
    with satgpu.Crowd(scene.geometry, scene.exit, scene.positions, dt=DT, trajectory=path, every=EVERY) as crowd:
        crowd.run(max_time)


def analyse(path: Path, line, area) -> dict:
    """PedPy's N-t at `line`, the flow over 2 s windows, and the Voronoi density in `area`."""
    traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)
    walkable = pedpy.load_walkable_area_from_jupedsim_sqlite(trajectory_file=path)
    nt, crossing = pedpy.compute_n_t(traj_data=traj, measurement_line=line)
    speed = pedpy.compute_individual_speed(traj_data=traj, frame_step=5,
                                           speed_calculation=pedpy.SpeedCalculation.BORDER_SINGLE_SIDED)
    window = int(2 * traj.frame_rate)
    flow = pedpy.compute_flow(nt=nt, crossing_frames=crossing, individual_speed=speed, delta_frame=window,
                              frame_rate=traj.frame_rate)
    voronoi = pedpy.compute_individual_voronoi_polygons(traj_data=traj, walkable_area=walkable)
    density, _ = pedpy.compute_voronoi_density(individual_voronoi_data=voronoi, measurement_area=area)
    return {"nt": nt, "flow": flow, "density": density, "fps": traj.frame_rate}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--width", type=float, default=1.2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-time", type=float, default=300.0)
    parser.add_argument("--out", default="study.png")
    args = parser.parse_args()
    scene = bottleneck(args.width, args.n, args.seed)
    x = scene.exit[0] - 1.5  # the bottleneck's entrance (the room's right wall)
    lo, hi = scene.exit[1], scene.exit[3]
    line = pedpy.MeasurementLine([(x, lo), (x, hi)])
    area = pedpy.MeasurementArea([(x - 2.0, lo - 1.0), (x, lo - 1.0), (x, hi + 1.0), (x - 2.0, hi + 1.0)])
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, run in (("JuPedSim", run_jupedsim), ("satgpu", run_satgpu)):
            path = Path(folder) / f"{name}.sqlite"
            run(scene, path, args.max_time)
            results[name] = analyse(path, line, area)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for name, r in results.items():
        axes[0].plot(r["nt"]["time"], r["nt"]["cumulative_pedestrians"], label=name)
        axes[1].plot(r["flow"]["time"] if "time" in r["flow"] else r["flow"].index, r["flow"]["flow"], "o-", label=name)
        axes[2].plot(r["density"]["frame"] / r["fps"], r["density"]["density"], label=name)
        total = r["nt"]["cumulative_pedestrians"].iloc[-1]
        print(f"{name:<8} {total} crossed; mean flow {r['flow']['flow'].mean():.3f} /s; "
              f"peak Voronoi density {r['density']['density'].max():.2f} /m^2")
    for ax, (title, ylabel) in zip(axes, [("N-t at the entrance", "agents crossed"), ("flow (2 s windows)", "1/s"),
                                          ("Voronoi density in front", "1/m^2")]):
        ax.set_title(title)
        ax.set_xlabel("t (s)" if ax is not axes[1] else "window")
        ax.set_ylabel(ylabel)
        ax.legend()
    fig.suptitle(f"{args.n} agents through a {args.width} m bottleneck: JuPedSim 1.4.2 and satgpu, analysed by PedPy")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
