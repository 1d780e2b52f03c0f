"""Lessons: step through a scenario, predict each decision before the engine makes it, then see the decision
and the engine's reason for it."""

from __future__ import annotations

import streamlit as st

from capacity.authoring.lessons import Lesson, label, lesson_ids, load_lesson
from ui.lessons import progress_for, reset, reveal_view, run_for, state_tables
from ui.state import get_workspace
from ui.widgets import show_problem, use_app_navigation

ws = get_workspace()
use_app_navigation()  # a direct link on a fresh server still gets the app's navigation
CURRENT_KEY = "lesson_current"


@st.cache_resource
def _lesson(lesson_id: str) -> Lesson:
    """Lessons are immutable: one parsed copy per server."""
    return load_lesson(lesson_id)


def _check(lesson_id: str, index: int, key: str) -> None:
    choice = st.session_state.get(key)
    progress_for(st.session_state, lesson_id).predict(index, None if choice is None else str(choice))


def _move(lesson_id: str, step: int, total: int) -> None:
    progress_for(st.session_state, lesson_id).move(step, total)


def _open_in_workspace(lesson: Lesson, variant: str) -> None:
    """Load the variant's scenario (and conf, and switches) as the workspace's scenario, for the other pages."""
    v = lesson.variants[variant]
    if ws.load_text(lesson.scenario_text(variant), name=f"lesson {lesson.id} ({v.label})",
                    source=f"fixtures/lessons/{lesson.id}/{v.scenario}", input_key="lesson",
                    conf_text=lesson.conf_text(variant)):
        ws.options = v.options
        ws.lifecycle = v.simulator  # step it the way the lesson does (pods run, PodEvicted policies apply)
        st.session_state["lesson_opened"] = f"{lesson.id}/{variant}"


st.title("Lessons")
ids = lesson_ids()
if not ids:
    st.info("No lesson found in fixtures/lessons/.", icon=":material/info:")
    st.stop()

# The widget's own key is dropped when the user leaves the page; the lesson they were on is kept in a plain key.
if st.session_state.get("lesson_pick") not in ids:
    st.session_state["lesson_pick"] = st.session_state.get(CURRENT_KEY) if st.session_state.get(CURRENT_KEY) in ids \
        else ids[0]
lesson_id = st.selectbox("Lesson", ids, key="lesson_pick", format_func=lambda i: f"{i[:2]} · {_lesson(i).title}")
st.session_state[CURRENT_KEY] = lesson_id
lesson = _lesson(lesson_id)
progress = progress_for(st.session_state, lesson.id)
run = run_for(st.session_state, lesson)
total = len(lesson.checkpoints)

with st.expander("About this lesson", expanded=progress.index == 0 and not progress.predictions):
    st.markdown(lesson.markdown)
    setups = ", ".join(f"**{v.label}**" for v in lesson.variants.values())
    st.caption(f"{'Setups' if len(lesson.variants) > 1 else 'Setup'}: {setups}. {total} questions.")

cp = lesson.checkpoints[progress.index]
variant = lesson.variants[cp.variant]
right, checked = progress.score(run)
st.subheader(f"Checkpoint {progress.index + 1} of {total}")
st.caption(f"Setup: {variant.label} · before cycle {cp.cycle} · score {right}/{checked} (first answers count)")

revealed = progress.revealed(cp.index)
with st.expander(f"The state as cycle {cp.cycle} opens", expanded=False):
    queues, pods = state_tables(run, cp, revealed)
    if queues:
        st.table(queues)  # a static table wraps long names and requests instead of cutting them
    st.table(pods)

st.markdown(f"**{cp.question}**")
choice_key = f"lesson_choice_{lesson.id}_{cp.index}"
if choice_key not in st.session_state and cp.index in progress.latest and progress.latest[cp.index] in cp.choices:
    st.session_state[choice_key] = progress.latest[cp.index]  # back on a checked checkpoint: show what was checked
chosen = st.radio("Your prediction", cp.choices, index=None, key=choice_key, format_func=label)
st.button("Check my prediction", key="lesson_check", type="primary", on_click=_check,
          args=(lesson.id, cp.index, choice_key), icon=":material/task_alt:")

shown = progress.verdict_for(cp.index, chosen)
if chosen is None and cp.index in progress.unchosen:
    st.warning("Choose an answer first.", icon=":material/touch_app:")
elif revealed and shown is None:
    st.caption("Your choice changed since you checked: press **Check my prediction** to see the verdict for it.")
if shown is not None:
    view = reveal_view(run, cp, shown, progress.predictions[cp.index])
    if view.correct:
        st.success(view.verdict, icon=":material/check_circle:")
    else:
        st.error(view.verdict, icon=":material/cancel:")
    if view.scored:
        st.caption(view.scored)
    st.info(view.why, icon=":material/lightbulb:")
    if view.naive:
        st.caption(view.naive)
    if view.note:
        st.markdown(view.note)

c1, c2, c3, c4 = st.columns([1, 1, 1, 2])  # the last button's label is long: never cut it
c1.button("Previous", key="lesson_prev", on_click=_move, args=(lesson.id, -1, total), disabled=progress.index == 0,
          icon=":material/arrow_back:")
c2.button("Next", key="lesson_next", on_click=_move, args=(lesson.id, 1, total),
          disabled=progress.index == total - 1, icon=":material/arrow_forward:")
c3.button("Start over", key="lesson_reset", on_click=reset, args=(st.session_state, lesson.id),
          icon=":material/restart_alt:")
c4.button("Open this setup in the workspace", key="lesson_open", on_click=_open_in_workspace,
          args=(lesson, cp.variant), icon=":material/open_in_new:")
show_problem(ws.errors.get("lesson"))
if st.session_state.get("lesson_opened") == f"{lesson.id}/{cp.variant}":
    st.caption(f"Loaded as the workspace scenario **{ws.scenario}**: step it on Simulate, read it on Decisions, "
               "or run it against another configuration on Compare.")
if checked == total:
    st.success(f"Lesson done: {right} of {total} predictions right.", icon=":material/school:")
