"""Seed 001's tidal policy: who may reclaim whom, service types, gang-safe eviction, traps, the fixture."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from capacity.analysis.explain import explain_pod
from capacity.core import service_type as st
from capacity.core.trace import Trace
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import run_cycle, simulate
from tests.unit.test_capacity_card_builders import (
    H200,
    OWNER_MAP,
    card_node,
    card_queue,
    cluster,
    conf,
    notes,
    pg,
    pod,
    reasons,
    seed_tiers,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "tidal.yaml"
I, T, U = st.INFERENCE, st.TRAINING, st.UNKNOWN


# ---- the policy table --------------------------------------------------------------------------
@pytest.mark.parametrize(("reclaimer", "reclaimee", "allowed", "rule"), [
    (I, T, True, "inferenceReclaimsTraining"),
    (I, I, False, "inferenceNeverVictim"),
    (I, U, False, "unknownNeverVictim"),
    (T, T, False, "trainingNeverReclaims"),
    (T, I, False, "trainingNeverReclaims"),
    (T, U, False, "trainingNeverReclaims"),
    (U, T, True, "unknownReclaimerReclaims"),
    (U, I, False, "inferenceNeverVictim"),
    (U, U, False, "unknownNeverVictim"),
])
def test_who_may_reclaim_whom(reclaimer, reclaimee, allowed, rule):
    v = st.may_reclaim(reclaimer, reclaimee)
    assert (v.allowed, v.rule) == (allowed, rule)
    assert bool(v.quirk) == (rule == "unknownReclaimerReclaims")


def test_unknown_reclaimers_can_be_stopped_by_switch():
    v = st.may_reclaim(U, T, unknown_reclaimer_reclaims=False)
    assert (v.allowed, v.rule) == (False, "unknownReclaimerBlocked")


# ---- service types -------------------------------------------------------------------------------
@pytest.mark.parametrize(("annotations", "owner", "owner_map", "kind", "source"), [
    ({"volcano.sh/service.type": "inference"}, "Job", OWNER_MAP, I, "PodGroup annotation"),
    ({"volcano.sh/service.type": "training"}, "ReplicaSet", OWNER_MAP, T, "PodGroup annotation"),
    ({}, "ReplicaSet", OWNER_MAP, I, "owner kind ReplicaSet"),
    ({}, "Job", OWNER_MAP, T, "owner kind Job"),
    ({}, "StatefulSet", OWNER_MAP, U, "not in podOwnerReferenceToServiceType"),
    ({}, "", OWNER_MAP, U, "has no owner"),
    ({}, "Job", {}, U, "no podOwnerReferenceToServiceType"),
    ({"volcano.sh/service.type": "batch"}, "Job", OWNER_MAP, U, "neither inference nor training"),
    ({}, "Job", {"Job": "offline"}, U, "maps to 'offline'"),
    (None, "Job", OWNER_MAP, U, "no PodGroup"),
])
def test_service_type_annotation_then_owner_kind_then_unknown(annotations, owner, owner_map, kind, source):
    got = st.resolve(annotations, owner, owner_map)
    assert got.kind == kind and source in got.source


def test_owner_map_must_be_a_mapping():
    assert st.parse_owner_map(["ReplicaSet"])[0] == {} and "mapping" in st.parse_owner_map(["x"])[1]
    assert st.parse_owner_map({"Job": "training", "X": 1}) == ({"Job": "training"}, st.parse_owner_map(
        {"X": 1})[1])


# ---- the policy in the reclaim action ----------------------------------------------------------------
def tidal(*objs, card_args=None, gang=None, conformance=None, actions="enqueue, allocate, backfill, reclaim"):
    return cluster(conf(actions, seed_tiers(card_args, gang, conformance)), card_node(gpus=8), *objs)


def queues():
    return [card_queue("inf", {H200: 8}, priority=80000, reclaimable=False),
            card_queue("train", {H200: 8}, priority=20000, reclaimable=True),
            card_queue("train-b", {H200: 8}, priority=20000, reclaimable=True)]


def full_training(queue="train", name="t", service="training", **kw):
    """A running 2 x 4-GPU gang filling the node (minMember = replicas)."""
    return [pg(name, queue, 2, phase="Running", service=service, **kw),
            pod(f"{name}-w1-0", name, gpus=4, node="n1"), pod(f"{name}-w2-0", name, gpus=4, node="n1")]


def run(c):
    trace = Trace()
    return run_cycle(c, trace, write_back=False), trace


def test_inference_reclaims_training():
    res, trace = run(tidal(*queues(), *full_training(), pg("i", "inf", service="inference"), pod("i0", "i", gpus=2)))
    assert res.evicted == ["c1/t-w2-0"] and res.pipelined == {"c1/i": ["n1"]}
    assert {r.rule for r in reasons(trace)} >= {"inferenceReclaimsTraining"}


def test_training_never_reclaims_training():
    res, trace = run(tidal(*queues(), *full_training(), pg("u", "train-b", service="training"), pod("u0", "u", gpus=2)))
    assert res.evicted == [] and res.pipelined == {}
    kept = [r for r in reasons(trace) if r.rule == "trainingNeverReclaims"]
    assert {r.values["task"] for r in kept} == {"c1/t-w1-0", "c1/t-w2-0"}


def test_training_never_reclaims_inference_even_in_a_reclaimable_queue():
    hybrid = card_queue("hybrid", {H200: 8}, priority=50000, reclaimable=True)
    objs = [*queues(), hybrid, *full_training("hybrid", "serving", service="inference"),
            pg("u", "train-b", service="training"), pod("u0", "u", gpus=2)]
    res, trace = run(tidal(*objs))
    assert res.evicted == [] and any(r.rule == "trainingNeverReclaims" for r in reasons(trace))


def test_inference_never_evicts_inference_in_a_hybrid_queue():
    hybrid = card_queue("hybrid", {H200: 8}, priority=50000, reclaimable=True)
    objs = [*queues(), hybrid, *full_training("hybrid", "serving", service="inference"),
            pg("i", "inf", service="inference"), pod("i0", "i", gpus=2)]
    res, trace = run(tidal(*objs))
    assert res.evicted == []
    assert {r.values["task"] for r in reasons(trace) if r.rule == "inferenceNeverVictim"} == {
        "c1/serving-w1-0", "c1/serving-w2-0"}


def test_unknown_service_types_are_never_victims():
    """No annotation and an owner kind the map does not know (StatefulSet): unknown, kept."""
    objs = [*queues(), pg("s", "train", 2, phase="Running"),
            pod("s-0", "s", gpus=4, node="n1", owner="StatefulSet"),
            pod("s-1", "s", gpus=4, node="n1", owner="StatefulSet"),
            pg("i", "inf", service="inference"), pod("i0", "i", gpus=2)]
    res, trace = run(tidal(*objs))
    assert res.evicted == []
    kept = [r for r in reasons(trace) if r.rule == "unknownNeverVictim"]
    assert kept and "StatefulSet is not in podOwnerReferenceToServiceType" in kept[0].text


def test_an_unknown_reclaimer_takes_training_as_the_seed_code_does_unless_switched_off():
    objs = [*queues(), *full_training(), pg("b", "train-b"), pod("bare", "b", gpus=2)]
    res, trace = run(tidal(*objs))
    assert res.evicted == ["c1/t-w2-0"]
    why = next(r for r in reasons(trace) if r.rule == "unknownReclaimerReclaims")
    assert "§13.3 item 3" in why.quirk
    args = {"cardUnlimitedCpuMemory": True, "podOwnerReferenceToServiceType": OWNER_MAP,
            "capacitylab.unknownReclaimerReclaims": False}
    res, trace = run(tidal(*objs, card_args=args))
    assert res.evicted == [] and any(r.rule == "unknownReclaimerBlocked" for r in reasons(trace))


def test_owner_kinds_decide_without_annotations():
    """A Deployment's pods are owned by its ReplicaSet (inference); vcjob pods by a Job (training)."""
    objs = [*queues(), pg("t", "train", 2, phase="Running"),
            pod("t-0", "t", gpus=4, node="n1", owner="Job"), pod("t-1", "t", gpus=4, node="n1", owner="Job"),
            pg("i", "inf"), pod("i0", "i", gpus=2, owner="ReplicaSet")]
    res, _ = run(tidal(*objs))
    assert res.evicted == ["c1/t-1"]


