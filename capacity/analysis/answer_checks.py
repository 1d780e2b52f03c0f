"""From trace records to Checks: one plain sentence per step, with the numbers the deciding code recorded.

Nothing is computed here beyond formatting: the numbers are the values a plugin filed with its reason
(`Reason.values`) or an action with its outcome (`Record.detail`), shown in the user's units.
"""

from __future__ import annotations

import re
from typing import Any

from capacity.analysis.answer_model import Check, Figure
from capacity.core.glossary import words
from capacity.core.quantity import format_number, format_resource_value
from capacity.core.trace import Reason, Record

#: Known layouts of a reason's per-dimension numbers: the keys and how they combine in the check.
_TEMPLATES: list[tuple[tuple[str, ...], str]] = [
    (("minResources", "allocated", "inqueue", "elastic", "realCapability"),
     "minResources {minResources} + allocated {allocated} + inqueue {inqueue} - elastic {elastic} > "
     "realCapability {realCapability}"),
    (("inqueue", "minResources", "idle"), "inqueue {inqueue} + minResources {minResources} > idle {idle}"),
    (("allocated", "request", "realCapability"), "allocated {allocated} + request {request} > "
                                                  "realCapability {realCapability}"),
    (("allocated", "request", "deserved"), "allocated {allocated} + request {request} > deserved {deserved}"),
]
# A sentence that already shows its numbers: a sum or comparison, or a resource name followed by an amount.
RATIOS = ("factor", "share", "weight")  # per-dimension values that are plain numbers, not quantities
_HAS_SUM = re.compile(r"\d\s*[-+<>=]|[-+<>=]\s*\d|\b(?:cpu|memory|pods|[\w.-]+/[\w.-]+) \d")


Styles = dict[str, str] | None  # the units the input wrote per resource (Cluster.unit_styles)


def shown(dim: str, v: Any, styles: Styles = None) -> str:
    """A recorded value in the user's units (strings, already formatted by the recorder, pass through)."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return str(v)
    return format_resource_value(dim, float(v), styles)


def _per_dim(values: dict[str, Any]) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The dimensions a reason's values speak of, and its dict-valued entries (name -> {dim: value})."""
    dicts = {k: v for k, v in values.items() if isinstance(v, dict) and v
             and all(isinstance(x, int | float) for x in v.values())}
    dims = [str(d) for d in values.get("dimensions") or []]
    for d in dicts.values():
        dims.extend(k for k in d if k not in dims)
    return dims, dicts


def figures_of(reason: Reason, styles: Styles = None) -> list[Figure]:
    """Every number a reason carries, named after its queue (if any), key and dimension."""
    values = reason.values or {}
    owner = str(values.get("queue") or "")
    dims, dicts = _per_dim(values)
    out: list[Figure] = []
    for key, per in dicts.items():
        for dim in dims:
            if dim in per:
                text = format_number(float(per[dim])) if key in RATIOS else shown(dim, per[dim], styles)
                out.append(Figure(" ".join(x for x in (owner, key, dim) if x), text, float(per[dim])))
    for key, v in values.items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            out.append(Figure(key, format_number(float(v)), float(v)))
    return out


def numbers_phrase(reason: Reason, styles: Styles = None) -> str:
    """'cpu: minResources 3 + allocated 1 + inqueue 0 - elastic 1 > realCapability 2' from a reason's values."""
    values = reason.values or {}
    dims, dicts = _per_dim(values)
    if not dicts:
        return ""
    parts = []
    for dim in dims:
        have = {k: format_number(float(d[dim])) if k in RATIOS else shown(dim, d[dim], styles)
                for k, d in dicts.items() if dim in d}
        template = next((t for keys, t in _TEMPLATES if set(keys) <= set(have)), None)
        if template is not None:  # with the sum and the overshoot, where the reason filed them (`totals`)
            left, right = template.format(**have).split(" > ", 1)
            total = f" = {have['total']}" if "total" in have else ""
            over = f" ({have['over']} over)" if "over" in have else ""
            parts.append(f"{dim}: {left}{total} > {right}{over}")
        else:
            parts.append(f"{dim}: " + ", ".join(f"{k} {v}" for k, v in have.items()))
    return "; ".join(parts)


