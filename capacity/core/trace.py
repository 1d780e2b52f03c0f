"""Decision records, written by the code that decides.

Plugins explain a verdict with `Trace.because(...)` right before returning it; the session's
combinator that asked them then files the verdict together with that reason (`Trace.vote`). Actions
file their own outcomes (bind, pipeline, evict, skip). So the explanation and the decision come from
one place and cannot drift apart. With tracing off every call is a cheap no-op.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Reason:
    """Why a plugin answered as it did: a sentence plus the numbers, for people and programs."""

    plugin: str
    rule: str
    text: str
    values: dict[str, Any] = field(default_factory=dict)
    quirk: str = ""

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"plugin": self.plugin, "rule": self.rule, "text": self.text}
        if self.values:
            d["values"] = self.values
        if self.quirk:
            d["quirk"] = self.quirk
        return d


@dataclass(slots=True)
class Record:
    """One decision step: an extension-point vote or an action outcome."""

    cycle: int
    action: str
    kind: str
    subject: str
    verdict: Any
    plugin: str = ""
    reasons: Sequence[Reason] = ()  # () when empty: one allocation less per record
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"cycle": self.cycle, "action": self.action, "kind": self.kind,
                             "subject": self.subject, "verdict": _jsonable(self.verdict)}
        if self.plugin:
            d["plugin"] = self.plugin
        if self.reasons:
            d["reasons"] = [r.as_dict() for r in self.reasons]
        if self.detail:
            d["detail"] = {k: _jsonable(v) for k, v in self.detail.items()}
        return d


class NodeNames(Sequence[str]):
    """The names at positions `idx` of a name list, made into a list only when read.

    For details naming many nodes (scoreTie's `tied`): a record keeps the positions, which the decision
    already has, instead of a list of names nobody may read. Reads as, and compares equal to, that list.
    """

    __slots__ = ("_names", "_idx", "_list")

    def __init__(self, names: Sequence[str], idx: Any) -> None:
        self._names = names
        self._idx = idx  # NodeList positions: a numpy integer array or a sequence of ints
        self._list: list[str] | None = None

    def as_list(self) -> list[str]:
        got = self._list
        if got is None:
            names = self._names
            idx = self._idx
            got = self._list = [names[i] for i in (idx.tolist() if hasattr(idx, "tolist") else idx)]
            self._names = self._idx = ()  # the list is all that is needed from now on
        return got

    def __len__(self) -> int:
        return len(self._list) if self._list is not None else len(self._idx)

    def __getitem__(self, i: Any) -> Any:
        return self.as_list()[i]

    def __iter__(self) -> Any:
        return iter(self.as_list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NodeNames):
            return self.as_list() == other.as_list()
        if isinstance(other, list | tuple):
            return self.as_list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # like the list it stands for

    def __repr__(self) -> str:
        return repr(self.as_list())


def _jsonable(v: Any) -> Any:
    if isinstance(v, bool | int | float | str) or v is None:
        return v
    if isinstance(v, dict | Mapping):  # Mapping: details read lazily (fit_report.LazyTexts)
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple | set | NodeNames):
        return [_jsonable(x) for x in v]
    return str(v)


class Trace:
    """Collects Records for all cycles of a run."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.records: list[Record] = []
        self.cycle = 0
        self.action = ""
        self._pending: list[Reason] = []

    def because(self, plugin: str, rule: str, text: str, quirk: str = "", **values: Any) -> None:
        """A plugin's reason for the verdict it is about to return."""
        if self.enabled:
            self._pending.append(Reason(plugin, rule, text, values, quirk))

    def again(self, reason: Reason) -> None:
        """`because` with a reason given before, filed again as the same object (a reason is never changed
        once given): for a verdict that repeats with the same sentence and numbers, task after task."""
        if self.enabled:
            self._pending.append(reason)

    def take(self) -> Sequence[Reason]:
        pending = self._pending
        if not pending:
            return ()
        self._pending = []
        return pending

    def vote(self, kind: str, subject: str, plugin: str, verdict: Any) -> None:
        """File an extension-point answer with the reasons the plugin gave for it."""
        if self.enabled:
            self.records.append(Record(self.cycle, self.action, kind, subject, verdict, plugin, self.take()))

    def event(self, kind: str, subject: str, verdict: Any = True, plugin: str = "", **detail: Any) -> None:
        """File an action outcome (bind, evict, pipeline, skip, phase ...) or a plugin's victim list."""
        if self.enabled:
            self.records.append(Record(self.cycle, self.action, kind, subject, verdict, plugin, self.take(), detail))

    def event_with(self, kind: str, subject: str, verdict: Any, detail: dict[str, Any]) -> None:
        """`event` with a detail dict the caller built for it (and gives away): no keyword round trip."""
        if self.enabled:
            self.records.append(Record(self.cycle, self.action, kind, subject, verdict, "", self.take(), detail))
