"""Reality check: the engine's numbers for a dump against what the cluster itself reported.

A session is opened on the dump exactly as the scheduler opens it (`open_session`), its enqueue action runs
when the configuration has one, and it closes: PodGroup phases are then what that session's close would
write (enqueue moves Pending to Inqueue; the close writes Running, Pending or Inqueue from the tasks,
framework/job_updater.go and session.go:jobStatus @ed72c7c8), and each Queue's allocated is what the close
writes to Queue.status.allocated (session.go:L501-555 @ed72c7c8, updateQueueStatus). They are compared with
the status the dump carries (Queue.status, PodGroup.status.phase) and, optionally, with the scheduler's
`volcano_queue_*` gauges (`capacity.io.prometheus`). Every difference names the likely causes the dump lets
`capacity.analysis.check_causes` check.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from capacity.analysis.check_causes import METRIC_ALLOCATED, METRIC_PLAN, PHASE, STATUS, Evidence, pg_queue
from capacity.core.errors import InputError
from capacity.core.quantity import format_resource_value
from capacity.core.resources import Resource, from_resource_list, to_dict
from capacity.core.text import safe
from capacity.framework.session import SessionOptions
from capacity.io.k8s import iter_documents, load_objects, parse_conf_text
from capacity.io.prometheus import Scrape, parse_text
from capacity.scheduler import open_session

#: The PodGroup phases a Queue's status counts (pkg/controllers/queue/queue_controller_action.go @ed72c7c8).
COUNTS = ("pending", "running", "inqueue", "unknown", "completed")
#: gauge figures compared like the allocated status (independent of the configuration's plugins)
_AS_ALLOCATED = ("allocated", "request")


@dataclass
class Difference:
    """One figure compared: the engine's value, the cluster's, and (when they differ) the likely causes."""

    obj: str
    field: str
    engine: Any
    reported: Any
    causes: list[str] = field(default_factory=list)
    resource: str = ""  # the resource a number is of (its unit), "" for counts, phases and shares
    agree: bool = False
    #: the reported quantity as the dump writes it, shown for a resource the engine has no unit for
    reported_text: str = ""

    def shown_engine(self) -> str:
        return self._show(self.engine)

    def shown_reported(self) -> str:
        return safe(self.reported_text) if self.reported_text else self._show(self.reported)

    def _show(self, v: Any) -> str:
        if self.resource and isinstance(v, int | float):
            return format_resource_value(self.resource, float(v))
        if isinstance(v, float):
            return f"{v:.6g}"
        return safe(str(v))

    def line(self, besides: frozenset[str] = frozenset()) -> str:
        """One line; causes in `besides` (said once for every difference) are left out."""
        own = [c for c in self.causes if c not in besides]
        why = "; ".join(own) or ("nothing else found in the dump" if besides else "no cause found in the dump")
        return (f"{safe(self.obj)} {safe(self.field)}: engine {self.shown_engine()}, cluster "
                f"{self.shown_reported()} (likely: {why})")


@dataclass
class Report:
    rows: list[Difference]
    notes: list[str]
    cluster_version: str | None
    engine_version: str

    #: causes found for the dump as a whole (the Volcano version, the configuration)
    dump_causes: list[str] = field(default_factory=list)

    def common_causes(self) -> frozenset[str]:
        """Causes of the whole dump that every difference shares (said once rather than on every line)."""
        diffs = self.differences
        if len(diffs) < 2:
            return frozenset()
        return frozenset(c for c in self.dump_causes if all(c in d.causes for d in diffs))

    @property
    def differences(self) -> list[Difference]:
        return [r for r in self.rows if not r.agree]

    def as_json(self) -> dict[str, Any]:
        return {"agree": not self.differences, "compared": len(self.rows),
                "differences": [_public(d) for d in self.differences], "notes": self.notes,
                "cluster_version": self.cluster_version, "engine_version": self.engine_version}

    def text(self) -> str:
        diffs = self.differences
        common = self.common_causes()
        lines = [d.line(common) for d in diffs]
        lines += [f"every difference above may also come from {c}" for c in sorted(common)]
        if not self.rows:
            lines.append("nothing to compare: the dump carries no Queue status or PodGroup phase (and no metrics "
                         "were given)")
        elif not lines:
            lines.append(f"agree: the engine's numbers match the cluster's ({len(self.rows)} figures compared)")
        else:
            lines.append(f"{len(diffs)} of {len(self.rows)} figures differ")
        return "\n".join(lines + [f"note: {n}" for n in self.notes])


def _public(d: Difference) -> dict[str, Any]:
    out = asdict(d)
    del out["agree"]
    return out


def _close(a: float, b: float) -> bool:
    """Equal as Volcano writes them (whole millicores, bytes, milli-units, pod counts), or within float noise
    for the huge "unlimited" values."""
    return abs(a - b) <= max(0.5, 1e-9 * max(abs(a), abs(b)))


def _unmodelled(res: str) -> str:
    if res.startswith("deviceclass/") or ".deviceclass/" in res:
        return (f"a resource the engine does not model ({safe(res)}: DRA devices, which the close adds to "
                "Queue.status.allocated, session_dra_queue_status.go:L83-108 @ed72c7c8)")
    return f"a resource the engine does not model ({safe(res)})"


def status_allocated(ssn: Any) -> dict[str, Resource]:
    """What the session's close writes to each Queue.status.allocated: the requests of the tasks in an
    allocated status, per job's queue and, when a root queue exists, up every ancestor to root
    (session.go:L501-540 @ed72c7c8). Volcano's sharable-device and DRA additions are not modelled."""
    out = {name: Resource.empty() for name in ssn.queues}
    root = "root" in ssn.queues
    for job in ssn.jobs.values():
        if job.queue not in out:
            continue
        out[job.queue].add(job.allocated)
        if not root:
            continue
        queue, seen = ssn.queues[job.queue], {job.queue}
        while True:
            parent = queue.parent or "root"
            if parent not in out or parent in seen:
                break
            out[parent].add(job.allocated)
            if parent == "root":
                break
            seen.add(parent)
            queue = ssn.queues[parent]
    return out


