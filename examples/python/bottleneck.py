"""A crowd through a bottleneck with JuPedSim's collision-free speed model, every step on the
GPU: the walkable area as WKT, the agents as a NumPy array, their trajectories drawn with
matplotlib (and the flow printed).

    .venv/bin/pip install ./python matplotlib
    .venv/bin/python examples/python/bottleneck.py --n 300 --width 1.2 --out bottleneck.png
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import satgpu  # noqa: E402
from satgpu.crowd import bottleneck  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="agents")
    parser.add_argument("--width", type=float, default=1.2, help="the bottleneck's width (m)")
    parser.add_argument("--max-time", type=float, default=300.0, help="seconds at most")
    parser.add_argument("--out", default="bottleneck.png")
    args = parser.parse_args()

    scene = bottleneck(args.width, args.n, seed=1)  # a WKT area, an exit box, n x 2 positions
    crowd = satgpu.Crowd(scene.geometry, scene.exit, scene.positions)
    tracks = [crowd.positions()]
    while crowd.iterate(50) and crowd.elapsed_time < args.max_time:  # 0.5 s between samples
        tracks.append(crowd.positions())
    tracks.append(crowd.positions())
    out = crowd.evacuation()
    flow = f"{out.flow:.2f} agents/s" if out.flow else "n/a"
    print(f"{args.n} agents, {args.width} m: {len(out.exit_times)} out in {crowd.elapsed_time:.1f} s, flow {flow}")

    tracks = np.stack(tracks)  # samples x agents x 2
    left = crowd.exit_times()
    fig, ax = plt.subplots(figsize=(8, 6))
    for k, ring in enumerate(scene.rings()):
        ax.fill(ring[:, 0], ring[:, 1], color="#f2f2f2" if k == 0 else "white", edgecolor="black")
    x0, y0, x1, y1 = scene.exit
    ax.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, color="#8fd18f", label="exit"))
    colours = plt.cm.viridis(np.nan_to_num(left, nan=np.nanmax(left, initial=1.0)) / np.nanmax(left, initial=1.0))
    for i in range(args.n):
        ax.plot(tracks[:, i, 0], tracks[:, i, 1], lw=0.5, color=colours[i])
    ax.set_aspect("equal")
    ax.set_title(f"{args.n} agents through {args.width} m: trajectories, coloured by exit time ({flow})")
    ax.legend(loc="upper left")
    fig.savefig(args.out, dpi=80, bbox_inches="tight")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
