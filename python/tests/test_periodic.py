"""Issue 65: questions besides pairs in a periodic box, against outside oracles."""

import numpy as np
import pytest

import satgpu
from satgpu import reference


def test_neighbours_in_a_periodic_box_are_a_periodic_kd_tree(gpu):
    # Circles of one radius in a 40 x 30 torus: the k nearest by centre distance from scipy's
    # cKDTree with its periodic `boxsize`, the minimum image as freud and HOOMD take it.
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(8)
    size = np.array([40.0, 30.0])
    centres = rng.random((1500, 2)) * size
    # Some placed whole boxes away: the same neighbours.
    centres[::7] += size * rng.integers(-20, 21, (len(centres[::7]), 2))
    r, cutoff, k = 0.3, 1.5, 5
    shapes = satgpu.circles(centres, np.full(len(centres), r))
    box = (0.0, 0.0, size[0], size[1])
    got = satgpu.neighbours(shapes, cutoff, k=k, gpu=gpu, periodic=box)
    want = reference.neighbours(shapes, cutoff, k=k, periodic=box)
    tree = cKDTree(np.mod(centres, size), boxsize=size)
    distance, index = tree.query(np.mod(centres, size), k=k + 2, distance_upper_bound=cutoff + 2 * r)
    decided = across = 0
    for i in range(len(centres)):
        near = [(d - 2 * r, j) for d, j in zip(distance[i][1:], index[i][1:]) if d - 2 * r <= cutoff]
        mine = got.of(i)
        assert list(mine) == list(want.of(i)) or len(near) > k, i
        dist = got.distance[got.offsets[i] : got.offsets[i + 1]]
        assert len(mine) == min(k, len(near)), (i, mine, near)
        assert np.allclose(dist, [d for d, _ in near[: len(mine)]], atol=1e-4)
        if len(near) <= k or near[k][0] - near[k - 1][0] > 1e-4:
            assert sorted(mine) == sorted(j for _, j in near[:k]), i
            decided += 1
        wrapped = np.mod(centres, size)
        across += sum(np.any(np.abs(wrapped[j] - wrapped[i]) > size / 2) for _, j in near)
    assert decided > 1450
    assert across > 20, "too few neighbours across an edge to prove the wrap"
    # Without the box: fewer neighbours.
    plain = satgpu.neighbours(shapes, cutoff, gpu=gpu)
    assert len(plain.neighbour) < len(satgpu.neighbours(shapes, cutoff, gpu=gpu, periodic=box).neighbour)
    with pytest.raises(satgpu.InvalidSettingError, match="periodic box"):
        satgpu.neighbours(shapes, 10.0, gpu=gpu, periodic=(0.0, 0.0, 20.0, 20.0))


def test_box_and_point_queries_in_a_periodic_box_see_every_image(gpu):
    # Squares of side 0.4 in a 10 x 10 torus: a box or point query finds a square where any of
    # its images meets it (brute force over the images), wherever the query lies.
    rng = np.random.default_rng(3)
    n = 500
    xy = rng.random((n, 2)) * 10.0
    square = satgpu.polygon(np.array([[-0.2, -0.2], [0.2, -0.2], [0.2, 0.2], [-0.2, 0.2]]))
    world = satgpu.World([square], np.zeros(n, dtype=np.uint32), gpu=gpu, periodic=(0.0, 0.0, 10.0, 10.0))
    world.set_transforms(xy, np.zeros(n))
    lo = rng.random((200, 2)) * 10.0 + 10.0 * rng.integers(-5, 6, (200, 2))
    hi = lo + rng.random((200, 2)) * 1.5
    found = world.query_boxes(np.hstack([lo, hi]))
    placed = xy.astype(np.float32).astype(np.float64)
    across = 0
    for q in range(200):
        # A square meets the box where some image's centre lies within 0.2 of it on both axes.
        centre = (lo[q] + hi[q]) / 2
        d = placed - centre
        d -= 10.0 * np.round(d / 10.0)
        gap = np.abs(d) - (hi[q] - lo[q]) / 2 - 0.2
        want = set(np.flatnonzero((gap <= 0).all(axis=1)).tolist())
        near = set(np.flatnonzero((np.abs(gap) < 1e-5).any(axis=1)).tolist())
        assert set(found[q].tolist()) ^ want <= near, q
        wrapped = np.mod(lo[q], 10.0) + (hi[q] - lo[q])
        across += (wrapped > 10.0).any() and len(want) > 0
    assert across > 10
    points = world.query_points(placed[:50] + 10.0 * rng.integers(-5, 6, (50, 2)))
    assert all(i in points[i].tolist() for i in range(50))


