"""The victim bound reclaim and preempt pass nodes over on (capacity.accel.victim_bound).

A node is passed over when the task does not fit FutureIdle even with every candidate the plugins'
bounds (Session.victim_possible) allow gone. That is only sound if no plugin ever names a victim its
bound rules out, whatever the candidate list; it changes no decision if so; and the vectorised and the
per-node paths must pass over the same nodes and say so in the same one record.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
import yaml

from capacity.accel import nodefit
from capacity.analysis.explain import explain_pod
from capacity.core.model import TaskStatus
from capacity.core.trace import Trace
from capacity.framework.session import Session
from capacity.io.k8s import load_objects
from capacity.scheduler import open_session, run_actions, simulate
from tests.unit.test_nodefit import CONFS, HIERARCHY, random_cluster

pytestmark = pytest.mark.usefixtures("accelerated_engine")  # (tests of the acceleration itself)

FLAT = {"actions": "enqueue, allocate, backfill, reclaim, preempt",
        "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False},
                               {"name": "conformance"}]},
                  {"plugins": [{"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}]}]}
ANCESTOR = {**HIERARCHY, "tiers": [HIERARCHY["tiers"][0], {"plugins": [
    {"name": "predicates"}, {"name": "capacity", "enableHierarchy": True, "arguments": {"ancestorReclaimLevel": 1}},
    {"name": "nodeorder"}]}]}
BOUND_CONFS = {**CONFS, "flat": FLAT, "ancestor": ANCESTOR}


def with_guarantees(objs: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Some leaf queues get a guarantee, and in flat mode the tree is dropped."""
    rnd = random.Random(seed)
    for o in objs:
        if o["kind"] == "Queue" and "-q" in o["metadata"]["name"] and rnd.random() < 0.5:
            o["spec"]["guarantee"] = {"resource": {"cpu": str(rnd.choice([1, 4, 16])),
                                                   "memory": f"{rnd.choice([2, 8, 32])}Gi"}}
    return objs


def session_after_allocate(objs: list[dict[str, Any]]) -> Session:
    cluster = load_objects(objs)
    simulate(cluster, cycles=1, trace=Trace(enabled=False))  # some pods running, some evicted
    ssn = open_session(cluster, Trace(enabled=False))
    for name in ("enqueue", "allocate", "backfill"):
        __import__(f"capacity.actions.{name}", fromlist=["execute"]).execute(ssn)
    return ssn


@pytest.mark.parametrize("conf", sorted(BOUND_CONFS))
@pytest.mark.parametrize("seed", range(3))
def test_no_plugin_names_a_victim_its_bound_rules_out(conf: str, seed: int) -> None:
    objs = with_guarantees(random_cluster(seed, BOUND_CONFS[conf], nodes=16, jobs=70), seed)
    ssn = session_after_allocate(objs)
    rnd = random.Random(seed)
    running = [t for t in ssn.all_tasks.values() if t.status & (TaskStatus.RUNNING | TaskStatus.BOUND)]
    preemptors = [t for t in ssn.all_tasks.values() if t.status == TaskStatus.PENDING]
    assert running and preemptors
    checked = 0
    for task in rnd.sample(preemptors, min(12, len(preemptors))):
        for point, ask in (("reclaimable", ssn.reclaimable), ("preemptable", ssn.preemptable)):
            possible = ssn.victim_possible(point, task)
            for _ in range(40):  # candidate lists of every length, in victim order and shuffled
                cands = rnd.sample(running, rnd.randint(1, min(8, len(running))))
                if rnd.random() < 0.5:
                    cands = ssn.victims_in_order(cands, task)
                allowed = possible.allowed(cands)
                for v in ask(task, cands) or []:
                    assert v in allowed, (conf, point, task.key, v.key)
                    checked += 1
    assert checked > 0


