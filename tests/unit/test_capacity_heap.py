"""allocate's compiled queue heap (capacity_heap.CapacityQueueHeap) pops as Go's heap over capacity's
queue order does: driven side by side with PriorityQueue(queue_less(tie)) while shares move as allocate
moves them (the popped queue and its ancestors, tree shares stale in the heap), and whole runs deciding and
explaining alike with it forced on (and checking its share mirror at every step) and off.
"""

from __future__ import annotations

import glob
import os
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from capacity.accel import capacity_heap, kernels
from capacity.accel.capacity_heap import CapacityQueueHeap
from capacity.cli import main as cli_main
from capacity.core.trace import Trace
from capacity.framework.heap import PriorityQueue
from capacity.framework.session import _queue_tie
from capacity.io.k8s import load_objects
from capacity.scheduler import open_session, simulate
from tests.unit.test_nodefit import HIERARCHY, random_cluster

pytestmark = pytest.mark.usefixtures("accelerated_engine")  # (tests of the acceleration itself)

FLAT = {**HIERARCHY, "tiers": [HIERARCHY["tiers"][0], {"plugins": [{"name": "predicates"}, {"name": "capacity"},
                                                                   {"name": "nodeorder"}]}]}


def _tree(rnd: random.Random, hierarchy: bool) -> list[dict[str, Any]]:
    """Queues three levels deep in places, with empty deserved, equal creation times and two priorities."""
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "capacity", "enableHierarchy": hierarchy}]}]}
    objs: list[dict[str, Any]] = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": yaml.safe_dump(conf)}},
        {"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1000", "memory": "1Ti"}}},
        {"kind": "Queue", "metadata": {"name": "root"}, "spec": {}}]

    def queue(name: str, parent: str) -> None:
        spec: dict[str, Any] = {"priority": rnd.choice([0, 0, 0, 5])}
        if hierarchy:
            spec["parent"] = parent
        if rnd.random() < 0.8:
            spec["deserved"] = {"cpu": str(rnd.choice([1, 2, 4])), "memory": f"{rnd.choice([1, 2])}Gi"}
        when = f"2024-01-0{rnd.choice([1, 2])}T00:00:00Z"
        objs.append({"kind": "Queue", "metadata": {"name": name, "creationTimestamp": when}, "spec": spec})

    leaves = []
    for d in range(4):
        queue(f"d{d}", "root")
        for i in range(4):
            queue(f"d{d}-{i}", f"d{d}")
            if d == 0 and i < 2:
                for k in range(3):
                    queue(f"d{d}-{i}-{k}", f"d{d}-{i}")
                    leaves.append(f"d{d}-{i}-{k}")
            else:
                leaves.append(f"d{d}-{i}")
    for leaf in leaves:  # most leaves hold a job (flat capacity has attributes for those queues only)
        if rnd.random() < 0.75:
            objs.append({"kind": "PodGroup", "metadata": {"name": f"j-{leaf}", "namespace": "t"},
                         "spec": {"queue": leaf, "minMember": 1}, "status": {"phase": "Inqueue"}})
            objs.append({"kind": "Pod", "metadata": {"name": f"p-{leaf}", "namespace": "t",
                                                     "annotations": {"scheduling.k8s.io/group-name": f"j-{leaf}"}},
                         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
                         "status": {"phase": "Pending"}})
    return objs


def _filled_heaps(rnd: random.Random, hierarchy: bool) -> tuple[Any, PriorityQueue[Any], CapacityQueueHeap, int]:
    """The capacity plugin of a random tree's session, and both heaps holding every queue but root (leaves
    and inner queues both: the order has a rule for a leaf against a parent) pushed in a random order, and
    how many that is."""
    ssn = open_session(load_objects(_tree(rnd, hierarchy)), Trace(enabled=False))
    plugin = ssn.plugins["capacity"]
    python = PriorityQueue(plugin.queue_less(_queue_tie))
    compiled = CapacityQueueHeap(plugin, list(ssn.queues.values()), _queue_tie, kernels.queue_heap_loops())
    queues = [q for q in ssn.queues.values() if q.name != "root"]
    rnd.shuffle(queues)
    for q in queues:
        python.push(q)
        compiled.push(q)
    return plugin, python, compiled, len(queues)


