"""The drf plugin at HEAD (shared/spec/queue-plugins.md §6.1, actions-framework §9.8 and §10.1): job
shares against the whole cluster (pods and every scalar included), job order, the preemptable rule
with its 1e-6 tolerance and per-job cumulative scratch allocation, and the event handlers."""

from __future__ import annotations

import pytest

from capacity.core.resources import Resource
from capacity.framework.session import PERMIT
from capacity.plugins.drf import SHARE_DELTA, calculate_share
from capacity.scheduler import open_session
from tests.builders import cluster, conf, node, pod, podgroup, queue

DRF = {"name": "drf"}
GPU = "nvidia.com/gpu"


def drf(c):
    ssn = open_session(c)
    return ssn, ssn.plugins["drf"]


def tasks(ssn) -> dict[str, object]:
    return {t.name: t for t in ssn.all_tasks.values()}


# ---- share -----------------------------------------------------------------------------------------

def test_share_is_dominant_over_cluster_total_and_pods_count() -> None:
    c = cluster(conf("allocate", [DRF]), node("n1", cpu="10", memory="10Gi", pods="4"), queue("q"),
                podgroup("a", "q"), pod("a1", "a", {"cpu": "1", "memory": "1Gi"}, node_name="n1"))
    _, p = drf(c)
    attr = p.attrs["ns1/a"]
    # cpu 1/10 and memory 1/10, but the one pod is 1/4 of the cluster's pod slots
    assert attr.share == 0.25 and attr.dominant == "pods"


def test_share_counts_scalars_the_cluster_reports() -> None:
    c = cluster(conf("allocate", [DRF]), node("n1", cpu="100", memory="100Gi", pods="1000", gpu="4"),
                queue("q"), podgroup("a", "q"),
                pod("a1", "a", {"cpu": "1", GPU: "1"}, node_name="n1"))
    _, p = drf(c)
    assert p.attrs["ns1/a"].share == 0.25 and p.attrs["ns1/a"].dominant == GPU


def test_calculate_share_ignores_dimensions_the_cluster_lacks_and_zero_total() -> None:
    total = Resource(4000, 0, {"pods": 10})
    assert calculate_share(Resource(1000, 8 * 2**30, {"pods": 1, GPU: 1000}), total) == ("cpu", 0.25)
    assert calculate_share(Resource(), total) == ("", 0.0)


def test_pending_tasks_do_not_count() -> None:
    c = cluster(conf("allocate", [DRF]), node("n1", cpu="10", memory="10Gi", pods="1000"), queue("q"),
                podgroup("a", "q"), pod("a1", "a", {"cpu": "5"}))
    _, p = drf(c)
    assert p.attrs["ns1/a"].share == 0


# ---- job order -------------------------------------------------------------------------------------

def _three_jobs():
    return cluster(conf("allocate", [DRF]), node("n1", cpu="10", memory="10Gi", pods="1000"), queue("q"),
                   podgroup("big", "q"), podgroup("small", "q"), podgroup("same", "q"),
                   pod("b1", "big", {"cpu": "3"}, node_name="n1"), pod("b2", "big", {"cpu": "1"}),
                   pod("s1", "small", {"cpu": "1"}, node_name="n1"), pod("s2", "small", {"cpu": "1"}),
                   pod("x1", "same", {"cpu": "1"}, node_name="n1"), pod("x2", "same", {"cpu": "1"}))


def test_job_order_smaller_share_first_equal_is_zero() -> None:
    ssn, p = drf(_three_jobs())
    big, small, same = ssn.jobs["ns1/big"], ssn.jobs["ns1/small"], ssn.jobs["ns1/same"]
    assert p.job_order(small, big) == -1 and p.job_order(big, small) == 1
    assert p.job_order(small, same) == 0
    # the session falls back to creation time, then UID, on a 0
    assert ssn.job_order_fn(same, small) and not ssn.job_order_fn(big, small)


