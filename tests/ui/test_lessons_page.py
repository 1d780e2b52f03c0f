"""AppTest: the Lessons page opens from the navigation, asks, checks a prediction, shows the engine's reason,
keeps progress across pages, and opens a lesson variant as the workspace scenario; ui.lessons' progress model."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from capacity.authoring.lessons import LessonRun, lesson_ids, load_lesson
from ui.lessons import PROGRESS_KEY, Progress, progress_for, reset, run_for, state_tables
from ui.state import WORKSPACE_KEY

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "pages/lessons.py"


def _lessons() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Lessons"
    return at


def _pick(at: AppTest, lesson_id: str) -> AppTest:
    at.selectbox(key="lesson_pick").set_value(lesson_id).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _radio(at: AppTest):
    return next(r for r in at.radio if r.key and r.key.startswith("lesson_choice_"))


def _check(at: AppTest, choice: str | None) -> AppTest:
    if choice is not None:
        _radio(at).set_value(choice).run()
    at.button(key="lesson_check").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _score(at: AppTest) -> str:
    return next(c.value for c in at.caption if "score" in c.value)


def _queue_table(at: AppTest):
    return at.table[0].value


def test_first_lesson_asks_before_revealing():
    at = _lessons()
    assert "Checkpoint 1 of" in at.subheader[0].value
    radio = _radio(at)
    assert radio.value is None and "0.5" in radio.options
    assert not at.success and not at.error  # nothing revealed before the prediction
    queues = _queue_table(at)
    row = queues[queues["queue"] == "queue1"].iloc[0]
    assert row["share (as the session opens)"] == "? (asked)"  # the table does not show the answer above the question
    assert row["capability"] == "unset" and row["guarantee"] == "none"  # not "cpu 0", a limit of nothing
    _check(at, "0.5")
    queues = _queue_table(at)
    assert queues[queues["queue"] == "queue1"].iloc[0]["share (as the session opens)"] == "0.5"


def test_the_score_counts_first_answers_only():
    at = _lessons()
    _check(at, "0")
    assert at.error and "score 0/1" in _score(at)
    _check(at, "0.5")  # a second try: shown right, but not scored
    assert at.success and "score 0/1" in _score(at)
    assert any(c.value == "Scored: your first answer, 0." for c in at.caption)


def test_changing_the_answer_after_a_reveal_clears_the_old_verdict():
    at = _check(_lessons(), "0.5")
    assert at.success
    _radio(at).set_value("2").run()
    assert not at.success and not at.error  # the old verdict was about another answer
    assert any("choice changed since you checked" in c.value for c in at.caption)
    assert "score 1/1" in _score(at)


def test_checking_with_nothing_chosen_asks_for_an_answer():
    at = _check(_lessons(), None)
    assert at.warning and at.warning[0].value == "Choose an answer first."
    assert "score 0/0" in _score(at) and not at.success and not at.error


def test_rule_choices_are_plain_words():
    at = _pick(_lessons(), "07-reclaim-rules")
    options = _radio(at).options
    assert "it uses no resource the reclaimer asks for" in options
    assert not any(o.startswith("capacity.") for o in options)
    _check(at, "it uses no resource the reclaimer asks for")
    assert at.success and "it uses no resource ns1/p30 requests" in at.info[-1].value


def test_right_prediction_shows_the_engines_reason():
    at = _check(_pick(_lessons(), "11-seed003-leaf-only"), "none")
    assert "Right" in at.success[0].value and "none" in at.success[0].value
    why = at.info[-1].value
    assert "capacity limit" in why and "memory 4Gi + 2Gi = 6Gi > 5Gi (1Gi over)" in why  # explain_pod's sentence


def test_wrong_prediction_and_stepping_to_the_switch_variant():
    at = _check(_pick(_lessons(), "11-seed003-leaf-only"), "ns1/new-0")
    assert "the engine decided **none**" in at.error[0].value
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_next").click().run()
    assert "Checkpoint 3 of 3" in at.subheader[0].value
    assert "old behaviour" in at.caption[0].value
    _check(at, "ns1/new-0")
    assert at.success and "ns1/new-0" in at.success[0].value


def test_a_difference_from_the_naive_reading_is_explained():
    at = _pick(_lessons(), "10-seed004-section7")
    for _ in range(3):
        at.button(key="lesson_next").click().run()
    _check(at, "0.917")
    assert "0.75" in at.error[0].value
    assert any("naive reading of the rules gives: 0.917" in c.value for c in at.caption)
    assert any(m.value.startswith("Differs from the naive reading") for m in at.markdown)
    assert "still the value computed as the session opened" in at.info[-1].value  # a stale share says so


def test_progress_survives_a_page_switch_and_opens_in_the_workspace():
    at = _pick(_lessons(), "07-reclaim-rules")
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_open").click().run()
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.scenario.startswith("lesson 07-reclaim-rules") and "ns1/p30" in ws.cluster.pods
    assert ws.lifecycle is False  # a plain lesson steps plain cycles, as it did in the lesson
    at.switch_page("pages/simulate.py").run()
    at.button(key="step_btn").click().run()
    assert ws.history[-1].result.evicted == ["ns1/p28"]
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "Checkpoint 2 of" in at.subheader[0].value


def test_the_tidal_variant_runs_in_the_workspace_as_in_the_lesson():
    """Opened in the workspace, the tidal lesson's eviction triggers RestartJob: after three steps the training
    gang is wholly Pending (it was left half running when the workspace ran plain cycles)."""
    at = _pick(_lessons(), "13-tidal-seed001")
    at.button(key="lesson_open").click().run()
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.lifecycle is True
    at.switch_page("pages/simulate.py").run()
    for _ in range(3):
        at.button(key="step_btn").click().run()
        assert not at.exception, [e.value for e in at.exception]
    assert ws.cycle == 3 and ws.history[0].result.evicted == ["ai/training-low-worker2-0"]
    assert ws.history[2].result.binds == {"ai/inference-high-7d9f-x2k4p": "gpu-node-1"}
    gang = {k: p for k, p in ws.cluster.pods.items() if k.startswith("ai/training-low-")}
    assert sorted(gang) == ["ai/training-low-worker1-0", "ai/training-low-worker2-0"]
    assert all(p.phase == "Pending" and not p.node_name for p in gang.values())  # not half running
    lesson_run = LessonRun(load_lesson("13-tidal-seed001"))
    for n in (1, 2, 3):  # the same decisions as the lesson's own run
        assert ws.history[n - 1].result.binds == lesson_run.cycle("main", n).result.binds
        assert ws.history[n - 1].result.evicted == lesson_run.cycle("main", n).result.evicted


def test_open_a_variant_with_its_switch():
    at = _pick(_lessons(), "11-seed003-leaf-only")
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_open").click().run()
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.options.leaf_only_allocatable is True


@pytest.mark.parametrize("lesson_id", lesson_ids())
def test_every_kind_of_lesson_renders(lesson_id):
    at = _pick(_lessons(), lesson_id)
    lesson = load_lesson(lesson_id)
    _radio(at).set_value(lesson.checkpoints[0].choices[0]).run()
    at.button(key="lesson_check").click().run()
    assert not at.exception and (at.success or at.error)


# ---- ui.lessons, without Streamlit ----------------------------------------------------------------------------
def test_progress_model():
    state: dict = {}
    lesson = load_lesson("07-reclaim-rules")
    p = progress_for(state, lesson.id)
    assert isinstance(state[PROGRESS_KEY][lesson.id], Progress) and p.index == 0
    p.move(-1, len(lesson.checkpoints))
    assert p.index == 0
    p.move(10, len(lesson.checkpoints))
    assert p.index == len(lesson.checkpoints) - 1
    run = run_for(state, lesson)
    assert run_for(state, lesson) is run and isinstance(run, LessonRun)
    p.predict(0, "capacity.guarantee")  # wrong
    p.predict(0, "capacity.noSharedDimension")  # right, but a second try: not scored
    p.predict(1, "ns1/p28")
    assert p.score(run) == (1, 2) and p.revealed(0) and not p.revealed(2)
    assert p.verdict_for(0, "capacity.noSharedDimension") == "capacity.noSharedDimension"
    assert p.verdict_for(0, "capacity.guarantee") is None  # changed since: no old verdict
    p.predict(2, None)
    assert 2 in p.unchosen and not p.revealed(2)
    reset(state, lesson.id)
    assert progress_for(state, lesson.id).predictions == {}
    queues, pods = state_tables(run, lesson.checkpoints[0])
    assert {r["queue"] for r in queues} == {"queue17", "queue18"} and len(pods) == 5


def test_a_lifecycle_workspace_rewinds_with_its_jobs():
    """Rewinding the tidal setup in the workspace and stepping again decides exactly what it did the first time."""
    from ui.state import new_workspace
    lesson = load_lesson("13-tidal-seed001")
    ws = new_workspace()
    assert ws.load_text(lesson.scenario_text("main"), name="tidal", source="tidal", input_key="lesson")
    ws.lifecycle = True
    first = [(s.result.binds, s.result.evicted) for s in ws.run(4)]
    ws.rewind(1)
    assert ws.cycle == 1 and ws.cluster.pods["ai/training-low-worker2-0"].deleting
    ws.run(3)
    assert [(s.result.binds, s.result.evicted) for s in ws.history] == first
    assert first[3][0] == {"ai/training-urgent-worker-0": "gpu-node-1"}  # the restarted gang freed its GPUs
    assert ws.load_text(lesson.scenario_text("main"), name="again", source="tidal", input_key="lesson")
    assert ws.lifecycle is False and ws.sim is None  # another scenario steps plain cycles unless asked
