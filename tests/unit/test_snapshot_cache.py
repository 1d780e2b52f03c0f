"""What one session hands to the next (SnapshotCache) changes no decision, and NodeFit's start from an
empty node's rows equals refreshing every node."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from capacity.accel.predicates_vector import PredicatesVector
from capacity.accel.snapshot_cache import SnapshotCache
from capacity.authoring.edit import set_node, set_queue_resources
from capacity.core.resources import Resource
from capacity.core.trace import Trace
from capacity.scheduler import open_session, run_actions, run_cycle
from capacity.simulation.replay import openb_cluster
from capacity.simulation.sim import SimOptions, Simulator
from capacity.simulation.workload import WorkloadSpec, synthetic_cluster

pytestmark = pytest.mark.usefixtures("accelerated_engine")  # (tests of the acceleration itself)


def _workload(seed: int, nodes: int = 4) -> Any:
    spec = WorkloadSpec(seed=seed, jobs=50, arrival_rate=1 / 20, queues={"a": 1.0, "b": 2.0, "c": 1.0},
                        priority_classes={"high": (1000, 1.0), "low": (10, 2.0)},
                        service_types={"training": 2.0, "inference": 1.0},
                        policies={"RestartJob": 1.0, "AbortJob": 1.0, "": 1.0})
    return synthetic_cluster(spec, nodes=nodes)


def _run(seed: int, cached: bool) -> list[str]:
    trace = Trace(enabled=True)
    sim = Simulator(_workload(seed), SimOptions(period=10.0), trace=trace)
    if not cached:
        sim._cache = None  # type: ignore[assignment]  # every session builds everything
    sim.run_to_end(max_cycles=150)
    lines = [json.dumps([r.cycle, r.result.binds, r.result.evicted, r.result.pipelined, r.result.podgroup_phases,
                         r.queue_rows, r.controller], sort_keys=True, default=str) for r in sim.history]
    return lines + [json.dumps(rec.as_dict(), sort_keys=True, default=str) for rec in trace.records]


@pytest.mark.parametrize("seed", [0, 2])
def test_a_simulation_decides_and_explains_the_same_with_and_without_the_cache(seed: int) -> None:
    cached, plain = _run(seed, True), _run(seed, False)
    assert any('"kind": "evict"' in line for line in plain)  # the run exercises evictions and their undoing
    assert cached == plain


def test_an_unchanged_node_without_pods_is_reused() -> None:
    cluster = _workload(1)
    cache = SnapshotCache()
    ssn = open_session(cluster, Trace(enabled=False), cache=cache)
    first = ssn.node_list
    cache.keep()
    _, again, by_name, _, _ = cache.nodes(cluster.nodes, {"node-001": ()})
    assert list(by_name.items()) == [(n.name, n) for n in again]  # in NodeList order, this list's nodes
    assert again[0] is first[0] and again[2] is first[2]
    assert again[1] is not first[1]  # a pod is bound to it: built from its pods
    again[2].mark_touched()  # a task came and went: not as a fresh snapshot builds it
    cache.keep()
    _, third, _, _, _ = cache.nodes(cluster.nodes, {})
    assert third[0] is first[0] and third[2] is not first[2]
    _, fourth, by_name, _, _ = cache.nodes(cluster.nodes, {})  # the last session never gave its nodes back
    assert list(by_name.values()) == fourth
    assert not set(map(id, fourth)) & set(map(id, third))
    cache.keep()
    cordoned = set_node(cluster, "node-000", unschedulable=True).cluster  # other NodeObjs: all built afresh
    _, fifth, _, total, _ = cache.nodes(cordoned.nodes, {})
    assert not set(map(id, fifth)) & set(map(id, fourth)) and fifth[0].unschedulable
    assert total.cpu == ssn.total_resource.cpu


def test_nodefit_starts_empty_nodes_from_their_allocatable_as_a_full_refresh_would() -> None:
    cluster = _workload(3, nodes=40)
    sim = Simulator(cluster, SimOptions(period=10.0))
    sim.run(30)  # some nodes busy, the others empty
    ssn = open_session(sim.cluster, Trace(enabled=False), cache=SnapshotCache())
    fit = ssn.node_fit()
    assert fit is not None
    busy = {i for i, node in enumerate(ssn.node_list) if node.tasks}
    assert busy and len(busy) < fit.n
    quick = (fit.state.copy(), fit.mirror_sums.copy(), list(fit.fi_rows), list(fit.idle_rows), list(fit.sums))
    fit.dirty.update(range(fit.n))
    fit.mirror_dirty.update(range(fit.n))
    fit.refresh()
    np.testing.assert_array_equal(quick[0], fit.state)
    np.testing.assert_array_equal(quick[1], fit.mirror_sums)
    assert (quick[2], quick[3], quick[4]) == (fit.fi_rows, fit.idle_rows, fit.sums)
    run_cycle(sim.cluster, Trace(enabled=False))  # the session is usable as before


OPENB = str(Path(__file__).resolve().parents[1] / "data" / "openb")


def test_a_queue_tree_replay_is_the_same_with_and_without_the_cache() -> None:
    runs = []
    for cached in (True, False):
        trace = Trace(enabled=True)
        sim = Simulator(openb_cluster(OPENB, departments=2, leaves=4), SimOptions(period=10), trace=trace)
        if not cached:
            sim._cache = None  # type: ignore[assignment]
        sim.run_to_end()
        runs.append(([(r.cycle, r.result.binds, r.result.podgroup_phases, r.queue_rows) for r in sim.history],
                     [rec.as_dict() for rec in trace.records]))
        if cached:
            assert "capacity" in sim._cache.plugin_state  # the tree was kept for the next sessions
    assert runs[0] == runs[1]


def test_an_edited_queue_is_not_read_from_the_kept_tree() -> None:
    cluster = openb_cluster(OPENB, departments=2, leaves=4)
    cache = SnapshotCache()
    open_session(cluster, Trace(enabled=False), cache=cache)  # keeps the tree
    leaf = next(name for name, q in cluster.queues.items() if q.parent and q.parent != "root")
    edited = set_queue_resources(cluster, leaf, deserved={"cpu": "3", "memory": "1Gi"}).cluster
    numbers = [open_session(c, Trace(enabled=False), cache=cache).plugins["capacity"].attrs[leaf].summary()
               for c in (edited, edited)]  # the first rebuilds and keeps, the second reads what was kept
    fresh = open_session(edited, Trace(enabled=False)).plugins["capacity"].attrs[leaf].summary()
    assert numbers == [fresh, fresh]
    assert fresh["deserved"]["cpu"] == 3000


def test_a_node_cordoned_between_cycles_is_not_judged_by_the_kept_filters() -> None:
    cluster = _workload(1)
    cache = SnapshotCache()
    ssn = open_session(cluster, Trace(enabled=False), cache=cache)
    task = next(t for t in ssn.all_tasks.values() if not t.node_name)
    assert PredicatesVector(ssn.plugins["predicates"])._static_for(task.spec)[2][0] is None  # node-000 passes
    cache.keep()
    cluster.nodes[0] = replace(cluster.nodes[0], unschedulable=True)  # same allocatable object
    ssn = open_session(cluster, Trace(enabled=False), cache=cache)
    task = ssn.all_tasks[task.uid]
    assert PredicatesVector(ssn.plugins["predicates"])._static_for(task.spec)[2][0] == "node(s) were unschedulable"


def test_the_cache_knows_every_node_a_session_touched_without_scanning_them() -> None:
    cluster = _workload(2, nodes=60)
    sim = Simulator(cluster, SimOptions(period=10.0))
    cache = SnapshotCache()
    seen_busy = False
    for _ in range(40):
        ssn = open_session(sim.cluster, Trace(enabled=False), cache=cache)
        run_actions(ssn)
        scanned = [i for i, n in enumerate(ssn.node_list) if n.touched or n.tasks or n.mirror]
        assert sorted(cache.touched_positions(ssn.node_list) or []) == scanned
        seen_busy = seen_busy or 0 < len(scanned) < len(ssn.node_list)
        ssn.close()
        cache.keep()
        sim.run(1)
    assert seen_busy  # some sessions had both kept and touched nodes


def test_a_session_never_released_leaves_nothing_for_the_next_to_reuse() -> None:
    """A session opened on a cache and never released (what-if, queue numbers) may still change its
    queue attributes; the next session must not start from them."""
    cluster = openb_cluster(OPENB, departments=2, leaves=4)
    cache = SnapshotCache()
    for _ in range(2):  # the first keeps the tree, the second its attributes too
        run_cycle(cluster, Trace(enabled=False), cache=cache)
    kept = cache.plugin_state["capacity"].attrs
    assert kept is not None
    ssn = open_session(cluster, Trace(enabled=False), cache=cache)
    assert ssn.plugins["capacity"].attrs is kept  # started from the kept attributes
    run_actions(ssn)  # allocations move them; the session is never released
    cached = run_cycle(cluster, Trace(enabled=False), write_back=False, cache=cache)
    assert cache.plugin_state["capacity"].attrs is not kept
    plain = run_cycle(cluster, Trace(enabled=False), write_back=False)
    assert (cached.binds, cached.queues) == (plain.binds, plain.queues)


def test_a_busy_queues_numbers_are_reused_only_while_they_stay_the_same() -> None:
    """A queue with jobs reports the very dict of the last session while its numbers stay (summaries are
    read-only), and fresh numbers as soon as one moves."""
    cluster = openb_cluster(OPENB, departments=2, leaves=4, pod_limit=6)
    cache = SnapshotCache()
    run_cycle(cluster, Trace(enabled=False), cache=cache)  # binds: the leaves now have running pods
    leaf = next(p.queue for p in cluster.podgroups.values())

    def numbers(c: Any) -> dict[str, Any]:
        ssn = open_session(c, Trace(enabled=False), cache=cache)
        out = ssn.plugins["capacity"].attrs[leaf].summary()
        ssn.release()
        cache.keep()
        return out

    first, again = numbers(cluster), numbers(cluster)
    assert first["allocated"]["cpu"] > 0 and again is first
    pod = next(p for p in cluster.pods.values() if p.phase == "Running" and
               cluster.podgroups[f"{p.namespace}/{p.group}"].queue == leaf)
    pod.phase = "Succeeded"  # its resources leave the queue's allocated
    moved = numbers(cluster)
    fresh = open_session(cluster, Trace(enabled=False)).plugins["capacity"].attrs[leaf].summary()
    assert moved is not first and moved == fresh
    assert moved["allocated"] != first["allocated"]


def test_flat_capacity_reads_an_edited_queue_afresh_and_keeps_the_rest() -> None:
    cluster = _workload(3)
    cache = SnapshotCache()
    run_cycle(cluster, Trace(enabled=False), cache=cache)  # flat capacity keeps its queues' fixed parts

    def attrs(c: Any) -> dict[str, Any]:
        ssn = open_session(c, Trace(enabled=False), cache=cache)
        out = {name: attr.summary() for name, attr in ssn.plugins["capacity"].attrs.items()}
        ssn.release()
        cache.keep()
        return out

    kept = attrs(cluster)
    assert kept and kept == {name: a.summary() for name, a in
                             open_session(cluster, Trace(enabled=False)).plugins["capacity"].attrs.items()}
    name = sorted(kept)[0]
    edited = set_queue_resources(cluster, name, deserved={"cpu": "3", "memory": "1Gi"}).cluster
    fresh = {n: a.summary() for n, a in open_session(edited, Trace(enabled=False)).plugins["capacity"].attrs.items()}
    assert attrs(edited) == fresh and attrs(edited) == fresh  # rebuilt once, then read from what was kept
    assert fresh[name]["deserved"]["cpu"] == 3000 != kept[name]["deserved"]["cpu"]


def test_an_occupied_node_is_reused_only_with_the_same_pods_and_nothing_changed_on_it() -> None:
    """A node holding pods that no session op changed, with exactly the pods it was built from, is taken as
    it is (its tasks in place, its mirror pointing at the new session's tasks); a pod that moved on (here:
    finished) or a session op on the node (here: a task taken off) builds it afresh, as a cache-less snapshot
    does."""
    cluster = _workload(4, nodes=6)
    cache = SnapshotCache()
    sim = Simulator(cluster, SimOptions(period=10.0))
    sim._cache = cache  # type: ignore[assignment]
    sim.run(6)  # pods bound and running

    def session() -> Any:
        ssn = open_session(sim.cluster, Trace(enabled=False), cache=cache)
        nodes = {n.name: n for n in ssn.node_list}
        plain = open_session(sim.cluster, Trace(enabled=False))
        for name, node in nodes.items():  # whatever was reused: the same accounting and tasks as built afresh
            fresh = plain.nodes[name]
            assert [(k, t.status, t.resreq) for k, t in node.tasks.items()] == \
                [(k, t.status, t.resreq) for k, t in fresh.tasks.items()]
            assert list(node.mirror) == list(fresh.mirror)
            assert all(t is ssn.all_tasks.get(t.uid, t) for t in node.mirror.values())
            assert (node.idle.cpu, node.used.cpu, node.releasing.cpu, node.pipelined.cpu) == \
                (fresh.idle.cpu, fresh.used.cpu, fresh.releasing.cpu, fresh.pipelined.cpu)
        return ssn, nodes

    ssn, first = session()
    cache.keep()
    busy = [name for name, n in first.items() if n.tasks]
    assert busy
    ssn, second = session()  # nothing happened in between
    assert all(second[name] is first[name] for name in busy)
    name = busy[0]
    second[name].remove_task(next(iter(second[name].tasks.values())))  # a session op on it (an eviction's)
    cache.keep()
    ssn, third = session()
    assert third[name] is not first[name]
    assert all(third[n] is first[n] for n in busy[1:])
    cache.keep()
    pod = next(p for p in sim.cluster.pods.values() if p.node_name == busy[-1] and p.phase == "Running")
    pod.phase = "Succeeded"  # it finished: the node's pods are not those it was built from
    _, fourth = session()
    assert fourth[busy[-1]] is not third[busy[-1]]


def test_nodefit_reads_kept_occupied_nodes_as_a_fresh_snapshot_would() -> None:
    """A NodeFit started from the last session's tables (SnapshotCache.fit_tables) reads only the nodes built
    again: its tables on every node, kept or not, are those of the same cluster snapshotted without a cache."""
    cluster = _workload(5, nodes=40)
    sim = Simulator(cluster, SimOptions(period=10.0))
    reused = 0
    last: dict[int, Any] = {}  # the last session's occupied nodes (held, so that no id is reused)
    for _ in range(12):
        sim.run(3)
        cache = sim._cache
        ssn = open_session(sim.cluster, Trace(enabled=False), cache=cache)
        fit = ssn.node_fit()
        plain = open_session(sim.cluster, Trace(enabled=False)).node_fit()
        assert fit is not None and plain is not None
        np.testing.assert_array_equal(fit.state, plain.state)
        np.testing.assert_array_equal(fit.mirror_sums, plain.mirror_sums)
        np.testing.assert_array_equal(fit.pods, plain.pods)
        assert (fit.fi_rows, fit.idle_rows, fit.sums, fit.pods_list) == \
            (plain.fi_rows, plain.idle_rows, plain.sums, plain.pods_list)
        reused += sum(1 for node in ssn.node_list if node.tasks and last.get(id(node)) is node)
        last = {id(node): node for node in ssn.node_list if node.tasks}
        ssn.release()
        cache.keep()
    assert reused  # some occupied nodes came back, their columns from the last tables


def test_a_job_is_reused_only_while_no_task_of_it_moved_and_its_inputs_are_the_same() -> None:
    """A job whose PodGroup and pods are as it was built from, and in which no task moved, comes back with
    its tasks (the session's outputs on it cleared); a task that moved in a session, or a pod that moved on
    between sessions, builds it afresh. Either way it reads as a cache-less snapshot's job."""
    cluster = _workload(6, nodes=6)
    sim = Simulator(cluster, SimOptions(period=10.0))
    sim.run(8)
    cache = sim._cache

    def session() -> dict[str, Any]:
        ssn = open_session(sim.cluster, Trace(enabled=False), cache=cache)
        plain = open_session(sim.cluster, Trace(enabled=False))
        assert list(ssn.jobs) == list(plain.jobs)
        for uid, job in ssn.jobs.items():
            fresh = plain.jobs[uid]
            assert [(t.uid, t.status, t.node_name, t.resreq) for t in job.tasks.values()] == \
                [(t.uid, t.status, t.node_name, t.resreq) for t in fresh.tasks.values()]
            assert (job.phase, job.ready_num, job.allocated.cpu, job.nodes_fit_errors, job.order_key) == \
                (fresh.phase, fresh.ready_num, fresh.allocated.cpu, fresh.nodes_fit_errors, fresh.order_key)
            assert all(ssn.all_tasks[t.uid] is t for t in job.tasks.values())
        assert ssn.all_tasks.keys() == plain.all_tasks.keys()
        # Closed, a kept job ends as a fresh one: its conditions (the last close's, not worked out again when
        # nothing moved in it) and its phase.
        got, want = ssn.close(), plain.close()
        assert got.podgroup_phases == want.podgroup_phases and list(got.podgroup_phases) == list(ssn.jobs)
        for uid, job in ssn.jobs.items():
            fresh = plain.jobs[uid]
            assert (job.phase, job.conditions, job.unschedulable_this_session) == \
                (fresh.phase, fresh.conditions, fresh.unschedulable_this_session)
        return ssn.jobs

    first = session()
    cache.keep()
    second = session()
    running = [uid for uid, job in first.items() if job.ready_num and second[uid] is job]
    assert running  # jobs nothing happened to came back
    uid = running[0]
    task = next(iter(second[uid].tasks.values()))
    second[uid].update_task_status(task, task.status)  # a task moved (and came back): built afresh
    cache.keep()
    third = session()
    cache.keep()
    assert third[uid] is not second[uid]
    assert all(third[other] is second[other] for other in running[1:])
    pod = next(p for p in sim.cluster.pods.values() if f"{p.namespace}/{p.group}" == running[-1])
    pod.phase = "Succeeded"  # between sessions: its pods are not those it was built from
    fourth = session()
    assert fourth[running[-1]] is not third[running[-1]]


def test_flat_capacity_reuses_a_queue_only_with_the_same_untouched_jobs() -> None:
    """Flat capacity takes the last session's attribute of a queue whose jobs are the very jobs the
    snapshot kept and that nothing changed in the session (an allocation makes it build the queue again);
    every queue's numbers are those of a cache-less session either way."""
    cluster = _workload(7, nodes=6)
    sim = Simulator(cluster, SimOptions(period=10.0))
    sim.run(8)
    cache = sim._cache

    def attrs() -> dict[str, Any]:
        ssn = open_session(sim.cluster, Trace(enabled=False), cache=cache)
        got = dict(ssn.plugins["capacity"].attrs)
        plain = open_session(sim.cluster, Trace(enabled=False)).plugins["capacity"].attrs
        assert list(got) == list(plain)
        assert {n: a.summary() for n, a in got.items()} == {n: a.summary() for n, a in plain.items()}
        ssn.close()
        cache.keep()
        return got

    first = attrs()
    second = attrs()
    same = [name for name in first if second[name] is first[name]]
    assert same  # queues whose jobs did not move come back as they were
    second[same[0]].dirty = True  # as an allocation in that queue would leave it
    third = attrs()
    assert third[same[0]] is not second[same[0]]
    assert all(third[name] is second[name] for name in same[1:])


def _placed_runs(cached: bool) -> list[Any]:
    """Two 4-cpu nodes. t=10: a1 (3 cpu) binds; t=20: b1 (1 cpu) binds elsewhere; t=30: a2 (3 cpu), the
    same kind of task as a1, fits only where b1 went (least-allocated: the emptier node wins)."""
    from tests.builders import cluster, node, queue
    from tests.unit.test_sim import RECLAIM, job
    objs = [RECLAIM, node("n1", cpu="4", memory="16Gi"), node("n2", cpu="4", memory="16Gi"),
            queue("q", deserved={"cpu": "8", "memory": "32Gi"}),
            *job("a1", "q", 1, cpu="3", arrival=10), *job("b1", "q", 1, cpu="1", arrival=20),
            *job("a2", "q", 1, cpu="3", arrival=30)]
    sim = Simulator(cluster(*objs), SimOptions(period=10))
    if not cached:
        sim._cache = None  # type: ignore[assignment]
    sim.run_to_end(max_cycles=12)
    return [(r.cycle, r.result.binds) for r in sim.history if r.result.binds]


def test_a_placement_is_carried_to_the_next_session_only_when_used_in_this_one() -> None:
    """allocate's per-node answers for a kind of task (Placement) go on to the next session, which answers
    again for the nodes it reads again. One that a session did not use is stale at the nodes that session
    read again (a1's node, after a1 bound): it must not reach a later session."""
    cached, plain = _placed_runs(True), _placed_runs(False)
    binds = {pod: node for _, b in plain for pod, node in b.items()}
    assert binds["ns1/a1-worker-0"] != binds["ns1/a2-worker-0"]  # a2 goes where a1 is not
    assert cached == plain


def test_placements_resumed_across_sessions_decide_as_fresh_ones() -> None:
    from capacity.accel import nodefit
    resumed = []
    real = nodefit.Placement.resume

    def spy(fit: Any, arrays: Any) -> Any:
        resumed.append(1)
        return real(fit, arrays)

    nodefit.Placement.resume = spy  # type: ignore[method-assign]
    try:
        runs = [_run(seed, cached) for seed in (1, 3) for cached in (True, False)]
    finally:
        nodefit.Placement.resume = real  # type: ignore[method-assign]
    assert resumed  # the runs do carry placements over
    assert runs[0] == runs[1] and runs[2] == runs[3]


def _rows(table: Any) -> list[tuple[Any, ...]]:
    """A VictimTable's rows as the actions read them (ids as the names they stand for)."""
    queues = {k: q for q, k in table.queue_ids.items()}
    jobs = {k: j for j, k in table.job_ids.items()}
    return [(id(t), int(table.node[k]), queues[int(table.queue[k])], jobs[int(table.job[k])],
             bool(table.preemptable[k]), bool(table.best_effort[k]), table.req[:, k].tolist(),
             bool(table.reclaimable[k]))
            for k, t in enumerate(table.tasks)]


def _even_name(t: Any) -> bool:
    """A test of a task's fixed fields, for VictimTable.static_answers."""
    return len(t.name) % 2 == 0


def _checked_takeovers(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Check every VictimTable taken over against one built afresh in the same session; count them. Every
    other row of a table taken over is asked a fixed-field test, as a plugin's bound may ask it (whether one
    does depends on the bounds before it): the next takeover checks the answers it carries."""
    from capacity.accel import victim_bound

    kept = victim_bound._kept
    seen = {"taken": 0, "reread": 0, "static": 0, "statuses kept": 0, "job answers": 0}

    def checked(ssn: Any, fit: Any) -> Any:
        last = ssn.last_victim_table
        tasks = list(last.tasks) if last is not None else None
        table = kept(ssn, fit)
        if table is not None:
            seen["taken"] += 1
            seen["reread"] += table.tasks != tasks
            seen["statuses kept"] += table.tasks == tasks
            fresh = victim_bound.VictimTable(ssn, fit)
            assert _rows(table) == _rows(fresh)
            assert table.status.tolist() == fresh.status.tolist()
            for answers in table.per_job.values():  # (gang's surplus: the only per-job answer)
                for k in (answers >= 0).nonzero()[0].tolist():
                    job = ssn.jobs.get(table.job_uids[k])
                    assert bool(answers[k]) == (job is None or job.ready_num > job.min_available)
                    seen["job answers"] += 1
            assert table.version == ssn.version and table.flags == {}  # nothing answered for another session
            for test, answers in table.static.items():  # what a task's fixed fields answer is carried
                asked = (answers >= 0).nonzero()[0].tolist()
                assert [bool(answers[k]) for k in asked] == [test(table.tasks[k]) for k in asked]
                seen["static"] += len(asked)
            table.static_answers(_even_name, np.arange(0, len(table.tasks), 2))
        return table

    monkeypatch.setattr(victim_bound, "_kept", checked)
    return seen


def test_a_kept_victim_table_has_the_rows_a_fresh_one_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """Taken over by the next session, the VictimTable reads again the rows of every node that is not the
    same: its rows are those a table built in that session has, in the same order."""
    seen = _checked_takeovers(monkeypatch)
    sim = Simulator(openb_cluster(OPENB, departments=2, leaves=4), SimOptions(period=10))
    sim.run_to_end()
    assert seen["taken"] >= 5 and seen["reread"] >= 3 and seen["static"] >= 5
    assert seen["statuses kept"] >= 1 and seen["job answers"] >= 5


def test_a_victim_tables_kept_room_answers_are_those_made_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """The nodes where a preemptor fits beside a set of rows are kept per rows and request, for the same
    FutureIdle only: in the next session too when its NodeFit holds the same values, never once they moved
    (a replay's pods come and go). Every answer equals the one made from the table's sums and FutureIdle."""
    from capacity.accel import victim_bound

    real = victim_bound.VictimTable._room
    seen = {"asked": 0, "kept": 0, "dropped": 0}

    def checked(self: Any, task: Any, rows: np.ndarray) -> np.ndarray:
        fit, fi = self.fit, self._rooms_fi
        later = self._rooms_at is not None and self._rooms_at[0] is not fit  # (first ask of a later session)
        got = real(self, task, rows)
        assert got.tolist() == fit.fit(task.init_resreq, fit.bound(self._sums_of(rows)))[0].tolist()
        seen["asked"] += 1
        seen["kept"] += later and self._rooms_fi is fi
        seen["dropped"] += later and self._rooms_fi is not fi
        return got

    monkeypatch.setattr(victim_bound.VictimTable, "_room", checked)
    sim = Simulator(openb_cluster(OPENB, departments=2, leaves=4), SimOptions(period=10))
    sim.run_to_end()
    c = _reclaiming_cluster(running=5)  # (b-0 waits; nothing moves from one cycle to the next)
    cache = SnapshotCache()
    for _ in range(3):
        run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert seen["asked"] >= 20 and seen["kept"] >= 2 and seen["dropped"] >= 1


def _reclaiming_cluster(running: int) -> Any:
    """12 nodes; q1 above its deserved with pods a0-0 .. on n0 .. (PodGroups a0..a3 only: a4-0 would have
    none); b-0 of q2 waits, too big for any node, so reclaim builds a table and evicts nothing."""
    from tests.builders import cluster, conf, node, pod, podgroup, queue

    return cluster(conf("reclaim", [{"name": "priority"}, {"name": "gang"}, {"name": "capacity"}],
                        [{"name": "predicates"}, {"name": "nodeorder"}]),
                   *[node(f"n{i}", cpu="2", memory="4Gi") for i in range(12)],
                   queue("q1", deserved={"cpu": "1"}), queue("q2", deserved={"cpu": "9"}),
                   *[podgroup(f"a{i}", "q1", phase="Running") for i in range(4)],
                   *[pod(f"a{i}-0", f"a{i}", {"cpu": "2"}, node_name=f"n{i}") for i in range(running)],
                   podgroup("b", "q2", phase="Inqueue"), pod("b-0", "b", {"cpu": "3"}))


def test_a_kept_victim_table_reads_again_the_nodes_of_jobs_built_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job built anew (its PodGroup edited, or new) brings new Task objects onto nodes; a job gone takes
    its rows with it; the queues' reclaimable flags are read again; a NodeList of other nodes is built
    afresh. Rows read again or kept are those a fresh table would have."""
    seen = _checked_takeovers(monkeypatch)
    c = _reclaiming_cluster(running=5)
    cache = SnapshotCache()
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)  # b-0 fits nowhere: nothing evicted
    table = cache.victim_table
    assert table is not None and len(table.tasks) == 4  # a4-0 has no PodGroup: no session task
    c.podgroups["ns1/a1"] = replace(c.podgroups["ns1/a1"], annotations={"edited": "yes"})  # a1 built anew
    c.podgroups["ns1/a4"] = replace(c.podgroups["ns1/a0"], name="a4")  # a4-0, on a node kept as it is, joins it
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    c.queues["q1"] = replace(c.queues["q1"], reclaimable=False)  # read again, though every row is kept
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert cache.victim_table is table and len(table.tasks) == 5 and not table.reclaimable.any()
    del c.podgroups["ns1/a2"]  # a2-0 still runs on n2, outside every job: no row
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert cache.victim_table is table and len(table.tasks) == 4
    c.podgroups["ns1/g"] = replace(c.podgroups["ns1/b"], name="g")  # a request of a new kind: other rows
    c.pods["ns1/g-0"] = replace(c.pods["ns1/b-0"], name="g-0", uid="ns1-g-0", group="g",
                                resreq=Resource(1000, 0, {"nvidia.com/gpu": 1000}))
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert cache.victim_table is not table and len(cache.victim_table.req) == len(table.req) + 1
    c.nodes[3] = replace(c.nodes[3], name="m3")  # n3 (and a3-0's place) gone, m3 in its place
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert len(cache.victim_table.tasks) == 3
    assert seen["taken"] == 3  # (the last two tables were built afresh)


def test_a_kept_victim_table_reads_again_nodes_whose_rows_grow(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nodes read again whose number of rows changes (a new job's task joins a0-0 on n0) ahead of other
    nodes read again (a3 built anew, on n3): every row is a fresh table's, in NodeList order."""
    seen = _checked_takeovers(monkeypatch)
    c = _reclaiming_cluster(running=4)
    cache = SnapshotCache()
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    c.podgroups["ns1/a4"] = replace(c.podgroups["ns1/a0"], name="a4")
    c.pods["ns1/a4-0"] = replace(c.pods["ns1/a0-0"], name="a4-0", uid="ns1-a4-0", group="a4")
    c.podgroups["ns1/a3"] = replace(c.podgroups["ns1/a3"], annotations={"edited": "yes"})
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert seen["taken"] == 1 and seen["reread"] == 1 and len(cache.victim_table.tasks) == 5


def test_a_kept_victim_tables_job_answers_follow_a_job_built_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gang's answer per job (a surplus above minAvailable) is kept with the table while the job is kept; a
    job built anew (one of its two pods done) is asked again, whether the snapshot knows the kept jobs or,
    with two pods sharing a uid, does not."""
    from tests.builders import cluster, pod, podgroup

    for shared in (False, True):
        seen = _checked_takeovers(monkeypatch)
        extra = cluster(podgroup("c", "q1", phase="Running"),
                        *[pod(f"c-{i}", "c", {"cpu": "2"}, node_name=f"n{i}") for i in (4, 5)])
        c = _reclaiming_cluster(running=4)
        c.podgroups.update(extra.podgroups)
        c.pods.update(extra.pods)
        c.pods["ns1/b-0"] = replace(c.pods["ns1/b-0"], resreq=Resource(2000, 0))  # room where c-4 or c-5 left
        if shared:
            c.pods["ns1/a1-0"].uid = c.pods["ns1/a0-0"].uid
        cache = SnapshotCache()
        run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)  # c has a surplus: asked, kept
        assert cache.victim_table.per_job
        del c.pods["ns1/c-5"]  # c built anew, at its minAvailable
        run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
        assert seen["taken"] == 1, shared


def test_a_victim_table_is_taken_over_only_from_the_session_just_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job built anew in a session that used no VictimTable is kept by the next: the table of two
    sessions back would miss its tasks' rows, so it is not taken over (Helios replay, 4,000 jobs: three
    binds differed)."""
    seen = _checked_takeovers(monkeypatch)
    c = _reclaiming_cluster(running=4)
    cache = SnapshotCache()
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)  # reclaim builds a table
    waiting = c.pods.pop("ns1/b-0")  # nothing waits: reclaim and preempt use no table ...
    c.podgroups["ns1/a4"] = replace(c.podgroups["ns1/a0"], name="a4")  # ... while a4 is built anew
    c.pods["ns1/a4-0"] = replace(c.pods["ns1/a0-0"], name="a4-0", uid="ns1-a4-0", group="a4", node_name="n4")
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    c.pods["ns1/b-0"] = waiting  # a4 kept now: not built anew in this session
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert seen["taken"] == 0 and len(cache.victim_table.tasks) == 5
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert seen["taken"] == 1


def test_a_pod_moved_to_another_node_between_sessions_rebuilds_its_job() -> None:
    """A pod whose node changed (nothing else) is not the pod its job was built from: the next session's task
    is on the new node, as a cache-less snapshot's, not on the node it was kept with."""
    cluster = _workload(6, nodes=6)
    sim = Simulator(cluster, SimOptions(period=10.0))
    sim.run(8)
    cache = sim._cache
    ssn = open_session(sim.cluster, Trace(enabled=False), cache=cache)
    ssn.close()
    cache.keep()
    pod = next(p for p in sim.cluster.pods.values() if p.phase == "Running")
    other = next(n.name for n in sim.cluster.nodes if n.name != pod.node_name)
    pod.node_name = other
    ssn = open_session(sim.cluster, Trace(enabled=False), cache=cache)
    plain = open_session(sim.cluster, Trace(enabled=False))
    assert ssn.all_tasks[pod.uid].node_name == plain.all_tasks[pod.uid].node_name == other
    assert pod.key in ssn.nodes[other].tasks


def test_every_starving_job_is_among_those_the_session_says_may_starve(monkeypatch: pytest.MonkeyPatch) -> None:
    """Preempt asks only the jobs that may starve (Session.starving_candidates: those that might at open,
    carried for kept jobs, and those a task moved in since): whenever preempt and reclaim run, every job
    priority's or gang's jobStarving calls starving is among them, and so is every job with a waiting task."""
    import capacity.actions.preempt as preempt
    import capacity.actions.reclaim as reclaim
    from capacity.core.model import TaskStatus

    seen = {"starving": 0, "asked": 0, "kept": 0}

    def check(ssn: Any) -> None:
        candidates = ssn.starving_candidates()
        assert candidates is not None
        names = [job.uid for job in candidates]
        assert names == sorted(names)
        for job in ssn.jobs.values():
            pending = any(not t.sch_gated for t in job.tasks_in(TaskStatus.PENDING))
            starving = ssn.job_starving(job)
            if starving or pending:
                assert job.uid in names
            seen["starving"] += starving
        seen["asked"] += len(names)
        seen["kept"] += len(ssn.kept_jobs or ())

    for module in (preempt, reclaim):
        real = module.execute

        def spy(ssn: Any, real: Any = real) -> None:
            check(ssn)
            real(ssn)

        monkeypatch.setattr(module, "execute", spy)
    for seed in (0, 2):
        sim = Simulator(_workload(seed), SimOptions(period=10.0))
        sim.run_to_end(max_cycles=150)
    assert seen["starving"] and seen["kept"]


def test_a_job_a_reclaim_left_short_is_among_those_that_may_starve(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job all of whose pods ran when the session opened (it could not starve then) that a reclaim leaves
    a pod short is asked by preempt: the task that moved put it on the session's list of changed jobs.
    (Starving as priority says, gang's jobStarving off: gang would let go only of pods above minAvailable.)"""
    import capacity.actions.preempt as preempt
    from tests.builders import cluster, conf, node, pod, podgroup, queue

    objs = [conf("enqueue, allocate, reclaim, preempt", [{"name": "priority"},
                                                         {"name": "gang", "enableJobStarving": False},
                                                         {"name": "capacity"}],
                 [{"name": "predicates"}, {"name": "nodeorder"}]),
            *[node(f"n{i}", cpu="2", memory="4Gi") for i in range(4)],
            queue("q1", deserved={"cpu": "1"}), queue("q2", deserved={"cpu": "6"}),
            *[podgroup(f"a{i}", "q1", phase="Running") for i in range(4)],  # (minMember 1: one pod to spare)
            *[pod(f"a{i}-{k}", f"a{i}", {"cpu": "1"}, node_name=f"n{i}") for i in range(4) for k in range(2)]]
    c = cluster(*objs)
    cache = SnapshotCache()
    run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)  # every a-job runs and is kept
    late = cluster(*objs, podgroup("b", "q2", phase="Inqueue"), pod("b-0", "b", {"cpu": "1"}))
    c.podgroups["ns1/b"], c.pods["ns1/b-0"] = late.podgroups["ns1/b"], late.pods["ns1/b-0"]
    short: list[str] = []
    real = preempt.execute

    def spy(ssn: Any) -> None:
        candidates = {job.uid for job in ssn.starving_candidates()}
        for job in ssn.jobs.values():
            if ssn.job_starving(job):
                assert job.uid in candidates
                if job.uid not in ssn.may_starve_open:
                    short.append(job.uid)
        real(ssn)

    monkeypatch.setattr(preempt, "execute", spy)
    result = run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
    assert len(result.evicted) == 1 and short == [c.pods[result.evicted[0]].namespace + "/" +
                                                  c.pods[result.evicted[0]].group]


def test_the_sums_a_victim_table_keeps_are_those_of_its_rows_now() -> None:
    """A VictimTable keeps the per-node sums of a candidate set (VictimTable._room) while its rows stay; rows
    read again (a splice) make them anew: the room it answers is a fresh table's."""
    from capacity.accel.victim_bound import VictimTable

    c = _reclaiming_cluster(running=4)
    ssn = open_session(c, Trace(enabled=False))
    fit = ssn.node_fit()
    assert fit is not None
    table = VictimTable(ssn, fit)
    task = copy.copy(ssn.all_tasks["ns1-b-0"])
    task.init_resreq = Resource(cpu=2000.0, memory=0.0)  # (what one victim frees: room where one runs)
    rows = table.reclaimees(ssn, "q2")
    before = table._room(task, rows)
    for t in table.tasks:
        t.resreq = Resource(cpu=1000.0, memory=0.0)  # (half what each victim held: no room where one runs)
    table._splice(ssn, fit, np.ones(fit.n, dtype=bool))
    after = table._room(task, table.reclaimees(ssn, "q2"))
    assert before[:4].all() and not after[:4].any()  # (n0 .. n3 hold the victims; the others are empty)
    np.testing.assert_array_equal(after, VictimTable(ssn, fit)._room(task, rows))


def test_a_session_that_was_not_kept_hands_no_tasks_on() -> None:
    """A session opened with the cache but never kept (no `keep`), then every job gone: the next session has no
    task, although as many jobs (none) as the last session it heard of."""
    cluster = _workload(6, nodes=6)
    sim = Simulator(cluster, SimOptions(period=10.0))
    sim.run(8)
    cache = sim._cache
    assert open_session(sim.cluster, Trace(enabled=False), cache=cache).all_tasks
    sim.cluster.podgroups.clear()
    assert open_session(sim.cluster, Trace(enabled=False), cache=cache).all_tasks == {}


def test_a_traced_cycle_with_the_cache_still_records_why_a_job_without_pending_tasks_is_skipped() -> None:
    """With a cache allocate visits only the jobs that may starve when nothing is traced; traced, it visits
    every job, as without the cache: g (two workers running, its ps role empty: gang finds it invalid, yet it
    cannot starve) gets its skipJob record either way."""
    from tests.builders import cluster, node, pod, podgroup, queue
    from tests.unit.test_sim import RECLAIM

    def objs() -> Any:
        g = podgroup("g", "q", min_member=2)
        g["spec"]["minTaskMember"] = {"ps": 1, "worker": 1}
        workers = [pod(f"g-{i}", "g", {"cpu": "1"}, node_name="n1") for i in range(2)]
        for w in workers:
            w["metadata"]["annotations"]["volcano.sh/task-spec"] = "worker"
        return cluster(RECLAIM, node("n1"), queue("q", deserved={"cpu": "8", "memory": "16Gi"}), g, *workers,
                       podgroup("h", "q"), pod("h-0", "h", {"cpu": "1"}))

    runs = []
    for cache in (SnapshotCache(), None):
        c = objs()
        records = []
        for _ in range(2):
            trace = Trace(enabled=True)
            run_cycle(c, trace, cache=cache)
            records += [json.dumps(r.as_dict(), sort_keys=True, default=str) for r in trace.records]
        runs.append(records)
    assert runs[0] == runs[1]
    assert any('"kind": "skipJob"' in r and '"ns1/g"' in r for r in runs[1])


def test_reclaim_with_a_snapshot_cache_acts_for_every_starving_job_of_a_queue() -> None:
    """With a SnapshotCache reclaim asks only the jobs that may starve once their queue is queued (the
    others' answers have no effect untraced): all three starving jobs of q2 still reclaim, as without it."""
    from tests.builders import cluster, conf, node, pod, podgroup, queue

    c = cluster(conf("reclaim", [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}],
                     [{"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}]),
                *[node(f"n{i}", cpu="2", memory="4Gi") for i in range(4)],
                queue("q1", deserved={"cpu": "1"}), queue("q2", deserved={"cpu": "9"}),
                *[podgroup(f"a{i}", "q1", phase="Running") for i in range(4)],
                *[pod(f"a{i}-{k}", f"a{i}", {"cpu": "1"}, node_name=f"n{i}") for i in range(4) for k in range(2)],
                *[x for j in "bde" for x in (podgroup(j, "q2"), pod(f"{j}-0", j, {"cpu": "1"}))])
    plain = run_cycle(c, Trace(enabled=False), write_back=False)
    cache = SnapshotCache()
    for _ in range(2):
        cached = run_cycle(c, Trace(enabled=False), cache=cache, write_back=False)
        assert cached.evicted == plain.evicted and len(plain.evicted) == 3
