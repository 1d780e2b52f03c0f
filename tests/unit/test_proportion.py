"""The proportion plugin (shared/spec/queue-plugins.md §5, actions-framework §9.6 and §14.1), pinned by
the spec's worked numbers: seed 002 cases 1-3 (§5.2 and §6.5), the §14.1 reclaim trace, and the rules
a re-implementation tends to get wrong (no best-effort share, Allocatable against deserved, Overused and
Reclaimable counting pods, enqueue against realCapability)."""

from __future__ import annotations

import pytest

from capacity.core.resources import Resource
from capacity.framework.session import PERMIT, REJECT
from capacity.plugins.proportion import semantic_equal
from capacity.scheduler import open_session, run_cycle
from tests.builders import cluster, conf, node, pod, podgroup, queue

GI = 1024**3
PROP = {"name": "proportion"}
DEFAULT_TIERS = ([{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}],
                 [{"name": "drf"}, {"name": "predicates"}, PROP, {"name": "nodeorder"}])
PREEMPTABLE = {"labels": {"volcano.sh/preemptable": "true"}}
KEEP = {"labels": {"volcano.sh/preemptable": "false"}}


def prop(c):
    return open_session(c).plugins["proportion"]


def _seed002(weights: tuple[int, int], jobs: dict[str, tuple[str, int]]):
    """16 cpu, one PodGroup per namespace made of 1-cpu tasks (memory not requested)."""
    objs = [conf("enqueue, allocate, backfill", *DEFAULT_TIERS), node("n1", cpu="16", memory="64Gi"),
            queue("q1", weight=weights[0]), queue("q2", weight=weights[1])]
    for ns, (q, n) in jobs.items():
        objs.append(podgroup("pg", q, ns=ns, phase="Pending"))
        objs.extend(pod(f"{ns}-task-{i}", "pg", {"cpu": "1"}, ns=ns) for i in range(n))
    return cluster(*objs)


def _binds_per_namespace(result) -> dict[str, int]:
    out: dict[str, int] = {}
    for key in result.binds:
        ns = key.split("/")[0]
        out[ns] = out.get(ns, 0) + 1
    return out


# ---- §5.2 / §6.5: seed 002 queue-level numbers ----------------------------------------------------

def test_seed002_case1_equal_weights_give_8_and_8() -> None:
    c = _seed002((1, 1), {"ns1": ("q1", 5), "ns2": ("q1", 10), "ns3": ("q2", 10), "ns4": ("q2", 2)})
    a = prop(c).attrs
    assert (a["q1"].deserved.cpu, a["q2"].deserved.cpu) == (8000, 8000)
    # memory is not requested, so the request clamp (Zero) hands it all back; pods = requested count
    assert a["q1"].deserved.memory == 0 and a["q2"].deserved.memory == 0
    assert (a["q1"].deserved.get("pods"), a["q2"].deserved.get("pods")) == (15, 12)
    # HEAD namespace split (drf job order inside each queue), §6.5 table
    assert _binds_per_namespace(run_cycle(c)) == {"ns1": 4, "ns2": 4, "ns3": 6, "ns4": 2}


def test_seed002_case2_weights_1_to_3_give_4_and_12() -> None:
    c = _seed002((1, 3), {"ns1": ("q1", 5), "ns2": ("q1", 10), "ns3": ("q2", 10), "ns4": ("q2", 2)})
    p = prop(c)
    assert (p.attrs["q1"].deserved.cpu, p.attrs["q2"].deserved.cpu) == (4000, 12000)
    # q2 (requests exactly 12) is met in round 1; q1 is met in round 2 because it stopped growing
    assert p.rounds[0]["queues"]["q2"]["met"] == "request satisfied"
    assert p.rounds[1]["queues"]["q1"]["met"] == "deserved stopped growing (capped)"
    assert _binds_per_namespace(run_cycle(c)) == {"ns1": 2, "ns2": 2, "ns3": 10, "ns4": 2}


def test_seed002_case3_queue_without_jobs_gets_nothing_so_q2_takes_16() -> None:
    c = _seed002((1, 3), {"ns1": ("q2", 5), "ns2": ("q2", 20)})
    a = prop(c).attrs
    assert set(a) == {"q2"}  # attributes only for queues with jobs
    assert a["q2"].deserved.cpu == 16000
    assert _binds_per_namespace(run_cycle(c)) == {"ns1": 5, "ns2": 11}


