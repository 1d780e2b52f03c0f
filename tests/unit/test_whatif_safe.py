"""What-if proposes only changes Volcano would accept and that really let the pod bind: never a change the
queue webhook refuses, never removing the job's own pods or a gang's pod at its minimum, never counting a
pipelined pod as placed; it says when nothing is needed and searches admission for a Pending PodGroup."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from capacity.analysis import whatif
from capacity.analysis.whatif import what_if, what_would_change
from capacity.core.webhook import validate_cluster
from tests.builders import cluster, conf, node, pod, podgroup, queue

ROOT = Path(__file__).resolve().parents[2]
CAP_FLAT = conf("enqueue, allocate, backfill", [{"name": "priority"}, {"name": "gang"}],
                [{"name": "predicates"}, {"name": "capacity"}])
CAP_HIER = conf("enqueue, allocate, backfill", [{"name": "priority"}, {"name": "gang"}],
                [{"name": "predicates"}, {"name": "capacity", "enableHierarchy": True}])
PROPORTION = conf("enqueue, allocate, backfill", [{"name": "priority"}, {"name": "gang"}],
                  [{"name": "predicates"}, {"name": "proportion"}])


def deleting(p: dict[str, Any]) -> dict[str, Any]:
    p["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return p


def nested_capability() -> list[dict[str, Any]]:
    """c is full at its capability, which equals its parent's: raising c alone is refused by the webhook."""
    return [CAP_HIER, node("n1", cpu="8", memory="16Gi"), queue("root"),
            queue("p", "root", capability={"cpu": "2", "memory": "4Gi"}),
            queue("c", "p", capability={"cpu": "2", "memory": "4Gi"}),
            podgroup("busy", "c", phase="Running"), pod("b0", "busy", {"cpu": "2", "memory": "1Gi"}, node_name="n1"),
            podgroup("job", "c"), pod("j0", "job", {"cpu": "1", "memory": "1Gi"})]


def test_a_child_raise_the_webhook_refuses_comes_with_its_parents_raise() -> None:
    c = cluster(*nested_capability())
    answer = what_if(c, "ns1/job")
    assert answer.changes, answer.render_text()
    for change in answer.changes:
        # never the child alone: its capability would exceed its parent's
        assert not (change.target == "Queue/c" and change.kind == "capability"), change.description
    combined = next(ch for ch in answer.changes if ch.kind == "combined")
    # the parent first: the order they can be applied in (the child's raise alone is refused)
    assert combined.parts == ["raise capability of queue p: cpu 2 -> 3", "raise capability of queue c: cpu 2 -> 3"]
    assert combined.target == "Queue/p + Queue/c"
    assert combined.placed == ["ns1/j0"] and combined.binds_in_cycle == 1
    assert combined.webhook_asked == ["Queue/c: queue c capability[cpu]=3 exceeds its ancestor's capability=2"]


def test_every_proposed_queue_change_passes_the_webhook() -> None:
    objs = nested_capability()
    c = cluster(*objs)
    for change in what_would_change(c, "ns1/job"):
        trial = cluster(*objs)
        for part in change.parts or [change.description]:
            if not part.startswith("raise capability of queue "):
                continue
            name = part.split("queue ")[1].split(":")[0]
            trial.queues[name].capability.cpu = 3000.0
        assert validate_cluster(trial) == {}


def test_a_root_change_is_reported_as_refused_not_proposed() -> None:
    objs = [CAP_HIER, node("n1", cpu="8"), queue("root", capability={"cpu": "1", "memory": "8Gi"}),
            queue("q", "root"), podgroup("job", "q"), pod("j0", "job", {"cpu": "2"})]
    answer = what_if(cluster(*objs), "ns1/job")
    assert all("queue root" not in ch.description for ch in answer.changes)
    assert any("root queue's resource attributes (capability, deserved, guarantee) cannot be modified" in r
               for r in answer.refused), answer.refused


