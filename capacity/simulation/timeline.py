"""A timeline of simulated cycles and the edits between them: the cycles run, rewinds, undo, branches, "run
until" conditions, and the queue numbers of any moment of it.

The dashboard keeps cycles (what the engine decided) and edits (what the user changed between cycles) in
one `Timeline`, so that a rewind can say which edits it undoes, an undo can bring them back, and a branch
(`Timelines`) can try an edit from a past cycle while the original timeline is kept. A plain timeline runs
`run_cycle` and keeps a copy of the cluster before each cycle (`capacity.simulation.steps.Step`); a lifecycle
timeline steps a `Simulator` (pods run, evictions trigger the jobs' PodEvicted policies) and rewinds through its
history. Whether a "run until" condition is met is read from the cycle's own `CycleResult` and decision records,
never re-computed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from capacity.core.cluster import Cluster
from capacity.core.errors import InputError, ResourceUnderflow
from capacity.core.trace import Trace
from capacity.framework.session import CycleResult, SessionOptions
from capacity.simulation.sim import SimOptions, Simulator
from capacity.simulation.steps import DecisionsDiffer, QueueNumbers, Step, queue_numbers, run_step

#: "run until" conditions: kind -> what the user picks (a target is a queue or a job where one is needed).
UNTIL_KINDS: dict[str, str] = {
    "queue-reclaim": "queue reclaims or is reclaimed from",
    "job": "job binds or is evicted",
    "eviction": "any eviction",
    "quiet": "nothing changes (no bind, eviction or phase change)",
}
#: The kinds that need a target, and what the target is.
UNTIL_TARGET = {"queue-reclaim": "queue", "job": "job"}
#: At most this many cycles per "run until", whatever the user asks.
MAX_UNTIL_CYCLES = 500


@dataclass(frozen=True)
class EditEntry:
    """One accepted edit: after how many cycles it was made (it applies from the next cycle on) and what it did."""

    at_cycle: int
    label: str


def dropped_by_rewind(edits: Iterable[EditEntry], cycle: int) -> list[EditEntry]:
    """The edits a rewind to "after `cycle`" undoes: those made after the next cycle started.

    The state kept by such a rewind is the cluster as cycle `cycle + 1` found it, which already holds the
    edits made right after `cycle`; later edits are gone with the later cycles.
    """
    return [e for e in edits if e.at_cycle > cycle]


@dataclass(frozen=True)
class Until:
    """A "run until" condition: `kind` one of UNTIL_KINDS, `target` a queue name or a job (ns/name)."""

    kind: str
    target: str = ""

    def describe(self) -> str:
        if self.kind == "queue-reclaim":
            return f"until queue {self.target} reclaims or is reclaimed from"
        if self.kind == "job":
            return f"until job {self.target} binds or is evicted"
        return f"until {UNTIL_KINDS.get(self.kind, self.kind)}"


def check_until(until: Until) -> None:
    """Refuse a condition that cannot be checked (unknown kind, missing target) with a clear message."""
    if until.kind not in UNTIL_KINDS:
        raise InputError("run until", "condition", f"unknown condition {until.kind!r}; one of "
                         f"{', '.join(UNTIL_KINDS)}")
    need = UNTIL_TARGET.get(until.kind)
    if need and not until.target:
        raise InputError("run until", need, f"choose a {need} for {UNTIL_KINDS[until.kind]!r}")


def _job_of(cluster: Cluster, pod_key: str) -> str:
    pod = cluster.pods.get(pod_key)
    return f"{pod.namespace}/{pod.group}" if pod is not None and pod.group else ""


def _queue_of(cluster: Cluster, pod_key: str) -> str:
    pg = cluster.podgroups.get(_job_of(cluster, pod_key))
    return pg.queue if pg is not None else ""


def _chain(cluster: Cluster, queue: str) -> list[str]:
    """`queue` and its ancestors (so a parent queue "reclaims" when one of its leaves does)."""
    out: list[str] = []
    cur = queue
    while cur and cur not in out:
        out.append(cur)
        q = cluster.queues.get(cur)
        cur = q.parent if q is not None else ""
    return out


def reclaims(before: Cluster, result: CycleResult, records: Sequence[Any]) -> list[tuple[str, str, str, str]]:
    """(victim pod, victim's queue, reclaiming pod, reclaiming queue) for every committed eviction the
    reclaim action made in this cycle, from its queueChange records (the action's own account)."""
    evicted = set(result.evicted)
    out = []
    for r in records:
        if r.kind != "queueChange" or r.action != "reclaim" or r.subject not in evicted:
            continue
        preemptor = str((r.detail or {}).get("preemptor", ""))
        if not preemptor:
            continue
        out.append((r.subject, _queue_of(before, r.subject), preemptor, _queue_of(before, preemptor)))
        evicted.discard(r.subject)  # a victim tried on several nodes is filed once per try; count it once
    return out


def phase_changes(before: Cluster, result: CycleResult) -> dict[str, tuple[str, str]]:
    return {uid: (before.podgroups[uid].phase if uid in before.podgroups else "", phase)
            for uid, phase in result.podgroup_phases.items()
            if uid not in before.podgroups or before.podgroups[uid].phase != phase}


def until_met(until: Until, before: Cluster, result: CycleResult, records: Sequence[Any]) -> str | None:
    """Why this cycle meets `until` (one sentence naming pods and queues), or None if it does not."""
    if until.kind == "eviction":
        if result.evicted:
            return f"{len(result.evicted)} pod(s) evicted: {', '.join(result.evicted[:3])}" + \
                (", ..." if len(result.evicted) > 3 else "")
        return None
    if until.kind == "quiet":
        # A pipelined job is not a change: nothing of it is written back, and a reclaimer waiting for its
        # victims to go is pipelined again every cycle.
        if not (result.binds or result.evicted or phase_changes(before, result)):
            waiting = f" ({len(result.pipelined)} job(s) pipelined, waiting)" if result.pipelined else ""
            return f"nothing changed: no bind, eviction or PodGroup phase change{waiting}"
        return None
    if until.kind == "job":
        bound = [k for k in sorted(result.binds) if _job_of(before, k) == until.target]
        gone = [k for k in result.evicted if _job_of(before, k) == until.target]
        parts = ([f"bound {', '.join(bound)}"] if bound else []) + ([f"evicted {', '.join(gone)}"] if gone else [])
        return f"job {until.target}: " + "; ".join(parts) if parts else None
    if until.kind == "queue-reclaim":
        for victim, vq, preemptor, pq in reclaims(before, result, records):
            if until.target in _chain(before, pq):
                return f"queue {until.target} reclaims: {preemptor} (queue {pq}) evicts {victim} (queue {vq})"
            if until.target in _chain(before, vq):
                return f"queue {until.target} is reclaimed from: {victim} (queue {vq}) is evicted for " \
                       f"{preemptor} (queue {pq})"
        return None
    return None


# ---- the timeline ------------------------------------------------------------------------------------------

#: How many undo steps a timeline keeps.
UNDO_DEPTH = 30


@dataclass
class Snapshot:
    """What an undo brings back: the timeline as it was before an edit or a rewind."""

    label: str
    cluster: Cluster
    history: list[Step]
    edits: list[EditEntry]
    #: the form whose edit this undoes ("" for a rewind)
    form: str = ""


class CycleRefused(Exception):
    """The engine refused a cycle (bad input, a resource underflow) or failed on it (a bug); the timeline is as
    it was before that cycle. `cause` is the engine's error; `done` the cycles the same run completed before it."""

    def __init__(self, cycle: int, cause: Exception) -> None:
        super().__init__(f"cycle {cycle}: {cause}")
        self.cycle = cycle
        self.cause = cause
        self.done: list[Step] = []

    @property
    def input_error(self) -> bool:
        """True when the input is at fault (an InputError or a resource underflow), not the engine."""
        return isinstance(self.cause, InputError | ResourceUnderflow)


class Timeline:
    """One line of time: the cluster now, the cycles run to reach it (`history`), the edits made between them,
    and what an undo brings back. Cycle k is `history[k - 1]`; the cluster after cycle k < `cycle` is the
    cluster the next cycle found (`history[k].before`)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.history: list[Step] = []
        #: accepted edits, in order, each with the cycle it was made after
        self.edits: list[EditEntry] = []
        #: snapshots to go back to, the latest last
        self.undo_stack: list[Snapshot] = []
        #: a lifecycle timeline's simulator, and the cycle it started at (it counts its own cycles from 0)
        self.sim: Simulator | None = None
        self.sim_base = 0
        self._version = 0  # bumped by every change of the state (steps, edits, rewinds, undo)
        self._numbers: tuple[int, SessionOptions | None, QueueNumbers] | None = None

    @property
    def cycle(self) -> int:
        """How many cycles this timeline has run."""
        return len(self.history)

    def _changed(self) -> None:
        self._version += 1
        self._numbers = None

    # ---- cycles ---------------------------------------------------------------------------------------
    def step(self, options: SessionOptions, lifecycle: bool = False) -> Step | None:
        """Run the next cycle and keep it; None when a lifecycle simulation says nothing will ever change.

        Raises CycleRefused (the state before the cycle kept) when the engine refuses or fails."""
        before = self.cluster.copy_state()
        if lifecycle:
            return self._sim_step(before, options)
        try:
            step = run_step(self.cluster, before, self.cycle + 1, options)
        except Exception as err:  # noqa: BLE001 - whatever went wrong, the last good state stays
            self.cluster = before
            self._changed()
            raise CycleRefused(self.cycle + 1, err) from err
        self.history.append(step)
        self._changed()
        return step

    def _sim_step(self, before: Cluster, options: SessionOptions) -> Step | None:
        """One cycle through the simulator, the way a lesson's simulated setup runs it (capacity.authoring.lessons).

        Traced as it runs: the simulator changes the cluster around the cycle (completions, arrivals, the job
        controller) and keeps no copy of the state the cycle started from, so the cycle cannot be re-run alone
        later. Only small lesson scenarios run this way."""
        if self.sim is None or self.sim.cluster is not self.cluster:
            self.sim = Simulator(self.cluster, SimOptions(event_driven=False, session=options),
                                 trace=Trace(enabled=True))
            self.sim_base = self.cycle
        sim, trace = self.sim, self.sim.trace
        assert trace is not None
        start = len(trace.records)
        try:
            rec = sim.step()
        except (InputError, ResourceUnderflow) as err:
            self._changed()
            raise CycleRefused(self.cycle + 1, err) from err
        except Exception as err:  # noqa: BLE001 - whatever went wrong, the last good state stays
            self.cluster, self.sim = before, None
            self._changed()
            raise CycleRefused(self.cycle + 1, err) from err
        if rec is None:
            return None
        # The simulator keeps a cycle's queue numbers apart from its result; a step has them as a plain cycle does.
        step = Step(self.cycle + 1, before, replace(rec.result, queues=sim.queue_numbers), trace.records[start:])
        self.history.append(step)
        self._changed()
        return step

    def run(self, cycles: int, options: SessionOptions, lifecycle: bool = False) -> list[Step]:
        """Run up to `cycles` cycles (fewer when a simulation ends); CycleRefused names what the run did first."""
        done: list[Step] = []
        for _ in range(cycles):
            if self._step_into(done, options, lifecycle) is None:
                break
        return done

    def _step_into(self, done: list[Step], options: SessionOptions, lifecycle: bool) -> Step | None:
        """One cycle of a run, appended to `done`; None when the simulation has ended. A refused cycle's
        CycleRefused carries the cycles the run did before it."""
        try:
            step = self.step(options, lifecycle)
        except CycleRefused as err:
            err.done = done
            raise
        if step is not None:
            done.append(step)
        return step

    def run_until(self, until: Until, max_cycles: int, options: SessionOptions,
                  lifecycle: bool = False) -> tuple[list[Step], str | None]:
        """Run cycles until one meets `until` (then stop there) or `max_cycles` ran; (cycles run, why it stopped:
        the met condition's sentence, or None when it never was). CycleRefused as `run`."""
        check_until(until)
        done: list[Step] = []
        for _ in range(max(0, min(int(max_cycles), MAX_UNTIL_CYCLES))):
            step = self._step_into(done, options, lifecycle)
            if step is None:
                break
            # Only "queue reclaims" reads records, and only of a cycle that evicted: others trace nothing.
            try:
                records = step.records if until.kind == "queue-reclaim" and step.result.evicted else ()
            except DecisionsDiffer as err:
                raise InputError(f"cycle {err.cycle}", "decision records", err.message) from err
            why = until_met(until, step.before, step.result, records)
            if why is not None:
                return done, why
        return done, None

    def step_at(self, cycle: int) -> Step | None:
        return self.history[cycle - 1] if 1 <= cycle <= self.cycle else None

    def cluster_after(self, cycle: int) -> Cluster:
        """The cluster as it was after `cycle` (0: as loaded)."""
        if cycle < self.cycle:
            return self.history[cycle].before
        return self.cluster

    # ---- edits, rewinds, undo -------------------------------------------------------------------------
    def edit(self, label: str, cluster: Cluster, form: str = "") -> None:
        """An accepted edit made now: `cluster` replaces the current one (the cycles run so far stay; the edit
        applies from the next cycle on). `form` names what made it, for an undo offered next to it."""
        self.remember(f"edit: {label}", form)
        self.edits.append(EditEntry(self.cycle, label))
        self.cluster = cluster
        self.sim = None  # a simulator owns its cluster: the next step starts a fresh one on the edited cluster
        self._changed()

    def remember(self, label: str, form: str = "") -> None:
        """Keep the timeline as it is now, for `undo` (at most UNDO_DEPTH snapshots)."""
        self.undo_stack.append(Snapshot(label, self.cluster.copy_state(), list(self.history), list(self.edits),
                                        form))
        del self.undo_stack[:-UNDO_DEPTH]

    def edits_dropped_by_rewind(self, cycle: int) -> list[EditEntry]:
        """The edits a rewind to after `cycle` would undo (for the page to ask before rewinding)."""
        return dropped_by_rewind(self.edits, cycle)

    def rewind(self, cycle: int) -> bool:
        """Go back to the state right after `cycle` (0 = before the first cycle); later cycles are dropped, and
        so are the edits made after the next cycle (`undo` brings all of them back). False if out of range."""
        if not 0 <= cycle < self.cycle:
            return False
        self.remember("rewind to the start" if cycle == 0 else f"rewind to cycle {cycle}")
        dropped = dropped_by_rewind(self.edits, cycle)
        if self.sim is not None and cycle >= self.sim_base:
            self.sim.rewind(cycle - self.sim_base)  # back to the cycle with its jobs' controller state
            self.cluster = self.sim.cluster
            del self.history[cycle:]
        else:
            self.sim = None
            self.cluster = self.history[cycle].before.copy_state()
            self.history = self.history[:cycle]
        self.edits = [e for e in self.edits if e not in dropped]
        self._changed()
        return True

    def undo_label(self) -> str:
        """What "Undo" would do, in words (with the cycles it also drops), or "" when there is nothing to undo."""
        if not self.undo_stack:
            return ""
        snap = self.undo_stack[-1]
        later = [s.cycle for s in self.history[len(snap.history):]]
        if not later:
            return f"undo {snap.label}"
        span = f"{later[0]}-{later[-1]}" if len(later) > 1 else f"{later[0]}"
        return f"undo {snap.label} (also drops cycle{'s' if len(later) > 1 else ''} {span} run since)"

    def undo(self) -> str:
        """Go back to before the last edit or rewind (a rewind's dropped cycles and edits come back); what was
        undone, in words, or "" when there was nothing to undo."""
        if not self.undo_stack:
            return ""
        label = self.undo_label()
        snap = self.undo_stack.pop()
        self.cluster, self.history, self.edits = snap.cluster.copy_state(), list(snap.history), list(snap.edits)
        self.sim = None  # (a lesson's simulator starts afresh from the state undone to, at the next step)
        self._changed()
        return label

    def branch(self, cycle: int) -> Timeline:
        """A new timeline that starts after `cycle` of this one, with its cycles and edits up to there (this one
        is not changed)."""
        other = Timeline(self.cluster_after(cycle).copy_state())
        other.history = self.history[:cycle]
        other.edits = [e for e in self.edits if e.at_cycle <= cycle]
        return other

    # ---- numbers --------------------------------------------------------------------------------------
    def queue_numbers(self, options: SessionOptions | None) -> QueueNumbers:
        """The queue plugin's numbers for the current cluster as the next cycle would open (`steps.queue_numbers`).

        Kept for the state and options they were asked for (a page asks on every rerun); read-only, like the
        cycle's own numbers."""
        kept = self._numbers
        if kept is not None and kept[0] == self._version and kept[1] is options:
            return kept[2]
        numbers = queue_numbers(self.cluster, options)
        self._numbers = (self._version, options, numbers)
        return numbers

    def share_history(self) -> list[tuple[int, QueueNumbers]]:
        """(cycle, queue numbers at the end of that cycle) for every cycle run."""
        return [(s.cycle, s.result.queues) for s in self.history]


class Timelines:
    """The timeline shown (`current`, named `name`) and the others kept, by name."""

    def __init__(self, cluster: Cluster) -> None:
        self.name = "main"
        self.current = Timeline(cluster)
        self.kept: dict[str, Timeline] = {}

    def names(self) -> list[str]:
        """The shown timeline first, then the kept ones by name."""
        return [self.name, *sorted(self.kept)]

    def branch(self, cycle: int) -> str:
        """Keep the shown timeline and continue on a new one that starts after `cycle`; its name ("" when
        `cycle` is not one of the shown timeline's)."""
        if not 0 <= cycle <= self.current.cycle:
            return ""
        base = f"branch at cycle {cycle}"
        name, n = base, 2
        while name in self.kept or name == self.name:
            name, n = f"{base} ({n})", n + 1
        self.kept[self.name] = self.current
        self.current, self.name = self.current.branch(cycle), name
        return name

    def switch(self, name: str) -> bool:
        """Show another kept timeline; the shown one is kept as it is."""
        if name == self.name or name not in self.kept:
            return False
        other = self.kept.pop(name)
        self.kept[self.name] = self.current
        self.current, self.name = other, name
        return True
