"""The types of an answer (capacity.analysis.answer) and the traced run it is read from.

The CLI (`explain`, text and JSON) and the dashboard render this one model. Every sentence comes from
the trace records the deciding code wrote (`Trace.because/vote/event`); nothing is re-decided here.
An answer gives the chain of checks in the order Volcano ran them and marks the first that stopped the
object (`Check.outcome == "stopped"`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from capacity.core.cluster import Cluster
from capacity.core.trace import Record


@dataclass
class Figure:
    """One number behind a sentence."""

    name: str  # "queue1 realCapability memory"
    shown: str  # as printed, in the user's units: "4Gi"
    value: float | None = None  # machine value (bytes, millicores, counts) for tests and programs

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "shown": self.shown, "value": self.value}


@dataclass
class Check:
    """One step in the order Volcano ran it."""

    action: str  # enqueue | allocate | backfill | reclaim | preempt | session
    name: str  # plain words, e.g. "capacity: job fits queue1's realCapability"
    outcome: str  # "passed" | "stopped" | "not reached" | "info"
    text: str  # one plain sentence with its numbers
    plugin: str = ""
    figures: list[Figure] = field(default_factory=list)
    cycle: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.action, "name": self.name, "outcome": self.outcome, "text": self.text,
                "plugin": self.plugin, "cycle": self.cycle, "figures": [f.as_dict() for f in self.figures]}


@dataclass
class Answer:
    """The answer to "why?" for one pod, job or queue."""

    subject: str  # "Pod/ns/p" | "PodGroup/ns/j" | "Queue/q"
    kind: str  # "pod" | "job" | "queue"
    outcome: str  # bound | pipelined | pending | evicted | running | admitted | not admitted | ...
    sentence: str  # ONE plain sentence, numbers included
    rule: str  # plugin.rule id, for programs and tests
    cycle: int = 0
    figures: list[Figure] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)  # the chain; the stopper is the first "stopped"
    next: str = ""  # what happens next: for a waiting object, whether waiting alone can succeed
    todo: str = ""  # what to change to get it placed (or admitted) sooner, or at all
    per_cycle: list[tuple[int, str]] = field(default_factory=list)  # one line per cycle, when more than one
    notes: list[str] = field(default_factory=list)  # session notes that concern it
    parts: list[Answer] = field(default_factory=list)  # a job's pods, a queue's jobs
    quirks: list[str] = field(default_factory=list)  # Volcano behaviour a user would not expect
    final: str = ""  # the state after the last cycle, when more than one ran
    facts: list[tuple[str, str]] = field(default_factory=list)  # a queue's figure lines: ("deserved", "cpu 2, ...")
    reasons: list[tuple[int, str, str]] = field(default_factory=list)  # (count, rule, example) most common first
    children: list[Answer] = field(default_factory=list)  # a parent queue's child queues (summaries)

    @property
    def stopper(self) -> Check | None:
        """The first check that stopped the object, if any."""
        return next((c for c in self.checks if c.outcome == "stopped"), None)

    @property
    def decided_by(self) -> Check | None:
        """The check that left the object where it is: the first stopper, but only for an object that was
        stopped (pending, not admitted, not scheduled). A bound or running pod may show a stopped reclaim
        attempt in its chain, which did not decide its fate."""
        return self.stopper if self.outcome in STOPPED_OUTCOMES else None

    def as_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "kind": self.kind, "outcome": self.outcome, "sentence": self.sentence,
                "rule": self.rule, "cycle": self.cycle, "figures": [f.as_dict() for f in self.figures],
                "checks": [c.as_dict() for c in self.checks], "next": self.next, "todo": self.todo,
                "perCycle": [{"cycle": c, "text": t} for c, t in self.per_cycle], "notes": list(self.notes),
                "quirks": list(self.quirks), "final": self.final,
                "facts": [{"name": k, "text": t} for k, t in self.facts],
                "reasons": [{"count": n, "rule": r, "example": e} for n, r, e in self.reasons],
                "children": [c.as_dict() for c in self.children], "parts": [p.as_dict() for p in self.parts]}


#: Outcomes where the first stopped check is what decided the object's fate.
STOPPED_OUTCOMES = ("pending", "not admitted", "not-scheduled")


@dataclass
class ExplainRun:
    """One traced run: the cluster before and after, the records, per-cycle queue figures and notes."""

    before: Cluster
    after: Cluster
    records: list[Record]
    cycles: int
    queues: list[dict[str, dict[str, Any]]] = field(default_factory=list)  # per cycle: CycleResult.queues
    notes: list[list[str]] = field(default_factory=list)  # per cycle: the session's notes
    results: list[Any] = field(default_factory=list)  # per cycle: CycleResult

    def __post_init__(self) -> None:
        self._index: dict[int, _CycleIndex] | None = None

    def _cycle(self, cycle: int) -> _CycleIndex:
        if self._index is None:
            self._index = {}
            for r in self.records:
                got = self._index.get(r.cycle)
                if got is None:
                    got = self._index[r.cycle] = _CycleIndex(self.before)
                got.add(r)
        return self._index.get(cycle) or _CycleIndex(self.before)

    def cycle_records(self, cycle: int) -> list[Record]:
        """The records of one cycle, in the order they were written."""
        return self._cycle(cycle).records

    def about(self, cycle: int, *subjects: str) -> list[Record]:
        """The cycle's records about any of `subjects` (a pod, its job, its queue), in order."""
        return self._cycle(cycle).about(subjects)

    def of_job_pods(self, cycle: int, uid: str) -> list[Record]:
        """The cycle's records whose subject is a pod of job `uid`, in order."""
        return self._cycle(cycle).about((), uid)

    def mentioning(self, cycle: int, key: str) -> list[Record]:
        """The cycle's victim votes and results that name pod `key` (as a victim or in a reason)."""
        return self._cycle(cycle).about((), mention=key)

    def position(self, rec: Record) -> int:
        return self._cycle(rec.cycle).pos[id(rec)]

    def all_notes(self) -> list[str]:
        """Every session note once, in the order first written."""
        seen: list[str] = []
        for cycle in self.notes:
            seen.extend(n for n in cycle if n not in seen)
        return seen


