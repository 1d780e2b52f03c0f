"""The vectorised node path (capacity.accel.nodefit) decides exactly as the per-node reference path.

Randomized mid-size clusters (labels, taints, cordons, GPU and pod-limited nodes, selectors, node
affinity, tolerations, BestEffort pods, running preemptable victims, pod anti-affinity, nominated
nodes) are run for a few cycles with `nodefit.ENABLED` on and off, under configurations that exercise
allocate, backfill, reclaim and both kinds of preemption. Binds, evictions, pipelined tasks, phases and
queue numbers must match, and with tracing on so must every trace record.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import yaml

from capacity.accel import nodefit
from capacity.core.trace import Trace
from capacity.io.k8s import load_objects
from capacity.scheduler import simulate

pytestmark = pytest.mark.usefixtures("accelerated_engine")  # (tests of the acceleration itself)

HIERARCHY = {"actions": "enqueue, allocate, backfill, reclaim, preempt",
             "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
                       {"plugins": [{"name": "predicates"}, {"name": "capacity", "enableHierarchy": True},
                                    {"name": "nodeorder"}]}]}
PROPORTION = {"actions": "enqueue, allocate, backfill, reclaim, preempt",
              "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang", "enableReclaimable": False},
                                     {"name": "conformance"}]},
                        {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"},
                                     {"name": "nodeorder", "arguments": {"mostrequested.weight": 2}},
                                     {"name": "binpack", "arguments": {"binpack.resources": "nvidia.com/gpu"}}]}]}
TOPOLOGY = {**HIERARCHY, "configurations": [{"name": "preempt",
                                             "arguments": {"enableTopologyAwarePreemption": True}}]}
CONFS = {"hierarchy": HIERARCHY, "proportion": PROPORTION, "topology": TOPOLOGY}


def random_cluster(seed: int, conf: dict[str, Any], nodes: int = 32, jobs: int = 110,
                   anti_affinity: bool = False, huge_node: bool = False) -> list[dict[str, Any]]:
    rnd = random.Random(seed)
    objs: list[dict[str, Any]] = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": yaml.safe_dump(conf)}},
        {"kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
        {"kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10},
    ]
    names = [f"n{i:03d}" for i in range(nodes)]
    for name in names:
        alloc = {"cpu": str(rnd.choice([4, 8, 16, 32])), "memory": f"{rnd.choice([8, 16, 32, 64])}Gi",
                 "pods": str(rnd.choice([3, 6, 110, 110]))}
        labels = {"kubernetes.io/hostname": name, "zone": rnd.choice("abc")}
        if rnd.random() < 0.4:
            alloc["nvidia.com/gpu"] = str(rnd.choice([1, 2, 4, 8]))
            labels["gpu-model"] = rnd.choice(["T4", "V100", "A10"])
        spec: dict[str, Any] = {}
        if rnd.random() < 0.1:
            spec["taints"] = [{"key": "dedicated", "value": "infra", "effect": rnd.choice(["NoSchedule",
                                                                                          "PreferNoSchedule"])}]
        if rnd.random() < 0.05:
            spec["unschedulable"] = True
        if huge_node and name == names[-1]:
            alloc["memory"] = "64Ti"  # beyond NodeFit's exact-integer range: the scores fall back per node
        objs.append({"kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec,
                     "status": {"allocatable": alloc}})
    objs.append({"kind": "Queue", "metadata": {"name": "root"}, "spec": {}})
    leaves = []
    for d in range(2):
        dept = f"dept{d}"
        objs.append({"kind": "Queue", "metadata": {"name": dept},
                     "spec": {"parent": "root", "deserved": {"cpu": str(nodes * 4), "memory": f"{nodes * 8}Gi"},
                              "capability": {"cpu": str(nodes * 7), "memory": f"{nodes * 14}Gi"}}})
        for i in range(3):
            leaf = f"{dept}-q{i}"
            leaves.append(leaf)
            spec = {"parent": dept, "deserved": {"cpu": str(rnd.choice([nodes // 2, nodes, nodes * 2])),
                                                 "memory": f"{rnd.choice([nodes, nodes * 2, nodes * 4])}Gi"}}
            if rnd.random() < 0.3:
                spec["reclaimable"] = False
            objs.append({"kind": "Queue", "metadata": {"name": leaf}, "spec": spec})
    for j in range(jobs):
        name = f"job{j:04d}"
        queue = rnd.choice(leaves)
        members = rnd.choice([1, 1, 1, 2, 3])
        running = rnd.random() < 0.35
        pc = rnd.choice(["high", "low", "low"])
        requests: dict[str, str] = {}
        if rnd.random() > 0.05:  # a few BestEffort pods for backfill
            requests = {"cpu": f"{rnd.choice([250, 500, 1000, 2000, 4000])}m",
                        "memory": f"{rnd.choice([256, 512, 1024, 4096, 8192])}Mi"}
            if rnd.random() < 0.3:
                requests["nvidia.com/gpu"] = rnd.choice(["1", "2", "500m"])
        annotations: dict[str, str] = {}
        if rnd.random() < 0.2:
            annotations["volcano.sh/preemptable"] = "false"
        objs.append({"kind": "PodGroup", "metadata": {"name": name, "namespace": "t", "annotations": annotations},
                     "spec": {"queue": queue, "minMember": members, "priorityClassName": pc},
                     "status": {"phase": "Running" if running else rnd.choice(["Pending", "Inqueue"])}})
        for k in range(members + rnd.choice([0, 0, 1])):
            spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": requests}}],
                                    "priorityClassName": pc, "priority": 1000 if pc == "high" else 10}
            r = rnd.random()
            if r < 0.15:
                spec["nodeSelector"] = {"zone": rnd.choice("abc")}
            elif r < 0.25:
                spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [
                        {"key": "gpu-model", "operator": rnd.choice(["In", "NotIn"]), "values": ["T4", "A10"]}]}]}}}
            if rnd.random() < 0.15:
                spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
            labels = {"app": rnd.choice(["web", "db", "batch"])}
            if anti_affinity and rnd.random() < 0.15:
                spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": labels["app"]}},
                     "topologyKey": rnd.choice(["kubernetes.io/hostname", "zone"])}]}}
            status: dict[str, Any] = {"phase": "Pending"}
            if running:
                spec["nodeName"] = rnd.choice(names)
                status = {"phase": "Running"}
            elif rnd.random() < 0.05:
                status["nominatedNodeName"] = rnd.choice(names)
            objs.append({"kind": "Pod", "metadata": {
                "name": f"{name}-{k}", "namespace": "t", "uid": f"{name}-{k}", "labels": labels,
                "annotations": {"scheduling.k8s.io/group-name": name, **annotations}},
                "spec": spec, "status": status})
    return objs


def run(objs: list[dict[str, Any]], vectorised: bool, traced: bool, cycles: int = 3) -> tuple[Any, list[Any]]:
    saved = nodefit.ENABLED
    nodefit.ENABLED = vectorised
    try:
        trace = Trace(enabled=traced)
        result = simulate(load_objects(objs), cycles=cycles, trace=trace)
    finally:
        nodefit.ENABLED = saved
    return result.as_json(), [r.as_dict() for r in trace.records]


@pytest.mark.parametrize("conf", sorted(CONFS))
@pytest.mark.parametrize("seed", range(4))
def test_vectorised_path_decides_like_the_reference(conf: str, seed: int) -> None:
    objs = random_cluster(seed, CONFS[conf], anti_affinity=seed % 2 == 1)
    reference, _ = run(objs, vectorised=False, traced=False)
    fast, _ = run(objs, vectorised=True, traced=False)
    assert reference["binds"], "the scenario should place something"
    assert fast == reference


@pytest.mark.parametrize("conf", sorted(CONFS))
def test_inexact_quantities_take_the_reference_arithmetic(conf: str) -> None:
    objs = random_cluster(5, CONFS[conf], huge_node=True)
    reference, _ = run(objs, vectorised=False, traced=False)
    fast, _ = run(objs, vectorised=True, traced=False)
    assert fast == reference


@pytest.mark.parametrize("conf", sorted(CONFS))
def test_vectorised_path_traces_like_the_reference(conf: str) -> None:
    objs = random_cluster(11, CONFS[conf], nodes=24, jobs=80, anti_affinity=True)
    reference, ref_records = run(objs, vectorised=False, traced=True, cycles=2)
    fast, fast_records = run(objs, vectorised=True, traced=True, cycles=2)
    assert fast == reference
    assert fast_records == ref_records


def openb_slice(seed: int = 7, nodes: int = 40, pods: int = 300) -> list[dict[str, Any]]:
    """A slice of the real S1 shape: one GPU-sharing pod per PodGroup in a 2-level tree."""
    from capacity.io.openb import node_objects, queue_objects
    rnd = random.Random(seed)
    node_rows = [{"sn": f"openb-node-{i:04d}", "cpu_milli": str(rnd.choice([32000, 64000, 96000])),
                  "memory_mib": str(rnd.choice([131072, 262144, 786432])), "gpu": str(rnd.choice([0, 0, 2, 8])),
                  "model": rnd.choice(["", "T4", "V100M16"])} for i in range(nodes)]
    total = {"cpu": sum(float(n["cpu_milli"]) for n in node_rows),
             "memory": sum(float(n["memory_mib"]) for n in node_rows), "gpu": sum(float(n["gpu"]) for n in node_rows)}
    objs: list[dict[str, Any]] = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": yaml.safe_dump(HIERARCHY)}},
        *node_objects(node_rows), *queue_objects(4, 12, total)]
    for i in range(pods):
        name = f"openb-pod-{i:04d}"
        req = {"cpu": f"{rnd.choice([3152, 8000, 11300, 32000])}m", "memory": f"{rnd.choice([5600, 30517, 49152])}Mi"}
        if rnd.random() < 0.7:
            req["nvidia.com/gpu"] = rnd.choice(["1", "2", "460m", "810m"])
        queue = f"dept-{rnd.randrange(4):02d}-q{rnd.randrange(3):02d}"
        objs.append({"kind": "PodGroup", "metadata": {"name": name, "namespace": "openb"},
                     "spec": {"queue": queue, "minMember": 1, "minResources": req}, "status": {"phase": "Pending"}})
        objs.append({"kind": "Pod", "metadata": {"name": name, "namespace": "openb", "uid": name,
                                                 "annotations": {"scheduling.k8s.io/group-name": name}},
                     "spec": {"containers": [{"name": "main", "resources": {"requests": req}}],
                              "priority": rnd.choice([10, 1000])}, "status": {"phase": "Pending"}})
    return objs


def test_openb_slice_matches_the_reference() -> None:
    """A slice of the real S1 shape: one GPU-sharing pod per PodGroup in a 2-level tree."""
    objs = openb_slice()
    reference, _ = run(objs, vectorised=False, traced=False, cycles=3)
    fast, _ = run(objs, vectorised=True, traced=False, cycles=3)
    assert len(reference["binds"]) > 100
    assert fast == reference


# ---- what NodeFit reads of the requests ------------------------------------------------------------
def test_request_facts_agree_with_the_vectorised_integrality_test() -> None:
    """request_facts (plain Python, per job) says what one numpy test over every value and a union of scalar
    names say."""
    import numpy as np

    from capacity.accel.nodefit import EXACT_LIMIT, request_facts
    from capacity.core.resources import Resource

    def all_integral(rs: list[Resource]) -> bool:
        values = np.array([r.cpu for r in rs] + [r.memory for r in rs]
                          + [v for r in rs if r.scalars for v in r.scalars.values()], dtype=float)
        return bool(np.all((np.floor(values) == values) & (np.abs(values) < EXACT_LIMIT)))

    rnd = random.Random(3)
    values = [0.0, 1.0, 2.5, -3.0, 1e9, EXACT_LIMIT - 1, EXACT_LIMIT, -EXACT_LIMIT, float("inf"), float("nan")]
    for _ in range(300):
        rs = [Resource(rnd.choice(values), rnd.choice(values),
                       {k: rnd.choice(values) for k in rnd.sample(["a/x", "b/y", "pods"], rnd.randrange(3))} or None)
              for _ in range(rnd.randrange(4))]
        names = frozenset().union(*[r.scalars for r in rs if r.scalars])
        assert request_facts(rs) == (names, all_integral(rs))


def test_a_jobs_request_facts_follow_its_tasks() -> None:
    import copy

    from capacity.accel.nodefit import _job_facts
    from capacity.core.resources import Resource
    from capacity.scheduler import open_session
    from tests.builders import cluster, node, pod, podgroup, queue
    ssn = open_session(cluster(node("n1"), queue("q", deserved={"cpu": "8"}), podgroup("j", "q"),
                               pod("p", "j", {"cpu": "1", "memory": "1Gi"})), Trace(enabled=False))
    job = ssn.jobs["ns1/j"]
    assert _job_facts(job) == (frozenset({"pods"}), True)
    task = copy.copy(next(iter(job.tasks.values())))
    task.uid, task.resreq = "other", Resource(1000.0, 2.0**50, {"x/gpu": 1.0})
    job.add_task(task)
    assert _job_facts(job) == (frozenset({"pods", "x/gpu"}), False)


def test_nodefit_reads_the_requests_of_pods_outside_every_job() -> None:
    """A pod with no PodGroup still holds node resources: its scalar is a dimension, and its memory, too
    large for exact float sums, makes the session take the reference arithmetic."""
    from capacity.scheduler import open_session
    from tests.builders import cluster, node, pod, podgroup, queue
    objs = [node("n1"), queue("q", deserved={"cpu": "8"}), podgroup("j", "q"),
            pod("p", "j", {"cpu": "1", "memory": "1Gi"})]
    plain = pod("loose", "", {"cpu": "1", "memory": "100Pi", "example.com/foo": "1"}, node_name="n1")
    del plain["metadata"]["annotations"]["scheduling.k8s.io/group-name"]
    fit = open_session(cluster(*objs), Trace(enabled=False)).node_fit()
    assert fit.exact and "example.com/foo" not in fit.dims
    fit = open_session(cluster(*objs, plain), Trace(enabled=False)).node_fit()
    assert not fit.exact and "example.com/foo" in fit.dims


def test_victim_bounds_without_nodefit_read_the_same_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """On the reference path (no NodeFit) reclaim and preempt judge exactness over the same requests as
    NodeFit: a pod outside every job with memory too large for exact sums makes the bounds inexact."""
    from capacity.scheduler import open_session
    from tests.builders import cluster, node, pod, podgroup, queue
    monkeypatch.setattr(nodefit, "ENABLED", False)
    objs = [node("n1"), queue("q", deserved={"cpu": "8"}), podgroup("j", "q"),
            pod("p", "j", {"cpu": "1", "memory": "1Gi"})]
    plain = pod("loose", "", {"cpu": "1", "memory": "100Pi"}, node_name="n1")
    del plain["metadata"]["annotations"]["scheduling.k8s.io/group-name"]
    assert open_session(cluster(*objs), Trace(enabled=False)).victim_bound_exact()
    assert not open_session(cluster(*objs, plain), Trace(enabled=False)).victim_bound_exact()


def test_placement_signature_of_a_plain_pod_is_the_general_one() -> None:
    """predicates' signature (part of the placement key) has a shortcut for pods without selector,
    affinity or tolerations; it must be the text the general formula gives, and no other pod may get it."""
    from capacity.accel import predicates_vector as predicates
    from capacity.core.model import PodSpec

    def spec(selector: dict, affinity: dict | None, tolerations: list) -> PodSpec:
        return PodSpec({}, {}, selector, affinity, tolerations, "", "", "", "", "", False, 0)

    plugin = predicates.PredicatesVector.__new__(predicates.PredicatesVector)
    plugin._signatures = {}
    required = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"k": "v"}]}}
    specs = [spec({}, None, []), spec({"zone": "a"}, None, []), spec({}, required, []),
             spec({}, {}, []), spec({}, None, [{"key": "gpu", "operator": "Exists"}])]
    for s in specs:
        general = repr((sorted(s.node_selector.items()), predicates._required(s, "nodeAffinity"), s.tolerations))
        assert plugin._signature(s) == general
    assert [plugin._signature(s) == predicates._PLAIN_SIGNATURE for s in specs] == [True, False, False, True, False]


def test_a_pod_that_fits_no_node_is_reported_as_by_the_reference() -> None:
    """On the Placement path allocate learns that a pod has candidates without listing them; a pod that
    fits nowhere must still be left with its fit errors (the noFit record), as on the reference path."""
    objs = openb_slice(pods=40)
    req = {"cpu": "900", "memory": "1Gi"}
    objs.append({"kind": "PodGroup", "metadata": {"name": "huge", "namespace": "openb"},
                 "spec": {"queue": "dept-00-q00", "minMember": 1}, "status": {"phase": "Inqueue"}})
    objs.append({"kind": "Pod", "metadata": {"name": "huge", "namespace": "openb", "uid": "huge",
                                             "annotations": {"scheduling.k8s.io/group-name": "huge"}},
                 "spec": {"containers": [{"name": "main", "resources": {"requests": req}}]},
                 "status": {"phase": "Pending"}})
    reference, ref_records = run(objs, vectorised=False, traced=True, cycles=1)
    fast, fast_records = run(objs, vectorised=True, traced=True, cycles=1)
    assert fast == reference
    assert fast_records == ref_records
    assert any(r["kind"] == "noFit" and r["subject"] == "openb/huge" for r in fast_records)


@pytest.mark.parametrize("hierarchy", [True, False])
def test_capacity_queue_less_answers_as_its_queue_order(hierarchy: bool) -> None:
    """capacity's one-call queue `less` (OrderLess, Session.add_fast) against its queue order then the tie, for
    every pair of queues, with shares apart and equal, after a cycle has placed pods."""
    from capacity.framework.session import _first_decisive, _queue_tie
    from capacity.scheduler import open_session, run_cycle

    objs = openb_slice(pods=120)
    if not hierarchy:
        conf = yaml.safe_load(objs[0]["data"]["volcano-scheduler.conf"])
        for tier in conf["tiers"]:
            for p in tier["plugins"]:
                p.pop("enableHierarchy", None)
        objs[0]["data"]["volcano-scheduler.conf"] = yaml.safe_dump(conf)
    leaves = [o for o in objs if o.get("kind") == "Queue" and "-q" in o["metadata"]["name"]]
    for o in leaves[::3]:
        o["spec"]["priority"] = 5  # some queues first whatever their shares
    cluster = load_objects(objs)
    run_cycle(cluster, Trace(enabled=False))
    ssn = open_session(cluster, Trace(enabled=False))
    fast = ssn.queue_less()
    reference = _first_decisive(ssn.flat("queueOrder"), _queue_tie)
    assert fast is not reference and fast.__qualname__.startswith("CapacityOrderMemo")
    queues = list(ssn.queues.values())
    answers = [[fast(a, b) for b in queues] for a in queues]
    assert answers == [[reference(a, b) for b in queues] for a in queues]
    assert any(map(any, answers)) and len({ssn.plugins["capacity"].attrs[q.name].share
                                           for q in queues if q.name in ssn.plugins["capacity"].attrs}) > 2


def test_a_lazy_candidate_list_counts_and_lists_its_placement_and_refuses_stale_reads() -> None:
    import numpy as np

    from capacity.accel.nodefit import CandidateList
    from capacity.core.model import TaskStatus
    from capacity.scheduler import open_session

    ssn = open_session(load_objects(openb_slice(pods=30)), Trace(enabled=False))
    fit = ssn.node_fit()
    assert fit is not None
    task = next(t for t in ssn.all_tasks.values() if t.status == TaskStatus.PENDING)
    placement = fit.placement(task)
    assert placement is not None
    lazy = CandidateList(ssn.node_list, None, placement, len(fit.log))
    assert len(lazy) == int(placement.cand.sum()) > 0 and bool(lazy)
    assert lazy.idx.tolist() == np.flatnonzero(placement.cand).tolist()
    stale = CandidateList(ssn.node_list, None, placement, len(fit.log))
    fit.log.append(0)  # a node refreshed since: the mask may no longer be the list's
    with pytest.raises(RuntimeError):
        len(stale)
    with pytest.raises(RuntimeError):
        stale.idx  # noqa: B018


@pytest.mark.parametrize("conf", ["hierarchy", "proportion"])
def test_the_nodefit_mirror_follows_the_placements(conf: str) -> None:
    """The predicates plugin keeps each node's Kubernetes mirror as predicates.go does; the accelerated engine's
    predicates plugin (accel.plugins.AcceleratedPredicatesPlugin) keeps NodeFit's mirror sums with it: after a cycle
    that places tasks, they are what a full recount of the mirrors gives."""
    import numpy as np

    from capacity.scheduler import open_session, run_actions
    ssn = open_session(load_objects(random_cluster(5, CONFS[conf], nodes=12, jobs=60)), Trace(enabled=False))
    fit = ssn.node_fit()
    assert fit is not None
    before = fit.mirror_sums.copy()
    run_actions(ssn)
    assert ssn.node_fit() is fit
    kept = fit.mirror_sums.copy(), list(fit.pods_list)
    assert not np.array_equal(before, kept[0])  # (tasks were placed)
    fit.dirty.update(range(fit.n))
    fit.mirror_dirty.update(range(fit.n))
    fit.refresh()
    np.testing.assert_array_equal(kept[0], fit.mirror_sums)
    assert kept[1] == fit.pods_list == [len(n.mirror) for n in ssn.node_list]
