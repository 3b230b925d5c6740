"""satgpu from Python against its own f64 reference, on a software adapter in CI."""

import numpy as np
import pytest

import satgpu
from satgpu import reference


def agree(shapes, got):
    want = reference.detect(shapes)
    assert reference.disagreements(shapes, got, want) == 0
    return want


def random_circles(n, seed):
    rng = np.random.default_rng(seed)
    side = np.sqrt(n) * 1.1
    return rng.random((n, 2)) * side, 0.3 + 0.3 * rng.random(n)


def random_polygons(n, seed):
    """Squares and triangles of random size and rotation, as one vertex array and offsets."""
    rng = np.random.default_rng(seed)
    side = np.sqrt(n) * 1.5
    parts, offsets = [], [0]
    for i in range(n):
        k = 3 + (i % 2)
        angles = rng.random() * 2 * np.pi + np.arange(k) * 2 * np.pi / k
        centre = rng.random(2) * side
        parts.append(centre + (0.4 + 0.5 * rng.random()) * np.stack([np.cos(angles), np.sin(angles)], axis=1))
        offsets.append(offsets[-1] + k)
    return np.concatenate(parts), np.array(offsets, dtype=np.uint64)


def random_rays(n, side, length, seed):
    """n rays from random points of a square of `side`, in random directions, each `length` long."""
    rng = np.random.default_rng(seed)
    origins = rng.random((n, 2)) * side
    angles = rng.random(n) * 2 * np.pi
    return origins, np.stack([np.cos(angles), np.sin(angles)], axis=1), np.full(n, length)


def test_an_adapter_is_usable_and_named(gpu):
    listed = satgpu.adapters()
    assert any(a["usable"] for a in listed), listed
    assert {"name", "backend", "device_type", "driver", "usable", "reason"} <= set(listed[0])
    assert gpu.adapter and "satgpu.Gpu(" in repr(gpu)


def test_circles_in_bulk_agree_with_the_reference(gpu):
    centers, radii = random_circles(3000, 1)
    shapes = satgpu.circles(centers, radii)
    assert len(shapes) == 3000 and shapes[-1].radius == radii[-1]
    got = satgpu.detect(shapes, gpu=gpu)
    want = agree(shapes, got)
    assert len(got) > 500
    assert np.array_equal(got.a, want.a) and np.array_equal(got.b, want.b)
    assert got.a.dtype == np.uint32 and got.normal.shape == (len(got), 2) and got.depth.dtype == np.float64
    assert np.all(got.a < got.b)
    order = np.lexsort((got.b, got.a))
    assert np.array_equal(order, np.arange(len(got))), "pairs not sorted by (a, b)"


def test_polygons_in_bulk_agree_and_repeat_bit_for_bit(gpu):
    vertices, offsets = random_polygons(2000, 2)
    shapes = satgpu.polygons(vertices, offsets)
    first = satgpu.detect(shapes, gpu=gpu)
    agree(shapes, first)
    assert len(first) > 100
    again = satgpu.detect(shapes, gpu=gpu)
    for field in ("a", "b", "normal", "depth"):
        assert getattr(first, field).tobytes() == getattr(again, field).tobytes()


def test_mixed_shapes_one_by_one(gpu):
    shapes = [
        satgpu.polygon([[0, 0], [2, 0], [2, 2], [0, 2]]),
        satgpu.polygon([[1.5, 0.5], [3, 1], [1.5, 1.5]], radius=0.1),
        satgpu.circle([4, 1], 1.2),
        satgpu.capsule([5, 0], [5, 3], 0.5),
        satgpu.circle([20, 20], 1.0),
    ]
    got = satgpu.detect(shapes, gpu=gpu)
    agree(shapes, got)
    assert [(int(a), int(b)) for a, b in zip(got.a, got.b)] == [(0, 1), (1, 2), (2, 3)]


def test_segments_are_walls_of_no_thickness(gpu):
    # A square touching the wall's end, a circle across it, a segment ending on its middle (a T)
    # and crossing a capsule (a segment of radius 0.25); one far away.
    shapes = [
        satgpu.segment([0, 0], [4, 0]),
        satgpu.polygon([[4, -1], [5, -1], [5, 1], [4, 1]]),
        satgpu.circle([2, 0.5], 0.75),
        satgpu.segment([1, 0], [1, 3]),
        satgpu.segment([0, 2], [4, 2], 0.25),
        satgpu.segment([10, 10], [11, 11]),
    ]
    got = satgpu.detect(shapes, gpu=gpu)
    agree(shapes, got)
    pairs = [(int(a), int(b)) for a, b in zip(got.a, got.b)]
    assert pairs == [(0, 1), (0, 2), (0, 3), (3, 4)]
    assert got.depth[0] == 0.0 and got.depth[2] == 0.0
    with pytest.raises(satgpu.InvalidPolygonError, match="segment: is a segment of zero length"):
        satgpu.segment([1, 1], [1, 1])


