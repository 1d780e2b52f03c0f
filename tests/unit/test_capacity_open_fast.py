"""Session-open fast paths agree with the step-by-step code they stand in for, on random clusters."""

from __future__ import annotations

import random
from typing import Any

import pytest

from capacity.accel import capacity_open as cap  # (the accelerated build at open, and what it calls)
from capacity.core.trace import Trace
from capacity.plugins.capacity_attrs import _add_exceeded
from capacity.scheduler import open_session
from tests.builders import cluster, conf, node, pod, podgroup, queue

pytestmark = pytest.mark.usefixtures("accelerated_engine")  # (tests of the acceleration itself)

TREE = {"a": "root", "b": "root", "c": "root", "a1": "a", "a2": "a", "b1": "b", "b11": "b1", "b12": "b1"}
LEAVES = ["a1", "a2", "b11", "b12", "c"]
SCALARS = ["nvidia.com/gpu", "example.com/foo", "example.com/bar"]


def _requests(rnd: random.Random) -> dict[str, str]:
    req = {"cpu": f"{rnd.randint(0, 4000)}m", "memory": f"{rnd.randint(0, 64)}Mi"}
    for k in rnd.sample(SCALARS, rnd.randint(0, len(SCALARS))):
        req[k] = str(rnd.randint(0, 3))
    return req


def _random_cluster(rnd: random.Random, stall: bool = False) -> Any:
    objs: list[dict[str, Any]] = [
        conf("enqueue, allocate", [{"name": "priority"}, {"name": "gang"}],
             [{"name": "predicates"}, {"name": "capacity", "enableHierarchy": True}]),
        node("n1", cpu="64", memory="256Gi", gpu="8"), node("n2", cpu="64", memory="256Gi", gpu="8"),
        queue("root"),
    ]
    for name, parent in TREE.items():
        objs.append(queue(name, parent=parent))
    for j in range(rnd.randint(1, 25)):
        leaf = "b1" if stall and j == 7 else rnd.choice(LEAVES)
        phase = rnd.choice(["Pending", "Inqueue", "Running"])
        min_res = _requests(rnd) if rnd.random() < 0.7 else None
        objs.append(podgroup(f"pg{j}", leaf, min_member=rnd.randint(1, 3), phase=phase, min_resources=min_res))
        for t in range(rnd.randint(0, 3)):
            node_name = rnd.choice(["", "n1", "n2"])
            objs.append(pod(f"pg{j}-t{t}", f"pg{j}", _requests(rnd), node_name=node_name))
    return cluster(*objs)


def _attrs(c: Any) -> tuple[Any, list[str]]:
    """Every queue's numbers (scalar keys in order) and share, and the notes, of a session opened on `c`."""
    return _numbers(open_session(c, Trace(enabled=False)))


def _numbers(ssn: Any) -> tuple[Any, list[str]]:
    out = {}
    for name, attr in ssn.plugins["capacity"].attrs.items():
        fields = {}
        for f in ("allocated", "request", "inqueue", "elastic", "deserved", "real_capability", "capability"):
            r = getattr(attr, f)
            fields[f] = (r.cpu, r.memory, None if r.scalars is None else list(r.scalars.items()), r.max_task_num)
        out[name] = (fields, attr.share)
    return out, list(ssn.notes)


@pytest.mark.parametrize("stall", [False, True])
def test_exact_tree_accumulation_equals_stepwise(monkeypatch: pytest.MonkeyPatch, stall: bool) -> None:
    rnd = random.Random(11 + stall)
    exact_runs = 0
    for _ in range(60):
        c = _random_cluster(rnd, stall)
        calls: list[bool] = []
        real = cap._accumulation_exact

        def spy(jobs: Any, real: Any = real, calls: list[bool] = calls) -> bool:
            got = real(jobs)
            calls.append(got)
            return got

        monkeypatch.setattr(cap, "_accumulation_exact", spy)
        fast = _attrs(c)
        monkeypatch.setattr(cap, "_accumulation_exact", lambda jobs: False)
        slow = _attrs(c)
        monkeypatch.setattr(cap, "_accumulation_exact", real)
        assert fast == slow
        exact_runs += calls == [True]
    assert exact_runs >= 50


