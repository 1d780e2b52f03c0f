"""Tables the pages show, built from engine state: plain functions (no Streamlit), rows as dicts.

Decision records name a subject (a pod `ns/name`, a job `ns/name`, a queue, ...). To filter them by
queue, job or pod, `record_links` resolves the subject against the cluster as it was when the cycle
ran, so a pod that has since finished is still found.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from capacity.core.cluster import Cluster, PodObj
from capacity.core.human_units import human_describe, human_value
from capacity.core.model import TaskStatus
from capacity.core.resources import Resource, to_dict
from capacity.core.trace import Record
from ui.state import Step


def _res(r: Resource | None, styles: dict[str, str] | None = None) -> str:
    return human_describe(to_dict(r), styles=styles) if r is not None else "-"


def pod_job(cluster: Cluster, pod: PodObj) -> str:
    return f"{pod.namespace}/{pod.group}" if pod.group else ""


def job_rows(cluster: Cluster) -> list[dict[str, Any]]:
    """One row per PodGroup: queue, phase, gang size and where its pods stand."""
    pods_of: dict[str, list[PodObj]] = {}
    for pod in cluster.pods.values():
        pods_of.setdefault(pod_job(cluster, pod), []).append(pod)
    rows = []
    for uid, pg in sorted(cluster.podgroups.items()):
        pods = pods_of.get(uid, [])
        request = Resource()
        for pod in pods:
            request.add(pod.resreq)
        placed = sum(1 for p in pods if p.node_name and not p.deleting)
        rows.append({
            "job": uid, "queue": pg.queue, "phase": pg.phase, "minMember": pg.min_member,
            "pods": len(pods), "placed": placed, "waiting": sum(1 for p in pods if not p.node_name),
            "terminating": sum(1 for p in pods if p.deleting),
            "priority": cluster.job_priority(pg), "request": _res(request, cluster.unit_styles),
            "minResources": _res(pg.min_resources, cluster.unit_styles),
        })
    return rows


def pod_rows(cluster: Cluster) -> list[dict[str, Any]]:
    """One row per pod: its job, queue, phase, the scheduler's task status and node."""
    rows = []
    for key, pod in sorted(cluster.pods.items()):
        job = pod_job(cluster, pod)
        pg = cluster.podgroups.get(job)
        rows.append({
            "pod": key, "job": job, "queue": pg.queue if pg else "", "phase": pod.phase,
            "status": TaskStatus.name(pod.task_status()), "node": pod.node_name, "terminating": pod.deleting,
            "request": _res(pod.resreq, cluster.unit_styles),
        })
    return rows


def pending_pods(cluster: Cluster) -> list[str]:
    """Pods without a node, the ones a user asks "why is this pending?" about."""
    return [key for key, pod in sorted(cluster.pods.items()) if not pod.node_name]


def waiting_jobs(cluster: Cluster) -> list[str]:
    """Jobs (PodGroups) still Pending or with a pod without a node."""
    waiting = {pod_job(cluster, cluster.pods[key]) for key in pending_pods(cluster)}
    return sorted(uid for uid, pg in cluster.podgroups.items() if uid in waiting or pg.phase == "Pending")


@dataclass(frozen=True)
class Why:
    """One waiting job or pod and the answer model's sentence about it (empty `sentence`: no answer)."""

    kind: str  # "job" | "pod"
    name: str
    outcome: str
    sentence: str


def why_waiting(ws: Any, names: Iterable[str], kind: str, memo: Any = None) -> list[Why]:
    """The answer model's one sentence for each waiting job or pod after the last cycle run.

    The sentence is `capacity.analysis.answer`'s (answer_job / answer_pod over the cycles the workspace ran): the same
    words the Decisions page and `python -m capacity explain` print. An object added after the last cycle has
    no answer yet.
    """
    from capacity.core.errors import InputError
    from ui.answers import answer_for

    out = []
    for name in names:
        try:
            answer = answer_for(ws, ws.cycle, kind, name, memo=memo)
        except InputError:
            out.append(Why(kind, name, "", ""))
            continue
        out.append(Why(kind, name, answer.outcome, answer.sentence))
    return out


# ---- what one cycle did -------------------------------------------------------------------------


