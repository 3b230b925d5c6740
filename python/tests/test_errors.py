"""Every kind of satgpu::Error that Python can meet is its own exception class, with the Rust
message, under satgpu.Error; input errors are ValueErrors too."""

import pathlib
import re
import types

import numpy as np
import pytest

import satgpu
from satgpu import errors

SQUARE = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]


def test_every_class_the_bindings_raise_exists_under_satgpu_error():
    files = sorted((pathlib.Path(__file__).parents[1] / "src").glob("*.rs"))
    source = "\n".join(f.read_text() for f in files)
    raised = set(re.findall(r'"([A-Za-z]+Error)"', source))
    assert len(raised) >= 19, raised
    for name in raised:
        cls = getattr(satgpu, name)
        assert issubclass(cls, satgpu.Error) and cls is getattr(errors, name), name
    # One class per kind: no two kinds share a class.
    kinds = re.findall(r'E::\w+[^=]*=> "(\w+)"', source)
    assert len(kinds) == len(set(kinds)), kinds


def test_families_and_python_bases():
    assert issubclass(satgpu.NonFiniteTransformError, satgpu.InvalidTransformError)
    assert issubclass(satgpu.FilterCountError, satgpu.CountError)
    assert issubclass(satgpu.UnsuitableAdapterError, satgpu.NoAdapterError)
    assert issubclass(satgpu.NotEnoughMemoryError, satgpu.TooLargeError)
    assert issubclass(satgpu.DeviceTimeoutError, TimeoutError)
    for cls in (satgpu.InvalidPolygonError, satgpu.InvalidTransformError, satgpu.CountError, satgpu.SceneJsonError):
        assert issubclass(cls, ValueError), cls
    assert issubclass(satgpu.SceneFileError, OSError)
    assert not issubclass(satgpu.DeviceLostError, ValueError)


def test_world_errors_by_kind(gpu):
    shapes = [satgpu.polygon(SQUARE)]
    with pytest.raises(satgpu.UnknownShapeError, match="body 2 uses shape 1, but only 1 shapes were given"):
        satgpu.World(shapes, np.array([0, 0, 1], dtype=np.uint32), gpu=gpu)
    world = satgpu.World(shapes, np.zeros(3, dtype=np.uint32), gpu=gpu)
    xy, angle = np.zeros((3, 2)), np.zeros(3)
    xy[1, 0] = np.inf
    with pytest.raises(satgpu.NonFiniteTransformError, match="transform 1 is not finite"):
        world.set_transforms(xy, angle)
    xy[1, 0] = 1e38
    with pytest.raises(satgpu.TransformOutOfRangeError, match="transform 1 translates by"):
        world.set_transforms(xy, angle)
    with pytest.raises(satgpu.TransformCountError, match="got 2 transforms for 3 bodies"):
        world.set_transforms(xy[:2], angle[:2])
    ones = np.ones(2, dtype=np.uint32)
    with pytest.raises(satgpu.FilterCountError, match="got 2 collision filters for 3 bodies"):
        world.set_filters(ones, ones, np.zeros(2, dtype=np.int32))
    # The world survives every refusal.
    world.set_transforms(np.array([[0.0, 0.0], [0.9, 0.0], [5.0, 0.0]]), np.zeros(3))
    c = world.step()
    assert list(zip(c.a.tolist(), c.b.tolist())) == [(0, 1)]


def test_a_reservation_past_the_largest_buffer_is_refused_and_the_world_goes_on(gpu):
    shapes = satgpu.generate("crowd", 3000)
    world = satgpu.World(shapes, np.arange(3000, dtype=np.uint32), gpu=gpu)
    with pytest.raises(satgpu.BufferTooLargeError, match="strip entries needs"):
        world.reserve(2**58, 0)
    world.set_transforms(np.zeros((3000, 2)), np.zeros(3000))
    got = world.step()
    assert satgpu.reference.disagreements(shapes, got, satgpu.reference.detect(shapes)) == 0


