"""The engine's timeline (capacity/simulation/timeline.py, steps.py), which the dashboard's workspace delegates to:
cycles kept with the cluster each one found, rewinds, edits and undo, branches, a refused cycle that keeps the state
before it, the lifecycle simulator's cycles, and the queue numbers of the current moment."""

from __future__ import annotations

from pathlib import Path

import pytest

import capacity.simulation.steps as steps
from capacity.authoring import edit
from capacity.authoring.lessons import lesson_ids, load_lesson
from capacity.core.errors import InputError
from capacity.framework.session import SessionOptions
from capacity.io.export import export_yaml
from capacity.io.k8s import load_cluster
from capacity.scheduler import run_cycle
from capacity.simulation.steps import queue_numbers
from capacity.simulation.timeline import UNDO_DEPTH, CycleRefused, Timeline, Timelines

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
OPTIONS = SessionOptions()


def _load(name: str = "default"):
    return load_cluster((FIXTURES / f"{name}.yaml").read_text(encoding="utf-8"), source=f"{name}.yaml")


def _add_queue(line: Timeline, name: str = "team-new") -> None:
    line.edit(f"Added queue {name}.", edit.add_queue(line.cluster, name, "research").cluster, "queue_add")


def test_each_cycle_is_kept_with_the_cluster_it_found():
    line = Timeline(_load())
    seen = []
    for _ in range(3):
        seen.append(export_yaml(line.cluster))
        line.step(OPTIONS)
    assert line.cycle == 3 and [s.cycle for s in line.history] == [1, 2, 3]
    assert [export_yaml(s.before) for s in line.history] == seen
    assert [export_yaml(line.cluster_after(k)) for k in range(3)] == seen
    assert line.cluster_after(3) is line.cluster and line.step_at(2) is line.history[1] and line.step_at(4) is None
    assert line.share_history() == [(s.cycle, s.result.queues) for s in line.history]


def test_a_rewound_timeline_decides_again_what_it_decided_the_first_time():
    line = Timeline(_load("reclaim"))
    first = [(s.result.binds, list(s.result.evicted)) for s in line.run(4, OPTIONS)]
    assert line.rewind(1) and line.cycle == 1
    again = [(s.result.binds, list(s.result.evicted)) for s in line.run(3, OPTIONS)]
    assert again == first[1:]
    assert not line.rewind(4) and not line.rewind(-1), "out of range: nothing changes"


def test_a_refused_cycle_keeps_the_state_before_it_and_what_the_run_did_first(monkeypatch: pytest.MonkeyPatch):
    line = Timeline(_load())
    real, calls = steps.run_cycle, [0]

    def second_fails(cluster, trace=None, options=None, **kw):  # noqa: ANN001, ANN003, ANN202
        calls[0] += 1
        if calls[0] == 2:
            cluster.pods.clear()  # half-way through: the timeline must not keep this
            raise ZeroDivisionError("a bug")
        return real(cluster, trace, options, **kw)

    monkeypatch.setattr(steps, "run_cycle", second_fails)
    with pytest.raises(CycleRefused) as refused:
        line.run(3, OPTIONS)
    err = refused.value
    assert err.cycle == 2 and [s.cycle for s in err.done] == [1] and not err.input_error
    assert line.cycle == 1 and line.cluster.pods, "the cluster is the one cycle 2 found"
    monkeypatch.setattr(steps, "run_cycle", real)
    assert line.step(OPTIONS).cycle == 2