def test_seed002_case3_variant_empty_job_in_q1_is_met_at_zero() -> None:
    objs = [conf("allocate", [PROP]), node("n1", cpu="16", memory="64Gi"),
            queue("q1", weight=1), queue("q2", weight=3), podgroup("empty", "q1", ns="ns0"),
            podgroup("pg", "q2", ns="ns1")]
    objs.extend(pod(f"t-{i}", "pg", {"cpu": "1"}) for i in range(25))
    p = prop(cluster(*objs))
    q1, q2 = p.attrs["q1"], p.attrs["q2"]
    assert (q1.deserved.cpu, q1.deserved.memory, q1.deserved.scalars) == (0, 0, {"pods": 0})
    assert p.rounds[0]["queues"]["q1"]["met"] == "request satisfied"
    assert p.rounds[0]["queues"]["q2"]["deserved"]["cpu"] == 12000
    assert q2.deserved.cpu == 16000 and q2.share == 0


# ---- §14.1: reclaim from an over-using queue ----------------------------------------------------

def _reclaim_141():
    return cluster(
        conf("reclaim", [{"name": "conformance"}, {"name": "gang", "enableJobPipelined": False},
                         {"name": "proportion", "enabledOverused": False}]),
        node("n1", cpu="3", memory="3Gi", pods="10"),
        queue("q1"), queue("q2"),
        podgroup("pg1", "q1", ns="c1"), podgroup("pg2", "q2", ns="c1"),
        pod("preemptee1", "pg1", {"cpu": "1", "memory": "1G"}, node_name="n1", ns="c1", **KEEP),
        pod("preemptee2", "pg1", {"cpu": "1", "memory": "1G"}, node_name="n1", ns="c1", **PREEMPTABLE),
        pod("preemptee3", "pg1", {"cpu": "1", "memory": "1G"}, node_name="n1", ns="c1", **KEEP),
        pod("preemptor1", "pg2", {"cpu": "1", "memory": "1G"}, ns="c1"),
    )


def test_worked_trace_141_deserved_and_shares() -> None:
    p = prop(_reclaim_141())
    q1, q2 = p.attrs["q1"], p.attrs["q2"]
    # round 1: both get (1500m, 1.5Gi, pods 5), clamped to their requests; q2 is met
    assert p.rounds[0]["queues"]["q1"]["deserved"] == {"cpu": 1500, "memory": 1.5 * GI, "pods": 3}
    assert p.rounds[0]["queues"]["q2"]["met"] == "request satisfied"
    # remaining after round 1: (500m, 3Gi - 1.5Gi - 1e9 B, pods 6)
    assert p.rounds[1]["remaining"] == {"cpu": 500, "memory": 3 * GI - 1.5 * GI - 1e9, "pods": 6}
    assert (q1.deserved.cpu, q1.deserved.memory, q1.deserved.get("pods")) == (2000, 2 * GI - 1e9 + GI, 3)
    assert q1.deserved.memory / GI == pytest.approx(2.0687, abs=1e-4)
    assert (q2.deserved.cpu, q2.deserved.memory, q2.deserved.get("pods")) == (1000, 1e9, 1)
    assert len(p.rounds) == 2  # cpu and memory are used up; pods left over do not keep it going
    assert q1.share == 1.5 and q2.share == 0


def test_worked_trace_141_reclaim_evicts_the_preemptable_pod() -> None:
    result = run_cycle(_reclaim_141())
    assert result.evicted == ["c1/preemptee2"]
    assert result.pipelined == {"c1/pg2": ["n1"]}


# ---- deserved details ---------------------------------------------------------------------------

def test_spec_deserved_is_ignored_and_guarantee_raises_deserved() -> None:
    c = cluster(conf("allocate", [PROP]), node("n1", cpu="10", memory="10Gi"),
                queue("a", deserved={"cpu": "9"}, guarantee={"cpu": "6"}), queue("b"),
                podgroup("pa", "a"), podgroup("pb", "b"),
                pod("a1", "pa", {"cpu": "1"}), pod("b1", "pb", {"cpu": "8"}), pod("b2", "pb", {"cpu": "1"}))
    a = prop(c).attrs
    # a requests 1 cpu but is raised to its 6-cpu guarantee; b gets the rest of its 9-cpu request cap
    assert a["a"].deserved.cpu == 6000
    assert a["b"].real_capability.cpu == 4000  # (10 - 6 guaranteed) + 0 own guarantee
    assert a["b"].deserved.cpu == 4000


