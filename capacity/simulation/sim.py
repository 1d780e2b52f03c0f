"""Time over the engine: a virtual clock, pod lifecycles, the controllers' reactions, and history.

A `Simulator` drives `run_cycle` / `apply_cycle` (the one place a cycle happens) and plays the parts of
Kubernetes that Volcano's scheduler leaves to others (spec actions-framework §3.3, §11, §13.5):

- kubelet: a bound pod is Running from the end of its cycle and Succeeds `capacity-lab/duration`
  seconds later (no annotation: it runs until the end);
- API server: an evicted pod is Releasing for one cycle, then gone (`apply_cycle`);
- Volcano's job controller, for pods owned by kind `Job`: on `PodEvicted` it applies the vcjob's
  `spec.policies`. `RestartJob` deletes every pod of the job, increments RetryCount and, once the
  terminating pods are gone (`total - terminating >= minAvailable`), recreates them all Pending; at
  `RetryCount >= maxRetry` (default 3) the job goes Failed instead. `AbortJob` (and `TerminateJob`,
  `CompleteJob`) deletes every pod that has not finished and creates none. Without a matching policy
  the default `SyncJob` recreates the missing pod once it is gone;
- ReplicaSet controller, for pods owned by `ReplicaSet`, `Deployment` or `StatefulSet`: a Pending
  replacement is created as soon as a pod is evicted (a terminating pod is no longer "active");
- any other pod is simply gone.
A job whose pods have all finished is removed with its PodGroup before the next cycle (a TTL of 0
after completion: Succeeded pods occupy nothing, and every cycle would otherwise carry them).

Where these inputs live, so that a YAML dump carries them and `capacity.io.export` keeps them:

- `capacity-lab/arrival` on a PodGroup: seconds after the start at which the PodGroup and its pods are
  created (absent or <= 0: present from the start);
- `capacity-lab/duration` on a Pod: seconds it runs once Running;
- `capacity-lab/policies` on a PodGroup: the vcjob's `spec.policies` as JSON, e.g.
  `[{"event": "PodEvicted", "action": "RestartJob"}]`, and `capacity-lab/max-retry` its `maxRetry`.
  Volcano copies every annotation of a vcjob to its PodGroup and the loader reads no
  `batch.volcano.sh` Job objects, so the PodGroup is the natural carrier. The controller state
  (Restarting, RetryCount, Aborted...) is the simulator's side table `Simulator.jobs`.

Time: cycle k runs at k * period seconds (Volcano's schedulePeriod, 1 s by default). Event-driven
stepping skips a cycle only when it cannot change anything: the last cycle changed nothing in the
cluster (no bind, eviction, removal, phase, nominated node or controller action), and no pod arrives
or completes before it. The engine is deterministic, so such a cycle would decide exactly what the
last one did; the skipped cycles are counted (`CycleRecord.skipped`, `Simulator.skipped`).

History: every executed cycle keeps only what changed (before and after copies of the pods,
PodGroups and controller state it touched), never a copy of the cluster; `rewind` walks those
changes backwards or forwards, `branch` copies the current state into an independent simulator, and
`diff` composes the changes between two cycles. The simulator owns its cluster: an edit made behind
its back (a queue's deserved, a new pod) is not in the history; make it on a fresh `Simulator`.
"""

from __future__ import annotations

import bisect
import copy
import functools
import heapq
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from capacity.accel.snapshot_cache import SnapshotCache
from capacity.core.cluster import Cluster, PodGroupObj, PodObj
from capacity.core.errors import InputError
from capacity.core.trace import Trace
from capacity.framework.session import CycleResult, SessionOptions
from capacity.scheduler import apply_cycle, run_cycle

ARRIVAL_KEY = "capacity-lab/arrival"
DURATION_KEY = "capacity-lab/duration"
POLICIES_KEY = "capacity-lab/policies"
MAX_RETRY_KEY = "capacity-lab/max-retry"
DEFAULT_MAX_RETRY = 3  # Volcano's job webhook default (mutate_job.go:44)
#: Virtual time 0 as a creationTimestamp; objects the simulator creates are stamped from here.
EPOCH = datetime(2024, 1, 1, tzinfo=UTC)

VCJOB_OWNER = "Job"
REPLICA_OWNERS = frozenset({"ReplicaSet", "Deployment", "StatefulSet"})
#: Job-controller events (batch.volcano.sh/v1alpha1); only PodEvicted happens in the simulator.
EVENTS = frozenset({"*", "PodEvicted", "PodFailed", "PodPending", "PodRunning", "Unknown", "TaskCompleted",
                    "TaskFailed", "OutOfSync", "CommandIssued", "JobUpdated"})
#: Actions that kill the job's pods, and the state the job is in while they terminate.
KILLING = {"RestartJob": "Restarting", "AbortJob": "Aborting", "TerminateJob": "Terminating",
           "CompleteJob": "Completing"}
#: Once nothing of the job is left running: the final state.
FINAL = {"Aborting": "Aborted", "Terminating": "Terminated", "Completing": "Completed", "Failing": "Failed"}
#: Actions after which the controller just recreates the missing pod (SyncJob is the default).
SYNCING = frozenset({"SyncJob", "RestartTask", "RestartPod"})
TERMINAL_PHASES = ("Succeeded", "Failed")
_EPS = 1e-9


def timestamp(seconds: float) -> str:
    """Virtual seconds as a creationTimestamp (whole seconds, RFC 3339, sorts in time order)."""
    return (EPOCH + timedelta(seconds=math.floor(seconds))).strftime("%Y-%m-%dT%H:%M:%SZ")


def pod_state(pod: PodObj) -> str:
    """What a user calls the pod's state: Pending, Bound, Running, Releasing, Succeeded or Failed."""
    if pod.phase in TERMINAL_PHASES:
        return pod.phase
    if pod.deleting:
        return "Releasing"
    if pod.node_name:
        return "Running" if pod.phase == "Running" else "Bound"
    return "Pending"


#: Arrivals and durations beyond this (about 300 years) are refused: cycle numbers and timestamps stay exact.
MAX_SECONDS = 1e10
#: maxRetry is an int32 the Job CRD keeps at 0 or more.
MAX_RETRY_LIMIT = 2**31 - 1


def _quoted(raw: str, limit: int = 40) -> str:
    """An annotation's value for a message: 400 digits shown as their first few and a count."""
    return repr(raw) if len(raw) <= limit else f"{raw[:limit]!r}... ({len(raw):,} characters)"


