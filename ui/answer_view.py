"""Lays out one Answer (`capacity.analysis.answer`) as readable text: the sentence first, then its figures, the chain of
checks in the order Volcano ran them (the one that stopped the object marked), what happens next, one line
per cycle, the session's notes, and the answers of its parts (a job's pods, a queue's jobs).

Layout only: every word and number is the engine's. Whatever can carry a name from the input (the sentence,
figure names, check texts, notes) is shown with `st.text` or in a dataframe, never as Markdown or HTML;
Markdown only carries this module's own labels and the engine's fixed vocabulary (outcome, rule id).
"""

from __future__ import annotations

import streamlit as st

from capacity.analysis.answer import Answer, Check, render_text
from ui.text import md_escape

#: How each check outcome is shown: label and badge colour (unknown outcomes are shown as they come, grey).
OUTCOMES = {
    "passed": ("passed", "green"),
    "stopped": ("stopped", "orange"),
    "not reached": ("not reached", "gray"),
    "info": ("info", "blue"),
}
MAX_CHECKS = 80
MAX_PARTS = 60
#: The key of the box holding the sentence; the style below makes its sentence large.
SENTENCE_KEY = "why_answer"
_STYLE = """<style>
.st-key-why_sentence [data-testid="stText"] { font-size: 1.2rem; font-weight: 600; }
div[class*="st-key-why_check_"][class*="_stopper"] { border: 2px solid #e5484d; background: rgba(229, 72, 77, 0.05); }
</style>"""


def _badge(outcome: str, stopper: bool = False) -> None:
    label, color = ("stopped here", "red") if stopper else OUTCOMES.get(outcome, (outcome or "?", "gray"))
    if outcome == "stopped" and not stopper:  # failed, but a later action placed or admitted it: not a stop
        label, color = "failed here", "orange"
    st.badge(md_escape(label), color=color)


def answer_headline(answer: Answer) -> str:
    """"**pending** in cycle 1 · rule `capacity.enqueueRealCapability`": the engine's vocabulary only."""
    line = f"**{md_escape(answer.outcome or 'no outcome')}**"
    if answer.cycle:
        line += f" in cycle {answer.cycle}"
    if answer.rule and answer.rule != "none":
        line += f" · rule `{answer.rule.replace('`', '')}`"
    return line


def show_sentence(answer: Answer) -> None:
    """The answer's one sentence, large, as plain text, with the outcome line above it."""
    st.html(_STYLE)
    with st.container(border=True, key=SENTENCE_KEY):
        st.markdown(answer_headline(answer))
        with st.container(key="why_sentence"):
            st.text(answer.sentence or "(the engine gave no sentence)")
        for quirk in answer.quirks:
            st.text(f"Volcano quirk: {quirk}")


def show_figures(answer: Answer, key: str) -> None:
    """The numbers behind the sentence, two columns of plain text (name, value in the user's units). A queue's
    come as one line per quantity (its `facts`: "deserved" → "cpu 2, memory 4Gi"), the rest one per figure."""
    rows = list(answer.facts) if answer.facts else [(f.name, f.shown) for f in answer.figures]
    if not rows:
        return
    st.markdown("**The numbers**")
    with st.container(key=key, width=760 if answer.facts else 560, gap=None):
        for name, shown in rows:
            left, right = st.columns([1, 3] if answer.facts else [3, 2])
            left.text(name)
            right.text(shown)


def _grouped(checks: list[Check]) -> list[tuple[Check, str]]:
    """Consecutive checks that were not reached for the same reason, shown once: (first, "allocate, backfill")."""
    out: list[tuple[Check, list[str]]] = []
    for c in checks:
        last = out[-1][0] if out else None
        if last is not None and c.outcome == last.outcome == "not reached" and (c.name, c.text, c.cycle) == \
                (last.name, last.text, last.cycle):
            out[-1][1].append(c.action)
        else:
            out.append((c, [c.action]))
    return [(c, ", ".join(actions)) for c, actions in out]


def _check_line(i: int, check: Check, actions: str) -> str:
    where = f"cycle {check.cycle} · " if check.cycle else ""
    by = f" ({check.plugin})" if check.plugin and check.plugin not in check.name else ""
    return f"{i}. {where}{actions}: {check.name}{by}"


