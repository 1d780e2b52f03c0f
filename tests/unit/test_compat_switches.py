"""Compatibility switches for the older Volcano the seeds describe; HEAD behaviour by default."""

from __future__ import annotations

from capacity.framework.session import SessionOptions
from capacity.scheduler import open_session, run_cycle
from tests.builders import cluster, conf, node, pod, podgroup, queue

CAP_H = {"name": "capacity", "enableHierarchy": True}
GI = 1024**3


def _seed003():
    """Seed 003: queue1 (capability 5Gi) -> queue11 (4Gi used), queue12 -> queue121 (a 2Gi task)."""
    return cluster(
        conf("allocate", [CAP_H, {"name": "predicates"}, {"name": "gang"}]),
        node("n1", cpu="8", memory="6Gi"),
        queue("root"),
        queue("queue1", "root", capability={"memory": "5Gi"}),
        queue("queue11", "queue1"), queue("queue12", "queue1"), queue("queue121", "queue12"),
        podgroup("run", "queue11", phase="Running"), pod("run-0", "run", {"memory": "4Gi"}, node_name="n1"),
        podgroup("new", "queue121"), pod("new-0", "new", {"memory": "2Gi"}),
    )


def test_seed003_head_checks_every_ancestor() -> None:
    result = run_cycle(_seed003(), write_back=False)
    assert result.binds == {}
    assert result.queues["queue1"]["allocated"]["memory"] == 4 * GI


def test_seed003_leaf_only_switch_reproduces_the_defect() -> None:
    result = run_cycle(_seed003(), options=SessionOptions(leaf_only_allocatable=True), write_back=False)
    assert result.binds == {"ns1/new-0": "n1"}
    # The parent now holds 6Gi against a 5Gi realCapability: the misallocation seed 003 reported.
    assert result.queues["queue1"]["allocated"]["memory"] == 6 * GI
    assert result.queues["queue1"]["realCapability"]["memory"] == 5 * GI


def _root_tree():
    return cluster(conf("allocate", [CAP_H]), node("n1", cpu="10", memory="20Gi"), queue("root"),
                   queue("a", "root", deserved={"cpu": "4"}))


def test_root_capability_is_infinite_at_head() -> None:
    root = open_session(_root_tree()).plugins["capacity"].attrs["root"]
    assert root.real_capability.cpu > 1e300
    assert root.deserved.cpu == 4000  # overwritten by the children's sum


def test_seed004_root_switch_uses_the_cluster_total() -> None:
    ssn = open_session(_root_tree(), options=SessionOptions(seed004_root_init=True))
    root = ssn.plugins["capacity"].attrs["root"]
    assert (root.real_capability.cpu, root.real_capability.memory) == (10_000, 20 * GI)
    assert (root.capability.cpu, root.deserved.cpu) == (10_000, 10_000)
    assert ssn.plugins["capacity"].attrs["a"].real_capability.cpu == 10_000