def _seconds(raw: str, obj: str, key: str) -> float:
    fld = f"metadata.annotations.{key}"
    try:
        value = float(raw)
    except ValueError:
        raise InputError(obj, fld, f"must be a number of seconds, got {_quoted(raw)}") from None
    if not 0 <= value <= MAX_SECONDS:  # (NaN fails too)
        raise InputError(obj, fld, f"must be a number of seconds from 0 to {MAX_SECONDS:g}, got {_quoted(raw)}")
    return value


@dataclass(frozen=True, slots=True)
class JobLife:
    """A Volcano Job's controller side: its policies, RetryCount and state (immutable; replaced on change).

    `state` is "" while the job runs normally; Restarting, Aborting, Terminating, Completing or
    Failing while its pods are being killed; Aborted, Terminated, Completed or Failed at the end.
    """

    policies: tuple[tuple[str, str], ...] = ()
    max_retry: int = DEFAULT_MAX_RETRY
    state: str = ""
    retries: int = 0

    def action_for(self, event: str) -> str:
        """applyPolicies: the first policy naming the event (or `*`), else SyncJob."""
        for ev, action in self.policies:
            if ev in (event, "*"):
                return action
        return "SyncJob"


def parse_life(pg: PodGroupObj) -> JobLife:
    """The vcjob's policies and maxRetry from the PodGroup's annotations, checked like Volcano's webhook."""
    raw = pg.annotations.get(POLICIES_KEY, "")
    retry = pg.annotations.get(MAX_RETRY_KEY)
    try:
        return _parse_life(raw, retry)
    except InputError as exc:
        raise InputError(f"PodGroup/{pg.uid}", exc.field, exc.message) from None


@functools.lru_cache(maxsize=256)
def _parse_life(raw: str, retry: str | None) -> JobLife:
    """Workloads repeat a few policies thousands of times: parse each text once."""
    policies: list[tuple[str, str]] = []
    if raw.strip():
        fld = f"metadata.annotations.{POLICIES_KEY}"
        try:
            items = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError("", fld, f"is not JSON: {exc.msg}") from None
        except RecursionError:
            raise InputError("", fld, "is JSON nested too deeply to read") from None
        if not isinstance(items, list):
            raise InputError("", fld, 'must be a JSON list like [{"event": "PodEvicted", "action": "RestartJob"}]')
        for i, item in enumerate(items):
            if not isinstance(item, dict) or "action" not in item:
                raise InputError("", f"{fld}[{i}]", "must be an object with an action")
            action = item["action"]
            if not isinstance(action, str) or (action not in KILLING and action not in SYNCING):
                raise InputError("", f"{fld}[{i}].action", f"unknown action {_quoted(str(action))} (one of "
                                 f"{', '.join(sorted([*KILLING, *SYNCING]))})")
            events = item.get("events") or ([item["event"]] if "event" in item else [])
            if not isinstance(events, list):
                raise InputError("", f"{fld}[{i}].events", "must be a list of event names")
            if not events:
                raise InputError("", f"{fld}[{i}]", "names no event (event or events)")
            for ev in events:
                if not isinstance(ev, str) or ev not in EVENTS:
                    raise InputError("", f"{fld}[{i}].event", f"unknown event {_quoted(str(ev))}")
                policies.append((ev, action))
    max_retry = DEFAULT_MAX_RETRY
    if retry is not None:
        try:
            max_retry = int(retry)
        except ValueError:
            raise InputError("", f"metadata.annotations.{MAX_RETRY_KEY}", "must be an integer") from None
        if not 0 <= max_retry <= MAX_RETRY_LIMIT:  # the Job CRD: an int32, minimum 0
            raise InputError("", f"metadata.annotations.{MAX_RETRY_KEY}",
                             f"must be an integer from 0 to {MAX_RETRY_LIMIT}, got {_quoted(retry)}")
    return JobLife(tuple(policies), max_retry)


@dataclass(frozen=True, slots=True)
class Arrival:
    """A PodGroup and its pods, created at `time` (the objects are templates, copied on arrival)."""

    time: float
    podgroup: PodGroupObj
    pods: tuple[PodObj, ...]


@dataclass
class SimOptions:
    period: float = 1.0                  # seconds between cycles (Volcano's schedulePeriod)
    event_driven: bool = True            # skip cycles in which nothing can change
    session: SessionOptions | None = None  # the engine's compatibility switches


@dataclass(slots=True)
class CycleRecord:
    """One executed cycle: what happened around it, what it decided, and the changes it made.

    `result.podgroup_phases` holds only the phases that changed, and `result.queues` is empty: the
    queue numbers are kept compactly in `queue_rows` (only the queues whose numbers changed).
    """

    cycle: int
    time: float
    skipped: int
    result: CycleResult
    arrived: list[str]
    completed: list[str]
    controller: list[str]
    changed: bool
    row: dict[str, Any]
    queue_rows: dict[str, tuple[Any, ...]]
    changes: dict[tuple[str, str], tuple[Any, Any]]
    before: tuple[int, int, int]
    after: tuple[int, int, int]


@dataclass
class CycleDiff:
    """What differs between the states after cycles `a` and `b` (values are (at a, at b))."""

    a: int
    b: int
    pods: dict[str, tuple[str, str]] = field(default_factory=dict)        # "Running on n1" / "absent"
    podgroups: dict[str, tuple[str, str]] = field(default_factory=dict)   # phase, or "absent"
    queues: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)

    @property
    def added(self) -> list[str]:
        return sorted(k for k, (x, _) in self.pods.items() if x == "absent")

    @property
    def removed(self) -> list[str]:
        return sorted(k for k, (_, y) in self.pods.items() if y == "absent")

    @property
    def moved(self) -> dict[str, tuple[str, str]]:
        """Pods present at both cycles whose state or node changed."""
        return {k: v for k, v in sorted(self.pods.items()) if "absent" not in v}

    def lines(self) -> list[str]:
        out = [f"cycle {self.a} -> {self.b}"]
        out += [f"  pod {k}: {x} -> {y}" for k, (x, y) in sorted(self.pods.items())]
        out += [f"  podgroup {k}: {x} -> {y}" for k, (x, y) in sorted(self.podgroups.items())]
        for q, fields in sorted(self.queues.items()):
            out += [f"  queue {q} {f}: {_fmt(x)} -> {_fmt(y)}" for f, (x, y) in fields.items()]
        return out


