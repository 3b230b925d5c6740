"""satgpu.ray.TiledWorld on a local Ray: tiles of one world on actors of their own give, bit for
bit, the Contacts of one World, frame after frame, while bodies cross from tile to tile; and when
a tile fails (its actor killed between or during steps, its worker process killed with restarts
allowed and not, Ray shut down, a tile that raises), the exact Contacts or one TileError."""

import os
import pickle
import re
import signal
import threading

import numpy as np
import pytest
import ray

import satgpu
import satgpu.ray


def start_ray():
    env = {k: v for k, v in os.environ.items() if k.startswith("WGPU_") or k == "XDG_RUNTIME_DIR"}
    ray.init(num_cpus=2, include_dashboard=False, runtime_env={"env_vars": env})


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    start_ray()
    yield
    ray.shutdown()


def same(got, want):
    """Every field of two Contacts holds the same bytes, dtype and shape (or is None in both)."""
    for key in vars(want):
        g, w = getattr(got, key), getattr(want, key)
        assert (g is None) == (w is None), key
        if w is not None:
            assert (g.dtype, g.shape) == (w.dtype, w.shape), key
            assert g.tobytes() == w.tobytes(), key


def moves(n, seed):
    """Frames of every body moving: from where the scene puts it, then several units a frame
    (across tile borders), then a hair (the tiles' worlds kept)."""
    rng = np.random.default_rng(seed)
    velocity = rng.normal(size=(n, 2)) * 3.0
    turn = rng.normal(size=n) * 0.02
    for f, t in enumerate([0.0, 1.0, 2.0, 2.001]):
        yield (velocity * t).astype(np.float64), turn * t


@pytest.mark.parametrize("tiles", [2, 4])
@pytest.mark.parametrize("kind", ["crowd", "pile", "shapes"])
def test_tiles_give_one_worlds_contacts_bit_for_bit_while_bodies_cross_tiles(gpu, adapter, kind, tiles):
    shapes = satgpu.generate(kind, 1500, seed=tiles)
    n = len(shapes)
    body_shapes = np.arange(n, dtype=np.uint32)
    one = satgpu.World(shapes, body_shapes, gpu=gpu, events=True)
    with satgpu.ray.TiledWorld(shapes, body_shapes, tiles=tiles, adapter=adapter, events=True) as tiled:
        assert tiled.tiles == tiles and len(tiled) == n
        held, rebuilt = [], []
        for xy, angle in moves(n, tiles):
            one.set_transforms(xy, angle)
            tiled.set_transforms(xy, angle)
            want = one.step()
            assert len(want) > 0, "a frame without pairs tests nothing"
            same(tiled.step(), want)
            for got, w in zip(tiled.events(), one.events()):
                assert got.dtype == w.dtype and got.shape == w.shape and got.tobytes() == w.tobytes()
            held.append([t["bodies"] for t in tiled.stats["tiles"]])
            rebuilt.append([t["rebuilt"] for t in tiled.stats["tiles"]])
        assert all(0 < b < n for b in held[0]), "every tile holds some bodies, none all"
        assert held[1] != held[0] and held[2] != held[1], "bodies moved between tiles"
        assert rebuilt[0] == [True] * tiles and not all(rebuilt[3]), "a hair's move keeps the tiles' worlds"


@pytest.mark.parametrize("kind", ["scales", "outliers"])
def test_tiles_agree_from_tiny_bodies_to_bodies_far_out(gpu, adapter, kind):
    # "scales": sizes from 1e-3 to 1e3 among each other; "outliers": strays at 1e3, 1e6, 1e20.
    shapes = satgpu.generate(kind, 800, seed=2)
    n = len(shapes)
    body_shapes = np.arange(n, dtype=np.uint32)
    one = satgpu.World(shapes, body_shapes, gpu=gpu)
    with satgpu.ray.TiledWorld(shapes, body_shapes, tiles=3, adapter=adapter, slack=0.0) as tiled:
        for xy, angle in moves(n, 5):
            one.set_transforms(xy, angle)
            tiled.set_transforms(xy, angle)
            want = one.step()
            assert len(want) > 0
            same(tiled.step(), want)