def test_accumulation_exact_refuses_fractions_and_huge_sums() -> None:
    from capacity.core.model import Job
    from capacity.core.resources import Resource

    def job(r: Resource) -> Job:
        return Job("ns/j", "j", "ns", "q", 1, {}, 0, False, False, "", "Pending", r, {})

    assert cap._accumulation_exact([job(Resource(1000.0, 2.0**40, {"nvidia.com/gpu": 1.0}))])
    assert not cap._accumulation_exact([job(Resource(0.5, 1.0))])
    assert not cap._accumulation_exact([job(Resource(1.0, 1.0, {"x/y": 0.1}))])
    assert not cap._accumulation_exact([job(Resource(1.0, 2.0**52))])
    assert not cap._accumulation_exact([job(Resource(float("inf"), 1.0))])
    assert not cap._accumulation_exact([job(Resource(1.0, 1.0, {"x/y": float("nan")}))])
    assert cap._accumulation_exact([job(Resource(-3.0, 0.0, {"x/y": 2.0**51}))])  # magnitudes below 2**52
    assert not cap._accumulation_exact([job(Resource(0.0, 0.0, {"x/y": 2.0**51, "x/z": -(2.0**51)}))])
    # summed over jobs as over values: two jobs of 2**51 reach 2**52 together
    assert not cap._accumulation_exact([job(Resource(0.0, 2.0**51)), job(Resource(0.0, 2.0**51))])
    # the facts kept on a job are dropped when a task is added
    from capacity.core.model import Task
    kept = job(Resource(1.0, 1.0))
    assert cap._accumulation_exact([kept])
    kept.add_task(Task("t", "t", "ns", "ns/j", "", Resource(0.5, 1.0), 0, False, "", 1, None, False, ""))
    assert not cap._accumulation_exact([kept])


def test_add_exceeded_is_adding_exceeded_part() -> None:
    import math

    from capacity.core.resources import Resource, exceeded_part

    values = [0.0, -0.0, 0.05, 1.0, 2.5, 1000.0, -1.0, -3.0, math.inf, math.nan]
    rnd = random.Random(3)

    def res() -> Resource:
        r = Resource(rnd.choice(values), rnd.choice(values))
        kind = rnd.random()
        if kind < 0.2:
            r.scalars = None
        elif kind < 0.3:
            r.scalars = {}
        else:
            r.scalars = {k: rnd.choice(values) for k in rnd.sample(SCALARS + ["pods"], rnd.randint(1, 4))}
        return r

    def dump(r: Resource) -> Any:
        return repr((r.cpu, r.memory, None if r.scalars is None else list(r.scalars.items()), r.max_task_num))

    for _ in range(20000):
        target, left, right = res(), res(), res()
        expected = target.clone().add(exceeded_part(left, right))
        _add_exceeded(target, left, right)
        assert dump(target) == dump(expected), (left, right)


def test_phase_at_close_reads_the_index_as_the_counters_do() -> None:
    from capacity.core.model import Job, PodGroupPhase, PodSpec, Task, TaskStatus
    from capacity.core.resources import Resource
    from capacity.framework.session import Session, SessionOptions

    def reference(job: Job) -> str:
        if job.count(TaskStatus.RUNNING) > 0 and job.unschedulable_this_session:
            return PodGroupPhase.UNKNOWN
        scheduled = job.scheduled_task_num() + job.releasing_scheduled_task_num()
        if scheduled >= job.min_available:
            completed = job.count(TaskStatus.SUCCEEDED) + job.count(TaskStatus.FAILED)
            if scheduled == completed and scheduled > 0:
                return PodGroupPhase.COMPLETED
            return PodGroupPhase.RUNNING
        if job.phase != PodGroupPhase.INQUEUE:
            return PodGroupPhase.PENDING
        return PodGroupPhase.INQUEUE

    statuses = [v for k, v in vars(TaskStatus).items() if k.isupper()]
    spec = PodSpec({}, {}, {}, None, [], "", "", "", "", "", False, 0)
    rnd = random.Random(8)
    ssn = Session.__new__(Session)
    ssn.options = SessionOptions()  # HEAD (the phase reads whether the release counts terminating pods)
    for _ in range(3000):
        job = Job("ns/j", "j", "ns", "q", rnd.randint(0, 4), {}, 0, False, False, "",
                  rnd.choice(["Pending", "Inqueue", "Running"]), None, {})
        job.unschedulable_this_session = rnd.random() < 0.3
        tasks = [Task(f"t{i}", f"t{i}", "ns", "ns/j", "", Resource(1.0, 1.0), 0, False,
                      rnd.choice(["", "n1"]), rnd.choice(statuses), spec) for i in range(rnd.randint(0, 6))]
        for t in tasks:
            job.add_task(t)
        for _ in range(rnd.randint(0, 4)):
            if tasks:
                job.update_task_status(rnd.choice(tasks), rnd.choice(statuses))
        assert Session._phase_at_close(ssn, job) == reference(job)


