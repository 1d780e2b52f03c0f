"""With a trace, allocate's node choice from NodeFit files the plain loops' records, and capacity files one
prepared reason per fitting queue path, each naming its own queue."""

from __future__ import annotations

from typing import Any

import pytest

from capacity.accel import allocate_fit, nodefit
from capacity.core.trace import Trace
from capacity.framework.extension_points import ReferencePlacement
from capacity.io.k8s import load_objects
from capacity.scheduler import simulate
from tests.builders import conf, node, pod, podgroup, queue
from tests.unit.test_nodefit import random_cluster
from tests.unit.test_victim_bound import BOUND_CONFS, with_guarantees


def _records(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    trace = Trace(enabled=True)
    simulate(load_objects(objs), cycles=3, trace=trace)
    return [r.as_dict() for r in trace.records]


@pytest.mark.parametrize("conf_name", sorted(BOUND_CONFS))
@pytest.mark.parametrize("seed", range(2))
def test_the_accelerated_placement_files_the_plain_loops_records(conf_name: str, seed: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """allocate's node choice from NodeFit (AcceleratedPlacement) and the plain loops (ReferencePlacement), the
    rest of the engine accelerated in both: the same trace records, noFit and scoreTie included."""
    objs = with_guarantees(random_cluster(seed + 90, BOUND_CONFS[conf_name], nodes=16, jobs=80), seed)
    fast = _records(objs)
    assert any(r["kind"] == "nodeChosen" for r in fast)
    monkeypatch.setattr(allocate_fit, "AcceleratedPlacement", ReferencePlacement)  # (imported at session open)
    assert fast == _records(objs)


def test_each_fitting_queue_path_has_its_own_reason() -> None:
    """Two leaf queues under two parents, a job in each: every capacity reason for enqueue and allocate
    names the path of the job's own queue (a reason is prepared once per path, then given again)."""
    objs: list[dict[str, Any]] = [
        conf("enqueue, allocate", [{"name": "gang"}, {"name": "capacity", "enableHierarchy": True}]),
        node("n1", cpu="16", memory="64Gi"),
        queue("root", deserved={"cpu": "16", "memory": "64Gi"}),
        queue("pa", parent="root", deserved={"cpu": "8", "memory": "32Gi"}),
        queue("pb", parent="root", deserved={"cpu": "8", "memory": "32Gi"}),
        queue("a", parent="pa", deserved={"cpu": "8", "memory": "32Gi"}),
        queue("b", parent="pb", deserved={"cpu": "8", "memory": "32Gi"}),
    ]
    for name, leaf in (("ja", "a"), ("jb", "b"), ("ja2", "a"), ("jb2", "b")):
        objs.append(podgroup(name, leaf, min_resources={"cpu": "1", "memory": "1Gi"}, phase="Pending"))
        objs.append(pod(f"{name}-0", name, {"cpu": "1", "memory": "1Gi"}))
    records = _records(objs)
    seen = {"allocatable": 0, "jobEnqueueable": 0}
    for r in records:
        if r["kind"] not in seen or r.get("plugin") != "capacity":
            continue
        leaf = r["subject"].split("/")[-1].split("-")[0][1:2]  # ja, ja2, ja-0 ... -> a
        reason = r["reasons"][0]
        levels = reason["values"]["queues" if r["kind"] == "allocatable" else "levels"]
        assert levels[0].endswith(leaf), r  # the leaf first, then up to root
        assert f"p{leaf}" in reason["text"], r
        seen[r["kind"]] += 1
    assert seen == {"allocatable": 4, "jobEnqueueable": 4}


@pytest.mark.parametrize("seed", range(3))
def test_score_ties_are_those_of_the_reference_path(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scoreTie record (the first best node and each node tied with it) and every nodeChosen record
    read off a Placement is what the per-node reference path, without NodeFit, records."""
    objs = random_cluster(seed + 40, BOUND_CONFS["ancestor"], nodes=24, jobs=60)

    def chosen() -> list[dict[str, Any]]:
        return [r for r in _records(objs) if r["kind"] in ("scoreTie", "nodeChosen")]

    fast = chosen()
    assert any(r["kind"] == "scoreTie" and len(r["detail"]["tied"]) > 1 for r in fast)
    monkeypatch.setattr(nodefit, "ENABLED", False)
    assert fast == chosen()