class _CycleIndex:
    """One cycle's records by subject, by the job of a pod subject, and by the pods victim records name:
    an answer reads only its own records (a queue's answer asks for hundreds of pods)."""

    def __init__(self, before: Cluster) -> None:
        self.pods = before.pods
        self.records: list[Record] = []
        self.pos: dict[int, int] = {}
        self.by_subject: dict[str, list[int]] = {}
        self.by_job: dict[str, list[int]] = {}
        self.by_mention: dict[str, list[int]] = {}

    def add(self, r: Record) -> None:
        i = len(self.records)
        self.records.append(r)
        self.pos[id(r)] = i
        self.by_subject.setdefault(r.subject, []).append(i)
        pod = self.pods.get(r.subject)
        if pod is not None and pod.group:
            self.by_job.setdefault(f"{pod.namespace}/{pod.group}", []).append(i)
        if r.kind.endswith(("Vote", "Result")):
            named = set(r.verdict) if isinstance(r.verdict, list) else set()
            named.update(str(x.values["task"]) for x in r.reasons if x.values.get("task"))
            for key in named:
                self.by_mention.setdefault(key, []).append(i)

    def about(self, subjects: tuple[str, ...] | list[str], job: str = "", mention: str = "") -> list[Record]:
        idx: set[int] = set()
        for s in dict.fromkeys(subjects):
            idx.update(self.by_subject.get(s, ()))
        if job:
            idx.update(self.by_job.get(job, ()))
        if mention:
            idx.update(self.by_mention.get(mention, ()))
        return [self.records[i] for i in sorted(idx)]


def explain_run(cluster: Cluster, cycles: int = 1, options: Any = None) -> ExplainRun:
    """Run `cycles` traced cycles on a copy of `cluster` (the caller's cluster is left as it was)."""
    from capacity.core.trace import Trace
    from capacity.scheduler import simulate
    before = copy.deepcopy(cluster)
    after = copy.deepcopy(cluster)
    trace = Trace(enabled=True)
    result = simulate(after, cycles, trace, options)
    return ExplainRun(before, after, trace.records, cycles, [c.queues for c in result.cycles],
                      [list(getattr(c, "notes", []) or []) for c in result.cycles], list(result.cycles))
