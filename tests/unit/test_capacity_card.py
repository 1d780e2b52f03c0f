"""capacity-card: card discovery, quota checks (whole cards, MIG, multi-card), its arguments, and §14.3."""

from __future__ import annotations

import json

import pytest

from capacity.core import cards as C
from capacity.core.resources import Resource
from capacity.core.trace import Trace
from capacity.plugins.capacity_card import JOB_MODE, TASK_MODE, check_single_scalar
from capacity.scheduler import open_session, run_cycle
from tests.unit.test_capacity_card_builders import (
    H200,
    MIG,
    OWNER_MAP,
    card_node,
    card_queue,
    cluster,
    code_plugin,
    conf,
    notes,
    pg,
    pod,
    priority_class,
    reasons,
    seed_tiers,
)

K = C.CARD_MULTIPLIER


def plugin_of(c, trace=None):
    ssn = open_session(c, trace)
    return ssn, ssn.plugins["capacity-card"]


def alloc_conf(card_args=None):
    return conf("enqueue, allocate", seed_tiers(card_args))


# ---- discovery -----------------------------------------------------------------------------------
def test_whole_cards_come_from_the_product_label_and_the_vendor_resource():
    nc = C.discover("n1", {"nvidia.com/gpu.product": H200, "nvidia.com/gpu.count": "8"},
                    Resource(1000, 1, {"nvidia.com/gpu": 8000, "pods": 10}))
    assert (nc.product, nc.label_prefix, nc.resource_prefix) == (H200, "nvidia.com/gpu", "nvidia.com")
    assert nc.cards == {H200: ("nvidia.com/gpu", 8000.0)}


def test_mig_and_mps_card_names():
    labels = {"nvidia.com/gpu.product": "NVIDIA-H200", "nvidia.com/gpu.memory": "81920",
              "nvidia.com/gpu.replicas": "8", "nvidia.com/mig-1g.18gb.count": "7"}
    nc = C.discover("n1", labels, Resource(0, 0, {"nvidia.com/mig-1g.18gb": 7000, "nvidia.com/mig-2g.35gb": 3000,
                                                  "nvidia.com/gpu.shared": 64000}))
    assert nc.cards == {
        MIG: ("nvidia.com/mig-1g.18gb", 7000.0),
        "NVIDIA-H200/mig-2g.35gb-mixed": ("nvidia.com/mig-2g.35gb", 3000.0),
        "NVIDIA-H200/mps-80g*1/8": ("nvidia.com/gpu.shared", 64000.0),
    }


def test_a_node_without_product_label_offers_no_card_and_a_labelled_one_without_resource_says_so():
    assert C.discover("n1", {"pool": "gpu"}, Resource(0, 0, {"nvidia.com/gpu": 8000})).cards == {}
    nc = C.discover("n2", {"nvidia.com/gpu.product": H200}, Resource(1000, 1))
    assert nc.cards == {} and "no card resource" in nc.problems[0]


@pytest.mark.parametrize(("text", "cards", "problem"), [
    ('{"NVIDIA-H200": 2, "NVIDIA-H200/mig-1g.18gb-mixed": 3}', {H200: 2000.0, MIG: 3000.0}, ""),
    ('{"NVIDIA-H200": 2.5}', {}, "JSON integer"),
    ('{"NVIDIA-H200": "2", "NVIDIA-A100": 1}', {}, "JSON integer"),
    ("NVIDIA-H200: 2", {}, "not valid JSON"),
    ('[1]', {}, "JSON object"),
    ("", {}, ""),
])
def test_card_annotations_are_read_like_go_map_string_int(text, cards, problem):
    got, why = C.parse_card_json(text)
    assert got == cards and (problem in why if problem else why == "")


# ---- CheckSingleScalarResource -------------------------------------------------------------------
def test_multi_card_job_mode_sums_quotas_and_task_mode_needs_one_card_type():
    """The design doc's example: quota A100 5 + H100 3, allocated 2 + 1, a job asks 4 of A100|H100."""
    cap = Resource(0, 0, {"A100": 5 * K, "H100": 3 * K})
    used = Resource(0, 0, {"A100": 2 * K, "H100": 1 * K, "A100|H100": 4 * K})
    job = check_single_scalar("A100|H100", 4 * K, used, cap, JOB_MODE)
    assert job.ok and (job.used, job.limit) == (7 * K, 8 * K)
    assert not check_single_scalar("A100|H100", 4 * K, used, cap, TASK_MODE).ok  # 6 > 5 and 5 > 3
    used3 = Resource(0, 0, {"A100": 2 * K, "H100": 1 * K, "A100|H100": 3 * K})
    assert check_single_scalar("A100|H100", 3 * K, used3, cap, TASK_MODE).ok      # A100: 5 <= 5
    used6 = Resource(0, 0, {"A100": 2 * K, "H100": 1 * K, "A100|H100": 6 * K})
    assert not check_single_scalar("A100|H100", 6 * K, used6, cap, JOB_MODE).ok    # 9 > 8