def mixed_requests(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every other pod asks for one GPU and nothing else, the others for what they asked: the tasks of a job
    then name different resources (what capacity's bound reads per task)."""
    k = 0
    for o in objs:
        if o["kind"] != "Pod":
            continue
        if k % 2:
            for c in o["spec"].get("containers", []):
                c["resources"] = {"requests": {"nvidia.com/gpu": "1"}}
        k += 1
    return objs


@pytest.mark.parametrize("conf", ["flat", "hierarchy", "ancestor"])
@pytest.mark.parametrize("seed", range(3))
def test_capacity_bound_is_its_rule_on_one_candidate(conf: str, seed: int) -> None:
    """Asked about one candidate, capacity's reclaimable checks exactly what its bound checks (with the
    tasks of a job naming different resources for seed 2)."""
    objs = with_guarantees(random_cluster(seed + 20, BOUND_CONFS[conf], nodes=16, jobs=70), seed)
    if seed == 2:
        objs = mixed_requests(objs)
    ssn = session_after_allocate(objs)
    cap = ssn.plugins["capacity"]
    tasks = list(ssn.all_tasks.values())
    running = [t for t in tasks if t.status & (TaskStatus.RUNNING | TaskStatus.BOUND)]
    agree = {True: 0, False: 0}
    for task in [t for t in tasks if t.status == TaskStatus.PENDING][:10]:
        _key, test, *_vector = cap.reclaimable_possible(task)
        for t in running:
            got, _vote = cap.reclaimable(task, [t])
            assert test(t) == (t in got), (task.key, t.key)
            agree[test(t)] += 1
    assert agree[True] and agree[False]


@pytest.mark.parametrize("conf", ["flat", "hierarchy", "ancestor"])
@pytest.mark.parametrize("seed", range(3))
def test_capacity_bound_answers_a_whole_victim_table_as_row_by_row(conf: str, seed: int) -> None:
    """Capacity's bound for all of a VictimTable's rows at once (without ancestor levels) answers what its
    test answers row by row, also after an eviction moved the queues' counters; rows of queues with a
    guarantee among them."""
    from capacity.accel.victim_bound import VictimTable
    from capacity.framework.statement import Statement

    objs = with_guarantees(random_cluster(seed + 20, BOUND_CONFS[conf], nodes=16, jobs=70), seed)
    if seed == 2:
        objs = mixed_requests(objs)
    ssn = session_after_allocate(objs)
    cap = ssn.plugins["capacity"]
    fit = ssn.node_fit()
    assert fit is not None
    table = VictimTable(ssn, fit)
    rows = np.arange(len(table.tasks))
    pending = [t for t in ssn.all_tasks.values() if t.status == TaskStatus.PENDING][:8]
    answers: dict[bool, int] = {True: 0, False: 0}
    for moved in (False, True):
        if moved:
            Statement(ssn).evict(table.tasks[0], "reclaim")  # a deallocate event: other counters
        for task in pending:
            _key, test, *vector = cap.reclaimable_possible(task)
            if conf == "ancestor":
                assert not vector  # ancestor levels: row by row
                continue
            got = vector[0](table, rows).tolist()
            assert got == [test(t) for t in table.tasks], task.key
            for answer in got:
                answers[answer] += 1
    guaranteed = {a.name for a in cap.attrs.values() if not a.guarantee.is_empty()}
    assert conf == "ancestor" or (answers[True] and answers[False])
    assert any(ssn.jobs[t.job].queue in guaranteed for t in table.tasks)


@pytest.mark.parametrize("seed", range(3))
def test_gang_bound_answers_a_whole_victim_table_as_row_by_row(seed: int) -> None:
    """Gang's bound for all of a VictimTable's rows at once answers what its test answers row by row (a job
    above its minAvailable has a surplus), also once an eviction moved a job's counters; rows of jobs with
    several tasks among them."""
    from capacity.accel.plugin_forms import gang_possible_victims
    from capacity.accel.victim_bound import VictimTable
    from capacity.framework.statement import Statement

    ssn = session_after_allocate(random_cluster(seed + 40, BOUND_CONFS["flat"], nodes=16, jobs=70))
    fit = ssn.node_fit()
    assert fit is not None
    table = VictimTable(ssn, fit)
    rows = np.arange(len(table.tasks))
    answers: dict[bool, int] = {True: 0, False: 0}
    got: list[bool] = []
    for moved in (False, True):
        if moved:  # a deallocate event: a job with a surplus is one task short of what it had
            Statement(ssn).evict(next(t for t, ok in zip(table.tasks, got, strict=True) if ok), "reclaim")
        _key, test, vector = gang_possible_victims(ssn, table.tasks[0])
        got = vector(table, rows).tolist()
        assert got == [test(t) for t in table.tasks]
        for answer in got:
            answers[answer] += 1
    assert answers[True] and answers[False]
    assert any(len(ssn.jobs[t.job].tasks) > 1 for t in table.tasks)


def test_capacity_bound_for_a_whole_table_reads_each_queues_counters_now() -> None:
    """The whole-table form on a built case: a queue above its deserved only in GPUs (a scalar), one
    whose tasks ask more cpu than it deserves; after an eviction, the evicted task asks more memory
    than its queue still holds (what zero guarantee checks), and after more its queue is back under
    its deserved."""
    from capacity.accel.victim_bound import VictimTable
    from capacity.framework.statement import Statement
    from tests.builders import cluster, conf, node, pod, podgroup, queue

    gpu = "nvidia.com/gpu"
    c = cluster(conf("reclaim", [{"name": "gang"}, {"name": "capacity"}], [{"name": "predicates"}]),
                *[node(f"n{i}", cpu="8", memory="32Gi", gpu="4") for i in range(3)],
                queue("qa", deserved={"cpu": "1", "memory": "1Gi", gpu: "1"}),
                queue("qb", deserved={"cpu": "100", "memory": "100Gi", gpu: "1"}),
                queue("qc", deserved={"cpu": "10", "memory": "10Gi", gpu: "4"}),
                *[podgroup(f"a{i}", "qa", phase="Running") for i in range(2)],
                *[pod(f"a{i}-0", f"a{i}", {"cpu": "2", "memory": "1Gi", gpu: "1"}, node_name=f"n{i}")
                  for i in range(2)],
                *[podgroup(f"b{i}", "qb", phase="Running") for i in range(3)],
                *[pod(f"b{i}-0", f"b{i}", {"cpu": cpu, "memory": memory, gpu: "1"}, node_name=f"n{i}")
                  for i, (cpu, memory) in enumerate([("1", "8Gi"), ("4", "1Gi"), ("1", "1Gi")])],
                podgroup("c", "qc"), pod("c-0", "c", {"cpu": "1", "memory": "1Gi", gpu: "1"}))
    ssn = open_session(c, Trace(enabled=False))
    cap = ssn.plugins["capacity"]
    fit = ssn.node_fit()
    assert fit is not None
    table = VictimTable(ssn, fit)
    rows = np.arange(len(table.tasks))
    reclaimer = ssn.all_tasks["ns1-c-0"]

    def answers() -> dict[str, bool]:
        _key, test, vector = cap.reclaimable_possible(reclaimer)
        got = dict(zip((t.name for t in table.tasks), vector(table, rows).tolist(), strict=True))
        assert got == {t.name: test(t) for t in table.tasks}
        return got

    # qa: above its deserved in everything; qb: above it in GPUs only
    assert answers() == {"a0-0": True, "a1-0": True, "b0-0": True, "b1-0": True, "b2-0": True}
    stmt = Statement(ssn)
    stmt.evict(ssn.all_tasks["ns1-b0-0"], "reclaim")  # qb still above in GPUs, but holds 2Gi < b0-0's 8Gi
    assert answers() == {"a0-0": True, "a1-0": True, "b0-0": False, "b1-0": True, "b2-0": True}
    for name in ("b1-0", "b2-0"):
        stmt.evict(ssn.all_tasks[f"ns1-{name}"], "reclaim")  # qb holds no GPU any more
    assert answers() == {"a0-0": True, "a1-0": True, "b0-0": False, "b1-0": False, "b2-0": False}


def _no_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from capacity.accel.session import AcceleratedSession
    monkeypatch.setattr(AcceleratedSession, "victim_possible", lambda self, point, task: None)
    for cls in (Session, AcceleratedSession):
        monkeypatch.setattr(cls, "victim_bound_exact", lambda self: False)


def _decisions(objs: list[dict[str, Any]], vectorised: bool, cycles: int = 3) -> dict[str, Any]:
    saved = nodefit.ENABLED
    nodefit.ENABLED = vectorised
    try:
        return simulate(load_objects(objs), cycles=cycles, trace=Trace(enabled=False)).as_json()
    finally:
        nodefit.ENABLED = saved


@pytest.mark.parametrize("conf", sorted(BOUND_CONFS))
@pytest.mark.parametrize("seed", range(2))
def test_passing_nodes_over_changes_no_decision(conf: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    objs = with_guarantees(random_cluster(seed + 40, BOUND_CONFS[conf], nodes=20, jobs=90), seed)
    with_bound = {v: _decisions(objs, v) for v in (True, False)}
    with monkeypatch.context() as m:
        _no_bound(m)
        without = _decisions(objs, False)
    assert without["binds"]
    assert with_bound[True] == without
    assert with_bound[False] == without


def _one_node_cluster(gpus_free: bool) -> list[dict[str, Any]]:
    """q1 runs a pod on each of two nodes; q2's pending pod fits neither even if q1's pods left."""
    conf = {"actions": "enqueue, allocate, reclaim",
            "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
                      {"plugins": [{"name": "predicates"}, {"name": "capacity"}]}]}
    objs: list[dict[str, Any]] = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": yaml.safe_dump(conf)}}]
    for n in ("n1", "n2"):
        objs.append({"kind": "Node", "metadata": {"name": n}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi",
                                                                                       "pods": "110"}}})
    for q in ("q1", "q2"):
        objs.append({"kind": "Queue", "metadata": {"name": q}, "spec": {"deserved": {"cpu": "1", "memory": "1Gi"}}})
    pods = [("run1", "q1", "n1", "2"), ("run2", "q1", "n2", "2"), ("big", "q2", "", "8" if not gpus_free else "3")]
    for name, q, node, cpu in pods:
        objs.append({"kind": "PodGroup", "metadata": {"name": name, "namespace": "ns"},
                     "spec": {"queue": q, "minMember": 1},
                     "status": {"phase": "Running" if node else "Inqueue"}})
        spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}
        if node:
            spec["nodeName"] = node
        objs.append({"kind": "Pod", "metadata": {"name": name, "namespace": "ns", "uid": name,
                                                 "annotations": {"scheduling.k8s.io/group-name": name}},
                     "spec": spec, "status": {"phase": "Running" if node else "Pending"}})
    return objs


