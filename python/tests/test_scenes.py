"""Every built-in scene kind and the edge inputs of the Rust tests, from Python, against the f64
reference; scene files written and read back."""

import json

import numpy as np
import pytest

import satgpu
from satgpu import reference


def pairs(c):
    return [(int(a), int(b)) for a, b in zip(c.a, c.b)]


def agree(gpu, shapes, filters=None, contacts="basic"):
    got = satgpu.detect(shapes, filters=filters, contacts=contacts, gpu=gpu)
    want = reference.detect(shapes, filters=filters, contacts=contacts)
    assert reference.disagreements(shapes, got, want) == 0
    return got, want


def test_the_scene_kinds_are_the_command_lines():
    assert satgpu.SCENE_KINDS == (
        "crowd", "dense", "mixed", "clustered", "grid", "round", "pile", "scales", "outliers", "agents", "shapes", "rooms"
    )


@pytest.mark.parametrize("kind", satgpu.SCENE_KINDS)
def test_every_kind_agrees_with_the_reference(gpu, kind):
    shapes = satgpu.generate(kind, 1500 if kind != "rooms" else 3000, seed=3)
    assert len(shapes) == (1500 if kind != "rooms" else 3000)
    got, want = agree(gpu, shapes)
    assert len(want) > 0, f"{kind}: a scene with no pairs tests nothing"
    assert pairs(got) == pairs(want)


@pytest.mark.parametrize("kind", ["grid", "shapes"])
def test_full_contacts_on_generated_scenes(gpu, kind):
    shapes = satgpu.generate(kind, 800, seed=4)
    got, want = agree(gpu, shapes, contacts="full")
    assert np.array_equal(got.a_in_b, want.a_in_b) and np.array_equal(got.b_in_a, want.b_in_a)
    assert np.array_equal(np.isnan(got.points), np.isnan(want.points))


def test_generate_is_deterministic_and_checks_its_arguments():
    one, again, other = (satgpu.generate("round", 50, seed=s) for s in (7, 7, 8))
    assert all(np.array_equal(one[i].vertices, again[i].vertices) for i in range(50))
    assert any(not np.array_equal(one[i].vertices, other[i].vertices) for i in range(50))
    assert len(satgpu.generate("crowd", 0)) == 0
    with pytest.raises(ValueError, match="unknown scene kind \"crowds\"; expected one of: crowd, dense"):
        satgpu.generate("crowds", 10)
    rooms = satgpu.generate("rooms", 50)
    assert len(rooms) == 50 and all(isinstance(b, satgpu.Compound) for b in rooms)
    with pytest.raises(ValueError, match="n must be a non-negative integer"):
        satgpu.generate("crowd", -1)
    with pytest.raises(ValueError, match="seed must be"):
        satgpu.generate("crowd", 10, seed=2**64)


def test_shapes_at_the_edges_of_what_is_supported(gpu):
    angles = np.arange(1024) * 2 * np.pi / 1024
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    # The most vertices, against a triangle, a circle and a capsule; touching squares (closed
    # sets: touching is colliding, at depth 0); a pair far out and a pair small.
    shapes = [
        satgpu.polygon(ring * 2),
        satgpu.polygon([[1.5, -0.2], [3, 0], [1.5, 0.2]]),
        satgpu.circle([0, 2.5], 0.6),
        satgpu.capsule([-3, 0], [-1.9, 0], 0.2),
        satgpu.polygon([[10, 0], [11, 0], [11, 1], [10, 1]]),
        satgpu.polygon([[11, 0], [12, 0], [12, 1], [11, 1]]),
        satgpu.polygon([[1e30, 1e30], [1.5e30, 1e30], [1.5e30, 1.5e30]]),
        satgpu.polygon([[1.25e30, 1.1e30], [2e30, 1.1e30], [2e30, 2e30]]),
        satgpu.polygon([[0, 100], [1e-3, 100], [1e-3, 100.001]]),
        satgpu.polygon([[5e-4, 100], [2e-3, 100], [2e-3, 100.001]]),
    ]
    got, want = agree(gpu, shapes)
    assert pairs(got) == [(0, 1), (0, 2), (0, 3), (4, 5), (6, 7), (8, 9)]
    assert got.depth[3] == 0.0
    with pytest.raises(satgpu.InvalidPolygonError, match="1025 vertices; at most 1024"):
        satgpu.polygon(np.vstack([ring, [[1.0, 1e-9]]]))
    with pytest.raises(satgpu.InvalidPolygonError, match="outside the supported range"):
        satgpu.polygon([[0, 0], [1e38, 0], [0, 1e38]])
    with pytest.raises(satgpu.InvalidPolygonError, match="below the smallest supported size"):
        satgpu.polygon([[0, 0], [1e-31, 0], [0, 1e-31]])


def test_filters_on_the_first_and_the_last_shape(gpu):
    shapes = satgpu.generate("dense", 400, seed=5)
    everything = pairs(satgpu.detect(shapes, gpu=gpu))
    n = len(shapes)
    first_or_last = [p for p in everything if 0 in p or n - 1 in p]
    assert first_or_last, "the scene must put the first or last shape in a pair"
    category = np.ones(n, dtype=np.uint32)
    mask = np.full(n, 0xFFFFFFFF, dtype=np.uint32)
    mask[0] = mask[-1] = 0  # the first and the last collide with nothing
    group = np.zeros(n, dtype=np.int32)
    got, want = agree(gpu, shapes, filters=(category, mask, group))
    assert pairs(got) == pairs(want) == [p for p in everything if p not in first_or_last]