def test_capability_caps_deserved_and_the_rest_goes_to_the_other_queue() -> None:
    c = cluster(conf("allocate", [PROP]), node("n1", cpu="12", memory="12Gi"),
                queue("a", capability={"cpu": "2"}), queue("b"),
                podgroup("pa", "a"), podgroup("pb", "b"),
                pod("a1", "pa", {"cpu": "6"}), pod("b1", "pb", {"cpu": "12"}))
    p = prop(c)
    assert p.attrs["a"].real_capability.memory == 12 * GI  # capability memory unset -> unlimited
    assert p.attrs["a"].deserved.cpu == 2000
    assert p.attrs["b"].deserved.cpu == 10000


def test_semantic_equality_nil_map_equals_empty_but_zero_key_differs() -> None:
    assert semantic_equal(Resource(1, 2, None), Resource(1, 2, {}))
    assert not semantic_equal(Resource(1, 2, {"nvidia.com/gpu": 0}), Resource(1, 2, {}))
    assert not semantic_equal(Resource(1, 2, None), Resource(1, 2.0000000001, None))


# ---- share, order, overused -----------------------------------------------------------------------

def test_share_has_no_best_effort_rule_and_counts_pods() -> None:
    c = cluster(conf("allocate", [PROP]), node("n1", cpu="10", memory="10Gi"),
                queue("a"), podgroup("pa", "a"),
                pod("a1", "pa", {"cpu": "1"}, node_name="n1"), pod("a2", "pa", {"cpu": "1"}))
    p = prop(c)
    a = p.attrs["a"]
    assert a.deserved.cpu == 2000 and a.deserved.get("pods") == 2
    assert a.share == 0.5  # cpu 1/2 and pods 1/2
    a.deserved = Resource.empty()
    from capacity.plugins.proportion import update_share
    update_share(a)
    assert a.share == 0  # empty deserved: front of the queue (capacity would say 1)


def test_queue_order_priority_then_share() -> None:
    c = cluster(conf("allocate", [PROP]), node("n1", cpu="10", memory="10Gi"),
                queue("hi", priority=5), queue("lo"), queue("lo2"),
                podgroup("ph", "hi"), podgroup("pl", "lo"), podgroup("pl2", "lo2"),
                pod("h1", "ph", {"cpu": "3"}, node_name="n1"),
                pod("l1", "pl", {"cpu": "1"}, node_name="n1"), pod("l2", "pl", {"cpu": "1"}),
                pod("m1", "pl2", {"cpu": "1"}))
    ssn = open_session(c)
    p = ssn.plugins["proportion"]
    q = ssn.queues
    assert p.attrs["hi"].share > p.attrs["lo"].share
    assert p.queue_order(q["hi"], q["lo"]) == -1  # priority beats share
    assert p.queue_order(q["lo2"], q["lo"]) == -1  # share 0 < 0.5
    assert p.queue_order(q["lo"], q["lo"]) == 0


def test_overused_needs_every_deserved_dimension_including_pods() -> None:
    c = cluster(conf("allocate", [PROP]), node("n1", cpu="4", memory="4Gi"),
                queue("a"), queue("b"), podgroup("pa", "a"), podgroup("pb", "b"),
                pod("a1", "pa", {"cpu": "2"}, node_name="n1"), pod("a2", "pa", {"cpu": "2"}),
                pod("b1", "pb", {"cpu": "2"}, node_name="n1"), pod("b2", "pb", {"cpu": "2"}))
    ssn = open_session(c)
    p = ssn.plugins["proportion"]
    a = p.attrs["a"]
    assert (a.deserved.cpu, a.allocated.cpu) == (2000, 2000)  # at its cpu share...
    assert (a.deserved.get("pods"), a.allocated.get("pods")) == (2, 1)  # ...but not at its pods share
    assert not p.overused(ssn.queues["a"])
    a.allocated.add_scalar("pods", 1)
    assert p.overused(ssn.queues["a"])


# ---- allocatable / preemptive ----------------------------------------------------------------------

