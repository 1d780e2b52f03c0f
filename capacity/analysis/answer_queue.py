"""A queue's Answer: its figures as the last cycle closed, its jobs and pods counted by outcome, the top
reasons with counts, and, for a queue with children, one line per child (capacity.analysis.answer)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from capacity.analysis.answer_build import notes_for, queue_path
from capacity.analysis.answer_chain import nodes_text
from capacity.analysis.answer_job import build_job
from capacity.analysis.answer_model import Answer, ExplainRun, Figure
from capacity.core.errors import InputError
from capacity.core.quantity import format_resource_value
from capacity.core.resources import to_dict

_BIG = 1e300  # Volcano's "unlimited" (MaxFloat64; MaxInt64 for scalars is above 9e18)
_UNLIMITED_SCALAR = 9e18
FIGURE_KEYS = ("deserved", "allocated", "capability", "realCapability", "guarantee")
UNSET = "unset (no limit)"
STOPPED = "capacity: readyToSchedule=false"  # the session note of a capacity build that stopped (capacity_tree)


def _unlimited(dim: str, v: float) -> bool:
    return v >= _BIG or (dim not in ("cpu", "memory") and v >= _UNLIMITED_SCALAR)


def _spec_dims(r: Any) -> set[str]:
    """The dimensions a queue's spec sets (a Resource, or None when the field is absent)."""
    if r is None:
        return set()
    dims = {n for n in ("cpu", "memory") if getattr(r, n, 0)}
    dims.update(str(k) for k in (getattr(r, "scalars", None) or {}))
    return dims


def queue_figures(run: ExplainRun, name: str) -> tuple[list[Figure], dict[str, str]]:
    """The queue's figures as the last cycle reported them (capacity / proportion's numbers), and per key
    the text a line shows: capability unset is "unset (no limit)", never 0."""
    nums = run.queues[-1].get(name) if run.queues else None
    spec = run.before.queues.get(name)
    if spec is None:  # an undeclared root
        return [], {"capability": UNSET}
    figures: list[Figure] = []
    texts: dict[str, str] = {}
    if nums is None:  # no queue plugin kept figures for it (flat capacity keeps them only for queues with jobs)
        return _spec_figures(run, name, spec)
    for key in FIGURE_KEYS:
        per = nums.get(key) or {}
        set_dims = _spec_dims(getattr(spec, key, None)) if key in ("capability", "guarantee") else None
        shown: list[str] = []
        for dim, v in per.items():
            v = float(v)
            if key == "capability" and (_unlimited(dim, v) or (set_dims is not None and dim not in set_dims
                                                                and v == 0)):
                s = UNSET
            elif key == "realCapability" and _unlimited(dim, v):
                s = "no limit"
            else:
                s = format_resource_value(dim, v, getattr(run.before, "unit_styles", None))
                if key == "capability" and set_dims is not None and dim not in set_dims:
                    s += " (not set: from its parent)"
            figures.append(Figure(f"{name} {key} {dim}", s, v))
            if dim == "pods" and (s in (UNSET, "no limit") or key in ("deserved", "guarantee")):
                continue
            shown.append(f"{dim} {s}")
        if key == "capability" and spec.capability is None:
            texts[key] = UNSET
        elif key == "guarantee" and not any(float(v) for v in per.values()):
            texts[key] = "none"
        else:
            texts[key] = ", ".join(shown) or "-"
    if run.notes and any(n.startswith(STOPPED) for n in run.notes[-1]):  # the build's numbers, cut short
        texts["capability"] = texts.get("capability", UNSET) + " (as the build left it when capacity stopped)"
        texts["realCapability"] = "not worked out: capacity stopped at session open (the session note says why)"
    rec = _figures_record(run, name)
    if rec is not None and rec.detail.get("capability"):
        texts["capability"] = _capability_from(rec, getattr(run.before, "unit_styles", {}) or {})
    if rec is not None and rec.reasons:
        texts["derived"] = rec.reasons[0].text
    if rec is not None and rec.detail.get("nodes"):
        texts["nodes"] = nodes_text(run, run.cycles, list(rec.detail["nodes"]))
    share = nums.get("share")
    if isinstance(share, int | float):
        figures.append(Figure(f"{name} share", f"{share:.3f}", float(share)))
        texts["share"] = f"{share:.3f}"
    return figures, texts


def _spec_figures(run: ExplainRun, name: str, spec: Any) -> tuple[list[Figure], dict[str, str]]:
    """The figures as the queue's spec sets them, for a queue no plugin kept figures for this cycle."""
    styles = getattr(run.before, "unit_styles", None)
    figures: list[Figure] = []
    texts: dict[str, str] = {"allocated": "no figures: no queue plugin kept any for it this cycle (no job names it)"}
    for key in ("deserved", "capability", "guarantee"):
        r = getattr(spec, key, None)
        dims = {n: float(v) for n, v in (to_dict(r).items() if r is not None else []) if v}
        for dim, v in dims.items():
            figures.append(Figure(f"{name} {key} {dim}", format_resource_value(dim, v, styles), v))
        shown = ", ".join(f"{d} {format_resource_value(d, v, styles)}" for d, v in dims.items())
        texts[key] = (shown + " (as set)") if shown else {"capability": UNSET, "guarantee": "none",
                                                         "deserved": "not set"}[key]
    return figures, texts


