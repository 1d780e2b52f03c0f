"""The reference engine and the accelerated one decide the same (issue 28).

CAPACITY_LAB_ENGINE=reference runs the framework, plugins and actions with no acceleration at all (no
SnapshotCache, no vectorised node fit, no compiled loops, no victim bounds, no order keys, no untraced
shortcuts: capacity.accel). Both engines run here on the acceptance corpus, every lesson, the property
scenarios and random hierarchies (several cycles, through the Simulator too, whose SnapshotCache only the
accelerated engine uses), and must give the same binds, evictions, pipelined tasks, PodGroup phases,
nominated nodes, queue numbers and decision records; untraced, the same decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from capacity.accel import ACCELERATED, ENGINE_ENV, REFERENCE, Acceleration, engine
from capacity.authoring.lessons import LessonRun, queue_numbers
from capacity.core.errors import InputError
from capacity.core.trace import Trace
from capacity.framework.session import CycleResult, Session
from capacity.io.k8s import load_cluster_file, load_objects
from capacity.plugins.capacity import CapacityPlugin
from capacity.scheduler import open_session, simulate
from capacity.simulation.sim import SimOptions, Simulator
from tests.lesson_oracles import all_lessons
from tests.property.scenarios import scenarios
from tests.unit.test_nodefit import CONFS, random_cluster
from tests.unit.test_victim_bound import BOUND_CONFS, with_guarantees

CORPUS = Path(__file__).resolve().parents[1] / "acceptance" / "volcano"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expect.yaml").is_file())


@contextmanager
def _engine(name: str) -> Iterator[None]:
    mp = pytest.MonkeyPatch()
    mp.setenv(ENGINE_ENV, name)
    try:
        yield
    finally:
        mp.undo()


def _both(run: Callable[[], Any]) -> tuple[Any, Any]:
    """`run()` under the reference engine, then under the accelerated one."""
    out = []
    for name in (REFERENCE.name, ACCELERATED.name):
        with _engine(name):
            out.append(run())
    return out[0], out[1]


def _decisions(c: CycleResult) -> tuple[Any, ...]:
    return c.binds, c.evicted, c.pipelined, c.podgroup_phases, c.nominated, c.queues


def _records(trace: Trace) -> list[dict[str, Any]]:
    return [r.as_dict() for r in trace.records]


def _simulate(objs_or_path: Any, cycles: int, traced: bool) -> tuple[list[Any], list[dict[str, Any]]]:
    cluster = load_cluster_file(objs_or_path) if isinstance(objs_or_path, str) else load_objects(objs_or_path)
    trace = Trace(enabled=traced)
    run = simulate(cluster, cycles, trace)
    return [_decisions(c) for c in run.cycles], _records(trace)


def test_the_switch_names_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENGINE_ENV, raising=False)
    assert engine() is ACCELERATED
    monkeypatch.setenv(ENGINE_ENV, "reference")
    assert engine() is REFERENCE
    cluster = load_objects(random_cluster(1, CONFS["hierarchy"], nodes=4, jobs=6))
    ssn = open_session(cluster)
    # the reference engine is the framework's Session and the plugins' own classes, nothing composed on top
    assert type(ssn) is Session and ssn.accel is REFERENCE and ssn.cache is None
    assert type(ssn.plugins["capacity"]) is CapacityPlugin
    monkeypatch.setenv(ENGINE_ENV, "accelerated")
    fast = open_session(cluster)
    assert type(fast).__name__ == "AcceleratedSession" and type(fast.plugins["capacity"]).__name__ == \
        "AcceleratedCapacityPlugin"
    monkeypatch.setenv(ENGINE_ENV, "fast")
    with pytest.raises(InputError, match="CAPACITY_LAB_ENGINE: 'fast' is not an engine"):
        engine()


def test_the_reference_engine_has_no_acceleration() -> None:
    assert not any(getattr(REFERENCE, f) for f in Acceleration.__dataclass_fields__ if f != "name")


@pytest.mark.parametrize("case", CASES)
def test_acceptance_case(case: str) -> None:
    import yaml
    cycles = (yaml.safe_load((CORPUS / case / "expect.yaml").read_text()) or {}).get("cycles", 1)
    path = str(CORPUS / case / "cluster.yaml")
    runs = {}
    for traced in (True, False):
        ref, fast = _both(lambda traced=traced: _simulate(path, cycles, traced))
        assert ref == fast
        runs[traced] = fast
    # Tracing never changes a decision (issue 28): the accelerated engine's untraced shortcuts
    # (capacity.accel.job_lists, the NodeBound's) decide as its traced run does.
    assert runs[False][0] == runs[True][0]


def _untraced_agrees(objs_or_path: Any, cycles: int, traced_decisions: list[Any]) -> None:
    """The accelerated engine, untraced (its shortcuts taken), makes the traced run's decisions."""
    with _engine(ACCELERATED.name):
        decisions, records = _simulate(objs_or_path, cycles, False)
    assert records == [] and decisions == traced_decisions


@pytest.mark.parametrize("lesson", all_lessons(), ids=lambda lesson: lesson.id)
def test_lesson(lesson: Any) -> None:
    """Every checkpoint's cycle of every variant: decisions, queue numbers at open and close, records."""

    def run() -> list[Any]:
        lr = LessonRun(lesson)
        out = []
        for cp in lesson.checkpoints:
            c = lr.cycle(cp.variant, cp.cycle)
            options = lesson.variants[cp.variant].options
            out.append((cp.variant, c.number, _decisions(c.result), c.opening,
                        queue_numbers(c.before, options), [r.as_dict() for r in c.records]))
        return out

    ref, fast = _both(run)
    assert ref == fast


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_property_scenarios(scenario: Any) -> None:
    ref, fast = _both(lambda: _simulate(scenario.objects, 3, True))
    assert ref == fast
    _untraced_agrees(scenario.objects, 3, fast[0])


@pytest.mark.parametrize("conf", sorted(CONFS))
@pytest.mark.parametrize("seed", range(3))
def test_random_hierarchies(conf: str, seed: int) -> None:
    objs = random_cluster(seed + 300, CONFS[conf], nodes=24, jobs=90, anti_affinity=seed == 1)
    for traced in (True, False):
        ref, fast = _both(lambda traced=traced: _simulate(objs, 3, traced))
        assert ref == fast
    assert any(c[0] for c in ref[0])


@pytest.mark.parametrize("conf", sorted(BOUND_CONFS))
def test_random_reclaim_and_preempt(conf: str) -> None:
    """Clusters where reclaim and preempt act (guarantees, mixed priorities): victim bounds, victim tables
    and untraced shortcuts against the plain node loops."""
    objs = with_guarantees(random_cluster(77, BOUND_CONFS[conf], nodes=16, jobs=80), 1)
    for traced in (True, False):
        ref, fast = _both(lambda traced=traced: _simulate(objs, 3, traced))
        assert ref == fast


@pytest.mark.parametrize("conf", sorted(CONFS))
def test_simulator_cycles(conf: str) -> None:
    """Through the Simulator (its SnapshotCache in the accelerated engine, nothing kept in the reference):
    pods run and complete, cycle after cycle."""

    def run() -> list[Any]:
        sim = Simulator(load_objects(random_cluster(11, CONFS[conf], nodes=12, jobs=50)),
                        SimOptions(event_driven=False), trace=Trace(enabled=True))
        out = []
        for _ in range(5):
            rec = sim.step()
            if rec is None:
                break
            out.append((rec.cycle, _decisions(rec.result), rec.row))
        return out

    ref, fast = _both(run)
    assert ref == fast and ref
