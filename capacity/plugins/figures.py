"""The numbers in the queue plugins' sentences, and the per-queue figures they decide with.

Reasons name the figures a rule compared ("cpu 3 + 2 > 4"), in the units the input wrote
(Cluster.unit_styles). A `queueFigures` record, filed at session open when tracing, shows each queue's
capability beside its realCapability, deserved, guarantee, allocated, inqueue, elastic and share, and how
each was derived; the derivations read the same attributes and inputs the build used. Nothing here runs
untraced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from capacity.core.quantity import format_resource_value, format_resources
from capacity.core.resources import MAX_FLOAT, SCALAR_INFINITY, Resource, to_dict

UNSET = "unset (no limit)"

# The share of a capacity queue without deserved: capacity.go:1817-1837 @ed72c7c8 (updateQueueAttrShare).
BEST_EFFORT_SHARE = ("1, because the queue has no deserved: capacity treats it as best-effort and sets its "
                     "share to 1 whatever it uses, so it is ordered after every queue below its deserved")


def value_of(r: Resource, name: str) -> float:
    """One dimension of `r` (cpu, memory or a scalar, 0 when absent)."""
    if name == "cpu":
        return r.cpu
    if name == "memory":
        return r.memory
    return (r.scalars or {}).get(name, 0.0)


def names_of(*rs: Resource, pods: bool = True) -> list[str]:
    """cpu, memory, then every scalar key of `rs` in first-seen order (pods left out unless `pods`)."""
    names = ["cpu", "memory"]
    for r in rs:
        for k in r.scalars or {}:
            if k not in names and (pods or k != "pods"):
                names.append(k)
    return names


def requested(req: Resource) -> list[str]:
    """The dimensions a request asks for (> 0), pods left out: those LessEqualWithDimension checks."""
    names = [n for n, v in (("cpu", req.cpu), ("memory", req.memory)) if v > 0]
    names.extend(k for k, v in (req.scalars or {}).items() if k != "pods" and v > 0)
    return names


def amount(name: str, v: float, styles: Mapping[str, str] | None) -> str:
    return format_resource_value(name, v, styles)


def amounts(r: Resource, names: Iterable[str], styles: Mapping[str, str] | None) -> str:
    """"cpu 4, memory 8Gi" for `names` of `r`."""
    return format_resources({n: value_of(r, n) for n in names}, styles)


def sums(terms: list[tuple[str, Resource]], limit: Resource, names: Iterable[str], op: str,
         styles: Mapping[str, str] | None) -> str:
    """"cpu 3 + 2 = 5 > 4 (1 over), memory ..." per dimension: `terms` are (sign, resource), the first sign
    ignored; the total, and for ">" by how much it is over, are the `totals` a reason files beside it."""
    out = []
    names = list(names)
    got = totals(terms, limit, names, op)
    for n in names:
        parts = []
        for i, (sign, r) in enumerate(terms):
            text = amount(n, value_of(r, n), styles)
            parts.append(text if i == 0 else f"{sign} {text}")
        total = amount(n, got["total"][n], styles)
        text = f"{n} {' '.join(parts)} = {total} {op} {amount(n, value_of(limit, n), styles)}"
        if n in got["over"]:
            text += f" ({amount(n, got['over'][n], styles)} over)"
        out.append(text)
    return ", ".join(out)


def totals(terms: list[tuple[str, Resource]], limit: Resource, names: Iterable[str],
           op: str = ">") -> dict[str, Any]:
    """The sum of `terms` per dimension ("total") and, where it is above `limit`, by how much ("over"): the
    figures behind a `sums` sentence, for the reason's values (traced only)."""
    total: dict[str, float] = {}
    over: dict[str, float] = {}
    for n in names:
        t = 0.0
        for sign, r in terms:
            t = t - value_of(r, n) if sign == "-" else t + value_of(r, n)
        total[n] = t
        if op == ">" and t > value_of(limit, n):
            over[n] = t - value_of(limit, n)
    return {"total": total, "over": over}