def test_a_non_reclaimable_queue_and_a_non_preemptable_pod_are_never_candidates():
    objs = [card_queue("inf", {H200: 8}, priority=80000, reclaimable=False),
            card_queue("locked", {H200: 8}, priority=20000, reclaimable=False),
            card_queue("train", {H200: 8}, priority=20000, reclaimable=True),
            pg("a", "locked", phase="Running", service="training"), pod("a0", "a", gpus=4, node="n1"),
            pg("b", "train", phase="Running", service="training"),
            pod("b0", "b", gpus=4, node="n1", preemptable="false", labels={"volcano.sh/preemptable": "true"}),
            pg("i", "inf", service="inference"), pod("i0", "i", gpus=2)]
    res, trace = run(tidal(*objs))
    assert res.evicted == [] and not any(r.kind == "reclaimableVote" for r in trace.records)


def test_higher_priority_inference_queue_is_served_first():
    """Only one 4-GPU training pod may go; the 80000 queue's job gets it, not the 60000 one."""
    objs = [card_queue("inf-high", {H200: 8}, priority=80000, reclaimable=False),
            card_queue("inf-low", {H200: 8}, priority=60000, reclaimable=False),
            card_queue("train", {H200: 8}, priority=20000, reclaimable=True),
            pg("t", "train", 1, phase="Running", service="training"),
            pod("t0", "t", gpus=4, node="n1"), pod("t1", "t", gpus=4, node="n1", preemptable="false"),
            pg("low", "inf-low", service="inference"), pod("low0", "low", gpus=4),
            pg("high", "inf-high", service="inference"), pod("high0", "high", gpus=4)]
    res, _ = run(tidal(*objs))
    assert res.evicted == ["c1/t0"] and list(res.pipelined) == ["c1/high"]


