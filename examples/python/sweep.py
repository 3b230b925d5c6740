"""A sweep on Ray: every (scene kind, size, seed) of a grid runs as one Ray task, with one GPU
each where the cluster has GPUs, and one table (CSV) and one plot gather what they measured.

    python examples/python/sweep.py --kinds crowd,mixed --sizes 1000,10000,100000 --seeds 1,2,3 \\
        --out sweep.csv --plot sweep.png

Without RAY_ADDRESS it starts a Ray of its own on this machine (a software adapter does where
there is no GPU); with RAY_ADDRESS (`ray://head:10001`, or `auto` on a cluster's node) it runs on
that cluster, whose nodes need satgpu installed (docs/distributed.md). Each task opens its own
`satgpu.Gpu`, builds a `World` of the generated scene, times a first step (cold: the world's
buffers and the frame) and then `--frames` frames (transforms in, pairs out), and checks its pairs
against the f64 reference up to `--check` bodies.
"""

import argparse
import csv
import itertools
import os
import socket
import statistics
import time

import numpy as np
import ray

COLUMNS = ["kind", "n", "seed", "pairs", "cold_ms", "frame_ms", "gpu_frame_ms", "differ", "adapter", "node"]


@ray.remote
def run_one(kind: str, n: int, seed: int, frames: int, adapter: str, check: int) -> dict:
    import satgpu
    import satgpu.ray

    gpu = satgpu.ray.assigned_gpu(adapter)  # the GPU Ray gave this task, by its PCI bus id
    shapes = satgpu.generate(kind, n, seed)
    xy, angle = np.zeros((n, 2)), np.zeros(n)
    start = time.perf_counter()
    world = satgpu.World(shapes, np.arange(n, dtype=np.uint32), gpu=gpu)
    world.set_transforms(xy, angle)
    pairs = world.step()
    cold = 1e3 * (time.perf_counter() - start)
    wall, inside = [], []
    for _ in range(frames):
        start = time.perf_counter()
        world.set_transforms(xy, angle)
        pairs = world.step()
        wall.append(1e3 * (time.perf_counter() - start))
        inside.append(world.stats["frame_ms"])
    differ = ""
    if n <= check:
        want = satgpu.reference.detect(shapes)
        got = set(zip(pairs.a.tolist(), pairs.b.tolist()))
        differ = len(got ^ set(zip(want.a.tolist(), want.b.tolist())))
    return {
        "kind": kind,
        "n": n,
        "seed": seed,
        "pairs": len(pairs),
        "cold_ms": round(cold, 3),
        "frame_ms": round(statistics.median(wall), 3),
        "gpu_frame_ms": round(statistics.median(inside), 3),
        "differ": differ,
        "adapter": gpu.adapter,
        "node": socket.gethostname(),
    }


def plot(rows: list, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for kind in sorted({r["kind"] for r in rows}):
        sizes = sorted({r["n"] for r in rows if r["kind"] == kind})
        ms = [[r["frame_ms"] for r in rows if r["kind"] == kind and r["n"] == n] for n in sizes]
        mid = [statistics.median(m) for m in ms]
        low = [m - min(v) for m, v in zip(mid, ms)]
        high = [max(v) - m for m, v in zip(mid, ms)]
        ax.errorbar(sizes, mid, yerr=[low, high], marker="o", capsize=3, label=kind)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bodies")
    ax.set_ylabel("ms per frame (seeds: median, range)")
    adapters = sorted({r["adapter"].split(" (")[0] for r in rows})
    ax.set_title(f"satgpu on {', '.join(adapters)}", fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="crowd,mixed,shapes", help="scene kinds, comma-separated")
    parser.add_argument("--sizes", default="1000,10000,100000", help="bodies, comma-separated")
    parser.add_argument("--seeds", default="1,2,3", help="scene seeds, comma-separated")
    parser.add_argument("--frames", type=int, default=5, help="timed frames after the first")
    parser.add_argument("--adapter", default="auto", choices=["auto", "software"])
    parser.add_argument("--check", type=int, default=10000, help="check the pairs against the reference up to this many bodies")
    parser.add_argument("--out", default="sweep.csv", help="the table (CSV)")
    parser.add_argument("--plot", default=None, help="the plot (PNG or SVG)")
    args = parser.parse_args()
    grid = list(
        itertools.product(
            args.kinds.split(","), (int(v) for v in args.sizes.split(",")), (int(v) for v in args.seeds.split(","))
        )
    )
    # The workers see the adapter choices this process was given (a local Ray's workers do
    # anyway; a cluster's get them from here).
    env = {k: v for k, v in os.environ.items() if k.startswith("WGPU_") or k == "XDG_RUNTIME_DIR"}
    ray.init(runtime_env={"env_vars": env}, include_dashboard=False, logging_level="ERROR")
    gpus = ray.cluster_resources().get("GPU", 0)
    task = run_one.options(num_gpus=1) if gpus > 0 else run_one.options(num_cpus=1)
    print(f"{len(grid)} tasks on {ray.cluster_resources().get('CPU', 0):.0f} CPUs and {gpus:.0f} GPUs")
    rows = ray.get([task.remote(kind, n, seed, args.frames, args.adapter, args.check) for kind, n, seed in grid])
    ray.shutdown()
    rows.sort(key=lambda r: (r["kind"], r["n"], r["seed"]))
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    print(" ".join(f"{c:>12}" for c in COLUMNS[:8]))
    for r in rows:
        print(" ".join(f"{r[c]!s:>12}" for c in COLUMNS[:8]))
    print(f"wrote {args.out}")
    if args.plot:
        plot(rows, args.plot)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
