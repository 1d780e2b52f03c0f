"""History: rewind to any cycle, branch from it, diff two cycles, metrics over time."""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
import pytest

from capacity.simulation.sim import SimOptions, Simulator
from capacity.simulation.workload import WorkloadSpec, synthetic_cluster
from tests.builders import cluster, node, queue
from tests.unit.test_sim import RECLAIM, job, run_to, tidal

SPEC = WorkloadSpec(seed=11, jobs=40, arrival_rate=1 / 20, queues={"a": 1, "b": 1, "c": 2},
                    service_types={"training": 0.75, "inference": 0.25},
                    policies={"RestartJob": 1, "AbortJob": 1, "": 1}, duration_median=300,
                    priority_classes={"high": (1000, 1), "low": (10, 2)})


def busy() -> Simulator:
    """A small overloaded cluster: arrivals, reclaim, restarts, aborts and replacements all happen."""
    return Simulator(synthetic_cluster(SPEC, nodes=2), SimOptions(period=10))


def snapshot(sim: Simulator) -> Any:
    """Everything the next cycle depends on, in order."""
    c = sim.cluster
    pods = [(k, p.uid, p.phase, p.node_name, p.deleting, p.nominated_node, p.spec.creation) for k, p in c.pods.items()]
    pgs = [(k, g.phase) for k, g in c.podgroups.items()]
    return pods, pgs, dict(sim.jobs), sim.arrivals_left, sim.time


def decisions(sim: Simulator) -> list[Any]:
    return [(r.cycle, r.skipped, r.result.binds, r.result.evicted, r.controller, r.arrived, r.completed)
            for r in sim.history]


@pytest.fixture(scope="module")
def ran() -> Simulator:
    sim = busy()
    sim.run(300)
    assert sim.summary()["evictions"] > 0 and sim.summary()["restarts"] > 0, "the workload must exercise eviction"
    return sim


def test_rewind_then_branch_is_the_same_as_running_from_scratch(ran: Simulator) -> None:
    for cycle in (0, 7, 123, 300):
        ran.rewind(cycle)
        branch = ran.branch()
        fresh = busy()
        fresh.run(cycle)
        assert snapshot(branch) == snapshot(fresh), cycle
        assert decisions(branch) == decisions(fresh)
        branch.run(30)
        fresh.run(30)
        assert snapshot(branch) == snapshot(fresh), cycle
        assert decisions(branch) == decisions(fresh)
        assert branch.metrics().equals(fresh.metrics())
    ran.rewind(300)


def test_rewinding_forward_again_restores_the_later_state(ran: Simulator) -> None:
    ran.rewind(300)
    later = snapshot(ran)
    ran.rewind(40)
    assert snapshot(ran) != later
    ran.rewind(300)
    assert snapshot(ran) == later


def test_stepping_after_a_rewind_discards_the_old_future() -> None:
    sim = Simulator(tidal("RestartJob"))
    sim.run(50)
    sim.rewind(11)
    assert sim.history[-1].cycle > 11
    rec = sim.step()
    assert rec is not None and rec.cycle == 12
    assert sim.history[-1] is rec and all(r.cycle <= 12 for r in sim.history)
    with pytest.raises(ValueError, match="not in the history"):
        sim.rewind(50)


def test_a_branch_is_independent_of_its_origin() -> None:
    sim = Simulator(tidal("AbortJob"))
    sim.run(5)
    other = sim.branch()
    other.run(20)
    assert sim.cycle == 5 and "ns1/t" in sim.cluster.podgroups
    assert other.jobs["ns1/t"].state == "Aborted" and "ns1/t" not in other.cluster.podgroups
    sim.run(20)
    assert snapshot(sim) == snapshot(other)


def test_a_branch_keeps_the_units_the_input_was_written_in() -> None:
    """Answers read on a branch show 2G as 2G, as on its origin (the branch used to drop the units)."""
    sim = Simulator(tidal("AbortJob"))
    sim.cluster.unit_styles["memory"] = "decimal"
    assert sim.branch().cluster.unit_styles == sim.cluster.unit_styles


