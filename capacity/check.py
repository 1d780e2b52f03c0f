"""Reality check: the engine's numbers at session open against what the cluster itself reported.

The session is opened exactly as the scheduler opens it (`open_session`) and closed without running any
action, so the figures are those Volcano computes from the dump before it decides anything. They are
compared with the status the dump carries (Queue.status, PodGroup.status.phase) and, optionally, with a
Prometheus text scrape of the scheduler's `volcano_queue_*` gauges
(pkg/scheduler/metrics/queue.go:L28-176 @ed72c7c8: queue_allocated_milli_cpu, queue_allocated_memory_bytes,
queue_deserved_milli_cpu, queue_deserved_memory_bytes, queue_share, queue_capacity_milli_cpu,
queue_capacity_memory_bytes, queue_real_capacity_milli_cpu, queue_real_capacity_memory_bytes; namespace
`volcano`, label `queue_name`; units millicores and bytes).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from capacity.errors import InputError
from capacity.k8s import iter_documents, load_cluster
from capacity.resources import from_resource_list, to_dict
from capacity.scheduler import open_session

#: Scraped gauge -> (engine figure, resource) in the engine's units (millicores, bytes).
METRICS = {
    "volcano_queue_allocated_milli_cpu": ("allocated", "cpu"),
    "volcano_queue_allocated_memory_bytes": ("allocated", "memory"),
    "volcano_queue_deserved_milli_cpu": ("deserved", "cpu"),
    "volcano_queue_deserved_memory_bytes": ("deserved", "memory"),
    "volcano_queue_capacity_milli_cpu": ("capability", "cpu"),
    "volcano_queue_capacity_memory_bytes": ("capability", "memory"),
    "volcano_queue_real_capacity_milli_cpu": ("realCapability", "cpu"),
    "volcano_queue_real_capacity_memory_bytes": ("realCapability", "memory"),
    "volcano_queue_share": ("share", ""),
}
_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}\s+(\S+)')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


@dataclass
class Difference:
    obj: str
    field: str
    engine: Any
    reported: Any
    causes: list[str] = field(default_factory=list)

    def line(self) -> str:
        why = "; ".join(self.causes) or "no cause found in the dump"
        return f"{self.obj} {self.field}: engine {self.engine}, cluster {self.reported} (likely: {why})"


def parse_metrics(text: str) -> dict[str, dict[str, float]]:
    """{queue: {metric: value}} from Prometheus' text exposition format; other lines are ignored."""
    out: dict[str, dict[str, float]] = {}
    for raw in text.splitlines():
        m = _SAMPLE.match(raw.strip())
        if not m or m.group(1) not in METRICS:
            continue
        labels = dict(_LABEL.findall(m.group(2)))
        if "queue_name" in labels:
            try:
                out.setdefault(labels["queue_name"], {})[m.group(1)] = float(m.group(3))
            except ValueError:
                continue
    return out


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= max(1.0, 1e-6 * max(abs(a), abs(b)))


