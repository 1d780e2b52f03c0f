"""The session's workspace, and the one place that creates it.

Every page calls `get_workspace()` before anything else. With `st.navigation`, `app.py` runs before
each page, but on a freshly started server a direct link such as `/scenario` can run
`pages/scenario.py` on its own: Streamlit treats a `pages/` folder as a legacy multipage app until
some session has called `st.navigation`. Creating the workspace lazily here, rather than only in
`app.py`, makes every page work either way.

`Workspace` itself is plain Python (no Streamlit), so its behaviour is tested without a browser: the
current cluster, the history of simulated cycles (a copy of the cluster before each one, the engine's
`CycleResult` and, once something reads it, the decision trace: `Step.records`), the scenario's name,
and the last error next to the input that caused it. Loading parses first and replaces the scenario only
on success, so a bad upload never loses the previous valid state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import streamlit as st

from capacity.analysis.lint import Finding, lint
from capacity.authoring.edit import Edited, RefusedEdit, SiblingFix, with_parent_raised
from capacity.core.cluster import Cluster
from capacity.core.errors import InputError, ResourceUnderflow
from capacity.core.trace import Record, Trace
from capacity.framework.session import CycleResult, SessionOptions
from capacity.io.k8s import load_cluster
from capacity.scheduler import gc_paused, open_session, run_cycle
from capacity.simulation.timeline import MAX_UNTIL_CYCLES, EditEntry, Until, check_until, dropped_by_rewind, until_met
from capacity.versions.cli import known_or_none, session_kwargs

#: The single session-state key that holds the workspace.
WORKSPACE_KEY = "workspace"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DEFAULT_SCENARIO = "default"

QueueNumbers = dict[str, dict[str, Any]]


def fixture_names() -> list[str]:
    """Built-in scenarios: the stems of fixtures/*.yaml, the default first."""
    names = sorted(p.stem for p in FIXTURES.glob("*.yaml"))
    return sorted(names, key=lambda n: n != DEFAULT_SCENARIO)


def fixture_description(name: str) -> str:
    """The scenario's short markdown description, or "" when it has none."""
    path = FIXTURES / f"{name}.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@dataclass(frozen=True)
class Problem:
    """An error to show next to the input that caused it, naming object and field."""

    obj: str
    field: str
    message: str

    @classmethod
    def from_error(cls, err: InputError) -> Problem:
        return cls(err.obj, err.field, err.message)

    def __str__(self) -> str:
        return ": ".join(part for part in (self.obj, self.field, self.message) if part)


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

    A cycle runs untraced (at S1 a traced cycle costs 2-4x an untraced one). Its decision records are built
    the first time something reads `records`: the cycle runs again, traced, on a copy of `before` with the same
    options (`replay_records`); a trace never changes a decision, and the re-run is checked to have decided
    the same. A step given its records (a lesson's simulator cycle, which cannot be re-run alone) keeps them.
    """

    cycle: int
    before: Cluster
    result: CycleResult
    #: the decision records once built (None: not yet; `records` builds them)
    traced: list[Record] | None = field(default=None, repr=False)
    #: the options the cycle ran with, for the traced re-run
    options: SessionOptions | None = field(default=None, repr=False)
    #: the Decisions page's index of `records` (ui.views.record_index), built when first asked for
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


@dataclass
class Snapshot:
    """What an undo brings back: the timeline as it was before an edit or a rewind."""

    label: str
    cluster: Cluster
    history: list[Step]
    edits: list[EditEntry]
    #: the form whose edit this undoes ("" for a rewind)
    form: str = ""


@dataclass
class Timeline:
    """A kept timeline (not the one shown): its cluster, cycles, edits and undo stack."""

    cluster: Cluster
    history: list[Step]
    edits: list[EditEntry]
    undo: list[Snapshot]


@dataclass
class PendingFix:
    """A refused edit with a known fix: the fix, and the edit to retry once the fix is applied."""

    fix: SiblingFix
    fn: Callable[..., Edited]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    notice: str


#: How many undo steps a timeline keeps.
UNDO_DEPTH = 30


@dataclass
class Workspace:
    scenario: str
    cluster: Cluster
    history: list[Step] = field(default_factory=list)
    errors: dict[str, Problem] = field(default_factory=dict)
    options: SessionOptions = field(default_factory=SessionOptions)
    # ---- editing state (see `edit`): plain data, so it survives page switches ----
    #: lint findings of the cluster after the last accepted edit (shown next to the objects they name)
    findings: list[Finding] = field(default_factory=list)
    #: what the user typed into a form whose edit was refused, per form, to show it again
    drafts: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: one line saying what the last accepted edit of a form did, per form
    notices: dict[str, str] = field(default_factory=dict)
    #: bumped by every accepted edit: forms re-read the cluster when it changes
    revision: int = 0
    #: cached "what would have to change" answers (capacity.analysis.whatif.WhatIf), per (cycle, job)
    whatif: dict[tuple[int, str], Any] = field(default_factory=dict)
    findings_key: tuple[int, ...] = ()
    #: `queue_numbers` of the state it was asked for: (cluster, revision, cycle, options, numbers)
    numbers_memo: tuple[Any, ...] | None = field(default=None, repr=False, compare=False)
    #: step through capacity.simulation.sim (pods run, evictions trigger the jobs' PodEvicted policies) rather
    #: than plain cycles: a lesson opened here runs exactly as it did in the lesson
    lifecycle: bool = False
    sim: Any = field(default=None, repr=False, compare=False)
    sim_base: int = 0  # the workspace cycle the simulator started at (it counts its own cycles from 0)
    # ---- timeline: edits between cycles, undo, kept timelines (see capacity.simulation.timeline) ----
    #: accepted edits of this timeline, in order, each with the cycle it was made after
    edits: list[EditEntry] = field(default_factory=list)
    #: snapshots to go back to, the latest last
    undo_stack: list[Snapshot] = field(default_factory=list)
    #: the name of the timeline shown, and the others kept
    timeline: str = "main"
    timelines: dict[str, Timeline] = field(default_factory=dict)
    #: refused edits that have a one-click fix, per form
    fixes: dict[str, PendingFix] = field(default_factory=dict)
    #: the answer model's last run (ui.answers.workspace_run): (last step, (cycle, first cycle), run)
    answer_run: Any = field(default=None, repr=False, compare=False)
    #: the release named by the loaded dump's volcano-scheduler image ("1.13.2"), if any (capacity/versions)
    detected_version: str | None = None
    #: the text (and separate configuration) the scenario was loaded from: what the reality check compares
    loaded_text: str | None = field(default=None, repr=False, compare=False)
    loaded_conf: str | None = field(default=None, repr=False, compare=False)

    # ---- scenario ---------------------------------------------------------------------------
    def load_text(self, text: str, *, name: str, source: str, input_key: str, conf_text: str | None = None) -> bool:
        """Parse `text` into a new cluster; on success it replaces the scenario (history cleared).

        On an InputError nothing changes except `errors[input_key]`, which names object and field.
        """
        try:
            cluster = load_cluster(text, source=source, conf_text=conf_text)
        except InputError as err:
            self.errors[input_key] = Problem.from_error(err)
            return False
        self.scenario = name
        self.cluster = cluster
        self.history = []
        self.errors = {}
        self.lifecycle, self.sim = False, None
        self.edits, self.undo_stack, self.timelines, self.timeline = [], [], {}, "main"
        self.fixes, self.notices = {}, {}
        # Nothing of the previous scenario stays reachable (its clusters and records are large at scale).
        self.whatif.clear()
        self.numbers_memo, self.answer_run = None, None
        self.drafts, self.findings, self.findings_key = {}, [], ()
        self.detected_version = cluster.scheduler_version
        release = known_or_none(self.detected_version)
        if release is not None:  # the release the dump's scheduler runs, preselected (the Scheduler page)
            self.options = SessionOptions(**session_kwargs(release))
        self.loaded_text, self.loaded_conf = text, conf_text
        return True

    def load_fixture(self, name: str) -> bool:
        path = FIXTURES / f"{name}.yaml"
        if not path.exists():
            self.errors["fixture"] = Problem(str(path.relative_to(FIXTURES.parent)), "", "no such fixture")
            return False
        return self.load_text(path.read_text(encoding="utf-8"), name=name, source=f"fixtures/{name}.yaml",
                              input_key="fixture")

    # ---- editing ----------------------------------------------------------------------------
    def edit(self, input_key: str, fn: Callable[..., Edited], *args: Any, draft: dict[str, Any] | None = None,
             notice: str = "", **kwargs: Any) -> bool:
        """Apply one `capacity.authoring.edit` function to the current cluster; True if Volcano would accept it.

        On success the cluster is replaced (the history of cycles stays: the edit applies from now on),
        the lint findings are refreshed and the form's error and draft are cleared. On an InputError
        nothing changes except `errors[input_key]` (naming object and field) and `drafts[input_key]`,
        which keeps what the user typed.
        """
        try:
            edited = fn(self.cluster, *args, **kwargs)
        except InputError as err:
            self.errors[input_key] = Problem.from_error(err)
            if draft is not None:
                self.drafts[input_key] = dict(draft)
            self.notices.pop(input_key, None)
            self.fixes.pop(input_key, None)
            if isinstance(err, RefusedEdit) and err.fix is not None:
                self.fixes[input_key] = PendingFix(err.fix, fn, args, kwargs, notice)
            return False
        label = " ".join(notice.replace("`", "").split()) or fn.__name__.replace("_", " ")
        self._remember(f"edit: {label}", input_key)
        self.edits.append(EditEntry(self.cycle, label))
        self.fixes.pop(input_key, None)
        self.cluster = edited.cluster
        self.sim = None  # a simulator owns its cluster: the next step starts a fresh one on the edited cluster
        self.findings = edited.findings
        self.revision += 1
        self.findings_key = (self.revision, id(self.cluster), self.cycle)
        self.errors.pop(input_key, None)
        self.drafts.pop(input_key, None)
        self.whatif.clear()
        if notice:
            self.notices[input_key] = notice
        return True

    def apply_fix(self, input_key: str) -> bool:
        """Raise the parent as the refused edit's fix suggests, then make that edit; both validated."""
        pending = self.fixes.get(input_key)
        if pending is None:
            return False
        fix = pending.fix
        raised = ", ".join(f"{k} {v}" for k, v in fix.raise_to.items() if k in fix.total)
        notice = f"Raised `{fix.parent}`'s {fix.quota} to {raised}. {pending.notice}".strip()
        return self.edit(input_key, with_parent_raised, fix, pending.fn, *pending.args, notice=notice,
                         **pending.kwargs)

    # ---- undo -------------------------------------------------------------------------------
    def _remember(self, label: str, form: str = "") -> None:
        self.undo_stack.append(Snapshot(label, self.cluster.copy_state(), list(self.history), list(self.edits), form))
        del self.undo_stack[:-UNDO_DEPTH]

    def undo_label(self) -> str:
        """What "Undo" would do, in words (with the cycles it also drops), or "" when there is nothing to undo."""
        if not self.undo_stack:
            return ""
        snap = self.undo_stack[-1]
        later = [s.cycle for s in self.history[len(snap.history):]] if len(self.history) > len(snap.history) else []
        tail = f" (also drops cycle{'s' if len(later) > 1 else ''} {later[0]}" + \
            (f"-{later[-1]}" if len(later) > 1 else "") + " run since)" if later else ""
        return f"undo {snap.label}{tail}"

    def undo(self) -> str:
        """Go back to before the last edit or rewind (a rewind's dropped cycles and edits come back)."""
        if not self.undo_stack:
            return ""
        label = self.undo_label()
        snap = self.undo_stack.pop()
        self.cluster, self.history, self.edits = snap.cluster.copy_state(), list(snap.history), list(snap.edits)
        self.sim = None  # (a lesson's simulator starts afresh from the state undone to, at the next step)
        self._after_time_travel()
        return label

    def _after_time_travel(self) -> None:
        """Notices of accepted edits and pending fixes describe a state that is gone."""
        self.notices.clear()
        self.fixes.clear()
        self.whatif.clear()
        self.revision += 1

    # ---- timelines --------------------------------------------------------------------------
    def branch(self, cycle: int) -> str:
        """Keep this timeline and continue on a new one that starts after `cycle`; returns its name."""
        if not 0 <= cycle <= self.cycle:
            return ""
        base = f"branch at cycle {cycle}"
        name, n = base, 2
        while name in self.timelines or name == self.timeline:
            name, n = f"{base} ({n})", n + 1
        self.timelines[self.timeline] = self._keep()
        self.timeline = name
        self.cluster = self.cluster_after(cycle).copy_state()
        self.history = self.history[:cycle]
        self.edits = [e for e in self.edits if e.at_cycle <= cycle]
        self.undo_stack = []
        self.sim = None  # (a lesson's simulator belongs to the timeline it ran; the branch starts its own)
        self._after_time_travel()
        return name

    def switch_timeline(self, name: str) -> bool:
        """Show another kept timeline; the current one is kept as it is."""
        other = self.timelines.pop(name, None)
        if other is None or name == self.timeline:
            return False
        self.timelines[self.timeline] = self._keep()
        self.timeline = name
        self.cluster, self.history, self.edits, self.undo_stack = other.cluster, other.history, other.edits, other.undo
        self.sim = None
        self._after_time_travel()
        return True

    def timeline_names(self) -> list[str]:
        return [self.timeline, *sorted(self.timelines)]

    def _keep(self) -> Timeline:
        return Timeline(self.cluster, self.history, self.edits, self.undo_stack)

    def findings_about(self, obj: str) -> list[Finding]:
        """Lint findings naming `obj` ("Queue/x", "Node/n", "PodGroup/ns/j"), for the current cluster."""
        return [f for f in self.current_findings() if f.obj == obj]

    def current_findings(self) -> list[Finding]:
        key = (self.revision, id(self.cluster), self.cycle)
        if self.findings_key != key:
            self.findings = lint(self.cluster)
            self.findings_key = key
        return self.findings

    # ---- simulation -------------------------------------------------------------------------
    @property
    def cycle(self) -> int:
        """How many cycles have run on the current scenario."""
        return len(self.history)

    def step(self) -> Step | None:
        """Run one scheduling cycle on the current cluster and remember it; None if the engine refused."""
        before = self.cluster.copy_state()
        if self.lifecycle:
            return self._sim_step(before)
        trace = Trace(enabled=False)  # the records are built when first read (Step.records)
        trace.cycle = self.cycle + 1
        try:
            result = run_cycle(self.cluster, trace, self.options)
        except (InputError, ResourceUnderflow) as err:
            self.cluster = before
            obj = err.obj if isinstance(err, InputError) else f"cycle {trace.cycle}"
            self.errors["simulate"] = Problem(obj, getattr(err, "field", ""), getattr(err, "message", str(err)))
            return None
        except Exception as err:  # noqa: BLE001 - a bug must not cost the user the last good state
            self.cluster = before
            self.errors["simulate"] = _engine_failure(trace.cycle, err)
            return None
        self.errors.pop("simulate", None)
        step = Step(trace.cycle, before, result, options=self.options)
        self.history.append(step)
        return step

    def _sim_step(self, before: Cluster) -> Step | None:
        """One cycle through the simulator, the way a lesson's simulated setup runs it (capacity.authoring.lessons).

        Traced as it runs: the simulator changes the cluster around the cycle (completions, arrivals, the job
        controller) and keeps no copy of the state the cycle started from, so the cycle cannot be re-run alone
        later. Only small lesson scenarios run this way."""
        from capacity.simulation.sim import SimOptions, Simulator
        if self.sim is None or self.sim.cluster is not self.cluster:
            self.sim = Simulator(self.cluster, SimOptions(event_driven=False, session=self.options),
                                 trace=Trace(enabled=True))
            self.sim_base = self.cycle
        start = len(self.sim.trace.records)
        try:
            rec = self.sim.step()
        except (InputError, ResourceUnderflow) as err:
            obj = err.obj if isinstance(err, InputError) else f"cycle {self.cycle + 1}"
            self.errors["simulate"] = Problem(obj, getattr(err, "field", ""), getattr(err, "message", str(err)))
            return None
        except Exception as err:  # noqa: BLE001 - a bug must not cost the user the last good state
            self.cluster, self.sim = before, None
            self.errors["simulate"] = _engine_failure(self.cycle + 1, err)
            return None
        if rec is None:
            return None
        self.errors.pop("simulate", None)
        # The simulator keeps a cycle's queue numbers apart from its result; hand them back as a plain cycle has them.
        queues = {k: v for k, v in getattr(self.sim, "_last_numbers", {}).items() if v}
        step = Step(self.cycle + 1, before, replace(rec.result, queues=queues), self.sim.trace.records[start:])
        self.history.append(step)
        return step

    def run(self, cycles: int) -> list[Step]:
        """Run up to `cycles` cycles, stopping at the first one the engine refuses."""
        done: list[Step] = []
        for _ in range(cycles):
            step = self.step()
            if step is None:
                break
            done.append(step)
        return done

    def run_until(self, until: Until, max_cycles: int) -> tuple[list[Step], str | None]:
        """Run cycles until one meets `until` (then stop there) or `max_cycles` ran; (cycles run, why it stopped:
        the met condition's sentence, or None when it never was)."""
        check_until(until)
        done: list[Step] = []
        for _ in range(max(0, min(int(max_cycles), MAX_UNTIL_CYCLES))):
            step = self.step()
            if step is None:
                break
            done.append(step)
            # Only "queue reclaims" reads records, and only of a cycle that evicted: others trace nothing.
            try:
                records = step.records if until.kind == "queue-reclaim" and step.result.evicted else ()
            except DecisionsDiffer as err:
                raise InputError(f"cycle {err.cycle}", "decision records", err.message) from err
            why = until_met(until, step.before, step.result, records)
            if why is not None:
                return done, why
        return done, None

    def edits_dropped_by_rewind(self, cycle: int) -> list[EditEntry]:
        """The edits a rewind to after `cycle` would undo (for the page to ask before rewinding)."""
        return dropped_by_rewind(self.edits, cycle)

    def rewind(self, cycle: int) -> None:
        """Go back to the state right after `cycle` (0 = before the first cycle); later cycles are dropped, and
        so are the edits made after the next cycle (`undo` brings all of them back)."""
        if not 0 <= cycle < self.cycle:
            return
        self._remember("rewind to the start" if cycle == 0 else f"rewind to cycle {cycle}")
        if self.sim is not None and cycle >= self.sim_base:
            self.sim.rewind(cycle - self.sim_base)  # back to the cycle with its jobs' controller state
            self.cluster = self.sim.cluster
            del self.history[cycle:]
            self.edits = [e for e in self.edits if e not in dropped_by_rewind(self.edits, cycle)]
            self._after_time_travel()
            return
        self.sim = None
        self.cluster = self.history[cycle].before.copy_state()
        self.history = self.history[:cycle]
        self.edits = [e for e in self.edits if e not in dropped_by_rewind(self.edits, cycle)]
        self._after_time_travel()

    def step_at(self, cycle: int) -> Step | None:
        return self.history[cycle - 1] if 1 <= cycle <= self.cycle else None

    def cluster_after(self, cycle: int) -> Cluster:
        """The cluster as it was after `cycle` (0: the loaded scenario)."""
        if cycle < self.cycle:
            return self.history[cycle].before
        return self.cluster

    # ---- numbers ----------------------------------------------------------------------------
    def queue_numbers(self) -> QueueNumbers:
        """The queue plugin's per-queue numbers for the current cluster, as a new session opens them.

        These are the same `summary()` values a cycle reports in `CycleResult.queues` (the first queue
        plugin in tier order, capacity or proportion, reports a queue), taken before the next cycle
        decides anything. Empty when the scheduler configuration has no such plugin.

        Every page showing them asks on each rerun (any widget change), so they are kept for the state they
        were asked for: the same cluster object (edits, loads and rewinds replace it), revision, cycle (a
        step changes the cluster in place) and options. Read-only, like the cycle's own numbers.
        """
        memo = self.numbers_memo
        if memo is not None and memo[0] is self.cluster and memo[1] == self.revision and memo[2] == self.cycle \
                and memo[3] is self.options:
            return memo[4]
        with gc_paused():
            ssn = open_session(self.cluster, None, self.options)
        numbers: QueueNumbers = {}
        for plugin in ssn.plugins.values():  # opened in tier order
            attrs = getattr(plugin, "attrs", None)
            if not isinstance(attrs, dict):
                continue
            for name, attr in sorted(attrs.items()):
                if hasattr(attr, "summary"):
                    numbers.setdefault(name, attr.summary())
        self.numbers_memo = (self.cluster, self.revision, self.cycle, self.options, numbers)
        return numbers

    def share_history(self) -> list[tuple[int, QueueNumbers]]:
        """(cycle, queue numbers at the end of that cycle) for every cycle run."""
        return [(s.cycle, s.result.queues) for s in self.history]


def option_names(options: SessionOptions) -> list[str]:
    """The engine's compatibility switches (SessionOptions' boolean fields), for the pages to offer."""
    return [f.name for f in fields(options) if isinstance(getattr(options, f.name), bool)]


def new_workspace() -> Workspace:
    """A fresh workspace on the default scenario."""
    path = FIXTURES / f"{DEFAULT_SCENARIO}.yaml"
    cluster = load_cluster(path.read_text(encoding="utf-8"), source=f"fixtures/{DEFAULT_SCENARIO}.yaml")
    return Workspace(scenario=DEFAULT_SCENARIO, cluster=cluster)


def _engine_failure(cycle: int, err: Exception) -> Problem:
    """An engine error that is not the input's fault: logged whole on the server, one line for the user."""
    logging.getLogger(__name__).exception("cycle %d failed", cycle)
    return Problem(f"cycle {cycle}", "", f"the engine failed on this cycle ({type(err).__name__}); this is a bug "
                   "in Capacity Lab, logged on the server. The state before the cycle is kept.")


def read_decisions(steps: Iterable[Step]) -> Problem | None:
    """Make sure `steps` have their decision records, building each missing one (a traced re-run of its cycle)
    under a spinner; the first refusal (the re-run decided otherwise: `DecisionsDiffer`) as a Problem to show."""
    for step in steps:
        try:
            if step.has_records:
                step.records  # noqa: B018 - raises the kept refusal, if any
                continue
            with st.spinner(f"Reading the decisions of cycle {step.cycle} …"):
                step.records  # noqa: B018 - builds and keeps them on the step
        except DecisionsDiffer as err:
            return Problem(f"cycle {err.cycle}", "decision records", err.message)
    return None


def get_workspace() -> Workspace:
    """Return this session's workspace, creating it on first use."""
    if WORKSPACE_KEY not in st.session_state:
        st.session_state[WORKSPACE_KEY] = new_workspace()
    return st.session_state[WORKSPACE_KEY]