# ---- allocate: whole cards and MIG -----------------------------------------------------------------
def test_allocate_stops_at_the_queue_card_quota():
    c = cluster(alloc_conf(), card_node(gpus=8), card_queue("q", {H200: 3}, capability={"cpu": "4", "memory": "4Gi"}),
                pg("j", "q", 1), *[pod(f"p{i}", "j", gpus=1) for i in range(5)])
    trace = Trace()
    res = run_cycle(c, trace, write_back=False)
    assert len(res.binds) == 3
    refused = [r for r in reasons(trace) if r.rule == "allocateCardQuota" and "insufficient" in r.text]
    assert refused and (f"card quota for {H200} for c1/p3: allocated + request exceeds the queue's "
                        f"volcano.sh/card.quota: {H200} 4 > 3 (request 1)") in refused[0].text


def test_mig_cards_are_counted_under_their_mixed_name():
    node = card_node(gpus=None, extra={"nvidia.com/mig-1g.18gb": "7"})
    c = cluster(alloc_conf(), node, card_queue("q", {MIG: 2}, capability={"cpu": "4", "memory": "4Gi"}),
                pg("j", "q", 1), *[pod(f"p{i}", "j", gpus=1, card=MIG, resource="nvidia.com/mig-1g.18gb")
                                   for i in range(3)])
    trace = Trace()
    ssn, plugin = plugin_of(c)
    assert plugin.card_to_resource == {MIG: "nvidia.com/mig-1g.18gb"}
    assert plugin.total.get(MIG) == 7 * K
    res = run_cycle(c, trace, write_back=False)
    assert len(res.binds) == 2
    assert any(MIG in r.text and r.rule == "allocateCardQuota" and "insufficient" in r.text for r in reasons(trace))
    assert res.queues["q"]["allocated"][MIG] == 2 * K


def test_a_card_type_missing_from_the_quota_has_quota_zero():
    c = cluster(alloc_conf(), card_node(gpus=8), card_queue("q", {"NVIDIA-A100": 8}), pg("j", "q"),
                pod("p", "j", gpus=1))
    trace = Trace()
    assert run_cycle(c, trace, write_back=False).binds == {}
    assert any(f"{H200} 1 > 0 (request 1)" in r.text for r in reasons(trace))


def test_a_card_no_node_offers_cannot_be_read():
    c = cluster(alloc_conf(), card_node(gpus=8), card_queue("q", {"NVIDIA-B200": 8}), pg("j", "q"),
                pod("p", "j", gpus=1, card="NVIDIA-B200"))
    trace = Trace()
    assert run_cycle(c, trace, write_back=False).binds == {}
    assert [r.rule for r in reasons(trace)][-1] == "cardRequest"


def test_card_unlimited_cpu_memory_skips_cpu_for_card_pods_only():
    objs = [card_node(gpus=8), card_queue("q", {H200: 8}, capability={"cpu": "1", "memory": "1Gi"}), pg("g", "q"),
            pod("gpu-pod", "g", gpus=1, cpu="3"), pg("c", "q"), pod("cpu-pod", "c", cpu="3", card=None)]
    unlimited = run_cycle(cluster(alloc_conf({"cardUnlimitedCpuMemory": True}), *objs), write_back=False)
    assert set(unlimited.binds) == {"c1/gpu-pod"}
    trace = Trace()
    limited = run_cycle(cluster(alloc_conf({"cardUnlimitedCpuMemory": False}), *objs), trace, write_back=False)
    assert limited.binds == {}
    assert {r.rule for r in reasons(trace) if "insufficient" in r.text} == {"allocateCpuQuota"}


def test_no_capability_means_no_cpu_for_non_card_pods():
    c = cluster(alloc_conf(), card_node(), card_queue("q", {H200: 8}), pg("c", "q"), pod("cpu-pod", "c", card=None))
    assert run_cycle(c, write_back=False).binds == {}


def test_a_quoted_boolean_is_not_a_boolean_for_card_unlimited():
    c = cluster(alloc_conf({"cardUnlimitedCpuMemory": "true"}), card_node(), card_queue("q", {H200: 8}))
    trace = Trace()
    _, plugin = plugin_of(c, trace)
    assert plugin.unlimited is False and "YAML boolean" in notes(trace)[0]


