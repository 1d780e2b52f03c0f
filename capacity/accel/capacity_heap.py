"""allocate's queue heap with capacity's queue order compiled (kernels.queue_heap_loops).

At the openb scale allocate pops and pushes its queue heap once per job (8,000 times a cycle over 200
queues), some 15 comparisons each: in Python the heap's sifts and `CapacityPlugin.queue_less` were a
tenth of the cycle. This heap makes the same sifts and the same comparisons as
`PriorityQueue(queue_less(tie))` (a tree's shares read live, stale heap and all), on queue positions and
per-queue arrays, in numba.

The one thing the arrays do not follow by themselves is the shares. Allocate allocates only for the
queue it popped, so between that pop and the push that brings the queue back only the shares of that
queue and its ancestors move: `push` copies those before sifting. `verify` (tests) checks every share
before every pop and push instead of trusting that.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from capacity.accel import kernels

if TYPE_CHECKING:
    from capacity.core.model import QueueSpec
    from capacity.framework.session import Session


class CapacityPlugin(Protocol):
    """What the heap reads of the capacity plugin (capacity.plugins.capacity.CapacityPlugin), named here so
    that this module needs no import of it."""

    ssn: Session
    attrs: dict[str, Any]
    hierarchy: bool
    best_effort_share: float

MIN_QUEUES = 64
"""Fewer queues keep the Python heap: there a cycle's heap costs less than loading the compiled one."""

MIN_POPS = 512
"""Fewer pops to come keep the Python heap: setting this one up (its tables, the tie-break's order) costs
some 0.7 ms at 200 queues, about what 150 compiled pops save; a replay's cycles mostly place a few jobs."""

_INT64 = (-(2**63), 2**63 - 1)


class CapacityQueueHeap:
    """PriorityQueue(plugin.queue_less(tie)) over the session's queues, for allocate (see the module)."""

    verify = False  # tests: check the share mirror against every attribute before every operation

    def __init__(self, plugin: CapacityPlugin, queues: list[QueueSpec], tie: Callable[[Any, Any], bool],
                 loops: Any) -> None:
        self._pop, self._push, _less, self._push_pop = loops
        self._queues = queues
        pos = self._pos = {q.name: i for i, q in enumerate(queues)}
        n = len(queues)
        attrs = plugin.attrs
        self._attrs = [attrs.get(q.name) for q in queues]
        depth = max((len(a.ancestors) for a in self._attrs if a is not None), default=0)
        self.hier = bool(plugin.hierarchy)
        def by_tie(i: int, j: int) -> int:
            return -1 if tie(queues[i], queues[j]) else 1 if tie(queues[j], queues[i]) else 0

        order = sorted(range(n), key=cmp_to_key(by_tie))
        deserved_first = plugin.best_effort_share == 1.0  # (no tie-break of equal shares before PR #4865)
        rank = [0] * n
        for k, i in enumerate(order):
            rank[i] = k
        # kernels.QUEUE_META, then the ancestors' positions
        self.meta = np.zeros((n, len(kernels.QUEUE_META) + max(depth, 1)), dtype=np.int64)
        for i, (q, a) in enumerate(zip(queues, self._attrs, strict=True)):
            anc = [pos[x.name] for x in a.ancestors] if a is not None else []
            self.meta[i, :len(kernels.QUEUE_META) + len(anc)] = [
                q.priority, a is not None, a is not None and not a.children,
                a is not None and a.deserved.is_empty() and deserved_first, rank[i], len(anc), *anc]
        self.share = np.array([a.share if a is not None else 0.0 for a in self._attrs], dtype=np.float64)
        # Per position: (position, attribute) of the queue and its ancestors, whose shares a push copies.
        self._path = [[(i, a), *((pos[x.name], x) for x in a.ancestors)] if a is not None else []
                      for i, a in enumerate(self._attrs)]
        self._h = np.zeros(n, dtype=np.int64)
        self._n = 0
        self._args = (self.hier, self.meta, self.share)

    @classmethod
    def make(cls, plugin: CapacityPlugin, tie: Callable[[Any, Any], bool], pops: int) -> CapacityQueueHeap | None:
        """The heap for this session's queues, or None where the Python heap is the one to use (few queues
        or pops to come, no numba, a priority outside int64, an ancestor outside the session's queues)."""
        queues = list(plugin.ssn.queues.values())
        if len(queues) < MIN_QUEUES or pops < MIN_POPS:
            return None
        if any(not _INT64[0] <= q.priority <= _INT64[1] for q in queues):
            return None
        names = {q.name for q in queues}
        if any(x.name not in names for a in plugin.attrs.values() for x in a.ancestors):
            return None
        loops = kernels.queue_heap_loops()
        if loops is None:
            return None
        return cls(plugin, queues, tie, loops)

    def __len__(self) -> int:
        return self._n

    def empty(self) -> bool:
        return self._n == 0

    def push(self, queue: QueueSpec) -> None:
        i = self._take_shares(queue)
        self._push(self._h, self._n, i, *self._args)
        self._n += 1

    def push_pop(self, queue: QueueSpec) -> QueueSpec:
        """`push(queue)` then `pop()`, the same sifts in one compiled call (nothing moves a share between)."""
        i = self._take_shares(queue)
        return self._queues[self._push_pop(self._h, self._n, i, *self._args)]

    def _take_shares(self, queue: QueueSpec) -> int:
        """The queue's position, once the shares of it and its ancestors are copied in (see the module)."""
        i = self._pos[queue.name]
        share = self.share
        for p, attr in self._path[i]:
            share[p] = attr.share
        if self.verify:
            self._check()
        return i

    def pop(self) -> QueueSpec:
        if self.verify:
            self._check()
        i = self._pop(self._h, self._n, *self._args)
        self._n -= 1
        return self._queues[i]

    def _check(self) -> None:
        for i, a in enumerate(self._attrs):
            if a is not None and self.share[i] != a.share and not np.isnan(a.share):
                raise AssertionError(f"queue {a.name}: share {a.share} moved outside its pop and push "
                                     f"(the heap has {self.share[i]})")
