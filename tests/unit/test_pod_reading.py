"""PodReading: what the last snapshot read of the pods, brought up to date from their write stamps, must be
what reading every pod again gives, whatever was written, added, replaced, removed or reordered."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

import pytest

from capacity.accel.nodefit import session_request_facts
from capacity.accel.pod_reading import PodReading
from capacity.accel.snapshot_cache import SnapshotCache
from capacity.core.cluster import Cluster, revision
from capacity.core.resources import Resource
from capacity.core.trace import Trace
from capacity.scheduler import open_session
from capacity.simulation.sim import SimOptions, Simulator
from capacity.simulation.workload import WorkloadSpec, synthetic_cluster

pytestmark = pytest.mark.usefixtures("accelerated_engine")  # (tests of the acceleration itself)


def _cluster(seed: int) -> Cluster:
    spec = WorkloadSpec(seed=seed, jobs=30, arrival_rate=1 / 5, queues={"a": 1.0, "b": 2.0, "c": 1.0},
                        priority_classes={"high": (1000, 1.0), "low": (10, 2.0)})
    sim = Simulator(synthetic_cluster(spec, nodes=5), SimOptions(period=10.0))
    sim.run(10)  # pods bound, running, some finished
    return sim.cluster


def _write(c: Cluster, rng: random.Random, gone: list[Any], saved: list[Any]) -> str:
    """One random change of the kind a write-back, a replay or an edit makes; answers what it did."""
    pods = list(c.pods.values())
    nodes = [n.name for n in c.nodes]
    pod = rng.choice(pods) if pods else None
    kind = rng.choice(["phase", "node", "deleting", "nominated", "priority", "resreq", "group", "copy",
                       "delete", "back", "add", "reorder", "pg_phase", "pg_min", "pg_copy", "pg_delete",
                       "priority_class", "queue_gone", "same", "save", "restore", "restore", "groupless", "uid",
                       "stray"])
    if pod is None and kind not in ("back", "priority_class"):
        kind = "back"
    if kind == "phase":
        pod.phase = rng.choice(["Running", "Pending", "Succeeded"])
    elif kind == "node":
        pod.node_name = rng.choice([*nodes, "", "no-such-node"])
    elif kind == "deleting":
        pod.deleting = not pod.deleting
    elif kind == "nominated":
        pod.nominated_node = rng.choice(nodes)
    elif kind == "priority":
        pod.priority = rng.choice([0, 10, 1000])
    elif kind == "resreq":
        pod.resreq = Resource(cpu=rng.choice([100.0, 500.0]), memory=1024.0 ** 2)
    elif kind == "group":
        pod.group = rng.choice([p.group for p in pods])
    elif kind == "groupless":
        pod.group = ""
    elif kind == "stray":  # of no job, on a node the cluster does not have
        pod.group, pod.node_name = "", "no-such-node"
    elif kind == "uid":  # two pods with one uid (the snapshot then links them as it always did)
        pod.uid = rng.choice(pods).uid
    elif kind == "copy":  # the same fields in another object (a rewind restores copies)
        c.pods[pod.key] = copy.copy(pod)
    elif kind == "delete":
        gone.append(c.pods.pop(pod.key))
    elif kind == "back" and gone:
        back = gone.pop(rng.randrange(len(gone)))
        c.pods[back.key] = back  # (at the end of the order)
    elif kind == "add":
        new = replace(pod, name=f"{pod.name}-x{rng.randrange(10**6)}")
        new.uid = f"{new.namespace}-{new.name}"
        c.pods[new.key] = new
    elif kind == "reorder":
        items = list(c.pods.items())
        rng.shuffle(items)
        c.pods = dict(items)
    elif kind in ("pg_phase", "pg_min", "pg_copy", "pg_delete") and len(c.podgroups) > 5:
        pg = rng.choice(list(c.podgroups.values()))
        if kind == "pg_phase":
            pg.phase = rng.choice(["Pending", "Inqueue", "Running"])
        elif kind == "pg_min":
            pg.min_member = rng.choice([1, 2])
        elif kind == "pg_copy":
            c.podgroups[pg.uid] = copy.copy(pg)
        else:
            del c.podgroups[pg.uid]
    elif kind == "priority_class":
        c.priority_classes = {**c.priority_classes, "high": rng.choice([1000, 5])}
    elif kind == "queue_gone":
        name = rng.choice(list(c.queues))
        if len(c.queues) > 2 and not any(q.parent == name for q in c.queues.values()):
            c.queues = {k: q for k, q in c.queues.items() if k != name}
    elif kind == "same":  # a write of the value already there: stamped all the same
        pod.phase = pod.phase
    elif kind == "save":  # copies as history keeps them ...
        saved.append(copy.copy(pod))
        saved.append(copy.copy(rng.choice(list(c.podgroups.values()))))
    elif kind == "restore" and saved:  # ... put back later (a rewind): older fields, an older stamp
        old = saved.pop(rng.randrange(len(saved)))
        if hasattr(old, "group"):
            c.pods[old.key] = old
        else:
            c.podgroups[old.uid] = old
    return kind


def _entries(reading: PodReading) -> tuple[dict[str, Any], dict[str, Any]]:
    return dict(reading.occupied), dict(reading.in_job)


@pytest.mark.parametrize("seed", range(4))
def test_a_kept_reading_is_a_fresh_one_after_any_writes(seed: int) -> None:
    """After every round of random writes, the kept reading's per-node and per-job fields equal a fresh
    reading's, in pod order, and the jobs it reports changed are at least those whose entry changed."""
    rng = random.Random(seed)
    c = _cluster(seed)
    kept = PodReading()
    kept.read(c.pods)
    gone: list[Any] = []
    saved: list[Any] = []
    kinds: set[str] = set()
    for _ in range(150):
        before = _entries(kept)
        for _ in range(rng.choice([0, 1, 1, 2, 5])):
            kinds.add(_write(c, rng, gone, saved))
        moved = kept.read(c.pods)
        fresh = PodReading()
        fresh.read(c.pods)
        assert _entries(kept) == _entries(fresh)
        if moved is not None:
            changed = {j for j in set(before[1]) | set(kept.in_job) if before[1].get(j) != kept.in_job.get(j)}
            assert changed <= moved
    assert {"node", "copy", "delete", "back", "add", "reorder", "same", "restore", "groupless", "uid", "stray"} <= kinds


