"""satgpu.Crowd, JuPedSim's collision-free speed model: the API from NumPy, refusals naming what
is wrong, the GPU against the f64 reference, and a small bottleneck and corridors that turn beside
JuPedSim 1.4.2 itself (CI installs it): the same area, starting positions and parameters, the
flows within 5 %."""

import hashlib
import os
import sys

import numpy as np
import pytest

import satgpu
from satgpu.crowd import bottleneck, corner, room, u_turn, zigzag

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from jupedsim_compare import jupedsim_run, own_repulsion, satgpu_run, summary  # noqa: E402

AREA = "POLYGON ((0 0, 10 0, 10 4, 12 4, 12 6, 10 6, 10 10, 0 10, 0 0))"
EXIT = (11.5, 4, 12, 6)


def test_a_lone_agent_walks_out_at_its_speed(gpu):
    for backend in ("gpu", "cpu"):
        crowd = satgpu.Crowd(AREA, EXIT, [[11.0, 5.0]], backend=backend, gpu=gpu)
        assert np.isnan(crowd.exit_times()).all() and crowd.agent_count() == 1
        assert crowd.iterate(41) == 1
        assert crowd.iterate(1) == 0 and crowd.steps == 42
        assert crowd.exit_times().tolist() == [pytest.approx(0.42)]
        assert crowd.positions().shape == (1, 2) and crowd.positions()[0, 0] >= 11.5
        # Nobody walks: the clock runs on (agents may arrive), and the exit time stays.
        assert crowd.iterate(10) == 0 and crowd.steps == 52
        assert crowd.evacuation().evacuation_time == pytest.approx(0.42)


def test_per_agent_parameters_and_shapely(gpu):
    shapely = pytest.importorskip("shapely")
    area = shapely.from_wkt(AREA)
    xy = [[1.0, 5.0], [1.0, 3.0]]
    crowd = satgpu.Crowd(area, EXIT, xy, desired_speed=[0.6, 1.2], radius=[0.2, 0.25], gpu=gpu)
    out = crowd.run(60.0)
    assert out.remaining == 0 and len(out.exit_times) == 2
    slow, fast = crowd.exit_times()
    assert slow > fast, "the agent at half the speed leaves later"


def test_refusals_name_what_is_wrong(gpu):
    with pytest.raises(satgpu.InvalidCrowdError, match="agent 1 at \\(11, 3\\) is outside the walkable area"):
        satgpu.Crowd(AREA, EXIT, [[1, 1], [11, 3]], gpu=gpu)
    with pytest.raises(satgpu.InvalidCrowdError, match="is not inside the walkable area"):
        satgpu.Crowd(AREA, (11.5, 4, 12.5, 6), [[1, 1]], gpu=gpu)
    with pytest.raises(satgpu.InvalidCrowdError, match="agents 0 and 1 overlap"):
        satgpu.Crowd(AREA, EXIT, [[1, 1], [1.3, 1]], backend="cpu")
    with pytest.raises(satgpu.InvalidCrowdError, match="agent 0's radius 3 is outside"):
        satgpu.Crowd(AREA, EXIT, [[5, 5]], radius=3.0, gpu=gpu)
    with pytest.raises(satgpu.InvalidCrowdError, match="dt -1"):
        satgpu.Crowd(AREA, EXIT, [[5, 5]], dt=-1, gpu=gpu)
    with pytest.raises(satgpu.WktError):
        satgpu.Crowd("POLYGON ((0 0, 1 0", EXIT, [[5, 5]], gpu=gpu)
    with pytest.raises(ValueError, match="n x 2"):
        satgpu.Crowd(AREA, EXIT, [1, 2, 3], gpu=gpu)
    with pytest.raises(ValueError, match="one number or one per agent"):
        satgpu.Crowd(AREA, EXIT, [[1, 1], [2, 2]], radius=[0.2, 0.2, 0.2], gpu=gpu)
    with pytest.raises(ValueError, match="backend"):
        satgpu.Crowd(AREA, EXIT, [[1, 1]], backend="tpu")
    with pytest.raises(ValueError, match="steps"):
        satgpu.Crowd(AREA, EXIT, [[1, 1]], gpu=gpu).iterate(-1)


def test_the_gpu_empties_a_room_as_the_reference_does(gpu):
    scene = room(100, 2)
    g = summary(satgpu_run(scene, 300.0))
    c = summary(satgpu_run(scene, 300.0, backend="cpu"))
    assert g["remaining"] == c["remaining"] == 0
    assert g["evacuation_time"] == pytest.approx(c["evacuation_time"], rel=0.05)
    assert g["flow"] == pytest.approx(c["flow"], rel=0.05)


@pytest.mark.one_backend
def test_a_bottleneck_flows_as_in_jupedsim(kept):
    """2 m wide, 120 agents, 3 seeds: the mean flow and evacuation time within 5 % of JuPedSim's
    (measured on this machine: within 3 %; at 1 m both models can jam for good)."""
    ours, theirs = [], []
    for seed in (1, 2, 3):
        scene = bottleneck(2.0, 120, seed)
        theirs.append(kept(scene, "jupedsim", lambda: jupedsim_run(scene, 300.0)))
        ours.append(summary(satgpu_run(scene, 300.0)))
    for key in ("flow", "evacuation_time"):
        j = np.mean([r[key] for r in theirs])
        g = np.mean([r[key] for r in ours])
        assert g == pytest.approx(j, rel=0.05), f"{key}: satgpu {g}, JuPedSim {j}"


