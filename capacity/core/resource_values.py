"""A Resource as plain JSON values, for exports, traces, answers and pages (no counterpart in Volcano).

Kept apart from ``resources.py`` so that module holds only what ``pkg/scheduler/api/resource_info.go`` holds;
``capacity.core.resources.to_dict`` stays importable from there.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from capacity.core.resources import Resource

__all__ = ["to_dict"]


def to_dict(r: Resource) -> dict[str, float | int]:
    """JSON-friendly internal values: ``{"cpu": milli, "memory": bytes, <scalar>: value}``.

    Integral values become ints for readability; the absent/empty map distinction is not kept.
    """
    if not r.scalars and r.cpu == 0.0 and r.memory == 0.0:
        return {"cpu": 0, "memory": 0}  # the usual empty resource, without the conversions
    out: dict[str, float | int] = {"cpu": _plain(r.cpu), "memory": _plain(r.memory)}
    if r.scalars:
        for k, v in r.scalars.items():
            out[k] = _plain(v)
    return out


_EXACT_INT = float(2**53)


def _plain(x: float) -> float | int:
    if x.__class__ is float:  # the usual case, in one test: is_integer() is False for inf and NaN
        return int(x) if x.is_integer() and -_EXACT_INT < x < _EXACT_INT else x
    return int(x) if math.isfinite(x) and x == int(x) and abs(x) < 2**53 else x