def test_snapshot_node_add_accounts_as_add_task() -> None:
    from capacity.core.model import Node, PodSpec, Task, TaskStatus
    from capacity.core.resources import Resource

    statuses = [v for k, v in vars(TaskStatus).items() if k.isupper()]
    spec = PodSpec({}, {}, {}, None, [], "", "", "", "", "", False, 0)
    rnd = random.Random(6)

    def dump(n: Node) -> Any:
        return [(r.cpu, r.memory, None if r.scalars is None else list(r.scalars.items()))
                for r in (n.idle, n.used, n.releasing, n.pipelined)] + [
                    [(k, t.status) for k, t in n.tasks.items()]]

    for _ in range(2000):
        alloc = Resource(8000.0, 1e9, {"pods": 110.0} if rnd.random() < 0.5 else None)
        a, b = Node("n", {}, alloc, [], False), Node("n", {}, alloc, [], False)
        for i in range(rnd.randint(0, 6)):
            req = Resource(rnd.choice([0.0, 0.5, 1000.0]), 2.0,
                           dict.fromkeys(rnd.sample(SCALARS, rnd.randint(0, 2)), 1.0) or None)
            t = Task(f"t{i}", f"t{i}", "ns", "ns/j", "", req, 0, False, "n", rnd.choice(statuses), spec)
            a.add_task(t)
            b.add_task_unfitted(t)
            assert b.tasks[t.key] is not t
        assert dump(a) == dump(b)
    fields = Resource.__slots__
    assert [getattr(Resource.empty(), f) for f in fields] == [getattr(Resource(), f) for f in fields]


def test_gang_job_valid_reads_the_index_as_the_role_checks_do() -> None:
    """GangPlugin.job_valid's shortcuts (roles_to_check fixed at Job creation, the valid count read off
    the status index) against job_info.go's CheckTaskValid and ValidTaskNum spelled out."""
    from capacity.core.model import ALLOCATED_STATUSES, Job, PodSpec, Task, TaskStatus
    from capacity.core.resources import Resource
    from capacity.plugins.gang import GangPlugin

    def reference(job: Job) -> bool:
        counts: dict[str, int] = {}
        valid = TaskStatus.PENDING | TaskStatus.PIPELINED | ALLOCATED_STATUSES | TaskStatus.SUCCEEDED
        for t in job.tasks.values():
            if t.status & valid:
                counts[t.role] = counts.get(t.role, 0) + 1
        if job.min_available >= sum(job.task_min_available.values()) and not all(
                counts.get(role, 0) >= n for role, n in job.task_min_available.items() if n > 0):
            return False
        return sum(counts.values()) >= job.min_available

    statuses = [v for k, v in vars(TaskStatus).items() if k.isupper()]
    spec = PodSpec({}, {}, {}, None, [], "", "", "", "", "", False, 0)
    rnd = random.Random(9)
    gang = GangPlugin.__new__(GangPlugin)
    outcomes = set()
    for _ in range(4000):
        roles = {r: rnd.randint(0, 3) for r in rnd.sample(["ps", "worker", "chief"], rnd.randint(0, 3))}
        job = Job("ns/j", "j", "ns", "q", rnd.randint(0, 7), roles, 0, False, False, "", "Running", None, {})
        tasks = [Task(f"t{i}", f"t{i}", "ns", "ns/j", rnd.choice(["ps", "worker", "chief", ""]),
                      Resource(1.0, 1.0), 0, False, "", rnd.choice(statuses), spec) for i in range(rnd.randint(0, 8))]
        for t in tasks:
            job.add_task(t)
        for _ in range(rnd.randint(0, 4)):
            if tasks:
                job.update_task_status(rnd.choice(tasks), rnd.choice(statuses))
        got = gang.job_valid(job)[0]
        assert got == reference(job)
        outcomes.add((got, job.roles_to_check))
    assert len(outcomes) == 4  # every branch taken


def test_kept_leaves_give_the_numbers_and_key_orders_of_a_fresh_build() -> None:
    """A SnapshotCache hands the tree build its last leaves (capacity.LeafRecord): leaves whose jobs are all
    kept take their numbers from there. Cycle after cycle, with pods added to some jobs between cycles (their
    leaves built again, the others taken), every queue's numbers and scalar key orders are those of a session
    opened without the cache."""
    from capacity.accel.snapshot_cache import SnapshotCache
    from capacity.scheduler import apply_cycle, run_actions

    rnd = random.Random(5)
    taken = 0
    for _ in range(12):
        c = _random_cluster(rnd)
        cache = SnapshotCache()
        last: dict[str, Any] = {}
        for cycle in range(4):
            want = _attrs(c)
            ssn = open_session(c, Trace(enabled=False), None, cache)
            leaves = ssn.plugins["capacity"]._leaves or {}
            taken += sum(1 for name, rec in leaves.items() if last.get(name) is rec)
            last = leaves
            assert _numbers(ssn) == want, cycle
            run_actions(ssn)
            result = ssn.close()
            cache.keep()
            ssn.release()
            apply_cycle(c, result)
            # a new pod in a random job: its leaf is built again, the other leaves may be taken
            groups = list(c.podgroups.values())
            if groups:
                pg = rnd.choice(groups)
                extra = cluster(node("nx"), podgroup(pg.name, pg.queue), pod(f"{pg.name}-x{cycle}", pg.name,
                                                                            _requests(rnd)))
                for key, p in extra.pods.items():
                    c.pods[key] = p
    assert taken > 0