Progress = Callable[["Simulator", CycleRecord], None]
_MISSING = object()


class Simulator:
    """Multi-cycle simulation of a cluster; see the module docstring for the model.

    `step()` runs the next cycle that can change something; `run(n)` advances n cycles and
    `run_until(t)` to the last cycle at or before t seconds; `run_to_end()` until nothing can change.
    The cycles' decision records go to `trace`; without one the cycles run untraced.
    """

    def __init__(self, cluster: Cluster, options: SimOptions | None = None, trace: Trace | None = None) -> None:
        self.cluster = cluster
        self.options = options or SimOptions()
        if not self.options.period > 0:
            raise InputError("simulation", "period", f"must be > 0 seconds, got {self.options.period}")
        self.trace = trace
        self._cache = SnapshotCache()  # what one cycle's session hands to the next
        self.cycle = 0
        self.history: list[CycleRecord] = []
        self.jobs: dict[str, JobLife] = {}
        self._pos = 0
        self._horizon = 0
        self._ends: dict[str, float] = {}
        self._pod_seq: dict[str, int] = {}
        self._pg_seq: dict[str, int] = {}
        self._cursor = 0
        self._gen = 0
        self._seq = 0
        self._lives: dict[str, JobLife] = {}
        self._templates: dict[str, tuple[PodObj, ...]] = {}
        self._queue_of: dict[str, str] = {}
        self._arrivals = self._extract_arrivals()
        self._arrival_cycles = [self._first_cycle_at(a.time) for a in self._arrivals]
        members = self._group_members(cluster.pods.items())
        for uid, pg in cluster.podgroups.items():
            self._register(pg, [cluster.pods[k] for k in members.get(uid, ())])
            if uid in self._lives:
                self.jobs[uid] = self._lives[uid]
            self._pg_seq[uid] = self._next_seq()
        for a in self._arrivals:
            self._register(a.podgroup, a.pods)
        for key, pod in cluster.pods.items():
            self._pod_seq[key] = self._next_seq()
            if pod.phase == "Running" and not pod.deleting:
                duration = self._duration(pod)
                if duration is not None:
                    self._ends[key] = duration  # running since time 0
        self._initial = self._scalars()
        self._j: dict[tuple[str, str], Any] = {}
        self._snaps: dict[tuple[str, str], Any] = {}
        self._initial_rows: dict[str, tuple[Any, ...]] = {}
        self._reindex()
        self._initial_rows = {name: (None, None, None, *counts) for name, counts in self._rolled_up_counts().items()}
        self._last_rows = dict(self._initial_rows)
        self._last_numbers: dict[str, Any] = {}  # per queue: the summary dict its last row was read from
        self._idle = False

    # ---- public API ------------------------------------------------------------------------
    @property
    def time(self) -> float:
        return self.cycle * self.options.period

    @property
    def executed(self) -> int:
        """Cycles actually run up to the current one."""
        return self._pos

    @property
    def skipped(self) -> int:
        """Cycles skipped up to the current one, because nothing could change in them."""
        return self.cycle - self._pos

    @property
    def arrivals(self) -> tuple[Arrival, ...]:
        """Every job that arrives after the start, in arrival order (past and future)."""
        return tuple(self._arrivals)

    @property
    def arrivals_left(self) -> int:
        return len(self._arrivals) - self._cursor

    @property
    def arrivals_total(self) -> int:
        return len(self._arrivals)

    def step(self) -> CycleRecord | None:
        """Run the next cycle that can change something; None when nothing ever will."""
        k = self._next_cycle()
        return None if k is None else self._execute(k)

    def run(self, n: int, progress: Progress | None = None, max_cycles: int | None = None) -> list[CycleRecord]:
        """Advance `n` cycles, running only those in which something can change (at most `max_cycles`
        of them: then the clock stops at the last one run)."""
        return self._run_to(self.cycle + max(0, n), progress, max_cycles)

    def run_until(self, t: float, progress: Progress | None = None,
                  max_cycles: int | None = None) -> list[CycleRecord]:
        """Advance to the last cycle at or before `t` seconds (see `run` for `max_cycles`)."""
        return self._run_to(max(self.cycle, math.floor(t / self.options.period + _EPS)), progress, max_cycles)

    def run_to_end(self, progress: Progress | None = None, max_cycles: int | None = None) -> list[CycleRecord]:
        """Run until nothing can change any more (every arrival and completion is past, the last
        cycle changed nothing), or until `max_cycles` cycles have been executed."""
        out: list[CycleRecord] = []
        while not (self._idle and self._next_event_time() is None):
            if max_cycles is not None and len(out) >= max_cycles:
                break
            k = self._next_cycle()
            if k is None:
                break
            out.append(self._execute(k))
            if progress is not None:
                progress(self, out[-1])
        return out

    def rewind(self, cycle: int) -> None:
        """Put the state back (or forward) to what it was after `cycle`; stepping on discards the rest."""
        if not 0 <= cycle <= self._horizon:
            raise ValueError(f"cycle {cycle} is not in the history (0..{self._horizon})")
        self._move(self._position(cycle))
        self.cycle = cycle
        self._idle = self._pos > 0 and (not self.history[self._pos - 1].changed
                                        or self.history[self._pos - 1].cycle < cycle)

    def branch(self) -> Simulator:
        """An independent simulator starting from the current state, with the history up to here."""
        other = object.__new__(Simulator)
        c = self.cluster
        other.cluster = Cluster(nodes=list(c.nodes), queues=dict(c.queues),
                                podgroups={k: copy.copy(v) for k, v in c.podgroups.items()},
                                pods={k: copy.copy(v) for k, v in c.pods.items()},
                                priority_classes=dict(c.priority_classes),
                                global_default_priority=c.global_default_priority,
                                namespace_weights=dict(c.namespace_weights), conf=c.conf, warnings=list(c.warnings),
                                unit_styles=dict(c.unit_styles))
        other.options = self.options
        other._cache = SnapshotCache()
        other.trace = None
        if self.trace is not None:
            other.trace = Trace(enabled=self.trace.enabled)
            other.trace.records = [r for r in self.trace.records if r.cycle <= self.cycle]
        other.cycle = self.cycle
        other.history = self.history[:self._pos]
        other.jobs = dict(self.jobs)
        other._pos = self._pos
        other._horizon = self.cycle
        other._ends = dict(self._ends)
        other._pod_seq = dict(self._pod_seq)
        other._pg_seq = dict(self._pg_seq)
        other._cursor, other._gen, other._seq = self._cursor, self._gen, self._seq
        other._lives = self._lives
        other._templates = self._templates
        other._queue_of = self._queue_of
        other._arrivals = self._arrivals
        other._arrival_cycles = self._arrival_cycles
        other._initial = self._initial
        other._initial_rows = self._initial_rows
        other._j = {}
        other._snaps = {}
        other._reindex()
        other._idle = self._idle
        return other

    def diff(self, a: int, b: int) -> CycleDiff:
        """Pods, PodGroups and queue numbers that differ between the states after cycles a and b."""
        for c in (a, b):
            if not 0 <= c <= self._horizon:
                raise ValueError(f"cycle {c} is not in the history (0..{self._horizon})")
        pa, pb = self._position(a), self._position(b)
        lo, hi = min(pa, pb), max(pa, pb)
        first: dict[tuple[str, str], Any] = {}
        last: dict[tuple[str, str], Any] = {}
        for rec in self.history[lo:hi]:
            for tk, (before, after) in rec.changes.items():
                first.setdefault(tk, before)
                last[tk] = after
        at_a, at_b = (first, last) if pa <= pb else (last, first)
        out = CycleDiff(a, b)
        for tk in first:
            table, key = tk
            va, vb = at_a[tk], at_b[tk]
            if table == "pods":
                sa, sb = _describe_pod(va), _describe_pod(vb)
                if sa != sb:
                    out.pods[key] = (sa, sb)
            elif table == "podgroups":
                sa = "absent" if va is None else va[1].phase
                sb = "absent" if vb is None else vb[1].phase
                if sa != sb:
                    out.podgroups[key] = (sa, sb)
        qa, qb = self._queue_rows_at(pa), self._queue_rows_at(pb)
        for name in sorted(set(qa) | set(qb)):
            ra, rb = qa.get(name), qb.get(name)
            fields: dict[str, tuple[Any, Any]] = {}
            for i, fname in enumerate(_QUEUE_FIELDS):
                x = None if ra is None else ra[i]
                y = None if rb is None else rb[i]
                if x != y:
                    fields[fname] = (x, y)
            if fields:
                out.queues[name] = fields
        return out

    def record(self, cycle: int) -> CycleRecord | None:
        """The executed cycle numbered `cycle`, if it was executed (not skipped)."""
        i = bisect.bisect_right(self._cycles(), cycle) - 1
        if i >= 0 and self.history[i].cycle == cycle:
            return self.history[i]
        return None

    def metrics(self, level: str = "queue", queues: Iterable[str] | None = None, dense: bool = True) -> Any:
        """Per-cycle metrics as a pandas DataFrame, one row per executed cycle up to the current one.

        level "queue": one row per (cycle, queue) with allocated / deserved / share (from the queue
        plugin's numbers at the cycle's close; empty when the configuration has no capacity or
        proportion plugin), pending and running pods (rolled up to parent queues). With dense=False
        only the rows whose numbers changed (forward-fill per queue for the dense series).
        level "cycle": one row per cycle with arrivals, completions, binds, evictions, controller
        actions, pending / running / releasing pods and the utilisation of each resource.
        """
        import pandas as pd

        records = self.history[:self._pos]
        if level == "cycle":
            return pd.DataFrame([r.row for r in records], columns=list(records[0].row) if records else ["cycle"])
        if level != "queue":
            raise ValueError(f"level must be 'queue' or 'cycle', got {level!r}")
        wanted = None if queues is None else set(queues)
        rows: list[dict[str, Any]] = []
        for i, r in enumerate(records):
            # The first cycle carries every queue, so that forward-filling leaves no gaps.
            source = {**self._initial_rows, **r.queue_rows} if i == 0 else r.queue_rows
            for name in sorted(source):
                if wanted is None or name in wanted:
                    rows.append(_queue_row(r.cycle, r.time, name, source[name]))
        columns = ["cycle", "time", "queue"]
        frame = pd.DataFrame(rows)
        if frame.empty:
            return pd.DataFrame(columns=[*columns, "share", "pending", "running"])
        if dense:
            cycles = [r.cycle for r in records]
            names = sorted(frame["queue"].unique())
            index = pd.MultiIndex.from_product([cycles, names], names=["cycle", "queue"])
            frame = frame.set_index(["cycle", "queue"]).reindex(index).groupby(level="queue").ffill().reset_index()
            frame["time"] = [r.time for r in records for _ in names]
            frame = frame.astype({"pending": "int64", "running": "int64"})
        res = [c for c in frame.columns if c.startswith(("allocated_", "deserved_"))]
        res.sort(key=lambda c: not c.startswith("allocated_"))  # stable: allocated first, then deserved
        return frame[columns + res + ["share", "pending", "running"]]

    def summary(self) -> dict[str, Any]:
        """Totals of the run up to the current cycle, for the CLI and the dashboard."""
        records = self.history[:self._pos]
        states: dict[str, int] = {}
        for life in self.jobs.values():
            if life.state:
                states[life.state] = states.get(life.state, 0) + 1
        restarts = sum(life.retries for life in self.jobs.values())
        return {
            "cycle": self.cycle, "time": self.time, "executed": self._pos, "skipped": self.skipped,
            "arrivals": self._cursor, "arrivalsLeft": self.arrivals_left,
            "binds": sum(len(r.result.binds) for r in records),
            "evictions": sum(len(r.result.evicted) for r in records),
            "completed": sum(len(r.completed) for r in records),
            "restarts": restarts, "jobStates": dict(sorted(states.items())),
            "pending": self._count["Pending"], "running": self._count["Running"] + self._count["Bound"],
            "releasing": self._count["Releasing"],
        }

    # ---- stepping --------------------------------------------------------------------------
    def _run_to(self, target: int, progress: Progress | None, max_cycles: int | None) -> list[CycleRecord]:
        out: list[CycleRecord] = []
        while max_cycles is None or len(out) < max_cycles:
            k = self._next_cycle()
            if k is None or k > target:
                if target > self.cycle:  # the rest are cycles in which nothing can change
                    self._truncate()
                    self.cycle = self._horizon = target
                break
            out.append(self._execute(k))
            if progress is not None:
                progress(self, out[-1])
        return out

    def _next_cycle(self) -> int | None:
        nxt = self.cycle + 1
        if not self.options.event_driven or not self._idle:
            return nxt
        t = self._next_event_time()
        return None if t is None else max(nxt, self._first_cycle_at(t))

    def _first_cycle_at(self, t: float) -> int:
        """The first cycle that runs at or after `t` seconds (events at t happen before it)."""
        return max(0, math.ceil(t / self.options.period - _EPS))

    def _next_event_time(self) -> float | None:
        heap = self._heap
        while heap and self._ends.get(heap[0][1]) != heap[0][0]:
            heapq.heappop(heap)
        times = [heap[0][0]] if heap else []
        if self._cursor < len(self._arrivals):
            times.append(self._arrivals[self._cursor].time)
        return min(times) if times else None

    def _execute(self, k: int) -> CycleRecord:
        self._truncate()
        self._j = {}
        before = self._scalars()
        prev = self.history[-1].cycle if self.history else 0
        self.cycle = self._horizon = k
        now = self.time
        dirty: set[str] = set()
        completed = self._complete(k, dirty)
        arrived = self._arrive(k)
        controller = self._sync_all(dirty, now)
        trace = self.trace if self.trace is not None else Trace(enabled=False)  # nobody would read the records
        trace.cycle = k
        result = run_cycle(self.cluster, trace, self.options.session, write_back=False, cache=self._cache)
        phases, removed, decided = self._apply(result, now)
        reactions = self._react(result, removed, now)
        controller += reactions
        changes = self._commit()
        self._account(changes)
        queue_rows = self._queue_rows(result)
        kept = CycleResult(binds=result.binds, evicted=result.evicted, pipelined=result.pipelined,
                           podgroup_phases=phases, nominated=result.nominated, notes=result.notes)
        row = self._cycle_row(k, now, k - prev - 1, arrived, completed, result, controller)
        rec = CycleRecord(k, now, k - prev - 1, kept, arrived, completed, controller, decided or bool(reactions),
                          row, queue_rows, changes, before, self._scalars())
        self.history.append(rec)
        self._pos += 1
        self._idle = not rec.changed
        return rec

    def _truncate(self) -> None:
        """Stepping from a rewound cycle: the old future is discarded."""
        if self._pos < len(self.history):
            del self.history[self._pos:]
        if self._horizon > self.cycle:
            self._horizon = self.cycle
            if self.trace is not None:
                self.trace.records = [r for r in self.trace.records if r.cycle <= self.cycle]

    # ---- what happens between cycles -------------------------------------------------------
    def _complete(self, k: int, dirty: set[str]) -> list[str]:
        """The kubelet: Running pods whose duration is over are Succeeded."""
        done: list[str] = []
        heap = self._heap
        while heap and self._first_cycle_at(heap[0][0]) <= k:
            end, key = heapq.heappop(heap)
            if self._ends.get(key) != end:
                continue
            pod = self.cluster.pods.get(key)
            self._touch("ends", key)
            del self._ends[key]
            if pod is None or pod.phase != "Running" or pod.deleting:
                continue
            self._touch("pods", key)
            pod.phase = "Succeeded"
            done.append(key)
            if pod.group:
                dirty.add(f"{pod.namespace}/{pod.group}")
        return done

    def _arrive(self, k: int) -> list[str]:
        out: list[str] = []
        while self._cursor < len(self._arrivals) and self._arrival_cycles[self._cursor] <= k:
            a = self._arrivals[self._cursor]
            self._cursor += 1
            uid = a.podgroup.uid
            self._touch("podgroups", uid)
            self.cluster.podgroups[uid] = copy.copy(a.podgroup)
            self._pg_seq[uid] = self._next_seq()
            if uid in self._lives:
                self._touch("jobs", uid)
                self.jobs[uid] = self._lives[uid]
            for pod in a.pods:
                self._add_pod(copy.copy(pod))
            out.append(uid)
        return out

    def _apply(self, result: CycleResult, now: float) -> tuple[dict[str, str], dict[str, PodObj], bool]:
        """`apply_cycle`, journaled; returns the phase changes, the pods it removed, and whether the
        cycle changed the cluster at all."""
        c = self.cluster
        removed = {key: c.pods[key] for key in sorted(self._deleting, key=self._pod_seq.__getitem__)}
        for key in removed:
            self._touch("pods", key)
        for key in result.binds:
            self._touch("pods", key)
        for key in result.evicted:
            self._touch("pods", key)
        nominated = False
        for key, node in result.nominated.items():
            pod = c.pods.get(key)
            if pod is not None and pod.nominated_node != node:
                self._touch("pods", key)
                nominated = True
        phases: dict[str, str] = {}
        for uid, phase in result.podgroup_phases.items():
            pg = c.podgroups.get(uid)
            if pg is not None and pg.phase != phase:
                self._touch("podgroups", uid)
                phases[uid] = phase
        apply_cycle(c, result, removed)  # (the terminating pods: those it keeps in _deleting)
        self._deleting = set()
        for key, pod in removed.items():
            self._forget(key, pod)
        for key in result.binds:
            pod = c.pods.get(key)
            duration = None if pod is None else self._duration(pod)
            if duration is not None:
                self._set_end(key, now + duration)
        for key in result.evicted:
            if key in c.pods:
                self._deleting.add(key)
                self._set_end(key, None)
        decided = bool(removed or result.binds or result.evicted or nominated or phases)
        return phases, removed, decided

    def _react(self, result: CycleResult, removed: dict[str, PodObj], now: float) -> list[str]:
        """The workload controllers after the cycle: replacements, vcjob policies, resyncs."""
        c = self.cluster
        msgs: list[str] = []
        for key in result.evicted:
            pod = c.pods.get(key)
            if pod is not None and pod.spec.owner_kind in REPLICA_OWNERS and self._group_of(pod) in c.podgroups:
                new = self._replacement(pod, now)
                msgs.append(f"{pod.spec.owner_kind}/{pod.spec.owner_name or '?'}: {key} evicted, created {new}")
        dirty: set[str] = set()
        for key, pod in removed.items():
            uid = self._group_of(pod)
            life = self.jobs.get(uid)
            if life is not None and pod.spec.owner_kind == VCJOB_OWNER:
                dirty.add(uid)
                if not life.state:
                    msgs += self._pod_evicted(uid, life, key)
            elif life is None and uid in c.podgroups and not self._members.get(uid):
                # The PodGroup Volcano makes for a pod is owned by it and collected with it.
                self._remove_job(uid)
                msgs.append(f"PodGroup {uid}: its last pod is gone, removed")
        msgs += self._sync_all(dirty, now)
        return msgs

    def _pod_evicted(self, uid: str, life: JobLife, key: str) -> list[str]:
        """The job controller's PodEvicted request for a vcjob running normally."""
        action = life.action_for("PodEvicted")
        if action in SYNCING:
            return []
        if action == "RestartJob":
            retries = life.retries + 1
            state = "Failing" if retries >= life.max_retry else "Restarting"
            self._set_life(uid, replace(life, state=state, retries=retries))
            self._kill(uid, soft=False)
            what = (f"RestartJob: retry {retries}/{life.max_retry}, restarting every pod" if state == "Restarting"
                    else f"RestartJob: retry {retries} reaches maxRetry {life.max_retry}, job fails")
        else:
            self._set_life(uid, replace(life, state=KILLING[action]))
            self._kill(uid, soft=True)
            what = f"{action}: deleting every unfinished pod"
        return [f"Job {uid}: PodEvicted ({key}) -> {what}"]

    def _sync_all(self, dirty: set[str], now: float) -> list[str]:
        msgs: list[str] = []
        for uid in sorted(dirty):
            msgs += self._sync(uid, now)
        return msgs

    def _sync(self, uid: str, now: float) -> list[str]:
        """One pass of the job controller (and the TTL controller) over a job that changed."""
        c = self.cluster
        pg = c.podgroups.get(uid)
        if pg is None:
            return []
        msgs: list[str] = []
        life = self.jobs.get(uid)
        members = [c.pods[k] for k in self._members.get(uid, ())]
        if life is not None and life.state == "Restarting":
            terminating = sum(1 for p in members if p.deleting)
            if len(self._templates.get(uid, ())) - terminating < pg.min_member:
                return []
            life = replace(life, state="")
            self._set_life(uid, life)
            msgs.append(f"Job {uid}: Restarting -> Pending")
        if life is not None and life.state in FINAL:
            if any(p.deleting or p.phase not in TERMINAL_PHASES for p in members):
                return msgs
            self._set_life(uid, replace(life, state=FINAL[life.state]))
            self._remove_job(uid)
            return [*msgs, f"Job {uid}: {FINAL[life.state]}"]
        if life is not None and not life.state:
            for tpl in self._templates.get(uid, ()):
                if tpl.key not in c.pods:
                    self._add_pod(self._fresh(tpl, tpl.name, now))
                    msgs.append(f"Job {uid}: created {tpl.key}")
            members = [c.pods[k] for k in self._members.get(uid, ())]
        if members and all(p.phase in TERMINAL_PHASES and not p.deleting for p in members):
            if life is not None:
                self._set_life(uid, replace(life, state="Completed"))
            self._remove_job(uid)
            msgs.append(f"PodGroup {uid}: every pod finished, removed")
        return msgs

    def _kill(self, uid: str, soft: bool) -> None:
        """KillJob: delete the job's pods (with soft retention, keep the finished ones)."""
        c = self.cluster
        for key in sorted(self._members.get(uid, ()), key=self._pod_seq.__getitem__):
            pod = c.pods[key]
            finished = pod.phase in TERMINAL_PHASES
            if pod.deleting or (soft and finished):
                continue
            if pod.node_name and not finished:
                self._touch("pods", key)
                pod.deleting = True
                self._deleting.add(key)
                self._set_end(key, None)
            else:
                self._remove_pod(key)

    def _replacement(self, pod: PodObj, now: float) -> str:
        """The ReplicaSet controller's new pod for an evicted one (a fresh generated name)."""
        base = pod.spec.owner_name or pod.name
        while True:
            self._gen += 1
            name = f"{base}-{self._gen:05d}"
            if f"{pod.namespace}/{name}" not in self.cluster.pods:
                break
        new = self._fresh(pod, name, now)
        self._add_pod(new)
        return new.key

    def _fresh(self, tpl: PodObj, name: str, now: float) -> PodObj:
        self._gen += 1
        new = copy.copy(tpl)
        new.name = name
        new.uid = f"{tpl.uid}-{self._gen}"
        new.phase = "Pending"
        new.node_name = ""
        new.deleting = False
        new.nominated_node = ""
        new.spec = replace(tpl.spec, creation=timestamp(now))
        return new

    # ---- journaled mutations ---------------------------------------------------------------
    def _touch(self, table: str, key: str) -> None:
        tk = (table, key)
        if tk not in self._j:
            snap = self._snaps.get(tk, _MISSING)
            self._j[tk] = self._snap(table, key) if snap is _MISSING else snap

    def _snap(self, table: str, key: str) -> Any:
        if table == "pods":
            pod = self.cluster.pods.get(key)
            return None if pod is None else (self._pod_seq[key], copy.copy(pod))
        if table == "podgroups":
            pg = self.cluster.podgroups.get(key)
            return None if pg is None else (self._pg_seq[key], copy.copy(pg))
        if table == "jobs":
            return self.jobs.get(key)
        return self._ends.get(key)

    def _commit(self) -> dict[tuple[str, str], tuple[Any, Any]]:
        changes: dict[tuple[str, str], tuple[Any, Any]] = {}
        for tk, before in self._j.items():
            after = self._snap(*tk)
            if before != after:
                changes[tk] = (before, after)
            if after is None:
                self._snaps.pop(tk, None)
            else:
                self._snaps[tk] = after
        self._j = {}
        return changes

    def _add_pod(self, pod: PodObj) -> None:
        key = pod.key
        self._touch("pods", key)
        self.cluster.pods[key] = pod
        self._pod_seq[key] = self._next_seq()
        if pod.group:
            self._members.setdefault(self._group_of(pod), set()).add(key)

    def _remove_pod(self, key: str) -> None:
        self._touch("pods", key)
        pod = self.cluster.pods.pop(key)
        self._forget(key, pod)

    def _forget(self, key: str, pod: PodObj) -> None:
        """Bookkeeping for a pod that is gone."""
        self._pod_seq.pop(key, None)
        self._deleting.discard(key)
        if pod.group:
            self._members.get(self._group_of(pod), set()).discard(key)
        self._set_end(key, None)

    def _remove_job(self, uid: str) -> None:
        for key in sorted(self._members.get(uid, ()), key=self._pod_seq.__getitem__):
            self._remove_pod(key)
        self._touch("podgroups", uid)
        del self.cluster.podgroups[uid]
        self._pg_seq.pop(uid, None)

    def _set_life(self, uid: str, life: JobLife) -> None:
        self._touch("jobs", uid)
        self.jobs[uid] = life

    def _set_end(self, key: str, end: float | None) -> None:
        if end is None:
            if key in self._ends:
                self._touch("ends", key)
                del self._ends[key]
            return
        self._touch("ends", key)
        self._ends[key] = end
        heapq.heappush(self._heap, (end, key))

    # ---- rewind ----------------------------------------------------------------------------
    def _cycles(self) -> list[int]:
        return [r.cycle for r in self.history]

    def _position(self, cycle: int) -> int:
        """How many executed cycles make up the state after `cycle`."""
        return bisect.bisect_right(self._cycles(), cycle)

    def _move(self, q: int) -> None:
        c = self.cluster
        if q < self._pos:
            for rec in reversed(self.history[q:self._pos]):
                for tk, (before, _after) in rec.changes.items():
                    self._restore(tk, before)
        else:
            for rec in self.history[self._pos:q]:
                for tk, (_before, after) in rec.changes.items():
                    self._restore(tk, after)
        self._pos = q
        self._cursor, self._gen, self._seq = self.history[q - 1].after if q else self._initial
        # Insertion order is creation order, exactly as in a run that never rewound.
        pods = sorted(c.pods.items(), key=lambda kv: self._pod_seq[kv[0]])
        c.pods.clear()
        c.pods.update(pods)
        pgs = sorted(c.podgroups.items(), key=lambda kv: self._pg_seq[kv[0]])
        c.podgroups.clear()
        c.podgroups.update(pgs)
        self._snaps = {}
        self._reindex()

    def _restore(self, tk: tuple[str, str], value: Any) -> None:
        table, key = tk
        if table in ("pods", "podgroups"):
            store: dict[str, Any] = self.cluster.pods if table == "pods" else self.cluster.podgroups
            seqs = self._pod_seq if table == "pods" else self._pg_seq
            if value is None:
                store.pop(key, None)
                seqs.pop(key, None)
            else:
                seqs[key] = value[0]
                store[key] = copy.copy(value[1])
            return
        target: dict[str, Any] = self.jobs if table == "jobs" else self._ends
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value

    def _reindex(self) -> None:
        """Rebuild what is derived from the state: members, terminating pods, completions, counters."""
        c = self.cluster
        self._members = {uid: set(keys) for uid, keys in self._group_members(c.pods.items()).items()}
        self._deleting = {k for k, p in c.pods.items() if p.deleting}
        self._heap = [(end, key) for key, end in self._ends.items()]
        heapq.heapify(self._heap)
        self._totals = _node_totals(c)
        self._used: dict[str, float] = {}
        self._count = {"Pending": 0, "Bound": 0, "Running": 0, "Releasing": 0, "Succeeded": 0, "Failed": 0}
        self._qcount: dict[str, list[int]] = {}
        self._rolled: dict[str, list[int]] = {}  # _qcount rolled up to the ancestors, kept in step
        self._chains: dict[str, tuple[str, ...]] = {}
        for key, pod in c.pods.items():
            self._contribute((self._pod_seq[key], pod), +1)
        self._last_rows = self._queue_rows_at(self._pos)
        self._last_numbers = {}

    # ---- metrics ---------------------------------------------------------------------------
    def _account(self, changes: dict[tuple[str, str], tuple[Any, Any]]) -> None:
        for (table, _key), (before, after) in changes.items():
            if table == "pods":
                self._contribute(before, -1)
                self._contribute(after, +1)

    def _contribute(self, value: Any, sign: int) -> None:
        if value is None:
            return
        pod: PodObj = value[1]
        state = pod_state(pod)
        self._count[state] += sign
        if state in ("Bound", "Running", "Releasing"):
            r = pod.resreq
            used = self._used
            used["cpu"] = used.get("cpu", 0.0) + sign * r.cpu
            used["memory"] = used.get("memory", 0.0) + sign * r.memory
            for name, v in (r.scalars or {}).items():
                used[name] = used.get(name, 0.0) + sign * v
        queue = self._queue_of.get(self._group_of(pod)) if pod.group else None
        if queue is not None and state in ("Pending", "Bound", "Running"):
            chain = self._chains.get(queue)
            if chain is None:
                chain = self._chains[queue] = self._chain(queue)
            counts = self._qcount.get(queue)
            rolled = self._rolled
            if counts is None:
                counts = self._qcount[queue] = [0, 0]
                for name in chain:
                    rolled.setdefault(name, [0, 0])
            i = 0 if state == "Pending" else 1
            counts[i] += sign
            for name in chain:
                rolled[name][i] += sign

    def _cycle_row(self, k: int, now: float, skipped: int, arrived: list[str], completed: list[str],
                   result: CycleResult, controller: list[str]) -> dict[str, Any]:
        row: dict[str, Any] = {
            "cycle": k, "time": now, "skipped": skipped, "arrived": len(arrived), "completed": len(completed),
            "binds": len(result.binds), "evictions": len(result.evicted), "pipelined": len(result.pipelined),
            "controller": len(controller), "pending": self._count["Pending"],
            "running": self._count["Running"] + self._count["Bound"], "releasing": self._count["Releasing"],
        }
        for name, total in self._totals.items():
            row[f"util_{name}"] = self._used.get(name, 0.0) / total if total else 0.0
        return row

    def _queue_rows(self, result: CycleResult) -> dict[str, tuple[Any, ...]]:
        """This cycle's numbers for every queue whose numbers changed since the last cycle."""
        counts = self._rolled
        last = self._last_rows
        read = self._last_numbers
        numbers = result.queues
        none = (0, 0)
        changed: dict[str, tuple[Any, ...]] = {}
        for name in self.cluster.queues:
            q = numbers.get(name)
            pending, running = counts.get(name, none)
            if q is not None and q is read.get(name):
                # The same summary dict as last row's (a queue's unchanged numbers come back as the same,
                # read-only dict): only the pod counts can differ.
                prev = last[name]
                if prev[3] == pending and prev[4] == running:
                    continue
            if q:
                row = (q["allocated"], q["deserved"], q["share"], pending, running)
            else:
                row = (None, None, None, pending, running)
            read[name] = q
            if last.get(name) != row:
                changed[name] = row
                last[name] = row
        return changed

    def _rolled_up_counts(self) -> dict[str, tuple[int, int]]:
        """Pending and running pods per queue, each leaf's counted in every ancestor (kept in step by
        `_contribute`; `_rolled_up_counts_full` is the same figure computed from scratch)."""
        return {k: (v[0], v[1]) for k, v in self._rolled.items()}

    def _chain(self, queue: str) -> tuple[str, ...]:
        """The queue and its ancestors up to root, as the roll-up visits them (a cycle is cut short)."""
        queues = self.cluster.queues
        chain: list[str] = []
        cur: str | None = queue
        seen = 0
        while cur is not None and cur in queues and seen <= len(queues):
            chain.append(cur)
            cur = queues[cur].parent or ("root" if cur != "root" and "root" in queues else None)
            seen += 1
        return tuple(chain)

    def _rolled_up_counts_full(self) -> dict[str, tuple[int, int]]:
        queues = self.cluster.queues
        out: dict[str, list[int]] = {}
        for name, (pending, running) in self._qcount.items():
            cur: str | None = name
            seen = 0
            while cur is not None and cur in queues and seen <= len(queues):
                acc = out.setdefault(cur, [0, 0])
                acc[0] += pending
                acc[1] += running
                parent = queues[cur].parent or ("root" if cur != "root" and "root" in queues else None)
                cur = parent
                seen += 1
        return {k: (v[0], v[1]) for k, v in out.items()}

    def _queue_rows_at(self, pos: int) -> dict[str, tuple[Any, ...]]:
        """Every queue's numbers after `pos` executed cycles (at 0: pod counts only, no plugin numbers)."""
        rows: dict[str, tuple[Any, ...]] = dict(self._initial_rows)
        for rec in self.history[:pos]:
            rows.update(rec.queue_rows)
        return rows

    # ---- set-up helpers --------------------------------------------------------------------
    def _extract_arrivals(self) -> list[Arrival]:
        """PodGroups annotated with a future arrival leave the cluster until their time comes."""
        c = self.cluster
        members = self._group_members(c.pods.items())
        out: list[Arrival] = []
        for uid, pg in list(c.podgroups.items()):
            raw = pg.annotations.get(ARRIVAL_KEY)
            if raw is None:
                continue
            t = _seconds(raw, f"PodGroup/{uid}", ARRIVAL_KEY)
            if t <= 0:
                continue
            del c.podgroups[uid]
            if not pg.creation:
                pg = replace(pg, creation=timestamp(t))
            out.append(Arrival(t, pg, tuple(c.pods.pop(k) for k in members.get(uid, ()))))
        out.sort(key=lambda a: a.time)
        return out

    def _register(self, pg: PodGroupObj, pods: Iterable[PodObj]) -> None:
        """The static facts of a PodGroup: its queue, and for a vcjob its policies and pod templates."""
        self._queue_of[pg.uid] = pg.queue
        pods = list(pods)
        for pod in pods:
            self._duration(pod)  # a bad annotation is reported before the run, not in the middle
        owned = [p for p in pods if p.spec.owner_kind == VCJOB_OWNER]
        if owned or POLICIES_KEY in pg.annotations:
            self._lives[pg.uid] = parse_life(pg)
            self._templates[pg.uid] = tuple(self._pristine(p) for p in owned)

    @staticmethod
    def _pristine(pod: PodObj) -> PodObj:
        tpl = copy.copy(pod)
        tpl.phase, tpl.node_name, tpl.deleting, tpl.nominated_node = "Pending", "", False, ""
        return tpl

    @staticmethod
    def _group_of(pod: PodObj) -> str:
        return f"{pod.namespace}/{pod.group}"

    @staticmethod
    def _group_members(items: Iterable[tuple[str, PodObj]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for key, pod in items:
            if pod.group:
                out.setdefault(f"{pod.namespace}/{pod.group}", []).append(key)
        return out

    @staticmethod
    def _duration(pod: PodObj) -> float | None:
        raw = pod.spec.annotations.get(DURATION_KEY)
        return None if raw is None else _seconds(raw, f"Pod/{pod.key}", DURATION_KEY)

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _scalars(self) -> tuple[int, int, int]:
        return (self._cursor, self._gen, self._seq)


_QUEUE_FIELDS = ("allocated", "deserved", "share", "pending", "running")


def _fmt(value: Any) -> str:
    """A queue number for people: resources as quantities (pods slots left out), shares rounded."""
    if isinstance(value, dict):
        from capacity.core.quantity import format_resource_value
        return ", ".join(f"{k} {format_resource_value(k, v)}" for k, v in value.items() if k != "pods") or "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return "-" if value is None else str(value)


def _describe_pod(value: Any) -> str:
    if value is None:
        return "absent"
    pod: PodObj = value[1]
    state = pod_state(pod)
    return f"{state} on {pod.node_name}" if pod.node_name and state != "Pending" else state


def _node_totals(cluster: Cluster) -> dict[str, float]:
    """Allocatable of the ready nodes per resource (pods slots left out): the utilisation denominators."""
    totals: dict[str, float] = {"cpu": 0.0, "memory": 0.0}
    for n in cluster.nodes:
        if not n.ready:
            continue
        totals["cpu"] += n.allocatable.cpu
        totals["memory"] += n.allocatable.memory
        for name, v in (n.allocatable.scalars or {}).items():
            if name != "pods":
                totals[name] = totals.get(name, 0.0) + v
    return totals


def _resource_columns(prefix: str, values: dict[str, float] | None) -> dict[str, float]:
    """Internal units -> cores, GiB and whole scalar units (Volcano keeps scalars in milli-units)."""
    if values is None:
        return {}
    out: dict[str, float] = {}
    for name, v in values.items():
        if name == "pods":
            continue
        if name == "cpu":
            out[f"{prefix}_cpu"] = v / 1000
        elif name == "memory":
            out[f"{prefix}_memory_gib"] = v / 2**30
        else:
            out[f"{prefix}_{name}"] = v / 1000
    return out


def _queue_row(cycle: int, time: float, name: str, row: tuple[Any, ...]) -> dict[str, Any]:
    allocated, deserved, share, pending, running = row
    out: dict[str, Any] = {"cycle": cycle, "time": time, "queue": name}
    out.update(_resource_columns("allocated", allocated))
    out.update(_resource_columns("deserved", deserved))
    out["share"] = share
    out["pending"] = pending
    out["running"] = running
    return out
