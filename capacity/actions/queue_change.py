"""The queues before and after each eviction and placement of reclaim and preempt (traced only).

For every tentative eviction a `queueChange` record (subject: the victim) shows the victim's queue and the
preemptor's queue, allocated and share, before and after, as the queue plugin holds them (the numbers its
next check reads); when the preemptor is pipelined, one more (subject: the preemptor) shows its queue's.
The numbers are read from the plugin's attributes around the Statement call that changes them, so they are
the decision's own numbers.
"""

from __future__ import annotations

from typing import Any

from capacity.core.model import Task
from capacity.core.resources import to_dict
from capacity.framework.session import Session
from capacity.plugins.figures import amount, amounts, names_of, queue_numbers, requested, value_of

View = dict[str, Any]


def queues_now(ssn: Session, *tasks: Task) -> dict[str, View]:
    """Per queue of `tasks` (in that order), what the first queue plugin holds: allocated and share."""
    out: dict[str, View] = {}
    for t in tasks:
        job = ssn.jobs.get(t.job)
        if job is None or job.queue in out:
            continue
        got = queue_numbers(ssn, job.queue)
        if got is not None:
            plugin, allocated, share, deserved = got
            out[job.queue] = {"plugin": plugin, "allocated": allocated, "share": share, "deserved": deserved}
    return out


def file_eviction(ssn: Session, action: str, preemptor: Task, victim: Task, before: dict[str, View]) -> None:
    """A queueChange record for `victim`'s eviction: `before` is `queues_now(ssn, victim, preemptor)` taken
    just before the Statement evicted it."""
    after = queues_now(ssn, victim, preemptor)
    styles = getattr(ssn.cluster, "unit_styles", None)
    vq = _queue(ssn, victim)
    pq = _queue(ssn, preemptor)
    parts = []
    for name, b in before.items():
        a = after.get(name, b)
        role = ("the victim's and the preemptor's" if name == vq == pq else
                "the victim's" if name == vq else "the preemptor's")
        dims = [n for n in names_of(b["allocated"], a["allocated"], pods=False)
                if n in requested(victim.resreq) + requested(preemptor.resreq)] or ["pods"]
        parts.append(f"queue {name} ({role}) {_change(b, a, dims, styles)}")
    text = f"evicting {victim.key} ({_what(victim, styles)}) for {preemptor.key}: " + "; ".join(parts)
    ssn.trace.because(action, "queueChange", text, task=victim.key, preemptor=preemptor.key)
    ssn.trace.event("queueChange", victim.key, True, preemptor=preemptor.key,
                    queues=_detail(before, after), request=to_dict(victim.resreq))


def file_placement(ssn: Session, action: str, preemptor: Task, node: str, before: dict[str, View]) -> None:
    """A queueChange record for the preemptor's pipelining onto `node` (`before`: `queues_now(ssn, preemptor)`)."""
    after = queues_now(ssn, preemptor)
    styles = getattr(ssn.cluster, "unit_styles", None)
    dims = requested(preemptor.resreq) or ["pods"]
    parts = [f"queue {name} {_change(b, after.get(name, b), dims, styles)}" for name, b in before.items()]
    ssn.trace.because(action, "queueChange", f"placing {preemptor.key} on {node}: " + "; ".join(parts),
                      task=preemptor.key)
    ssn.trace.event("queueChange", preemptor.key, True, node=node, queues=_detail(before, after))


def _what(t: Task, styles: Any) -> str:
    asked = requested(t.resreq)
    return amounts(t.resreq, asked, styles) if asked else "best-effort: it requests nothing"


def _queue(ssn: Session, t: Task) -> str:
    job = ssn.jobs.get(t.job)
    return job.queue if job is not None else ""


def _change(b: View, a: View, dims: list[str], styles: Any) -> str:
    """"allocated cpu 6 -> 4 (share 1.5 -> 1)", or the figures once when nothing moved."""
    ab, aa = b["allocated"], a["allocated"]
    if all(value_of(ab, n) == value_of(aa, n) for n in dims) and b["share"] == a["share"]:
        return f"allocated {amounts(ab, dims, styles)} (share {_share(b)}), unchanged"
    moved = ", ".join(f"{n} {amount(n, value_of(ab, n), styles)} -> {amount(n, value_of(aa, n), styles)}"
                      for n in dims)
    return f"allocated {moved} (share {_share(b)} -> {_share(a)})"


def _share(v: View) -> str:
    text = f"{v['share']:.4g}"
    if v["plugin"] == "capacity" and v["deserved"].is_empty():
        text += ", best-effort: no deserved"
    return text


def _detail(before: dict[str, View], after: dict[str, View]) -> dict[str, Any]:
    return {name: {"plugin": b["plugin"], "allocatedBefore": to_dict(b["allocated"]),
                   "allocatedAfter": to_dict(after.get(name, b)["allocated"]), "shareBefore": b["share"],
                   "shareAfter": after.get(name, b)["share"]} for name, b in before.items()}
