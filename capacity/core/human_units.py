"""Quantities for reading at any size: cores and Gi rather than "627570m" or "3906250Ki".

`capacity.core.quantity.format_resource_value` writes an amount back the way the input wrote it (an exact
Kubernetes quantity: what an export or an edit form needs). Tables, treemaps and hover texts are read, not
applied: there a queue's deserved cpu of 627570m reads "627.57" (cores) and 4G of memory reads "4G" or
"3.73Gi". Small amounts stay exact ("500m", "512Mi"); unlimited reads "∞". Amounts are internal units (cpu
milli-cores, memory bytes, scalars milli-units), as in `capacity.core.resources.to_dict`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from capacity.core.quantity import DECIMAL, format_resource_value, format_resources
from capacity.core.resources import SCALAR_INFINITY

_BINARY = (("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))
_DECIMAL = (("P", 10**15), ("T", 10**12), ("G", 10**9), ("M", 10**6), ("k", 10**3))


def _short(x: float) -> str:
    """At most 2 decimals, no trailing zeros, never an exponent: 627.5700 -> "627.57", 4.0 -> "4"."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _bytes(amount: float, style: str | None) -> str:
    family = _DECIMAL if style == DECIMAL else _BINARY
    for suffix, size in family:
        if abs(amount) >= size:
            return f"{_short(amount / size)}{suffix}"
    return _short(amount)


def human_value(name: str, amount: float, styles: Mapping[str, str] | None = None) -> str:
    """One dimension of a resource, for reading: cpu in cores from 1 core up, bytes in the largest suffix
    of the input's family (Gi unless it wrote G), at most 2 decimals. Below those it is the exact quantity."""
    if amount >= SCALAR_INFINITY:
        return "∞"
    if not math.isfinite(amount):
        return format_resource_value(name, amount, styles)
    style = styles.get(name) if styles else None
    if name == "cpu":
        return _short(amount / 1000) if abs(amount) >= 1000 else format_resource_value(name, amount, styles)
    if name == "memory":
        return _bytes(amount, style) if abs(amount) >= 2**20 else format_resource_value(name, amount, styles)
    if name == "ephemeral-storage" or name.startswith("hugepages-"):
        size = amount / 1000
        return _bytes(size, style) if abs(size) >= 2**20 else format_resource_value(name, amount, styles)
    if name == "pods":
        return _short(amount)
    return _short(amount / 1000)  # GPUs and other scalars: milli-units, read as whole cards


def human_describe(values: Mapping[str, float] | None, *, skip: Iterable[str] = ("pods",),
                   styles: Mapping[str, str] | None = None, unset: Iterable[str] = (), unset_text: str = "") -> str:
    """`cpu 627.57, memory 2.4Ti, nvidia.com/gpu 12`: a resource dict for reading (`format_resources` with
    `human_value`). `unset`: resources whose 0 means "not set", written `unset_text`."""
    return format_resources(values, styles, skip=skip, unset=unset, unset_text=unset_text, empty="-",
                            value=human_value)
