"""One world over several tiles (satgpu.ray.TiledWorld): ms per frame of one World and of 1, 2 and
4 tiles, each tile a Ray actor with its own Gpu, every frame's Contacts checked equal, bit for bit.

    python examples/python/tiled.py --kind crowd --n 200000 --tiles 1,2,4

Each frame moves every body (a few hundredths of its size, so that some cross tile borders) and
steps. Without RAY_ADDRESS a local Ray starts; with it the tiles run on that cluster.
"""

import argparse
import os
import time

import numpy as np
import ray

import satgpu
import satgpu.ray


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", default="crowd", choices=satgpu.SCENE_KINDS)
    parser.add_argument("--n", type=int, default=200_000, help="bodies")
    parser.add_argument("--tiles", default="1,2,4", help="tile counts, comma-separated")
    parser.add_argument("--frames", type=int, default=5, help="timed frames (after one warm-up frame)")
    parser.add_argument("--adapter", default="auto", choices=["auto", "software"])
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k.startswith("WGPU_") or k == "XDG_RUNTIME_DIR"}
    ray.init(address=os.environ.get("RAY_ADDRESS"), runtime_env={"env_vars": env}, include_dashboard=False)

    shapes = satgpu.generate(args.kind, args.n, seed=1)
    n = len(shapes)
    body_shapes = np.arange(n, dtype=np.uint32)
    rng = np.random.default_rng(1)
    velocity = rng.normal(size=(n, 2)) * 0.02
    frames = [(velocity * f, np.zeros(n)) for f in range(1 + args.frames)]

    def timed(world):
        ms, out = [], []
        for i, (xy, angle) in enumerate(frames):
            start = time.perf_counter()
            world.set_transforms(xy, angle)
            out.append(world.step())
            if i > 0:
                ms.append(1e3 * (time.perf_counter() - start))
        return float(np.median(ms)), out

    one_ms, want = timed(satgpu.World(shapes, body_shapes, gpu=satgpu.Gpu(args.adapter)))
    print(f"{args.kind}, {n:,} bodies, {len(want[-1]):,} pairs, {ray.cluster_resources().get('CPU', 0):.0f} CPUs, "
          f"{ray.cluster_resources().get('GPU', 0):.0f} GPUs")
    print(f"{'':>12} {'ms/frame':>9} {'vs World':>9}  bodies per tile and the driver's ms (last frame)")
    print(f"{'one World':>12} {one_ms:9.1f} {1.0:8.2f}x")
    for tiles in (int(t) for t in args.tiles.split(",")):
        with satgpu.ray.TiledWorld(shapes, body_shapes, tiles=tiles, adapter=args.adapter) as world:
            ms, got = timed(world)
            for g, w in zip(got, want):
                assert all(
                    (getattr(g, k) is None and getattr(w, k) is None) or getattr(g, k).tobytes() == getattr(w, k).tobytes()
                    for k in vars(w)
                ), "tiles differ from one World"
            held = [t["bodies"] for t in world.stats["tiles"]]
            split = ", ".join(f"{k[:-3]} {world.stats[k]:.1f}" for k in ("send_ms", "wait_ms", "merge_ms"))
        print(f"{f'{tiles} tiles':>12} {ms:9.1f} {one_ms / ms:8.2f}x  {held} (ms: {split})")
    print("every frame's Contacts equal one World's, bit for bit")


if __name__ == "__main__":
    main()
