"""allocate's noFit record for a task no node fits: the kube-scheduler style summary and every node's
error as text, without building one FitError per node where NodeFit already knows the answer.

`fit_report(errors, total)` returns exactly `(fit_summary(errors, total), {node: str(error)})`. For
NodeFit's FitErrors, the nodes that fail on FutureIdle ("Insufficient cpu, ...") are grouped by the set
of dimensions that failed, so each distinct sentence is built once; the other nodes (a predicate's
error) are asked one by one, as before. The texts of the first kind are joined only when the
mapping is first read (`LazyTexts`): a trace keeps them, and most are never read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from capacity.accel.nodefit import FitErrors, LazyMapping


def fit_report(errors: Mapping[str, Any], total: int) -> tuple[str, Mapping[str, str]]:
    counts: dict[str, int] = {}
    if isinstance(errors, FitErrors) and len(errors.failures.names) < 63:
        texts = _fit_errors_texts(errors, counts)
    else:
        texts = {}
        for name, e in errors.items():
            for r in e.reasons:
                counts[r] = counts.get(r, 0) + 1
            texts[name] = str(e)
    return summary(counts, total), texts


def summary(counts: dict[str, int], total: int) -> str:
    """'0/3 nodes are available: 2 Insufficient cpu, 1 node selector' (allocate.fit_summary)."""
    parts = ", ".join(f"{n} {r}" for r, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))
    return f"0/{total} nodes are available: {parts}" if parts else f"0/{total} nodes are available"


class LazyTexts(LazyMapping):
    """A {node: text} mapping built by `make` when first read; then it reads as that dict."""

    __slots__ = ("_make", "_dict")

    def __init__(self, make: Callable[[], dict[str, str]]) -> None:
        self._make: Callable[[], dict[str, str]] | None = make
        self._dict: dict[str, str] | None = None

    def _get(self) -> dict[str, str]:
        d = self._dict
        if d is None:
            assert self._make is not None
            d = self._dict = self._make()
            self._make = None
        return d

    def __repr__(self) -> str:
        return repr(self._get())


def _fit_errors_texts(errors: FitErrors, counts: dict[str, int]) -> Mapping[str, str]:
    names = errors.fit.names
    failing = np.flatnonzero(errors.failing)
    short = ~errors.fits[failing]  # FutureIdle too small: FitFailures' "Insufficient ..." reasons
    dims = errors.failures.names
    dim_ok = errors.failures.dim_ok[:, failing[short]]
    codes = ((~dim_ok).astype(np.int64) << np.arange(len(dims), dtype=np.int64)[:, None]).sum(axis=0)
    uniq, inverse, n_of = np.unique(codes, return_inverse=True, return_counts=True)
    suffix = []
    for code, n in zip(uniq.tolist(), n_of.tolist(), strict=True):
        reasons = [f"Insufficient {d}" for j, d in enumerate(dims) if code >> j & 1]
        for r in reasons:
            counts[r] = counts.get(r, 0) + n
        suffix.append(": " + ", ".join(reasons))
    other: dict[int, str] = {}  # a predicate's error: asked now, while the session is as it failed
    for i in failing[~short].tolist():
        e = errors._error(i)
        for r in e.reasons:
            counts[r] = counts.get(r, 0) + 1
        other[i] = str(e)

    def make() -> dict[str, str]:
        texts: dict[str, str] = {}
        k = 0
        inv = inverse.tolist()
        for i, is_short in zip(failing.tolist(), short.tolist(), strict=True):
            if is_short:
                texts[names[i]] = names[i] + suffix[inv[k]]
                k += 1
            else:
                texts[names[i]] = other[i]
        return texts

    return LazyTexts(make)