def test_lower_priority_training_queue_is_evicted_first():
    objs = [card_queue("inf", {H200: 8}, priority=80000, reclaimable=False),
            card_queue("train-20k", {H200: 8}, priority=20000, reclaimable=True),
            card_queue("train-10k", {H200: 8}, priority=10000, reclaimable=True),
            pg("a", "train-20k", phase="Running", service="training"), pod("a0", "a", gpus=4, node="n1"),
            pg("b", "train-10k", phase="Running", service="training"), pod("b0", "b", gpus=4, node="n1"),
            pg("i", "inf", service="inference"), pod("i0", "i", gpus=4)]
    res, _ = run(tidal(*objs))
    assert res.evicted == ["c1/b0"]


# ---- whole-job eviction at plugin level ----------------------------------------------------------------
def test_the_victim_set_is_the_whole_gang_and_its_reason_names_the_pod_evicted_policy():
    res, trace = run(tidal(*queues(), *full_training(), pg("i", "inf", service="inference"), pod("i0", "i", gpus=2)))
    vote = next(r for r in trace.records if r.kind == "reclaimableVote" and r.plugin == "capacity-card")
    assert sorted(vote.verdict) == ["c1/t-w1-0", "c1/t-w2-0"]   # every pod of the gang may go
    assert res.evicted == ["c1/t-w2-0"]                        # reclaim stops as soon as the request fits
    assert res.podgroup_phases["c1/t"] == "Running"            # §13.3 item 7: half a gang, still Running
    assert all("only the job's PodEvicted policy, AbortJob or RestartJob, keeps the gang whole" in r.text
               for r in vote.reasons)


def test_a_bigger_reclaimer_takes_the_whole_gang():
    res, _ = run(tidal(*queues(), *full_training(), pg("i", "inf", service="inference"), pod("i0", "i", gpus=8)))
    assert sorted(res.evicted) == ["c1/t-w1-0", "c1/t-w2-0"]


def test_with_gang_reclaimable_on_an_empty_gang_answer_does_not_veto_the_plugin():
    """minMember = replicas leaves gang no surplus: its [] ends tier 1 only, capacity-card in tier 2 decides."""
    res, _ = run(tidal(*queues(), *full_training(), pg("i", "inf", service="inference"), pod("i0", "i", gpus=2),
                       gang={"enableReclaimable": True}))
    assert res.evicted == ["c1/t-w2-0"]


def test_conformance_reclaimable_on_bypasses_the_service_type_policy_and_the_plugin_says_so():
    """An elastic training job (minMember 1, two pods): gang passes its surplus, conformance everything, tier 1
    decides, and a training reclaimer evicts training: the trap the seed avoids with enableReclaimable: false."""
    objs = [*queues(), pg("t", "train", 1, phase="Running", service="training"),
            pod("t0", "t", gpus=4, node="n1"), pod("t1", "t", gpus=4, node="n1"),
            pg("u", "train-b", service="training"), pod("u0", "u", gpus=4)]
    seed, _ = run(tidal(*objs))
    assert seed.evicted == []
    res, trace = run(tidal(*objs, gang={"enableReclaimable": True}, conformance={"enableReclaimable": True}))
    assert res.evicted == ["c1/t1"]
    assert any("gang in tier 1 has enableReclaimable on" in n for n in notes(trace))
    assert any(r.kind == "reclaimableResult" and "not consulted" in r.detail.get("quirk", "") for r in trace.records)


# ---- traps -------------------------------------------------------------------------------------------
def test_preemptable_on_workload_metadata_reaches_the_podgroup_not_the_pods_and_the_reason_says_so():
    hybrid = card_queue("train", {H200: 8}, priority=20000, reclaimable=True)
    objs = [card_queue("inf", {H200: 8}, priority=80000, reclaimable=False), hybrid,
            pg("d", "train", phase="Running", annotations={"volcano.sh/preemptable": "false"}, service="training"),
            pod("d0", "d", gpus=8, node="n1", preemptable=None),
            pg("i", "inf", service="inference"), pod("i0", "i", gpus=2)]
    res, trace = run(tidal(*objs))
    assert res.evicted == ["c1/d0"]
    why = next(r for r in reasons(trace) if r.values.get("task") == "c1/d0")
    assert "reaches the PodGroup but never the pods" in why.text


