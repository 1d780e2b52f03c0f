"""capacity's reasons and records carry the figures they decided with (issue 27, gaps 3 and 5), and the
reclaim/preempt records show each queue before and after an eviction."""

from __future__ import annotations

from pathlib import Path

import pytest

from capacity.core.trace import Record, Trace
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate
from tests.builders import cluster, conf, node, pod, podgroup, queue

PREEMPTABLE = {"labels": {"volcano.sh/preemptable": "true"}}
CORPUS = Path(__file__).resolve().parents[1] / "acceptance" / "volcano"


def _objs(hierarchy: bool = False) -> list:
    """4 cpu, 8Gi. queue-a (deserved cpu 2) runs three 1-cpu pods; queue-b (deserved cpu 2, guarantee cpu 1)
    has a gang of two pending, so reclaim takes from queue-a until it is back at its deserved."""
    cap = {"name": "capacity", "enableHierarchy": True} if hierarchy else {"name": "capacity"}
    objs = [conf("enqueue, allocate, reclaim", [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}, cap],
                 [{"name": "drf"}, {"name": "predicates"}, {"name": "nodeorder"}]),
            node("n1", cpu="4", memory="8Gi")]
    if hierarchy:
        objs += [queue("root"), queue("p", capability={"cpu": "4"}, deserved={"cpu": "4", "memory": "8Gi"}),
                 queue("queue-a", parent="p", deserved={"cpu": "2", "memory": "4Gi"}),
                 queue("queue-b", parent="p", deserved={"cpu": "2", "memory": "4Gi"}, guarantee={"cpu": "1"})]
    else:
        objs += [queue("queue-a", deserved={"cpu": "6", "memory": "4Gi"}, capability={"cpu": "2"}),
                 queue("queue-b", deserved={"cpu": "2", "memory": "4Gi"}, guarantee={"cpu": "1"}),
                 queue("queue-c")]
    objs += [podgroup("pga", "queue-a", phase="Running"),
             *[pod(f"a-{i}", "pga", {"cpu": "1", "memory": "1Gi"}, node_name="n1", **PREEMPTABLE) for i in range(3)],
             podgroup("pgb", "queue-b", min_member=2),
             *[pod(f"b-{i}", "pgb", {"cpu": "1", "memory": "1Gi"}) for i in range(2)]]
    if not hierarchy:
        objs += [podgroup("pgc", "queue-c"), pod("c-0", "pgc", {"cpu": "1", "memory": "1Gi"}, node_name="n1")]
    return objs


def _run(objs: list, traced: bool = True) -> tuple[list[Record], dict]:
    trace = Trace(enabled=traced)
    result = simulate(cluster(*objs), 1, trace)
    return trace.records, result.as_json()


def _texts(records: list[Record], plugin: str, rule: str) -> list[str]:
    return [x.text for r in records for x in r.reasons if x.plugin == plugin and x.rule == rule]


def _figures(records: list[Record]) -> dict[str, Record]:
    return {r.subject: r for r in records if r.kind == "queueFigures" and r.plugin == "capacity"}


def test_flat_figures_show_capability_real_capability_and_their_derivation() -> None:
    records, _ = _run(_objs())
    figures = _figures(records)
    a, b, c = figures["queue-a"], figures["queue-b"], figures["queue-c"]
    assert a.detail["capability"] == {"cpu": 2000.0, "memory": "unset (no limit)"}
    assert b.detail["capability"] == {"cpu": "unset (no limit)", "memory": "unset (no limit)"}
    assert a.detail["realCapabilityHow"]["cpu"] == ("cluster total 4 - guarantees of all queues 1 (queue queue-b) + "
                                                    "its own guarantee 0 = 3; clipped by its capability 2")
    assert b.detail["realCapabilityHow"]["cpu"] == ("cluster total 4 - guarantees of all queues 1 (queue queue-b) + "
                                                    "its own guarantee 1 = 4")
    assert a.detail["deservedHow"] == "cpu set to 6, clipped to its realCapability 2; memory as set"
    assert c.detail["deservedHow"] == "not set: the queue is best-effort"
    # A best-effort queue's share is 1 even with nothing allocated: Volcano's rule, said in words.
    assert c.detail["share"] == 1.0
    assert c.detail["shareHow"].startswith("1, because the queue has no deserved: capacity treats it as best-effort")
    assert a.reasons[0].text.startswith("queue queue-a: capability cpu 2, memory unset (no limit); realCapability "
                                        "cpu 2 (cluster total 4 - guarantees of all queues 1 (queue queue-b) + its own "
                                        "guarantee 0 = 3; clipped by its capability 2); memory 8Gi (the cluster total "
                                        "8Gi; no queue guarantees any); deserved cpu 2, memory 4Gi")


def test_hierarchical_figures_show_inheritance_and_the_parent_share_out() -> None:
    records, _ = _run(_objs(hierarchy=True))
    figures = _figures(records)
    a, root = figures["queue-a"], figures["root"]
    assert a.detail["capabilityHow"]["cpu"] == "inherited from parent p: 4"
    assert a.detail["capability"]["memory"] == "unset (no limit)"
    assert a.detail["realCapabilityHow"]["cpu"] == ("parent p's realCapability 4 - its children's guarantees 1 + "
                                                    "its own guarantee 0 = 3")
    assert a.detail["path"] == "root/p/queue-a"
    assert root.detail["deservedHow"] == "the sum of its children's deserved, which replaces root's own"
    assert root.detail["capability"] == {"cpu": "unset (no limit)", "memory": "unset (no limit)"}
    assert "capability cpu 4 (inherited from parent p)" in a.reasons[0].text