@pytest.mark.parametrize("vectorised", [True, False])
def test_one_record_names_the_nodes_passed_over(vectorised: bool) -> None:
    saved = nodefit.ENABLED
    nodefit.ENABLED = vectorised
    try:
        cluster = load_objects(_one_node_cluster(gpus_free=False))
        trace = Trace(enabled=True)
        ssn = open_session(cluster, trace)
        run_actions(ssn)
        ssn.close()
    finally:
        nodefit.ENABLED = saved
    summary = [r for r in trace.records if r.kind == "victimsInsufficient"]
    assert len(summary) == 1
    assert summary[0].subject == "ns/big" and summary[0].detail["nodes"] == ["n1", "n2"]
    assert not [r for r in trace.records if r.kind.startswith("reclaimable")]  # no per-node votes
    exp = explain_pod(trace.records, load_objects(_one_node_cluster(gpus_free=False)), "ns/big")
    assert exp.outcome == "pending"
    assert "evicting every preemptable pod of other queues on n1 and n2 would not free enough for it" in exp.sentence


@pytest.mark.parametrize("conf", sorted(BOUND_CONFS))
def test_vectorised_and_reference_paths_visit_the_same_nodes(conf: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With tracing off (the tight bound, no record to compare) the nodes whose candidates reach the
    plugins are the same on both paths (nodes without candidates aside: preempt asks about those once)."""
    objs = with_guarantees(random_cluster(61, BOUND_CONFS[conf], nodes=20, jobs=90), 1)
    logs: dict[bool, list[tuple[str, str, tuple[str, ...]]]] = {}
    for vectorised in (True, False):
        log: list[tuple[str, str, tuple[str, ...]]] = []
        with monkeypatch.context() as m:
            for point in ("reclaimable", "preemptable"):
                real = getattr(Session, point)

                def asked(self: Session, task: Any, cands: list[Any], real: Any = real, point: str = point,
                          log: list[Any] = log) -> Any:
                    if cands:
                        log.append((point, task.key, tuple(t.key for t in cands)))
                    return real(self, task, cands)

                m.setattr(Session, point, asked)
            _decisions(objs, vectorised)
        logs[vectorised] = log
    assert logs[True] and logs[True] == logs[False]


def test_a_victim_evicted_before_the_table_is_built_is_a_candidate_again_once_discarded() -> None:
    """The VictimTable keeps the tasks that may be candidates this session: a Releasing task whose eviction
    is later discarded is Running again, on its node, and reclaim and preempt must see it."""
    from capacity.accel.victim_bound import victim_table
    from capacity.framework.statement import Statement
    from tests.builders import cluster, conf, node, pod, podgroup, queue

    c = cluster(conf("reclaim, preempt", [{"name": "priority"}, {"name": "gang"}, {"name": "capacity"}],
                     [{"name": "predicates"}, {"name": "nodeorder"}]),
                node("n1", cpu="4", memory="8Gi"), queue("q1", deserved={"cpu": "1"}),
                queue("q2", deserved={"cpu": "3"}),
                podgroup("a", "q1", phase="Running"), pod("a-0", "a", {"cpu": "1"}, node_name="n1"),
                pod("a-1", "a", {"cpu": "1"}, node_name="n1"))
    ssn = open_session(c, Trace(enabled=False))
    fit = ssn.node_fit()
    assert fit is not None
    victim = ssn.all_tasks["ns1-a-0"]
    stmt = Statement(ssn)
    stmt.evict(victim, "reclaim")
    assert victim.status == TaskStatus.RELEASING
    table = victim_table(ssn, fit)  # built while it is Releasing
    stmt.discard()
    assert victim.status == TaskStatus.RUNNING
    rows = table.reclaimees(ssn, "q2")
    assert sorted(table.tasks[k].uid for k in rows.nonzero()[0].tolist()) == ["ns1-a-0", "ns1-a-1"]
    rows = table.preemptees(ssn, victim, "q1", "other-job")
    assert sorted(table.tasks[k].uid for k in rows.nonzero()[0].tolist()) == ["ns1-a-0", "ns1-a-1"]


@pytest.mark.parametrize("cpus", [(100.0, 200.0, 300.0, 400.0), (0.1, 0.2, 0.3, 0.4)])
def test_a_victim_tables_sums_are_its_rows_requests_added_up(cpus: tuple[float, ...]) -> None:
    """The per-node sums a VictimTable finds the room with are its rows' requests added in node order, the
    same floats for every set of rows. Fractional requests too: there taking the other rows' sums away
    from all the rows' could round (0.1 + 0.2 + 0.3 + 0.4 - 0.1 is not 0.2 + 0.3 + 0.4)."""
    from dataclasses import replace

    from capacity.accel.victim_bound import VictimTable
    from capacity.core.resources import Resource
    from tests.builders import cluster, conf, node, pod, podgroup, queue

    c = cluster(conf("reclaim", [{"name": "gang"}, {"name": "capacity"}]), node("n0"), node("n1"),
                queue("q1"), *[podgroup(f"a{i}", "q1", phase="Running") for i in range(4)],
                *[pod(f"a{i}-0", f"a{i}", {"cpu": "1"}, node_name=f"n{i // 3}") for i in range(4)])
    for i, cpu in enumerate(cpus):
        c.pods[f"ns1/a{i}-0"] = replace(c.pods[f"ns1/a{i}-0"], resreq=Resource(cpu, 0.0))
    ssn = open_session(c, Trace(enabled=False))
    fit = ssn.node_fit()
    assert fit is not None
    table = VictimTable(ssn, fit)
    assert len(table.tasks) == 4
    for bits in range(16):
        rows = np.array([bool(bits >> k & 1) for k in range(4)])
        want = [0.0, 0.0]
        for k in rows.nonzero()[0].tolist():
            want[int(table.node[k])] += table.tasks[k].resreq.cpu
        assert table._sums_of(rows)[0].tolist() == want


@pytest.mark.parametrize("conf", ["flat", *sorted(CONFS)])
def test_a_plan_from_the_pool_bound_visits_the_same_nodes(conf: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """reclaim's plan may answer from what the plugins allow among every reclaim candidate (the pool)
    before asking them about one preemptor's candidates, and before working out the nodes the preemptor may
    not use: the nodes it visits are those of the exact plan, for every pending task of every queue. All
    three ways of answering are met (nowhere to go, decided by the pool, asked exactly)."""
    from capacity.accel.victim_bound import VictimTable

    real_allowed, real_nowhere = VictimTable._allowed, VictimTable.room_nowhere
    ways = {"nowhere": 0, "exact": 0}

    def counted(self: VictimTable, possible: Any, rows: np.ndarray) -> np.ndarray:
        ways["exact"] += rows is not self._status_rows("reclaim")  # (the pool's rows are asked as they are)
        return real_allowed(self, possible, rows)

    def nowhere(self: VictimTable, *args: Any) -> bool:
        got = real_nowhere(self, *args)
        ways["nowhere"] += got
        return got

    monkeypatch.setattr(VictimTable, "_allowed", counted)
    monkeypatch.setattr(VictimTable, "room_nowhere", nowhere)
    seen = {"nowhere": 0, "exact": 0, "pool": 0}
    for seed in range(3):
        _check_plans(seed, conf, ways, seen)
    assert all(seen.values()), seen


def _check_plans(seed: int, conf: str, ways: dict[str, int], seen: dict[str, int]) -> None:
    """Each pending task's reclaim plan against the exact one, VictimTable.plan without the pool (see the
    test above); counts in `seen` how each was answered, from the counters in `ways`."""
    from capacity.accel.nodefit import unresolvable_mask
    from capacity.accel.victim_bound import VictimTable, bound_for, victim_table
    from capacity.accel.victim_paths import fast_plan

    ssn = session_after_allocate(with_guarantees(random_cluster(seed + 70, BOUND_CONFS[conf], nodes=16, jobs=80),
                                                 seed))
    pending = [t for t in ssn.all_tasks.values() if t.status == TaskStatus.PENDING]
    assert pending
    fit = ssn.node_fit()
    assert fit is not None
    for task in pending:
        job = ssn.jobs[task.job]
        errors = job.nodes_fit_errors.get(task.uid) or {}
        possible = bound_for(ssn, "reclaimable", task)
        before = dict(ways)
        got = fast_plan(ssn, task, job, errors, possible)
        assert got is not None
        seen[next((w for w in ways if ways[w] > before[w]), "pool")] += 1
        table = victim_table(ssn, fit)
        keep = ~unresolvable_mask(fit, errors)
        pv = ssn.predicate_vector(task, keep)
        keep &= ~pv.unresolvable
        has, room = VictimTable.plan(table, task, table.reclaimees(ssn, job.queue), keep, possible)
        assert got[0].tolist() == (has & keep & room).nonzero()[0].tolist(), task.key

