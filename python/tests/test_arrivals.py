"""Agents arriving between steps (issue 66): `Crowd.add_agents` and `satgpu.crowd.Source` (a
seeded rate into a box) on the GPU and the f64 reference, ids that never change (in PedPy's
reading of the trajectory too), refusals that add nothing, and arrivals into a bottleneck beside
JuPedSim 1.4.2 fed the same places at the same times."""

import os
import sys

import numpy as np
import pedpy
import pytest

import satgpu
from satgpu.crowd import Source, bottleneck

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from jupedsim_compare import jupedsim_arrivals, satgpu_arrivals, summary  # noqa: E402


@pytest.mark.parametrize("backend", ["gpu", "cpu"])
def test_a_source_feeds_a_crowd_that_keeps_its_ids(gpu, tmp_path, backend):
    scene = bottleneck(1.2, 1, 1)
    path = tmp_path / "arrivals.sqlite"
    crowd = satgpu.Crowd(scene.geometry, scene.exit, np.zeros((0, 2)), backend=backend, gpu=gpu, trajectory=path,
                         every=10)
    source = Source((0.5, 1.0, 3.0, 9.0), rate=4.0, seed=3, count=12, desired_speed=1.0)
    added, frames = [], {}
    while crowd.steps < 3000:
        new = source.feed(crowd)
        added.extend(new.tolist())
        crowd.iterate(10)
        frames[crowd.steps // 10] = crowd.positions().copy()
        if len(added) == 12 and crowd.agent_count() == 0:
            break
    crowd.close()
    assert added == list(range(12)), "indices in order of arrival"
    assert crowd.agent_count() == 0 and np.isfinite(crowd.exit_times()).all()
    data = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path).data
    # Each agent's rows in PedPy are where the crowd had it (id = index + 1), from its first frame.
    for frame, rows in data.groupby("frame"):
        if frame in frames:
            xy = frames[frame][rows["id"].to_numpy() - 1]
            assert np.array_equal(xy, rows[["x", "y"]].to_numpy()), frame
    first = data.groupby("id")["frame"].min().to_numpy()
    assert (np.diff(first) >= 0).all() and first[-1] > first[0], "later arrivals enter later frames"


def test_a_bad_arrival_adds_nothing(gpu):
    scene = bottleneck(1.2, 1, 1)
    crowd = satgpu.Crowd(scene.geometry, scene.exit, [[5.0, 5.0]], gpu=gpu)
    crowd.iterate(5)
    at = crowd.positions()[0]
    with pytest.raises(satgpu.InvalidCrowdError, match="agent 2 at .* overlaps agent 0, walking"):
        crowd.add_agents([[2.0, 2.0], at + [0.3, 0.0]])
    with pytest.raises(satgpu.InvalidCrowdError, match="agent 1 at .* is outside the walkable area"):
        crowd.add_agents([[-1.0, 2.0]])
    with pytest.raises(ValueError, match="the repulsion is the crowd's in model 'cfsm'"):
        crowd.add_agents([[2.0, 2.0]], strength_neighbor_repulsion=3.0)
    assert len(crowd.positions()) == 1 and crowd.agent_count() == 1
    assert crowd.add_agents([[2.0, 2.0], [2.0, 3.0]]).tolist() == [1, 2]
    assert crowd.agent_count() == 3 and len(crowd.exit_times()) == 3
    with pytest.raises(ValueError, match="rate must be above 0"):
        Source((0, 0, 1, 1), rate=0.0)


@pytest.mark.one_backend
def test_arrivals_into_a_bottleneck_as_in_jupedsim():
    """40 agents at 2 per second into a room with a 1.2 m bottleneck, 5 seeds: the mean
    evacuation time and flow within 5 % of JuPedSim's, fed the same places at the same times."""
    theirs = [summary(jupedsim_arrivals(1.2, 2.0, 40, seed, 300.0)) for seed in range(1, 6)]
    ours = [summary(satgpu_arrivals(1.2, 2.0, 40, seed, 300.0)) for seed in range(1, 6)]
    assert all(r["remaining"] == 0 for r in theirs + ours)
    for key in ("flow", "evacuation_time"):
        j = np.mean([r[key] for r in theirs])
        g = np.mean([r[key] for r in ours])
        assert g == pytest.approx(j, rel=0.05), f"{key}: satgpu {g}, JuPedSim {j}"
