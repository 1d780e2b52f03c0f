"""The priority queue pops equal keys in Go container/heap's order (worked by hand from heap.go)."""

from capacity.framework.heap import PriorityQueue


def test_equal_keys_pop_in_go_heap_order() -> None:
    pq = PriorityQueue(lambda l, r: l[0] < r[0], [(1, "a"), (1, "b"), (1, "c")])
    # push a, b, c: no swaps. pop: swap(0,2) -> [c,b,a], sift c down (b is not less) -> a; then c; then b.
    assert [pq.pop()[1] for _ in range(3)] == ["a", "c", "b"]


def test_pops_in_less_order() -> None:
    pq = PriorityQueue(lambda l, r: l < r, [5, 3, 9, 1, 7, 3])
    assert [pq.pop() for _ in range(6)] == [1, 3, 3, 5, 7, 9]


def test_stale_key_is_not_resorted() -> None:
    box = {"x": 1, "y": 2}
    pq = PriorityQueue(lambda l, r: box[l] < box[r], ["x", "y"])
    box["x"] = 10  # a share that changed while the queue sat in the heap (spec trap 29)
    assert pq.pop() == "x"


def test_keyed_job_order_answers_as_the_plugins_do() -> None:
    """With priority and gang (both with order keys) the job heaps compare one kept key per job; every
    answer must be the plugins' then creation and UID, also after tasks move and the gang counters with
    them (the kept key is dropped then)."""
    import random

    from capacity.accel.plugin_forms import gang_order_key, priority_key
    from capacity.accel.session_fast import _job_key, _keyed_job_less
    from capacity.core.model import TaskStatus
    from capacity.framework.session import _first_decisive, _job_tie
    from capacity.plugins.gang import GangPlugin
    from capacity.plugins.priority import _priority_order

    rnd = random.Random(3)
    reference = _first_decisive((("priority", _priority_order), ("gang", GangPlugin.job_order)), _job_tie)
    keyed = _keyed_job_less(_job_key((priority_key, gang_order_key), []))
    jobs = _random_jobs(rnd, 30)
    for _round in range(6):
        assert [[keyed(a, b) for b in jobs] for a in jobs] == [[reference(a, b) for b in jobs] for a in jobs]
        for job in rnd.sample(jobs, 10):  # some tasks move: gang readiness changes
            for task in list(job.tasks.values()):
                job.update_task_status(task, rnd.choice([TaskStatus.PENDING, TaskStatus.ALLOCATED,
                                                         TaskStatus.RUNNING]))


def _random_jobs(rnd, n: int) -> list:
    from capacity.core.model import Job, Task, TaskStatus
    from capacity.core.resources import Resource

    jobs = []
    for j in range(n):
        job = Job(f"ns/j{j % 7}-{j}", "j", "ns", "q", rnd.randint(0, 3), {}, rnd.choice([0, 10, 10, 1000]),
                  False, False, rnd.choice(["2023-01-01", "2023-01-02"]), "Inqueue", None, {})
        for k in range(rnd.randint(0, 3)):
            job.add_task(Task(f"{job.uid}-{k}", "t", "ns", job.uid, "", Resource(1.0, 1.0), 0, False, "",
                              TaskStatus.PENDING, None))
        jobs.append(job)
    return jobs


def test_keyed_heap_pops_as_go_heap_while_keys_stay() -> None:
    """allocate's and enqueue's job heaps (KeyedQueue): pushes and pops interleaved, and a popped job's
    tasks moving before it is pushed back (as allocate does), pop the jobs Go's heap over job_less pops."""
    import random

    from capacity.accel.plugin_forms import gang_order_key, priority_key
    from capacity.accel.session_fast import _job_key, _keyed_job_less
    from capacity.core.model import TaskStatus
    from capacity.framework.heap import KeyedQueue

    for seed in range(20):
        rnd = random.Random(seed)
        key = _job_key((priority_key, gang_order_key), [])
        go: PriorityQueue = PriorityQueue(_keyed_job_less(key))
        keyed: KeyedQueue = KeyedQueue(key)
        jobs = _random_jobs(rnd, 40)
        out_go, out_keyed = [], []
        waiting = list(jobs)
        while waiting or len(go):
            if waiting and (not len(go) or rnd.random() < 0.5):
                job = waiting.pop()
                go.push(job)
                keyed.push(job)
                continue
            a, b = go.pop(), keyed.pop()
            out_go.append(a.uid)
            out_keyed.append(b.uid)
            assert a is b, (seed, out_go, out_keyed)
            if rnd.random() < 0.4:  # its tasks move while it is out, then it goes back in
                for task in list(a.tasks.values()):
                    a.update_task_status(task, rnd.choice([TaskStatus.PENDING, TaskStatus.ALLOCATED]))
                waiting.append(a)
        assert out_go == out_keyed and len(out_go) >= len(jobs)


def test_keyed_heap_refuses_a_job_whose_order_moved_inside() -> None:
    """Go's answer would depend on its heap's layout then: the keyed heap says so instead of guessing."""
    import pytest

    from capacity.accel.plugin_forms import gang_order_key, priority_key
    from capacity.accel.session_fast import _job_key
    from capacity.core.model import Job, Task, TaskStatus
    from capacity.core.resources import Resource
    from capacity.framework.heap import KeyedQueue

    heap: KeyedQueue = KeyedQueue(_job_key((priority_key, gang_order_key), []))
    jobs = []
    for j in range(3):
        job = Job(f"ns/j{j}", "j", "ns", "q", 1, {}, 0, False, False, "2023-01-01", "Inqueue", None, {})
        job.add_task(Task(f"ns/j{j}-0", "t", "ns", job.uid, "", Resource(1.0, 1.0), 0, False, "",
                          TaskStatus.PENDING, None))
        jobs.append(job)
        heap.push(job)
    assert heap.pop() is jobs[0]
    moved = jobs[1]
    moved.update_task_status(next(iter(moved.tasks.values())), TaskStatus.RUNNING)  # now gang-ready
    assert len(heap) == 2
    with pytest.raises(RuntimeError, match="order of"):
        while len(heap):
            heap.pop()
