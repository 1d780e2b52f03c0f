"""Why the engine and the cluster may disagree: each likely cause, checked in the dump where it allows.

`Evidence` reads the dump once; `causes(queue, kind)` names what, in that queue, could explain a difference
of that kind. Causes the dump cannot settle are said once in `notes` (e.g. no scheduler image to read the
version from), never guessed per difference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from capacity.core.text import safe
from capacity.io.k8s import CONFIGMAP_NAME
from capacity.io.volcano_image import SCHEDULER_APP, same_release, scheduler_image, scheduler_version, version_label

#: kinds of difference: status figures written by the scheduler/controllers, phases and counts (which the
#: configuration's actions and plugins decide), and live metrics
STATUS, PHASE, METRIC_ALLOCATED, METRIC_PLAN = "status", "phase", "metric-allocated", "metric-plan"
#: Resource names of Volcano's sharable devices (vGPU, ...), which the scheduler adds to a queue's
#: allocated on top of the pod's request (session.go:L486-499 @ed72c7c8, addNodeSharableDeviceUsage).
DEVICE_PREFIX = "volcano.sh/"


def _meta(doc: dict[str, Any]) -> dict[str, Any]:
    m = doc.get("metadata")
    return m if isinstance(m, dict) else {}


def _spec(doc: dict[str, Any]) -> dict[str, Any]:
    s = doc.get("spec")
    return s if isinstance(s, dict) else {}


def _items(value: Any) -> list[Any]:
    """A list from the dump, or nothing when the field holds something else (the reader checks its own fields;
    these are only evidence)."""
    return value if isinstance(value, list) else []


def pod_name(p: dict[str, Any]) -> str:
    return f"{_meta(p).get('namespace') or 'default'}/{_meta(p).get('name')}"


def pg_queue(pg: dict[str, Any]) -> str:
    return str(_spec(pg).get("queue") or "default")


def _names(pods: list[dict[str, Any]], limit: int = 5) -> str:
    names = sorted(safe(pod_name(p)) for p in pods)
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _scheduler_names(docs: list[dict[str, Any]]) -> set[str]:
    """The names the dump's Volcano scheduler answers to (`--scheduler-name`, repeatable; default volcano)."""
    names: set[str] = set()
    for doc in docs:
        if doc.get("kind") not in ("Deployment", "Pod"):
            continue
        spec = _spec(doc)
        tmpl = spec.get("template") if doc.get("kind") == "Deployment" else None
        pod_spec = _spec(tmpl) if isinstance(tmpl, dict) else spec
        labels = _meta(tmpl if isinstance(tmpl, dict) else doc).get("labels") or {}
        if not isinstance(labels, dict) or labels.get("app") != SCHEDULER_APP:
            continue
        for c in _items(pod_spec.get("containers")):
            args = [str(a) for a in _items(c.get("args")) + _items(c.get("command"))] if isinstance(c, dict) else []
            for i, a in enumerate(args):
                if a.startswith("--scheduler-name="):
                    names.add(a.split("=", 1)[1])
                elif a == "--scheduler-name" and i + 1 < len(args):
                    names.add(args[i + 1])
    return names or {"volcano"}


def _mounted_configmaps(docs: list[dict[str, Any]]) -> set[str]:
    """ConfigMaps the dump's scheduler Deployment (or Pod) mounts: where its configuration comes from."""
    out: set[str] = set()
    for doc in docs:
        kind = doc.get("kind")
        spec = _spec(doc)
        tmpl = spec.get("template") if kind == "Deployment" else None
        pod_spec = _spec(tmpl) if isinstance(tmpl, dict) else spec if kind == "Pod" else {}
        labels = _meta(tmpl if isinstance(tmpl, dict) else doc).get("labels") or {}
        if not isinstance(labels, dict) or labels.get("app") != SCHEDULER_APP:
            continue
        for v in _items(pod_spec.get("volumes")):
            cm = v.get("configMap") if isinstance(v, dict) else None
            if isinstance(cm, dict) and cm.get("name"):
                out.add(str(cm["name"]))
    return out