def _figures_record(run: ExplainRun, name: str) -> Any:
    """The queue plugin's queueFigures record for the queue in the last cycle that wrote one (None if none)."""
    return next((r for r in reversed(run.records) if r.kind == "queueFigures" and r.subject == name), None)


def _capability_from(rec: Any, styles: dict[str, str]) -> str:
    """'cpu 100 (inherited from parent a), memory 5Gi' from a queueFigures record's capability and its how."""
    caps = rec.detail.get("capability") or {}
    how = rec.detail.get("capabilityHow") or {}
    if caps and all(str(v) == UNSET for v in caps.values()):
        return UNSET
    parts = []
    for dim, v in caps.items():
        shown = str(v) if isinstance(v, str) else format_resource_value(dim, float(v), styles)
        note = str(how.get(dim) or "")
        parts.append(f"{dim} {shown}" + (f" ({note})" if note and not note.startswith(("set to", "not set"))
                                           else ""))
    return ", ".join(parts)


def children_of(run: ExplainRun, name: str) -> list[str]:
    qs = run.before.queues
    kids = [q for q, s in qs.items() if s.parent == name and q != name]
    if name == "root":  # queues without a parent hang under root
        kids += [q for q, s in qs.items() if not s.parent and q != "root" and q not in kids]
    return sorted(kids)


def _subtree(run: ExplainRun, name: str) -> list[str]:
    out, todo = [], [name]
    while todo:
        q = todo.pop()
        if q in out:
            continue
        out.append(q)
        todo.extend(children_of(run, q))
    return out


def build_queue(run: ExplainRun, name: str, verbose: bool = False) -> Answer:
    if name not in run.before.queues and name != "root":  # (root: the top of the tree, even when not declared)
        raise InputError(f"Queue/{name}", "", "no such queue in the cluster")
    queues = _subtree(run, name)
    jobs = [build_job(run, uid) for uid, pg in sorted(run.before.podgroups.items()) if pg.queue in queues]
    figures, texts = queue_figures(run, name)
    pods = [p for j in jobs for p in j.parts]
    job_counts = Counter(j.outcome for j in jobs)
    pod_counts = Counter(p.outcome for p in pods)
    kids = children_of(run, name)
    what = f"queue {name}" + (f" (with {len(kids)} child queues)" if kids else "")
    sentence = f"{what}: {_counted(job_counts, 'job')}; {_counted(pod_counts, 'pod')}"
    return Answer(f"Queue/{name}", "queue", "summary", sentence, "none", run.cycles, figures=figures, parts=jobs,
                  notes=notes_for(run, queue_path(run, name) + queues), facts=_facts(texts),
                  reasons=_top_reasons(jobs), children=[_child(run, k) for k in kids])


def _counted(c: Counter, what: str) -> str:
    total = sum(c.values())
    if not total:
        return f"no {what}s"
    return f"{total} {what}{'s' if total != 1 else ''} (" + ", ".join(f"{n} {o}" for o, n in c.most_common()) + ")"


def _facts(texts: dict[str, str]) -> list[tuple[str, str]]:
    return [(k, texts[k]) for k in (*FIGURE_KEYS, "share", "derived", "nodes") if k in texts]


def _top_reasons(jobs: list[Answer], top: int = 5) -> list[tuple[int, str, str]]:
    """(count, rule, an example sentence) for the pods and jobs that did not get what they wanted."""
    seen: dict[str, tuple[int, str]] = {}
    for j in jobs:
        items = [j] if j.outcome == "not admitted" else [p for p in j.parts if p.outcome in ("pending", "evicted")]
        for x in items:
            n, example = seen.get(x.rule, (0, f"{x.subject}: {x.sentence}"))
            seen[x.rule] = (n + 1, example)
    ranked = sorted(seen.items(), key=lambda kv: -kv[1][0])[:top]
    return [(n, rule, example) for rule, (n, example) in ranked]


def _child(run: ExplainRun, child: str) -> Answer:
    """A child queue in one line: its jobs and pods by outcome and its figures (no per-pod answers)."""
    figures, texts = queue_figures(run, child)
    sub = _subtree(run, child)
    uids = [uid for uid, pg in run.before.podgroups.items() if pg.queue in sub]
    phases = Counter((run.after.podgroups[u].phase if u in run.after.podgroups else "gone") for u in uids)
    by_phase = ", ".join(f"{n} {p}" for p, n in phases.most_common())
    text = (f"{len(uids)} job{'' if len(uids) == 1 else 's'}" + (f" ({by_phase})" if uids else "")
            + f"; allocated {texts.get('allocated', '-')}; deserved {texts.get('deserved', '-')}; capability "
            f"{texts.get('capability', '-')}; realCapability {texts.get('realCapability', '-')}")
    return Answer(f"Queue/{child}", "queue", "summary", text, "none", run.cycles, figures=figures,
                  facts=_facts(texts))
