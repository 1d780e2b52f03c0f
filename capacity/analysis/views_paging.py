"""Server-side paging, searching and summarising of long lists, so a page sends a screenful, not a cluster.

At openb scale (1,523 nodes, 8,152 pods, 221 queues, ~93,000 decision records a cycle) a table of
everything is tens of MB for the browser and tens of thousands of pixels tall. The pages show one page of
rows, lists summarised with counts (binds per queue), and the queue tree a few levels deep or around what
was searched; these helpers do the work on the server. Plain Python: no Streamlit, tested without a browser.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

#: Rows per page of a table: a screenful or two, a few kB for the browser.
PAGE_SIZE = 50


@dataclass(frozen=True)
class Page:
    """One page of a longer list: its rows, which page it is (1-based) of how many, and where it starts."""

    rows: list[Any]
    number: int
    pages: int
    total: int
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.rows)

    def caption(self, noun: str = "rows") -> str:
        """"rows 51-100 of 8,152 (page 2 of 164)", or "3 rows" when they fit on one page."""
        if self.pages <= 1:
            return f"{self.total:,} {noun.removesuffix('s') if self.total == 1 else noun}"
        return (f"{noun} {self.start + 1:,}-{self.end:,} of {self.total:,} "
                f"(page {self.number:,} of {self.pages:,})")


def paginate(rows: Sequence[T], number: int, size: int = PAGE_SIZE) -> Page:
    """Page `number` (1-based, clamped into range) of `rows`, `size` rows a page."""
    size = max(1, int(size))
    total = len(rows)
    pages = max(1, -(-total // size))
    number = min(max(1, int(number)), pages)
    start = (number - 1) * size
    return Page(list(rows[start:start + size]), number, pages, total, start)


def contains(text: str) -> Callable[[str], bool]:
    """A case-insensitive substring test for a search box; an empty box matches everything."""
    needle = text.strip().casefold()
    return (lambda s: True) if not needle else (lambda s: needle in s.casefold())


def search_rows(rows: Iterable[Mapping[str, Any]], text: str, fields: Sequence[str]) -> list[Mapping[str, Any]]:
    """Rows where any of `fields` contains `text` (case-insensitive); all rows for an empty `text`."""
    match = contains(text)
    if not text.strip():
        return list(rows)
    return [r for r in rows if any(match(str(r.get(f, ""))) for f in fields)]


def counts_by(rows: Iterable[Mapping[str, Any]], field: str, label: str = "") -> list[dict[str, Any]]:
    """How many rows per value of `field`, most first (ties by name): a long list in a few lines."""
    counted = Counter(str(r.get(field, "")) for r in rows)
    name = label or field
    return [{name: k, "count": n} for k, n in sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))]


# ---- the queue tree, a few levels at a time ---------------------------------------------------------


def _parent(name: str, queues: Mapping[str, Mapping[str, Any]]) -> str:
    parent = str(queues[name].get("parent") or "")
    return parent if parent in queues and parent != name else ""


def queue_depths(queues: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """Each queue's depth under its root (root 0), following `parent`; a cycle is cut where it closes."""
    depth: dict[str, int] = {}
    for name in queues:
        chain: list[str] = []
        cur = name
        while cur and cur not in depth and cur not in chain:
            chain.append(cur)
            cur = _parent(cur, queues)
        base = depth.get(cur, -1) if cur and cur not in chain else -1
        for i, q in enumerate(reversed(chain)):
            depth[q] = base + 1 + i
    return depth


@dataclass(frozen=True)
class TreeView:
    """The part of the queue tree to draw: the queues kept, and per kept queue how many below it are hidden."""

    queues: dict[str, Mapping[str, Any]]
    hidden: dict[str, int]
    levels: int  # deepest level in the whole tree + 1

    @property
    def hidden_total(self) -> int:
        return sum(self.hidden.values())


def tree_view(queues: Mapping[str, Mapping[str, Any]], levels: int, query: str = "") -> TreeView:
    """The queues down to `levels` levels (1 = the roots only), or with a `query` every queue whose name
    contains it with its ancestors (and its children, so a match shows what it holds). `hidden` counts the
    descendants of each kept queue that are not kept, for a "(+12 below)" mark."""
    depth = queue_depths(queues)
    if query.strip():
        match = contains(query)
        hits = [n for n in queues if match(n)]
        kept: set[str] = set()
        for n in hits:
            cur = n
            while cur and cur not in kept:
                kept.add(cur)
                cur = _parent(cur, queues)
        kept |= {n for n in queues if _parent(n, queues) in hits}
    else:
        kept = {n for n in queues if depth[n] < max(1, levels)}
    below: Counter[str] = Counter()
    for n in queues:
        if n in kept:
            continue
        cur = _parent(n, queues)
        while cur and cur not in kept:
            cur = _parent(cur, queues)
        if cur:
            below[cur] += 1
    view = {n: queues[n] for n in queues if n in kept}
    return TreeView(view, {n: below[n] for n in view if below[n]}, max(depth.values(), default=-1) + 1)


def top_queues(history: Iterable[tuple[int, Mapping[str, Mapping[str, Any]]]], n: int, query: str = "") -> list[str]:
    """The `n` queues to draw in the share history: those whose share went highest (furthest above deserved),
    among the names containing `query`; ties by name."""
    match = contains(query)
    best: dict[str, float] = {}
    for _, numbers in history:
        for name, q in numbers.items():
            if match(name):
                share = float(q.get("share", 0.0))
                best[name] = max(best.get(name, share), share)
    return sorted(best, key=lambda q: (-best[q], q))[:max(0, n)]