def test_chains_are_one_body_of_segments(gpu):
    # An open chain (an L) and a loop around a square area, with one circle against each.
    shapes = [
        satgpu.chain([[0, 0], [4, 0], [4, 4]]),
        satgpu.chain([[10, 0], [14, 0], [14, 4], [10, 4]], loop=True),
        satgpu.circle([4.5, 2], 0.75),
        satgpu.circle([10, 2], 0.5),
        satgpu.circle([12, 2], 0.5),
    ]
    assert len(shapes[0].parts) == 2 and len(shapes[1].parts) == 4
    got = satgpu.detect(shapes, gpu=gpu)
    agree(shapes, got)
    # The loop is an outline, not a solid: the circle inside it touches nothing.
    assert [(int(a), int(b)) for a, b in zip(got.a, got.b)] == [(0, 2), (1, 3)]
    assert [tuple(int(k) for k in p) for p in got.parts] == [(1, 0), (3, 0)]
    with pytest.raises(satgpu.InvalidPolygonError, match="chain: is a chain of 2 points"):
        satgpu.chain([[0, 0], [1, 0]], loop=True)


def test_walls_of_a_walkable_area(gpu, tmp_path):
    # JuPedSim's geometry: a room with a square hole, as arrays, as WKT and as a shapely-like
    # Polygon (anything with .exterior.coords and .interiors), each ring closed as WKT closes it.
    exterior = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]
    hole = np.array([[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]], dtype=np.float64)
    wkt = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (4 4, 6 4, 6 6, 4 6, 4 4))"

    class Ring:
        def __init__(self, coords):
            self.coords = coords

    class Area:
        def __init__(self, exterior, holes):
            self.exterior, self.interiors = Ring(exterior), [Ring(h) for h in holes]

    for walls in [satgpu.walls(exterior, [hole]), satgpu.walls(wkt), satgpu.walls(Area(exterior, [hole]))]:
        assert [len(w.parts) for w in walls] == [4, 4]
        # Agents: one touching the outer wall, one inside the hole's ring (an outline: free),
        # one against the hole's corner, one free.
        shapes = [satgpu.circle([0.5, 5], 0.5), satgpu.circle([5, 5], 0.5), satgpu.circle([6.3, 6.3], 0.5), satgpu.circle([2, 2], 0.5)] + walls
        got = satgpu.detect(shapes, gpu=gpu)
        agree(shapes, got)
        assert [(int(a), int(b)) for a, b in zip(got.a, got.b)] == [(0, 4), (2, 5)]
        assert got.depth[0] == 0.0
    assert [len(w.parts) for w in satgpu.walls(exterior, radius=0.1)] == [4]
    with pytest.raises(satgpu.InvalidPolygonError, match=r"walls: ring 1 \(a hole\) is a chain of 2 points"):
        satgpu.walls(exterior, [[[1, 1], [2, 2], [1, 1]]])
    with pytest.raises(satgpu.InvalidPolygonError, match=r"ring 0 \(the exterior\) part 1 vertex 1 has a non-finite"):
        satgpu.walls([[0, 0], [1, 0], [1, float("nan")]])
    with pytest.raises(satgpu.WktError, match="column 1: expected POLYGON"):
        satgpu.walls("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)))")
    with pytest.raises(ValueError, match="n x 2"):
        satgpu.walls([[0, 0, 0], [1, 0, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="holes come from the WKT"):
        satgpu.walls(wkt, [hole])
    # A scene file's "walls": one body per ring after the entries.
    scene = tmp_path / "area.json"
    scene.write_text('{"polygons": [{"circle": {"center": [0.5, 5], "radius": 0.5}}], "walls": {"wkt": "%s"}}' % wkt)
    bodies = satgpu.read_scene(scene).shapes
    assert [len(b.parts) for b in bodies] == [1, 4, 4]
    scene.write_text('{"polygons": [], "walls": {"wkt": "POLYGON ((0 0, 1 0))"}}')
    with pytest.raises(satgpu.InvalidWallsError, match='area.json: "walls": ring 0 \\(the exterior\\) is a chain of 2 points'):
        satgpu.read_scene(scene)


def test_full_contacts_have_manifolds(gpu):
    # b overlaps a by 0.5 along x, its whole height inside a's: one normal, two points.
    shapes = [satgpu.polygon([[0, 0], [2, 0], [2, 2], [0, 2]]), satgpu.polygon([[1.5, 0.25], [3.5, 0.25], [3.5, 1.75], [1.5, 1.75]])]
    got = satgpu.detect(shapes, contacts="full", gpu=gpu)
    want = reference.detect(shapes, contacts="full")
    assert len(got) == 1 and got.points.shape == (1, 2, 2) and got.point_depth.shape == (1, 2)
    assert not got.a_in_b[0] and not got.b_in_a[0]
    assert np.array_equal(got.normal, [[1.0, 0.0]]) and got.depth[0] == 0.5
    assert not np.isnan(got.points).any()
    assert np.allclose(got.points, want.points, atol=1e-5, equal_nan=True)
    assert np.allclose(got.point_depth, want.point_depth, atol=1e-5, equal_nan=True)


def test_filters_apply_from_the_first_shape(gpu):
    centers = np.array([[0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [1.5, 0.0]])
    shapes = satgpu.circles(centers, np.full(4, 0.4))
    everything = satgpu.detect(shapes, gpu=gpu)
    assert len(everything) == 3
    # Shape 0 in a negative group with shape 1: that pair never collides.
    category = np.ones(4, dtype=np.uint32)
    mask = np.full(4, 0xFFFFFFFF, dtype=np.uint32)
    group = np.array([-1, -1, 0, 0], dtype=np.int32)
    got = satgpu.detect(shapes, filters=(category, mask, group), gpu=gpu)
    want = reference.detect(shapes, filters=(category, mask, group))
    assert [(int(a), int(b)) for a, b in zip(got.a, got.b)] == [(1, 2), (2, 3)]
    assert np.array_equal(got.a, want.a) and np.array_equal(got.b, want.b)


def test_no_shapes_and_one_shape(gpu):
    assert len(satgpu.detect([], gpu=gpu)) == 0
    assert len(satgpu.detect([satgpu.circle([0, 0], 1)], gpu=gpu)) == 0


def test_bad_shapes_are_satgpu_errors_naming_the_shape():
    with pytest.raises(satgpu.InvalidPolygonError, match="polygon"):
        satgpu.polygon([[0, 0], [1, 0]])
    with pytest.raises(satgpu.Error, match="not convex"):
        satgpu.polygon([[0, 0], [2, 0], [2, 2], [1, 0.5], [0, 2]])
    vertices, offsets = random_polygons(5, 3)
    vertices[offsets[3]] = np.nan
    with pytest.raises(satgpu.InvalidPolygonError, match="polygon 3"):
        satgpu.polygons(vertices, offsets)
    with pytest.raises(satgpu.InvalidPolygonError, match="circle 1"):
        satgpu.circles(np.zeros((2, 2)), np.array([1.0, -1.0]))


def test_bad_arrays_are_value_errors_naming_the_argument(gpu):
    centers, radii = random_circles(10, 4)
    with pytest.raises(ValueError, match="centers must be an n x 2 float64 array, got dtype float32"):
        satgpu.circles(centers.astype(np.float32), radii)
    with pytest.raises(ValueError, match="centers must be an n x 2 float64 array, got shape"):
        satgpu.circles(np.zeros((10, 3)), radii)
    with pytest.raises(ValueError, match="radii must be C-contiguous"):
        satgpu.circles(centers, np.zeros(20)[::2])
    with pytest.raises(ValueError, match="10 centers but 9 radii"):
        satgpu.circles(centers, radii[:9])
    vertices, offsets = random_polygons(4, 5)
    with pytest.raises(ValueError, match="offsets must start at 0"):
        satgpu.polygons(vertices, offsets[1:])
    with pytest.raises(ValueError, match="contacts must be"):
        satgpu.detect(satgpu.circles(centers, radii), contacts="most", gpu=gpu)
    with pytest.raises(ValueError, match="item 1"):
        satgpu.detect([satgpu.circle([0, 0], 1), "square"], gpu=gpu)
    with pytest.raises(satgpu.FilterCountError, match="got 3 collision filters for 10 bodies"):
        ones = np.ones(3, dtype=np.uint32)
        satgpu.detect(satgpu.circles(centers, radii), filters=(ones, ones, np.zeros(3, dtype=np.int32)), gpu=gpu)
    with pytest.raises(ValueError, match="adapter must be"):
        satgpu.Gpu(adapter="fastest")


def test_contact_events(gpu):
    """events=True: after each step, the pairs that began and ended touching, as the steps' own
    pairs say (a change at body 0 included); None without events; with order="host" the host
    computes the same events."""
    centers, radii = random_circles(1500, 6)
    shapes = satgpu.circles(centers, radii)
    n = len(shapes)
    world = satgpu.World(shapes, np.arange(n, dtype=np.uint32), gpu=gpu, events=True)
    on_host = satgpu.World(shapes, np.arange(n, dtype=np.uint32), gpu=gpu, events=True, order="host")
    rng = np.random.default_rng(3)
    previous, counts = set(), [0, 0]
    for frame in range(4):
        xy = rng.normal(scale=0.2, size=(n, 2))
        # Body 0 onto body 1 in one frame, far from everything in the next.
        xy[0] = {2: centers[1] - centers[0], 3: (-1e3, -1e3)}.get(frame, xy[0])
        world.set_transforms(xy, np.zeros(n))
        pairs = world.step()
        now = set(zip(pairs.a.tolist(), pairs.b.tolist()))
        began, ended = world.events()
        on_host.set_transforms(xy, np.zeros(n))
        on_host.step()
        host_began, host_ended = on_host.events()
        assert np.array_equal(host_began, began) and np.array_equal(host_ended, ended)
        assert began.dtype == np.uint32 and began.shape == (len(now - previous), 2)
        assert [tuple(p) for p in began.tolist()] == sorted(now - previous)
        assert [tuple(p) for p in ended.tolist()] == sorted(previous - now)
        assert ((0, 1) in {tuple(p) for p in (began if frame == 2 else ended).tolist()}) == (frame in (2, 3))
        counts = [counts[0] + len(began), counts[1] + len(ended)]
        previous = now
    assert counts[0] > 0 and counts[1] > 0
    plain = satgpu.World(shapes, np.arange(n, dtype=np.uint32), gpu=gpu)
    plain.set_transforms(np.zeros((n, 2)), np.zeros(n))
    plain.step()
    assert plain.events() is None


def test_neighbours_within_a_margin(gpu):
    """margin=: the pairs apart by at most the margin too, with depth minus their distance, as the
    reference finds them; the same from a World; margin 0 is plain detect; bad margins refused."""
    centers, radii = random_circles(2000, 4)
    shapes = satgpu.circles(centers, radii)
    plain = satgpu.detect(shapes, gpu=gpu)
    assert np.array_equal(satgpu.detect(shapes, gpu=gpu, margin=0.0).depth, plain.depth)
    for margin in (0.1, 0.6):
        got = satgpu.detect(shapes, gpu=gpu, margin=margin)
        want = reference.detect(shapes, margin=margin)
        assert reference.disagreements(shapes, got, want, margin=margin) == 0
        assert len(got) > len(plain) and np.any(got.depth < 0) and np.all(got.depth >= -margin * (1 + 1e-6))
    # A world with a margin: every body at the origin of its shape, placed by transforms.
    world = satgpu.World(shapes, np.arange(len(shapes), dtype=np.uint32), gpu=gpu, margin=0.6)
    world.set_transforms(np.zeros((len(shapes), 2)), np.zeros(len(shapes)))
    stepped = world.step()
    assert np.array_equal(stepped.a, got.a) and np.array_equal(stepped.b, got.b)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(satgpu.errors.InvalidSettingError):
            satgpu.detect(shapes, gpu=gpu, margin=bad)
        with pytest.raises(satgpu.errors.InvalidSettingError):
            reference.detect(shapes, margin=bad)
    # With contacts="full", a pair apart gets the point midway between its closest points.
    apart = [satgpu.circle([0, 0], 1.0), satgpu.circle([3, 0], 1.0)]
    got = satgpu.detect(apart, gpu=gpu, margin=1.5, contacts="full")
    want = reference.detect(apart, margin=1.5, contacts="full")
    assert len(got) == 1 and np.allclose(got.depth, [-1.0]) and np.allclose(got.point_depth[0, 0], -1.0)
    assert np.allclose(got.points[0, 0], [1.5, 0.0], atol=1e-6) and np.allclose(want.points[0, 0], [1.5, 0.0])


def test_region_queries(gpu):
    """World.query_boxes and query_points: the bodies each box meets and each point lies in, as
    NumPy finds them for circles (bodies within 1e-6 of a query's edge may go either way)."""
    centers, radii = random_circles(1500, 8)
    shapes = satgpu.circles(centers, radii)
    n = len(shapes)
    world = satgpu.World(shapes, np.arange(n, dtype=np.uint32), gpu=gpu)
    world.set_transforms(np.zeros((n, 2)), np.zeros(n))
    rng = np.random.default_rng(5)
    side = centers.max()
    lo = rng.random((50, 2)) * side
    boxes = np.hstack([lo, lo + rng.random((50, 2)) * 3])
    points = rng.random((80, 2)) * side
    # A box far away finds nothing.
    boxes = np.vstack([boxes, [[-100, -100, -90, -90]]])
    got_boxes, got_points = world.query_boxes(boxes), world.query_points(points)
    assert len(got_boxes) == len(boxes) and len(got_points) == len(points) and len(got_boxes[-1]) == 0
    for found, box in zip(got_boxes, boxes):
        nearest = np.clip(centers, box[:2], box[2:])
        gap = np.linalg.norm(centers - nearest, axis=1) - radii
        assert found.dtype == np.uint32 and np.all(np.diff(found.astype(np.int64)) > 0)
        sure = set(np.flatnonzero(gap < -1e-6)) | set(np.flatnonzero(gap > 1e-6))
        assert {i for i in sure if gap[i] < 0} == {i for i in found.tolist() if i in sure}
    for found, p in zip(got_points, points):
        gap = np.linalg.norm(centers - p, axis=1) - radii
        sure = set(np.flatnonzero(np.abs(gap) > 1e-6))
        assert {i for i in sure if gap[i] < 0} == {i for i in found.tolist() if i in sure}
    assert sum(len(f) for f in got_boxes) > 20 and sum(len(f) for f in got_points) > 5
    with pytest.raises(ValueError):
        world.query_boxes(np.zeros((3, 3)))
    with pytest.raises(satgpu.errors.InvalidSettingError):
        world.query_boxes([[1, 0, 0, 1]])


def test_ray_casts(gpu):
    """World.cast_rays: the nearest circle each ray meets, as NumPy finds it (rays grazing a circle,
    or starting on its rim, within 1e-5 of the scene's side may go either way), from inside at
    fraction 0, and none past every circle."""
    centers, radii = random_circles(1500, 9)
    shapes = satgpu.circles(centers, radii)
    n = len(shapes)
    world = satgpu.World(shapes, np.arange(n, dtype=np.uint32), gpu=gpu)
    world.set_transforms(np.zeros((n, 2)), np.zeros(n))
    side = centers.max()
    origins, directions, lengths = random_rays(200, side, side / 4, 6)
    # From the first circle's centre (inside), and from far away pointing away.
    origins[0], origins[1], directions[1] = centers[0], [-100, -100], [-1, 0]
    hits = world.cast_rays(origins, directions, lengths)
    assert len(hits) == 200 and hits.body.dtype == np.int64
    assert hits.body[0] == 0 or np.linalg.norm(centers[hits.body[0]] - centers[0]) <= radii[0] + radii[hits.body[0]]
    assert hits.fraction[0] == 0 and np.all(hits.normal[0] == 0)
    assert hits.body[1] == -1 and np.isnan(hits.fraction[1]) and np.all(np.isnan(hits.point[1]))
    checked = 0
    for k in range(2, 200):
        o, d, length = origins[k], directions[k], lengths[k]
        # Each circle's entry distance along the ray, by the quadratic in f64.
        oc = o - centers
        b = oc @ d
        disc = b * b - (np.sum(oc * oc, axis=1) - radii * radii)
        t = np.where(disc >= 0, -b - np.sqrt(np.maximum(disc, 0)), np.inf)
        t = np.where(np.sum(oc * oc, axis=1) <= radii * radii, 0.0, t)
        t = np.where((t >= 0) & (t <= length), t, np.inf)
        best = int(np.argmin(t))
        got = int(hits.body[k])
        tol = 1e-5 * side

        def marginal(i):
            """Circle i grazed, met at the ray's very end, or the ray starting on its rim (f32 world
            coordinates decide these either way)."""
            perp = np.sqrt(max(oc[i] @ oc[i] - b[i] ** 2, 0.0))
            entry = -b[i] - np.sqrt(max(disc[i], 0.0))
            rim = abs(np.sqrt(oc[i] @ oc[i]) - radii[i])
            return abs(perp - radii[i]) < tol or abs(entry - length) < tol or rim < tol

        if not np.isfinite(t[best]):
            assert got == -1 or marginal(got), (k, got)
            continue
        if got != best:
            # A near tie, or the nearest only grazed.
            assert got >= 0 and (abs(t[got] - t[best]) <= tol or marginal(got)) or marginal(best), (k, got, best)
            continue
        assert abs(hits.fraction[k] * length - t[best]) <= 1e-5 * side, (k, hits.fraction[k] * length, t[best])
        p = o + d * t[best]
        assert np.allclose(hits.point[k], p, atol=1e-5 * side)
        if t[best] > 0:
            assert np.allclose(hits.normal[k], (p - centers[best]) / radii[best], atol=1e-4)
        checked += 1
    assert checked > 50, checked
    with pytest.raises(ValueError):
        world.cast_rays(origins[:3], directions[:2], lengths[:3])
    with pytest.raises(satgpu.errors.InvalidSettingError):
        world.cast_rays([[0, 0]], [[0, 0]], [1.0])


def test_ray_casts_agree_with_the_reference(gpu):
    """World.cast_rays against satgpu.reference.cast_rays on squares and triangles: the same body
    at the same distance for all but grazing rays, with ray filters; compound bodies named
    whole; bad rays refused by both."""
    vertices, offsets = random_polygons(1000, 4)
    shapes = satgpu.polygons(vertices, offsets)
    n = len(shapes)
    world = satgpu.World(shapes, np.arange(n, dtype=np.uint32), gpu=gpu)
    world.set_transforms(np.zeros((n, 2)), np.zeros(n))
    side = vertices.max()
    origins, directions, lengths = random_rays(300, side, side / 5, 7)
    # Every other ray blind to category 2, the category of the first 100 bodies.
    category = np.where(np.arange(n) < 100, 2, 1).astype(np.uint32)
    body_filters = (category, np.full(n, 0xFFFFFFFF, dtype=np.uint32), np.zeros(n, dtype=np.int32))
    mask = np.where(np.arange(300) % 2 == 0, 0xFFFFFFFF, 0xFFFFFFFD).astype(np.uint32)
    ray_filters = (np.ones(300, dtype=np.uint32), mask, np.zeros(300, dtype=np.int32))
    world.set_filters(*body_filters)
    got = world.cast_rays(origins, directions, lengths, filters=ray_filters)
    want = reference.cast_rays(shapes, origins, directions, lengths, filters=body_filters, ray_filters=ray_filters)
    same = got.body == want.body
    assert same.mean() >= 0.97 and (got.body >= 0).sum() > 100, (same.mean(), (got.body >= 0).sum())
    hit = same & (got.body >= 0)
    assert np.allclose(got.fraction[hit] * lengths[hit], want.fraction[hit] * lengths[hit], atol=1e-5 * side)
    assert np.allclose(got.point[hit], want.point[hit], atol=1e-5 * side)
    assert not np.any((got.body[1::2] >= 0) & (got.body[1::2] < 100)), "a blind ray saw category 2"
    # Compound bodies: an L and a square, named whole by both.
    ell = satgpu.concave([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]])
    square = satgpu.compound([satgpu.polygon([[5, 0], [6, 0], [6, 1], [5, 1]])])
    hits = reference.cast_rays([ell, square], [[1.5, 1.5], [3, 0.5]], [[-1, 0], [1, 0]], [10, 10])
    assert hits.body.tolist() == [0, 1] and np.allclose(hits.fraction, [0.05, 0.2])
    with pytest.raises(satgpu.errors.InvalidSettingError):
        reference.cast_rays(shapes, [[0, 0]], [[0, 0]], [1.0])


def test_shape_casts_agree_with_the_reference(gpu):
    """World.cast_shapes against satgpu.reference.cast_shapes: disks of two radii, a turned square
    and a capsule cast among squares and triangles, with cast filters: the same body at the same
    distance for all but grazing casts. A disk cast is the reference's ray cast at circles grown by
    its radius; a cast starting in a body hits at fraction 0 at its origin; bad casts are refused."""
    vertices, offsets = random_polygons(1000, 4)
    shapes = satgpu.polygons(vertices, offsets)
    n = len(shapes)
    world = satgpu.World(shapes, np.arange(n, dtype=np.uint32), gpu=gpu)
    world.set_transforms(np.zeros((n, 2)), np.zeros(n))
    side = vertices.max()
    origins, directions, lengths = random_rays(300, side, side / 5, 8)
    cast = [
        satgpu.circle((0, 0), side / 200),
        satgpu.circle((0, 0), side / 80),
        satgpu.polygon([[-1, -1], [1, -1], [1, 1], [-1, 1]], 0.0),
        satgpu.capsule((-1, 0), (1, 0), 0.3),
    ]
    which = np.arange(300, dtype=np.uint32) % 4
    angles = np.arange(300) * 0.37
    mask = np.where(np.arange(300) % 2 == 0, 0xFFFFFFFF, 0xFFFFFFFD).astype(np.uint32)
    cast_filters = (np.ones(300, dtype=np.uint32), mask, np.zeros(300, dtype=np.int32))
    category = np.where(np.arange(n) < 100, 2, 1).astype(np.uint32)
    body_filters = (category, np.full(n, 0xFFFFFFFF, dtype=np.uint32), np.zeros(n, dtype=np.int32))
    world.set_filters(*body_filters)
    got = world.cast_shapes(cast, origins, directions, lengths, which=which, angles=angles, filters=cast_filters)
    want = reference.cast_shapes(
        shapes, cast, origins, directions, lengths, which, angles, filters=body_filters, cast_filters=cast_filters
    )
    same = got.body == want.body
    assert same.mean() >= 0.97 and (got.body >= 0).sum() > 100, (same.mean(), (got.body >= 0).sum())
    hit = same & (got.body >= 0)
    assert np.allclose(got.fraction[hit] * lengths[hit], want.fraction[hit] * lengths[hit], atol=1e-4 * side)
    assert not np.any((got.body[1::2] >= 0) & (got.body[1::2] < 100)), "a blind cast saw category 2"
    # A disk cast is a ray cast at the shapes grown by its radius (here: circles).
    centers, radii = random_circles(500, 3)
    r = 0.5
    disks = reference.cast_shapes(satgpu.circles(centers, radii), satgpu.circle((0, 0), r), origins, directions, lengths)
    rays = reference.cast_rays(satgpu.circles(centers, radii + r), origins, directions, lengths)
    assert np.array_equal(disks.body, rays.body) and np.array_equal(disks.fraction, rays.fraction, equal_nan=True)
    hit = disks.body >= 0
    assert np.allclose(disks.point[hit], rays.point[hit] - r * rays.normal[hit])
    # Starting inside body 0: fraction 0 at the origin; a zero direction is refused, by both.
    inside = vertices[offsets[0] : offsets[1]].mean(axis=0)
    start = world.cast_shapes(cast[0], [inside], [[1, 0]], [1.0])
    assert start.body[0] == 0 and start.fraction[0] == 0 and np.all(start.point[0] == inside)
    for cast_with in (world.cast_shapes, lambda *a: reference.cast_shapes(shapes, *a)):
        with pytest.raises(satgpu.errors.InvalidSettingError, match="cast 0"):
            cast_with(cast[0], [[0, 0]], [[0, 0]], [1.0])
    with pytest.raises(satgpu.errors.InvalidSettingError, match="shape 4"):
        world.cast_shapes(cast, [[0, 0]], [[1, 0]], [1.0], which=[4])


def test_the_reference_sweep_catches_a_fast_body_through_a_thin_wall():
    """reference.sweep: a ball shot through a thin wall between two frames touches it at the
    moment its rim reaches the wall, which neither frame's detection sees; bad poses are refused."""
    wall = satgpu.polygon([[-0.005, -2], [0.005, -2], [0.005, 2], [-0.005, 2]])
    ball = satgpu.circle((0, 0), 0.05)
    start = ([[5, 0], [0, 0]], [0, 0])
    end = ([[5, 0], [10, 0]], [0, 0])
    found = reference.sweep([wall, ball], start, end)
    assert len(found) == 1 and found.a[0] == 0 and found.b[0] == 1
    assert abs(found.toi[0] - (5 - 0.005 - 0.05) / 10) < 1e-12
    placed = [satgpu.polygon([[4.995, -2], [5.005, -2], [5.005, 2], [4.995, 2]]), satgpu.circle((10, 0), 0.05)]
    assert len(reference.detect(placed).a) == 0
    with pytest.raises(ValueError, match="not finite"):
        reference.sweep([wall, ball], start, ([[5, 0], [np.nan, 0]], [0, 0]))
    with pytest.raises(ValueError, match="one row per body"):
        reference.sweep([wall, ball], ([[5, 0]], [0]), end)


def test_a_continuous_world_catches_what_its_frames_miss(gpu):
    """World(continuous=True): a ball shot through a thin wall between two steps touches it
    (as the reference's sweep says), a world without the option sees nothing; random bodies moving
    and turning agree with the reference pair for pair."""
    wall = satgpu.polygon([[-0.005, -2], [0.005, -2], [0.005, 2], [-0.005, 2]])
    ball = satgpu.circle((0, 0), 0.05)
    start = (np.array([[5.0, 0], [0, 0]]), np.zeros(2))
    end = (np.array([[5.0, 0], [10, 0]]), np.zeros(2))
    for continuous in (True, False):
        world = satgpu.World([wall, ball], [0, 1], gpu=gpu, continuous=continuous)
        world.set_transforms(*start)
        world.set_transforms(*end)
        assert len(world.step().a) == 0
        found = world.impacts()
        if not continuous:
            assert found is None
            continue
        assert list(zip(found.a, found.b)) == [(0, 1)]
        assert abs(found.toi[0] - (5 - 0.005 - 0.05) / 10) < 1e-5
    rng = np.random.default_rng(3)
    shapes = [satgpu.polygon([[-0.5, -0.3], [0.5, -0.3], [0.5, 0.3], [-0.5, 0.3]]), satgpu.circle((0, 0), 0.3),
              satgpu.capsule((-0.5, 0), (0.5, 0), 0.1)]
    n = 80
    which = rng.integers(0, 3, n).astype(np.uint32)
    xy0, a0 = rng.random((n, 2)) * 15, rng.random(n) * 6
    xy1, a1 = xy0 + (rng.random((n, 2)) - 0.5) * 4, a0 + np.where(np.arange(n) % 2 == 0, 0, rng.random(n) - 0.5)
    world = satgpu.World(shapes, which, gpu=gpu, continuous=True)
    world.set_transforms(xy0, a0)
    world.set_transforms(xy1, a1)
    world.step()
    got = world.impacts()
    want = reference.sweep([shapes[k] for k in which], (xy0, a0), (xy1, a1))
    assert len(want) > 20
    assert list(zip(got.a, got.b)) == list(zip(want.a, want.b))
    assert np.abs(got.toi - want.toi).max() < 1e-3


def test_neighbours_are_the_k_nearest_of_a_kd_tree(gpu):
    # Circles of one radius: the k nearest by centre distance (scipy's cKDTree), within a radius.
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(5)
    centres = rng.random((3000, 2)) * 60
    r, cutoff, k = 0.3, 1.5, 6
    shapes = satgpu.circles(centres, np.full(3000, r))
    got = satgpu.neighbours(shapes, cutoff, k=k, gpu=gpu)
    want = satgpu.reference.neighbours(shapes, cutoff, k=k)
    assert len(got) == 3000 and got.offsets.dtype == np.uint64 and got.normal.shape == (len(got.neighbour), 2)
    distance, index = cKDTree(centres).query(centres, k=k + 2, distance_upper_bound=cutoff + 2 * r)
    decided = 0
    for i in range(3000):
        # The tree's own point first, then the others nearest first (inf past the bound).
        tree = [(d - 2 * r, j) for d, j in zip(distance[i][1:], index[i][1:]) if d - 2 * r <= cutoff]
        mine = got.of(i)
        assert list(mine) == list(want.of(i)) or len(tree) > k, i
        dist = got.distance[got.offsets[i] : got.offsets[i + 1]]
        assert np.all(np.diff(dist) >= 0)
        assert len(mine) == min(k, len(tree)), (i, mine, tree)
        assert np.allclose(dist, [d for d, _ in tree[: len(mine)]], atol=1e-5)
        if len(tree) <= k or tree[k][0] - tree[k - 1][0] > 1e-5:
            assert sorted(mine) == sorted(j for _, j in tree[:k]), i
            decided += 1
    assert decided > 2900
    # All within the cutoff without k; each pair for both of its bodies, normals turned round.
    every = satgpu.neighbours(shapes, cutoff, gpu=gpu)
    rows = {(b, int(n)): tuple(every.normal[j]) for b in range(3000) for j, n in zip(range(every.offsets[b], every.offsets[b + 1]), every.of(b))}
    assert all((n, b) in rows and np.allclose(rows[(n, b)], [-x for x in v]) for (b, n), v in rows.items())
    with pytest.raises(satgpu.InvalidSettingError, match="radius"):
        satgpu.neighbours(shapes, -1.0, gpu=gpu)
    with pytest.raises(satgpu.InvalidSettingError, match="k"):
        satgpu.neighbours(shapes, 1.0, k=0, gpu=gpu)
    # A world with the radius as its margin, stepped: the same lists from its frame.
    world = satgpu.World(shapes, np.arange(3000, dtype=np.uint32), gpu=gpu, margin=cutoff)
    stepped = satgpu.Neighbours.from_contacts(3000, world.step(), k=k)
    # Its shapes are placed otherwise (at the identity, not each at its first vertex): the same
    # distances to f32 rounding, so near ties may swap.
    assert np.array_equal(stepped.offsets, got.offsets)
    assert np.allclose(stepped.distance, got.distance, atol=1e-5)
    assert sum(set(stepped.of(i)) != set(got.of(i)) for i in range(3000)) <= 5


def test_one_shot_detection_in_a_periodic_box_agrees_with_the_reference(gpu):
    """Issue 65: satgpu.detect and reference.detect take a periodic box, and agree."""
    shapes = satgpu.generate("shapes", 600, seed=4)
    circles = satgpu._satgpu.shape_bounds(shapes)  # centre x, y, radius
    lo = (circles[:, :2] - circles[:, 2:3]).min(axis=0)
    hi = (circles[:, :2] + circles[:, 2:3]).max(axis=0)
    box = (lo[0] + 2.0, lo[1] + 2.0, hi[0] - 2.0, hi[1] - 2.0)
    got = satgpu.detect(shapes, gpu=gpu, periodic=box)
    want = reference.detect(shapes, periodic=box)
    plain = reference.detect(shapes)
    assert len(want.a) > len(plain.a)
    assert reference.disagreements(shapes, got, want, periodic=box) == 0
    with pytest.raises(satgpu.errors.InvalidSettingError, match="periodic box"):
        reference.detect(shapes, periodic=(0.0, 0.0, 1.0, 1.0))
