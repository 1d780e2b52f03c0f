"""Enqueue's fit reasons are written lazily: a traced cycle takes their numbers when it decides and formats
them only when a reason's text is read (the Decisions page reads one page of records; at S1 the eager
sentences were ~334,000 number formats, a third of the traced cycle). Counted, not timed."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import capacity.plugins.figures as figures
from capacity.core.trace import LazyReason, Reason, Trace
from capacity.scheduler import simulate
from tests.builders import cluster, conf, node, pod, podgroup, queue

RULE = "enqueueRealCapability"


def _objs(jobs: int) -> list[dict[str, Any]]:
    objs = [conf("enqueue", [{"name": "gang"}, {"name": "capacity"}]), node("n1", cpu="8", memory="8Gi"),
            queue("q1", capability={"cpu": "6", "memory": "6Gi"})]
    for i in range(jobs):
        objs += [podgroup(f"pg{i}", "q1", phase="Pending", min_resources={"cpu": "1", "memory": "1Gi"}),
                 pod(f"p{i}", f"pg{i}", {"cpu": "1", "memory": "1Gi"})]
    return objs


@pytest.fixture
def formats(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every number the queue plugins' sentences format (figures.amount's formatter), by dimension."""
    seen: list[str] = []
    real = figures.format_resource_value

    def counted(name: str, v: float, styles: Any = None) -> str:
        seen.append(name)
        return real(name, v, styles)

    monkeypatch.setattr(figures, "format_resource_value", counted)
    return seen


def _fit_reasons(trace: Trace) -> list[LazyReason]:
    """The fit reasons enqueue filed, all of them lazy (an eager one would leave the count short)."""
    return [x for r in trace.records for x in r.reasons if x.rule == RULE and isinstance(x, LazyReason)]


def test_a_traced_cycle_formats_no_enqueue_number_until_a_reason_is_read(formats: list[str]) -> None:
    counts = []
    for jobs in (2, 5):
        formats.clear()
        trace = Trace()
        simulate(cluster(*_objs(jobs)), 1, trace)
        reasons = _fit_reasons(trace)
        assert len(reasons) == jobs and not any(x.is_made() for x in reasons)
        counts.append(len(formats))  # the queue figures of session open: as many for 2 jobs as for 5
        formats.clear()
        texts = [x.text for x in reasons]
        assert len(formats) == jobs * 12  # cpu, memory: 4 terms, the total and the limit each
        assert all(x.is_made() for x in reasons)
        assert [x.text for x in reasons] == texts and len(formats) == jobs * 12  # made once, kept
    assert counts[0] == counts[1]


def test_the_sentence_reads_the_numbers_of_its_decision_not_later_ones() -> None:
    trace = Trace()
    simulate(cluster(*_objs(2)), 1, trace)  # read after the cycle, when q1's inqueue holds both jobs
    head = "minResources + allocated + inqueue - elastic fit the realCapability at every level: q1: "
    assert [x.text for x in _fit_reasons(trace)] == [
        head + "cpu 1 + 0 + 0 - 0 = 1 <= 6, memory 1Gi + 0 + 0 - 0 = 1Gi <= 6Gi",
        head + "cpu 1 + 0 + 1 - 0 = 2 <= 6, memory 1Gi + 0 + 1Gi - 0 = 2Gi <= 6Gi"]


def test_a_lazy_reason_reads_compares_and_pickles_as_the_reason_it_stands_for() -> None:
    made = []

    def make(a: int, b: int) -> str:
        made.append(1)
        return f"{a} + {b}"

    lazy = LazyReason("capacity", RULE, make, (1, 2), {"x": 1})
    assert not made and not lazy.is_made()
    eager = Reason("capacity", RULE, "1 + 2", {"x": 1})
    assert lazy == eager and eager == lazy and repr(lazy) == repr(eager) and lazy.as_dict() == eager.as_dict()
    assert made == [1]
    again = pickle.loads(pickle.dumps(LazyReason("capacity", RULE, make, (3, 4), {})))
    assert again == Reason("capacity", RULE, "3 + 4", {}) and type(again) is Reason
