"""Rules of the actions (spec actions-framework) that no test pinned until a one-line change to each went
unnoticed by the whole suite: each test here fails if its rule is dropped."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from capacity.core.trace import Trace
from capacity.io.k8s import load_objects
from capacity.scheduler import run_cycle, simulate
from tests.builders import cluster, conf, node, pod, podgroup, queue
from tests.unit.test_untraced_paths import _tidal

GANG_PREDICATES = ([{"name": "gang"}], [{"name": "predicates"}])


@pytest.mark.parametrize("traced", [True, False])
def test_a_pod_whose_preemption_policy_is_never_reclaims_nothing(traced: bool) -> None:
    """reclaim.go skips a preemptor with preemptionPolicy Never: inference's waiting pod would otherwise
    take a cpu back from training (test_untraced_paths: one eviction)."""
    def evictions(policy: str | None) -> list[str]:
        objs = _tidal()
        if policy:
            objs[-1]["spec"]["preemptionPolicy"] = policy
        run = simulate(load_objects(objs), cycles=2, trace=Trace(enabled=traced))
        return [key for c in run.cycles for key in c.evicted]

    assert len(evictions(None)) == 1
    assert evictions("Never") == []


@pytest.mark.parametrize(("actions", "bound"), [("enqueue, allocate", False), ("enqueue, allocate, backfill", True)])
def test_allocate_leaves_best_effort_pods_to_backfill(actions: str, bound: bool) -> None:
    """allocate's worksheets hold no BestEffort task (a pod that requests nothing): backfill places those."""
    c = cluster(conf(actions, *GANG_PREDICATES), node("n1", cpu="8"), queue("q"),
                podgroup("j", "q"), pod("p1", "j", {}))
    assert ("ns1/p1" in run_cycle(c, Trace(enabled=False)).binds) is bound


def test_allocate_stops_trying_a_role_once_one_of_its_tasks_fit_nowhere() -> None:
    """A task of a role that already failed to fit is skipped (roleAlreadyFailed) instead of being checked
    against every node again; another role is still tried."""
    def member(name: str, role: str) -> dict[str, Any]:
        p = pod(name, "j", {"cpu": "16"})
        p["metadata"]["annotations"]["volcano.sh/task-spec"] = role
        return p

    c = cluster(conf("enqueue, allocate", *GANG_PREDICATES), node("n1", cpu="8"), queue("q"),
                podgroup("j", "q"), member("p1", "ps"), member("w1", "worker"), member("w2", "worker"))
    outcome = {r.subject: r.kind for r in run_cycle(c).records if r.kind in ("noFit", "roleAlreadyFailed")}
    assert outcome == {"ns1/p1": "noFit", "ns1/w1": "noFit", "ns1/w2": "roleAlreadyFailed"}


def _best_effort(name: str, group: str, node_name: str = "", priority_class: str = "") -> dict[str, Any]:
    p = pod(name, group, {}, node_name=node_name)
    if priority_class:
        p["spec"]["priorityClassName"] = priority_class
    return p


def test_backfill_leaves_a_gated_best_effort_pod_alone() -> None:
    """backfill takes the Pending BestEffort tasks that are not gated (actions-framework §7.3)."""
    gated = _best_effort("p2", "j")
    gated["spec"]["schedulingGates"] = [{"name": "example.com/wait"}]
    c = cluster(conf("enqueue, allocate, backfill", *GANG_PREDICATES), node("n1", cpu="8"), queue("q"),
                podgroup("j", "q"), _best_effort("p1", "j"), gated)
    assert run_cycle(c, Trace(enabled=False)).binds == {"ns1/p1": "n1"}


def test_backfill_binds_a_best_effort_task_that_preempt_pipelined() -> None:
    """backfill UnPipelines a Pipelined BestEffort task and places it again (actions-framework §7.3). With
    preempt before backfill, preempt evicts the low-priority pod from the one-pod node and pipelines the
    high-priority one there; the evicted pod has left the node's mirror (trap 24), so backfill binds it."""
    def group(name: str, priority_class: str, phase: str, min_member: int) -> dict[str, Any]:
        g = podgroup(name, "q", min_member=min_member, phase=phase)
        g["spec"]["priorityClassName"] = priority_class
        return g

    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n}, "value": v}
               for n, v in (("high", 1000), ("low", 10))]
    c = cluster(conf("enqueue, allocate, preempt, backfill", [{"name": "priority"}, {"name": "gang"}],
                     [{"name": "predicates"}]),
                *classes, node("n1", cpu="8", pods="1"), queue("q"),
                group("low", "low", "Running", 0), _best_effort("l1", "low", node_name="n1", priority_class="low"),
                group("high", "high", "Inqueue", 1), _best_effort("h1", "high", priority_class="high"))
    result = run_cycle(c, Trace(enabled=False))
    assert (result.evicted, result.binds, result.pipelined) == (["ns1/l1"], {"ns1/h1": "n1"}, {})