# ---- enqueue -------------------------------------------------------------------------------------
def enqueue_cluster(card_args, request, *extra, min_resources=None):
    return cluster(
        conf("enqueue", seed_tiers(card_args)), card_node(gpus=8),
        card_queue("q", {H200: 8}, capability={"cpu": "4", "memory": "4Gi"}),
        pg("running", "q", 1, phase="Running"), pod("r0", "running", gpus=4, node="n1"),
        pg("new", "q", 1, phase="Pending", annotations={"volcano.sh/card.request": request},
           min_resources=min_resources or {"cpu": "1"}),
        *extra)


def test_enqueue_checks_card_request_against_the_quota():
    trace = Trace()
    res = run_cycle(enqueue_cluster({}, '{"NVIDIA-H200": 5}'), trace, write_back=False)
    assert res.podgroup_phases["c1/new"] == "Pending"
    why = [r for r in reasons(trace) if r.rule == "enqueueCardQuota"][-1]
    assert "request + allocated + inqueue - elastic" in why.text and f"{H200} 9 > 8 (request 5)" in why.text
    assert run_cycle(enqueue_cluster({}, '{"NVIDIA-H200": 4}'), write_back=False).podgroup_phases["c1/new"] == "Inqueue"


def test_enqueue_with_a_mig_request():
    c = cluster(conf("enqueue", seed_tiers({})), card_node(gpus=None, extra={"nvidia.com/mig-1g.18gb": "7"}),
                card_queue("q", {MIG: 2}, capability={"cpu": "4", "memory": "4Gi"}),
                pg("ok", "q", phase="Pending", annotations={"volcano.sh/card.request": json.dumps({MIG: 2})},
                   min_resources={"cpu": "1"}),
                pg("too-big", "q", phase="Pending", annotations={"volcano.sh/card.request": json.dumps({MIG: 3})},
                   min_resources={"cpu": "1"}))
    assert run_cycle(c, write_back=False).podgroup_phases == {"c1/ok": "Inqueue", "c1/too-big": "Pending"}


def test_the_pods_card_requests_override_the_annotation():
    """NewJobInfo: once pods exist, their card requests replace volcano.sh/card.request."""
    c = enqueue_cluster({}, '{"NVIDIA-H200": 1}', pod("n0", "new", gpus=3), pod("n1", "new", gpus=2))
    _, plugin = plugin_of(c)
    ssn = plugin.ssn
    req, allocated = plugin.job_minimum(ssn.jobs["c1/new"])
    assert req.get(H200) == 5 * K and allocated.get(H200) == 0
    assert run_cycle(c, write_back=False).podgroup_phases["c1/new"] == "Pending"  # 4 + 5 > 8


def test_an_admitted_job_holds_inqueue_for_the_next_one():
    c = enqueue_cluster({}, '{"NVIDIA-H200": 3}',
                        pg("third", "q", phase="Pending", annotations={"volcano.sh/card.request": '{"NVIDIA-H200": 2}'},
                           min_resources={"cpu": "1"}))
    phases = run_cycle(c, write_back=False).podgroup_phases
    assert sorted(phases.values()).count("Inqueue") == 1 and phases["c1/running"] == "Running"


@pytest.mark.parametrize(("factor", "admitted", "note"), [
    (None, True, ""), (1, False, ""), (2, True, ""), ("2", True, "number >= 1"), (0.5, True, "number >= 1"),
])
def test_over_commit_factor_caps_admission_against_the_cluster_total(factor, admitted, note):
    """Two queues each with quota 8 on an 8-GPU node: queue a uses 6, a job in b asks 4 (10 in all)."""
    args: dict = {"cardUnlimitedCpuMemory": True} if factor is None else {"cardUnlimitedCpuMemory": True,
                                                                            "overCommitFactor": factor}
    c = cluster(conf("enqueue", seed_tiers(args)), card_node(gpus=8),
                card_queue("a", {H200: 8}), card_queue("b", {H200: 8}),
                pg("ra", "a", phase="Running"), pod("a0", "ra", gpus=6, node="n1"),
                pg("new", "b", phase="Pending", annotations={"volcano.sh/card.request": '{"NVIDIA-H200": 4}'},
                   min_resources={"cpu": "1"}))
    trace = Trace()
    phase = run_cycle(c, trace, write_back=False).podgroup_phases["c1/new"]
    assert phase == ("Inqueue" if admitted else "Pending")
    if factor == 1:
        assert any(r.rule == "overCommitFactor" and f"{H200} 10 > 8 (request 4)" in r.text
                   for r in reasons(trace))
    if note:
        assert any(note in n for n in notes(trace))


