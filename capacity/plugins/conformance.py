"""conformance: never evict critical system pods (spec actions-framework §9.3).

pkg/scheduler/plugins/conformance/conformance.go. Its victim bound: capacity.accel.plugin_forms."""

from __future__ import annotations

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
