"""Seed 002's namespace fair-share tables under the legacy (Volcano <= v1.7) switch and under HEAD.

spec queue-plugins §6.5: case 1 is the same either way; case 2 differs (legacy 3/1/10/2, HEAD 2/2/10/2);
case 3 with the legacy switch gives ns1 4, ns2 12 (the seed's 3/9 assumed q2 got only 12).
"""

from __future__ import annotations

from capacity.framework.session import SessionOptions
from capacity.scheduler import run_cycle
from tests.builders import cluster, conf, node, pod, podgroup, queue

TIERS = ([{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}],
         [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}])
LEGACY = SessionOptions(legacy_namespace_fairshare=True)


def _quota(ns: str, weight: int) -> dict:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "weight", "namespace": ns},
            "spec": {"hard": {"volcano.sh/namespace.weight": str(weight)}}}


def _seed002(qweights: tuple[int, int], jobs: dict[str, tuple[str, int, int]]):
    objs = [conf("enqueue, allocate, backfill", *TIERS), node("n1", cpu="16", memory="64Gi"),
            queue("q1", weight=qweights[0]), queue("q2", weight=qweights[1])]
    for ns, (q, n, w) in jobs.items():
        objs.append(_quota(ns, w))
        objs.append(podgroup("pg", q, ns=ns, phase="Pending"))
        objs.extend(pod(f"{ns}-task-{i}", "pg", {"cpu": "1"}, ns=ns) for i in range(n))
    return cluster(*objs)


def _split(result) -> dict[str, int]:
    out: dict[str, int] = {}
    for key in result.binds:
        out[key.split("/")[0]] = out.get(key.split("/")[0], 0) + 1
    return out


CASE1 = {"ns1": ("q1", 5, 1), "ns2": ("q1", 10, 1), "ns3": ("q2", 10, 1), "ns4": ("q2", 2, 1)}
CASE2 = {"ns1": ("q1", 5, 3), "ns2": ("q1", 10, 1), "ns3": ("q2", 10, 2), "ns4": ("q2", 2, 6)}
CASE3 = {"ns1": ("q2", 5, 2), "ns2": ("q2", 20, 6)}


def test_case1_same_under_both() -> None:
    want = {"ns1": 4, "ns2": 4, "ns3": 6, "ns4": 2}
    assert _split(run_cycle(_seed002((1, 1), CASE1), options=LEGACY)) == want
    assert _split(run_cycle(_seed002((1, 1), CASE1))) == want


def test_case2_legacy_weights_namespaces_head_does_not() -> None:
    assert _split(run_cycle(_seed002((1, 3), CASE2), options=LEGACY)) == {"ns1": 3, "ns2": 1, "ns3": 10, "ns4": 2}
    assert _split(run_cycle(_seed002((1, 3), CASE2))) == {"ns1": 2, "ns2": 2, "ns3": 10, "ns4": 2}


def test_case3_legacy_and_head() -> None:
    assert _split(run_cycle(_seed002((1, 3), CASE3), options=LEGACY)) == {"ns1": 4, "ns2": 12}
    assert _split(run_cycle(_seed002((1, 3), CASE3))) == {"ns1": 5, "ns2": 11}
