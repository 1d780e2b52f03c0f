"""The workspace's simulated cycles as one `ExplainRun`, so the answer model (`capacity.analysis.answer`) reads the
records of the very cycles the Simulate page ran: a cycle runs untraced, and its records come from one traced
re-run of it, checked to decide the same (`ui.state.Step.records`), so the answer cannot drift from the cycle.

Plain Python (no Streamlit), so it is tested without a browser. The pages ask for an answer on every
rerun (any widget change), so answers are kept per (cycles, subject) for as long as those cycles exist.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from capacity.analysis.answer import Answer, ExplainRun, answer_job, answer_pod, answer_queue
from capacity.core.cluster import Cluster
from ui.state import Workspace

#: Plain session-state key of the kept answers.
MEMO_KEY = "decisions_answer_memo"
KINDS = ("pod", "job", "queue")
_MEMO_SIZE = 32


#: The top of the queue tree: answered even when the scenario does not declare it (capacity/analysis/answer_queue.py).
ROOT_QUEUE = "root"


def _has(cluster: Cluster, kind: str, name: str) -> bool:
    if kind == "queue" and name == ROOT_QUEUE:
        return True
    objects = {"pod": cluster.pods, "job": cluster.podgroups, "queue": cluster.queues}[kind]
    return name in objects


def workspace_run(ws: Workspace, cycle: int, kind: str, name: str) -> ExplainRun:
    """Cycles 1..`cycle` of the workspace as an ExplainRun.

    `before` is the cluster before the first of those cycles in which the subject already existed (an edit
    between cycles can add it later); records, queue figures and notes are every cycle's, numbered as run.
    """
    steps = ws.history[:cycle]
    start = len(steps) - 1
    while start > 0 and _has(steps[start - 1].before, kind, name):
        start -= 1
    before = steps[start].before if steps and _has(steps[start].before, kind, name) else steps[-1].before
    after = ws.cluster_after(cycle)
    # The last run is kept on the workspace (one, so memory stays bounded): its record index (~90,000 records a
    # cycle at openb scale, ~0.5 s to build) then serves every further answer about the same cycles, as long as
    # they are the very same objects.
    kept = getattr(ws, "answer_run", None)
    if kept is not None and kept[0] is (steps[-1] if steps else None) and kept[1] == (cycle, start) \
            and kept[2].before is before and kept[2].after is after:
        return kept[2]
    run = ExplainRun(before=before, after=after, records=[r for s in steps for r in s.records],
                     cycles=cycle, queues=[s.result.queues for s in steps],
                     notes=[list(s.result.notes) for s in steps], results=[s.result for s in steps])
    ws.answer_run = (steps[-1] if steps else None, (cycle, start), run)
    return run


def answer_for(ws: Workspace, cycle: int, kind: str, name: str, verbose: bool = False,
               memo: MutableMapping[str, Any] | None = None) -> Answer:
    """The answer model's Answer about pod `ns/name`, job (PodGroup) `ns/name` or queue `name` after `cycle`.

    Raises the engine's InputError for an unknown subject. With `memo` (the page passes session state) an
    answer is kept while the cycles it was read from are the workspace's (a rewind or an edit drops them).
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    steps = tuple(ws.history[:cycle])
    after = ws.cluster_after(cycle)
    key = (kind, name, cycle, verbose)
    kept = memo.setdefault(MEMO_KEY, {}) if memo is not None else {}
    hit = kept.get(key)
    if hit is not None and hit[1] is after and len(hit[0]) == len(steps) and all(map(_same, hit[0], steps)):
        return hit[2]
    run = workspace_run(ws, cycle, kind, name)
    if kind == "pod":
        answer = answer_pod(run, name)
    elif kind == "job":
        answer = answer_job(run, name)
    else:
        answer = answer_queue(run, name, verbose)
    if len(kept) >= _MEMO_SIZE:
        kept.pop(next(iter(kept)))
    kept[key] = (steps, after, answer)
    return answer


def _same(a: Any, b: Any) -> bool:
    return a is b


def cycle_notes(ws: Workspace, cycle: int) -> list[str]:
    """The session's notes of one cycle (plugins' warnings about it), as the engine wrote them."""
    step = ws.step_at(cycle)
    return list(step.result.notes) if step is not None else []