# ---- preemptive ----------------------------------------------------------------------------------
def reclaim_cluster(card_args, *, quota=8, cpu="1", state="Open", queue_cap=None):
    return cluster(
        conf("reclaim", seed_tiers(card_args)), card_node(gpus=8),
        card_queue("inf", {H200: quota}, priority=80000, reclaimable=False, state=state,
                   capability=queue_cap or {"cpu": "1", "memory": "4Gi"}),
        card_queue("train", {H200: 8}, priority=20000, reclaimable=True),
        pg("t", "train", 1, phase="Running", service="training"),
        *[pod(f"t{i}", "t", gpus=2, node="n1") for i in range(4)],
        pg("i", "inf", 1, service="inference"), pod("i0", "i", gpus=2, cpu=cpu, preemptable="false"))


def test_preemptive_lets_a_reclaimer_within_its_quota_reclaim():
    res = run_cycle(reclaim_cluster(SEEDISH), write_back=False)
    assert len(res.evicted) == 1 and res.pipelined == {"c1/i": ["n1"]}


SEEDISH = {"cardUnlimitedCpuMemory": True, "podOwnerReferenceToServiceType": OWNER_MAP}


def test_preemptive_refuses_a_reclaimer_over_its_card_quota():
    trace = Trace()
    res = run_cycle(reclaim_cluster(SEEDISH, quota=1), trace, write_back=False)
    assert res.evicted == [] and res.pipelined == {}
    assert any(r.kind == "notPreemptive" for r in trace.records)
    assert any(r.rule == "reclaimerCardQuota" and "insufficient" in r.text for r in reasons(trace))


def test_preemptive_refuses_a_queue_that_is_not_open():
    trace = Trace()
    assert run_cycle(reclaim_cluster(SEEDISH, state="Closed"), trace, write_back=False).evicted == []
    assert any(r.rule == "queueState" for r in reasons(trace))


def test_preemptive_cpu_for_card_pods_follows_card_unlimited_unless_switched():
    """cpu 3 against a capability of 1: free with cardUnlimitedCpuMemory; the literal reading refuses it."""
    assert len(run_cycle(reclaim_cluster(SEEDISH, cpu="3"), write_back=False).evicted) == 1
    strict = {**SEEDISH, "capacitylab.preemptiveChecksCardCpuMemory": True}
    trace = Trace()
    assert run_cycle(reclaim_cluster(strict, cpu="3"), trace, write_back=False).evicted == []
    assert any(r.rule == "reclaimerCpuQuota" for r in reasons(trace))
    assert run_cycle(reclaim_cluster({**SEEDISH, "cardUnlimitedCpuMemory": False}, cpu="3"),
                     write_back=False).evicted == []


# ---- node order, multi-card accounting, queue order ---------------------------------------------------
def test_node_order_prefers_the_left_most_card_type():
    c = cluster(alloc_conf({"nodeOrderWeight": 2}), card_node("a", product="NVIDIA-A100"),
                card_node("h", product="NVIDIA-H100"), card_node("v", product="NVIDIA-V100"),
                card_queue("q", {"NVIDIA-A100": 8, "NVIDIA-H100": 8}), pg("j", "q"),
                pod("multi", "j", gpus=1, card="NVIDIA-A100|NVIDIA-H100"),
                pod("single", "j", gpus=1, card="NVIDIA-A100"))
    ssn, plugin = plugin_of(c)
    multi = next(t for t in ssn.all_tasks.values() if t.name == "multi")
    single = next(t for t in ssn.all_tasks.values() if t.name == "single")
    assert {n.name: plugin.node_order(multi, n) for n in ssn.node_list} == {"a": 200.0, "h": 100.0, "v": 0.0}
    assert plugin.node_order(single, ssn.nodes["a"]) == 0.0


