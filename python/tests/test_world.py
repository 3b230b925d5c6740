"""satgpu.World from Python: per-frame transforms from NumPy, against the f64 reference."""

import numpy as np
import pytest

import satgpu
from satgpu import reference

SQUARE = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
TRIANGLE = np.array([[-0.6, -0.4], [0.6, -0.4], [0.0, 0.7]])


def placed(body_shapes, xy, angle):
    """Every body's polygon in world coordinates, in f64, for the reference."""
    parts, offsets = [], [0]
    for s, p, a in zip(body_shapes, xy.astype(np.float64), angle.astype(np.float64)):
        local = SQUARE if s == 0 else TRIANGLE
        c, si = np.cos(a), np.sin(a)
        parts.append(local @ np.array([[c, si], [-si, c]]) + p)
        offsets.append(offsets[-1] + len(local))
    return satgpu.polygons(np.concatenate(parts), np.array(offsets, dtype=np.uint64))


def frame(n, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    side = np.sqrt(n) * 0.9
    # Translations and angles that are f32 values, so that float32 and float64 arrays agree.
    xy = (rng.random((n, 2)) * side).astype(np.float32).astype(dtype)
    angle = (rng.random(n) * 2 * np.pi).astype(np.float32).astype(dtype)
    return xy, angle


def test_frames_follow_the_transforms_and_agree_with_the_reference(gpu):
    n = 1500
    body_shapes = (np.arange(n) % 2).astype(np.uint32)
    world = satgpu.World([satgpu.polygon(SQUARE), satgpu.polygon(TRIANGLE)], body_shapes, gpu=gpu)
    assert len(world) == n
    total = 0
    for seed in range(3):
        xy, angle = frame(n, seed)
        world.set_transforms(xy, angle)
        got = world.step()
        shapes = placed(body_shapes, xy, angle)
        want = reference.detect(shapes)
        assert reference.disagreements(shapes, got, want) == 0
        assert world.stats["colliding"] == len(got)
        total += len(got)
    assert total > 300, total


def test_float32_arrays_give_the_frame_of_float64_ones(gpu):
    n = 800
    body_shapes = np.zeros(n, dtype=np.uint32)
    world = satgpu.World([satgpu.polygon(SQUARE)], body_shapes, gpu=gpu)
    xy, angle = frame(n, 7)
    world.set_transforms(xy, angle)
    want = world.step()
    world.set_transforms(xy.astype(np.float32), angle.astype(np.float32))
    got = world.step()
    assert len(want) > 50
    for field in ("a", "b", "normal", "depth"):
        assert getattr(got, field).tobytes() == getattr(want, field).tobytes(), field


def test_bad_transforms_name_the_body_and_change_nothing(gpu):
    n = 300
    world = satgpu.World([satgpu.polygon(SQUARE)], np.zeros(n, dtype=np.uint32), gpu=gpu)
    xy, angle = frame(n, 3)
    world.set_transforms(xy, angle)
    want = world.step()
    bad = xy.copy()
    bad[0, 1] = np.nan  # the first body
    with pytest.raises(satgpu.InvalidTransformError, match="transform 0"):
        world.set_transforms(bad, angle)
    bad = xy.copy()
    bad[n - 1, 0] = 1e39  # the last body
    with pytest.raises(satgpu.InvalidTransformError, match=f"transform {n - 1}"):
        world.set_transforms(bad, angle)
    with pytest.raises(satgpu.CountError, match="299 transforms for 300 bodies"):
        world.set_transforms(xy[1:], angle[1:])
    with pytest.raises(ValueError, match="one dtype"):
        world.set_transforms(xy.astype(np.float32), angle)
    with pytest.raises(ValueError, match="xy must be C-contiguous"):
        world.set_transforms(np.asfortranarray(xy), angle)
    with pytest.raises(ValueError, match="float64 or float32"):
        world.set_transforms(xy.astype(np.int64), angle)
    assert world.step().a.tobytes() == want.a.tobytes()


def test_filters_on_the_first_body_apply(gpu):
    xy = np.array([[0.0, 0.0], [0.8, 0.0], [1.6, 0.0]])
    world = satgpu.World([satgpu.polygon(SQUARE)], np.zeros(3, dtype=np.uint32), gpu=gpu)
    world.set_transforms(xy, np.zeros(3))
    assert [(int(a), int(b)) for a, b in zip(*(lambda c: (c.a, c.b))(world.step()))] == [(0, 1), (1, 2)]
    world.set_filters(np.array([2, 1, 1], dtype=np.uint32), np.array([2, 1, 1], dtype=np.uint32), np.zeros(3, dtype=np.int32))
    got = world.step()
    assert [(int(a), int(b)) for a, b in zip(got.a, got.b)] == [(1, 2)]


def test_threads_sharing_a_world_take_turns(gpu):
    """Threads calling one world at once: a thread that waits for the world waits with the GIL
    released, so the thread inside a step can take the GIL back to build its arrays (no
    deadlock); every frame is right."""
    import threading

    n = 3000
    world = satgpu.World([satgpu.polygon(SQUARE)], np.zeros(n, dtype=np.uint32), gpu=gpu)
    xy, angle = frame(n, 5)
    world.set_transforms(xy, angle)
    want = world.step().a.tobytes()
    wrong, done = [], []

    def run(k):
        for _ in range(10):
            world.set_transforms(xy, angle)
            if world.step().a.tobytes() != want:
                wrong.append(k)
        done.append(k)

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(done) == [0, 1, 2], "a thread is stuck"
    assert not wrong


def test_a_world_of_compound_bodies_agrees_with_the_reference(gpu):
    ell = satgpu.concave([[-1, -1], [1, -1], [1, -0.5], [-0.5, -0.5], [-0.5, 1], [-1, 1]])
    agent = satgpu.circle([0, 0], 0.3)
    n = 600
    body_shapes = (np.arange(n) % 3 == 0).astype(np.uint32)  # every third body an L
    world = satgpu.World([agent, ell], body_shapes, contacts="full", gpu=gpu)
    xy, angle = frame(n, 11)
    world.set_transforms(xy, angle)
    got = world.step()

    def place(part, p, a):
        c, s = np.cos(a), np.sin(a)
        v = part.vertices @ np.array([[c, s], [-s, c]]) + p
        return satgpu.circle(v[0], part.radius) if len(v) == 1 else satgpu.polygon(v, radius=part.radius)

    placed = [
        satgpu.compound([place(part, p, a) for part in (ell.parts if s == 1 else [agent])])
        for s, p, a in zip(body_shapes, xy, angle)
    ]
    want = reference.detect(placed)
    assert reference.disagreements(placed, got, want) == 0
    assert len(got) > 50 and got.parts.shape == (len(got), 2) and got.points.shape == (len(got), 2, 2)
    assert world.stats["colliding"] == len(got)


def test_a_world_of_compound_bodies_casts_rays_and_answers_queries(gpu):
    """In a world of Compound bodies, ray hits and region queries name bodies (each once)."""
    ell = satgpu.concave([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]])
    square = satgpu.polygon([[0, 0], [1, 0], [1, 1], [0, 1]])
    world = satgpu.World([ell, square], np.array([0, 1], dtype=np.uint32), gpu=gpu)
    world.set_transforms(np.array([[0.0, 0.0], [5.0, 0.0]]), np.zeros(2))
    # Into the L's notch from its open side; across both bodies; through nothing.
    hits = world.cast_rays([[1.5, 1.5], [-1, 0.5], [1.5, 1.5]], [[-1, 0], [1, 0], [1, 0]], [10, 10, 10])
    assert hits.body.tolist() == [0, 0, -1]
    assert np.allclose(hits.fraction[:2], [0.05, 0.1]) and np.allclose(hits.normal[0], [1, 0])
    # A box over both parts of the L finds it once; a point in the notch finds nothing.
    assert [b.tolist() for b in world.query_boxes([[0.5, 0.5, 1.5, 1.5], [-1, -1, 10, 10]])] == [[0], [0, 1]]
    assert [p.tolist() for p in world.query_points([[1.5, 1.5], [0.5, 1.5], [5.5, 0.5]])] == [[], [0], [1]]


