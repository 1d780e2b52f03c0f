"""AppTest: the Lessons page opens from the navigation, asks, checks a prediction, shows the engine's reason,
keeps progress across pages, and opens a lesson variant as the workspace scenario; ui.lessons' progress model."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from capacity.lessons import LessonRun, load_lesson
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


def test_first_lesson_asks_before_revealing():
    at = _lessons()
    assert "Checkpoint 1 of" in at.subheader[0].value
    radio = _radio(at)
    assert radio.value is None and "0.5" in radio.options
    assert not at.success and not at.error  # nothing revealed before the prediction


def test_right_prediction_shows_the_engines_reason():
    at = _pick(_lessons(), "11-seed003-leaf-only")
    _radio(at).set_value("none").run()
    at.button(key="lesson_check").click().run()
    assert not at.exception
    assert "Right" in at.success[0].value and "none" in at.success[0].value
    why = at.info[-1].value
    # explain_pod's sentence
    assert "capacity.realCapability" in why and "memory 4Gi + 2Gi = 6Gi > 5Gi (1Gi over)" in why


def test_wrong_prediction_and_stepping_to_the_switch_variant():
    at = _pick(_lessons(), "11-seed003-leaf-only")
    _radio(at).set_value("ns1/new-0").run()
    at.button(key="lesson_check").click().run()
    assert "the engine decided **none**" in at.error[0].value
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_next").click().run()
    assert "Checkpoint 3 of 3" in at.subheader[0].value
    assert "leaf_only_allocatable" in at.caption[0].value or "leaf-only" in at.caption[0].value.lower()
    _radio(at).set_value("ns1/new-0").run()
    at.button(key="lesson_check").click().run()
    assert at.success and "ns1/new-0" in at.success[0].value


def test_seed_difference_is_explained():
    at = _pick(_lessons(), "10-seed004-section7")
    for _ in range(3):
        at.button(key="lesson_next").click().run()
    _radio(at).set_value("0.917").run()
    at.button(key="lesson_check").click().run()
    assert "0.75" in at.error[0].value
    assert any("seed's table gives: 0.917" in c.value for c in at.caption)
    assert any(m.value.startswith("Differs from the seed") for m in at.markdown)


def test_progress_survives_a_page_switch_and_opens_in_the_workspace():
    at = _pick(_lessons(), "07-reclaim-rules")
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_open").click().run()
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.scenario.startswith("lesson 07-reclaim-rules") and "ns1/p30" in ws.cluster.pods
    at.switch_page("pages/simulate.py").run()
    at.button(key="step_btn").click().run()
    assert ws.history[-1].result.evicted == ["ns1/p28"]
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "Checkpoint 2 of" in at.subheader[0].value


def test_open_a_variant_with_its_switch():
    at = _pick(_lessons(), "11-seed003-leaf-only")
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_open").click().run()
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.options.leaf_only_allocatable is True


@pytest.mark.parametrize("lesson_id", ["02-guarantee-protection", "06-ancestor-reclaim-level",
                                       "09-proportion-vs-capacity", "12-seed002-namespace-fairshare"])
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
    p.predict(0, "pipelined")
    p.predict(1, "capacity.guarantee")
    assert p.score(run) == (1, 2) and p.revealed(0) and not p.revealed(2)
    reset(state, lesson.id)
    assert progress_for(state, lesson.id).predictions == {}
    queues, pods = state_tables(run, lesson.checkpoints[0])
    assert {r["queue"] for r in queues} == {"queue17", "queue18"} and len(pods) == 5
