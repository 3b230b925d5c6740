"""The crowd model's neighbour search (issue 63): its own uniform grid against the frame's strips
asked the same question, on the same positions, in one run:

    python scripts/cfsm_index.py 10000,100000

* the model's whole step (`satgpu.Crowd` on `satgpu.crowd.room(n)`: bin, scan, scatter, sort the
  cells, then every agent's sums over its neighbours and walls), ms per step;
* a frame of the strips that finds the model's neighbour pairs (every two agents whose centres
  lie within the 3 m cutoff: a `World` of the agents' 0.2 m discs with margin 2.6 m), ms;
* the same frame without the margin (touching pairs only), for scale.
"""

import statistics
import sys
import time

import numpy as np

import satgpu
from satgpu.crowd import room

RADIUS, CUTOFF = 0.2, 3.0


def ms(f, reps: int) -> float:
    out = []
    for _ in range(reps):
        started = time.perf_counter()
        f()
        out.append((time.perf_counter() - started) * 1e3)
    return statistics.median(out)


def frame_ms(xy: np.ndarray, margin: float):
    disc = satgpu.circles(np.zeros((1, 2)), np.array([RADIUS]))
    world = satgpu.World(disc, np.zeros(len(xy), np.uint32), margin=margin)
    world.set_transforms(xy, np.zeros(len(xy)))
    pairs = len(world.step())
    return ms(world.step, 3), pairs


def main():
    print(f"satgpu on {satgpu.default_gpu().adapter}")
    for n in [int(v) for v in sys.argv[1].split(",")]:
        scene = room(n, 1)
        crowd = satgpu.Crowd(scene.geometry, scene.exit, scene.positions, dt=0.01)
        crowd.iterate(2)
        step = ms(lambda: crowd.iterate(5), 3) / 5
        xy = np.asarray(crowd.positions(), dtype=np.float64)
        near, pairs = frame_ms(xy, CUTOFF - 2 * RADIUS)
        touching, _ = frame_ms(xy, 0.0)
        print(
            f"{n:>8} agents: model step on its grid {step:9.2f} ms | strips frame, margin "
            f"{CUTOFF - 2 * RADIUS:.1f} m: {near:9.2f} ms ({pairs} pairs) | touching only {touching:8.2f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