def test_a_write_is_stamped_after_the_reading_and_a_copy_keeps_the_stamp() -> None:
    c = _cluster(0)
    pod = next(iter(c.pods.values()))
    stamp = revision()
    assert pod.rev < stamp
    twin = copy.copy(pod)
    assert twin.rev == pod.rev  # (its fields were last written then; it is another object all the same)
    pod.phase = pod.phase
    assert pod.rev > stamp


def _amounts(r: Resource) -> tuple[Any, ...]:
    return r.cpu, r.memory, dict(r.scalars or {})


def _task_fields(t: Any) -> tuple[Any, ...]:
    return t.uid, t.status, t.node_name, _amounts(t.resreq), t.priority, t.nominated_node


def _linked(ssn: Any, task: Any) -> bool:
    """The task is the session's task of its pod (where two pods share a uid, `all_tasks` has one)."""
    got = ssn.all_tasks.get(task.uid)
    return got is None or got is task or got.key != task.key


def _same_session(c: Cluster, cache: SnapshotCache) -> int:
    """A session with the cache reads as one without: the same jobs, tasks, nodes and accounting. Answers
    how many jobs the cache's session took as kept."""
    ssn = open_session(c, Trace(enabled=False), cache=cache)
    plain = open_session(c, Trace(enabled=False))
    assert list(ssn.jobs) == list(plain.jobs)
    for uid, job in ssn.jobs.items():
        fresh = plain.jobs[uid]
        assert [_task_fields(t) for t in job.tasks.values()] == [_task_fields(t) for t in fresh.tasks.values()]
        assert (job.phase, job.queue, job.min_available, job.priority, job.ready_num) == \
            (fresh.phase, fresh.queue, fresh.min_available, fresh.priority, fresh.ready_num)
        assert all(_linked(ssn, t) for t in job.tasks.values())
    assert [t.uid for t in ssn.loose] == [t.uid for t in plain.loose]
    assert {u: t.key for u, t in ssn.all_tasks.items()} == {u: t.key for u, t in plain.all_tasks.items()}
    for name, node in ssn.nodes.items():
        other = plain.nodes[name]
        assert [(k, t.status, _amounts(t.resreq)) for k, t in node.tasks.items()] == \
            [(k, t.status, _amounts(t.resreq)) for k, t in other.tasks.items()]
        assert [(k, t.uid, t.status) for k, t in node.mirror.items()] == \
            [(k, t.uid, t.status) for k, t in other.mirror.items()]
        assert all(_linked(ssn, t) for t in node.mirror.values())
        assert all(t in ssn.loose for t in node.mirror.values() if t.uid not in ssn.all_tasks)
        assert [_amounts(r) for r in (node.idle, node.used, node.releasing)] == \
            [_amounts(r) for r in (other.idle, other.used, other.releasing)]
    # (NodeFit's request facts, carried from the last session's count with the cache)
    assert session_request_facts(ssn) == session_request_facts(plain)
    kept = len(ssn.jobs) - len(ssn.fresh_jobs)
    ssn.close()
    cache.keep()
    return kept


