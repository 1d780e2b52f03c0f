"""Every number a check states is one of its figures, and a comparison says its sum and by how much it is over
(issue 27: the explain corpus's findings, one test per fix)."""

from __future__ import annotations

from pathlib import Path

from capacity.analysis.answer import answer_job, answer_pod, explain_run
from capacity.analysis.whatif import what_if
from capacity.core.resources import Resource
from capacity.io.k8s import load_cluster_file
from capacity.plugins.figures import sums, totals
from tests.builders import cluster, conf, node, pod, podgroup, queue

CAPACITY = [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}, {"name": "capacity"}]
NODES = [{"name": "drf"}, {"name": "predicates"}, {"name": "nodeorder"}]
PREEMPTABLE = {"labels": {"volcano.sh/preemptable": "true"}}


def _cpu(v: float) -> Resource:
    r = Resource.empty()
    r.cpu = v * 1000
    return r


def test_a_sum_says_its_total_and_by_how_much_it_is_over() -> None:
    terms = [("", _cpu(2)), ("+", _cpu(3)), ("-", _cpu(1))]
    assert sums(terms, _cpu(3), ["cpu"], ">", None) == "cpu 2 + 3 - 1 = 4 > 3 (1 over)"
    assert sums(terms, _cpu(5), ["cpu"], "<=", None) == "cpu 2 + 3 - 1 = 4 <= 5"
    assert totals(terms, _cpu(3), ["cpu"]) == {"total": {"cpu": 4000.0}, "over": {"cpu": 1000.0}}


def _reclaimer_over_deserved() -> list:
    """queue-a runs 2 of 4 cpu with deserved 1, queue-b the other 2; queue-a's pending pod fits its
    realCapability but no node, and may not reclaim (2 + 1 > 1)."""
    return [conf("allocate, reclaim", CAPACITY, NODES), node("n1", cpu="4", memory="8Gi"),
            queue("queue-a", deserved={"cpu": "1", "memory": "1Gi"}), queue("queue-b", deserved={"cpu": "1"}),
            podgroup("pga", "queue-a", phase="Running"),
            *[pod(f"a-{i}", "pga", {"cpu": "1", "memory": "1Gi"}, node_name="n1", **PREEMPTABLE) for i in range(2)],
            podgroup("pgb", "queue-b", phase="Running"),
            *[pod(f"b-{i}", "pgb", {"cpu": "1", "memory": "1Gi"}, node_name="n1") for i in range(2)],
            podgroup("pgx", "queue-a", phase="Inqueue"), pod("x-0", "pgx", {"cpu": "1", "memory": "1Gi"})]


def test_over_deserved_check_names_allocated_and_request_apart() -> None:
    """It used to file allocated + request under the name `allocated` and no request figure."""
    a = answer_pod(explain_run(cluster(*_reclaimer_over_deserved())), "ns1/x-0")
    check = next(c for c in a.checks if "would exceed its deserved on every requested dimension" in c.text)
    shown = {f.name: f.shown for f in check.figures}
    assert "cpu 2 + 1 = 3 > 1 (2 over)" in check.text
    assert (shown["queue-a allocated cpu"], shown["queue-a request cpu"], shown["queue-a deserved cpu"]) == \
        ("2", "1", "1")
    assert (shown["queue-a total cpu"], shown["queue-a over cpu"]) == ("3", "2")


def test_enqueue_refusal_names_the_inqueue_jobs() -> None:
    objs = [conf("enqueue", [{"name": "gang"}, {"name": "capacity"}], NODES), node("n1", cpu="8", memory="16Gi"),
            queue("q1", capability={"cpu": "4"}),
            podgroup("held", "q1", phase="Inqueue", min_resources={"cpu": "3"}), pod("h-0", "held", {"cpu": "3"}),
            podgroup("new", "q1", phase="Pending", min_resources={"cpu": "2"}), pod("n-0", "new", {"cpu": "2"})]
    a = answer_job(explain_run(cluster(*objs)), "ns1/new")
    assert "cpu 2 + 0 + 3 - 0 = 5 > 4 (1 over)" in a.sentence
    assert "inqueue is the minResources not yet allocated of the admitted job ns1/held" in a.sentence


def test_passing_enqueue_gives_each_level_its_numbers_or_no_limit() -> None:
    objs = [conf("enqueue", [{"name": "gang"}, {"name": "capacity", "enableHierarchy": True}], NODES),
            node("n1", cpu="8", memory="16Gi"), queue("root"), queue("q", parent="root", capability={"cpu": "4"}),
            podgroup("j", "q", phase="Pending", min_resources={"cpu": "2"}), pod("j-0", "j", {"cpu": "2"})]
    a = answer_job(explain_run(cluster(*objs)), "ns1/j")
    check = next(c for c in a.checks if c.plugin == "capacity" and c.action == "enqueue")
    assert check.outcome == "passed"
    assert "root/q: cpu 2 + 0 + 0 - 0 = 2 <= 4" in check.text
    assert "root: no limit (capability unset)" in check.text


def test_real_capability_derivation_names_the_guaranteeing_queues() -> None:
    objs = [conf("allocate", CAPACITY, NODES), node("n1", cpu="8", memory="16Gi"),
            queue("big", capability={"cpu": "20"}), queue("other", guarantee={"cpu": "2"}),
            podgroup("pg", "big", phase="Running"),
            *[pod(f"b-{i}", "pg", {"cpu": "1"}, node_name="n1") for i in range(6)], pod("b-6", "pg", {"cpu": "1"})]
    a = answer_pod(explain_run(cluster(*objs)), "ns1/b-6")
    said = " ".join(c.text for c in a.checks)
    assert "cluster total 8 - guarantees of all queues 2 (queue other) + its own guarantee 0 = 6" in said


def test_what_if_names_the_pods_a_change_evicts() -> None:
    """The corpus's scenario: raising queue-b's capability works only through reclaim evicting a queue-a pod."""
    path = Path(__file__).resolve().parents[1] / "explain" / "whatif-pipelined-is-not-placed" / "cluster.yaml"
    answer = what_if(load_cluster_file(str(path)), "default/b-new", 1)
    change = next(c for c in answer.changes if c.kind == "capability")
    assert change.evicted and all(v.endswith("(queue queue-a)") for v in change.evicted)
    assert f"it works only by evicting {change.evicted[0]}" in answer.render_text()