def test_kept_victim_states_the_earlier_victims() -> None:
    records, result = _run(_objs(hierarchy=True))
    assert _texts(records, "capacity", "overDeserved")[0] == (
        "ns1/a-2 may go: queue queue-a's allocated cpu 3 is above its deserved cpu 2")
    assert _texts(records, "capacity", "notOverDeserved")[0] == (
        "ns1/a-1 kept: after evicting ns1/a-2 (cpu 1, memory 1Gi), queue queue-a's allocated would be cpu 2, memory "
        "2Gi, which is not above its deserved cpu 2, memory 4Gi, so ns1/a-1 is kept")
    assert result["evicted"] == ["ns1/a-2"]


def test_eviction_shows_both_queues_before_and_after() -> None:
    records, _ = _run(_objs(hierarchy=True))
    change = next(r for r in records if r.kind == "queueChange" and r.subject == "ns1/a-2")
    assert change.reasons[0].text == (
        "evicting ns1/a-2 (cpu 1, memory 1Gi) for ns1/b-1: queue queue-a (the victim's) allocated cpu 3 -> 2, memory "
        "3Gi -> 2Gi (share 1.5 -> 1); queue queue-b (the preemptor's) allocated cpu 1, memory 1Gi (share 0.5), "
        "unchanged")
    qa = change.detail["queues"]["queue-a"]
    assert (qa["allocatedBefore"]["cpu"], qa["allocatedAfter"]["cpu"], qa["shareBefore"], qa["shareAfter"]) == (
        3000, 2000, 1.5, 1.0)
    placed = [r for r in records if r.kind == "queueChange" and r.subject == "ns1/b-1"]
    assert placed[0].reasons[0].text == ("placing ns1/b-1 on n1: queue queue-b allocated cpu 1 -> 2, memory 1Gi -> "
                                         "2Gi (share 0.5 -> 1)")


def _changes(case: str) -> list[str]:
    trace = Trace(enabled=True)
    simulate(load_cluster_file(str(CORPUS / case / "cluster.yaml")), 1, trace)
    return [r.reasons[0].text for r in trace.records if r.kind == "queueChange" and r.action == "preempt"]


@pytest.mark.parametrize("case", ["preempt-low-priority-same-queue", "preempt-topoaware-low-priority-same-queue"])
def test_preempt_records_the_queue_change_too(case: str) -> None:
    assert _changes(case) == [
        "evicting c1/preemptee1 (cpu 3, memory 3G) for c1/preemptor1: queue q1 (the victim's and the preemptor's) "
        "allocated cpu 3 -> 0, memory 3G -> 0 (share 0.75 -> 0)",
        "placing c1/preemptor1 on n1: queue q1 allocated cpu 0 -> 3, memory 0 -> 3G (share 0 -> 0.75)"]


def test_best_effort_eviction_shows_the_pod_count() -> None:
    assert _changes("preempt-topoaware-besteffort-both")[0] == (
        "evicting c1/preemptee1 (best-effort: it requests nothing) for c1/preemptor1: queue q1 (the victim's and the "
        "preemptor's) allocated pods 1 -> 0 (share 1 -> 0)")


def test_preemptive_and_enqueue_show_their_sums() -> None:
    records, _ = _run(_objs(hierarchy=True))
    assert _texts(records, "capacity", "underDeserved")[0] == (
        "queue queue-b stays within its deserved on cpu, memory: allocated + request <= deserved: cpu 0 + 1 = 1 <= 2, "
        "memory 0 + 1Gi = 1Gi <= 4Gi")
    objs = [conf("enqueue", [{"name": "gang"}, {"name": "capacity"}]), node("n1", cpu="4", memory="8G"),
            queue("q1", capability={"memory": "2G"}),
            podgroup("pg1", "q1", phase="Pending", min_resources={"memory": "3G"}), pod("a", "pg1", {"memory": "3G"})]
    records, _ = _run(objs)
    assert _texts(records, "capacity", "enqueueRealCapability") == [
        "queue resource quota insufficient: minResources + allocated + inqueue - elastic exceeds the realCapability "
        "of q1 on memory: memory 3G + 0 + 0 - 0 = 3G > 2G (1G over)"]  # 3G stays 3G, 2G stays 2G (not 1953125Ki)


def test_tracing_changes_no_decision() -> None:
    for objs in (_objs(), _objs(hierarchy=True)):
        assert _run(objs)[1] == _run(objs, traced=False)[1]


def test_best_effort_share_is_explained_where_allocate_records_it() -> None:
    objs = [conf("allocate", [{"name": "gang"}, {"name": "capacity"}, {"name": "predicates"}]),
            node("n1", cpu="4", memory="8Gi"), queue("q1"), podgroup("pg1", "q1"), pod("a", "pg1", {"cpu": "1"})]
    records, _ = _run(objs)
    turn = next(r for r in records if r.kind == "allocateJob")
    assert turn.detail["share"] == 1.0  # nothing allocated, yet share 1: capacity.go's best-effort rule
    assert turn.detail["shareNote"].startswith("1, because the queue has no deserved")
