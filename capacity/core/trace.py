"""Decision records, written by the code that decides.

Plugins explain a verdict with `Trace.because(...)` right before returning it; the session's
combinator that asked them then files the verdict together with that reason (`Trace.vote`). Actions
file their own outcomes (bind, pipeline, evict, skip). So the explanation and the decision come from
one place and cannot drift apart. With tracing off every call is a cheap no-op.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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


_TEXT: Any = Reason.__dict__["text"]  # Reason.text's slot (a member descriptor): where a LazyReason keeps its sentence


class LazyReason(Reason):
    """A Reason whose sentence is made from its numbers when first read (then kept), not when filed.

    For reasons filed by the thousand of which a page shows a few (enqueue's fit at every level of every job):
    the numbers are taken when the decision is made (`values`, and whatever `args` holds, never a live
    Resource that changes later), the formatting is left to whoever reads `text`. Reads, prints and compares
    as the Reason it stands for.
    """

    __slots__ = ("_make", "_args")

    def __init__(self, plugin: str, rule: str, make: Callable[..., str], args: tuple[Any, ...],
                 values: dict[str, Any], quirk: str = "") -> None:
        self.plugin = plugin
        self.rule = rule
        self.values = values
        self.quirk = quirk
        self._make: Callable[..., str] | None = make
        self._args = args

    @property
    def text(self) -> str:
        try:
            return _TEXT.__get__(self, Reason)
        except AttributeError:  # not made yet
            make = self._make
            assert make is not None
            text = make(*self._args)
            _TEXT.__set__(self, text)
            self._make, self._args = None, ()
            return text

    @text.setter
    def text(self, value: str) -> None:
        _TEXT.__set__(self, value)

    def is_made(self) -> bool:
        """Whether the sentence has been made (read) yet: for tests that pin the laziness."""
        return self._make is None

    def __repr__(self) -> str:
        return "Reason" + Reason.__repr__(self)[len("LazyReason"):]

    def __reduce__(self) -> tuple[Any, ...]:  # pickled and copied as the Reason it stands for, made
        return Reason, (self.plugin, self.rule, self.text, self.values, self.quirk)

    def __eq__(self, other: object) -> bool:  # the dataclass's __eq__ wants the same class on both sides
        if not isinstance(other, Reason):
            return NotImplemented
        return (self.plugin, self.rule, self.text, self.values, self.quirk) == (
            other.plugin, other.rule, other.text, other.values, other.quirk)

    __hash__ = None  # type: ignore[assignment]  # like Reason


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

    def because_made(self, plugin: str, rule: str, make: Callable[..., str], args: tuple[Any, ...],
                     **values: Any) -> None:
        """`because` with the sentence made by `make(*args)` only when first read (LazyReason): `args` and
        `values` hold the numbers as they are now."""
        if self.enabled:
            self._pending.append(LazyReason(plugin, rule, make, args, values))

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
