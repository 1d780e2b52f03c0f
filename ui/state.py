"""The session's workspace, and the one place that creates it.

Every page calls `get_workspace()` before anything else. With `st.navigation`, `app.py` runs before
each page, but on a freshly started server a direct link such as `/scenario` can run
`pages/scenario.py` on its own: Streamlit treats a `pages/` folder as a legacy multipage app until
some session has called `st.navigation`. Creating the workspace lazily here, rather than only in
`app.py`, makes every page work either way.

`Workspace` itself is plain Python (no Streamlit), so its behaviour is tested without a browser. It holds the UI's
state (the scenario's name, the last error next to the input that caused it, drafts and notices of the edit forms)
and delegates the cycles, rewinds, undo, branches and queue numbers to the engine's timelines
(`capacity.simulation.timeline`, whose cycles are `capacity.simulation.steps.Step`s). Loading parses first and
replaces the scenario only on success, so a bad upload never loses the previous valid state.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import streamlit as st

from capacity.analysis.lint import Finding, lint
from capacity.authoring.edit import Edited, RefusedEdit, SiblingFix, on_release, with_parent_raised
from capacity.core.cluster import Cluster
from capacity.core.errors import InputError
from capacity.core.gcpause import gc_paused_keeping, release_frozen
from capacity.framework.session import SessionOptions
from capacity.io.k8s import load_cluster
from capacity.simulation.steps import DecisionsDiffer, QueueNumbers, Step, replay_records
from capacity.simulation.timeline import UNDO_DEPTH, CycleRefused, EditEntry, Snapshot, Timeline, Timelines, Until
from capacity.versions.cli import known_or_none, session_kwargs

#: The single session-state key that holds the workspace.
WORKSPACE_KEY = "workspace"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DEFAULT_SCENARIO = "default"

#: The public names, including the engine's (capacity.simulation) that pages and tests read from here.
__all__ = ["DEFAULT_SCENARIO", "FIXTURES", "UNDO_DEPTH", "WORKSPACE_KEY", "DecisionsDiffer", "EditEntry", "PendingFix",
           "Problem", "QueueNumbers", "Snapshot", "Step", "Timeline", "Until", "Workspace", "fixture_description",
           "fixture_names", "get_workspace", "new_workspace", "option_names", "read_decisions", "replay_records"]


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


@dataclass
class PendingFix:
    """A refused edit with a known fix: the fix, and the edit to retry once the fix is applied."""

    fix: SiblingFix
    fn: Callable[..., Edited]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    notice: str


class Workspace:
    """What one browser session works on: which scenario, the timelines of cycles and edits run on it (the
    engine's `capacity.simulation.timeline.Timelines`), and the UI's own state: errors next to their inputs,
    drafts of refused edits, notices, pending fixes, and the options the next cycle runs with.

    The cycles, rewinds, undo, branches and queue numbers are the timeline's; the methods here delegate to it and
    turn what the engine refuses into a Problem to show.
    """

    def __init__(self, scenario: str, cluster: Cluster, options: SessionOptions | None = None) -> None:
        self.scenario = scenario
        self.lines = Timelines(cluster)
        self.errors: dict[str, Problem] = {}
        self.options = options if options is not None else SessionOptions()
        # ---- editing state (see `edit`): plain data, so it survives page switches ----
        #: lint findings of the cluster after the last accepted edit (shown next to the objects they name)
        self.findings: list[Finding] = []
        self.findings_key: tuple[Any, ...] = ()
        #: what the user typed into a form whose edit was refused, per form, to show it again
        self.drafts: dict[str, dict[str, Any]] = {}
        #: one line saying what the last accepted edit of a form did, per form
        self.notices: dict[str, str] = {}
        #: bumped by every accepted edit and time travel: forms re-read the cluster when it changes
        self.revision = 0
        #: cached "what would have to change" answers (capacity.analysis.whatif.WhatIf), per (cycle, job)
        self.whatif: dict[tuple[int, str], Any] = {}
        #: refused edits that have a one-click fix, per form
        self.fixes: dict[str, PendingFix] = {}
        #: step through capacity.simulation.sim (pods run, evictions trigger the jobs' PodEvicted policies)
        #: rather than plain cycles: a lesson opened here runs exactly as it did in the lesson
        self.lifecycle = False
        #: the answer model's last run (ui.answers.workspace_run): (last step, (cycle, first cycle), run)
        self.answer_run: Any = None
        #: the release named by the loaded dump's volcano-scheduler image ("1.13.2"), if any (capacity/versions)
        self.detected_version: str | None = None
        #: the text (and separate configuration) the scenario was loaded from: what the reality check compares
        self.loaded_text: str | None = None
        self.loaded_conf: str | None = None

    def __repr__(self) -> str:
        return f"Workspace({self.scenario!r}, cycle {self.cycle}, timeline {self.timeline!r})"

    # ---- the shown timeline (capacity.simulation.timeline) -----------------------------------------
    @property
    def line(self) -> Timeline:
        """The timeline shown."""
        return self.lines.current

    @property
    def cluster(self) -> Cluster:
        """The cluster now, on the timeline shown."""
        return self.lines.current.cluster

    @property
    def history(self) -> list[Step]:
        """The cycles run on the timeline shown, cycle k at index k - 1."""
        return self.lines.current.history

    @property
    def edits(self) -> list[EditEntry]:
        return self.lines.current.edits

    @property
    def undo_stack(self) -> list[Snapshot]:
        return self.lines.current.undo_stack

    @property
    def sim(self) -> Any:
        """The lifecycle simulator of the timeline shown (None: plain cycles, or not started)."""
        return self.lines.current.sim

    @property
    def timeline(self) -> str:
        """The name of the timeline shown."""
        return self.lines.name

    @property
    def timelines(self) -> dict[str, Timeline]:
        """The timelines kept (not shown), by name."""
        return self.lines.kept

    @property
    def cycle(self) -> int:
        """How many cycles have run on the timeline shown."""
        return self.lines.current.cycle

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
        # Nothing of the previous scenario stays reachable (its clusters and records are large at scale).
        self.lines = Timelines(cluster)
        self.errors = {}
        self.lifecycle = False
        self.fixes, self.notices = {}, {}
        self.whatif.clear()
        self.answer_run = None
        self.drafts, self.findings, self.findings_key = {}, [], ()
        self.detected_version = cluster.scheduler_version
        release = known_or_none(self.detected_version)
        if release is not None:  # the release the dump's scheduler runs, preselected (the Scheduler page)
            self.options = SessionOptions(**session_kwargs(release))
        self.loaded_text, self.loaded_conf = text, conf_text
        # The previous scenario is garbage now, frozen with the rest (see `step`): one full collection frees it
        # (here, where a person expects to wait) and freezes the new one.
        del cluster
        release_frozen()
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
            with on_release(self.options.lacking):  # the chosen Volcano release's queue webhook checks it
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
        self.line.edit(label, edited.cluster, input_key)
        self.fixes.pop(input_key, None)
        self.findings = edited.findings
        self.revision += 1
        # (the edit's lint is the current one, but for an older release's own findings: current_findings)
        self.findings_key = (self.revision, id(self.cluster), self.cycle, self.options.lacking) \
            if not self.options.lacking else ()
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
    def undo_label(self) -> str:
        """What "Undo" would do, in words (with the cycles it also drops), or "" when there is nothing to undo."""
        return self.line.undo_label()

    def undo(self) -> str:
        """Go back to before the last edit or rewind (a rewind's dropped cycles and edits come back)."""
        label = self.line.undo()
        if label:
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
        name = self.lines.branch(cycle)
        if name:
            self._after_time_travel()
        return name

    def switch_timeline(self, name: str) -> bool:
        """Show another kept timeline; the current one is kept as it is."""
        if not self.lines.switch(name):
            return False
        self.line.sim = None  # (as before timelines kept their simulator: the next step starts a fresh one)
        self._after_time_travel()
        return True

    def timeline_names(self) -> list[str]:
        return self.lines.names()

    def findings_about(self, obj: str) -> list[Finding]:
        """Lint findings naming `obj` ("Queue/x", "Node/n", "PodGroup/ns/j"), for the current cluster."""
        return [f for f in self.current_findings() if f.obj == obj]

    def current_findings(self) -> list[Finding]:
        key = (self.revision, id(self.cluster), self.cycle, self.options.lacking)
        if self.findings_key != key:
            self.findings = lint(self.cluster, self.options.lacking)  # the chosen release's queue webhook
            if self.options.lacking:  # and what the release's scheduler does with it that HEAD does not
                from capacity.versions.lint import release_findings
                self.findings += release_findings(self.cluster, self.options.lacking, self.options.version)
            self.findings_key = key
        return self.findings

    # ---- simulation -------------------------------------------------------------------------
    def step(self) -> Step | None:
        """Run one scheduling cycle on the current cluster and remember it; None if the engine refused."""
        try:
            # What the cycle keeps (the cluster's copy before it, the result) is frozen with everything else alive:
            # at S1 the server holds millions of such objects, which Streamlit's collection after every rerun
            # (runner.postScriptGC) would otherwise walk on every page visit (0.4-0.7 s each).
            with gc_paused_keeping():
                step = self.line.step(self.options, self.lifecycle)
        except CycleRefused as err:
            self._refused(err)
            return None
        if step is not None:
            self.errors.pop("simulate", None)
        return step

    def _refused(self, err: CycleRefused) -> None:
        cause = err.cause
        if not err.input_error:
            self.errors["simulate"] = _engine_failure(err.cycle, cause)
            return
        obj = cause.obj if isinstance(cause, InputError) else f"cycle {err.cycle}"
        self.errors["simulate"] = Problem(obj, getattr(cause, "field", ""), getattr(cause, "message", str(cause)))

    def run(self, cycles: int) -> list[Step]:
        """Run up to `cycles` cycles, stopping at the first one the engine refuses."""
        try:
            with gc_paused_keeping():  # (as `step`)
                done = self.line.run(cycles, self.options, self.lifecycle)
        except CycleRefused as err:
            self._refused(err)
            return err.done
        if done:
            self.errors.pop("simulate", None)
        return done

    def run_until(self, until: Until, max_cycles: int) -> tuple[list[Step], str | None]:
        """Run cycles until one meets `until` (then stop there) or `max_cycles` ran; (cycles run, why it stopped:
        the met condition's sentence, or None when it never was)."""
        try:
            with gc_paused_keeping():  # (as `step`)
                done, why = self.line.run_until(until, max_cycles, self.options, self.lifecycle)
        except CycleRefused as err:
            self._refused(err)
            return err.done, None
        if done:
            self.errors.pop("simulate", None)
        return done, why

    def edits_dropped_by_rewind(self, cycle: int) -> list[EditEntry]:
        """The edits a rewind to after `cycle` would undo (for the page to ask before rewinding)."""
        return self.line.edits_dropped_by_rewind(cycle)

    def rewind(self, cycle: int) -> None:
        """Go back to the state right after `cycle` (0 = before the first cycle); later cycles are dropped, and
        so are the edits made after the next cycle (`undo` brings all of them back)."""
        if self.line.rewind(cycle):
            self._after_time_travel()

    def step_at(self, cycle: int) -> Step | None:
        return self.line.step_at(cycle)

    def cluster_after(self, cycle: int) -> Cluster:
        """The cluster as it was after `cycle` (0: the loaded scenario)."""
        return self.line.cluster_after(cycle)

    # ---- numbers ----------------------------------------------------------------------------
    def queue_numbers(self) -> QueueNumbers:
        """The queue plugin's per-queue numbers for the current cluster, as a new session opens them (the
        timeline's, kept for the state and options they were asked for)."""
        return self.line.queue_numbers(self.options)

    def share_history(self) -> list[tuple[int, QueueNumbers]]:
        """(cycle, queue numbers at the end of that cycle) for every cycle run."""
        return self.line.share_history()


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
            with st.spinner(f"Reading the decisions of cycle {step.cycle} …"), gc_paused_keeping():
                step.records  # noqa: B018 - builds and keeps them on the step (frozen: see Workspace.step)
        except DecisionsDiffer as err:
            return Problem(f"cycle {err.cycle}", "decision records", err.message)
    return None


def get_workspace() -> Workspace:
    """Return this session's workspace, creating it on first use."""
    if WORKSPACE_KEY not in st.session_state:
        st.session_state[WORKSPACE_KEY] = new_workspace()
    return st.session_state[WORKSPACE_KEY]