def test_removals_spare_the_job_itself_and_gangs_at_their_minimum() -> None:
    objs = [CAP_FLAT, node("n1", cpu="4", memory="8Gi"), queue("q"),
            podgroup("job", "q", phase="Running"), pod("a0", "job", {"cpu": "1"}, node_name="n1"),
            pod("a1", "job", {"cpu": "1"}),
            podgroup("gang", "q", min_member=2, phase="Running"),
            pod("g0", "gang", {"cpu": "1"}, node_name="n1"), pod("g1", "gang", {"cpu": "1"}, node_name="n1"),
            podgroup("web", "q", min_member=1, phase="Running"),
            pod("h0", "web", {"cpu": "500m"}, node_name="n1"), pod("h1", "web", {"cpu": "500m"}, node_name="n1")]
    changes = what_would_change(cluster(*objs), "ns1/job")
    text = " ".join(ch.description for ch in changes)
    for own_or_gang in ("ns1/a0", "ns1/g0", "ns1/g1"):
        assert own_or_gang not in text
    assert not any(ch.kind == "free-node" for ch in changes)  # web can give 500m only: not enough
    assert any(ch.kind == "add-node" and ch.placed == ["ns1/a1"] for ch in changes)
    objs.append(pod("h2", "web", {"cpu": "500m"}, node_name="n1"))
    objs[1] = node("n1", cpu="4500m", memory="8Gi")
    freed = [ch for ch in what_would_change(cluster(*objs), "ns1/job") if ch.kind == "free-node"]
    assert [ch.description for ch in freed] == ["free node n1 by removing ns1/h0, ns1/h1"]


def pipelined_then_bound() -> list[dict[str, Any]]:
    """j0 fits only the room a terminating pod frees: pipelined in cycle 1, bound in cycle 2."""
    return [CAP_FLAT, node("n1", cpu="2", memory="4Gi"), queue("q"),
            podgroup("old", "q", phase="Running"), deleting(pod("x0", "old", {"cpu": "2"}, node_name="n1")),
            podgroup("job", "q"), pod("j0", "job", {"cpu": "2"})]


def test_none_needed_when_it_binds_in_a_later_cycle() -> None:
    answer = what_if(cluster(*pipelined_then_bound()), "ns1/job", cycles=1, pod="ns1/j0")
    assert answer.binds_without_change == 2 and answer.changes == []
    assert "none needed: it binds in cycle 2 without changes" in answer.render_text()


def test_a_pipelined_pod_is_not_placed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(whatif, "EXTRA_CYCLES", 0)  # only cycle 1 is run: j0 is pipelined there, not bound
    answer = what_if(cluster(*pipelined_then_bound()), "ns1/job", cycles=1)
    assert answer.binds_without_change is None
    assert all(ch.binds_in_cycle == 1 for ch in answer.changes)


def test_a_pending_podgroup_without_pods_gets_admission_changes() -> None:
    objs = [CAP_FLAT, node("n1", cpu="8", memory="16Gi"), queue("q", capability={"cpu": "2", "memory": "8Gi"}),
            queue("other", capability={"cpu": "1"}),
            podgroup("vcjob", "q", phase="Pending", min_resources={"cpu": "4", "memory": "4Gi"})]
    answer = what_if(cluster(*objs), "ns1/vcjob")
    assert answer.refused_by_enqueue and not answer.none_needed
    first = answer.changes[0]
    assert (first.kind, first.target) == ("capability", "Queue/q")
    assert first.description == "raise capability of queue q: cpu 2 -> 4"
    assert first.admitted_in_cycle == 1 and first.binds_in_cycle is None
    assert "admitted (Inqueue) in cycle 1" in answer.render_text()
    assert "cluster's total cpu (8): cpu +2 = 25.0 %" in first.size_explained


def test_proportion_offers_the_queues_weight() -> None:
    """Both queues want more than half of 8 cpu: a's share (4) is below its 5 cpu pod until its weight rises."""
    objs = [PROPORTION, node("n1", cpu="8", memory="16Gi"), queue("a"), queue("b"),
            podgroup("fill", "b", phase="Running"), pod("f0", "fill", {"cpu": "3"}, node_name="n1"),
            podgroup("more", "b"), pod("f1", "more", {"cpu": "3"}),
            podgroup("job", "a"), pod("j0", "job", {"cpu": "5"})]
    answer = what_if(cluster(*objs), "ns1/job")
    by_kind = {ch.kind: ch for ch in answer.changes}
    assert by_kind["weight"].description == "raise weight of queue a: 1 -> 2"
    assert by_kind["weight"].size_explained == "a weight changes no resource total (size 0)"
    assert "deserved" not in by_kind  # proportion never reads spec.deserved: raising it alone does nothing


