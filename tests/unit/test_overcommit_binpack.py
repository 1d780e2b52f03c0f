"""overcommit and binpack (shared/spec/actions-framework.md §8.3, §9.5, §9.8), pinned by the tables of
Volcano's own unit tests: overcommit_test.go TestOvercommitPlugin / TestParseFactor and
binpack_test.go TestArguments / TestNode."""

from __future__ import annotations

import pytest

from capacity.plugins.binpack import calculate_weights
from capacity.plugins.overcommit import parse_factors
from capacity.scheduler import open_session
from tests.builders import cluster, conf, node, pod, podgroup, queue

GPU = "nvidia.com/gpu"


def _node(name: str, cpu: str, memory: str, extra: dict[str, str] | None = None) -> dict:
    d = node(name, cpu=cpu, memory=memory)
    d["status"]["allocatable"].update(extra or {})
    return d


# ---- overcommit ------------------------------------------------------------------------------------

def _overcommit(args: dict, min_resources: dict | None):
    pg = podgroup("pg1", "c1", min_member=2, ns="test-namespace")
    if min_resources:
        pg["spec"]["minResources"] = min_resources
    return cluster(conf("enqueue", [{"name": "overcommit", "arguments": args}]),
                   _node("n1", "2", "4Gi", {"ephemeral-storage": "32Gi", GPU: "8"}), _node("n2", "4", "16Gi"),
                   queue("c1"), pg)


@pytest.mark.parametrize(("args", "min_resources", "expected"), [
    ({"overcommit-factor": 1.2}, {"cpu": "2000m", "memory": "2G"}, True),
    ({"overcommit-factor": 0.8}, {"cpu": "2000m", "memory": "2G"}, True),  # < 1 falls back to 1.2
    ({"overcommit-factor": 1.2}, {"cpu": "20000m", "memory": "20G"}, False),
    ({"overcommit-factor": 1.2}, None, True),
    ({"overcommit-factor.cpu": 1.3, "overcommit-factor.memory": 1.4,
      "overcommit-factor.ephemeral-storage": 1.4, "overcommit-factor.nvidia.com/gpu": 1.3},
     {"cpu": "2000m", "memory": "2G"}, True),
    ({}, None, True),
])
def test_overcommit_plugin_table(args: dict, min_resources: dict | None, expected: bool) -> None:
    ssn = open_session(_overcommit(args, min_resources))
    job = ssn.jobs["test-namespace/pg1"]
    ssn.job_enqueued(job)  # as the Go test does, before asking
    assert ssn.job_enqueueable(job) is expected


def test_overcommit_idle_and_inqueue_numbers() -> None:
    ssn = open_session(_overcommit({"overcommit-factor.cpu": 1.5}, {"cpu": "2", "memory": "2G"}))
    p = ssn.plugins["overcommit"]
    assert p.idle.cpu == 9000 and p.idle.memory == 1.2 * 20 * 2**30  # cpu 6 x 1.5, memory 20Gi x 1.2
    assert p.inqueue.cpu == 2000  # the Inqueue PodGroup's full minResources


def test_overcommit_counts_used_resources() -> None:
    c = cluster(conf("enqueue", [{"name": "overcommit"}]), _node("n1", "10", "10Gi"), queue("q"),
                podgroup("run", "q", phase="Running"), pod("r1", "run", {"cpu": "9"}, node_name="n1"),
                podgroup("new", "q", phase="Pending", min_resources={"cpu": "3"}),
                pod("n1p", "new", {"cpu": "3"}))
    ssn = open_session(c)
    assert ssn.plugins["overcommit"].idle.cpu == 3000  # 12 - 9
    assert ssn.job_enqueueable(ssn.jobs["ns1/new"]) is True
    ssn.job_enqueued(ssn.jobs["ns1/new"])
    assert ssn.job_enqueueable(ssn.jobs["ns1/new"]) is False  # 3 + 3 > 3


def test_parse_factor() -> None:
    assert parse_factors({"overcommit-factor.cpu": 2, "overcommit-factor.nvidia.com/gpu": 1.3}) == {
        "overcommit-factor": 1.2, "cpu": 2.0, "nvidia.com/gpu": 1.3}
    assert parse_factors({"overcommit-factor": "2"}) == {"overcommit-factor": 1.2}  # not a YAML number


# ---- binpack ---------------------------------------------------------------------------------------

def test_binpack_arguments() -> None:
    weight, res = calculate_weights({"binpack.weight": 10, "binpack.cpu": 5, "binpack.memory": 2,
                                     "binpack.resources": "nvidia.com/gpu, example.com/foo",
                                     "binpack.resources.nvidia.com/gpu": 7,
                                     "binpack.resources.example.com/foo": -3})
    assert weight == 10 and res == {GPU: 7, "example.com/foo": 1, "cpu": 5, "memory": 2}


def _binpack(args: dict):
    return cluster(
        conf("allocate", [{"name": "binpack", "arguments": args}]),
        _node("n1", "2", "4Gi"), _node("n2", "4", "16Gi", {GPU: "4"}),
        _node("n3", "2", "4Gi", {"example.com/foo": "16"}),
        queue("c1"), podgroup("pg1", "c1", ns="c1"),
        pod("p1", "pg1", {"cpu": "1", "memory": "1Gi"}, node_name="n1", phase="Pending", ns="c1"),
        pod("p2", "pg1", {"cpu": "1.5", "memory": "0Gi"}, node_name="n3", phase="Pending", ns="c1"),
        pod("p3", "pg1", {"cpu": "2", "memory": "10Gi", GPU: "2"}, ns="c1"),
        pod("p4", "pg1", {"cpu": "3", "memory": "4Gi", "example.com/foo": "3"}, ns="c1"))


@pytest.mark.parametrize(("args", "expected"), [
    ({"binpack.weight": 10, "binpack.cpu": 2, "binpack.memory": 3,
      "binpack.resources": "nvidia.com/gpu, example.com/foo", "binpack.resources.nvidia.com/gpu": 7,
      "binpack.resources.example.com/foo": 8},
     {"p1": {"n1": 700, "n2": 137.5, "n3": 150}, "p2": {"n1": 0, "n2": 375, "n3": 0},
      "p3": {"n1": 0, "n2": 531.25, "n3": 0}, "p4": {"n1": 0, "n2": 173.076923076, "n3": 346.153846153}}),
    ({"binpack.weight": 1, "binpack.cpu": 1, "binpack.memory": 1, "binpack.resources": "nvidia.com/gpu",
      "binpack.resources.nvidia.com/gpu": 23},
     {"p1": {"n1": 75, "n2": 15.625, "n3": 12.5}, "p2": {"n1": 0, "n2": 37.5, "n3": 0},
      "p3": {"n1": 0, "n2": 50.5, "n3": 0}, "p4": {"n1": 0, "n2": 50, "n3": 50}}),
])
def test_binpack_node_scores(args: dict, expected: dict) -> None:
    ssn = open_session(_binpack(args))
    p = ssn.plugins["binpack"]
    got = {t.name: {n.name: p.score(t, n) for n in ssn.node_list} for t in ssn.all_tasks.values()}
    for task, row in expected.items():
        for node_name, score in row.items():
            assert got[task][node_name] == pytest.approx(score, abs=1e-8), (task, node_name)
    # p1 on n3: cpu 1 + 1.5 > 2 scores 0 for cpu only; memory still counts (not a whole-node 0)
    assert got["p1"]["n3"] > 0


def test_binpack_weight_zero_registers_nothing() -> None:
    ssn = open_session(_binpack({"binpack.weight": 0}))
    assert "binpack" not in ssn.fns.get("nodeOrder", {})
