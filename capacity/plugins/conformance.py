"""conformance: never evict critical system pods (spec actions-framework §9.3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from capacity.core.model import Task
from capacity.framework.session import PERMIT, Session
from capacity.plugins.base import Plugin

CRITICAL = {"system-cluster-critical", "system-node-critical"}


class ConformancePlugin(Plugin):
    name = "conformance"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        ssn.add_fn("preemptable", self.name, self.victims)
        ssn.add_fn("reclaimable", self.name, self.victims)
        ssn.add_possible_fn("preemptable", self.name, _possible)
        ssn.add_possible_fn("reclaimable", self.name, _possible)

    def victims(self, preemptor: Task, candidates: list[Task]) -> tuple[list[Task], int]:
        out = []
        for t in candidates:
            if _critical(t):
                if self.ssn.trace.enabled:
                    self.ssn.trace.because(self.name, "critical", f"{t.key} kept: critical system pod",
                                           task=t.key)
                continue
            out.append(t)
        return out, PERMIT  # no per-pod reason for the ordinary case: it only ever vetoes


def _critical(t: Task) -> bool:
    return t.spec.priority_class_name in CRITICAL or t.namespace == "kube-system"


def _not_critical(t: Task) -> bool:
    return not _critical(t)


def _possible(preemptor: Task) -> tuple[tuple[()], Callable[[Task], bool], Callable[[Any, Any], Any]]:
    """Bound on `victims` (Session.add_possible_fn): critical pods never go. Being critical is a fixed
    fact of the pod, so a VictimTable keeps the answers for its rows (`static_answers`)."""
    return (), _not_critical, _not_critical_rows


def _not_critical_rows(table: Any, rows: Any) -> Any:
    return table.static_answers(_not_critical, rows)
