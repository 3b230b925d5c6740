"""Journeys from Python (issue 66): stages (Waypoint, Exit) and journeys (Journey with Fixed,
RoundRobin and LeastTargeted transitions) as JuPedSim's, on the GPU and the f64 reference; an
agent switched between steps; refusals by name; and two studies beside JuPedSim 1.4.2 itself,
the same scenes built with its own API: evacuation time and flow within 5 %, the share of each
exit within 5 percentage points."""

import os
import sys

import numpy as np
import pytest

import satgpu
from satgpu.crowd import Exit, Fixed, Journey, LeastTargeted, RoundRobin, Waypoint

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from jupedsim_compare import jupedsim_routed, pillar, satgpu_routed, shares, summary, two_exits  # noqa: E402

CORRIDOR = "POLYGON ((0 0, 20 0, 20 4, 0 4, 0 0))"
STAGES = [Waypoint((10.0, 2.0), 1.5), Exit([(0, 0), (0.5, 0), (0.5, 4), (0, 4)]), Exit([(19.5, 0), (20, 0), (20, 4), (19.5, 4)])]
AROUND = [[9.5 + 0.5 * (k % 3), 1.5 + 0.5 * (k // 3)] for k in range(9)]


@pytest.mark.parametrize("backend", ["gpu", "cpu"])
def test_transitions_deal_in_index_order(gpu, backend):
    journeys = [Journey([0, 1, 2], {0: RoundRobin([(1, 2), (2, 1)])}), Journey([0, 1, 2], {0: LeastTargeted([1, 2])}),
                Journey([1])]
    crowd = satgpu.Crowd(CORRIDOR, positions=AROUND, stages=STAGES, journeys=journeys, gpu=gpu, backend=backend)
    crowd.iterate(1)
    assert crowd.stages().tolist() == [1, 1, 2] * 3
    # Least targeted, with three agents of journey 2 heading for the left exit already.
    xy = [[3.0, 1.0 + k] for k in range(3)] + AROUND
    crowd = satgpu.Crowd(CORRIDOR, positions=xy, stages=STAGES, journeys=journeys, journey=[2] * 3 + [1] * 9,
                         stage=[1] * 3 + [0] * 9, gpu=gpu, backend=backend)
    crowd.iterate(1)
    assert crowd.stages().tolist() == [1, 1, 1, 2, 2, 2, 1, 2, 1, 2, 1, 2]
    # Then everyone leaves by the exit it was dealt.
    out = crowd.run(120.0)
    assert out.remaining == 0
    left = crowd.positions()[:, 0]
    assert ((crowd.stages() == 1) == (left <= 0.5)).all() and ((crowd.stages() == 2) == (left >= 19.5)).all()


def test_switching_and_refusals(gpu):
    journeys = [Journey.through([0, 2]), Journey([1])]
    xy = [[8.0, 1.0], [8.0, 2.0]]
    crowd = satgpu.Crowd(CORRIDOR, positions=xy, stages=STAGES, journeys=journeys, journey=1, stage=1, gpu=gpu)
    crowd.iterate(10)
    crowd.switch_journey(1, 0, 2)
    with pytest.raises(satgpu.InvalidCrowdError, match="switching agent 0 to journey 4 is not one of the 2 journeys"):
        crowd.switch_journey(0, 4, 1)
    with pytest.raises(satgpu.InvalidCrowdError, match="stage 0 not in journey 1"):
        crowd.switch_journey(0, 1, 0)
    assert crowd.run(60.0).remaining == 0
    assert crowd.stages().tolist() == [1, 2] and crowd.positions()[1, 0] >= 19.5
    with pytest.raises(satgpu.InvalidCrowdError, match="it has left"):
        crowd.switch_journey(1, 1, 1)
    bad = [
        (dict(stages=[Waypoint((30.0, 2.0), 1.0)], journeys=[Journey([0])]), satgpu.InvalidCrowdError,
         r"stage 0 \(a waypoint at \(30, 2\)\) is not inside the walkable area"),
        (dict(stages=STAGES, journeys=[Journey([0, 1], {0: Fixed(2)})]), satgpu.InvalidCrowdError,
         "leads to stage 2, which is not in the journey"),
        (dict(stages=STAGES, journeys=[Journey([0, 1, 2], {0: RoundRobin([(1, 1), (2, 0)])})]),
         satgpu.InvalidCrowdError, "weighs stage 2 0"),
        (dict(stages=STAGES, journeys=[Journey([0, 9])]), satgpu.InvalidCrowdError, "names stage 9"),
        (dict(stages=STAGES, journeys=[Journey([0])], journey=3), satgpu.InvalidCrowdError,
         "agent 0's journey 3 is not one of the 1 journeys"),
        (dict(stages=STAGES, journeys=[Journey([0], {1: Fixed(0)})]), ValueError, "not among its stages"),
        (dict(stages=STAGES), ValueError, "either exit"),
        (dict(stages=["exit"], journeys=[Journey([0])]), ValueError, "stage 0 must be"),
        (dict(stages=STAGES, journeys=[Journey([0])], stage=-1), ValueError, "stage must be a non-negative integer"),
    ]
    for kwargs, error, says in bad:
        with pytest.raises(error, match=says):
            satgpu.Crowd(CORRIDOR, positions=xy, gpu=gpu, **kwargs)


@pytest.mark.one_backend
@pytest.mark.parametrize("make,n,exits", [(two_exits, 60, [1, 2]), (pillar, 40, [2])])
def test_studies_with_journeys_as_in_jupedsim(gpu, make, n, exits):
    """Two exits dealt by a round robin (2 to 1) from a waypoint, and waypoints round a pillar;
    5 seeds each: the mean evacuation time and flow within 5 % of JuPedSim's, the share of each
    exit within 5 percentage points."""
    theirs, ours = [], []
    for seed in range(1, 6):
        scene = make(n, seed)
        theirs.append(jupedsim_routed(scene, 300.0))
        ours.append(satgpu_routed(scene, 300.0))
    for key in ("flow", "evacuation_time"):
        j = np.mean([summary(r)[key] for r in theirs])
        g = np.mean([summary(r)[key] for r in ours])
        assert g == pytest.approx(j, rel=0.05), f"{make.__name__} {key}: satgpu {g}, JuPedSim {j}"
    j = np.mean([shares(r, exits) for r in theirs], axis=0)
    g = np.mean([shares(r, exits) for r in ours], axis=0)
    assert np.abs(g - j).max() <= 0.05, (g, j)