@dataclass
class CycleSummary:
    binds: list[dict[str, Any]]
    evicted: list[dict[str, Any]]
    pipelined: list[dict[str, Any]]
    phases: list[dict[str, Any]]

    @property
    def empty(self) -> bool:
        return not (self.binds or self.evicted or self.pipelined or self.phases)


def cycle_summary(step: Step) -> CycleSummary:
    """Binds, evictions, pipelined jobs and PodGroup phase changes of one cycle, from its CycleResult."""
    before = step.before
    res = step.result

    def job_queue(pod_key: str) -> tuple[str, str]:
        pod = before.pods.get(pod_key)
        job = pod_job(before, pod) if pod else ""
        pg = before.podgroups.get(job)
        return job, pg.queue if pg else ""

    binds = [{"pod": k, "node": n, "job": job_queue(k)[0], "queue": job_queue(k)[1]}
             for k, n in sorted(res.binds.items())]
    evicted = [{"pod": k, "node": before.pods[k].node_name if k in before.pods else "",
                "job": job_queue(k)[0], "queue": job_queue(k)[1]} for k in res.evicted]
    pipelined = [{"job": j, "nodes": ", ".join(nodes)} for j, nodes in sorted(res.pipelined.items())]
    phases = []
    for uid, phase in sorted(res.podgroup_phases.items()):
        old = before.podgroups[uid].phase if uid in before.podgroups else ""
        if old != phase:
            phases.append({"job": uid, "before": old, "after": phase})
    return CycleSummary(binds, evicted, pipelined, phases)


def history_rows(steps: Iterable[Step]) -> list[dict[str, Any]]:
    """One line per cycle: how many binds, evictions, pipelined jobs and decision records (None until the records
    are read: a cycle runs untraced and its records are built when first asked for, `Step.records`)."""
    return [{"cycle": s.cycle, "binds": len(s.result.binds), "evicted": len(s.result.evicted),
             "pipelined": len(s.result.pipelined), "records": len(s.traced) if s.traced is not None else None}
            for s in steps]


# ---- decision records ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Links:
    pod: str
    job: str
    queue: str


def record_links(record: Record, cluster: Cluster) -> Links:
    """The pod, job and queue a record is about, resolved against `cluster` (before the cycle)."""
    subject = record.subject
    detail = record.detail or {}
    pod = cluster.pods.get(subject)
    if pod is not None:
        job = pod_job(cluster, pod)
        pg = cluster.podgroups.get(job)
        return Links(subject, job, pg.queue if pg else str(detail.get("queue", "")))
    pg = cluster.podgroups.get(subject)
    if pg is not None:
        return Links("", subject, pg.queue)
    if subject in cluster.queues:
        return Links("", "", subject)
    job = str(detail.get("job", ""))
    pg = cluster.podgroups.get(job)
    return Links("", job, pg.queue if pg else str(detail.get("queue", "")))


def _verdict(record: Record) -> str:
    if isinstance(record.verdict, str):  # most are: no need to turn the whole record (its numbers) into JSON
        return record.verdict
    verdict = record.as_dict()["verdict"]
    return verdict if isinstance(verdict, str) else json.dumps(verdict)


def _reasons(record: Record) -> str:
    return " | ".join(f"[{r.plugin}/{r.rule}] {r.text}" for r in record.reasons)


def _values(record: Record) -> str:
    d = record.as_dict()
    values = {**d.get("detail", {}), **{f"{r['plugin']}.{r['rule']}": r["values"] for r in d.get("reasons", [])
                                        if r.get("values")}}
    return json.dumps(values, sort_keys=True) if values else ""


def record_rows(records: Iterable[Record], cluster: Cluster) -> list[dict[str, Any]]:
    """Decision records as table rows with their pod, job and queue resolved."""
    rows = []
    for r in records:
        links = record_links(r, cluster)
        rows.append({
            "cycle": r.cycle, "action": r.action, "kind": r.kind, "subject": r.subject,
            "verdict": _verdict(r), "plugin": r.plugin, "queue": links.queue,
            "job": links.job, "pod": links.pod, "reasons": _reasons(r), "numbers": _values(r),
        })
    return rows


