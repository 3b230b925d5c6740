"""Trajectories in JuPedSim's SQLite format: PedPy 1.5 reads satgpu's file unchanged (the same
agents, frames, frame rate and positions as `Crowd.positions()` at those frames), the file has
the tables JuPedSim 1.4.2's own writer makes, and a file that cannot be written is refused by name."""

import sqlite3

import pedpy
import pytest
import shapely

import satgpu
from satgpu.crowd import bottleneck


def run_and_watch(scene, path, every, backend, gpu, steps=400):
    """Runs `scene` with a trajectory every `every` steps, stepping `every` at a time; returns
    what `Crowd` says at each frame: {frame: {id: (x, y)}} of the agents present."""
    crowd = satgpu.Crowd(scene.geometry, scene.exit, scene.positions, backend=backend, gpu=gpu,
                         trajectory=path, every=every)
    seen = {}
    with crowd:
        while True:
            step = crowd.steps
            xy, left = crowd.positions(), crowd._crowd.exit_steps()
            # Present: walking, or left in this very step (JuPedSim removes it the step after).
            seen[step // every] = {i + 1: tuple(xy[i]) for i in range(len(xy)) if left[i] in (0, step)}
            if step >= steps or crowd.agent_count() == 0:
                break
            crowd.iterate(every)
    return seen


@pytest.mark.parametrize("backend", ["gpu", "cpu"])
def test_pedpy_reads_the_frames_crowd_saw(gpu, tmp_path, backend):
    scene = bottleneck(1.0, 30, seed=3)
    path = tmp_path / "out.sqlite"
    seen = run_and_watch(scene, path, every=5, backend=backend, gpu=gpu, steps=3000)
    assert len(seen) > 10
    traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)
    assert traj.frame_rate == pytest.approx(1 / 0.01 / 5)
    data = traj.data
    got = {}
    for frame, agent, x, y in zip(data["frame"], data["id"], data["x"], data["y"]):
        got.setdefault(int(frame), {})[int(agent)] = (x, y)
    # Every frame with an agent in it, exactly: the same ids and the same positions to the bit.
    assert got == {f: agents for f, agents in seen.items() if agents}
    assert sorted(got[0]) == list(range(1, 31))
    area = pedpy.load_walkable_area_from_jupedsim_sqlite(trajectory_file=path)
    assert area.polygon.equals(shapely.from_wkt(scene.geometry))


def test_the_tables_are_jupedsims(gpu, tmp_path):
    import jupedsim as jps
    scene = bottleneck(1.0, 4, seed=1)
    theirs = tmp_path / "jupedsim.sqlite"
    writer = jps.SqliteTrajectoryWriter(output_file=theirs, every_nth_frame=4)
    sim = jps.Simulation(model=jps.CollisionFreeSpeedModel(), geometry=shapely.from_wkt(scene.geometry), dt=0.01,
                         trajectory_writer=writer)
    exit_id = sim.add_exit_stage(shapely.box(*scene.exit))
    journey = sim.add_journey(jps.JourneyDescription([exit_id]))
    for x, y in scene.positions:
        sim.add_agent(jps.CollisionFreeSpeedModelAgentParameters(journey_id=journey, stage_id=exit_id,
                                                                  position=(float(x), float(y))))
    sim.iterate(8)
    writer.close()
    ours = tmp_path / "satgpu.sqlite"
    crowd = satgpu.Crowd(scene.geometry, scene.exit, scene.positions, gpu=gpu, trajectory=ours)
    crowd.iterate(8)
    crowd.close()

    def describe(path):
        with sqlite3.connect(path) as db:
            schema = sorted("".join(sql.split()) for (sql,) in db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))
            meta = dict(db.execute("SELECT key, value FROM metadata"))
            frames = [f for (f,) in db.execute("SELECT DISTINCT frame FROM trajectory_data ORDER BY frame")]
            ids = [i for (i,) in db.execute("SELECT id FROM trajectory_data WHERE frame = 0 ORDER BY id")]
            return schema, meta, frames, len(ids), db.execute("SELECT COUNT(*) FROM frame_data").fetchone()[0]

    (s1, m1, f1, n1, d1), (s2, m2, f2, n2, d2) = describe(theirs), describe(ours)
    assert s1 == s2
    assert m1.keys() == m2.keys() and m1["version"] == m2["version"] == "2"
    for key in ("fps", "xmin", "xmax", "ymin", "ymax"):
        assert float(m1[key]) == float(m2[key]), key
    assert f1 == f2 == [0, 1, 2] and n1 == n2 == 4 and d1 == d2 == 3


def test_a_trajectory_that_cannot_be_written_is_refused(gpu, tmp_path):
    scene = bottleneck(1.0, 4, seed=1)
    with pytest.raises(satgpu.SceneFileError, match="no_such_folder"):
        satgpu.Crowd(scene.geometry, scene.exit, scene.positions, gpu=gpu,
                     trajectory=tmp_path / "no_such_folder" / "out.sqlite")
    with pytest.raises(OSError):
        satgpu.Crowd(scene.geometry, scene.exit, scene.positions, gpu=gpu, trajectory=tmp_path)
    for every in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="every"):
            satgpu.Crowd(scene.geometry, scene.exit, scene.positions, gpu=gpu, trajectory=tmp_path / "a", every=every)
    # A file that is not SQLite is refused and left as it was.
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database " * 100)
    with pytest.raises(satgpu.SceneFileError, match="notes.sqlite"):
        satgpu.Crowd(scene.geometry, scene.exit, scene.positions, gpu=gpu, trajectory=text)
    assert text.read_text() == "not a database " * 100