def test_rays_and_queries_carry_filters(gpu):
    """Each ray and query carries its own filter (Box2D's query filter): the first body in
    category 2 is unseen by a ray or query whose mask leaves 2 out; a filter count other than
    the rays' is an error."""
    square = satgpu.polygon([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    world = satgpu.World([square], np.zeros(3, dtype=np.uint32), gpu=gpu)
    world.set_transforms(np.array([[0.0, 0.0], [3.0, 0.0], [6.0, 0.0]]), np.zeros(3))
    world.set_filters(np.array([2, 1, 1], dtype=np.uint32), np.full(3, 0xFFFFFFFF, dtype=np.uint32), np.zeros(3, dtype=np.int32))
    blind = (np.array([1, 1], dtype=np.uint32), np.array([0xFFFFFFFF, ~np.uint32(2)], dtype=np.uint32), np.zeros(2, dtype=np.int32))
    hits = world.cast_rays([[-2, 0], [-2, 0]], [[1, 0], [1, 0]], [20, 20], filters=blind)
    assert hits.body.tolist() == [0, 1]
    found = world.query_boxes([[-1, -1, 7, 1], [-1, -1, 7, 1]], filters=blind)
    assert [f.tolist() for f in found] == [[0, 1, 2], [1, 2]]
    found = world.query_points([[0, 0], [0, 0]], filters=blind)
    assert [f.tolist() for f in found] == [[0], []]
    with pytest.raises(satgpu.errors.FilterCountError):
        world.cast_rays([[-2, 0]], [[1, 0]], [20], filters=blind)


def test_worlds_keep_their_pairs_apart_and_each_answers_as_alone(gpu):
    n, count = 150, 3
    scenes = [satgpu.generate("shapes", n, seed=s) for s in range(count)]
    # World w's body i is body i * count + w: the worlds interleaved, overlapping in space.
    shapes = [scenes[w][i] for i in range(n) for w in range(count)]
    worlds = np.tile(np.arange(count, dtype=np.uint32), n)
    world = satgpu.World(shapes, np.arange(n * count, dtype=np.uint32), gpu=gpu, worlds=worlds)
    assert np.array_equal(world.worlds, worlds)
    world.set_transforms(np.zeros((n * count, 2)), np.zeros(n * count))
    pairs = world.step()
    assert np.array_equal(worlds[pairs.a], worlds[pairs.b])
    for w in range(count):
        alone = satgpu.World(scenes[w], np.arange(n, dtype=np.uint32), gpu=gpu)
        alone.set_transforms(np.zeros((n, 2)), np.zeros(n))
        want = alone.step()
        assert len(want) > 0, "a world with no pairs tests nothing"
        mine = worlds[pairs.a] == w
        assert np.array_equal(pairs.a[mine] // count, want.a) and np.array_equal(pairs.b[mine] // count, want.b)
        assert np.array_equal(pairs.normal[mine], want.normal) and np.array_equal(pairs.depth[mine], want.depth)
    with pytest.raises(satgpu.InvalidSettingError, match=f"body 0 is in world {satgpu.MAX_WORLDS}"):
        world.set_worlds(np.full(n * count, satgpu.MAX_WORLDS, dtype=np.uint32))
    # Rays, casts and queries see the world they name alone: world w's answers are its own World's.
    rng = np.random.default_rng(1)
    origins, way = rng.random((40, 2)) * 60, rng.normal(size=(40, 2))
    boxes = np.hstack([origins, origins + 5.0])
    for w in range(count):
        alone = satgpu.World(scenes[w], np.arange(n, dtype=np.uint32), gpu=gpu)
        alone.set_transforms(np.zeros((n, 2)), np.zeros(n))
        mine = np.full(40, w, dtype=np.uint32)
        got, want = world.cast_rays(origins, way, np.full(40, 80.0), worlds=mine), alone.cast_rays(origins, way, np.full(40, 80.0))
        assert (want.body >= 0).sum() > 0, "no ray hits: the test tests nothing"
        assert np.array_equal(np.where(got.body >= 0, got.body // count, -1), want.body)
        assert np.array_equal(got.fraction, want.fraction, equal_nan=True)
        disc = satgpu.circle((0, 0), 0.3)
        got = world.cast_shapes(disc, origins, way, np.full(40, 80.0), worlds=mine)
        assert np.array_equal(np.where(got.body >= 0, got.body // count, -1), alone.cast_shapes(disc, origins, way, np.full(40, 80.0)).body)
        found, want = world.query_boxes(boxes, worlds=mine), alone.query_boxes(boxes)
        assert sum(map(len, want)) > 0 and all(np.array_equal(f // count, o) and (f % count == w).all() for f, o in zip(found, want))
    with pytest.raises(satgpu.InvalidSettingError, match="ray 0 looks into world 3; this world has 3"):
        world.cast_rays(np.zeros((1, 2)), np.array([[1.0, 0.0]]), np.ones(1), worlds=[3])
    world.set_worlds(np.zeros(0, dtype=np.uint32))
    assert len(world.worlds) == 0
    assert len(world.step()) > len(pairs)


def test_a_periodic_box_judges_each_pair_by_the_image_that_touches(gpu, tmp_path):
    """Issue 65: squares in a torus 10 wide; each pair across an edge as in the middle."""
    n = 400
    rng = np.random.default_rng(5)
    xy = (rng.random((n, 2)) * 10.0).astype(np.float32).astype(np.float64)
    angle = np.zeros(n)
    body_shapes = np.zeros(n, dtype=np.uint32)
    small = satgpu.polygon(SQUARE * 0.4)
    world = satgpu.World([small], body_shapes, gpu=gpu, periodic=(0.0, 0.0, 10.0, 10.0))
    world.set_transforms(xy, angle)
    pairs = world.step()
    # The same pairs from brute force over the nine images, in f64.
    expected = set()
    for i in range(n):
        for j in range(i + 1, n):
            d = xy[j] - xy[i]
            d -= 10.0 * np.round(d / 10.0)
            if abs(d[0]) <= 0.4 and abs(d[1]) <= 0.4:
                expected.add((i, j))
    found = set(zip(pairs.a.tolist(), pairs.b.tolist()))
    assert found == expected and len(found) > 10
    across = [(a, b) for a, b in found if np.abs(xy[b] - xy[a]).max() > 5.0]
    assert across, "some pairs across an edge"
    # A cylinder: only x wraps.
    cylinder = satgpu.World([small], body_shapes, gpu=gpu, periodic=(0, 0, 10, 10), periodic_axes="x")
    cylinder.set_transforms(xy, angle)
    assert len(cylinder.step().a) < len(found)
    with pytest.raises(ValueError, match="periodic_axes"):
        satgpu.World([small], body_shapes, gpu=gpu, periodic=(0, 0, 10, 10), periodic_axes="z")
    with pytest.raises(satgpu.errors.InvalidSettingError, match="periodic box"):
        satgpu.World([satgpu.polygon(SQUARE * 6.0)], body_shapes, gpu=gpu, periodic=(0, 0, 10, 10))
    # A scene file keeps its box.
    path = tmp_path / "box.json"
    satgpu.write_scene(path, [small], periodic=(0, 0, 10, 5), periodic_axes="y")
    scene = satgpu.read_scene(path)
    assert (scene.periodic, scene.periodic_axes) == ((0.0, 0.0, 10.0, 5.0), "y")