def test_job_starving_with_gang_blocks_inference_scale_out_and_the_plugin_names_the_trap():
    """A Deployment's PodGroup (minMember 1) with one replica running: its second replica never reclaims."""
    objs = [*queues(), *full_training(), pg("i", "inf", 1, phase="Running", service="inference"),
            pod("i0", "i", gpus=0, node="n1", card=None), pod("i1", "i", gpus=2)]
    res, trace = run(tidal(*objs))
    assert res.evicted == []
    assert any("trap: JobStarving with gang" in n for n in notes(trace))
    fixed, _ = run(tidal(*objs, gang={"enableJobStarving": False}))
    assert fixed.evicted == ["c1/t-w2-0"]


def test_gangreclaim_is_flagged_as_outside_the_policy():
    c = tidal(*queues(), actions="enqueue, allocate, reclaim, gangreclaim")
    trace = Trace()
    run_cycle(c, trace, write_back=False)
    assert any("gangreclaim" in n and "does not apply" in n for n in notes(trace))


# ---- the fixture ---------------------------------------------------------------------------------------
def test_fixture_shape_follows_the_seed_tables():
    c = load_cluster_file(str(FIXTURE))
    assert {q.name: (q.priority, q.reclaimable) for q in c.queues.values()} == {
        "queue-inference": (80000, False), "queue-training": (20000, True), "queue-training-b": (20000, True)}
    assert sum(n.allocatable.get("nvidia.com/gpu") for n in c.nodes) == 8000
    train = c.podgroups["ai/training-low"]
    pods = [p for p in c.pods.values() if p.group == "training-low"]
    assert train.min_member == len(pods) == 2
    assert json.loads(train.annotations["capacity-lab/policies"]) == [{"event": "PodEvicted", "action": "RestartJob"}]
    card = c.conf.plugin("capacity-card")
    assert card is not None and card.arguments["overCommitFactor"] == 2
    assert not c.conf.plugin("gang").enabled("reclaimable") and not c.conf.plugin("conformance").enabled("reclaimable")
    assert c.warnings == [] and c.conf.warnings == []


def test_fixture_inference_reclaims_one_training_worker_and_training_reclaims_nothing():
    c = load_cluster_file(str(FIXTURE))
    before = copy.deepcopy(c)
    trace = Trace()
    out = simulate(c, 1, trace).as_json()
    assert out["evicted"] == ["ai/training-low-worker2-0"] and out["binds"] == {}
    assert out["pipelined"] == {"ai/podgroup-inference-high-7d9f": ["gpu-node-1"]}
    assert out["podgroupPhases"]["ai/training-urgent"] == "Inqueue"
    exp = explain_pod(trace.records, before, "ai/inference-high-7d9f-x2k4p")
    assert (exp.outcome, exp.rule) == ("pipelined", "capacity-card.reclaimerCardQuota")
    exp = explain_pod(trace.records, before, "ai/training-low-worker2-0")
    assert (exp.outcome, exp.rule) == ("evicted", "capacity-card.inferenceReclaimsTraining")
    exp = explain_pod(trace.records, before, "ai/training-low-worker1-0")
    assert (exp.outcome, exp.rule) == ("running", "capacity-card.trainingNeverReclaims")


def test_fixture_leaves_no_training_job_half_running_once_the_controller_reacts():
    """The PodEvicted policy (RestartJob) is the simulator's; here only that the fixture wires it up."""
    from capacity.simulation.sim import Simulator, pod_state
    sim = Simulator(load_cluster_file(str(FIXTURE)))
    sim.run(4)
    states = {k: pod_state(p) for k, p in sim.cluster.pods.items()}
    low = [s for k, s in states.items() if k.startswith("ai/training-low-")]
    assert len(low) == 2 and len(set(low)) == 1, states   # both workers in the same state: the gang is whole
    assert states["ai/inference-high-7d9f-x2k4p"] == "Running"


def test_fixture_cli_text_and_explain():
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "capacity", *args], capture_output=True, text=True, cwd=ROOT,
                              check=True).stdout
    text = cli("simulate", str(FIXTURE), "--format", "text")
    assert "evicted (1):\n  ai/training-low-worker2-0" in text
    assert "ai/podgroup-inference-high-7d9f on gpu-node-1" in text
    assert "rule: capacity-card.reclaimerCardQuota" in cli("explain", str(FIXTURE), "--pod",
                                                           "ai/inference-high-7d9f-x2k4p", "--verbose")
