"""A step runs its cycle untraced; its decision records are built the first time something reads them, by running
the cycle again traced (capacity/simulation/steps.py `Step.records`), and they are the records a traced step would
have kept."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import capacity.simulation.steps as steps
import ui.state as state
from capacity.authoring.lessons import lesson_ids, load_lesson
from capacity.core.cluster import Cluster
from capacity.core.trace import Trace
from capacity.framework.session import SessionOptions
from capacity.io.k8s import load_cluster
from capacity.scheduler import run_cycle
from tests.scale_dump import scale_yaml
from ui.state import WORKSPACE_KEY, DecisionsDiffer, Workspace, new_workspace, read_decisions
from ui.views import history_rows, trace_jsonl

APP = str(Path(__file__).resolve().parents[2] / "app.py")
CYCLES = 3


def _traced_cycles(cluster: Cluster, options: SessionOptions, cycles: int) -> list[list[dict]]:
    """What a step used to keep: every cycle run traced, on a copy of the cluster."""
    cluster = cluster.copy_state()
    out = []
    for k in range(1, cycles + 1):
        trace = Trace(enabled=True)
        trace.cycle = k
        run_cycle(cluster, trace, options)
        out.append([r.as_dict() for r in trace.records])
    return out


def _assert_lazy_equals_traced(ws: Workspace, cycles: int = CYCLES) -> None:
    want = _traced_cycles(ws.cluster, ws.options, cycles)
    assert len(ws.run(cycles)) == cycles
    assert all(s.traced is None for s in ws.history), "a step keeps no records until they are read"
    for step, records in zip(ws.history, want, strict=True):
        got = [r.as_dict() for r in step.records]
        assert got == records, f"cycle {step.cycle}"
        assert got, f"cycle {step.cycle} has records"


@pytest.fixture()
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the traced runs of a cycle, whoever asks for them."""
    counted = [0]
    real = steps.run_cycle

    def counting(cluster, trace=None, options=None, **kw):  # noqa: ANN001, ANN003, ANN202
        if trace is None or trace.enabled:
            counted[0] += 1
        return real(cluster, trace, options, **kw)

    monkeypatch.setattr(steps, "run_cycle", counting)  # every cycle of a history runs there
    return counted


def test_a_step_runs_untraced_and_builds_records_once_when_read(replays: list[int]) -> None:
    ws = new_workspace()
    step = ws.step()
    assert step is not None and step.result.binds
    assert replays[0] == 0 and step.traced is None and not step.has_records
    assert history_rows(ws.history)[0]["records"] is None, "the Simulate history does not build them"
    records = step.records
    assert replays[0] == 1 and records and {r.cycle for r in records} == {1}
    assert step.records is records and replays[0] == 1, "built once, then kept on the step"
    assert history_rows(ws.history)[0]["records"] == len(records)


def test_lazy_records_equal_a_traced_steps_on_the_default_scenario() -> None:
    _assert_lazy_equals_traced(new_workspace())


def test_the_rerun_uses_the_options_the_cycle_ran_with() -> None:
    ws = new_workspace()
    ws.step()
    name = state.option_names(ws.options)[0]
    ws.options = replace(ws.options, **{name: True})
    step = ws.step()
    ws.options = SessionOptions()  # changed after the cycle: not what its records are read with
    assert getattr(step.options, name) is True
    want = _traced_cycles(step.before, step.options, 1)[0]
    assert [replace(r, cycle=1).as_dict() for r in step.records] == want


LESSON_VARIANTS = [(i, v) for i in lesson_ids() for v, var in load_lesson(i).variants.items() if not var.simulator]


@pytest.mark.parametrize(("lesson_id", "variant"), LESSON_VARIANTS)
def test_lazy_records_equal_a_traced_steps_on_lesson_scenarios(lesson_id: str, variant: str) -> None:
    lesson = load_lesson(lesson_id)
    ws = new_workspace()
    assert ws.load_text(lesson.scenario_text(variant), name=lesson_id, source=f"{lesson_id}/{variant}",
                        input_key="lesson", conf_text=lesson.conf_text(variant))
    ws.options = lesson.variants[variant].options
    _assert_lazy_equals_traced(ws)


def test_a_simulated_lessons_steps_keep_their_records(replays: list[int]) -> None:
    """The lifecycle path (capacity.simulation.sim) changes the cluster around the cycle: its records are kept
    as it runs."""
    lesson = next(load_lesson(i) for i in lesson_ids() if any(v.simulator for v in load_lesson(i).variants.values()))
    variant = next(v for v, var in lesson.variants.items() if var.simulator)
    ws = new_workspace()
    assert ws.load_text(lesson.scenario_text(variant), name=lesson.id, source="lesson", input_key="lesson",
                        conf_text=lesson.conf_text(variant))
    ws.options, ws.lifecycle = lesson.variants[variant].options, True
    ws.run(2)
    assert ws.history and all(s.traced is not None for s in ws.history)
    assert all(s.records for s in ws.history)
    assert replays[0] == 0


def test_lazy_records_equal_a_traced_steps_on_a_generated_dump() -> None:
    ws = Workspace("scale", load_cluster(scale_yaml(nodes=40, pods=400), source="scale.yaml"))
    _assert_lazy_equals_traced(ws, cycles=2)


def test_a_rerun_that_decides_otherwise_is_one_clear_error() -> None:
    ws = new_workspace()
    step = ws.step()
    step.result = replace(step.result, binds={**step.result.binds, "ghost/pod": "nowhere"})
    with pytest.raises(DecisionsDiffer, match="cycle 1: binds"):
        step.records  # noqa: B018
    assert step.refused is not None and step.traced is None
    problem = read_decisions(ws.history)
    assert problem is not None and problem.obj == "cycle 1" and "bug" in problem.message
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[WORKSPACE_KEY] = ws
    at.switch_page("pages/decisions.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == [str(problem)]


def test_the_trace_download_builds_what_was_not_read(replays: list[int]) -> None:
    ws = new_workspace()
    ws.run(2)
    lines = trace_jsonl(ws.history).splitlines()
    assert replays[0] == 2 and len(lines) == sum(len(s.records) for s in ws.history)


def test_run_until_a_reclaim_reads_records_only_of_cycles_that_evicted(replays: list[int]) -> None:
    ws = new_workspace()
    assert ws.load_fixture("reclaim")
    steps, why = ws.run_until(state.Until("queue-reclaim", "team-b"), 5)
    assert why is not None and why.startswith("queue team-b reclaims")
    assert replays[0] == sum(1 for s in steps if s.result.evicted) and replays[0] >= 1
    replays[0] = 0
    steps, why = ws.run_until(state.Until("quiet"), 5)
    assert replays[0] == 0 and all(s.traced is None for s in steps)


def test_decisions_builds_the_records_of_the_cycles_it_reads_and_simulate_none(replays: list[int]) -> None:
    ws = new_workspace()
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state[WORKSPACE_KEY] = ws
    at.switch_page("pages/simulate.py").run()
    at.button(key="step_btn").click().run()
    at.button(key="step_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert ws.cycle == 2 and replays[0] == 0, "stepping and drawing Simulate trace nothing"
    at.switch_page("pages/decisions.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert replays[0] == 2 and all(s.traced is not None for s in ws.history)
    assert any("records of cycle 2" in c.value for c in at.caption)
    at.switch_page("pages/jobs.py").run()
    assert not at.exception and replays[0] == 2, "read once, kept"