def test_allocate_and_deallocate_events_update_the_share() -> None:
    ssn, p = drf(_three_jobs())
    t = tasks(ssn)
    assert p.attrs["ns1/small"].share == pytest.approx(0.1)
    ssn.fire_allocate(t["s2"])
    assert p.attrs["ns1/small"].share == pytest.approx(0.2)
    big, small = ssn.jobs["ns1/big"], ssn.jobs["ns1/small"]
    assert p.job_order(small, big) == -1  # 0.2 < 0.3
    ssn.fire_allocate(t["x2"])
    ssn.fire_allocate(t["b2"])
    assert p.job_order(big, small) == 1  # 0.4 > 0.2
    ssn.fire_deallocate(t["s2"])
    assert p.attrs["ns1/small"].share == pytest.approx(0.1)


# ---- preemptable -------------------------------------------------------------------------------------

def _preempt_cluster(victim_cpus: list[str]):
    objs = [conf("preempt", [DRF]), node("n1", cpu="10", memory="10Gi", pods="1000000000"), queue("q"),
            podgroup("hi", "q"), podgroup("lo", "q"), pod("p1", "hi", {"cpu": "1"})]
    objs.extend(pod(f"v{i}", "lo", {"cpu": c}, node_name="n1") for i, c in enumerate(victim_cpus, 1))
    return cluster(*objs)


def test_preemptable_scratch_allocation_shrinks_per_job_and_equal_share_is_a_victim() -> None:
    ssn, p = drf(_preempt_cluster(["1", "1", "1"]))
    t = tasks(ssn)
    # preemptor share after gaining: 0.1; victim job 0.3 -> 0.2 (victim), 0.1 (equal: victim), 0.0
    victims, vote = p.preemptable(t["p1"], [t["v1"], t["v2"], t["v3"]])
    assert [v.name for v in victims] == ["v1", "v2"] and vote == PERMIT
    assert p.attrs["ns1/lo"].allocated.cpu == 3000  # scratch copy only


def test_preemptable_scratch_shrinks_even_for_non_victims() -> None:
    ssn, p = drf(_preempt_cluster(["1", "1", "1"]))
    t = tasks(ssn)
    p.attrs["ns1/hi"].allocated = Resource(1500, 0, {"pods": 1})  # ls = 0.25
    # v1: 3000 -> 2000 (0.2 < 0.25 kept); v2: 2000 -> 1000 (kept) ... each step uses the shrunk copy
    victims, _ = p.preemptable(t["p1"], [t["v1"], t["v2"], t["v3"]])
    assert victims == []


def test_preemptable_tolerance_is_one_millionth() -> None:
    ssn, p = drf(_preempt_cluster(["1"]))
    t = tasks(ssn)
    p.total = Resource(1e7, 0, {"pods": 1e12})  # shares: cpu milli / 1e7
    p.attrs["ns1/hi"].allocated = Resource(0, 0, {"pods": 0})  # ls = 1000 / 1e7 = 1e-4
    lo = p.attrs["ns1/lo"]
    lo.allocated = Resource(1995, 0, {"pods": 1})  # after losing 1000m: 995 -> 0.995e-4, 5e-7 below
    assert [v.name for v in p.preemptable(t["p1"], [t["v1"]])[0]] == ["v1"]
    lo.allocated = Resource(1985, 0, {"pods": 1})  # 985 -> 1.5e-6 below the preemptor: kept
    assert p.preemptable(t["p1"], [t["v1"]])[0] == []
    assert SHARE_DELTA == 1e-6


def test_preemptable_skips_candidates_of_unknown_jobs() -> None:
    ssn, p = drf(_preempt_cluster(["1", "1"]))
    t = tasks(ssn)
    del p.attrs["ns1/lo"]
    assert p.preemptable(t["p1"], [t["v1"], t["v2"]]) == ([], PERMIT)
