"""Compiled per-node loops (numba) for allocate's placements, where plain Python costs most at scale.

At the openb scale a cycle brings some 600k (kind of task, node) answers up to date, one node at a time
after each bind: candidate (FutureIdle fit and the predicates), then the nodeorder score and whether the
node fits Idle. numpy's per-call overhead dominates on a few nodes and the interpreter on many, so the
usual plugin set (predicates' static filters and pod count, nodeorder's lean LeastAllocated +
BalancedAllocation) has its loop compiled here: the same comparisons and the same arithmetic, in the same
order, as `Placement.update_nodes` with `NodeOrderPlugin._node_score_lean` (integers where Python uses
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

MIN_NODES = 64
"""Smaller NodeLists keep the Python and numpy paths: there a whole cycle costs less than importing numba
and loading the compiled loop (about 0.4 s, once per process), which CLI runs on small clusters and the
dashboard's first step would otherwise pay."""

NEAR_WHOLE = 1e-9
"""A three-fraction BalancedAllocation value closer than this to a whole number is answered again in
Python (the same bound as the numpy path, NodeOrderPlugin._balanced_vector)."""


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


_UNSET: Any = object()
_loop: Any = _UNSET


def lean_loop() -> Any:
    """The compiled `_update_lean`, made at the first call of a process; None without numba."""
    global _loop
    if _loop is _UNSET:
        _loop = None
        if not os.environ.get("CAPACITY_LAB_NO_JIT"):
            try:
                from numba import njit
            except ImportError:  # pragma: no cover - numba is in requirements.txt
                pass
            else:
                _loop = njit(cache=True, nogil=True)(_update_lean)
    return _loop
