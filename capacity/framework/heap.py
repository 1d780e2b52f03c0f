"""Volcano's util.PriorityQueue: Go's container/heap over a `less` function, ported exactly.

Python's heapq sifts differently, so items with equal keys, or keys that changed while an item sat
in the heap (queue shares after an eviction), would pop in another order than in Volcano (spec
actions-framework §6.1, trap 29).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class PriorityQueue(Generic[T]):
    """Pop returns the element that sorts first under `less`."""

    __slots__ = ("items", "less")

    def __init__(self, less: Callable[[T, T], bool], items: Iterable[T] = ()) -> None:
        self.items: list[T] = []
        self.less = less
        for it in items:
            self.push(it)

    def __len__(self) -> int:
        return len(self.items)

    def empty(self) -> bool:
        return not self.items

    def push(self, item: T) -> None:
        h = self.items
        h.append(item)
        less = self.less
        j = len(h) - 1
        while j > 0:
            i = (j - 1) // 2
            if not less(h[j], h[i]):
                break
            h[i], h[j] = h[j], h[i]
            j = i

    def pop(self) -> T:
        h = self.items
        n = len(h) - 1
        h[0], h[n] = h[n], h[0]
        less = self.less
        i = 0
        while True:
            j1 = 2 * i + 1
            if j1 >= n:
                break
            j = j1
            j2 = j1 + 1
            if j2 < n and less(h[j2], h[j1]):
                j = j2
            if not less(h[j], h[i]):
                break
            h[i], h[j] = h[j], h[i]
            i = j
        return h.pop()

    def push_pop(self, item: T) -> T:
        """`push(item)`, then `pop()` (the interface of a queue heap: CapacityQueueHeap does both in one step)."""
        self.push(item)
        return self.pop()

    def clone(self) -> PriorityQueue[T]:
        q: PriorityQueue[T] = PriorityQueue(self.less)
        q.items = list(self.items)
        return q


class KeyedQueue(Generic[T]):
    """A PriorityQueue for an order given by a key (`less(l, r)` iff key(l) < key(r)) that never ties and
    that no item's key changes while it is in the queue (allocate's and enqueue's job heaps: a job's order
    key moves only with its own tasks, and those move only while it is out of its heap).

    Go's heap then holds its invariant, so every pop is the least item in it, whatever the layout: so
    this pops the least (key, item) pair of a list sorted at the first pop (one C sort instead of some
    ten comparisons per pop, each reading two jobs' keys from far apart in memory); items pushed after
    that go in at their place. There is no `items` to read: the layout is not Go's. Each pop checks that
    the item's key is still the one it was pushed with, and refuses if not: Go's answer would then depend
    on the layout.
    """

    __slots__ = ("_entries", "_sorted", "_head", "key")

    def __init__(self, key: Callable[[T], Any]) -> None:
        self._entries: list[tuple[Any, T]] = []
        self._sorted = False
        self._head = 0  # once sorted, the entries before this one are popped (one index step, no list shift)
        self.key = key

    def __len__(self) -> int:
        return len(self._entries) - self._head

    def empty(self) -> bool:
        return len(self._entries) == self._head

    def push(self, item: T) -> None:
        entry = (self.key(item), item)
        if self._sorted:
            insort(self._entries, entry, lo=self._head, key=_first)
        else:
            self._entries.append(entry)

    def pop(self) -> T:
        entries = self._entries
        if not self._sorted:
            # By key alone: keys never tie, so this is the order of the pairs, and a comparison of two
            # pairs would compare their keys twice (equal? then less?).
            entries.sort(key=_first)
            self._sorted = True
        head = self._head
        key, item = entries[head]
        entries[head] = None  # type: ignore[call-overload]  # (let the popped item go)
        self._head = head + 1
        if self.key(item) != key:
            raise RuntimeError(f"the order of {item!r} changed while it was in a KeyedQueue")
        return item


_first = itemgetter(0)


def memoized(less: Callable[[T, T], bool]) -> Callable[[T, T], bool]:
    """`less` answering each ordered pair of items once, from then on from memory.

    For a heap whose order cannot change while it is in use (enqueue's queues: queue orders read
    shares, which only allocations move): Go's heap then makes the same comparisons with the same
    answers, so items pop in the same order. Items are told apart by their `name`, which must be unique
    among them (queues). Worth it only where the same pairs meet again and again.
    """
    memo: dict[tuple[str, str], bool] = {}

    def cached(l: T, r: T) -> bool:
        key = (l.name, r.name)  # type: ignore[attr-defined]
        got = memo.get(key)
        if got is None:
            got = memo[key] = less(l, r)
        return got

    return cached