@pytest.mark.parametrize("seed", range(3))
def test_sessions_with_a_kept_reading_read_as_cacheless_ones_after_any_writes(seed: int) -> None:
    rng = random.Random(100 + seed)
    c = _cluster(seed)
    cache = SnapshotCache()
    gone: list[Any] = []
    saved: list[Any] = []
    kept = 0
    for _ in range(60):
        for _ in range(rng.choice([0, 1, 3])):
            _write(c, rng, gone, saved)
        kept += _same_session(c, cache)
    assert kept  # sessions did take jobs as kept: the comparison covers that path


def test_two_pods_sharing_a_uid_link_as_without_the_cache() -> None:
    """Where two pods of two jobs share a uid, the session's task of that uid is the later pod's in the
    cluster's pod order (what a cache-less snapshot gives), not the later job's."""
    c = _cluster(1)
    cache = SnapshotCache()
    _same_session(c, cache)
    pgs = list(c.podgroups)
    first = next(p for p in c.pods.values() if f"{p.namespace}/{p.group}" == pgs[0])
    last = next(p for p in c.pods.values() if f"{p.namespace}/{p.group}" == pgs[-1])
    last.uid = first.uid
    c.pods = {last.key: last, **{k: p for k, p in c.pods.items() if k != last.key}}  # the later job's pod first
    _same_session(c, cache)
    ssn = open_session(c, Trace(enabled=False), cache=cache)
    assert ssn.all_tasks[first.uid].key == first.key


def test_a_podgroup_put_back_as_an_older_copy_is_read_again() -> None:
    """A rewind puts back an older copy of a PodGroup: not written since the last reading (its stamp is
    older), nothing else written either, yet its fields are not those of the object read last time. The
    session with the cache builds its job from it, as a cache-less session does."""
    c = _cluster(0)
    cache = SnapshotCache()
    for _ in range(3):
        _same_session(c, cache)
    ssn = open_session(c, Trace(enabled=False), cache=cache)
    uid = next(u for u in ssn.jobs if u in ssn.kept_jobs)  # type: ignore[operator]
    ssn.close()
    cache.keep()
    pg = c.podgroups[uid]
    old = copy.copy(pg)
    pg.annotations = {**pg.annotations, "edited": "yes"}
    _same_session(c, cache)
    _same_session(c, cache)  # (nothing written since)
    c.podgroups[uid] = old
    ssn = open_session(c, Trace(enabled=False), cache=cache)
    assert uid not in ssn.kept_jobs and "edited" not in ssn.jobs[uid].annotations  # type: ignore[operator]


def test_a_podgroup_moved_to_a_queue_that_does_not_exist_leaves_the_session() -> None:
    """A PodGroup edited to name a queue the cluster does not have: the session with the cache leaves its
    job out, as a cache-less session does, although the job was kept until then."""
    c = _cluster(1)
    cache = SnapshotCache()
    for _ in range(2):
        _same_session(c, cache)
    uid, pg = next(iter(c.podgroups.items()))
    pg.queue = "no-such-queue"
    _same_session(c, cache)
    ssn = open_session(c, Trace(enabled=False), cache=cache)
    assert uid not in ssn.jobs


def test_request_facts_carried_from_session_to_session_drop_a_name_no_job_asks_any_more() -> None:
    """NodeFit's request facts are counted per job and carried: when the one job asking for a GPU asks for
    none any more, the name leaves them, as a cache-less session finds."""
    c = _cluster(2)
    for pod in c.pods.values():
        pod.resreq = Resource(cpu=100.0, memory=1024.0 ** 2)
    pod = next(iter(c.pods.values()))
    pod.resreq = Resource(cpu=100.0, memory=1024.0 ** 2, scalars={"nvidia.com/gpu": 1000.0})
    cache = SnapshotCache()
    _same_session(c, cache)
    ssn = open_session(c, Trace(enabled=False), cache=cache)
    assert any("nvidia.com/gpu" in names for names, _ in session_request_facts(ssn))
    ssn.close()
    cache.keep()
    pod.resreq = Resource(cpu=100.0, memory=1024.0 ** 2)
    _same_session(c, cache)