def test_explain_what_if_json_carries_the_answer(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(pipelined_then_bound()))
    proc = subprocess.run([sys.executable, "-m", "capacity", "explain", str(path), "--pod", "ns1/j0", "--what-if",
                           "--format", "json"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["whatIf"] == [] and out["whatIfAnswer"]["noneNeeded"] is True
    assert out["whatIfAnswer"]["bindsWithoutChange"] == 2


def test_a_change_that_binds_only_through_the_leaf_only_bug_is_not_proposed() -> None:
    """Root's own capability blocks; with seed 003's leaf-only check, raising the leaf alone would "work"."""
    from capacity.framework.session import SessionOptions
    objs = [CAP_HIER, node("n1", cpu="8", memory="16Gi"), queue("root", capability={"cpu": "2", "memory": "8Gi"}),
            queue("c", "root", capability={"cpu": "2", "memory": "8Gi"}),
            podgroup("busy", "c", phase="Running"), pod("b0", "busy", {"cpu": "2"}, node_name="n1"),
            podgroup("job", "c"), pod("j0", "job", {"cpu": "1"})]
    answer = what_if(cluster(*objs), "ns1/job", options=SessionOptions(leaf_only_allocatable=True))
    assert not any("queue c" in ch.description for ch in answer.changes)
    assert any(r.startswith("raise capability of queue c: cpu 2 -> 3") and
               r.endswith("works only with --leaf-only-allocatable; in Volcano HEAD it does not bind")
               for r in answer.compat_only), answer.render_text()


def test_a_job_the_cluster_cannot_admit_is_offered_room_in_the_cluster() -> None:
    """Default conf (proportion, overcommit 1.2): minResources 10 cpu > 4 cpu x 1.2; two more nodes admit it."""
    objs = [node("n1", cpu="4", memory="8Gi"), queue("root"), queue("default"),
            podgroup("big", "default", phase="Pending", min_resources={"cpu": "10", "memory": "2Gi"})]
    answer = what_if(cluster(*objs), "ns1/big")
    assert [(ch.kind, ch.description, ch.admitted_in_cycle) for ch in answer.changes] == [
        ("add-node", "add 2 more nodes like n1 (cpu 4, memory 8Gi each)", 1)]


def test_a_childs_deserved_above_its_parents_is_admitted_only_with_the_parents_raise() -> None:
    from capacity.core.webhook import Edit
    c = cluster(CAP_HIER, queue("root"), queue("p", "root", deserved={"cpu": "4"}, capability={"cpu": "5"}),
                queue("a", "p", deserved={"cpu": "2"}), queue("b", "p", deserved={"cpu": "2"}))
    trial, refusal = whatif._admitted(c, [Edit("a", "deserved", "cpu", 4000.0)], None, "a")
    assert refusal is None
    # a 4 + b 2 = 6 > p's 4: p's deserved rises to 6, which is above its capability 5: that rises too
    assert (trial.queues["a"].deserved.cpu, trial.queues["p"].deserved.cpu, trial.queues["p"].capability.cpu) == (
        4000.0, 6000.0, 6000.0)
    assert validate_cluster(trial) == {}
    c.queues["root"].capability = c.queues["p"].capability.clone()  # root's own limit: never raised
    trial, refusal = whatif._admitted(c, [Edit("root", "capability", "cpu", 9000.0)], None, "a")
    assert refusal == ("Queue/root: root queue's resource attributes (capability, deserved, guarantee) cannot be "
                       "modified")


def test_a_webhook_fix_is_checked_against_the_next_rule_too() -> None:
    """5634: raising the parent's guarantee to the children's sum is refused again (a guarantee above the
    parent's unset deserved); the fix lint prints is the whole change the webhook accepts."""
    from pathlib import Path

    from capacity.analysis.whatif import webhook_fix
    from capacity.core.webhook import validate_cluster
    from capacity.io.k8s import load_cluster_file
    c = load_cluster_file(Path(__file__).resolve().parents[1] / "explain" / "5634-child-guarantee-parent-unset"
                          / "cluster.yaml")
    (error,) = validate_cluster(c)["team"]
    assert {(e.queue, e.kind) for e in error.repair} == {("org", "guarantee")}
    assert webhook_fix(c, error.repair) == ("raise deserved of queue org: cpu 0 -> 2, memory 0 -> 4Gi + "
                                            "raise guarantee of queue org: cpu 0 -> 2, memory 0 -> 4Gi")
