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

from capacity.analysis.charts import queue_rows
from capacity.authoring.lessons import PLACED, Checkpoint, Lesson, LessonRun, label, matches, rule_heading, show
from ui.views import pod_rows

PROGRESS_KEY = "lesson_progress"
RUNS_KEY = "lesson_runs"


@dataclass
class Progress:
    """The checkpoint shown, the first prediction checked at each checkpoint (the one the score counts) and the
    latest one checked (the one whose verdict is on screen)."""

    lesson: str
    index: int = 0
    predictions: dict[int, str] = field(default_factory=dict)
    latest: dict[int, str] = field(default_factory=dict)
    #: checkpoints where "Check" was pressed with nothing chosen (the page asks to choose first)
    unchosen: set[int] = field(default_factory=set)

    def revealed(self, index: int) -> bool:
        return index in self.predictions

    def predict(self, index: int, prediction: str | None) -> None:
        """Check a prediction: the first one at a checkpoint is scored; later ones only change what is shown."""
        if prediction is None:
            self.unchosen.add(index)
            return
        self.unchosen.discard(index)
        self.predictions.setdefault(index, prediction)
        self.latest[index] = prediction

    def verdict_for(self, index: int, chosen: str | None) -> str | None:
        """The checked prediction whose verdict may be shown next to the current choice: none if the choice
        changed since it was checked (the old verdict would be about another answer)."""
        shown = self.latest.get(index, self.predictions.get(index))
        return shown if shown is not None and shown == chosen else None

    def move(self, step: int, total: int) -> None:
        self.index = min(max(self.index + step, 0), total - 1)

    def score(self, run: LessonRun) -> tuple[int, int]:
        """(right, checked) over the checkpoints checked so far, counting each checkpoint's first answer only."""
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


SHARE_COLUMN = "share (as the session opens)"
HIDDEN = "? (asked)"


def state_tables(run: LessonRun, cp: Checkpoint, revealed: bool = False) -> tuple[list[dict[str, Any]],
                                                                                  list[dict[str, Any]]]:
    """What the user sees before predicting: the queues as the cycle's session opens, and every pod.

    The queue asked about by a share question has its share hidden until the prediction is checked (the
    session-open share is the answer of "as it opens", and often of "as it closes" too)."""
    cycle = run.state_before(cp)
    asked = cp.fact.get("queue") if cp.fact["kind"] == "share" and not revealed else None
    limit_asked = not revealed and limit_decides(run, cp)
    queues = []
    for row in queue_rows(cycle.opening):
        share = HIDDEN if row["queue"] == asked else show(row["share"])
        out = {"queue": "  " * int(row.get("depth", 0)) + row["queue"], SHARE_COLUMN: share}
        out.update({k: v for k, v in row.items() if k not in ("queue", "parent", "depth", "share")})
        spec = cycle.before.queues.get(row["queue"])
        if spec is not None:  # an unset limit is no limit, not "cpu 0": say so
            if spec.capability is None and "capability" in out:
                out["capability"] = "unset"  # realCapability shows what applies (the cluster, or a parent's)
            if spec.guarantee is None and "guarantee" in out:
                out["guarantee"] = "none"
        if limit_asked and "realCapability" in out:
            out["realCapability"] = HIDDEN  # the limit the question asks the student to work out
        queues.append(out)
    pods = [{k: v for k, v in row.items() if k != "status"} for row in pod_rows(cycle.before)]
    for row in pods:
        row["terminating"] = "yes" if row["terminating"] else ""
    return queues, pods


def limit_decides(run: LessonRun, cp: Checkpoint) -> bool:
    """Whether the checkpoint's answer is decided by a queue's realCapability keeping a pod out: then the
    realCapability column is the answer (lesson 03 once showed "cpu 8" above "how many of x's pods bind?")."""
    exp = run.explanation(cp)
    return exp is not None and exp.rule == "capacity.realCapability" and exp.outcome not in PLACED


@dataclass(frozen=True)
class RevealView:
    """Everything the page shows once a prediction is checked, as text (tested without Streamlit)."""

    correct: bool
    verdict: str
    why: str
    scored: str = ""
    naive: str = ""
    note: str = ""

    def texts(self) -> list[str]:
        return [t for t in (self.verdict, self.why, self.scored, self.naive, self.note) if t]


def reveal_view(run: LessonRun, cp: Checkpoint, shown: str, first: str | None = None) -> RevealView:
    """The verdict on `shown`, the engine's reason with the deciding rule in words, and the teacher's note.

    The rule's words fit the outcome (a bound pod's rule says what held); the rule is left out when it is the
    answer itself (a "which rule" question)."""
    reveal = run.reveal(cp, shown)
    if reveal.correct:
        verdict = f"Right: the engine decided **{label(reveal.shown)}**."
    else:
        verdict = f"You predicted **{label(shown)}**; the engine decided **{label(reveal.shown)}**."
    exp = run.explanation(cp)
    heading = ""
    if reveal.rule and reveal.rule != reveal.actual:
        heading = f" ({rule_heading(reveal.rule, exp.outcome if exp is not None else '')})"
    scored = f"Scored: your first answer, {label(first)}." if first is not None and first != shown else ""
    naive = ""
    if cp.seed:
        same = " (the same)" if matches(cp.seed, run.fact(cp)) else ""
        naive = f"A naive reading of the rules gives: {cp.seed}{same}"
    return RevealView(bool(reveal.correct), verdict, f"**Why**{heading}: {reveal.sentence}", scored, naive, cp.note)