@pytest.mark.parametrize("hierarchy", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_pops_as_the_python_heap_while_shares_move(hierarchy: bool, seed: int) -> None:
    rnd = random.Random(seed)
    plugin, python, compiled, count = _filled_heaps(rnd, hierarchy)
    shares = [0.0, 0.25, 0.5, 0.5, 1.0, 2.0]  # few values: equal shares, where deserved and the tie decide
    popped = 0
    while len(python):
        a, b = python.pop(), compiled.pop()
        assert a is b, (seed, popped)
        popped += 1
        if rnd.random() < 0.7:  # its job allocates: its share and its ancestors' move, then it goes back
            attr = plugin.attrs.get(a.name)  # (flat: only queues with jobs have one)
            for x in (attr, *attr.ancestors) if attr is not None else ():
                x.share = rnd.choice(shares)
            python.push(a)
            compiled.push(a)
    assert len(compiled) == 0 and popped > 2 * count


def _decide(objs: list[dict[str, Any]], compiled: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    built = 0
    make = CapacityQueueHeap.make

    def counted(plugin: Any, tie: Any, pops: int) -> Any:
        nonlocal built
        heap = make(plugin, tie, pops)
        built += heap is not None
        return heap

    with monkeypatch.context() as m:
        m.setattr(capacity_heap, "MIN_QUEUES", 0 if compiled else 10**9)
        m.setattr(capacity_heap, "MIN_POPS", 0)
        m.setattr(CapacityQueueHeap, "verify", True)
        m.setattr(CapacityQueueHeap, "make", staticmethod(counted))
        result = simulate(load_objects(objs), cycles=3, trace=Trace(enabled=True))
    assert (built > 0) == compiled
    return result.as_json(), [r.as_dict() for c in result.cycles for r in c.records]


@pytest.mark.parametrize("conf", ["hierarchy", "flat"])
@pytest.mark.parametrize("seed", range(3))
def test_runs_decide_and_explain_alike_with_it(conf: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    objs = random_cluster(seed + 80, HIERARCHY if conf == "hierarchy" else FLAT, nodes=24, jobs=90)
    assert _decide(objs, True, monkeypatch) == _decide(objs, False, monkeypatch)


def test_acceptance_cases_decide_alike_with_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
                                               ) -> None:
    """Every corpus case whose scheduler runs capacity, with the compiled heap forced on: the same JSON."""
    root = os.path.join(os.path.dirname(__file__), "..", "acceptance", "volcano")
    cases = [c for c in sorted(glob.glob(os.path.join(root, "*", "cluster.yaml")))
             if "name: capacity" in Path(c).read_text(encoding="utf-8")]
    assert len(cases) > 20
    for case in cases:
        with open(os.path.join(os.path.dirname(case), "expect.yaml"), encoding="utf-8") as fh:
            cycles = str(yaml.safe_load(fh).get("cycles", 1))
        out = []
        for queues in (0, 10**9):
            monkeypatch.setattr(capacity_heap, "MIN_QUEUES", queues)
            monkeypatch.setattr(capacity_heap, "MIN_POPS", 0)
            monkeypatch.setattr(CapacityQueueHeap, "verify", True)
            cli_main(["simulate", case, "--cycles", cycles, "--format", "json"])
            out.append(capsys.readouterr().out)
        assert out[0] == out[1], case


def test_small_queue_lists_and_few_pops_keep_the_python_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below MIN_QUEUES queues the session's queue heap is the PriorityQueue (no numba to load for it), and
    below MIN_POPS pops to come too (a replay's cycle placing a few jobs: setting up costs more than it
    saves); the compiled one otherwise."""
    rnd = random.Random(0)
    ssn = open_session(load_objects(_tree(rnd, True)), Trace(enabled=False))
    assert len(ssn.queues) < capacity_heap.MIN_QUEUES
    assert isinstance(ssn.queue_heap(10**6), PriorityQueue)
    monkeypatch.setattr(capacity_heap, "MIN_QUEUES", 0)
    assert isinstance(ssn.queue_heap(capacity_heap.MIN_POPS - 1), PriorityQueue)
    assert isinstance(ssn.queue_heap(capacity_heap.MIN_POPS), CapacityQueueHeap)


@pytest.mark.parametrize("hierarchy", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_push_pop_is_a_push_then_a_pop(hierarchy: bool, seed: int) -> None:
    """allocate puts its queue back and pops the next in one call (push_pop): the compiled one pops what the
    Python heap pops after a push and a pop, shares moving in between as allocations move them."""
    rnd = random.Random(seed)
    plugin, python, compiled, count = _filled_heaps(rnd, hierarchy)
    shares = [0.0, 0.25, 0.5, 0.5, 1.0, 2.0]
    a = python.pop()
    assert compiled.pop() is a
    for _ in range(4 * count):
        attr = plugin.attrs.get(a.name)
        for x in (attr, *attr.ancestors) if attr is not None else ():
            x.share = rnd.choice(shares)
        b = compiled.push_pop(a)
        python.push(a)
        a = python.pop()
        assert b is a
    while len(python):
        assert compiled.pop() is python.pop()
    assert len(compiled) == 0
