"""One cycle as a history keeps it (`Step`), its decision records built when first read, and the queue numbers a
new session opens with.

A cycle runs untraced (at S1 a traced cycle costs 2-4x an untraced one). Its decision records are built the first
time something reads `Step.records`: the cycle runs again, traced, on a copy of the cluster it started from with
the options it ran with (`replay_records`). A trace never changes a decision (tests/unit/test_engines_agree.py),
and the re-run is checked to have decided the same; if it did not, `DecisionsDiffer` says so once and is kept.

Every `run_cycle` of a history goes through this module (`run_step`, `replay_records`), so one place decides how
a history's cycle runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from capacity.core.cluster import Cluster
from capacity.core.trace import Record, Trace
from capacity.framework.session import CycleResult, SessionOptions
from capacity.scheduler import gc_paused, open_session, run_cycle

#: Per queue, the queue plugin's `summary()` numbers (deserved, allocated, capability, share, ...).
QueueNumbers = dict[str, dict[str, Any]]


class DecisionsDiffer(Exception):
    """The traced re-run of a cycle decided otherwise than the cycle did: its records would explain other
    decisions than the ones shown, so none are shown. The engine guarantees this never happens (a trace never
    changes a decision: tests/unit/test_engines_agree.py); if it does, it is a bug."""

    def __init__(self, cycle: int, what: str) -> None:
        super().__init__(f"cycle {cycle}: {what}")
        self.cycle = cycle
        self.message = (f"re-reading this cycle with its decision records gave other {what} than the cycle "
                        "itself; its records are not shown. This is a bug in Capacity Lab.")


@dataclass(eq=False)
class Step:
    """One simulated cycle: the cluster as it was before it, what the engine decided, and why.

    A step given its records (a simulator's cycle, which cannot be re-run alone) keeps them; otherwise they are
    built the first time `records` is read (see the module docstring).
    """

    cycle: int
    before: Cluster
    result: CycleResult
    #: the decision records once built (None: not yet; `records` builds them)
    traced: list[Record] | None = field(default=None, repr=False)
    #: the options the cycle ran with, for the traced re-run
    options: SessionOptions | None = field(default=None, repr=False)
    #: a reader's index of `records` (the dashboard's Decisions table), built when first asked for
    index: Any = field(default=None, repr=False, compare=False)
    #: why the re-run's records are refused (DecisionsDiffer), kept so it is not run again
    refused: DecisionsDiffer | None = field(default=None, repr=False, compare=False)

    @property
    def has_records(self) -> bool:
        """True when reading `records` costs nothing (built already, or refused)."""
        return self.traced is not None or self.refused is not None

    @property
    def records(self) -> list[Record]:
        """The cycle's decision records; raises DecisionsDiffer if the traced re-run decided otherwise."""
        if self.refused is not None:
            raise self.refused
        if self.traced is None:
            try:
                self.traced = replay_records(self)
            except DecisionsDiffer as err:
                self.refused = err
                raise
        return self.traced


def run_step(cluster: Cluster, before: Cluster, cycle: int, options: SessionOptions) -> Step:
    """Run cycle number `cycle` untraced on `cluster` (changed in place, written back as Volcano's cache would
    be); `before` is the caller's copy of the cluster as the cycle finds it (the caller's state to go back to if
    the cycle raises)."""
    trace = Trace(enabled=False)  # the records are built when first read (Step.records)
    trace.cycle = cycle
    result = run_cycle(cluster, trace, options)
    return Step(cycle, before, result, options=options)


def replay_records(step: Step) -> list[Record]:
    """Run `step`'s cycle again, traced, from a copy of the cluster before it, with the options it ran with;
    the records, once its binds, evictions, pipelined jobs and PodGroup phases are checked to be the cycle's."""
    trace = Trace(enabled=True)
    trace.cycle = step.cycle
    cluster = step.before.copy_state()  # (a cycle without write-back changes no pod; copied all the same)
    got = run_cycle(cluster, trace, step.options, write_back=False)
    del cluster
    want = step.result
    for what, a, b in (("binds", got.binds, want.binds), ("evictions", list(got.evicted), list(want.evicted)),
                       ("pipelined jobs", got.pipelined, want.pipelined),
                       ("PodGroup phases", got.podgroup_phases, want.podgroup_phases)):
        if a != b:
            raise DecisionsDiffer(step.cycle, what)
    return trace.records


def queue_numbers(cluster: Cluster, options: SessionOptions | None) -> QueueNumbers:
    """Each queue's numbers as a new session opens on `cluster`, before the next cycle decides anything.

    These are the same `summary()` values a cycle reports in `CycleResult.queues`: the first queue plugin in tier
    order (capacity or proportion) reports a queue. Empty when the configuration has no such plugin.
    """
    with gc_paused():
        ssn = open_session(cluster, Trace(enabled=False), options)
    numbers: QueueNumbers = {}
    for plugin in ssn.plugins.values():  # opened in tier order
        attrs = getattr(plugin, "attrs", None)
        if not isinstance(attrs, dict):
            continue
        for name, attr in sorted(attrs.items()):
            if hasattr(attr, "summary"):
                numbers.setdefault(name, attr.summary())
    # The numbers are plain dicts: the session is done with. Left whole, it would be cyclic garbage (plugins and
    # their closures point back at it: some 100k objects at S1, per state asked for) that only a full collection
    # frees, on whichever page reruns next.
    ssn.release()
    return numbers
