"""nodeorder's scores for many nodes at once, from NodeFit's tables (capacity.accel.nodefit): the
NodeVector form of NodeOrderPlugin.score (capacity.plugins.nodeorder), the same integer and float steps.

Registered through Session.add_fast (capacity.accel.plugin_forms) when the engine has node_fit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from capacity.accel.session import AcceleratedSession

from collections.abc import Callable

import numpy as np

from capacity.accel.nodefit import NodeFit
from capacity.core.model import Task
from capacity.plugins.nodeorder import (
    GPU,
    NodeOrderPlugin,
    _nonzero,
    balanced_allocation,
    least_requested,
    most_requested,
)

SMALL = 24
"""Up to this many nodes, scoring in plain Python beats numpy's per-call overhead."""


class NodeOrderVector:
    """NodeOrderPlugin.score for every node at once (`score_vector`) or as a function of a NodeList
    position (`node_score`), for one session's plugin (its weights, its session's NodeFit)."""

    def __init__(self, plugin: NodeOrderPlugin) -> None:
        self.ssn: AcceleratedSession = cast("AcceleratedSession", plugin.ssn)
        self.least_weight = plugin.least_weight
        self.most_weight = plugin.most_weight
        self.balanced_weight = plugin.balanced_weight
        self._st: _Statics | None = None

    def score_vector(self, task: Task, idx: np.ndarray) -> np.ndarray | None:
        """`score` for the nodes at NodeList positions idx, from NodeFit's mirror sums, with the same
        integer and float steps; None (use `score`) unless every quantity is a modest integer."""
        fit = self.ssn.node_fit()
        if fit is None or not fit.exact:
            return None
        st = self._statics(fit)
        if len(idx) <= SMALL:
            return self._score_python(task, fit, st, idx)
        if st.cpu_mem_everywhere and not self.most_weight:
            return self._score_lean(task, fit, st, idx)
        total = np.zeros(len(idx))
        if self.least_weight or self.most_weight:
            cpu, mem = _nonzero(task)
            alloc = st.alloc2[:, idx]
            req = fit.nonzero[:, idx] + np.array([[cpu], [mem]])
            present = st.present2[:, idx]
            whole = st.whole2[:, idx]
            weight = 50 * present.sum(axis=0)
            if self.least_weight:
                free = alloc - req  # exact: integers below 2^44
                use = present & (free >= 0)
                part = np.where(use, free.astype(np.int64) * 100 // whole, 0)
                total += _per_weight(50 * part.sum(axis=0), weight) * self.least_weight
            if self.most_weight:
                part = np.where(present, np.minimum(req, alloc).astype(np.int64) * 100 // whole, 0)
                total += _per_weight(50 * part.sum(axis=0), weight) * self.most_weight
        if self.balanced_weight:
            total += self._balanced_vector(task, fit, st, idx) * self.balanced_weight
        return total

    def node_score(self, task: Task) -> Callable[[int], float] | None:
        """`score_vector` for one NodeList position, as a function of it: `score`'s arithmetic (that of
        least_requested, most_requested and balanced_allocation, inlined expression for expression) on
        NodeFit's per-node Python values. None unless every quantity is a modest integer."""
        fit = self.ssn.node_fit()
        if fit is None or not fit.exact:
            return None
        st = self._statics(fit)
        r = task.resreq
        cpu, mem = _nonzero(task)
        lw, mw, bw = self.least_weight, self.most_weight, self.balanced_weight
        ac, am, ag = st.alloc_lists
        sums = fit.sums
        rc, rm, rg = r.cpu, r.memory, r.get(GPU)
        if rc == 0 and rm == 0 and rg == 0:
            bw = 0  # balanced_allocation is 0
        use_gpu = rg != 0
        if lw and bw and not mw and st.cpu_mem_everywhere:
            lean = self._node_score_lean(st, sums, cpu, mem, rc, rm, rg, lw, bw)
            # What the compiled loop (capacity.accel.kernels.lean_loop) reads to compute the same scores.
            lean.kernel_args = (fit.mirror_sums, st.alloc_raw, st.whole2, cpu, mem, rc, rm, rg, lw, bw)  # type: ignore[attr-defined]
            return lean

        def score(i: int) -> float:
            nzc, nzm, uc, um, ug = sums[i]
            a_c = ac[i]
            a_m = am[i]
            total = 0.0
            if lw:
                req_c = cpu + nzc
                req_m = mem + nzm
                sc = w = 0
                if a_c > 0:
                    w = 50
                    if req_c <= a_c:
                        sc = 50 * (int(a_c - req_c) * 100 // int(a_c))
                if a_m > 0:
                    w += 50
                    if req_m <= a_m:
                        sc += 50 * (int(a_m - req_m) * 100 // int(a_m))
                total += (sc // w if w else 0) * lw
            if mw:
                total += most_requested(a_c, cpu + nzc, a_m, mem + nzm) * mw
            if bw:
                fractions = []
                if a_c > 0:
                    u = (uc + rc) / a_c
                    fractions.append(u if u < 1.0 else 1.0)  # min(1.0, u), NaN included
                if a_m > 0:
                    u = (um + rm) / a_m
                    fractions.append(u if u < 1.0 else 1.0)
                if use_gpu and ag[i] > 0:
                    u = (ug + rg) / ag[i]
                    fractions.append(u if u < 1.0 else 1.0)
                n = len(fractions)
                if n == 2:
                    std = abs(fractions[0] - fractions[1]) / 2
                elif n == 3:
                    f0, f1, f2 = fractions
                    mean = sum(fractions) / 3
                    std = (sum(((f0 - mean) ** 2, (f1 - mean) ** 2, (f2 - mean) ** 2)) / 3) ** 0.5
                else:
                    std = 0.0
                total += int((1 - std) * 100) * bw
            return total

        return score

    @staticmethod
    def _node_score_lean(st: _Statics, sums: list[tuple[float, float, float, float, float]], cpu: float,
                         mem: float, rc: float, rm: float, rg: float, lw: int, bw: int) -> Callable[[int], float]:
        """`node_score`'s function when every node has cpu and memory (LeastAllocated's weight is then
        100, BalancedAllocation has its cpu and memory fractions), both weights are on and MostAllocated
        is off: the same expressions in the same order, the branches that cannot be taken left out."""
        ac, am, ag = st.alloc_lists
        wc, wm = st.whole_lists

        if rg != 0:
            def score_gpu(i: int) -> float:
                nzc, nzm, uc, um, ug = sums[i]
                a_c = ac[i]
                a_m = am[i]
                req_c = cpu + nzc
                req_m = mem + nzm
                sc = 50 * (int(a_c - req_c) * 100 // wc[i]) if req_c <= a_c else 0
                if req_m <= a_m:
                    sc += 50 * (int(a_m - req_m) * 100 // wm[i])
                total = 0.0 + (sc // 100) * lw
                u = (uc + rc) / a_c
                f0 = u if u < 1.0 else 1.0
                u = (um + rm) / a_m
                f1 = u if u < 1.0 else 1.0
                a_g = ag[i]
                if a_g > 0:
                    u = (ug + rg) / a_g
                    f2 = u if u < 1.0 else 1.0
                    mean = sum((f0, f1, f2)) / 3
                    std = (sum(((f0 - mean) ** 2, (f1 - mean) ** 2, (f2 - mean) ** 2)) / 3) ** 0.5
                else:
                    std = abs(f0 - f1) / 2
                total += int((1 - std) * 100) * bw
                return total

            return score_gpu

        def score(i: int) -> float:
            nzc, nzm, uc, um, _ug = sums[i]
            a_c = ac[i]
            a_m = am[i]
            req_c = cpu + nzc
            req_m = mem + nzm
            sc = 50 * (int(a_c - req_c) * 100 // wc[i]) if req_c <= a_c else 0
            if req_m <= a_m:
                sc += 50 * (int(a_m - req_m) * 100 // wm[i])
            total = 0.0 + (sc // 100) * lw
            u = (uc + rc) / a_c
            f0 = u if u < 1.0 else 1.0
            u = (um + rm) / a_m
            f1 = u if u < 1.0 else 1.0
            total += int((1 - abs(f0 - f1) / 2) * 100) * bw
            return total

        return score

    def _statics(self, fit: NodeFit) -> _Statics:
        st = self._st
        if st is None or st.alloc is not fit.alloc:
            st = self._st = fit.shared(("nodeorder.statics", tuple(fit.dims)), lambda: _Statics(fit))
        return st

    def _score_lean(self, task: Task, fit: NodeFit, st: _Statics, idx: np.ndarray) -> np.ndarray:
        """`score_vector` when every node has cpu and memory (both weights of LeastAllocated count, both
        fractions of BalancedAllocation exist) and MostAllocated is off: the same steps, fewer arrays."""
        r = task.resreq
        sums = fit.mirror_sums[:, idx]  # nonzero cpu, nonzero memory, cpu, memory, GPU
        alloc = st.alloc_raw[:, idx]  # cpu, memory, GPU
        total = np.zeros(len(idx))
        if self.least_weight:
            cpu, mem = _nonzero(task)
            free = alloc[:2] - (sums[:2] + np.array([[cpu], [mem]]))  # exact: integers below 2^44
            part = np.where(free >= 0, free.astype(np.int64) * 100 // st.whole2[:, idx], 0)
            total += (50 * (part[0] + part[1])) // 100 * self.least_weight
        if self.balanced_weight:
            req_gpu = r.get(GPU)
            if r.cpu == 0 and r.memory == 0 and req_gpu == 0:
                return total
            if req_gpu == 0:
                used = sums[2:4] + np.array([[r.cpu], [r.memory]])
                frac = np.minimum(1.0, used / alloc[:2])
                value = (1 - np.abs(frac[0] - frac[1]) / 2) * 100
                total += value.astype(np.int64) * self.balanced_weight
                return total
            # Three fractions where the node has GPUs, cpu and memory elsewhere (_balanced_vector's steps).
            used = sums[2:] + np.array([[r.cpu], [r.memory], [req_gpu]])
            if (alloc[2] > 0).all():  # the usual case: only GPU nodes fit a GPU request
                frac = np.minimum(1.0, used / alloc)
                f0, f1, f2 = frac
                mean = (f0 + f1 + f2) / 3
                d0, d1, d2 = f0 - mean, f1 - mean, f2 - mean
                value = (1 - np.sqrt((d0 * d0 + d1 * d1 + d2 * d2) / 3)) * 100
                out = value.astype(np.int64)
                for k in np.flatnonzero(np.abs(value - np.rint(value)) < 1e-9).tolist():  # see _balanced_vector
                    out[k] = _balanced3(*frac[:, k].tolist())
                total += out * self.balanced_weight
                return total
            frac = np.minimum(1.0, used / st.alloc3[:, idx])
            std = np.abs(frac[0] - frac[1]) / 2
            three = np.flatnonzero(alloc[2] > 0)
            if len(three):
                f3 = frac[:, three]
                mean = (f3[0] + f3[1] + f3[2]) / 3
                dev = f3 - mean
                std[three] = np.sqrt((dev[0] * dev[0] + dev[1] * dev[1] + dev[2] * dev[2]) / 3)
            value = (1 - std) * 100
            out = value.astype(np.int64)
            if len(three):
                near = three[np.abs(value[three] - np.rint(value[three])) < 1e-9]  # see _balanced_vector
                for k in near.tolist():
                    out[k] = _balanced3(*frac[:, k].tolist())
            total += out * self.balanced_weight
        return total

    def _balanced_vector(self, task: Task, fit: NodeFit, st: _Statics, idx: np.ndarray) -> np.ndarray:
        r = task.resreq
        req_gpu = r.get(GPU)
        if r.cpu == 0 and r.memory == 0 and req_gpu == 0:
            return np.zeros(len(idx), dtype=np.int64)
        used = fit.requested[:, idx] + np.array([[r.cpu], [r.memory], [req_gpu]])  # Σ mirror, then the task
        frac = np.minimum(1.0, used / st.alloc3[:, idx])
        present = st.present3[:, idx]
        if req_gpu == 0:
            present[2] = False
        fc, fm, fg = frac
        pc, pm, pg = present
        count = present.sum(axis=0)
        if st.cpu_mem_everywhere:
            std = np.abs(fc - fm) / 2
        else:
            std = np.abs(np.where(pc, fc, fm) - np.where(pc & pm, fm, fg)) / 2
        std[count < 2] = 0.0
        three = np.flatnonzero(count == 3)
        if len(three):
            f3 = frac[:, three]
            mean = (f3[0] + f3[1] + f3[2]) / 3
            dev = f3 - mean
            std[three] = np.sqrt((dev[0] * dev[0] + dev[1] * dev[1] + dev[2] * dev[2]) / 3)
        value = (1 - std) * 100
        out = value.astype(np.int64)
        if len(three):
            # Python's `** 2` and `** 0.5` may differ from x*x and sqrt in the last bit; only a value that
            # close to a whole number could truncate differently: redo those with the reference formula.
            near = three[np.abs(value[three] - np.rint(value[three])) < 1e-9]
            for k in near.tolist():
                out[k] = _balanced3(*frac[:, k].tolist())
        return out

    def _score_python(self, task: Task, fit: NodeFit, st: _Statics, idx: np.ndarray) -> np.ndarray:
        """`score` for a few nodes, from NodeFit's sums with the reference's own scalar formulas."""
        r = task.resreq
        cpu, mem = _nonzero(task)
        lw, mw, bw = self.least_weight, self.most_weight, self.balanced_weight
        ac, am, ag = st.alloc_raw[:, idx].tolist()
        nzc, nzm = fit.nonzero[:, idx].tolist()
        uc, um, ug = fit.requested[:, idx].tolist()
        rc, rm, rg = r.cpu, r.memory, r.get(GPU)
        out = []
        for k in range(len(ac)):
            total = 0.0
            if lw:
                total += least_requested(ac[k], cpu + nzc[k], am[k], mem + nzm[k]) * lw
            if mw:
                total += most_requested(ac[k], cpu + nzc[k], am[k], mem + nzm[k]) * mw
            if bw:
                total += balanced_allocation(r, ac[k], uc[k] + rc, am[k], um[k] + rm, ag[k], ug[k] + rg) * bw
            out.append(total)
        return np.array(out, dtype=float)


class _Statics:
    """Node constants for the vectorised scores: derived from the allocatable table alone, so shared by
    every NodeFit on the same NodeList and dimensions (NodeFit.shared). Read-only."""

    def __init__(self, fit: NodeFit) -> None:
        self.alloc = fit.alloc
        gpu_row = fit.col.get(GPU, -1)
        alloc = self.alloc_raw = fit.alloc[[0, 1, gpu_row]]
        self.alloc_lists: list[list[float]] = alloc.tolist()
        # int(allocatable) of cpu and memory per node, for the per-node LeastAllocated (0 where absent).
        self.whole_lists: list[list[int]] = [[int(v) if v > 0 else 0 for v in row] for row in self.alloc_lists[:2]]
        self.present3 = alloc > 0
        self.alloc3 = np.where(self.present3, alloc, 1.0)
        self.alloc2 = fit.alloc[[0, 1]]
        self.present2 = self.present3[:2]
        self.whole2 = self.alloc3[:2].astype(np.int64)  # int(allocatable): integral, so exact
        self.cpu_mem_everywhere = bool(self.present2.all())
        for a in (self.alloc_raw, self.present3, self.alloc3, self.alloc2, self.whole2):
            a.flags.writeable = False


def _per_weight(score: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """`score // weight if weight else 0`."""
    return np.where(weight > 0, score // np.maximum(weight, 1), 0)


def _balanced3(fc: float, fm: float, fg: float) -> int:
    """BalancedAllocation with three fractions, exactly as `balanced` computes it."""
    fractions = [fc, fm, fg]
    mean = sum(fractions) / len(fractions)
    std = (sum((f - mean) ** 2 for f in fractions) / len(fractions)) ** 0.5
    return int((1 - std) * 100)