def test_no_filters_for_some_shapes_is_never_read_as_none(gpu):
    shapes = satgpu.circles(np.zeros((3, 2)), np.ones(3))
    empty_u, empty_i = np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.int32)
    with pytest.raises(satgpu.FilterCountError, match="got 0 collision filters for 3 bodies"):
        satgpu.detect(shapes, filters=(empty_u, empty_u, empty_i), gpu=gpu)
    with pytest.raises(satgpu.FilterCountError):
        satgpu.reference.detect(shapes, filters=(empty_u, empty_u, empty_i))
    with pytest.raises(ValueError, match="got 3, 3 and 2"):
        ones = np.ones(3, dtype=np.uint32)
        satgpu.detect(shapes, filters=(ones, ones, np.zeros(2, dtype=np.int32)), gpu=gpu)


def test_adapter_and_memory_errors(monkeypatch, adapter):
    monkeypatch.setenv("WGPU_ADAPTER_NAME", "no adapter is called this")
    with pytest.raises(satgpu.NoAdapterError, match='WGPU_ADAPTER_NAME="no adapter is called this"'):
        satgpu.Gpu()
    monkeypatch.delenv("WGPU_ADAPTER_NAME")
    small = satgpu.Gpu(adapter=adapter, memory_limit=100_000)
    shapes = satgpu.generate("crowd", 20_000)
    with pytest.raises(satgpu.NotEnoughMemoryError, match="need about"):
        satgpu.detect(shapes, gpu=small)
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        satgpu.Gpu(adapter=adapter, timeout=0)
    # A timeout past any clock waits as long as satgpu allows (a year), not a panic.
    crowd = satgpu.generate("crowd", 2000)
    got = satgpu.detect(crowd, gpu=satgpu.Gpu(adapter=adapter, timeout=1e300))
    want = satgpu.reference.detect(crowd)
    assert len(got) > 0 and satgpu.reference.disagreements(crowd, got, want) == 0


def test_a_wait_past_the_timeout_is_a_device_timeout(adapter):
    gpu = satgpu.Gpu(adapter=adapter, timeout=1e-6)
    shapes = satgpu.generate("crowd", 20_000)
    try:
        satgpu.detect(shapes, gpu=gpu)
    except satgpu.DeviceTimeoutError as e:
        assert "within 1µs" in str(e) and isinstance(e, TimeoutError)
    else:
        # GL runs a submission to its end inside submit on llvmpipe: no wait is left to time out.
        assert "Gl" in gpu.adapter, f"{gpu.adapter}: a 1 µs wait did not time out"


def test_sizes_past_memory_and_results_that_do_not_fit_are_errors():
    # Counts no host holds: refused before anything is made, not a panic or an abort.
    with pytest.raises(satgpu.NotEnoughMemoryError, match="crowd shapes need about"):
        satgpu.generate("crowd", 2**60)
    with pytest.raises(satgpu.NotEnoughMemoryError, match="rooms shapes need about"):
        satgpu.generate("rooms", 2**60)
    shapes = satgpu.generate("crowd", 100)
    want = satgpu.reference.detect(shapes)
    assert len(want) > 0
    with pytest.raises(satgpu.NotEnoughMemoryError, match="neighbours of"):
        satgpu.Neighbours.from_contacts(2**62, want)
    # Results whose arrays differ in length, or that name bodies past the last: a ValueError.
    fields = {k: getattr(want, k) for k in ("a", "b", "normal", "depth")}
    short = types.SimpleNamespace(**{**fields, "b": fields["b"][:-1]})
    with pytest.raises(ValueError, match="got: a, b and depth must be n long"):
        satgpu.reference.disagreements(shapes, short, want)
    narrow = types.SimpleNamespace(**{**fields, "normal": np.ascontiguousarray(fields["normal"][:, :1])})
    with pytest.raises(ValueError, match="want: .* normal n x 2"):
        satgpu.reference.disagreements(shapes, want, narrow)
    with pytest.raises(ValueError, match="names a body past the last of 1"):
        satgpu.reference.disagreements(satgpu.generate("crowd", 1), want, want)
    assert satgpu.reference.disagreements(shapes, want, want) == 0