def test_no_body_one_body_and_more_tiles_than_bodies(gpu, adapter):
    square = satgpu.polygon([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    for n, tiles in [(0, 2), (1, 3), (2, 4), (3, 4)]:
        body_shapes = np.zeros(n, dtype=np.uint32)
        xy, angle = np.column_stack([np.arange(n) * 1.5, np.zeros(n)]), np.zeros(n)
        one = satgpu.World([square], body_shapes, gpu=gpu, events=True)
        with satgpu.ray.TiledWorld([square], body_shapes, tiles=tiles, adapter=adapter, events=True) as tiled:
            one.set_transforms(xy, angle)
            tiled.set_transforms(xy, angle)
            want = one.step()
            assert len(want) == max(n - 1, 0), "neighbours 1.5 apart overlap, others do not"
            same(tiled.step(), want)
            for got, w in zip(tiled.events(), one.events()):
                assert got.dtype == w.dtype and got.shape == w.shape and got.tobytes() == w.tobytes()


def test_tiles_keep_margins_manifolds_filters_and_compound_bodies(gpu, adapter):
    bodies = satgpu.generate("rooms", 800, seed=3)
    n = len(bodies)
    body_shapes = np.arange(n, dtype=np.uint32)
    rng = np.random.default_rng(3)
    filters = (
        (1 << rng.integers(0, 3, n)).astype(np.uint32),
        np.where(rng.random(n) < 0.8, 0xFFFFFFFF, 0x6).astype(np.uint32),
        rng.integers(-2, 3, n).astype(np.int32),
    )
    options = dict(contacts="full", margin=0.25)
    one = satgpu.World(bodies, body_shapes, gpu=gpu, **options)
    one.set_filters(*filters)
    # No slack: the halos are as wide as the bodies and the margin, no wider.
    with satgpu.ray.TiledWorld(bodies, body_shapes, tiles=3, adapter=adapter, slack=0.0, **options) as tiled:
        tiled.set_filters(*filters)
        for xy, angle in moves(n, 3):
            one.set_transforms(xy, angle)
            tiled.set_transforms(xy, angle)
            want = one.step()
            assert len(want) > 0 and (want.depth < 0).any(), "pairs within the margin, apart, are tested"
            same(tiled.step(), want)


def test_a_tile_of_plain_shapes_among_compound_bodies_names_parts(gpu, adapter):
    crowd = satgpu.generate("crowd", 600, seed=4)
    left = min(range(len(crowd)), key=lambda i: crowd[i].vertices[:, 0].min())
    x, y = crowd[left].vertices[0]
    # One concave body among the crowd's leftmost bodies: the right tile holds plain shapes only.
    bodies = [crowd[i] for i in range(len(crowd))] + [satgpu.concave(np.array([[0, 0], [3, 0], [3, 3], [1.5, 1], [0, 3]]) + [x, y])]
    body_shapes = np.arange(len(bodies), dtype=np.uint32)
    one = satgpu.World(bodies, body_shapes, gpu=gpu)
    with satgpu.ray.TiledWorld(bodies, body_shapes, tiles=2, adapter=adapter, slack=0.0) as tiled:
        for xy, angle in moves(len(bodies), 4):
            one.set_transforms(xy, angle)
            tiled.set_transforms(xy, angle)
            want = one.step()
            assert want.parts is not None and len(want) > 0
            same(tiled.step(), want)


def test_tiled_world_refuses_what_one_world_refuses(adapter):
    shapes = satgpu.generate("crowd", 50, seed=1)
    body_shapes = np.arange(50, dtype=np.uint32)
    with pytest.raises(ValueError, match="tiles must be a positive integer"):
        satgpu.ray.TiledWorld(shapes, body_shapes, tiles=0)
    with pytest.raises(satgpu.UnknownShapeError, match="body 3 uses shape 50, but only 50 shapes"):
        satgpu.ray.TiledWorld(shapes, np.where(body_shapes == 3, 50, body_shapes).astype(np.uint32))
    # Options refused as one World refuses them, with the same errors and words.
    for bad in (dict(order="sorted"), dict(contacts="all"), dict(margin=-1.0), dict(margin=float("nan"))):
        with pytest.raises(ValueError) as one:
            satgpu.World(shapes, body_shapes, **bad)
        with pytest.raises(type(one.value), match=re.escape(str(one.value))):
            satgpu.ray.TiledWorld(shapes, body_shapes, **bad)
    with satgpu.ray.TiledWorld(shapes, body_shapes, tiles=2, adapter=adapter) as tiled:
        xy, angle = np.zeros((50, 2)), np.zeros(50)
        xy[7, 1] = np.nan
        with pytest.raises(satgpu.NonFiniteTransformError, match="transform 7 is not finite"):
            tiled.set_transforms(xy, angle)
        with pytest.raises(satgpu.TransformCountError):
            tiled.set_transforms(xy[:10], angle[:10])
        # Transforms and filters refused as one World refuses them, with the same errors and
        # words: the first bad transform by index, counts, lengths that differ, dtypes.
        far = np.zeros((50, 2))
        far[[3, 40], 0] = 3e38
        far[41, 1] = np.inf
        ones = np.ones(50, np.uint32)
        world = satgpu.World(shapes, body_shapes, gpu=satgpu.default_gpu())
        for call, args in (
            ("set_transforms", (far, np.zeros(50))),
            ("set_transforms", (xy, np.zeros(50, np.float32))),
            ("set_transforms", (np.zeros((50, 2), np.float32), np.full(50, np.nan, np.float32))),
            ("set_transforms", (np.zeros((49, 2)), np.zeros(49))),
            ("set_filters", (ones[:49], ones[:49], ones[:49].astype(np.int32))),
            ("set_filters", (ones, ones[:49], ones.astype(np.int32))),
        ):
            with pytest.raises(Exception) as one:
                getattr(world, call)(*args)
            with pytest.raises(type(one.value), match=re.escape(str(one.value))):
                getattr(tiled, call)(*args)
    with pytest.raises(satgpu.Error, match="was closed"):
        tiled.step()


def test_shapes_pickle_bit_for_bit():
    shapes = satgpu.generate("mixed", 300, seed=2)
    again = pickle.loads(pickle.dumps(shapes))
    assert len(again) == len(shapes)
    for i in range(len(shapes)):
        assert again[i].vertices.tobytes() == shapes[i].vertices.tobytes() and again[i].radius == shapes[i].radius
    one = pickle.loads(pickle.dumps(shapes[5]))
    assert one.vertices.tobytes() == shapes[5].vertices.tobytes()
    # A chain of more parts than a body given part by part may have comes back as the chain.
    for body in [satgpu.concave([[0, 0], [4, 0], [4, 4], [2, 1], [0, 4]]), satgpu.chain(np.random.rand(20000, 2), loop=True)]:
        again = pickle.loads(pickle.dumps(body))
        assert len(again) == len(body)
        # `parts` is made once and is the same object after: read in the loop, it costs no copy.
        assert again.parts is again.parts and body.parts is body.parts
        assert all(again.parts[k].vertices.tobytes() == body.parts[k].vertices.tobytes() for k in range(len(body)))


def test_a_gpu_is_chosen_by_pci_bus_id_and_a_task_without_one_opens_the_best(adapter):
    assert all("pci_bus_id" in a for a in satgpu.adapters())
    with pytest.raises(satgpu.InvalidSettingError, match='"gpu0" is no PCI bus id'):
        satgpu.Gpu(pci_bus_id="gpu0")
    with pytest.raises(satgpu.NoAdapterError, match='PCI bus id "ffff:ff:1f.7"'):
        satgpu.Gpu(pci_bus_id="ffff:ff:1f.7")
    for a in satgpu.adapters():
        if a["usable"] and a["pci_bus_id"]:
            assert satgpu.Gpu(pci_bus_id="0000" + a["pci_bus_id"]).adapter.startswith(a["name"])

    @ray.remote
    def opened(adapter):
        return satgpu.ray.assigned_gpu(adapter).adapter

    # A task Ray gave no GPU opens what satgpu.Gpu opens.
    assert ray.get(opened.remote(adapter)) == satgpu.Gpu(adapter).adapter


class Faulty:
    """One World and a TiledWorld of the same crowd, stepped frame by frame (each frame moves
    every body a little): `exact()` steps both and checks the tiled world's Contacts and events
    are one World's; `refused()` steps the tiled world alone and returns its TileError."""

    def __init__(self, gpu, adapter, tiles=3, **options):
        shapes = satgpu.generate("crowd", 900, seed=tiles)
        self.n = len(shapes)
        body_shapes = np.arange(self.n, dtype=np.uint32)
        self.one = satgpu.World(shapes, body_shapes, gpu=gpu, events=True)
        self.tiled = satgpu.ray.TiledWorld(shapes, body_shapes, tiles=tiles, adapter=adapter, events=True, **options)
        self.velocity = np.random.default_rng(tiles).normal(size=(self.n, 2))
        self.frame = 0

    def place(self):
        self.frame += 1
        xy, angle = self.velocity * 0.05 * self.frame, np.zeros(self.n)
        self.one.set_transforms(xy, angle)
        self.tiled.set_transforms(xy, angle)

    def exact(self):
        self.place()
        want = self.one.step()
        assert len(want) > 0, "a frame without pairs tests nothing"
        same(self.tiled.step(), want)
        for got, w in zip(self.tiled.events(), self.one.events()):
            assert got.dtype == w.dtype and got.shape == w.shape and got.tobytes() == w.tobytes()
        return self.tiled.stats["retries"]

    def refused(self):
        self.place()
        with pytest.raises(satgpu.TileError) as e:
            self.tiled.step()
        return e.value


@pytest.mark.one_backend
def test_tiles_killed_between_and_during_steps_or_raising_give_the_exact_step_or_a_tile_error(gpu, adapter):
    f = Faulty(gpu, adapter)
    assert f.exact() == 0
    # Killed between steps: one tile, then every tile.
    ray.kill(f.tiled._tiles[1])
    assert f.exact() == 1, "the dead tile was started again, once"
    for tile in f.tiled._tiles:
        ray.kill(tile)
    assert f.exact() == 1 and f.exact() == 0
    # Killed by Ray while its frame runs; its worker process ending in the middle of a frame;
    # its worker process killed between steps (no restarts allowed).
    f.tiled._tiles[2].inject.remote("sleep", seconds=3.0)
    threading.Timer(1.0, ray.kill, (f.tiled._tiles[2],)).start()
    assert f.exact() == 1
    f.tiled._tiles[0].inject.remote("exit")
    assert f.exact() == 1
    os.kill(ray.get(f.tiled._tiles[1].pid.remote()), signal.SIGKILL)
    assert f.exact() == 1
    # A tile that raises once is asked again; three times, it is named, and the next step is exact.
    f.tiled._tiles[1].inject.remote("raise")
    assert f.exact() == 1
    f.tiled._tiles[2].inject.remote("raise", times=3)
    e = f.refused()
    assert e.tiles == [2] and "tile 2: raised RuntimeError: a fault injected for a test" in e.causes[0], e.causes
    assert isinstance(e.__cause__, ray.exceptions.RayTaskError)
    assert f.exact() == 0 and f.exact() == 0
    f.tiled.close()


@pytest.mark.one_backend
def test_a_worker_process_killed_with_restarts_allowed_gives_the_exact_step(gpu, adapter):
    # Ray starts the actor again from its arguments, with no world: the tile echoes an epoch it
    # does not hold and is sent its bodies again (it answered short before). Killed again, past
    # its restarts, it is replaced.
    f = Faulty(gpu, adapter, tiles=2, actor_options={"max_restarts": 1})
    f.exact()
    for k in (1, 1, 0):
        os.kill(ray.get(f.tiled._tiles[k].pid.remote()), signal.SIGKILL)
        assert f.exact() == 1
    assert f.exact() == 0
    f.tiled.close()


@pytest.mark.one_backend
def test_ray_shut_down_under_a_tiled_world_is_named_until_it_runs_again(gpu, adapter):
    f = Faulty(gpu, adapter, tiles=2)
    f.exact()
    ray.shutdown()
    for _ in range(2):
        e = f.refused()
        assert e.tiles == [0, 1] and "Ray is not running" in str(e), e
    start_ray()
    assert f.exact() == 0 and f.exact() == 0
    f.tiled.close()