@dataclass
class RecordIndex:
    """Every record of one cycle with its pod, job and queue resolved once: the Decisions page filters and
    pages over this and builds table rows only for the page it shows (a cycle at openb scale has ~93,000
    records; their rows would be ~150 MB on the server and in the browser). Kept on its `Step`."""

    records: list[Record]
    links: list[Links]
    #: positions by pod, by job (of records naming no pod), by job, by queue and by subject; built on first use,
    #: so that a "why?" rerun does not walk every record of the cycle again
    _by: dict[str, dict[str, list[int]]] | None = field(default=None, repr=False)
    _names: tuple[list[str], list[str]] | None = field(default=None, repr=False)

    def actions(self) -> list[str]:
        return self._filter_names()[0]

    def queues(self) -> list[str]:
        return self._filter_names()[1]

    def _filter_names(self) -> tuple[list[str], list[str]]:
        if self._names is None:
            self._names = (sorted({r.action for r in self.records}),
                           sorted({lk.queue for lk in self.links if lk.queue}))
        return self._names

    def _positions(self, by: str, key: str) -> list[int]:
        if self._by is None:
            maps: dict[str, dict[str, list[int]]] = {k: {} for k in ("pod", "job_only", "job", "queue", "subject")}
            for i, (r, lk) in enumerate(zip(self.records, self.links, strict=True)):
                if lk.pod:
                    maps["pod"].setdefault(lk.pod, []).append(i)
                elif lk.job:
                    maps["job_only"].setdefault(lk.job, []).append(i)
                maps["job"].setdefault(lk.job, []).append(i)
                maps["queue"].setdefault(lk.queue, []).append(i)
                maps["subject"].setdefault(r.subject, []).append(i)
            self._by = maps
        return self._by[by].get(key, [])

    def select(self, *, actions: Iterable[str] = (), queue: str = "", text: str = "") -> list[int]:
        """Positions of the records of the given actions (all when empty) about `queue` (any when ""), whose
        subject, job or pod contains `text` (case-insensitive; any when "")."""
        wanted = set(actions)
        needle = text.strip().casefold()
        if not (wanted or queue or needle):
            return list(range(len(self.records)))
        out = []
        for i, (r, lk) in enumerate(zip(self.records, self.links, strict=True)):
            if wanted and r.action not in wanted:
                continue
            if queue and lk.queue != queue:
                continue
            if needle and not any(needle in s.casefold() for s in (r.subject, lk.job, lk.pod)):
                continue
            out.append(i)
        return out

    def about_pod(self, cluster: Cluster, pod_key: str) -> list[int]:
        """Records about the pod itself, its job (enqueue, gang, ...) or its queue (overused, ...): `why_pending`."""
        found_pod = _pod_job_queue(cluster, pod_key)
        if found_pod is None:
            return []
        job, queue = found_pod
        found = set(self._positions("pod", pod_key))
        if job:
            found.update(self._positions("job_only", job))
        if queue:
            found.update(self._positions("subject", queue))
        return sorted(found)

    def about_job(self, job: str) -> list[int]:
        return list(self._positions("job", job))

    def about_queue(self, queue: str) -> list[int]:
        return sorted(set(self._positions("queue", queue)) | set(self._positions("subject", queue)))

    def rows(self, positions: Iterable[int], numbers: bool = True) -> list[dict[str, Any]]:
        """Table rows (as `record_rows` builds them) of the records at `positions` only; without `numbers`, the
        "numbers" column is left empty (turning a record's numbers into JSON is most of a row's cost)."""
        out = []
        for i in positions:
            r, lk = self.records[i], self.links[i]
            out.append({
                "cycle": r.cycle, "action": r.action, "kind": r.kind, "subject": r.subject,
                "verdict": _verdict(r), "plugin": r.plugin, "queue": lk.queue,
                "job": lk.job, "pod": lk.pod, "reasons": _reasons(r), "numbers": _values(r) if numbers else "",
            })
        return out


def record_index(step: Step) -> RecordIndex:
    """The step's RecordIndex, built on first use and kept on the step (dropped with it)."""
    got = getattr(step, "index", None)
    if got is None:
        interned: dict[Links, Links] = {}
        links = []
        for r in step.records:
            lk = record_links(r, step.before)
            links.append(interned.setdefault(lk, lk))
        got = RecordIndex(list(step.records), links)
        step.index = got
    return got


def reason_lines(record: Record) -> list[str]:
    """A record's reasons, one line each, whole: "[plugin/rule] text"."""
    return [f"[{r.plugin}/{r.rule}] {r.text}" for r in record.reasons]