def check(text: str, source: str = "input", metrics_text: str | None = None) -> list[Difference]:
    cluster = load_cluster(text, source=source)
    docs = list(iter_documents(text, source))
    ssn = open_session(cluster)
    result = ssn.close()
    figures = result.queues
    raw_queues = {d.get("metadata", {}).get("name"): d for d in docs if d.get("kind") == "Queue"}
    raw_pgs = {f"{d['metadata'].get('namespace') or 'default'}/{d['metadata'].get('name')}": d
               for d in docs if d.get("kind") == "PodGroup" and isinstance(d.get("metadata"), dict)}
    pods = [d for d in docs if d.get("kind") == "Pod" and isinstance(d.get("metadata"), dict)]
    has_conf = any(d.get("kind") == "ConfigMap" for d in docs)
    diffs: list[Difference] = []

    def causes(queue: str) -> list[str]:
        out: list[str] = []
        qpods = [p for p in pods if _queue_of(p, raw_pgs) == queue]
        others = sorted(_name(p) for p in qpods if (p.get("spec") or {}).get("schedulerName")
                        not in (None, "volcano") and (p.get("spec") or {}).get("nodeName"))
        if others:
            out.append(f"pods bound by another scheduler: {', '.join(others)}")
        gone = sorted(_name(p) for p in qpods if p["metadata"].get("deletionTimestamp"))
        if gone:
            out.append(f"terminating pods (metadata.deletionTimestamp): {', '.join(gone)}")
        stamps = [str(c.get("lastTransitionTime")) for k, pg in raw_pgs.items() if _pg_queue(pg) == queue
                  for c in ((pg.get("status") or {}).get("conditions") or []) if c.get("lastTransitionTime")]
        newest_pod = max((str(p["metadata"].get("creationTimestamp") or "") for p in qpods), default="")
        if stamps and newest_pod and newest_pod > max(stamps):
            out.append(f"status stale: a pod was created at {newest_pod}, after the last status update "
                       f"{max(stamps)}")
        return out

    for name, q in sorted(raw_queues.items()):
        fig = figures.get(name)
        status = q.get("status") or {}
        if fig is None or not isinstance(status, dict):
            continue
        if status.get("allocated") is not None:
            reported = to_dict(from_resource_list(status["allocated"], obj=f"Queue/{name}",
                                                  field="status.allocated"))
            for res in sorted(set(reported) | {"cpu", "memory"}):
                e, r = float(fig["allocated"].get(res, 0)), float(reported.get(res, 0))
                if not _close(e, r):
                    extra = [] if res in fig["allocated"] or res in ("cpu", "memory") else \
                        [f"a resource the engine does not model ({res})"]
                    diffs.append(Difference(f"Queue/{name}", f"status.allocated.{res}", e, r,
                                            extra + causes(name)))
        engine_counts = {"running": 0, "pending": 0, "inqueue": 0}
        for uid, phase in result.podgroup_phases.items():
            if uid in raw_pgs and _pg_queue(raw_pgs[uid]) == name and phase.lower() in engine_counts:
                engine_counts[phase.lower()] += 1
        for key, e in engine_counts.items():
            if key not in status:
                continue
            reported_n = status.get(key) or 0
            if not isinstance(reported_n, int) or isinstance(reported_n, bool):
                raise InputError(f"Queue/{name}", f"status.{key}", f"must be an integer, got {reported_n!r}")
            if reported_n != e:
                diffs.append(Difference(f"Queue/{name}", f"status.{key}", e, reported_n, causes(name)))
    for uid, pg in sorted(raw_pgs.items()):
        reported = (pg.get("status") or {}).get("phase")
        engine = result.podgroup_phases.get(uid)
        if reported and engine and reported != engine:
            diffs.append(Difference(f"PodGroup/{uid}", "status.phase", engine, reported, causes(_pg_queue(pg))))
    if metrics_text is not None:
        for queue, values in sorted(parse_metrics(metrics_text).items()):
            fig = figures.get(queue)
            if fig is None:
                continue
            for metric, value in sorted(values.items()):
                what, res = METRICS[metric]
                e = float(fig[what]) if not res else float(fig[what].get(res, 0))
                if not _close(e, value):
                    extra = ["a scheduler configuration different from the one in the dump (the dump has no "
                             "ConfigMap)"] if not has_conf and what in ("deserved", "share") else []
                    diffs.append(Difference(f"Queue/{queue}", metric, e, value, extra + causes(queue)))
    return diffs


def _name(p: dict[str, Any]) -> str:
    return f"{p['metadata'].get('namespace') or 'default'}/{p['metadata'].get('name')}"


def _pg_queue(pg: dict[str, Any]) -> str:
    return str((pg.get("spec") or {}).get("queue") or "default")


def _queue_of(pod: dict[str, Any], pgs: dict[str, dict[str, Any]]) -> str:
    ann = pod["metadata"].get("annotations") or {}
    group = ann.get("scheduling.k8s.io/group-name")
    ns = pod["metadata"].get("namespace") or "default"
    pg = pgs.get(f"{ns}/{group}")
    return _pg_queue(pg) if pg else ""


def as_json(diffs: list[Difference]) -> dict[str, Any]:
    return {"agree": not diffs, "differences": [asdict(d) for d in diffs]}
