"""One answer model for "why?": a pod's, a job's or a queue's fate, said in plain words with its numbers.

The CLI (`explain`, text and JSON) and the dashboard render this one model. Every sentence comes from
the trace records the deciding code wrote (`Trace.because/vote/event`); nothing is re-decided here.
The types live in `capacity.analysis.answer_model` (the parts import them from there, so nothing imports back
into this module); this module is the entry point: a run, then a pod's, a job's or a queue's answer.
"""

from __future__ import annotations

from capacity.analysis.answer_build import build_pod
from capacity.analysis.answer_job import build_job
from capacity.analysis.answer_model import STOPPED_OUTCOMES, Answer, Check, ExplainRun, Figure, explain_run
from capacity.analysis.answer_queue import build_queue
from capacity.analysis.answer_render import render

__all__ = ["STOPPED_OUTCOMES", "Answer", "Check", "ExplainRun", "Figure", "answer_job", "answer_pod",
           "answer_queue", "explain_run", "render_text"]


def answer_pod(run: ExplainRun, key: str) -> Answer:
    return build_pod(run, key)


def answer_job(run: ExplainRun, uid: str) -> Answer:
    """A PodGroup's answer: works with or without pods (enqueue's verdict when it has none)."""
    return build_job(run, uid)


def answer_queue(run: ExplainRun, name: str, verbose: bool = False) -> Answer:
    """A queue's answer: its figures, its jobs counted by outcome, the top reasons (children if not a leaf)."""
    return build_queue(run, name, verbose)


def render_text(a: Answer, verbose: bool = False) -> str:
    return render(a, verbose)
