"""What crossing into Python costs: a simulation frame stepped from NumPy (set_transforms,
step, the pairs as arrays) against the same frame's time inside Rust (`stats["frame_ms"]`,
the wall time `World::step` measures itself), at 10,000 to 1,000,000 bodies; beside it, one
copy of the input arrays with NumPy, the yardstick the crossing is held to.

    .venv/bin/python examples/python/bench.py --n 10000,100000,1000000 --frames 5
"""

import argparse
import time

import numpy as np

import satgpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="10000,100000,1000000", help="bodies, comma-separated")
    parser.add_argument("--frames", type=int, default=5, help="timed frames (after 2 warm-up frames)")
    parser.add_argument("--adapter", default="auto", choices=["auto", "software"])
    args = parser.parse_args()
    gpu = satgpu.Gpu(adapter=args.adapter)
    print(f"adapter: {gpu.adapter}")
    print(f"{'bodies':>9} {'pairs':>9} {'python ms':>10} {'upload ms':>10} {'rust step ms':>13} {'crossing ms':>12} {'crossing':>9} {'array copy ms':>14}")
    for n in (int(v) for v in args.n.split(",")):
        rng = np.random.default_rng(1)
        side = np.sqrt(n) * 0.8  # a crowd: about one pair per body
        xy = (rng.random((n, 2)) * side).astype(np.float32).astype(np.float64)
        angle = np.zeros(n)
        world = satgpu.World([satgpu.circle([0.0, 0.0], 0.3)], np.zeros(n, dtype=np.uint32), gpu=gpu)
        total, upload, inside, copy = [], [], [], []
        for i in range(2 + args.frames):
            start = time.perf_counter()
            world.set_transforms(xy, angle)
            uploaded = time.perf_counter()
            pairs = world.step()
            end = time.perf_counter()
            copied = time.perf_counter()
            _ = (xy.copy(), angle.copy())
            if i >= 2:
                copy.append(1e3 * (time.perf_counter() - copied))
                total.append(1e3 * (end - start))
                upload.append(1e3 * (uploaded - start))
                inside.append(world.stats["frame_ms"])
        t, u, r = np.median(total), np.median(upload), np.median(inside)
        crossing = t - u - r
        print(f"{n:>9} {len(pairs):>9} {t:>10.2f} {u:>10.2f} {r:>13.2f} {crossing:>12.2f} {100 * crossing / t:>8.1f}% {np.median(copy):>14.2f}")


if __name__ == "__main__":
    main()