def reason_text(reason: Reason, styles: Styles = None) -> str:
    """The reason's sentence, with its recorded numbers added when the sentence does not show them."""
    text = reason.text
    phrase = numbers_phrase(reason, styles)
    if phrase and not _HAS_SUM.search(text):
        return f"{text} ({phrase})"
    return text


def vote_check(rec: Record, outcome: str, name: str = "", styles: Styles = None) -> Check:
    """One plugin's vote: its reason (or, without one, what it answered)."""
    reasons = list(rec.reasons)
    verdict = {True: "passes", False: "refuses", "Permit": "permits", "Reject": "rejects",
               "Abstain": "abstains"}.get(rec.verdict, str(rec.verdict)) if isinstance(rec.verdict, bool | str) \
        else str(rec.verdict)
    text = "; ".join(reason_text(r, styles) for r in reasons) if reasons else f"{rec.plugin} {verdict}"
    figures = [f for r in reasons for f in figures_of(r, styles)]
    return Check(rec.action, name or f"{rec.plugin}: {words(rec.kind)}", outcome, text, rec.plugin, figures,
                 rec.cycle)


def event_check(rec: Record, outcome: str, text: str, name: str = "") -> Check:
    return Check(rec.action, name or words(rec.kind), outcome, text, rec.plugin, [], rec.cycle)


def node_list(nodes: list[Any], shown_max: int = 3) -> str:
    """'n1', 'n1 and n2', 'n1, n2, n3 and 5 more nodes'."""
    names = [str(n) for n in nodes]
    if len(names) <= shown_max:
        return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return f"{', '.join(names[:shown_max])} and {len(names) - shown_max} more nodes"


def pods_list(keys: list[Any], shown_max: int = 6) -> str:
    names = [str(k) for k in keys]
    if len(names) <= shown_max:
        return ", ".join(names) or "none"
    return f"{', '.join(names[:shown_max])} and {len(names) - shown_max} more"


def reasons_figures(reasons: Any, styles: Styles = None) -> list[Figure]:
    """The figures of every reason a check's sentence quotes, each once."""
    out: list[Figure] = []
    seen: set[tuple[str, str]] = set()
    for r in reasons:
        if r is None:
            continue
        for f in figures_of(r, styles):
            if (f.name, f.shown) not in seen:
                seen.add((f.name, f.shown))
                out.append(f)
    return out


def change_figures(recs: Any, styles: Styles = None) -> list[Figure]:
    """The numbers of queueChange records (Record.detail, as the action filed them): what the pod asks, and
    each queue's allocated and share before and after."""
    out: list[Figure] = []
    for rec in recs:
        for dim, v in (rec.detail.get("request") or {}).items():
            out.append(Figure(f"{rec.subject} requests {dim}", shown(dim, v, styles), float(v)))
        for name, q in (rec.detail.get("queues") or {}).items():
            for when in ("Before", "After"):
                for dim, v in (q.get(f"allocated{when}") or {}).items():
                    out.append(Figure(f"{name} allocated {dim} {when.lower()}", shown(dim, v, styles), float(v)))
                share = q.get(f"share{when}")
                if isinstance(share, int | float):
                    out.append(Figure(f"{name} share {when.lower()}", f"{share:.4g}", float(share)))
    return out


def round_figures(rec: Record, styles: Styles = None) -> list[Figure]:
    """The numbers of one proportionRound record (Record.detail): what was left before and after the round,
    and per queue its offer, clips and deserved after the round."""
    d = rec.detail
    out: list[Figure] = []
    for key in ("remaining", "remainingAfter"):
        for dim, v in (d.get(key) or {}).items():
            out.append(Figure(f"{rec.subject} {key} {dim}", shown(dim, v, styles), float(v)))
    for name, q in (d.get("queues") or {}).items():
        for key in ("offered", "clippedByRealCapability", "clippedByRequest", "raisedToGuarantee", "deserved"):
            for dim, v in (q.get(key) or {}).items():
                if isinstance(v, int | float):
                    out.append(Figure(f"{name} {key} in {rec.subject} {dim}", shown(dim, v, styles), float(v)))
    return out