def test_rays_and_casts_in_a_periodic_box_come_back_from_the_opposite_edge(gpu):
    # Squares in a 20 x 20 torus; rays from anywhere, up to two boxes long: the World's hits are
    # the reference's, and a ray that leaves the box meets what lies past the opposite edge.
    rng = np.random.default_rng(11)
    n = 300
    xy = rng.random((n, 2)) * 20.0
    corners = np.array([[-0.3, -0.3], [0.3, -0.3], [0.3, 0.3], [-0.3, 0.3]])
    square = satgpu.polygon(corners)
    box = (0.0, 0.0, 20.0, 20.0)
    world = satgpu.World([square], np.zeros(n, dtype=np.uint32), gpu=gpu, periodic=box)
    world.set_transforms(xy, np.zeros(n))
    placed = [satgpu.polygon(corners + p) for p in xy.astype(np.float32).astype(np.float64)]
    m = 200
    origins = rng.random((m, 2)) * 20.0 + 20.0 * rng.integers(-3, 4, (m, 2))
    angle = rng.random(m) * 2 * np.pi
    directions = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    lengths = rng.random(m) * 40.0
    got = world.cast_rays(origins, directions, lengths)
    want = reference.cast_rays(placed, origins, directions, lengths, periodic=box)
    flat = reference.cast_rays(placed, origins, directions, lengths)
    assert (got.body == want.body).mean() > 0.97
    same = (got.body == want.body) & (got.body >= 0)
    assert np.allclose(got.fraction[same], want.fraction[same], atol=1e-4)
    assert np.allclose(got.point[same], want.point[same], atol=1e-3)
    assert (want.body != flat.body).sum() > 50, "few rays meet a body past an edge"
    # A circle cast: the reference's and the World's agree too.
    circle = satgpu.circle([0.0, 0.0], 0.1)
    got = world.cast_shapes(circle, origins, directions, lengths)
    want = reference.cast_shapes(placed, circle, origins, directions, lengths, periodic=box)
    assert (got.body == want.body).mean() > 0.97


def test_continuous_collision_in_a_periodic_box_goes_the_shortest_way(gpu):
    # Bodies in a 15 x 15 torus moving up to 2 per frame, their new positions wrapped into the
    # box: the World's impacts are the reference's, some across an edge.
    rng = np.random.default_rng(4)
    shapes = [satgpu.polygon([[-0.5, -0.3], [0.5, -0.3], [0.5, 0.3], [-0.5, 0.3]]), satgpu.circle((0, 0), 0.3)]
    n = 80
    which = rng.integers(0, 2, n).astype(np.uint32)
    xy0, a0 = rng.random((n, 2)) * 15, rng.random(n) * 6
    xy1 = np.mod(xy0 + (rng.random((n, 2)) - 0.5) * 4, 15.0)
    a1 = a0 + np.where(np.arange(n) % 2 == 0, 0, rng.random(n) - 0.5)
    box = (0.0, 0.0, 15.0, 15.0)
    world = satgpu.World(shapes, which, gpu=gpu, continuous=True, periodic=box)
    world.set_transforms(xy0, a0)
    world.set_transforms(xy1, a1)
    world.step()
    got = world.impacts()
    bodies = [shapes[k] for k in which]
    want = reference.sweep(bodies, (xy0, a0), (xy1, a1), periodic=box)
    flat = reference.sweep(bodies, (xy0, a0), (xy1, a1))
    assert len(want) > 20
    assert list(zip(got.a, got.b)) == list(zip(want.a, want.b))
    assert np.abs(got.toi - want.toi).max() < 1e-3
    assert len(set(zip(want.a, want.b)) - set(zip(flat.a, flat.b))) > 3