def tasks_text(tasks: list[Any], styles: Mapping[str, str] | None) -> str:
    """"a-1 (cpu 1), a-2 (cpu 1, memory 1Gi)": earlier victims with what each frees."""
    return ", ".join(f"{t.key} ({amounts(t.resreq, requested(t.resreq), styles)})" for t in tasks)


def limits(r: Resource, names: Iterable[str]) -> dict[str, Any]:
    """A capability as the record shows it: each dimension's value, or UNSET where none was set."""
    out: dict[str, Any] = {}
    for n in names:
        v = value_of(r, n)
        out[n] = UNSET if v >= MAX_FLOAT or (n not in ("cpu", "memory") and v >= SCALAR_INFINITY) else v
    return out


def share_text(attr: Any, best_effort_rule: bool, styles: Mapping[str, str] | None) -> str:
    """How a queue's share comes out of allocated / deserved (updateQueueAttrShare)."""
    d = attr.deserved
    if d.is_empty():
        if best_effort_rule:
            return BEST_EFFORT_SHARE
        return "0, because the queue has no deserved (proportion has no best-effort rule: an empty deserved gives 0)"
    parts = [f"{n} {amount(n, value_of(attr.allocated, n), styles)} / {amount(n, value_of(d, n), styles)} = "
             f"{_ratio(value_of(attr.allocated, n) / value_of(d, n))}" for n in d.resource_names()]
    return f"{_ratio(attr.share)}, the largest of allocated / deserved: {'; '.join(parts)}"


def _ratio(x: float) -> str:
    return f"{x:.4g}"


def figures(attr: Any, styles: Mapping[str, str] | None) -> dict[str, Any]:
    """The figures every queueFigures record carries (internal units, as CycleResult.queues)."""
    return {"realCapability": to_dict(attr.real_capability), "deserved": to_dict(attr.deserved),
            "guarantee": to_dict(attr.guarantee), "allocated": to_dict(attr.allocated),
            "inqueue": to_dict(attr.inqueue), "elastic": to_dict(attr.elastic), "request": to_dict(attr.request),
            "share": attr.share}


def figure_values(attr: Any, capability: Mapping[str, Any]) -> dict[str, Any]:
    """The numbers a queueFigures sentence states, as its reason's values (the set capabilities only)."""
    out: dict[str, Any] = {k: to_dict(getattr(attr, a)) for k, a in (
        ("capability", "capability"), ("realCapability", "real_capability"), ("deserved", "deserved"),
        ("guarantee", "guarantee"), ("allocated", "allocated"), ("inqueue", "inqueue"), ("elastic", "elastic"))}
    out["capability"] = {n: v for n, v in capability.items() if isinstance(v, int | float)}
    return out