@pytest.mark.one_backend
def test_own_repulsion_flows_as_in_jupedsims_v2(kept):
    """Issue 66: CollisionFreeSpeedModelV2, each agent's own repulsion drawn about the defaults;
    2 m wide, 120 agents, 3 seeds: the mean flow and evacuation time within 5 % of JuPedSim's."""
    ours, theirs = [], []
    for seed in (1, 2, 3):
        scene = bottleneck(2.0, 120, seed)
        own = own_repulsion(120, seed)
        run = lambda: jupedsim_run(scene, 300.0, model="cfsm-v2", own=own)  # noqa: E731
        theirs.append(kept(scene, "jupedsim cfsm-v2", run))
        ours.append(summary(satgpu_run(scene, 300.0, model="cfsm-v2", own=own)))
    for key in ("flow", "evacuation_time"):
        j = np.mean([r[key] for r in theirs])
        g = np.mean([r[key] for r in ours])
        assert g == pytest.approx(j, rel=0.05), f"{key}: satgpu {g}, JuPedSim {j}"


def test_own_repulsion_is_v2s(gpu):
    """Each agent's own repulsion is model "cfsm-v2"'s; "cfsm" takes one for all, and a bad value
    is refused by its JuPedSim name."""
    xy = [[1.0, 5.0], [1.0, 3.0]]
    with pytest.raises(ValueError, match="strength_neighbor_repulsion is one number for all agents"):
        satgpu.Crowd(AREA, EXIT, xy, strength_neighbor_repulsion=[1.0, 2.0], gpu=gpu)
    with pytest.raises(ValueError, match="model must be one of"):
        satgpu.Crowd(AREA, EXIT, xy, model="sfm", gpu=gpu)
    with pytest.raises(satgpu.InvalidCrowdError, match="agent 1's range_geometry_repulsion 0 must be finite and above 0"):
        satgpu.Crowd(AREA, EXIT, xy, model="cfsm-v2", range_geometry_repulsion=[0.02, 0.0], gpu=gpu)
    runs = {}
    for backend in ("gpu", "cpu"):
        for model, strength in (("cfsm", 8.0), ("cfsm-v2", [8.0, 8.0]), ("cfsm-v2", [8.0, 80.0])):
            crowd = satgpu.Crowd(AREA, EXIT, xy, model=model, strength_neighbor_repulsion=strength, backend=backend,
                                 gpu=gpu)
            crowd.iterate(50)
            runs[backend, model, str(strength)] = crowd.positions()
        # The same values as one or per agent: the same run; a stronger repulsion: another.
        assert np.array_equal(runs[backend, "cfsm", "8.0"], runs[backend, "cfsm-v2", "[8.0, 8.0]"])
        assert not np.array_equal(runs[backend, "cfsm", "8.0"], runs[backend, "cfsm-v2", "[8.0, 80.0]"])


def _fingerprint(*parts) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else str(part).encode())
    return digest.hexdigest()[:24]


@pytest.fixture(scope="session")
def kept(request):
    """Runs that no adapter changes (JuPedSim's; satgpu's f64 reference, keyed by the compiled
    module's bytes) kept in pytest's cache, so the suite's run on the second backend reads them:
    `kept(scene, what, run)` gives `summary(run())`."""
    import jupedsim

    with open(satgpu._satgpu.__file__, "rb") as f:
        module = hashlib.sha256(f.read()).hexdigest()

    def get(scene, what, run):
        version = jupedsim.__version__ if what.startswith("jupedsim") else module
        key = "satgpu/runs/" + _fingerprint(what, version, scene.geometry, scene.exit, scene.positions.tobytes())
        found = request.config.cache.get(key, None)
        if found is None:
            found = summary(run())
            request.config.cache.set(key, found)
        return found

    return get


@pytest.mark.one_backend
@pytest.mark.parametrize("make", [corner, u_turn, zigzag])
def test_corridors_that_turn_flow_as_in_jupedsim(gpu, kept, make):
    """Issue 62: 2.4 m wide, 60 agents, 5 seeds: the mean flow and evacuation time within 5 % of
    JuPedSim's, on the GPU and on the f64 reference. Agents used to turn as soon as they saw past
    a corner and cut it (4 % slower than JuPedSim at 120 agents; the issue's own corridor 7 %)."""
    theirs, ours, cpu = [], [], []
    for seed in range(1, 6):
        scene = make(2.4, 60, seed)
        theirs.append(kept(scene, "jupedsim", lambda: jupedsim_run(scene, 300.0)))
        ours.append(summary(satgpu_run(scene, 300.0)))
        cpu.append(kept(scene, "cpu", lambda: satgpu_run(scene, 300.0, backend="cpu")))
    for key in ("flow", "evacuation_time"):
        j = np.mean([r[key] for r in theirs])
        for name, runs in (("GPU", ours), ("reference", cpu)):
            g = np.mean([r[key] for r in runs])
            assert g == pytest.approx(j, rel=0.05), f"{make.__name__} {key}: satgpu's {name} {g}, JuPedSim {j}"