def _requested_names(pod: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for c in _items(_spec(pod).get("containers")):
        res = c.get("resources") if isinstance(c, dict) else None
        for part in ("requests", "limits"):
            lst = res.get(part) if isinstance(res, dict) else None
            if isinstance(lst, dict):
                names.update(str(n) for n in lst)
    return names


@dataclass
class Evidence:
    docs: list[dict[str, Any]]
    conf_warnings: list[str] = field(default_factory=list)
    conf_given: bool = False  # a configuration given apart from the dump (--conf, the dashboard's upload)
    volcano_version: str | None = None  # the version the engine simulates; None: HEAD
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        docs = self.docs
        self.pgs = {f"{_meta(d).get('namespace') or 'default'}/{_meta(d).get('name')}": d
                    for d in docs if d.get("kind") == "PodGroup"}
        self.pods = [d for d in docs if d.get("kind") == "Pod" and _meta(d)]
        self.by_queue: dict[str, list[dict[str, Any]]] = {}
        for p in self.pods:
            self.by_queue.setdefault(self.queue_of(p), []).append(p)
        self.scheduler_names = _scheduler_names(docs)
        self.cluster_version = scheduler_version(docs)
        self.engine_version = version_label(self.volcano_version)
        self.global_causes = {kind: [] for kind in (STATUS, PHASE, METRIC_ALLOCATED, METRIC_PLAN)}
        self._memo: dict[tuple[str, str, bool], list[str]] = {}
        # Per queue, when its status was last written: its PodGroups' condition transition times and the
        # Queue's status writes (managedFields, when the dump kept them).
        self.stamps: dict[str, list[str]] = {}
        for pg in self.pgs.values():
            status = pg.get("status") if isinstance(pg.get("status"), dict) else {}
            self.stamps.setdefault(pg_queue(pg), []).extend(
                str(c["lastTransitionTime"]) for c in _items(status.get("conditions"))
                if isinstance(c, dict) and c.get("lastTransitionTime"))
        for d in docs:
            if d.get("kind") == "Queue":
                self.stamps.setdefault(str(_meta(d).get("name")), []).extend(
                    str(f["time"]) for f in _items(_meta(d).get("managedFields"))
                    if isinstance(f, dict) and f.get("subresource") == "status" and f.get("time"))
        self._version()
        self._configuration()

    def queue_of(self, pod: dict[str, Any]) -> str:
        group = (_meta(pod).get("annotations") or {}).get("scheduling.k8s.io/group-name")
        pg = self.pgs.get(f"{_meta(pod).get('namespace') or 'default'}/{group}")
        return pg_queue(pg) if pg else ""

    # ---- causes that hold for the whole dump ----------------------------------------------------
    def _version(self) -> None:
        image = scheduler_image(self.docs)
        if self.cluster_version is None:
            self.notes.append("version not checked: the dump has no vc-scheduler Deployment or Pod with a version "
                              f"tag{' (image ' + safe(image) + ')' if image else ''}")
            return
        if not same_release(self.cluster_version, self.volcano_version):
            cause = (f"a different Volcano version: the cluster's scheduler runs {self.cluster_version} "
                     f"(image {safe(image or '')}), the engine simulates {self.engine_version}")
            for kind in self.global_causes:
                self.global_causes[kind].append(cause)

    def _configuration(self) -> None:
        """The configuration the engine used against the one the cluster's scheduler reads."""
        found: list[str] = []
        cms = [d for d in self.docs if d.get("kind") == "ConfigMap" and _meta(d).get("name") == CONFIGMAP_NAME]
        mounted = _mounted_configmaps(self.docs)
        if self.conf_given and cms:
            found.append("the configuration given apart from the dump replaced the dump's "
                         f"{CONFIGMAP_NAME}")
        elif not cms and not self.conf_given:
            found.append(f"the dump has no {CONFIGMAP_NAME}: the engine used Volcano's default configuration")
        if mounted and CONFIGMAP_NAME not in mounted:
            found.append(f"the scheduler mounts ConfigMap {', '.join(sorted(safe(m) for m in mounted))}, "
                         f"not the {CONFIGMAP_NAME} the engine read")
        if self.conf_warnings:
            found.append("the engine read the configuration differently from Volcano: "
                         + "; ".join(safe(w) for w in self.conf_warnings[:3]))
        if not found and not mounted:
            self.notes.append("configuration checked only as far as the dump goes: it has no scheduler Deployment "
                              "or Pod saying which ConfigMap the scheduler mounts")
        for cause in found:
            cause = f"a scheduler configuration different from the one in the dump: {cause}"
            for kind in (PHASE, METRIC_PLAN):
                self.global_causes[kind].append(cause)

    # ---- causes found in one queue --------------------------------------------------------------
    def causes(self, queue: str, kind: str, resource: str = "") -> list[str]:
        """The likely causes of a difference of `kind` in `queue` (of `resource`, for a resource figure)."""
        key = (queue, kind, resource not in ("", "cpu", "memory", "pods"))
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._causes(queue, kind, resource)
        return list(found)

    def _causes(self, queue: str, kind: str, resource: str) -> list[str]:
        pods = self.by_queue.get(queue, [])
        out: list[str] = []
        if kind in (STATUS, PHASE):
            out += self._stale(queue, pods)
        others = [p for p in pods if _spec(p).get("nodeName")
                  and str(_spec(p).get("schedulerName") or "default-scheduler") not in self.scheduler_names]
        if others:
            out.append(f"pods bound by another scheduler (spec.schedulerName): {_names(others)}")
        gone = [p for p in pods if _meta(p).get("deletionTimestamp")]
        if gone:
            out.append(f"terminating pods (metadata.deletionTimestamp): {_names(gone)}")
        if kind in (STATUS, METRIC_ALLOCATED, METRIC_PLAN) and resource not in ("", "cpu", "memory", "pods"):
            out += self._unmodelled(pods)  # (DRA and sharable devices add their own resource names)
        return out + self.global_causes[kind]

    def _stale(self, queue: str, pods: list[dict[str, Any]]) -> list[str]:
        """Status stale: a pod created, scheduled or deleted after the newest status stamp of the queue's
        PodGroups (condition transition times) or the Queue's status write (managedFields, when kept)."""
        stamps = self.stamps.get(queue)
        if not stamps or not pods:
            return []
        last = max(stamps)
        events: list[tuple[str, str, dict[str, Any]]] = []
        for p in pods:
            meta = _meta(p)
            if meta.get("creationTimestamp"):
                events.append((str(meta["creationTimestamp"]), "created", p))
            if meta.get("deletionTimestamp"):
                events.append((str(meta["deletionTimestamp"]), "deleted", p))
            status = p.get("status") if isinstance(p.get("status"), dict) else {}
            for c in _items(status.get("conditions")):
                if isinstance(c, dict) and c.get("type") == "PodScheduled" and c.get("lastTransitionTime"):
                    events.append((str(c["lastTransitionTime"]), "scheduled", p))
        later = sorted((e for e in events if e[0] > last), key=lambda e: e[0])
        if not later:
            return []
        when, what, pod = later[-1]
        return [f"status stale: pod {safe(pod_name(pod))} was {what} at {safe(when)}, after the last status update "
                f"{safe(last)}"]

    def _unmodelled(self, pods: list[dict[str, Any]]) -> list[str]:
        out = []
        claims = [p for p in pods if _spec(p).get("resourceClaims")]
        if claims:
            out.append(f"resources the engine does not model: DRA claims (spec.resourceClaims) of {_names(claims)}")
        devices = sorted({name for p in pods for name in _requested_names(p) if name.startswith(DEVICE_PREFIX)})
        if devices:
            out.append("resources the engine does not model: Volcano's sharable devices ("
                       f"{', '.join(safe(d) for d in devices)})")
        return out
