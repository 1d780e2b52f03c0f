"""Compare: the same workload under two configurations, side by side.

A configuration is a scheduler conf (the scenario's own, or a replacement `volcano-scheduler.conf`) plus
the engine's compatibility switches (`SessionOptions`). `compare` runs each on its own copy of the
cluster for the same number of cycles and lines the outcomes up: which pods each bound (and where),
which it evicted, which jobs are left pipelined, every PodGroup's phase and enqueue verdict (with the
answer's sentence where the sides differ), and every queue's share — both as the last cycle closes
and as the next cycle would open (they differ for ancestors in hierarchical mode, spec trap 3).
Nothing is recomputed here: every value is the engine's, every sentence the answer model's
(`capacity.analysis.answer`), read from the run's own trace.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from capacity.analysis.answer import Answer, ExplainRun, answer_job
from capacity.authoring.lessons import queue_numbers
from capacity.core.cluster import Cluster
from capacity.core.errors import InputError, ResourceUnderflow
from capacity.core.trace import Trace
from capacity.framework.session import CycleResult, SessionOptions
from capacity.io.k8s import parse_conf_text
from capacity.scheduler import run_cycle

QueueNumbers = dict[str, dict[str, Any]]
#: Jobs whose two answers are read, at most (each reads the run's records): the first that differ, by uid.
MAX_JOB_ANSWERS = 20


@dataclass(frozen=True)
class Config:
    """One side of a comparison: a label, compatibility switches, and optionally a replacement conf."""

    label: str
    options: SessionOptions = field(default_factory=SessionOptions)
    conf_text: str | None = None


@dataclass
class Side:
    """What one configuration did over the cycles run."""

    config: Config
    cycles: list[CycleResult] = field(default_factory=list)
    binds: dict[str, str] = field(default_factory=dict)
    evicted: list[str] = field(default_factory=list)
    pipelined: dict[str, list[str]] = field(default_factory=dict)
    queues_end: QueueNumbers = field(default_factory=dict)
    queues_next: QueueNumbers = field(default_factory=dict)
    #: PodGroup phase after the last cycle run, per job uid
    phases: dict[str, str] = field(default_factory=dict)
    #: the last enqueue verdict per job uid: True admitted, False refused (absent: enqueue never asked)
    enqueued: dict[str, bool] = field(default_factory=dict)
    #: the traced run the answers are read from (None if the first cycle was refused)
    run: ExplainRun | None = None
    error: str = ""

    def verdict(self, uid: str) -> str:
        """The enqueue verdict in words: admitted, refused, or not asked (already admitted, or no enqueue)."""
        if uid not in self.enqueued:
            return "not asked"
        return "admitted" if self.enqueued[uid] else "refused"

    def answer(self, uid: str) -> Answer | None:
        """The answer model's account of the job on this side, or None when no cycle ran."""
        return answer_job(self.run, uid) if self.run is not None and uid in self.run.before.podgroups else None


@dataclass
class Comparison:
    a: Side
    b: Side
    cycles: int
    binds: list[dict[str, Any]]
    evictions: list[dict[str, Any]]
    pipelined: list[dict[str, Any]]
    shares: list[dict[str, Any]]
    jobs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def differences(self) -> int:
        """How many rows differ between the two sides (binds, evictions, pipelined jobs, jobs, shares)."""
        return sum(1 for rows in (self.binds, self.evictions, self.pipelined, self.jobs, self.shares)
                   for row in rows if not row["same"])

    @property
    def identical(self) -> bool:
        return self.differences == 0


def configured(cluster: Cluster, config: Config) -> Cluster:
    """A deep copy of `cluster` with the configuration's conf, if it replaces one."""
    copied = copy.deepcopy(cluster)
    if config.conf_text is not None and config.conf_text.strip():
        copied.conf = parse_conf_text(config.conf_text, f"{config.label}: volcano-scheduler.conf", strict=True)
    return copied