def test_diff_says_what_moved_and_which_queue_share_changed() -> None:
    sim = Simulator(tidal("RestartJob"))
    sim.run(50)
    d = sim.diff(9, 13)
    assert d.added == ["ns1/i-worker-0"] and d.removed == []
    assert d.pods["ns1/i-worker-0"] == ("absent", "Running on n1")
    assert d.moved["ns1/t-worker-0"] == ("Running on n1", "Pending")  # restarted under the same name
    assert d.podgroups["ns1/t"] == ("Running", "Inqueue")
    assert d.queues["train"]["share"][1] == 0.0 and d.queues["train"]["pending"] == (0, 4)
    assert d.queues["infer"]["running"] == (0, 1)
    back = sim.diff(13, 9)
    assert back.pods["ns1/t-worker-0"] == ("Pending", "Running on n1")
    assert any("queue train share" in line for line in d.lines())
    assert sim.diff(20, 30).pods == {}  # nothing happened between them


def test_history_keeps_changes_not_copies() -> None:
    """Fifty pods run quietly while one small job comes and goes: only that job is stored."""
    objs = [*job("big", "q", 50, cpu="100m", owner=None, running_on="n1"),
            *job("small", "q", 1, cpu="100m", owner=None, arrival=25, duration=10)]
    sim = Simulator(cluster(RECLAIM, node("n1", cpu="16"), queue("q", deserved={"cpu": "16"}), *objs),
                    SimOptions(period=10))
    sim.run(10)
    stored = {key for rec in sim.history for (_table, key) in rec.changes}
    assert stored and all("small" in key for key in stored)


def test_metrics_per_queue_and_per_cycle_export_as_csv(ran: Simulator) -> None:
    queues = ran.metrics()
    assert {"cycle", "time", "queue", "allocated_cpu", "deserved_cpu", "allocated_nvidia.com/gpu", "share",
            "pending", "running"} <= set(queues.columns)
    assert set(queues["queue"]) == {"a", "b", "c"}
    assert len(queues) == 3 * ran.executed  # dense: every queue at every executed cycle
    changes = ran.metrics(dense=False)
    assert len(changes) < len(queues)
    cycles = ran.metrics("cycle")
    assert list(cycles["cycle"]) == [r.cycle for r in ran.history]
    assert cycles["evictions"].sum() == ran.summary()["evictions"]
    assert cycles["util_cpu"].between(0, 1).all() and cycles["util_cpu"].max() > 0.5
    back = pd.read_csv(io.StringIO(queues.to_csv(index=False)))
    assert back.shape == queues.shape
    only_a = ran.metrics(queues=["a"])
    assert set(only_a["queue"]) == {"a"}


def test_metrics_follow_the_current_cycle_after_a_rewind() -> None:
    sim = Simulator(tidal("RestartJob"))
    sim.run(50)
    sim.rewind(12)
    assert sim.metrics("cycle")["cycle"].max() == 12
    assert sim.summary()["pending"] == 4
    run_to(sim, 50)
    assert sim.metrics("cycle")["cycle"].max() == 44  # 43 starts the gang, 44 sees it Running


def test_a_copied_pod_or_podgroup_has_every_field_and_is_its_own_object() -> None:
    """History keeps copies of what a cycle touched (PodObj.__copy__, generated field by field): a copy
    equals its original and a later write-back to the original leaves it as it was."""
    import copy
    from dataclasses import fields
    sim = busy()
    sim.run(3)
    for obj in [*sim.cluster.pods.values(), *sim.cluster.podgroups.values()]:
        dup = copy.copy(obj)
        assert dup is not obj and dup == obj
        assert all(getattr(dup, f.name) is getattr(obj, f.name) for f in fields(obj))
        before = obj.phase
        obj.phase = "Changed"
        assert dup.phase == before
        obj.phase = before
