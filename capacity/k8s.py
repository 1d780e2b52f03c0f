"""Kubernetes / Volcano YAML -> `Cluster`: what `kubectl get ... -o yaml` gives a user.

Reads a YAML stream or a `kind: List` of Node, Queue, PodGroup, Pod, PriorityClass, ResourceQuota
and the `volcano-scheduler-configmap` ConfigMap (acceptance FORMAT.md). Input the scheduler cannot
work from raises `InputError` naming the object and field; input Volcano tolerates is kept as Volcano
keeps it and reported in `Cluster.warnings`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import yaml

from capacity.cluster import Cluster, LoadWarning, NodeObj, PodGroupObj, PodObj
from capacity.conf import SchedulerConf, default_conf, parse_conf
from capacity.errors import InputError
from capacity.model import PodSpec, QueueSpec
from capacity.resources import Resource, from_resource_list

try:  # libyaml's C loader is several times faster on large dumps; same safe semantics.
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

CONFIGMAP_NAME = "volcano-scheduler-configmap"
CONF_KEY = "volcano-scheduler.conf"
GROUP_NAME_KEY = "scheduling.k8s.io/group-name"
TASK_SPEC_KEY = "volcano.sh/task-spec"
PREEMPTABLE_KEY = "volcano.sh/preemptable"
TASK_PRIORITY_KEY = "volcano.sh/task-priority"
NAMESPACE_WEIGHT_KEY = "volcano.sh/namespace.weight"
VOLCANO_GATE = "scheduling.volcano.sh/queue-allocation-gate"
HANDLED_KINDS = {"Node", "Queue", "PodGroup", "Pod", "PriorityClass", "ResourceQuota", "ConfigMap"}
MAX_QUEUE_DEPTH = 5


def load_cluster_file(path: str) -> Cluster:
    """Read a cluster file; a missing or unreadable file is an InputError too."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise InputError(path, "", "is not a UTF-8 text file (binary data?)") from None
    except OSError as exc:
        raise InputError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    return load_cluster(text, source=path)


def iter_documents(text: str, source: str = "input") -> Iterator[dict[str, Any]]:
    """Every object in a YAML stream, with `kind: List` flattened."""
    if "\x00" in text:
        raise InputError(source, "", "contains NUL bytes: not a YAML text file")
    try:
        docs = list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(source, where, f"malformed YAML: {problem}") from None
    yield from _flatten(docs, source)


def _flatten(docs: Iterable[Any], source: str) -> Iterator[dict[str, Any]]:
    for i, doc in enumerate(docs):
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise InputError(source, f"document {i + 1}", "is not a Kubernetes object (expected a mapping "
                             "with kind and metadata)")
        if doc.get("kind") == "List" or (doc.get("kind", "").endswith("List") and "items" in doc):
            items = doc.get("items") or []
            if not isinstance(items, list):
                raise InputError(source, f"document {i + 1}.items", "must be a list")
            yield from _flatten(items, source)
        else:
            yield doc


def load_cluster(text: str, source: str = "input", conf_text: str | None = None) -> Cluster:
    """Build a Cluster from YAML text (and optionally a separate scheduler conf text)."""
    return load_objects(iter_documents(text, source), source, conf_text)


def load_objects(objs: Iterable[dict[str, Any]], source: str = "input",
                 conf_text: str | None = None) -> Cluster:
    """Build a Cluster from already-parsed Kubernetes objects (the same checks as from YAML)."""
    cluster = Cluster(conf=default_conf())
    reader = _Reader(cluster, source)
    found_conf = False
    for doc in objs:
        found_conf |= reader.read(doc)
    if conf_text is not None:
        cluster.conf = parse_conf_text(conf_text, "volcano-scheduler.conf")
        found_conf = True
    reader.finish(found_conf)
    return cluster


