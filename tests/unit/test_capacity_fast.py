"""Fast paths of the session's hot spots agree with the code they stand in for, on random inputs."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest

from capacity.core.model import Job, PodSpec, Task, TaskStatus
from capacity.core.resources import Resource, ResourceUnderflow
from capacity.framework.heap import PriorityQueue, memoized
from capacity.plugins.capacity_attrs import enqueue_fits, fits_after_adding

VALUES = [0.0, 0.05, 0.1, 1.0, 2.0, 2.5, 100.0, 1000.0, -1.0, math.inf, math.nan]


def _resource(rnd: random.Random) -> Resource:
    r = Resource(rnd.choice(VALUES), rnd.choice(VALUES))
    kind = rnd.random()
    if kind < 0.25:
        r.scalars = None
    elif kind < 0.35:
        r.scalars = {}
    else:
        r.scalars = {k: rnd.choice(VALUES) for k in rnd.sample(["nvidia.com/gpu", "pods", "example.com/x"],
                                                               rnd.randint(1, 3))}
    return r


def test_fits_after_adding_is_the_sum_then_the_dimension_check() -> None:
    rnd = random.Random(5)
    for _ in range(20000):
        allocated, req, limit = _resource(rnd), _resource(rnd), _resource(rnd)
        reference, _ = allocated.clone().add(req).less_equal_with_dimension_and_resources_name(limit, req)
        assert fits_after_adding(allocated, req, limit) == reference, (allocated, req, limit)


def test_enqueue_fits_is_the_sum_then_the_dimension_check() -> None:
    """Where enqueue_fits answers, the reference (which may raise on the subtraction) gives the same; it
    answers for most inputs with an empty elastic."""
    rnd = random.Random(6)
    answered = 0
    for _ in range(30000):
        req, allocated, inqueue, limit = _resource(rnd), _resource(rnd), _resource(rnd), _resource(rnd)
        elastic = _resource(rnd) if rnd.random() < 0.3 else Resource.empty()
        fast = enqueue_fits(req, allocated, inqueue, elastic, limit)
        if fast is None:
            continue
        answered += 1
        try:
            reference, _ = req.clone().add(allocated).add(inqueue).sub(elastic) \
                .less_equal_with_dimension_and_resources_name(limit, req)
        except ResourceUnderflow:
            pytest.fail(f"enqueue_fits answered where the reference raises: {(req, allocated, inqueue, elastic)}")
        assert fast == reference, (req, allocated, inqueue, elastic, limit)
    assert answered > 10000


def _task(uid: str, status: int, best_effort: bool) -> Task:
    spec = PodSpec({}, {}, {}, None, [], "", "", "", "", "", False, 0)
    req = Resource.empty() if best_effort else Resource(1000.0, 1.0)
    return Task(uid, uid, "ns", "ns/j", "", req, 0, False, "", status, spec)


def _moving_jobs(seed: int, jobs: int, min_available: int, tasks: int, best_effort: float,
                 moves: int) -> Iterator[Job]:
    """Random jobs (up to `min_available` and `tasks`, random statuses), each yielded after every one of up
    to `moves` random status moves of its tasks."""
    rnd = random.Random(seed)
    statuses = [v for k, v in vars(TaskStatus).items() if k.isupper()]
    for _ in range(jobs):
        job = Job("ns/j", "j", "ns", "q", rnd.randint(0, min_available), {}, 0, False, False, "", "Running",
                  None, {})
        made = [_task(f"t{i}", rnd.choice(statuses), rnd.random() < best_effort) for i in range(rnd.randint(0, tasks))]
        for t in made:
            job.add_task(t)
        for _ in range(rnd.randint(0, moves)):
            if made:
                job.update_task_status(rnd.choice(made), rnd.choice(statuses))
            yield job


def test_job_counters_follow_the_status_index() -> None:
    """Job.ready_num and pending_best_effort_num equal recounts of the index after any updates."""
    for job in _moving_jobs(9, jobs=200, min_available=4, tasks=6, best_effort=0.4, moves=12):
        ready = sum(job.count(s) for s in (TaskStatus.BOUND, TaskStatus.BINDING, TaskStatus.RUNNING,
                                           TaskStatus.ALLOCATED, TaskStatus.SUCCEEDED))
        best_effort = sum(1 for t in job.tasks_in(TaskStatus.PENDING) if t.best_effort)
        assert job.ready_task_num() == ready
        assert job.pending_best_effort_num == best_effort
        assert job.is_ready() == (ready + best_effort >= job.min_available)


class _Named:
    def __init__(self, name: str, key: int) -> None:
        self.name = name
        self.key = key


def test_memoized_heap_pops_like_the_plain_heap() -> None:
    """With an order that does not change, memoized comparisons leave Go's heap popping the same way,
    even for a comparator that is not a consistent order (ties broken differently by pair)."""
    rnd = random.Random(3)
    for _ in range(200):
        items = [_Named(f"q{i}", rnd.randint(0, 3)) for i in range(rnd.randint(1, 30))]
        quirk = {(a.name, b.name): rnd.random() < 0.5 for a in items for b in items}

        def less(l: _Named, r: _Named, quirk: dict[tuple[str, str], bool] = quirk) -> bool:
            return l.key < r.key if l.key != r.key else quirk[(l.name, r.name)]

        plain, memo = PriorityQueue(less), PriorityQueue(memoized(less))
        for it in items:
            plain.push(it)
            memo.push(it)
        for _ in range(3 * len(items)):
            a, b = plain.pop(), memo.pop()
            assert a is b
            if rnd.random() < 0.7:
                plain.push(a)
                memo.push(b)
            if not plain.items:
                break


def test_update_share_is_the_max_share_over_deserved_dimensions() -> None:
    from capacity.core.model import QueueSpec
    from capacity.core.resources import share
    from capacity.plugins.capacity_attrs import QueueAttr, update_share
    rnd = random.Random(11)
    for _ in range(20000):
        attr = QueueAttr(QueueSpec("q"))
        attr.deserved, attr.allocated = _resource(rnd), _resource(rnd)
        d, a = attr.deserved, attr.allocated
        expected = 1.0  # best-effort queue
        if not d.is_empty():  # max() from 0.0, one dimension after another, as Go's loop
            expected = 0.0
            for n in d.resource_names():
                expected = max(expected, share(a.get(n), d.get(n)))
        update_share(attr)
        assert attr.share == expected or (math.isnan(attr.share) and math.isnan(expected)), (d, a)


def _enqueue_cluster(seed: int, pending_queues: int | None) -> list[dict]:
    """A random cluster with minResources on every PodGroup (so that capacity's admission check runs),
    Pending in every queue or in the first `pending_queues` only (Inqueue elsewhere)."""
    import yaml

    from tests.unit.test_nodefit import CONFS, random_cluster
    conf = CONFS["hierarchy" if seed % 2 else "proportion"]
    objs = random_cluster(seed, conf, nodes=24, jobs=150)
    queues = sorted({o["spec"]["queue"] for o in objs if o["kind"] == "PodGroup"})
    chosen = set(queues if pending_queues is None else queues[:pending_queues])
    for o in objs:
        if o["kind"] == "PodGroup":
            o["spec"]["minResources"] = {"cpu": str((seed + 1) * 3), "memory": "1Gi"}
            o["status"]["phase"] = "Pending" if o["spec"]["queue"] in chosen else "Inqueue"
        if o["kind"] == "ConfigMap":
            o["data"]["volcano-scheduler.conf"] = yaml.safe_dump(conf)
    return objs


def _enqueue_both(objs: list[dict]) -> list[tuple[list, dict]]:
    """(trace records, PodGroup phases) after the accelerated enqueue and after the reference loop."""
    from capacity.accel import enqueue as fast
    from capacity.actions import enqueue
    from capacity.core.trace import Trace
    from capacity.io.k8s import load_objects
    from capacity.scheduler import open_session
    outcomes = []
    for run in (fast.execute, enqueue.execute):
        trace = Trace(enabled=True)
        ssn = open_session(load_objects(objs), trace)
        run(ssn)
        outcomes.append(([(r.kind, r.subject, r.verdict, r.plugin) for r in trace.records],
                         {uid: j.phase for uid, j in ssn.jobs.items()}))
    return outcomes


def test_enqueue_admits_in_the_reference_order() -> None:
    """The enqueue action (memoized queue order, drained fixed points) admits the same jobs in the same
    order, with the same trace, as the plain loop; clusters with tight queues so that some are refused."""
    refused = 0
    for seed in range(6):
        outcomes = _enqueue_both(_enqueue_cluster(seed, None))
        assert outcomes[0] == outcomes[1]
        refused += sum(1 for r in outcomes[0][0] if r[0] == "enqueue" and r[2] is False)
    assert refused, "some job should be refused"


@pytest.mark.parametrize("pending_queues", [1, 2, 3])
def test_enqueue_with_few_queues_holding_pending_jobs_is_the_reference(pending_queues: int) -> None:
    """Only a few queues with Pending PodGroups among many (a replay's usual cycle): enqueue skips the turns
    that decide nothing, and the heap itself while one queue is left; same admissions, order and trace."""
    refused = 0
    for seed in range(4):
        outcomes = _enqueue_both(_enqueue_cluster(seed, pending_queues))
        assert outcomes[0] == outcomes[1]
        assert any(r[0] == "enqueue" for r in outcomes[0][0])
        refused += sum(1 for r in outcomes[0][0] if r[0] == "enqueue" and r[2] is False)
    assert refused, "some job should be refused"


@pytest.mark.usefixtures("accelerated_engine")  # (the memoised order is the accelerated plugin's)
def test_queue_order_with_kept_pairs_is_the_written_order() -> None:
    """capacity.queue_order (pairs of attributes kept per session) answers as _queue_order, the order as
    capacity.go writes it, whatever the live shares; flat and hierarchical, leaves and inner queues."""
    from capacity.core.trace import Trace
    from capacity.io.k8s import load_objects
    from capacity.scheduler import open_session
    from tests.unit.test_nodefit import CONFS, random_cluster
    rnd = random.Random(17)
    for conf in ("hierarchy", "proportion"):
        objs = random_cluster(4, CONFS[conf], nodes=8, jobs=40)
        if conf == "proportion":  # flat capacity instead of proportion
            import yaml
            flat = {**CONFS["hierarchy"], "tiers": [CONFS["hierarchy"]["tiers"][0], {"plugins": [
                {"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}]}]}
            objs[0]["data"]["volcano-scheduler.conf"] = yaml.safe_dump(flat)
        ssn = open_session(load_objects(objs), Trace(enabled=False))
        plugin = ssn.plugins["capacity"]
        queues = list(ssn.queues.values())
        for _ in range(30):
            for attr in plugin.attrs.values():
                attr.share = rnd.choice([0.0, 0.25, 0.5, 1.0, 1.5])
            for l in queues:
                for r in queues:
                    assert plugin.queue_order(l, r) == plugin._queue_order(l, r), (l.name, r.name)


def test_delta_is_the_clone_plus_the_negation() -> None:
    from capacity.plugins.capacity_attrs import _delta, _neg
    rnd = random.Random(23)

    def bits(r: Resource) -> tuple:
        def b(x: float) -> tuple:
            return (math.copysign(1.0, x), x) if not math.isnan(x) else ("nan",)
        return (b(r.cpu), b(r.memory), r.max_task_num,
                None if r.scalars is None else [(k, b(v)) for k, v in r.scalars.items()])

    for _ in range(20000):
        after, before = _resource(rnd), _resource(rnd)
        after.max_task_num = rnd.randint(0, 3)
        assert bits(_delta(after, before)) == bits(after.clone().add(_neg(before))), (after, before)


def test_a_job_priority_or_gang_calls_starving_may_starve() -> None:
    """Job.may_starve, what preempt and has_waiting_task ask before the plugins (Session.starving_candidates),
    holds for every job priority's or gang's jobStarving says starves, in any state of its tasks, minAvailable
    above its task count included; and for every job with a Pending task."""
    from capacity.plugins.gang import GangPlugin
    from capacity.plugins.priority import PriorityPlugin

    gang, priority = GangPlugin.job_starving, PriorityPlugin.job_starving
    told = {"gang": 0, "priority": 0}
    for job in _moving_jobs(11, jobs=400, min_available=6, tasks=4, best_effort=0.2, moves=5):
        starving = {"gang": gang(None, job), "priority": priority(None, job)}  # type: ignore[arg-type]
        for name, yes in starving.items():
            told[name] += yes
            assert job.may_starve() or not yes, name
        assert job.may_starve() or not job.count(TaskStatus.PENDING)
    assert told["gang"] and told["priority"]