def test_a_stalled_build_shows_the_numbers_of_a_build_without_the_cache() -> None:
    """A job moved into a queue with children stalls the build (readyToSchedule=false). Started from the tree
    a SnapshotCache kept, the stalled session showed that tree's capability and realCapability, where a
    session without the cache (and Volcano, which stops building there) has none yet."""
    from capacity.accel.snapshot_cache import SnapshotCache
    from capacity.scheduler import run_cycle

    rnd = random.Random(2)
    c = _random_cluster(rnd)
    cache = SnapshotCache()
    run_cycle(c, Trace(enabled=False), cache=cache)
    run_cycle(c, Trace(enabled=False), cache=cache)
    next(iter(c.podgroups.values())).queue = "b1"
    want = _attrs(c)
    ssn = open_session(c, Trace(enabled=False), None, cache)
    assert any("readyToSchedule=false" in note for note in want[1])
    assert _numbers(ssn) == want
    assert ssn.close().queues == open_session(c, Trace(enabled=False)).close().queues


def _edit_between_cycles(rnd: random.Random, c: Any, cycle: int) -> None:
    """One change a cycle's leaves must follow: a job moves to another queue (now and then to b1, which has
    children: the build stalls until it moves on), or a pod joins a job, its request now and then fractional
    or its memory near 2**53 (the accumulation is not exact then)."""
    groups = list(c.podgroups.values())
    pick = rnd.random()
    if pick < 0.45:
        pg = rnd.choice(groups)
        pg.queue = "b1" if rnd.random() < 0.15 else rnd.choice(LEAVES)
    elif pick < 0.9:
        odd = rnd.random()
        for k in range(3 if odd < 0.4 else 1):
            pg = rnd.choice(groups)
            req = _requests(rnd)
            if odd < 0.2:  # (sums that round, differently in another order of the additions)
                req["memory"] = rnd.choice(["9007199254740993", "3", "1", "5"])  # (2**53 + 1 bytes: 2**53)
            extra = cluster(node("nx"), podgroup(pg.name, pg.queue), pod(f"{pg.name}-y{cycle}-{k}", pg.name, req))
            for p in extra.pods.values():
                if 0.2 <= odd < 0.4:  # (a fractional millicore: YAML quantities round up to whole ones)
                    r = p.resreq.clone()
                    r.cpu += rnd.choice([0.1, 0.2, 0.7])
                    p.resreq = r
            c.pods.update(extra.pods)


def test_carried_leaves_follow_moved_jobs_stalls_and_inexact_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a SnapshotCache the tree build works out the leaves' jobs from the last build's leaves
    (capacity._carried_leaves) instead of a pass over every job. Cycle after cycle, with jobs moving between
    queues (into one with children too), pods joining jobs (with requests whose sums round too), and now
    and then a cycle without the capacity plugin (the kept leaves are then older than the last session), every
    queue's numbers, scalar key orders and notes are those of a session opened without the cache."""
    from capacity.accel.snapshot_cache import SnapshotCache
    from capacity.scheduler import run_cycle

    carried: list[bool] = []
    real = cap._carried_leaves

    def spy(ssn: Any, fixed: Any) -> Any:
        got = real(ssn, fixed)
        carried.append(got is not None)
        return got

    monkeypatch.setattr(cap, "_carried_leaves", spy)
    without_capacity = cluster(conf("enqueue, allocate", [{"name": "priority"}, {"name": "gang"}],
                                    [{"name": "predicates"}])).conf
    rnd = random.Random(8)
    for _ in range(30):
        c = _random_cluster(rnd)
        cache = SnapshotCache()
        with_capacity = c.conf
        for cycle in range(8):
            if cycle and rnd.random() < 0.15:
                c.conf = without_capacity
                run_cycle(c, Trace(enabled=False), cache=cache)
                c.conf = with_capacity
            want = _attrs(c)
            ssn = open_session(c, Trace(enabled=False), None, cache)
            assert _numbers(ssn) == want, cycle
            ssn.release()  # (its tree kept: the next session starts from those attributes)
            run_cycle(c, Trace(enabled=False), cache=cache)
            _edit_between_cycles(rnd, c, cycle)
    assert carried.count(True) > 20 and carried.count(False) > 20