def show_checks(answer: Answer, key: str) -> None:
    """The chain of checks in order, each with its outcome; the stopper in a red-bordered box."""
    if not answer.checks:
        return
    stopper = answer.decided_by
    st.markdown("**The checks, in the order Volcano ran them**"
                + (" · the one marked *stopped here* decided" if stopper is not None else ""))
    for i, (check, actions) in enumerate(_grouped(answer.checks[:MAX_CHECKS]), start=1):
        is_stopper = check is stopper
        with st.container(border=is_stopper, key=f"{key}_{i}" + ("_stopper" if is_stopper else "")):
            badge, body = st.columns([1, 7], vertical_alignment="top")
            with badge:
                _badge(check.outcome, is_stopper)
            with body, st.container(gap="xsmall"):
                st.text(_check_line(i, check, actions))
                if check.text:
                    st.text(check.text)
                if check.figures:
                    st.text(" · ".join(f"{f.name} {f.shown}" for f in check.figures))
    if len(answer.checks) > MAX_CHECKS:
        st.caption(f"… and {len(answer.checks) - MAX_CHECKS} more checks (all of them in the plain text below).")


def _lines(title: str, lines: list[str]) -> None:
    if lines:
        st.markdown(f"**{title}**")
        for line in lines:
            st.text(line)


def show_queue_summary(answer: Answer) -> None:
    """A queue's child queues (each in one sentence) and the most common reasons among its jobs."""
    _lines(f"Child queues ({len(answer.children)})" if answer.children else "",
           [f"{c.subject.removeprefix('Queue/')}: {c.sentence}" for c in answer.children])
    _lines("Top reasons among its jobs", [f"{n} × [{rule}] e.g. {example}" for n, rule, example in answer.reasons])


def show_parts(answer: Answer, key: str, verbose: bool = False) -> None:
    """A job's pods or a queue's jobs: each part's outcome and sentence (and what stopped it). A queue's jobs only
    when `verbose` (the summary above says enough otherwise)."""
    if not answer.parts:
        return
    if answer.kind == "queue" and not verbose:
        st.caption(f"{len(answer.parts)} job(s) in this queue: turn on \"Every job of the queue\" to read each "
                   "one's answer, or ask about one of them as a job.")
        return
    st.markdown(f"**{'Its pods' if answer.kind == 'job' else 'Its jobs' if answer.kind == 'queue' else 'Parts'}"
                f"** ({len(answer.parts)})")
    for i, part in enumerate(answer.parts[:MAX_PARTS]):
        with st.container(border=True, key=f"{key}_{i}"):
            badge, body = st.columns([1, 7], vertical_alignment="top")
            with badge:
                st.badge(md_escape(part.outcome or "?"), color="gray")
            with body:
                st.text(f"{part.subject}: {part.sentence}")
                stopper = part.decided_by
                if stopper is not None:
                    st.text(f"stopped by {stopper.action}: {stopper.name}")
    if len(answer.parts) > MAX_PARTS:
        st.caption(f"… and {len(answer.parts) - MAX_PARTS} more (all of them in the plain text below).")


def show_answer(answer: Answer, key: str, verbose: bool = False) -> None:
    """The whole answer, in reading order. `key` prefixes every element's key (one answer per page)."""
    show_sentence(answer)
    # Right after the answer: where it ends up, whether waiting can succeed, what to change (then the evidence).
    _lines("After the last cycle", [answer.final] if getattr(answer, "final", "") else [])
    _lines("What happens next", [answer.next] if answer.next else [])
    _lines("What to change", [answer.todo] if getattr(answer, "todo", "") else [])
    show_figures(answer, f"{key}_figures")
    show_checks(answer, f"{key}_check")
    _lines("Cycle by cycle", [f"cycle {c}: {text}" for c, text in answer.per_cycle])
    show_queue_summary(answer)
    _lines("Session notes about it", list(answer.notes))
    show_parts(answer, f"{key}_part", verbose)
    with st.expander("The answer as plain text (what `python -m capacity explain` prints)"):
        st.code(render_text(answer, verbose), language=None, wrap_lines=True)


def show_session_notes(notes: list[str], cycle: int) -> None:
    """The session's own notes of a cycle (what plugins warned about), or a line saying there were none."""
    if notes:
        with st.container(border=True, key="session_notes"):
            st.markdown(f"**Session notes of cycle {cycle}**")
            for note in notes:
                st.text(note)
    else:
        st.caption(f"The session of cycle {cycle} wrote no notes.")