def test_a_multi_card_pod_counts_against_the_card_of_its_node():
    c = cluster(alloc_conf(), card_node("h", product="NVIDIA-H100", gpus=8),
                card_queue("q", {"NVIDIA-A100": 2, "NVIDIA-H100": 2}, capability={"cpu": "4", "memory": "4Gi"}),
                pg("j", "q"), pod("m", "j", gpus=2, card="NVIDIA-A100|NVIDIA-H100"))
    ssn, plugin = plugin_of(c)
    task = next(iter(ssn.all_tasks.values()))
    req, err = plugin.task_request(task)
    assert err == "no node offers card type 'NVIDIA-A100' (no node label */*.product with that value)"
    # only H100 nodes exist: the first card type is not known anywhere, so Go's lookup fails
    c2 = cluster(alloc_conf(), card_node("a", product="NVIDIA-A100", gpus=1), card_node("h", product="NVIDIA-H100"),
                 card_queue("q", {"NVIDIA-A100": 2, "NVIDIA-H100": 2}, capability={"cpu": "4", "memory": "4Gi"}),
                 pg("j", "q"), pod("m", "j", gpus=2, card="NVIDIA-A100|NVIDIA-H100"))
    res = run_cycle(c2, write_back=False)
    assert res.binds == {"c1/m": "h"}
    assert res.queues["q"]["allocated"].get("NVIDIA-H100") == 2 * K


def test_queue_order_is_priority_first_then_share():
    c = cluster(alloc_conf(), card_node(), card_queue("low", {H200: 8}, priority=1),
                card_queue("high", {H200: 8}, priority=9), pg("a", "low"), pg("b", "high"))
    ssn, plugin = plugin_of(c)
    assert plugin.queue_order(ssn.queues["high"], ssn.queues["low"]) == -1
    assert ssn.queue_order_fn(ssn.queues["high"], ssn.queues["low"])


def test_session_close_reports_card_quota_and_usage_per_queue():
    c = cluster(alloc_conf(), card_node(), card_queue("q", {H200: 4}, capability={"cpu": "2", "memory": "4Gi"}),
                pg("j", "q", phase="Running"), pod("p", "j", gpus=1, node="n1"))
    q = run_cycle(c, write_back=False).queues["q"]
    assert q["cardQuota"] == {H200: 4 * K} and q["allocated"][H200] == K and q["share"] == 0.25
    assert q["realCapability"]["cpu"] == 2000


# ---- the worked trace of spec §14.3 -----------------------------------------------------------------
def test_worked_trace_14_3_capacity_card_reclaim_with_service_types():
    """Tiers built in code: only capacity-card has Reclaimable, gang JobStarving; p3 is the only victim."""
    card_args = {"cardUnlimitedCpuMemory": True, "podOwnerReferenceToServiceType": OWNER_MAP}
    tiers = [[code_plugin("priority", "enableJobOrder", "enableTaskOrder"),
              code_plugin("gang", "enableJobStarving"), code_plugin("conformance"), code_plugin("drf"),
              code_plugin("predicates"), code_plugin("capacity-card", "enableReclaimable", **card_args)]]
    quota = '{"NVIDIA-H200":8, "NVIDIA-H20":8}'
    cap = {"cpu": "10", "memory": "10Gi"}
    label_true = {"volcano.sh/preemptable": "true"}

    def p(name, group, gpus, queue, service, preemptable, node="n1"):
        return pod(name, group, gpus=gpus, node=node, labels=label_true, preemptable=preemptable,
                   annotations={"volcano.sh/service.type": service, "scheduling.volcano.sh/queue-name": queue})

    c = cluster(
        conf("reclaim", tiers),
        priority_class("low-priority", 100), priority_class("mid-priority", 500), priority_class("high-priority", 1000),
        card_node("n1", gpus=8, cpu="40", memory="40Gi", pods="10"),
        card_queue("q-i", quota, reclaimable=False, capability=cap),
        card_queue("q-t", quota, reclaimable=False, capability=cap),
        card_queue("q-h", quota, reclaimable=True, capability=cap),
        pg("pg1", "q-i", service="inference", priority_class="mid-priority"),
        pg("pg2", "q-t", service="training", priority_class="low-priority"),
        pg("pg3", "q-h", service="training", priority_class="high-priority"),
        pg("pg4", "q-i", service="inference", priority_class="high-priority"),
        p("preemptee1-1", "pg1", 2, "q-i", "inference", "false"),
        p("preemptee1-2", "pg2", 4, "q-t", "training", "false"),
        p("preemptee2-1", "pg3", 2, "q-h", "training", "true"),
        p("preemptor1", "pg4", 2, "q-i", "inference", "false", node=""),
    )
    trace = Trace()
    res = run_cycle(c, trace, write_back=False)
    assert res.evicted == ["c1/preemptee2-1"]
    assert res.pipelined == {"c1/pg4": ["n1"]}
    vote = next(r for r in trace.records if r.kind == "reclaimableVote")
    assert vote.plugin == "capacity-card" and vote.verdict == ["c1/preemptee2-1"]  # p1 same queue, p2 not preemptable
    assert [x.rule for x in vote.reasons] == ["inferenceReclaimsTraining"]