@pytest.mark.parametrize(("min_resources", "phase"), [(None, "Inqueue"), ({"cpu": "1"}, "Pending")])
def test_enqueue_admits_a_job_without_minresources_without_asking_the_plugins(min_resources: dict | None,
                                                                             phase: str) -> None:
    """enqueue.go admits a PodGroup that sets no minResources before any JobEnqueueable vote, so even
    proportion's refusal of a Closed queue does not hold it back; with minResources it does."""
    closed = queue("q")
    closed["status"]["state"] = "Closed"
    c = cluster(conf("enqueue", [{"name": "proportion"}]), node("n1", cpu="8"), closed,
                podgroup("j", "q", phase="Pending", min_resources=min_resources), pod("p1", "j", {"cpu": "1"}))
    assert run_cycle(c).podgroup_phases["ns1/j"] == phase


def test_enqueue_admits_a_podgroup_that_has_no_phase_yet() -> None:
    """A PodGroup with no phase yet (a cluster built in code; YAML without status.phase reads as Pending) is
    Pending to Volcano: enqueue admits it and allocate binds its pod, even when no other job is Pending."""
    c = cluster(conf("enqueue, allocate", [{"name": "gang"}], [{"name": "predicates"}, {"name": "capacity"}]),
                node("n1", cpu="8"), queue("q"), podgroup("j", "q"), pod("p1", "j", {"cpu": "1"}))
    c.podgroups["ns1/j"].phase = ""
    assert run_cycle(c).binds == {"ns1/p1": "n1"}


def test_the_node_a_reclaim_pipelined_onto_is_written_back_as_nominated() -> None:
    """A pipeline that evicted leaves nominatedNodeName on the pod (trap 26); write-back keeps it on the
    cluster's pod for the next cycle (spec §11)."""
    c = load_objects(_tidal())
    result = run_cycle(c)
    assert result.nominated == {"ns1/i-worker-0": "n1"}
    assert {k: p.nominated_node for k, p in c.pods.items() if p.nominated_node} == {"ns1/i-worker-0": "n1"}


def _affinity(kind: str, app: str) -> dict[str, Any]:
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}


def _one_node_cluster(*objs: dict[str, Any]) -> Any:
    return cluster(conf("enqueue, allocate", [{"name": "gang"}, {"name": "predicates"}, {"name": "capacity"}]),
                   node("n1", labels={"kubernetes.io/hostname": "n1"}), queue("q1"), *objs)


@pytest.mark.parametrize(("kind", "to", "binds"), [("podAffinity", "db", False), ("podAffinity", "web", True),
                                                    ("podAntiAffinity", "web", False)])
def test_a_pending_pods_required_pod_affinity_is_checked_though_no_placed_pod_has_an_affinity(
        kind: str, to: str, binds: bool) -> None:
    """Only the pending pod names an affinity: to pods that run nowhere, it stays pending; to the pod
    running on the node, it binds there; away from that pod, it stays pending."""
    waiting = pod("w-0", "w", {"cpu": "1"}, labels={"app": "x"})
    waiting["spec"]["affinity"] = _affinity(kind, to)
    c = _one_node_cluster(podgroup("w", "q1"), waiting,
                          podgroup("r", "q1", phase="Running"),
                          pod("r-0", "r", {"cpu": "1"}, node_name="n1", labels={"app": "web"}))
    assert run_cycle(c, Trace(enabled=False)).binds == ({"ns1/w-0": "n1"} if binds else {})


def test_a_placed_pod_outside_every_job_keeps_others_away_by_its_anti_affinity() -> None:
    """Only a running pod without a PodGroup names an anti-affinity, against the pending pod's label: the
    pending pod (no affinity of its own) does not go to its node."""
    guard = pod("guard", "none", {"cpu": "1"}, node_name="n1", labels={"app": "guard"})
    guard["spec"]["affinity"] = _affinity("podAntiAffinity", "web")
    c = _one_node_cluster(guard, podgroup("w", "q1"), pod("w-0", "w", {"cpu": "1"}, labels={"app": "web"}))
    assert run_cycle(c, Trace(enabled=False)).binds == {}
    del c.pods[next(k for k in c.pods if k.endswith("guard"))]
    assert run_cycle(c, Trace(enabled=False)).binds == {"ns1/w-0": "n1"}


def test_a_job_stops_starving_once_its_task_is_pipelined_and_priority_says_so() -> None:
    """priority's JobStarving counts pipelined tasks as on their way (ready + waiting < tasks): once
    reclaim pipelines the inference pod, priority answers no and reclaim stops; gang is never asked."""
    result = run_cycle(load_objects(_tidal()))
    assert result.pipelined == {"ns1/i": ["n1"]}
    said = [(r.subject, r.plugin, r.verdict) for r in result.records
            if r.kind == "jobStarving" and r.action == "reclaim"]
    assert ("ns1/i", "priority", False) in said and all(plugin == "priority" for _, plugin, _ in said)


def test_without_a_job_starving_function_no_job_reclaims() -> None:
    """Volcano's JobStarving answers no when no enabled plugin has one: with priority's and gang's turned
    off, the inference pod takes nothing back."""
    objs = _tidal()
    k = next(i for i, o in enumerate(objs) if o["kind"] == "ConfigMap")
    text = yaml.safe_load(objs[k]["data"]["volcano-scheduler.conf"])
    for opt in text["tiers"][0]["plugins"]:
        if opt["name"] in ("priority", "gang"):
            opt["enableJobStarving"] = False
    objs[k] = {**objs[k], "data": {"volcano-scheduler.conf": yaml.safe_dump(text)}}  # (the fixture's is shared)
    result = run_cycle(load_objects(objs), Trace(enabled=False))
    assert result.evicted == [] and result.pipelined == {}