def capability_text(spec: Resource | None, attr: Any, names: list[str], styles: Mapping[str, str] | None,
                    inherited: Mapping[str, str] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """The capability per dimension (UNSET where none applies) and how it came about. `spec`: the queue's
    spec.capability (None: not set); `inherited`: per dimension, how a hierarchical queue got it."""
    shown: dict[str, Any] = {}
    how: dict[str, str] = {}
    have = attr.capability
    for n in names:
        v = value_of(have, n)
        scalar = n not in ("cpu", "memory")
        none = (spec is None and not inherited) or v >= MAX_FLOAT or (scalar and (
            v >= SCALAR_INFINITY or n not in (have.scalars or {})))
        shown[n] = UNSET if none else v
        set_to = None if spec is None or (scalar and n not in (spec.scalars or {})) else value_of(spec, n)
        if inherited and n in inherited:
            how[n] = inherited[n]
        elif set_to is None or (not scalar and set_to <= 0 and none):
            how[n] = "not set (0 or absent reads as no limit)" if set_to is not None else "not set: no limit"
        else:
            how[n] = f"set to {amount(n, set_to, styles)}"
    return shown, how


def _or_none(r: Resource, styles: Mapping[str, str] | None) -> str:
    names = [n for n in names_of(r, pods=False) if value_of(r, n)]
    return amounts(r, names, styles) if names else "none"


def limit_amount(name: str, v: float, styles: Mapping[str, str] | None) -> str:
    """A limit's value, "no limit" where Volcano holds its unlimited value (MaxFloat64, MaxInt64)."""
    return amount(name, v, styles) if limited(name, v) else "no limit"


def limited(name: str, v: float) -> bool:
    """Whether a limit's value is a limit: not Volcano's unlimited value (MaxFloat64, MaxInt64)."""
    return not (v >= MAX_FLOAT or (name not in ("cpu", "memory") and v >= SCALAR_INFINITY))


def summary(name: str, shown_cap: Mapping[str, Any], cap_how: Mapping[str, str], real_how: Mapping[str, str],
            deserved_how: str, attr: Any, share_how: str, styles: Mapping[str, str] | None) -> str:
    """The record's sentence: every figure beside the others."""
    caps = []
    for n, v in shown_cap.items():
        text = f"{n} {v if isinstance(v, str) else amount(n, v, styles)}"
        how = cap_how.get(n, "")
        if how.startswith("inherited"):
            text += f" ({how.split(':')[0]})"
        caps.append(text)
    real = "; ".join(f"{n} {limit_amount(n, value_of(attr.real_capability, n), styles)} ({how})"
                     for n, how in real_how.items())
    dims = names_of(attr.deserved, attr.allocated, pods=False)
    return (f"queue {name}: capability {', '.join(caps)}; realCapability {real}; deserved "
            f"{amounts(attr.deserved, dims, styles)} ({deserved_how}); guarantee "
            f"{_or_none(attr.guarantee, styles)}; allocated "
            f"{amounts(attr.allocated, dims, styles)}; inqueue {amounts(attr.inqueue, dims, styles)}; elastic "
            f"{amounts(attr.elastic, dims, styles)}; share {share_how}")


def queue_numbers(ssn: Any, queue: str) -> tuple[str, Resource, float, Resource] | None:
    """(plugin, allocated, share, deserved) of a queue as the first queue plugin in tier order holds them
    now, for the before/after view of an eviction; None when no plugin has the queue."""
    queue_plugins = ssn.fns.get("queueOrder", {})  # (the plugins that registered a queue order)
    for plugin in ssn.plugins.values():
        attrs = getattr(plugin, "attrs", None)
        if isinstance(attrs, dict) and plugin.name in queue_plugins:
            attr = attrs.get(queue)
            if attr is not None and all(hasattr(attr, f) for f in ("allocated", "share", "deserved")):
                return plugin.name, attr.allocated.clone(), attr.share, attr.deserved
    return None


def deserved_how(spec: Resource | None, attr: Any, names: list[str], styles: Mapping[str, str] | None,
                 clipped: bool = True) -> str:
    """How a capacity queue's deserved came from spec.deserved: as set, clipped to realCapability (flat
    mode only: `clipped`), raised to its guarantee (capacity.go:1150-1159, 1487-1556)."""
    parts = []
    for n in names:
        scalar = n not in ("cpu", "memory")
        set_to = None if spec is None or (scalar and n not in (spec.scalars or {})) else value_of(spec, n)
        d, g, r = value_of(attr.deserved, n), value_of(attr.guarantee, n), value_of(attr.real_capability, n)
        if set_to is None or (set_to == 0 and not scalar):
            if d and d == g:
                parts.append(f"{n} not set, raised to its guarantee {amount(n, g, styles)}")
            continue
        if d == set_to:
            parts.append(f"{n} as set")
        elif clipped and d < set_to and d == r:
            parts.append(f"{n} set to {amount(n, set_to, styles)}, clipped to its realCapability "
                         f"{amount(n, r, styles)}")
        elif d == g and d > set_to:
            parts.append(f"{n} set to {amount(n, set_to, styles)}, raised to its guarantee {amount(n, g, styles)}")
        else:
            parts.append(f"{n} set to {amount(n, set_to, styles)}, now {amount(n, d, styles)}")
    return "; ".join(parts) or "not set: the queue is best-effort"
