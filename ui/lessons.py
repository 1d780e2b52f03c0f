"""Lesson progress for the dashboard: where the user is in a lesson and what they predicted.

Plain Python over a mapping (the page passes `st.session_state`), so it is tested without Streamlit.
Progress lives under one plain key, never in widget keys, so it survives leaving the page. The
`LessonRun` (the engine's cycles of every variant) is kept next to it: a lesson's cycles run once per
session, when a checkpoint first needs them.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from capacity.charts import queue_rows
from capacity.lessons import Checkpoint, Lesson, LessonRun
from ui.views import pod_rows

PROGRESS_KEY = "lesson_progress"
RUNS_KEY = "lesson_runs"


@dataclass
class Progress:
    """The checkpoint shown, and the prediction made at each checkpoint checked so far."""

    lesson: str
    index: int = 0
    predictions: dict[int, str] = field(default_factory=dict)

    def revealed(self, index: int) -> bool:
        return index in self.predictions

    def predict(self, index: int, prediction: str) -> None:
        self.predictions[index] = prediction

    def move(self, step: int, total: int) -> None:
        self.index = min(max(self.index + step, 0), total - 1)

    def score(self, run: LessonRun) -> tuple[int, int]:
        """(right, checked) over the checkpoints checked so far."""
        cps = run.lesson.checkpoints
        right = sum(1 for i, p in self.predictions.items() if run.check(cps[i], p))
        return right, len(self.predictions)


def progress_for(state: MutableMapping[str, Any], lesson_id: str) -> Progress:
    book = state.setdefault(PROGRESS_KEY, {})
    if lesson_id not in book:
        book[lesson_id] = Progress(lesson_id)
    return book[lesson_id]


def run_for(state: MutableMapping[str, Any], lesson: Lesson) -> LessonRun:
    runs = state.setdefault(RUNS_KEY, {})
    if lesson.id not in runs:
        runs[lesson.id] = LessonRun(lesson)
    return runs[lesson.id]


def reset(state: MutableMapping[str, Any], lesson_id: str) -> None:
    state.setdefault(PROGRESS_KEY, {}).pop(lesson_id, None)


def state_tables(run: LessonRun, cp: Checkpoint) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What the user sees before predicting: the queues as the cycle opens, and every pod."""
    cycle = run.state_before(cp)
    return queue_rows(cycle.opening), pod_rows(cycle.before)
