"""Two crowds crossing in a corridor, stepped from Python: satgpu finds the contacts on the GPU,
NumPy walks the agents and pushes overlapping pairs apart. Saves a picture with matplotlib.

    .venv/bin/pip install ./python matplotlib
    .venv/bin/python examples/python/crowd.py --n 2000 --frames 300 --out crowd.png
"""

import argparse
import time

import numpy as np

import satgpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="agents, half walking each way")
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--out", default="crowd.png", help="the picture of the last frame")
    parser.add_argument("--adapter", default="auto", choices=["auto", "software"])
    args = parser.parse_args()

    rng = np.random.default_rng(1)
    radius, width = 0.25, 12.0
    length = args.n * (2 * radius) ** 2 * 2.0 / width  # each crowd fills a block of this length
    half = args.n // 2
    # Left crowd walks right (+x), right crowd walks left, both inside the corridor |y| <= width / 2.
    xy = np.empty((args.n, 2))
    xy[:half, 0] = -length - 2.0 + rng.random(half) * length
    xy[half:, 0] = 2.0 + rng.random(args.n - half) * length
    xy[:, 1] = (rng.random(args.n) - 0.5) * (width - 2 * radius)
    heading = np.where(np.arange(args.n) < half, 1.0, -1.0)
    speed, dt = 1.3, 0.05

    gpu = satgpu.Gpu(adapter=args.adapter)
    world = satgpu.World([satgpu.circle([0.0, 0.0], radius)], np.zeros(args.n, dtype=np.uint32), gpu=gpu)
    angle = np.zeros(args.n)
    touching = np.zeros(args.n)
    start, deepest = time.perf_counter(), []
    for _ in range(args.frames):
        # Walk, slower when pressed by others, with a little sideways drift so that the crowds
        # can pass each other.
        xy[:, 0] += heading * speed * dt / (1.0 + touching)
        xy[:, 1] += (rng.random(args.n) - 0.5) * 0.02
        # Resolve overlaps: a few rounds of detect on the GPU, push apart in NumPy.
        for _ in range(6):
            world.set_transforms(xy, angle)
            pairs = world.step()
            if len(pairs) == 0:
                break
            push = 0.5 * pairs.depth[:, None] * pairs.normal  # b moves along the normal, a against it
            np.add.at(xy, pairs.a, -push)
            np.add.at(xy, pairs.b, push)
            np.clip(xy[:, 1], -width / 2 + radius, width / 2 - radius, out=xy[:, 1])
        deepest.append(float(pairs.depth.max()) if len(pairs) else 0.0)
        touching = np.bincount(np.concatenate([pairs.a, pairs.b]), minlength=args.n).astype(float)
    seconds = time.perf_counter() - start
    print(
        f"{args.n} agents, {args.frames} frames in {seconds:.1f} s ({1e3 * seconds / args.frames:.1f} ms a frame) "
        f"on {gpu.adapter}; deepest overlap left {deepest[-1]:.4f} (radius {radius})"
    )

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import EllipseCollection

    fig, ax = plt.subplots(figsize=(14, 3.5))
    colours = np.where(heading > 0, "tab:blue", "tab:orange")
    ax.add_collection(
        EllipseCollection(2 * radius, 2 * radius, 0, units="xy", offsets=xy, offset_transform=ax.transData, facecolors=colours)
    )
    ax.axhline(width / 2, color="black")
    ax.axhline(-width / 2, color="black")
    ax.set_xlim(-28, 28)  # where the crowds meet
    ax.set_ylim(-width / 2 - 0.5, width / 2 + 0.5)
    ax.set_aspect("equal")
    ax.set_title(f"frame {args.frames}: {args.n} agents crossing")
    fig.savefig(args.out, dpi=100, bbox_inches="tight")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