def test_scene_files_round_trip(gpu, tmp_path):
    shapes = satgpu.generate("shapes", 300, seed=6)
    n = len(shapes)
    category = np.ones(n, dtype=np.uint32)
    mask = np.full(n, 0xFFFFFFFF, dtype=np.uint32)
    group = np.zeros(n, dtype=np.int32)
    category[0], mask[-1], group[n // 2] = 2, 5, -3
    path = tmp_path / "scene.json"
    satgpu.write_scene(path, shapes, filters=(category, mask, group))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scene.json"], "no temporary file is left"
    text = json.loads(path.read_text())
    assert len(text["polygons"]) == n and text["polygons"][0]["category"] == 2
    scene = satgpu.read_scene(str(path))
    assert len(scene.shapes) == n
    for i in range(n):
        assert scene.shapes[i].vertices.tobytes() == shapes[i].vertices.tobytes(), i
        assert scene.shapes[i].radius == shapes[i].radius, i
    for got, want in zip(scene.filters, (category, mask, group)):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    a, b = satgpu.detect(shapes, gpu=gpu), satgpu.detect(scene.shapes, gpu=gpu)
    assert a.a.tobytes() == b.a.tobytes() and a.depth.tobytes() == b.depth.tobytes()
    # Without filters, none are written and none come back.
    satgpu.write_scene(path, [satgpu.circle([0, 0], 1)])
    assert satgpu.read_scene(path).filters is None


def test_scene_file_errors_name_the_file_and_the_place(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(satgpu.SceneFileError, match="missing.json") as e:
        satgpu.read_scene(missing)
    assert isinstance(e.value, OSError) and isinstance(e.value, satgpu.SceneError)
    bad = tmp_path / "bad.json"
    bad.write_text('{"polygons": [\n  {"vertices": [[0, 0], [1, 0]],}\n]}')
    with pytest.raises(satgpu.SceneJsonError, match="line 2"):
        satgpu.read_scene(bad)
    bad.write_text('{"shapes": []}')
    with pytest.raises(satgpu.MissingPolygonsError, match="no \"polygons\" array"):
        satgpu.read_scene(bad)
    bad.write_text('{"polygons": [{"circle": {"center": [0, 0], "radius": 1}}, {"vertices": [[0, 0], [1, 0]]}]}')
    with pytest.raises(satgpu.InvalidPolygonError, match="polygon 1 has 2 vertices"):
        satgpu.read_scene(bad)
    with pytest.raises(satgpu.SceneFileError):
        satgpu.write_scene(tmp_path / "no" / "such" / "dir.json", [satgpu.circle([0, 0], 1)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_concave_and_compound_bodies_agree_with_the_reference(gpu, tmp_path):
    ell = satgpu.concave([[0, 0], [4, 0], [4, 1], [1, 1], [1, 4], [0, 4]])
    assert len(ell) == 2 and "Compound" in repr(ell) and len(ell.parts) == 2
    mixed = satgpu.compound([satgpu.circle([2.5, 2.5], 1.0), satgpu.capsule([2.5, 2.5], [6, 3], 0.2)])
    bodies = [ell, satgpu.polygon([[0.5, 0.5], [2, 0.5], [2, 2], [0.5, 2]]), mixed, satgpu.circle([20, 20], 1)]
    for contacts in ("basic", "full"):
        got, want = agree(gpu, bodies, contacts=contacts)
        assert pairs(got) == pairs(want) == [(0, 1), (1, 2)]
        assert got.parts.dtype == np.uint32 and got.parts.shape == (2, 2)
        assert np.array_equal(got.parts, want.parts)
    # Within a margin of 1: the circle part of body 2 is 0.5 above the L's arm.
    got = satgpu.detect(bodies, gpu=gpu, margin=1.0)
    want = reference.detect(bodies, margin=1.0)
    assert reference.disagreements(bodies, got, want, margin=1.0) == 0
    assert pairs(got) == pairs(want) == [(0, 1), (0, 2), (1, 2)]
    assert abs(got.depth[1] + 0.5) < 1e-5 and np.array_equal(got.parts[1], [0, 0])
    # Rounded concave outlines, filters on the first body, errors by name.
    rounded = satgpu.concave([[0, 0], [4, 0], [4, 1], [1, 1], [1, 4], [0, 4]], radius=0.1)
    assert all(p.radius == 0.1 for p in rounded.parts)
    category, mask, group = np.ones(4, np.uint32), np.full(4, 0xFFFFFFFF, np.uint32), np.zeros(4, np.int32)
    mask[0] = 0
    got, _ = agree(gpu, bodies, filters=(category, mask, group))
    assert pairs(got) == [(1, 2)]
    with pytest.raises(satgpu.InvalidPolygonError, match="intersects itself"):
        satgpu.concave([[0, 0], [2, 2], [2, 0], [0, 2]])
    with pytest.raises(satgpu.InvalidPolygonError, match="no parts"):
        satgpu.compound([])
    # A compound scene file reads back as Compound bodies.
    path = tmp_path / "rooms.json"
    path.write_text('{"polygons": [{"vertices": [[0,0],[4,0],[4,1],[1,1],[1,4],[0,4]]}, {"circle": {"center": [1.5, 1.5], "radius": 1}}]}')
    scene = satgpu.read_scene(path)
    assert [len(b) for b in scene.shapes] == [2, 1]
    got, want = agree(gpu, scene.shapes)
    assert pairs(got) == [(0, 1)]