def parse_conf_text(text: str, where: str) -> SchedulerConf:
    stripped = text.lstrip()
    if stripped.startswith(("apiVersion", "kind")):
        # A whole ConfigMap pasted where the conf was expected: take its data.
        for doc in iter_documents(text, where):
            if doc.get("kind") == "ConfigMap":
                data = doc.get("data") or {}
                if CONF_KEY in data:
                    return parse_conf(str(data[CONF_KEY]), where=f"ConfigMap/{CONFIGMAP_NAME}")
        raise InputError(where, "data", f"no ConfigMap with a {CONF_KEY!r} key found")
    return parse_conf(text, where=where)


def _str_map(value: Any, obj: str, fld: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(obj, fld, f"must be a mapping, got {type(value).__name__}")
    return {str(k): "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in value.items()}


def _int(value: Any, obj: str, fld: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        raise InputError(obj, fld, f"must be an integer, got {value!r}")
    return value


def parse_bool(value: str) -> bool | None:
    """Go's strconv.ParseBool; None when unparsable."""
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


class _Reader:
    """Turns objects into the Cluster, remembering names to reject duplicates."""

    def __init__(self, cluster: Cluster, source: str) -> None:
        self.c = cluster
        self.source = source
        self.node_names: set[str] = set()

    def warn(self, obj: str, fld: str, msg: str) -> None:
        self.c.warnings.append(LoadWarning(obj, fld, msg))

    def read(self, doc: dict[str, Any]) -> bool:
        kind = doc.get("kind")
        meta = doc.get("metadata")
        if not isinstance(kind, str) or not kind:
            raise InputError(self.source, "kind", f"an object has no kind: {str(doc)[:80]}")
        if meta is None or not isinstance(meta, dict):
            raise InputError(kind, "metadata", "is missing")
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(kind, "metadata.name", "is missing or empty")
        if kind not in HANDLED_KINDS:
            self.warn(f"{kind}/{name}", "kind", "kind not used by the scheduler; ignored")
            return False
        return getattr(self, f"_{kind.lower()}")(doc, meta, name)

    # ---- kinds ----------------------------------------------------------------------------
    def _configmap(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        if name != CONFIGMAP_NAME:
            self.warn(f"ConfigMap/{name}", "metadata.name", f"only {CONFIGMAP_NAME} is read; ignored")
            return False
        data = doc.get("data") or {}
        if CONF_KEY not in data:
            raise InputError(f"ConfigMap/{name}", f"data.{CONF_KEY}", "is missing")
        self.c.conf = parse_conf(str(data[CONF_KEY]), where=f"ConfigMap/{name}")
        return True

    def _node(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        obj = f"Node/{name}"
        if name in self.node_names:
            raise InputError(obj, "metadata.name", "duplicate node name")
        self.node_names.add(name)
        status = doc.get("status") or {}
        spec = doc.get("spec") or {}
        alloc_raw = status.get("allocatable")
        if alloc_raw is None:
            alloc_raw = status.get("capacity")
            if alloc_raw is None:
                self.warn(obj, "status.allocatable", "missing; the node offers nothing")
        skipped: list[str] = []
        alloc = from_resource_list(alloc_raw or {}, obj=obj, field="status.allocatable", skipped=skipped)
        for s in skipped:
            self.warn(obj, f"status.allocatable.{s}", "not a resource Volcano tracks; ignored")
        ready = True
        for cond in status.get("conditions") or []:
            if isinstance(cond, dict) and cond.get("type") == "Ready":
                ready = str(cond.get("status")) == "True"
        if not ready:
            self.warn(obj, "status.conditions", "node is not Ready; Volcano leaves it out of the snapshot")
        taints = spec.get("taints") or []
        self.c.nodes.append(NodeObj(name, _str_map(meta.get("labels"), obj, "metadata.labels"), alloc,
                                    taints if isinstance(taints, list) else [],
                                    bool(spec.get("unschedulable", False)), ready))
        return False

    def _queue(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        obj = f"Queue/{name}"
        if name in self.c.queues:
            raise InputError(obj, "metadata.name", "duplicate queue name")
        spec = doc.get("spec") or {}
        status = doc.get("status") or {}

        def res(fld: str, raw: Any) -> Resource | None:
            if raw is None or raw == {}:
                return None
            if not isinstance(raw, dict):
                raise InputError(obj, fld, "must be a mapping of resource name to quantity")
            skipped: list[str] = []
            r = from_resource_list(raw, obj=obj, field=fld, skipped=skipped)
            for s in skipped:
                self.warn(obj, f"{fld}.{s}", "not a resource name Volcano parses; silently dropped by "
                          "Volcano")
            return r

        guarantee_raw = (spec.get("guarantee") or {}).get("resource") if isinstance(
            spec.get("guarantee"), dict) else None
        state = status.get("state")
        weight = _int(spec.get("weight"), obj, "spec.weight", 1)
        priority = _int(spec.get("priority"), obj, "spec.priority", 0)
        if priority < 0:
            raise InputError(obj, "spec.priority", "must be >= 0 (Queue CRD)")
        reclaimable = spec.get("reclaimable")
        parent = spec.get("parent") or ""
        if not isinstance(parent, str):
            raise InputError(obj, "spec.parent", "must be a queue name")
        self.c.queues[name] = QueueSpec(
            name=name, weight=weight, priority=priority, parent=parent,
            state="Open" if state is None else str(state),
            reclaimable=True if reclaimable is None else bool(reclaimable),
            capability=res("spec.capability", spec.get("capability")),
            deserved=res("spec.deserved", spec.get("deserved")),
            guarantee=res("spec.guarantee.resource", guarantee_raw),
            creation=str(meta.get("creationTimestamp") or ""),
            annotations=_str_map(meta.get("annotations"), obj, "metadata.annotations"),
        )
        return False

    def _podgroup(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        ns = str(meta.get("namespace") or "default")
        obj = f"PodGroup/{ns}/{name}"
        uid = f"{ns}/{name}"
        if uid in self.c.podgroups:
            raise InputError(obj, "metadata.name", "duplicate PodGroup")
        spec = doc.get("spec") or {}
        status = doc.get("status") or {}
        mtm_raw = spec.get("minTaskMember") or {}
        if not isinstance(mtm_raw, dict):
            raise InputError(obj, "spec.minTaskMember", "must be a mapping of task name to count")
        mtm = {str(k if k is not None else ""): _int(v, obj, f"spec.minTaskMember.{k}", 0)
               for k, v in mtm_raw.items()}
        min_res_raw = spec.get("minResources")
        min_res = None
        if min_res_raw is not None:
            if not isinstance(min_res_raw, dict):
                raise InputError(obj, "spec.minResources", "must be a mapping of resource name to quantity")
            min_res = from_resource_list(min_res_raw, obj=obj, field="spec.minResources")
        min_member = _int(spec.get("minMember"), obj, "spec.minMember", 1)
        if min_member < 0:
            raise InputError(obj, "spec.minMember", "must not be negative")
        queue = spec.get("queue") or "default"
        self.c.podgroups[uid] = PodGroupObj(
            name=name, namespace=ns, queue=str(queue), min_member=min_member, min_task_member=mtm,
            min_resources=min_res, priority_class_name=str(spec.get("priorityClassName") or ""),
            phase=str(status.get("phase") or "Pending"),
            annotations=_str_map(meta.get("annotations"), obj, "metadata.annotations"),
            labels=_str_map(meta.get("labels"), obj, "metadata.labels"),
            creation=str(meta.get("creationTimestamp") or ""),
        )
        return False

    def _pod(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        ns = str(meta.get("namespace") or "default")
        obj = f"Pod/{ns}/{name}"
        key = f"{ns}/{name}"
        if key in self.c.pods:
            raise InputError(obj, "metadata.name", "duplicate pod")
        spec = doc.get("spec") or {}
        status = doc.get("status") or {}
        labels = _str_map(meta.get("labels"), obj, "metadata.labels")
        annotations = _str_map(meta.get("annotations"), obj, "metadata.annotations")
        resreq = pod_request(spec, obj)
        role = annotations.get(TASK_SPEC_KEY) or labels.get(TASK_SPEC_KEY, "")
        pre_raw = annotations.get(PREEMPTABLE_KEY, labels.get(PREEMPTABLE_KEY))
        preemptable = True if pre_raw is None else bool(parse_bool(pre_raw))
        has_priority = spec.get("priority") is not None
        raw_priority = _int(spec.get("priority"), obj, "spec.priority", 0)
        priority = raw_priority if has_priority else 1
        if TASK_PRIORITY_KEY in annotations:
            try:
                priority = int(annotations[TASK_PRIORITY_KEY])
            except ValueError:
                self.warn(obj, f"metadata.annotations.{TASK_PRIORITY_KEY}", "not an integer; ignored")
        owners = meta.get("ownerReferences") or []
        owner = next((o for o in owners if isinstance(o, dict) and o.get("controller")), None)
        if owner is None and owners and isinstance(owners[0], dict):
            owner = owners[0]
        gates = [g.get("name") for g in spec.get("schedulingGates") or [] if isinstance(g, dict)]
        podspec = PodSpec(
            labels=labels, annotations=annotations,
            node_selector=_str_map(spec.get("nodeSelector"), obj, "spec.nodeSelector"),
            affinity=spec.get("affinity") if isinstance(spec.get("affinity"), dict) else None,
            tolerations=spec.get("tolerations") or [],
            preemption_policy=str(spec.get("preemptionPolicy") or ""),
            priority_class_name=str(spec.get("priorityClassName") or ""),
            owner_kind=str((owner or {}).get("kind") or ""), owner_name=str((owner or {}).get("name") or ""),
            creation=str(meta.get("creationTimestamp") or ""),
            has_priority=has_priority, raw_priority=raw_priority,
        )
        phase = str(status.get("phase") or "Pending")
        if phase not in ("Pending", "Running", "Succeeded", "Failed", "Unknown"):
            raise InputError(obj, "status.phase", f"unknown pod phase {phase!r} (Pending, Running, "
                             "Succeeded, Failed or Unknown)")
        self.c.pods[key] = PodObj(
            name=name, namespace=ns, uid=str(meta.get("uid") or key), group=annotations.get(GROUP_NAME_KEY, ""),
            resreq=resreq, phase=phase, node_name=str(spec.get("nodeName") or ""),
            deleting=meta.get("deletionTimestamp") is not None, spec=podspec, role=role,
            preemptable=preemptable, priority=priority,
            sch_gated=any(g != VOLCANO_GATE for g in gates),
            nominated_node=str(status.get("nominatedNodeName") or ""),
        )
        return False

    def _priorityclass(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        obj = f"PriorityClass/{name}"
        value = _int(doc.get("value"), obj, "value", 0)
        self.c.priority_classes[name] = value
        if doc.get("globalDefault"):
            self.c.global_default_priority = value
        return False

    def _resourcequota(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        ns = str(meta.get("namespace") or "default")
        hard = (doc.get("spec") or {}).get("hard") or {}
        if NAMESPACE_WEIGHT_KEY in hard:
            from capacity.quantity import parse_quantity, value
            q = parse_quantity(hard[NAMESPACE_WEIGHT_KEY], obj=f"ResourceQuota/{ns}/{name}",
                               field=f"spec.hard.{NAMESPACE_WEIGHT_KEY}")
            self.c.namespace_weights[ns] = max(self.c.namespace_weights.get(ns, 1), value(q))
        return False

    # ---- cross-object checks --------------------------------------------------------------
    def finish(self, found_conf: bool) -> None:
        c = self.c
        if not found_conf:
            self.warn(f"ConfigMap/{CONFIGMAP_NAME}", "", "not given; using Volcano's default "
                      "configuration (enqueue, allocate, backfill; priority, gang, conformance | "
                      "overcommit, drf, predicates, proportion, nodeorder)")
        check_queue_tree(c.queues)
        for uid, pg in c.podgroups.items():
            if pg.queue not in c.queues:
                self.warn(f"PodGroup/{uid}", "spec.queue", f"queue {pg.queue!r} does not exist; Volcano "
                          "leaves the job out of the session (its pods still use node resources)")
        node_names = {n.name for n in c.nodes}
        for key, pod in c.pods.items():
            if pod.group and f"{pod.namespace}/{pod.group}" not in c.podgroups:
                self.warn(f"Pod/{key}", f"metadata.annotations.{GROUP_NAME_KEY}",
                          f"PodGroup {pod.namespace}/{pod.group} does not exist; the pod is never scheduled")
            elif not pod.group and pod.phase == "Pending" and not pod.node_name:
                self.warn(f"Pod/{key}", f"metadata.annotations.{GROUP_NAME_KEY}",
                          "missing; Volcano's PodGroup controller would create a PodGroup for it, this "
                          "snapshot has none, so the pod is not scheduled")
            if pod.node_name and pod.node_name not in node_names:
                self.warn(f"Pod/{key}", "spec.nodeName", f"node {pod.node_name!r} does not exist")
        opt = c.conf.plugin("capacity")
        if opt is not None and opt.hierarchy:
            children = {q.parent or "root" for q in c.queues.values() if q.name != "root"}
            for uid, pg in c.podgroups.items():
                if pg.queue in children:
                    self.warn(f"PodGroup/{uid}", "spec.queue", f"queue {pg.queue!r} has child queues; with "
                              "hierarchy on, Volcano's capacity plugin refuses to schedule anything this "
                              "cycle (readyToSchedule=false)")


def check_queue_tree(queues: dict[str, Any]) -> None:
    """Refuse self-parents and cycles, which crash Volcano's capacity plugin (spec §3.1)."""
    for name, q in queues.items():
        if q.parent == name:
            raise InputError(f"Queue/{name}", "spec.parent", "a queue cannot be its own parent")
    for name in queues:
        seen = [name]
        cur = queues[name].parent
        while cur and cur in queues and cur != "root":
            if cur in seen:
                loop = " -> ".join(seen[seen.index(cur):] + [cur])
                raise InputError(f"Queue/{name}", "spec.parent", f"queue parents form a cycle: {loop}")
            seen.append(cur)
            cur = queues[cur].parent


def pod_request(spec: dict[str, Any], obj: str) -> Resource:
    """GetPodResourceRequest: containers summed, init containers' peak, overhead, plus pods: 1."""
    def container_req(c: dict[str, Any], fld: str) -> Resource:
        res = c.get("resources") or {}
        req = dict(res.get("requests") or {})
        for k, v in (res.get("limits") or {}).items():
            req.setdefault(k, v)  # the API server defaults requests to limits
        return from_resource_list(req, obj=obj, field=fld)

    total = Resource.empty()
    for i, c in enumerate(spec.get("containers") or []):
        total.add(container_req(c, f"spec.containers[{i}].resources.requests"))
    sidecars = Resource.empty()
    peak = Resource.empty()
    for i, c in enumerate(spec.get("initContainers") or []):
        r = container_req(c, f"spec.initContainers[{i}].resources.requests")
        if c.get("restartPolicy") == "Always":
            sidecars.add(r)
            total.add(r)
        else:
            peak = _max_res(peak, r.clone().add(sidecars))
    total = _max_res(total, peak)
    overhead = spec.get("overhead")
    if overhead:
        total.add(from_resource_list(overhead, obj=obj, field="spec.overhead"))
    total.add(Resource(0.0, 0.0, {"pods": 1.0}))
    return total


def _max_res(a: Resource, b: Resource) -> Resource:
    out = Resource(max(a.cpu, b.cpu), max(a.memory, b.memory), None)
    if a.scalars is not None or b.scalars is not None:
        out.scalars = dict(a.scalars or {})
        for k, v in (b.scalars or {}).items():
            out.scalars[k] = max(out.scalars.get(k, 0.0), v)
    return out


def default_queue_names() -> tuple[str, str]:
    return "root", "default"