def test_an_input_error_in_a_cycle_is_the_inputs_fault(monkeypatch: pytest.MonkeyPatch):
    def refuses(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise InputError("Queue/q", "spec.deserved", "bad")

    line = Timeline(_load())
    monkeypatch.setattr(steps, "run_cycle", refuses)
    with pytest.raises(CycleRefused) as refused:
        line.step(OPTIONS)
    assert refused.value.input_error and refused.value.cause.obj == "Queue/q" and line.cycle == 0


def test_an_edit_applies_from_the_next_cycle_and_undo_says_which_cycles_it_drops():
    line = Timeline(_load())
    line.step(OPTIONS)
    _add_queue(line)
    assert "team-new" in line.cluster.queues and [(e.at_cycle, e.label) for e in line.edits] == [(1, "Added queue "
                                                                                                   "team-new.")]
    assert line.undo_stack[-1].form == "queue_add" and line.undo_label() == "undo edit: Added queue team-new."
    line.run(2, OPTIONS)
    assert line.undo_label() == "undo edit: Added queue team-new. (also drops cycles 2-3 run since)"
    assert line.undo() == "undo edit: Added queue team-new. (also drops cycles 2-3 run since)"
    assert "team-new" not in line.cluster.queues and line.cycle == 1 and line.edits == []
    assert line.undo() == "" and line.undo_label() == ""


def test_a_rewind_drops_later_edits_and_undo_brings_them_back():
    line = Timeline(_load())
    line.run(2, OPTIONS)
    _add_queue(line)
    line.run(2, OPTIONS)
    assert line.edits_dropped_by_rewind(2) == [] and len(line.edits_dropped_by_rewind(1)) == 1
    line.rewind(1)
    assert line.cycle == 1 and line.edits == [] and "team-new" not in line.cluster.queues
    assert line.undo() == "undo rewind to cycle 1"
    assert line.cycle == 4 and len(line.edits) == 1 and "team-new" in line.cluster.queues


def test_undo_keeps_at_most_its_depth():
    line = Timeline(_load())
    for i in range(UNDO_DEPTH + 5):
        _add_queue(line, f"team-{i}")
    assert len(line.undo_stack) == UNDO_DEPTH and line.undo_stack[0].label == "edit: Added queue team-5."


def test_a_branch_starts_after_a_cycle_and_the_original_is_kept():
    lines = Timelines(_load())
    lines.current.run(3, OPTIONS)
    main = lines.current
    main_state = export_yaml(main.cluster)
    assert lines.branch(5) == "" and lines.names() == ["main"]
    assert lines.branch(1) == "branch at cycle 1" and lines.names() == ["branch at cycle 1", "main"]
    assert lines.current.cycle == 1 and lines.current.history == main.history[:1]
    assert export_yaml(lines.current.cluster) == export_yaml(main.cluster_after(1))
    _add_queue(lines.current)
    lines.current.step(OPTIONS)
    assert export_yaml(main.cluster) == main_state and main.cycle == 3, "the original is not changed"
    assert lines.switch("main") and lines.current is main and not lines.switch("main")
    assert lines.branch(1) == "branch at cycle 1 (2)" and len(lines.kept) == 2


def test_queue_numbers_are_a_new_sessions_and_kept_until_the_state_or_the_options_change():
    line = Timeline(_load())
    numbers = line.queue_numbers(OPTIONS)
    result = run_cycle(line.cluster.copy_state(), write_back=False)
    assert set(numbers) == set(result.queues)
    for name, q in numbers.items():
        assert q["deserved"] == result.queues[name]["deserved"], name
    assert numbers["research-train"]["allocated"]["nvidia.com/gpu"] == 8000  # before the cycle allocates
    assert line.queue_numbers(OPTIONS) is numbers, "asked again for the same moment: kept"
    assert line.queue_numbers(SessionOptions()) is not numbers, "other options: asked anew"
    line.step(OPTIONS)
    after = line.queue_numbers(OPTIONS)
    assert after == queue_numbers(line.cluster, OPTIONS) and after != numbers
    line.rewind(0)
    assert line.queue_numbers(OPTIONS) == numbers


def test_lessons_read_the_same_queue_numbers():
    from capacity.authoring import lessons

    assert lessons.queue_numbers is queue_numbers


def _simulated_lesson():
    lesson = next(load_lesson(i) for i in lesson_ids() if any(v.simulator for v in load_lesson(i).variants.values()))
    variant = next(v for v, var in lesson.variants.items() if var.simulator)
    cluster = load_cluster(lesson.scenario_text(variant), source="lesson", conf_text=lesson.conf_text(variant))
    return lesson, variant, cluster


def test_a_lifecycle_timeline_steps_the_simulator_as_the_lesson_does_and_rewinds_through_it():
    from capacity.authoring.lessons import LessonRun

    lesson, variant, cluster = _simulated_lesson()
    options = lesson.variants[variant].options
    line = Timeline(cluster)
    done = line.run(3, options, lifecycle=True)
    assert line.sim is not None and line.sim.cluster is line.cluster
    run = LessonRun(lesson)
    for step in done:
        want = run.cycle(variant, step.cycle)
        assert (step.result.binds, step.result.evicted) == (want.result.binds, want.result.evicted)
        assert step.traced is not None, "a simulator's cycle keeps its records as it runs"
        assert step.result.queues, "its queue numbers, as a plain cycle reports them"
    first = [(s.result.binds, list(s.result.evicted)) for s in done]
    line.rewind(1)
    assert line.sim is not None and line.cycle == 1
    assert [(s.result.binds, list(s.result.evicted)) for s in line.run(2, options, lifecycle=True)] == first[1:]
