"""Without a trace, the actions may test the cheaper of two effect-free answers first (reclaim, preempt,
allocate skip JobValid for jobs that cannot matter): every decision, cycle by cycle, is as with a trace."""

from __future__ import annotations

from typing import Any

import pytest

from capacity.core.trace import Trace
from capacity.io.k8s import load_objects
from capacity.scheduler import open_session, simulate
from tests.builders import node, queue
from tests.unit.test_nodefit import random_cluster
from tests.unit.test_sim import RECLAIM, job
from tests.unit.test_victim_bound import BOUND_CONFS, with_guarantees


def _cycles(objs: list[dict[str, Any]], traced: bool) -> list[Any]:
    run = simulate(load_objects(objs), cycles=3, trace=Trace(enabled=traced))
    return [(c.binds, c.evicted, c.pipelined, c.podgroup_phases, c.queues, c.nominated) for c in run.cycles]


@pytest.mark.parametrize("conf", sorted(BOUND_CONFS))
@pytest.mark.parametrize("seed", range(2))
def test_decisions_do_not_depend_on_tracing(conf: str, seed: int) -> None:
    objs = with_guarantees(random_cluster(seed + 70, BOUND_CONFS[conf], nodes=16, jobs=80), seed)
    traced = _cycles(objs, True)
    assert any(c[0] for c in traced)
    assert traced == _cycles(objs, False)


# ---- reclaim and preempt act only for a waiting task ------------------------------------------------
def _tidal(gate: bool = False, infer_phase: str = "Inqueue") -> list[dict[str, Any]]:
    """Seed 001 in miniature (test_sim.tidal): training holds the whole node; inference's one pod waits."""
    infer = job("i", "infer", 1)
    infer[0]["status"]["phase"] = infer_phase
    if gate:
        infer[1]["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    return [RECLAIM, node("n1", cpu="4", memory="16Gi"),
            queue("train", deserved={"cpu": "2", "memory": "8Gi"}, capability={"cpu": "4", "memory": "16Gi"}),
            queue("infer", deserved={"cpu": "2", "memory": "8Gi"}),
            *job("t", "train", 4, running_on="n1"), *infer]


def test_a_single_waiting_task_still_reclaims_without_a_trace() -> None:
    """The untraced shortcut (Session.has_waiting_task) must see inference's one Pending pod: it takes a
    cpu back from training, evicting one of its pods, exactly as with a trace."""
    cycles = _cycles(_tidal(), False)
    assert len(cycles[0][1]) == 1 and cycles[0][1][0].startswith("ns1/t-worker-")
    assert cycles == _cycles(_tidal(), True)


@pytest.mark.parametrize(("gate", "phase", "waiting"), [(False, "Inqueue", True), (True, "Inqueue", False),
                                                        (False, "Pending", False)])
def test_which_tasks_count_as_waiting(gate: bool, phase: str, waiting: bool) -> None:
    """A gated pod, or one whose PodGroup is still Pending, is in no reclaim or preempt task queue."""
    ssn = open_session(load_objects(_tidal(gate, phase)), Trace(enabled=False))
    assert ssn.has_waiting_task() is waiting
    assert _cycles(_tidal(gate, phase), False) == _cycles(_tidal(gate, phase), True)


# ---- allocate's scoreTie record ------------------------------------------------------------------------
@pytest.mark.parametrize(("sizes", "tied"), [(("8", "8", "8"), ["n1", "n2", "n3"]), (("8", "16", "16"), ["n2", "n3"]),
                                             (("16", "8", "8"), None)])
def test_a_score_tie_is_recorded_with_every_tied_node(sizes: tuple[str, ...], tied: list[str] | None) -> None:
    """Equal best scores: the first node in NodeList order wins and the trace names all of them; a unique best
    records no tie."""
    from capacity.scheduler import run_cycle
    from tests.builders import cluster, pod, podgroup
    objs = [RECLAIM, *[node(f"n{i + 1}", cpu=c, memory="16Gi") for i, c in enumerate(sizes)],
            queue("q", deserved={"cpu": "8"}), podgroup("j", "q"), pod("p", "j", {"cpu": "1", "memory": "1Gi"})]
    result = run_cycle(cluster(*objs), Trace(enabled=True))
    ties = [r.as_dict() for r in result.records if r.kind == "scoreTie"]
    if tied is None:
        assert ties == [] and result.binds == {"ns1/p": "n1"}
    else:
        assert result.binds == {"ns1/p": tied[0]}
        assert len(ties) == 1 and list(ties[0]["detail"]["tied"]) == tied


# ---- allocate's untraced node choice ---------------------------------------------------------------------
@pytest.mark.parametrize("traced", [True, False])
def test_a_task_that_fits_only_future_idle_is_pipelined(traced: bool) -> None:
    """The node's only room is held by a terminating pod: the task fits FutureIdle, not Idle, so it is
    pipelined onto the node (gradient G2), not bound, with or without a trace (the untraced choice reads
    the task's placement directly: capacity.accel.allocate_fit)."""
    from capacity.scheduler import run_cycle
    from tests.builders import cluster, conf, pod, podgroup
    objs = [conf("allocate", [{"name": "gang"}], [{"name": "predicates"}, {"name": "proportion"},
                                                  {"name": "nodeorder"}]),
            node("n1", cpu="4", memory="8Gi"), node("n2", cpu="1", memory="8Gi"), queue("q"),
            podgroup("old", "q", phase="Running"),
            pod("old", "old", {"cpu": "4", "memory": "1Gi"}, node_name="n1", deletionTimestamp="2024-01-01T00:00:00Z"),
            podgroup("new", "q"), pod("new", "new", {"cpu": "2", "memory": "1Gi"})]
    result = run_cycle(cluster(*objs), Trace(enabled=traced))
    assert result.binds == {}
    assert result.pipelined == {"ns1/new": ["n1"]}