def _session(cluster: Any, options: SessionOptions | None) -> tuple[Any, dict[str, Resource]]:
    ssn = open_session(cluster, options=options)
    if "enqueue" in ssn.conf.actions:
        from capacity.actions import enqueue
        ssn.trace.action = "enqueue"
        enqueue.execute(ssn)
        ssn.trace.action = "close"
    allocated = status_allocated(ssn)
    result = ssn.close()
    ssn.release()
    return result, allocated


def compare(text: str, source: str = "input", metrics: Scrape | None = None, conf_text: str | None = None,
            volcano_version: str | None = None, options: SessionOptions | None = None) -> Report:
    """Every figure the dump (and `metrics`) reports, beside the engine's.

    `conf_text`: a configuration given apart from the dump; `volcano_version`: the version the engine
    simulates (None: HEAD), compared with the dump's scheduler image; `options`: the session options that
    version (or other compatibility switches) run with.
    """
    docs = list(iter_documents(text, source))
    cluster = load_objects(docs, source)
    if conf_text is not None:
        cluster.conf = parse_conf_text(conf_text, "volcano-scheduler.conf")
    result, allocated = _session(cluster, options)
    ev = Evidence(docs, conf_warnings=[str(w) for w in cluster.conf.warnings], conf_given=conf_text is not None,
                  volcano_version=volcano_version)
    rows: list[Difference] = []

    def add(obj: str, fld: str, engine: Any, reported: Any, same: bool, causes: list[str],
            resource: str = "") -> None:
        rows.append(Difference(obj, fld, engine, reported, [] if same else causes, resource, same))

    phases = result.podgroup_phases
    # Resource names the engine reads somewhere (a node's allocatable, a queue's allocated): any other name in
    # a reported figure is one it does not model.
    known = {"cpu", "memory", "pods"}
    for node in cluster.nodes:
        known.update(to_dict(node.allocatable))
    for res in allocated.values():
        known.update(to_dict(res))
    for doc in docs:
        if doc.get("kind") != "Queue" or not isinstance(doc.get("metadata"), dict):
            continue
        name = str(doc["metadata"].get("name"))
        status = doc.get("status")
        if not isinstance(status, dict) or name not in allocated:
            continue
        obj = f"Queue/{name}"
        if status.get("allocated") is not None:
            skipped: list[str] = []
            reported = to_dict(from_resource_list(status["allocated"], obj=obj, field="status.allocated",
                                                  skipped=skipped))
            engine = to_dict(allocated[name])
            for res in sorted(set(reported) | set(engine)):
                e, r = float(engine.get(res, 0)), float(reported.get(res, 0))
                extra = [] if res in known else [_unmodelled(res)]
                add(obj, f"status.allocated.{res}", e, r, _close(e, r), extra + ev.causes(name, STATUS, res), res)
                if res not in known and res in status["allocated"]:
                    rows[-1].reported_text = str(status["allocated"][res])
            for res in skipped:  # a name Volcano's own Resource drops: the engine has no figure to compare
                raw = status["allocated"].get(res) if isinstance(status["allocated"], dict) else None
                add(obj, f"status.allocated.{res}", "-", safe(str(raw)), False,
                    [_unmodelled(res)] + ev.causes(name, STATUS, res))
        counts = dict.fromkeys(COUNTS, 0)
        for uid, pg in ev.pgs.items():
            phase = str(phases.get(uid, "")).lower()
            if pg_queue(pg) == name and phase in counts:
                counts[phase] += 1
        for key, e in counts.items():
            if key not in status:
                continue
            r = status.get(key) or 0
            if not isinstance(r, int) or isinstance(r, bool):
                raise InputError(obj, f"status.{key}", f"must be an integer, got {safe(repr(r))}")
            add(obj, f"status.{key}", e, r, r == e, ev.causes(name, PHASE))
    for uid, pg in sorted(ev.pgs.items()):
        reported_phase = (pg.get("status") or {}).get("phase") if isinstance(pg.get("status"), dict) else None
        engine_phase = phases.get(uid)
        if reported_phase and engine_phase:
            add(f"PodGroup/{uid}", "status.phase", engine_phase, str(reported_phase),
                engine_phase == reported_phase, ev.causes(pg_queue(pg), PHASE))
    for queue, values in sorted((metrics or {}).items()):
        fig = result.queues.get(queue)
        if fig is None:
            ev.notes.append(f"metrics of queue {safe(queue)} not compared: the engine has no numbers for it "
                            "(no such Queue, or no job in it)")
            continue
        for (figure, res), value in sorted(values.items()):
            have = fig.get(figure)
            if have is None:
                continue
            e = float(have) if not res else float(have.get(res, 0))
            kind = METRIC_ALLOCATED if figure in _AS_ALLOCATED else METRIC_PLAN
            metric = f"metric {figure}" + (f".{res}" if res else "")
            add(f"Queue/{queue}", metric, e, value, _close(e, value) if res else abs(e - value) <= 1e-6,
                ev.causes(queue, kind, res), res)
    dump_causes = list(dict.fromkeys(c for causes in ev.global_causes.values() for c in causes))
    return Report(rows, ev.notes, ev.cluster_version, ev.engine_version, dump_causes)


def check(text: str, source: str = "input", metrics_text: str | None = None,
          volcano_version: str | None = None) -> list[Difference]:
    """The differences only (see `compare`), with metrics from a Prometheus text scrape."""
    metrics = parse_text(metrics_text) if metrics_text is not None else None
    return compare(text, source, metrics, volcano_version=volcano_version).differences
