"""A timeline of simulated cycles and the edits between them: "run until" conditions and edit history.

The dashboard keeps cycles (what the engine decided) and edits (what the user changed between cycles) in
one timeline, so that a rewind can say which edits it undoes, an undo can bring them back, and a branch
can try an edit from a past cycle while the original timeline is kept. This module holds the parts that
do not depend on how the dashboard stores its state: what an edit entry is, which edits a rewind drops,
and when a "run until" condition is met by a cycle's decisions (read from the cycle's own `CycleResult`
and decision records, never re-computed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from capacity.core.cluster import Cluster
from capacity.framework.session import CycleResult

#: "run until" conditions: kind -> what the user picks (a target is a queue or a job where one is needed).
UNTIL_KINDS: dict[str, str] = {
    "queue-reclaim": "queue reclaims or is reclaimed from",
    "job": "job binds or is evicted",
    "eviction": "any eviction",
    "quiet": "nothing changes (no bind, eviction or phase change)",
}
#: The kinds that need a target, and what the target is.
UNTIL_TARGET = {"queue-reclaim": "queue", "job": "job"}
#: At most this many cycles per "run until", whatever the user asks.
MAX_UNTIL_CYCLES = 500


@dataclass(frozen=True)
class EditEntry:
    """One accepted edit: after how many cycles it was made (it applies from the next cycle on) and what it did."""

    at_cycle: int
    label: str


def dropped_by_rewind(edits: Iterable[EditEntry], cycle: int) -> list[EditEntry]:
    """The edits a rewind to "after `cycle`" undoes: those made after the next cycle started.

    The state kept by such a rewind is the cluster as cycle `cycle + 1` found it, which already holds the
    edits made right after `cycle`; later edits are gone with the later cycles.
    """
    return [e for e in edits if e.at_cycle > cycle]


@dataclass(frozen=True)
class Until:
    """A "run until" condition: `kind` one of UNTIL_KINDS, `target` a queue name or a job (ns/name)."""

    kind: str
    target: str = ""

    def describe(self) -> str:
        if self.kind == "queue-reclaim":
            return f"until queue {self.target} reclaims or is reclaimed from"
        if self.kind == "job":
            return f"until job {self.target} binds or is evicted"
        return f"until {UNTIL_KINDS.get(self.kind, self.kind)}"


def check_until(until: Until) -> None:
    """Refuse a condition that cannot be checked (unknown kind, missing target) with a clear message."""
    from capacity.core.errors import InputError

    if until.kind not in UNTIL_KINDS:
        raise InputError("run until", "condition", f"unknown condition {until.kind!r}; one of "
                         f"{', '.join(UNTIL_KINDS)}")
    need = UNTIL_TARGET.get(until.kind)
    if need and not until.target:
        raise InputError("run until", need, f"choose a {need} for {UNTIL_KINDS[until.kind]!r}")


def _job_of(cluster: Cluster, pod_key: str) -> str:
    pod = cluster.pods.get(pod_key)
    return f"{pod.namespace}/{pod.group}" if pod is not None and pod.group else ""


def _queue_of(cluster: Cluster, pod_key: str) -> str:
    pg = cluster.podgroups.get(_job_of(cluster, pod_key))
    return pg.queue if pg is not None else ""


def _chain(cluster: Cluster, queue: str) -> list[str]:
    """`queue` and its ancestors (so a parent queue "reclaims" when one of its leaves does)."""
    out: list[str] = []
    cur = queue
    while cur and cur not in out:
        out.append(cur)
        q = cluster.queues.get(cur)
        cur = q.parent if q is not None else ""
    return out


def reclaims(before: Cluster, result: CycleResult, records: Sequence[Any]) -> list[tuple[str, str, str, str]]:
    """(victim pod, victim's queue, reclaiming pod, reclaiming queue) for every committed eviction the
    reclaim action made in this cycle, from its queueChange records (the action's own account)."""
    evicted = set(result.evicted)
    out = []
    for r in records:
        if r.kind != "queueChange" or r.action != "reclaim" or r.subject not in evicted:
            continue
        preemptor = str((r.detail or {}).get("preemptor", ""))
        if not preemptor:
            continue
        out.append((r.subject, _queue_of(before, r.subject), preemptor, _queue_of(before, preemptor)))
        evicted.discard(r.subject)  # a victim tried on several nodes is filed once per try; count it once
    return out


def phase_changes(before: Cluster, result: CycleResult) -> dict[str, tuple[str, str]]:
    return {uid: (before.podgroups[uid].phase if uid in before.podgroups else "", phase)
            for uid, phase in result.podgroup_phases.items()
            if uid not in before.podgroups or before.podgroups[uid].phase != phase}


def until_met(until: Until, before: Cluster, result: CycleResult, records: Sequence[Any]) -> str | None:
    """Why this cycle meets `until` (one sentence naming pods and queues), or None if it does not."""
    if until.kind == "eviction":
        if result.evicted:
            return f"{len(result.evicted)} pod(s) evicted: {', '.join(result.evicted[:3])}" + \
                (", ..." if len(result.evicted) > 3 else "")
        return None
    if until.kind == "quiet":
        # A pipelined job is not a change: nothing of it is written back, and a reclaimer waiting for its
        # victims to go is pipelined again every cycle.
        if not (result.binds or result.evicted or phase_changes(before, result)):
            waiting = f" ({len(result.pipelined)} job(s) pipelined, waiting)" if result.pipelined else ""
            return f"nothing changed: no bind, eviction or PodGroup phase change{waiting}"
        return None
    if until.kind == "job":
        bound = [k for k in sorted(result.binds) if _job_of(before, k) == until.target]
        gone = [k for k in result.evicted if _job_of(before, k) == until.target]
        parts = ([f"bound {', '.join(bound)}"] if bound else []) + ([f"evicted {', '.join(gone)}"] if gone else [])
        return f"job {until.target}: " + "; ".join(parts) if parts else None
    if until.kind == "queue-reclaim":
        for victim, vq, preemptor, pq in reclaims(before, result, records):
            if until.target in _chain(before, pq):
                return f"queue {until.target} reclaims: {preemptor} (queue {pq}) evicts {victim} (queue {vq})"
            if until.target in _chain(before, vq):
                return f"queue {until.target} is reclaimed from: {victim} (queue {vq}) is evicted for " \
                       f"{preemptor} (queue {pq})"
        return None
    return None