def trace_jsonl(steps: Iterable[Step]) -> str:
    """Every record of every cycle, one JSON object a line: the format of `python -m capacity simulate --trace`."""
    return "".join(json.dumps(r.as_dict()) + "\n" for s in steps for r in s.records)


def filter_rows(rows: Iterable[dict[str, Any]], *, actions: Iterable[str] = (), queue: str = "", job: str = "",
                pod: str = "") -> list[dict[str, Any]]:
    """Keep rows of the given actions (all when empty) about the given queue / job / pod (any when "")."""
    wanted = set(actions)
    out = []
    for row in rows:
        if wanted and row["action"] not in wanted:
            continue
        if queue and row["queue"] != queue:
            continue
        if job and row["job"] != job:
            continue
        if pod and row["pod"] != pod:
            continue
        out.append(row)
    return out


def _pod_job_queue(cluster: Cluster, pod_key: str) -> tuple[str, str] | None:
    """(its job, its job's queue) of a pod of the cluster ("" where it has none), None for no such pod."""
    pod = cluster.pods.get(pod_key)
    if pod is None:
        return None
    job = pod_job(cluster, pod)
    pg = cluster.podgroups.get(job)
    return job, pg.queue if pg else ""


def why_pending(rows: Iterable[dict[str, Any]], cluster: Cluster, pod_key: str) -> list[dict[str, Any]]:
    """Every record about the pod itself, its job (enqueue, gang, ...) or its queue (overused, ...)."""
    found_pod = _pod_job_queue(cluster, pod_key)
    if found_pod is None:
        return []
    job, queue = found_pod
    return [row for row in rows
            if row["pod"] == pod_key or (job and row["job"] == job and not row["pod"])
            or (queue and row["subject"] == queue)]


def declared_capabilities(cluster: Cluster) -> dict[str, set[str]]:
    """Per queue, the resources its spec.capability sets; the rest are unset: no limit.

    A scalar (GPUs, ...) is set when the spec names it, even as 0 (then nothing may be used); cpu and memory are
    always present in a Resource, so they count as set when non-zero.
    """
    out: dict[str, set[str]] = {}
    for name, q in cluster.queues.items():
        cap = q.capability
        if cap is None:
            out[name] = set()
            continue
        out[name] = set(cap.scalars or ()) | {k for k, v in (("cpu", cap.cpu), ("memory", cap.memory)) if v}
    return out


def queue_detail_rows(numbers: dict[str, Any], styles: dict[str, str] | None = None,
                      declared: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """One queue's numbers per resource dimension: rows cpu, memory, GPUs...; columns the metrics.

    `styles`: the input's unit styles (Cluster.unit_styles). `declared`: the resources the queue's
    spec.capability sets; a capability of 0 on any other reads "unset (no limit)".
    """
    from capacity.analysis.charts import TABLE_METRICS, UNSET, resource_names

    rows = []
    for name in resource_names({"q": numbers}):
        row: dict[str, Any] = {"resource": name}
        for metric in (*TABLE_METRICS, "request", "inqueue", "elastic"):
            values = numbers.get(metric) or {}
            if name not in values:
                row[metric] = "-"
            elif metric == "capability" and declared is not None and name not in declared and values[name] == 0:
                row[metric] = UNSET
            else:
                row[metric] = human_value(name, values[name], styles)
        rows.append(row)
    return rows


# ---- treemaps at scale --------------------------------------------------------------------------

#: A treemap of more queues than this is drawn a few levels at a time.
TREE_OPEN_QUEUES = 40
TREEMAP_LEVELS = 2


def treemap_levels(figure: Any, queues: int) -> str:
    """Draw a treemap of `queues` queues TREEMAP_LEVELS levels at a time when it has more than TREE_OPEN_QUEUES
    (a click on a tile opens the queues below it, the bar at the top goes back up): sets the figure's `maxdepth`
    and returns the caption that says so, or "" when the whole tree is drawn."""
    if queues <= TREE_OPEN_QUEUES:
        return ""
    figure.update_traces(maxdepth=TREEMAP_LEVELS)
    return (f"{queues} queues: {TREEMAP_LEVELS} levels drawn at a time; click a tile to open the queues below it, "
            "the bar at the top to go back up.")
