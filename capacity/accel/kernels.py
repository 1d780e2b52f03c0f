"""Compiled per-node loops (numba) for allocate's placements, where plain Python costs most at scale.

At the openb scale a cycle brings some 600k (kind of task, node) answers up to date, one node at a time
after each bind: candidate (FutureIdle fit and the predicates), then the nodeorder score and whether the
node fits Idle. numpy's per-call overhead dominates on a few nodes and the interpreter on many, so the
usual plugin set (predicates' static filters and pod count, nodeorder's lean LeastAllocated +
BalancedAllocation) has its loop compiled here: the same comparisons and the same arithmetic, in the same
order, as `Placement.update_nodes` with `NodeOrderVector._node_score_lean` (integers where Python uses
integers, IEEE doubles elsewhere, no fast-math). The one step that may differ in the last bit,
BalancedAllocation's `** 2` and `** 0.5` over three fractions, is flagged when its value lies that close
to a whole number, and the caller answers those nodes again in Python.

Only NodeLists of MIN_NODES nodes or more use it: numba is imported, and the loop compiled or loaded from
its cache, at the first such NodeList of a process. Without numba (or with CAPACITY_LAB_NO_JIT=1)
`lean_loop()` is None and the Python paths run; tests compare both ways (tests/unit/test_kernels.py).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from capacity.accel import engine

MIN_NODES = 64
"""Smaller NodeLists keep the Python and numpy paths: there a whole cycle costs less than importing numba
and loading the compiled loop (about 0.4 s, once per process), which CLI runs on small clusters and the
dashboard's first step would otherwise pay."""

NEAR_WHOLE = 1e-9
"""A three-fraction BalancedAllocation value closer than this to a whole number is answered again in
Python (the same bound as the numpy path, NodeOrderVector._balanced_vector)."""