def test_allocatable_checks_deserved_on_requested_dimensions_only() -> None:
    c = cluster(conf("allocate", [PROP]), node("n1", cpu="4", memory="8Gi"),
                queue("a"), queue("b"), podgroup("pa", "a"), podgroup("pb", "b"),
                pod("a1", "pa", {"cpu": "3", "memory": "6Gi"}, node_name="n1"),
                pod("a2", "pa", {"cpu": "1"}), pod("a3", "pa", {"memory": "1Gi"}),
                pod("b1", "pb", {"cpu": "2", "memory": "1Gi"}))
    ssn = open_session(c)
    p = ssn.plugins["proportion"]
    a = p.attrs["a"]
    assert (a.deserved.cpu, a.deserved.memory) == (2000, 7 * GI)
    assert a.allocated.cpu == 3000  # already above its cpu share
    tasks = {t.name: t for t in ssn.all_tasks.values()}
    assert not p.allocatable(ssn.queues["a"], tasks["a2"])  # 3 + 1 cpu > 2 deserved
    assert p.allocatable(ssn.queues["a"], tasks["a3"])  # memory only: 6 + 1Gi fits 7Gi, cpu not looked at
    assert not p.preemptive(ssn.queues["a"], [tasks["a2"]])
    assert p.preemptive(ssn.queues["a"], [tasks["a3"]])
    a.allocated.memory += 0.05  # strict comparison: no 0.1 tolerance
    assert not p.allocatable(ssn.queues["a"], tasks["a3"])


def test_closed_queue_is_not_allocatable_nor_preemptive_and_rejects_enqueue() -> None:
    c = cluster(conf("enqueue", [PROP]), node("n1", cpu="4", memory="4Gi"),
                {**queue("a"), "status": {"state": "Closed"}},
                podgroup("pa", "a", phase="Pending", min_resources={"cpu": "1"}), pod("a1", "pa", {"cpu": "1"}))
    ssn = open_session(c)
    p = ssn.plugins["proportion"]
    task = next(iter(ssn.all_tasks.values()))
    assert not p.allocatable(ssn.queues["a"], task)
    assert not p.preemptive(ssn.queues["a"], [task])
    assert p.job_enqueueable(ssn.jobs["ns1/pa"]) == REJECT


# ---- reclaimable -----------------------------------------------------------------------------------

def _two_queue_reclaim():
    return cluster(conf("reclaim", [PROP]), node("n1", cpu="4", memory="4Gi", pods="4"),
                   queue("a"), queue("b"), podgroup("pa", "a"), podgroup("pb", "b"),
                   pod("a1", "pa", {"cpu": "1"}, node_name="n1"), pod("a2", "pa", {"cpu": "1"}, node_name="n1"),
                   pod("a3", "pa", {"cpu": "1"}, node_name="n1"), pod("b1", "pb", {"cpu": "1"}))


def test_reclaimable_takes_victims_in_given_order_until_within_deserved() -> None:
    ssn = open_session(_two_queue_reclaim())
    p = ssn.plugins["proportion"]
    a = p.attrs["a"]
    assert (a.deserved.cpu, a.deserved.get("pods")) == (3000, 3)  # b only wants 1 cpu
    t = {x.name: x for x in ssn.all_tasks.values()}
    # a is exactly at deserved: nothing may go
    assert p.reclaimable(t["b1"], [t["a1"], t["a2"], t["a3"]]) == ([], PERMIT)
    a.deserved = Resource(1500, 0, {"pods": 3})
    # above on cpu: the first one goes, then 2000 > 1500 still, the second goes, then 1000 <= 1500
    victims, vote = p.reclaimable(t["b1"], [t["a3"], t["a1"], t["a2"]])
    assert [v.name for v in victims] == ["a3", "a1"] and vote == PERMIT
    assert a.allocated.cpu == 3000  # the scratch copy, not the attribute, shrank


def test_reclaimable_counts_pods_even_if_no_cpu_is_over() -> None:
    ssn = open_session(_two_queue_reclaim())
    p = ssn.plugins["proportion"]
    a = p.attrs["a"]
    a.deserved = Resource(3000, 0, {"pods": 2})
    t = {x.name: x for x in ssn.all_tasks.values()}
    victims, _ = p.reclaimable(t["b1"], [t["a1"], t["a2"]])
    assert [v.name for v in victims] == ["a1"]  # pods 3 > 2, then 2 <= 2


