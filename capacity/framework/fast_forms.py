"""The plugins' accelerated forms: what a plugin offers beside its Volcano functions, through one channel,
`Session.add_fast(point, plugin, form)` (issue 28).

Each form answers exactly as the plugin's function at `point` (registered with `Session.add_fn`) would, or
bounds it; the Session uses a form only where its engine's Acceleration allows that kind (`Acceleration`
field in brackets). The plugins' own files register Volcano's functions only; their forms live in
capacity.accel (plugin_forms.py says which plugin offers which) and are attached at session open. This module is
the channel's vocabulary, so it sits with the framework: the reference engine declares it and hands no form on.

    OrderKey         the order function as a key                          (order_keys)
    OrderLess        the order and the tie-break after it as one `less`   (order_keys)
    OrderHeap        the plugin's own heap for allocate                   (order_keys)
    OrderFn          the order function with what a session fixes kept    (order_keys)
    PossibleVictims  a bound on the victims reclaimable/preemptable name  (victim_bounds)
    NodeVector       the predicate / nodeOrder function over every node   (node_fit)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from capacity.core.model import Task

Less = Callable[[Any, Any], bool]
"""An order's `less`: True when l comes first."""

PossibleFn = Callable[["Task"], tuple[Any, ...]]
"""A plugin's victim bound maker: preemptor -> (key, test) or (key, test, vector)."""


@dataclass(frozen=True, slots=True)
class OrderKey:
    """The plugin's order function at the point as a key: fn(l, r) < 0 iff key(l) < key(r), and 0 iff
    equal. When every enabled plugin of the point has one, the heaps compare one tuple per item
    (Session.job_key)."""

    key: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class OrderLess:
    """The plugin's order and the tie-break after it as one `less`: make(tie) answers as the plugin's
    function then `tie` would. Used when it is the point's only enabled plugin."""

    make: Callable[[Less], Less]


@dataclass(frozen=True, slots=True)
class OrderHeap:
    """The plugin's own heap for allocate: make(tie, pops) answers an empty heap that pops as
    PriorityQueue over the plugin's order then `tie` would, or None (then that PriorityQueue is used);
    `pops`: about how many pops are to come. Used when it is the point's only enabled plugin."""

    make: Callable[[Less, int], Any]


@dataclass(frozen=True, slots=True)
class OrderFn:
    """The plugin's order function at the point, answering as the one it registered with add_fn, with what
    does not change within a session kept (capacity's pairs of queues): the Session calls it instead."""

    fn: Callable[[Any, Any], int]


@dataclass(frozen=True, slots=True)
class PossibleVictims:
    """A bound on the plugin's `point` ("reclaimable" / "preemptable") function, for skipping nodes.

    `possible(preemptor)` returns `(key, test)`, or `(key, test, vector)` where `vector(table, rows)`
    answers `test` for the rows (positions) of a VictimTable all at once. `test(t)` False promises that
    in the session's current state the plugin, asked about any candidate list, does not name `t` among
    preemptor's victims (so it answers empty if it allows no candidate), and that it never abstains.
    `key` (hashable, or None for "do not reuse") names everything the answers depend on besides the
    session state: callers may reuse them across preemptors with equal keys until the next allocate /
    deallocate event (Session.version)."""

    possible: PossibleFn


@dataclass(frozen=True, slots=True)
class NodeVector:
    """The plugin's whole-NodeList form of its `point` ("predicate" / "nodeOrder") function.

    `fn`: for "predicate" fn(task, among, idx) -> PredicateVector, for "nodeOrder" fn(task, idx) -> scores
    (or None: ask the per-node function). `key(task)`, if given, promises that the plugin's answer for a
    node depends only on that node's own state and on what the key (a hashable, or None for "no such
    promise for this task") names, besides the task's requests: answers are then reused across tasks until
    the node changes. `node_fn(task)`, if given, returns the vector form's answer for one NodeList position
    as a plain Python function of that position (or None when it has none for this task): `passed[i]` for
    "predicate", the score for "nodeOrder". It reads the NodeFit as it is when called, like the vector form,
    and stays good for the session and for every task with the same `placement_key`."""

    fn: Callable[..., Any]
    key: Callable[[Task], Any] | None = None
    node_fn: Callable[[Task], Callable[[int], Any] | None] | None = None


FastForm = OrderKey | OrderLess | OrderHeap | OrderFn | PossibleVictims | NodeVector
"""What `Session.add_fast` takes."""
