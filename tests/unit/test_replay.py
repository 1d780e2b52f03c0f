"""Replaying the openb and Helios traces: column mappings and the `replay` command, on tiny CSVs of the same shape."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from capacity.cli import main
from capacity.core.errors import InputError
from capacity.simulation.replay import helios_cluster, openb_cluster
from capacity.simulation.sim import SimOptions, Simulator, parse_life

DATA = Path(__file__).resolve().parents[1] / "data"
OPENB = str(DATA / "openb")
HELIOS = str(DATA / "helios")
GPU = "nvidia.com/gpu"


def openb() -> Simulator:
    return Simulator(openb_cluster(OPENB, departments=2, leaves=4), SimOptions(period=10))


def test_openb_columns_map_to_arrivals_durations_and_requests() -> None:
    sim = openb()
    # creation_time 0 is there from the start; the rest arrive later.
    assert list(sim.cluster.pods) == ["openb/openb-pod-0000"] and sim.arrivals_left == 7
    arrivals = {a.podgroup.name: a for a in sim.arrivals}
    shared = arrivals["openb-pod-0001"]
    assert shared.time == 100
    pod = shared.pods[0]
    assert pod.resreq.cpu == 6000 and pod.resreq.memory == 12288 * 2**20
    assert pod.resreq.scalars is not None and pod.resreq.scalars[GPU] == 460  # gpu_milli 460 of one GPU
    assert pod.spec.annotations["capacity-lab/duration"] == "580"  # deletion 700 - scheduled 120
    never = arrivals["openb-pod-0004"].pods[0]  # never scheduled: deletion - creation
    assert never.spec.annotations["capacity-lab/duration"] == "600"
    assert arrivals["openb-pod-0005"].pods[0].resreq.scalars[GPU] == 8000
    assert arrivals["openb-pod-0007"].podgroup.priority_class_name == "ls-high"
    assert arrivals["openb-pod-0002"].podgroup.priority_class_name == "be-low"
    assert arrivals["openb-pod-0002"].podgroup.queue.startswith("dept-")


def test_openb_replay_runs_every_pod_at_its_time() -> None:
    sim = openb()
    sim.run_until(2100)
    binds = {k: r.cycle for r in sim.history for k in r.result.binds}
    assert len(binds) == 7
    assert binds["openb/openb-pod-0001"] == 10  # created at t=100, the cycle at t=100 binds it
    done = {k: r.cycle for r in sim.history for k in r.completed}
    assert done["openb/openb-pod-0001"] == 68  # bound at t=100, 580 s: done before the cycle at t=680
    assert "openb/openb-pod-0007" in sim.cluster.pods  # alive at the end of the trace
    # 8 whole GPUs: only the V100 node has them, and pod 0000 holds one until t=5000.
    assert sim.cluster.pods["openb/openb-pod-0005"].phase == "Pending"
    assert sim.skipped > sim.executed
    sim.run_until(5100)
    assert sim.cluster.pods["openb/openb-pod-0005"].node_name == "openb-node-0002"


def test_helios_columns_map_to_gang_jobs_in_user_queues() -> None:
    c = helios_cluster(HELIOS, nodes=2)
    assert len(c.nodes) == 2 and c.nodes[0].allocatable.scalars == {GPU: 8000, "pods": 110}
    assert sorted(c.queues) == ["user-001", "user-002", "user-003"]
    gpu = sum(q.deserved.scalars[GPU] for q in c.queues.values() if q.deserved and q.deserved.scalars)
    assert 15_990 <= gpu <= 16_000  # the cluster's 16 GPUs split by GPU-seconds used, rounded down
    cpu = sum(q.deserved.cpu for q in c.queues.values() if q.deserved)
    assert 127_990 <= cpu <= 128_000  # and the 128 cpus by CPU-seconds
    assert c.queues["user-003"].deserved.memory == pytest.approx(c.queues["user-003"].deserved.cpu / 1000 * 4 * 2**30,
                                                                 rel=1e-3)  # 4 GiB per cpu
    sim = Simulator(c)
    arrivals = {a.podgroup.name: a for a in sim.arrivals}
    gang = arrivals["helios-00002"]
    assert gang.time == 94 + 151 and gang.podgroup.queue == "user-002" and gang.podgroup.namespace == "user-002"
    assert gang.podgroup.min_member == 2 and len(gang.pods) == 2
    assert gang.pods[0].resreq.cpu == 16_000 and gang.pods[0].resreq.scalars[GPU] == 8000
    assert gang.pods[0].resreq.memory == 64 * 2**30  # 16 cpu x 4 GiB
    assert gang.pods[0].spec.annotations["capacity-lab/duration"] == "300"
    assert gang.pods[0].spec.owner_kind == "Job"
    assert parse_life(gang.podgroup).action_for("PodEvicted") == "RestartJob"
    cpu_only = arrivals["helios-00003"].pods[0]
    assert cpu_only.resreq.scalars == {"pods": 1}


def test_helios_replay_finishes_every_job_through_reclaim_and_restarts() -> None:
    sim = Simulator(helios_cluster(HELIOS, nodes=2), SimOptions(period=10))
    sim.run_to_end()
    summary = sim.summary()
    assert summary["arrivalsLeft"] == 0 and summary["pending"] == summary["running"] == 0
    assert sim.cluster.pods == {}
    # user-001's 8-GPU job borrowed above its ~5 GPUs deserved: reclaimed for user-002's 2-node gang,
    # restarted each time (RestartJob), and failed at maxRetry 3; every other job completed.
    assert summary["jobStates"] == {"Completed": 7, "Failed": 1}
    assert sim.jobs["user-001/helios-00001"].retries == 3 and summary["evictions"] >= 3


def test_a_trace_with_a_bad_value_names_the_row_and_column(tmp_path: Path) -> None:
    rows = (DATA / "helios" / "helios_data_training.csv").read_text().splitlines()
    rows[3] = rows[3].replace(",2,151,", ",3,151,")  # 16 GPUs over 3 nodes
    (tmp_path / "helios_data_training.csv").write_text("\n".join(rows))
    with pytest.raises(InputError, match="u_id 2: node_num"):
        helios_cluster(str(tmp_path))
    with pytest.raises(InputError, match="cannot be read"):
        helios_cluster(str(tmp_path / "missing"))


def test_the_replay_command_reports_skipped_cycles_and_writes_csv(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    queues, cycles = tmp_path / "queues.csv", tmp_path / "cycles.csv"
    code = main(["replay", "helios", HELIOS, "--nodes", "2", "--period", "10", "--csv", str(queues),
                 "--cycles-csv", str(cycles), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert "skipped: nothing could change in them" in out and "Completed 7, Failed 1" in out
    q = pd.read_csv(queues)
    assert {"cycle", "queue", "allocated_nvidia.com/gpu", "deserved_nvidia.com/gpu", "share", "pending"} <= set(
        q.columns)
    c = pd.read_csv(cycles)
    assert c["binds"].sum() > 9 and c["evictions"].sum() >= 3  # 9 pods, some bound again after restarts
    assert {"util_nvidia.com/gpu", "skipped", "controller"} <= set(c.columns)


def test_the_replay_command_json_and_progress(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "openb", OPENB, "--format", "json", "--progress", "--until", "500"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["time"] == 480 and out["period"] == 60 and out["executed"] + out["skipped"] == 8
    assert "cycles" in captured.err and "\r" in captured.err


def test_the_replay_command_without_a_folder_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "helios"]) == 2
    assert "needs the trace folder" in capsys.readouterr().err
    assert main(["replay", "openb", os.devnull + "-nothing"]) == 2


def test_the_replay_command_runs_a_synthetic_workload(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "synthetic", "--jobs", "10", "--nodes", "2", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["arrivals"] == 10 and out["binds"] > 0