def _update_lean(idx: Any, rk: Any, rv: Any, fi: Any, idle: Any, ok: Any, pods: Any, max_tasks: Any,
                 sums: Any, alloc: Any, whole: Any, cpu: float, mem: float, rc: float, rm: float, rg: float,
                 lw: int, bw: int, neg_eps: float, cand: Any, s1: Any, s2: Any, flagged: Any) -> int:
    """Placement.update_nodes for the NodeList positions idx: request rows rk (values rv) against the
    FutureIdle table fi and the Idle table idle; predicates: ok[i] and pods[i] < max_tasks[i]; score:
    _node_score_lean on the mirror sums (nonzero cpu, nonzero memory, cpu, memory, GPU per node), the
    allocatable rows (cpu, memory, GPU) and int(allocatable) of cpu and memory. Writes cand, s1, s2;
    returns how many positions it put in `flagged` for Python to answer again."""
    nflag = 0
    ninf = -np.inf
    for j in range(idx.shape[0]):
        i = idx[j]
        fits = True
        for q in range(rk.shape[0]):
            if not fi[rk[q], i] - rv[q] > neg_eps:
                fits = False
                break
        if not fits or not ok[i] or not pods[i] < max_tasks[i]:
            cand[i] = False
            s1[i] = ninf
            s2[i] = ninf
            continue
        a_c = alloc[0, i]
        a_m = alloc[1, i]
        req_c = cpu + sums[0, i]
        req_m = mem + sums[1, i]
        sc = 0
        if req_c <= a_c:
            sc = 50 * (np.int64(a_c - req_c) * 100 // whole[0, i])
        if req_m <= a_m:
            sc += 50 * (np.int64(a_m - req_m) * 100 // whole[1, i])
        total = 0.0 + (sc // 100) * lw
        u = (sums[2, i] + rc) / a_c
        f0 = u if u < 1.0 else 1.0
        u = (sums[3, i] + rm) / a_m
        f1 = u if u < 1.0 else 1.0
        a_g = alloc[2, i]
        if rg != 0 and a_g > 0:
            u = (sums[4, i] + rg) / a_g
            f2 = u if u < 1.0 else 1.0
            mean = (f0 + f1 + f2) / 3
            d0 = f0 - mean
            d1 = f1 - mean
            d2 = f2 - mean
            value = (1 - np.sqrt((d0 * d0 + d1 * d1 + d2 * d2) / 3)) * 100
            if abs(value - np.rint(value)) < NEAR_WHOLE:
                flagged[nflag] = i
                nflag += 1
            total += np.int64(value) * bw
        else:
            total += np.int64((1 - abs(f0 - f1) / 2) * 100) * bw
        score = 0.0 + total
        cand[i] = True
        fits = True
        for q in range(rk.shape[0]):
            if not idle[rk[q], i] - rv[q] > neg_eps:
                fits = False
                break
        if fits:
            s1[i] = score
            s2[i] = ninf
        else:
            s1[i] = ninf
            s2[i] = score
    return nflag


def _compiler() -> Any:
    """numba's compiler for this module's loops (cached on disk per checkout), or None: numba missing or
    CAPACITY_LAB_NO_JIT set, or an engine without it (capacity.accel)."""
    if os.environ.get("CAPACITY_LAB_NO_JIT") or not engine().jit:
        return None
    try:
        from numba import njit
    except ImportError:  # pragma: no cover - numba is in requirements.txt
        return None
    return lambda fn: njit(cache=True, nogil=True)(fn)


_made: dict[Any, Any] = {}  # per loop as written: the compiled one, or None


def _compiled(fn: Any) -> Any:
    """`fn` compiled, made at its first call in a process (loaded from the disk cache when there is one);
    None without numba."""
    if fn not in _made:
        jit = _compiler()
        _made[fn] = jit(fn) if jit is not None else None
    return _made[fn]


def lean_loop() -> Any:
    """The compiled `_update_lean`; None without numba."""
    return _compiled(_update_lean)


# ---- capacity's queue order, for allocate's queue heap ------------------------------------------------
# Queues are positions 0..n-1. Per position, the columns of `meta` (QUEUE_META): queue priority, whether
# capacity has an attribute for it, whether it is a leaf, whether its deserved is empty, its rank in the
# tie-break's order (creation, then name), how many ancestors it has, then their positions (root first);
# `share`: the attribute's share, kept current by the caller. `hier`: hierarchical queues.
QUEUE_META = ("priority", "has", "leaf", "dempty", "rank", "nanc")


def _queue_less(l: int, r: int, hier: bool, meta: Any, share: Any) -> bool:
    """CapacityPlugin.queue_less(tie): priority, then the share of the two queues (in a tree, of their
    ancestors just below the deepest common one), then deserved before best-effort, then the tie."""
    if meta[l, 0] != meta[r, 0]:
        return meta[l, 0] > meta[r, 0]
    if meta[l, 1] == 0 or meta[r, 1] == 0:
        return meta[l, 4] < meta[r, 4]
    la = l
    ra = r
    if hier:
        if meta[l, 2] != meta[r, 2]:
            return meta[l, 2] != 0
        if meta[l, 2] != 0:
            nl = meta[l, 5]
            nr = meta[r, 5]
            level = 0
            for i in range(min(nl, nr)):
                if meta[l, 6 + i] == meta[r, 6 + i]:
                    level = i
                else:
                    break
            if level + 1 < nl:
                la = meta[l, 7 + level]
            if level + 1 < nr:
                ra = meta[r, 7 + level]
    ls = share[la]
    rs = share[ra]
    if ls == rs:
        le = meta[la, 3] != 0
        re_ = meta[ra, 3] != 0
        if not le and re_:
            return True
        if le and not re_:
            return False
        return meta[l, 4] < meta[r, 4]
    return ls < rs


def _queue_pop(h: Any, n: int, hier: bool, meta: Any, share: Any) -> int:
    """Go's heap.Pop over the first n items of h (PriorityQueue.pop's sifts)."""
    m = n - 1
    t = h[0]
    h[0] = h[m]
    h[m] = t
    i = 0
    while True:
        j1 = 2 * i + 1
        if j1 >= m:
            break
        j = j1
        j2 = j1 + 1
        if j2 < m and _queue_less_compiled(h[j2], h[j1], hier, meta, share):
            j = j2
        if not _queue_less_compiled(h[j], h[i], hier, meta, share):
            break
        t = h[i]
        h[i] = h[j]
        h[j] = t
        i = j
    return h[m]


def _queue_push(h: Any, n: int, item: int, hier: bool, meta: Any, share: Any) -> None:
    """Go's heap.Push of item onto the first n items of h (PriorityQueue.push's sifts)."""
    h[n] = item
    j = n
    while j > 0:
        i = (j - 1) // 2
        if not _queue_less_compiled(h[j], h[i], hier, meta, share):
            break
        t = h[i]
        h[i] = h[j]
        h[j] = t
        j = i


def _queue_push_pop(h: Any, n: int, item: int, hier: bool, meta: Any, share: Any) -> int:
    """`_queue_push` of item onto the first n items of h, then `_queue_pop` of the n + 1: allocate's turn
    that puts its queue back, and the next turn's pop, in one call."""
    _queue_push_compiled(h, n, item, hier, meta, share)
    return _queue_pop_compiled(h, n + 1, hier, meta, share)


_queue_less_compiled: Any = _queue_less  # the compiled ones once queue_heap_loops() made them
_queue_pop_compiled: Any = _queue_pop
_queue_push_compiled: Any = _queue_push


def queue_heap_loops() -> Any:
    """(pop, push, less, push_pop) compiled; None without numba. Each is compiled after those it calls
    (`less`, then pop and push, then push_pop)."""
    global _queue_less_compiled, _queue_pop_compiled, _queue_push_compiled
    less = _compiled(_queue_less)
    if less is None:
        return None
    _queue_less_compiled = less
    _queue_pop_compiled = pop = _compiled(_queue_pop)
    _queue_push_compiled = push = _compiled(_queue_push)
    return pop, push, less, _compiled(_queue_push_pop)