# ---- enqueue ----------------------------------------------------------------------------------------

def test_enqueue_checks_real_capability_not_deserved_and_enqueued_reserves() -> None:
    c = cluster(conf("enqueue", [PROP]), node("n1", cpu="4", memory="4Gi"),
                queue("a", capability={"cpu": "3"}),
                podgroup("p1", "a", phase="Pending", min_resources={"cpu": "2500m"}),
                podgroup("p2", "a", phase="Pending", min_resources={"cpu": "2500m"}),
                pod("x1", "p1", {"cpu": "1"}), pod("x2", "p2", {"cpu": "1"}))
    ssn = open_session(c)
    p = ssn.plugins["proportion"]
    a = p.attrs["a"]
    assert a.real_capability.cpu == 3000 and a.deserved.cpu == 2000
    j1, j2 = ssn.jobs["ns1/p1"], ssn.jobs["ns1/p2"]
    assert p.job_enqueueable(j1) == PERMIT  # 2.5 <= 3 realCapability (deserved 2 would refuse)
    assert p.job_enqueueable(j2) == PERMIT  # enqueueable alone reserves nothing
    p.job_enqueued(j1)
    assert a.inqueue.cpu == 2500
    assert p.job_enqueueable(j2) == REJECT  # 2.5 + 2.5 > 3
    result = run_cycle(c)
    assert result.podgroup_phases == {"ns1/p1": "Inqueue", "ns1/p2": "Pending"}


def test_enqueue_without_min_resources_is_permitted() -> None:
    c = cluster(conf("enqueue", [PROP]), node("n1", cpu="1", memory="1Gi"), queue("a", capability={"cpu": "1"}),
                podgroup("p1", "a", phase="Pending"), pod("x1", "p1", {"cpu": "8"}))
    ssn = open_session(c)
    assert ssn.plugins["proportion"].job_enqueueable(ssn.jobs["ns1/p1"]) == PERMIT


# ---- events and session close ----------------------------------------------------------------------

def test_allocate_and_deallocate_events_move_allocated_and_share() -> None:
    c = cluster(conf("allocate", [PROP]), node("n1", cpu="4", memory="4Gi"),
                queue("a"), podgroup("pa", "a"), pod("a1", "pa", {"cpu": "2"}), pod("a2", "pa", {"cpu": "2"}))
    ssn = open_session(c)
    p = ssn.plugins["proportion"]
    a = p.attrs["a"]
    task = next(t for t in ssn.all_tasks.values() if t.name == "a1")
    assert a.share == 0
    ssn.fire_allocate(task)
    assert (a.allocated.cpu, a.share) == (2000, 0.5)
    ssn.fire_deallocate(task)
    assert (a.allocated.cpu, a.share) == (0, 0)


def test_session_close_reports_queue_summary() -> None:
    result = run_cycle(_reclaim_141())
    q1 = result.queues["q1"]
    assert q1["deserved"] == {"cpu": 2000, "memory": 2 * GI - 1e9 + GI, "pods": 3}
    assert set(q1) >= {"deserved", "allocated", "realCapability", "share", "capability", "guarantee",
                       "inqueue", "elastic", "request", "parent"}


@pytest.mark.parametrize(("b_min", "b_phase"), [("3", "Inqueue"), ("4", "Pending")])
def test_enqueue_counts_a_running_jobs_elastic_part_as_free(b_min: str, b_phase: str) -> None:
    """proportion's JobEnqueueable checks minResources + allocated + inqueue - elastic against the queue's
    realCapability: job a runs 2 cpu on a 1-cpu minimum, so 1 cpu is elastic and job b's 3 cpu still fit
    the queue's 4 (3 + 2 + 0 - 1), its 4 do not."""
    c = cluster(conf("enqueue", [{"name": "proportion"}]), node("n1", cpu="8"), queue("q", capability={"cpu": "4"}),
                podgroup("a", "q", phase="Running", min_resources={"cpu": "1"}),
                pod("a1", "a", {"cpu": "1"}, node_name="n1"), pod("a2", "a", {"cpu": "1"}, node_name="n1"),
                podgroup("b", "q", phase="Pending", min_resources={"cpu": b_min}), pod("b1", "b", {"cpu": b_min}))
    assert run_cycle(c).podgroup_phases["ns1/b"] == b_phase