def run_side(cluster: Cluster, config: Config, cycles: int) -> Side:
    """Run `cycles` cycles of the configuration on its own copy; an engine refusal ends the run with `error`."""
    side = Side(config)
    work = configured(cluster, config)
    before = work.copy_state()
    trace = Trace(enabled=True)  # the answers read the records: enqueue verdicts and their sentences
    for i in range(cycles):
        trace.cycle = i + 1
        try:
            result = run_cycle(work, trace, config.options)
        except (InputError, ResourceUnderflow) as err:
            side.error = f"cycle {i + 1}: {err}"
            break
        side.cycles.append(result)
        side.binds.update(result.binds)
        side.evicted.extend(k for k in result.evicted if k not in side.evicted)
    if side.cycles:
        side.pipelined = dict(side.cycles[-1].pipelined)
        side.queues_end = side.cycles[-1].queues
        side.run = ExplainRun(before, work, trace.records, len(side.cycles), [c.queues for c in side.cycles],
                              [list(c.notes) for c in side.cycles], list(side.cycles))
    side.phases = {uid: pg.phase for uid, pg in work.podgroups.items()}
    for rec in trace.records:
        if rec.action == "enqueue" and rec.kind == "enqueue":
            side.enqueued[rec.subject] = bool(rec.verdict)
    if not side.error:
        side.queues_next = queue_numbers(work, config.options)
    return side


def _bind_rows(a: Side, b: Side) -> list[dict[str, Any]]:
    return [{"pod": k, "a": a.binds.get(k, ""), "b": b.binds.get(k, ""), "same": a.binds.get(k) == b.binds.get(k)}
            for k in sorted(set(a.binds) | set(b.binds))]


def _eviction_rows(a: Side, b: Side) -> list[dict[str, Any]]:
    return [{"pod": k, "a": k in a.evicted, "b": k in b.evicted, "same": (k in a.evicted) == (k in b.evicted)}
            for k in sorted(set(a.evicted) | set(b.evicted))]


def _pipelined_rows(a: Side, b: Side) -> list[dict[str, Any]]:
    rows = []
    for job in sorted(set(a.pipelined) | set(b.pipelined)):
        na, nb = ", ".join(a.pipelined.get(job, [])), ", ".join(b.pipelined.get(job, []))
        rows.append({"job": job, "a": na, "b": nb, "same": na == nb})
    return rows


def _job_rows(a: Side, b: Side) -> list[dict[str, Any]]:
    """Per PodGroup: phase and enqueue verdict on each side; where they differ, each side's answer sentence."""
    rows = []
    answered = 0
    for uid in sorted(set(a.phases) | set(b.phases)):
        row: dict[str, Any] = {"job": uid, "a phase": a.phases.get(uid, ""), "b phase": b.phases.get(uid, ""),
                               "a enqueue": a.verdict(uid), "b enqueue": b.verdict(uid)}
        row["same"] = row["a phase"] == row["b phase"] and row["a enqueue"] == row["b enqueue"]
        read = not row["same"] and answered < MAX_JOB_ANSWERS
        answered += read
        for name, side in (("a", a), ("b", b)):
            answer = side.answer(uid) if read else None
            row[f"{name} why"] = answer.sentence if answer is not None else ""
        rows.append(row)
    return rows


def _share(numbers: QueueNumbers, queue: str) -> float | None:
    return float(numbers[queue]["share"]) if queue in numbers else None


def _share_rows(a: Side, b: Side) -> list[dict[str, Any]]:
    rows = []
    for q in sorted(set(a.queues_end) | set(b.queues_end) | set(a.queues_next) | set(b.queues_next)):
        row: dict[str, Any] = {"queue": q, "a end": _share(a.queues_end, q), "b end": _share(b.queues_end, q),
                               "a next": _share(a.queues_next, q), "b next": _share(b.queues_next, q)}
        row["same"] = row["a end"] == row["b end"] and row["a next"] == row["b next"]
        rows.append(row)
    return rows


def compare(cluster: Cluster, a: Config, b: Config, cycles: int = 1) -> Comparison:
    """Run the same workload under configurations `a` and `b` for `cycles` cycles each and line them up.

    `cluster` itself is not changed. Shares are reported as the last cycle closes ("end") and as the
    next cycle's session would open ("next").
    """
    if cycles < 1:
        raise InputError("compare", "cycles", f"must be at least 1, got {cycles}")
    side_a, side_b = run_side(cluster, a, cycles), run_side(cluster, b, cycles)
    return Comparison(side_a, side_b, cycles, _bind_rows(side_a, side_b), _eviction_rows(side_a, side_b),
                      _pipelined_rows(side_a, side_b), _share_rows(side_a, side_b), _job_rows(side_a, side_b))
