"""Many runs in one World: a sweep of `--worlds` crowds of `--n` agents each (one circle shape,
each world its own random positions in the same square), stepped as one `World` with `worlds=`
against as many separate `World`s stepped one after the other. Prints the milliseconds per frame
of each (transforms in, pairs out, median of `--frames`) and checks that every world's pairs,
normals and depths are the same both ways.

    .venv/bin/python examples/python/worlds.py --worlds 1000 --n 1000 --frames 5
"""

import argparse
import time

import numpy as np

import satgpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=1000, help="worlds (runs)")
    parser.add_argument("--n", type=int, default=1000, help="agents in each world")
    parser.add_argument("--frames", type=int, default=5, help="timed frames (after one warm-up frame)")
    parser.add_argument("--adapter", default="auto", choices=["auto", "software"])
    args = parser.parse_args()
    gpu = satgpu.Gpu(adapter=args.adapter)
    count, n = args.worlds, args.n
    side = np.sqrt(n) * 0.8  # about one pair per agent
    xy = [np.random.default_rng(w).random((n, 2)) * side for w in range(count)]
    angle = np.zeros(n)
    shape = [satgpu.circle([0.0, 0.0], 0.3)]

    worlds = np.repeat(np.arange(count, dtype=np.uint32), n)
    together = satgpu.World(shape, np.zeros(count * n, dtype=np.uint32), gpu=gpu, worlds=worlds)
    all_xy, all_angle = np.concatenate(xy), np.zeros(count * n)
    one = []
    for i in range(1 + args.frames):
        start = time.perf_counter()
        together.set_transforms(all_xy, all_angle)
        pairs = together.step()
        if i > 0:
            one.append(1e3 * (time.perf_counter() - start))

    apart = [satgpu.World(shape, np.zeros(n, dtype=np.uint32), gpu=gpu) for _ in range(count)]
    many = []
    for i in range(1 + args.frames):
        start = time.perf_counter()
        answers = []
        for w, world in enumerate(apart):
            world.set_transforms(xy[w], angle)
            answers.append(world.step())
        if i > 0:
            many.append(1e3 * (time.perf_counter() - start))

    # The pairs of world w are those of its bodies [w n, (w + 1) n), contiguous in (a, b) order.
    cuts = np.searchsorted(pairs.a, np.arange(count + 1) * n)
    same = all(
        np.array_equal(pairs.a[cuts[w] : cuts[w + 1]] - w * n, alone.a)
        and np.array_equal(pairs.b[cuts[w] : cuts[w + 1]] - w * n, alone.b)
        and np.array_equal(pairs.normal[cuts[w] : cuts[w + 1]], alone.normal)
        and np.array_equal(pairs.depth[cuts[w] : cuts[w + 1]], alone.depth)
        for w, alone in enumerate(answers)
    )
    t1, t2 = np.median(one), np.median(many)
    print(f"adapter: {gpu.adapter}")
    print(f"{'worlds':>7} {'agents':>7} {'pairs':>9} {'one World ms':>13} {'separate ms':>12} {'separate / one':>15} {'same pairs':>11}")
    print(f"{count:>7} {n:>7} {len(pairs):>9} {t1:>13.2f} {t2:>12.2f} {t2 / t1:>14.1f}x {str(same):>11}")
    if not same:
        raise SystemExit("a world's pairs differ from its own World's")


if __name__ == "__main__":
    main()
