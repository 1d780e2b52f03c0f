"""Kubernetes / Volcano YAML -> `Cluster`: what `kubectl get ... -o yaml` gives a user.

Reads a YAML stream or a `kind: List` of Node, Queue, PodGroup, Pod, PriorityClass, ResourceQuota
and the `volcano-scheduler-configmap` ConfigMap (acceptance FORMAT.md). Input the scheduler cannot
work from raises `InputError` naming the object and field; input Volcano tolerates is kept as Volcano
keeps it and reported in `Cluster.warnings`.
"""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Iterable, Iterator
from typing import Any

from capacity.core import cards, limits, names
from capacity.core.cluster import Cluster, LoadWarning, NodeObj, PodGroupObj, PodObj
from capacity.core.conf import SchedulerConf, default_conf, load_conf, parse_conf
from capacity.core.errors import InputError
from capacity.core.model import PodSpec, QueueSpec
from capacity.core.quantity import UnitStyles, format_resource_value
from capacity.core.resources import ZERO, Resource, from_resource_list
from capacity.core.text import safe
from capacity.core.webhook import admission_warnings
from capacity.io.volcano_image import WORKLOAD_KINDS, scheduler_version

CONFIGMAP_NAME = "volcano-scheduler-configmap"
CONF_KEY = "volcano-scheduler.conf"
GROUP_NAME_KEY = "scheduling.k8s.io/group-name"
TASK_SPEC_KEY = "volcano.sh/task-spec"
PREEMPTABLE_KEY = "volcano.sh/preemptable"
TASK_PRIORITY_KEY = "volcano.sh/task-priority"
NAMESPACE_WEIGHT_KEY = "volcano.sh/namespace.weight"
VOLCANO_GATE = "scheduling.volcano.sh/queue-allocation-gate"
HANDLED_KINDS = {"Node", "Queue", "PodGroup", "Pod", "PriorityClass", "ResourceQuota", "ConfigMap"}
NAMESPACED_KINDS = {"PodGroup", "Pod", "ResourceQuota", "ConfigMap"}
MAX_QUEUE_DEPTH = 5
#: Deeper parent chains are refused outright (the webhook's default is MAX_QUEUE_DEPTH).
MAX_TREE_DEPTH = 100
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
#: Resource names a user most likely meant when Volcano drops an unknown one.
COMMON_RESOURCES = ("cpu", "memory", "pods", "ephemeral-storage", "nvidia.com/gpu")
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_UNITLESS = re.compile(r"\s*\+?[0-9]+\s*")


def load_cluster_file(path: str) -> Cluster:
    """Read a cluster file; a missing, unreadable, binary or oversized file is an InputError too."""
    return load_cluster(limits.read_text_file(path), source=path)


def iter_documents(text: str, source: str = "input") -> Iterator[dict[str, Any]]:
    """Every object in a YAML stream, with `kind: List` flattened.

    Safe loading only, after the size and structure checks of `capacity.core.limits` (anchor bombs,
    nesting, duplicate keys): nothing in the input is ever evaluated.
    """
    yield from _flatten(limits.safe_load_all(text, source), source, "")


def _flatten(docs: Iterable[Any], source: str, where: str) -> Iterator[dict[str, Any]]:
    for i, doc in enumerate(docs):
        here = f"{where}.items[{i}]" if where else f"document {i + 1}"
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise InputError(source, here, "is not a Kubernetes object (expected a mapping with kind and "
                             f"metadata, got {_type_name(doc)})")
        kind = doc.get("kind")
        if isinstance(kind, str) and (kind == "List" or (kind.endswith("List") and "items" in doc)):
            items = doc.get("items")
            if items is None:
                continue
            if not isinstance(items, list):
                raise InputError(source, f"{here}.items", f"must be a list, got {_type_name(items)}")
            yield from _flatten(items, source, here)
        else:
            yield doc


def load_cluster(text: str, source: str = "input", conf_text: str | None = None) -> Cluster:
    """Build a Cluster from YAML text (and optionally a separate scheduler conf text).

    Text over the input size limit (`capacity.core.limits.max_input_bytes`) is refused before parsing.
    """
    from capacity.core.gcpause import gc_paused
    with gc_paused():
        return load_objects(iter_documents(text, source), source, conf_text)


def load_objects(objs: Iterable[dict[str, Any]], source: str = "input",
                 conf_text: str | None = None) -> Cluster:
    """Build a Cluster from already-parsed Kubernetes objects (the same checks as from YAML)."""
    cluster = Cluster(conf=default_conf())
    reader = _Reader(cluster, source)
    found_conf = False
    count = 0
    workloads: list[dict[str, Any]] = []  # where the scheduler's image may be: read here, not by a second parse
    for doc in objs:
        count += 1
        found_conf |= reader.read(doc)
        if isinstance(doc, dict) and doc.get("kind") in WORKLOAD_KINDS:
            workloads.append(doc)
    if count == 0:
        raise InputError(source, "", "contains no Kubernetes objects (an empty file?); expected Nodes, "
                         "Queues, PodGroups and Pods")
    if conf_text is not None:
        cluster.conf = parse_conf_text(conf_text, "volcano-scheduler.conf")
        found_conf = True
    reader.finish(found_conf)
    cluster.scheduler_version = scheduler_version(workloads)
    return cluster


def parse_conf_text(text: str, where: str, strict: bool = False) -> SchedulerConf:
    """A configuration given on its own (a file or a ConfigMap): what Volcano runs with, its default if Volcano
    refuses the text (with a warning); `strict` (an editor) raises the refusal instead (ConfRefused)."""
    load = parse_conf if strict else load_conf
    stripped = text.lstrip()
    if stripped.startswith(("apiVersion", "kind")):
        # A whole ConfigMap pasted where the conf was expected: take its data.
        for doc in iter_documents(text, where):
            if doc.get("kind") == "ConfigMap":
                data = doc.get("data") or {}
                if CONF_KEY in data:
                    return load(str(data[CONF_KEY]), where=f"ConfigMap/{CONFIGMAP_NAME}")
        raise InputError(where, "data", f"no ConfigMap with a {CONF_KEY!r} key found")
    return load(text, where=where)


def _type_name(value: Any) -> str:
    """What a YAML value is, in the user's words (never its full text: it may be huge)."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {_short(value)}"
    if isinstance(value, int | float):
        return f"the number {_short(value)}"
    return f"{type(value).__name__} {_short(value)}"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value) if isinstance(value, str | int | float | bool) else f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


def _map(value: Any, obj: str, fld: str) -> dict[Any, Any]:
    """A mapping field: absent (null) reads as empty, anything but a mapping is an InputError."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(obj, fld, f"must be a mapping, got {_type_name(value)}")
    return value


def _list(value: Any, obj: str, fld: str, items: str = "") -> list[Any]:
    """A list field: absent (null) reads as empty; `items="mapping"` also checks every element."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(obj, fld, f"must be a list, got {_type_name(value)}")
    if items == "mapping":
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise InputError(obj, f"{fld}[{i}]", f"must be a mapping, got {_type_name(item)}")
    return value


def _scalar_text(value: Any, obj: str, fld: str) -> str:
    """A string field as the API server stores it: YAML numbers and booleans are taken as their text."""
    if type(value) is str:
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, datetime.datetime | datetime.date):
        return _timestamp(value)
    if isinstance(value, str | int | float):
        return str(value)
    raise InputError(obj, fld, f"must be a string, got {_type_name(value)}")


def _timestamp(value: Any) -> str:
    """An unquoted YAML timestamp, back in the RFC 3339 form kubectl writes ("2024-01-01T00:00:00Z").

    Without this a quoted and an unquoted creationTimestamp would compare as different strings
    ("2024-01-01 00:00:00+00:00" sorts before "2024-01-01T00:00:00Z"), changing job and queue order.
    """
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.UTC).replace(tzinfo=None)
        text = value.isoformat(timespec="microseconds" if value.microsecond else "seconds")
        return text + "Z"
    if isinstance(value, datetime.date):
        return f"{value.isoformat()}T00:00:00Z"
    return str(value)


def _str_map(value: Any, obj: str, fld: str) -> dict[str, str]:
    """labels, annotations, nodeSelector: string keys to string values (numbers/booleans as text)."""
    out: dict[str, str] = {}
    for k, v in _map(value, obj, fld).items():
        if type(k) is str and type(v) is str:  # the usual case, as _scalar_text would take it
            out[k] = v
            continue
        if isinstance(k, dict | list) or k is None:
            raise InputError(obj, fld, f"keys must be strings, got {_type_name(k)}")
        out[_scalar_text(k, obj, fld)] = _scalar_text(v, obj, f"{fld}.{k}")
    return out


def _int(value: Any, obj: str, fld: str, default: int, low: int = INT32_MIN, high: int = INT32_MAX) -> int:
    """An integer field (int32 unless told otherwise); a quoted integer is accepted as before."""
    if value is None:
        return default
    if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()) and len(value) < 30:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(obj, fld, f"must be an integer, got {_type_name(value)}")
    if not low <= value <= high:
        raise InputError(obj, fld, f"must be between {low} and {high}, got {value}")
    return value


def _bool(value: Any, obj: str, fld: str, default: bool) -> bool:
    """A boolean field: true or false (a quoted "true"/"false" too); anything else is an InputError.

    Python's bool("false") is True, so a quoted "false" must never be taken by truthiness.
    """
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InputError(obj, fld, f"must be true or false, got {_type_name(value)}")


def _str(value: Any, obj: str, fld: str) -> str:
    """A name-like string field; absent is "", numbers are taken as text, collections refused."""
    return _scalar_text(value, obj, fld)


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# The parts of a pod's affinity the predicates read, as {key: shape}: a dict is a mapping with those
# keys, a one-element list a list of that shape, `str` a string, `"scalar"` a string/number/boolean.
_EXPR = {"key": str, "operator": str, "values": ["scalar"]}
_SELECTOR = {"matchLabels": {"*": "scalar"}, "matchExpressions": [_EXPR]}
_POD_TERM = {"labelSelector": _SELECTOR, "topologyKey": str, "namespaces": ["scalar"]}
_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [_EXPR], "matchFields": [_EXPR]}]},
    },
    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_POD_TERM]},
    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_POD_TERM]},
}
_TOLERATION = {"key": "scalar", "operator": str, "value": "scalar", "effect": str}
_TAINT = {"key": "scalar", "value": "scalar", "effect": str}


def _check_shape(value: Any, shape: Any, obj: str, fld: str, item: bool = False) -> None:
    """Refuse a value whose structure the engine would trip over, naming the exact field.

    A null field reads as absent; a null list element (``[null]``) is refused.
    """
    if value is None:
        if item:
            raise InputError(obj, fld, "must not be null")
        return
    if shape is str:
        if not isinstance(value, str):
            raise InputError(obj, fld, f"must be a string, got {_type_name(value)}")
    elif shape == "scalar":
        if not isinstance(value, str | int | float | bool):
            raise InputError(obj, fld, f"must be a string, got {_type_name(value)}")
    elif isinstance(shape, list):
        for i, item in enumerate(_list(value, obj, fld)):
            _check_shape(item, shape[0], obj, f"{fld}[{i}]", item=True)
    elif isinstance(shape, dict):
        mapping = _map(value, obj, fld)
        if "*" in shape:
            for k, v in mapping.items():
                _check_shape(v, shape["*"], obj, f"{fld}.{k}")
        for k, sub in shape.items():
            if k in mapping:
                _check_shape(mapping[k], sub, obj, f"{fld}.{k}")


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
        self.conf_seen = False
        self.styles = UnitStyles()  # how the input wrote its quantities: Cluster.unit_styles
        # ResourceLists read without a warning, by their items: a dump repeats a few dozen request shapes
        # over thousands of pods, and parsing each quantity again was a fifth of the reading.
        self._resource_lists: dict[tuple[Any, ...], Resource] = {}

    def warn(self, obj: str, fld: str, msg: str) -> None:
        self.c.warnings.append(LoadWarning(obj, fld, msg))

    def read(self, doc: dict[str, Any]) -> bool:
        if not isinstance(doc, dict):
            raise InputError(self.source, "", f"an object must be a mapping with kind and metadata, got "
                             f"{_type_name(doc)}")
        kind = doc.get("kind")
        meta = doc.get("metadata")
        if not isinstance(kind, str) or not kind.strip():
            keys = ", ".join(str(k) for k in list(doc)[:6])
            got = "no kind" if kind is None or kind == "" else f"kind {_type_name(kind)}"
            raise InputError(self.source, "kind", f"an object has {got} (its keys: {keys or 'none'})")
        if not isinstance(meta, dict):
            raise InputError(kind, "metadata", "is missing" if meta is None else
                             f"must be a mapping, got {_type_name(meta)}")
        name = meta.get("name")
        if name is None or name == "":
            raise InputError(kind, "metadata.name", "is missing or empty")
        if not isinstance(name, str):
            hint = (" (Kubernetes' YAML reads an unquoted yes, no, on, off, true or false as a boolean: "
                    "quote the name)") if isinstance(name, bool) else ""
            raise InputError(kind, "metadata.name", f"must be a string, got {_type_name(name)}{hint}")
        if kind not in HANDLED_KINDS:
            hint = _suggest(kind, HANDLED_KINDS) if kind.lower() != "namespace" else ""
            self.warn(f"{kind}/{name}", "kind", f"kind not used by the scheduler; ignored{hint}")
            return False
        ns = meta.get("namespace")
        if ns is not None and not isinstance(ns, str):
            raise InputError(f"{kind}/{name}", "metadata.namespace", f"must be a string, got {_type_name(ns)}")
        for part in ("spec", "status"):
            if doc.get(part) is not None and not isinstance(doc[part], dict):
                raise InputError(f"{kind}/{name}", part, f"must be a mapping, got {_type_name(doc[part])}")
        self._check_names(kind, meta, name)
        return getattr(self, f"_{kind.lower()}")(doc, meta, name)

    def _check_names(self, kind: str, meta: dict[str, Any], name: str) -> None:
        """Warn about names and labels the API server would refuse (the object is kept: issue 26)."""
        ns = meta.get("namespace")
        namespaced = kind in NAMESPACED_KINDS
        obj = f"{kind}/{ns or 'default'}/{name}" if namespaced and kind != "ConfigMap" else f"{kind}/{name}"
        why = names.subdomain_problem(name)
        if why is not None:
            self.warn(obj, "metadata.name", names.invalid("name", name, why))
        if namespaced and isinstance(ns, str) and ns:
            why = names.label_problem(ns)
            if why is not None:
                self.warn(obj, "metadata.namespace", names.invalid("namespace name", ns, why))
        labels = meta.get("labels")
        if isinstance(labels, dict):
            for key, value in labels.items():
                if not isinstance(key, str):
                    continue
                why = names.label_key_problem(key)
                if why is not None:
                    self.warn(obj, f"metadata.labels.{safe(key[:80])}", names.invalid("label key", key, why))
                elif isinstance(value, str):
                    why = names.label_value_problem(value)
                    if why is not None:
                        self.warn(obj, f"metadata.labels.{key}", names.invalid("label value", value, why))

    def _resources(self, raw: Any, obj: str, fld: str, why: str) -> Resource:
        """A ResourceList, with a warning for every name Volcano drops and for unit-less memory."""
        if raw is not None and not isinstance(raw, dict):
            raise InputError(obj, fld, f"must be a mapping of resource name to quantity, got {_type_name(raw)}")
        items = tuple(raw.items()) if raw else ()
        try:
            known = self._resource_lists.get(items)
        except TypeError:  # an unhashable quantity (a list...): parsed, and refused, below
            known = items = None  # type: ignore[assignment]
        if known is not None:
            for name, v in items:
                self.styles.note(name, v)
            return known.clone()
        skipped: list[str] = []
        r = from_resource_list(raw or {}, obj=obj, field=fld, skipped=skipped, styles=self.styles)
        for s in skipped:
            self.warn(obj, f"{fld}.{s}", f"not a resource name Volcano parses; {why}{_suggest(s, COMMON_RESOURCES)}")
        for name in ("memory", "ephemeral-storage"):
            v = (raw or {}).get(name)
            text = str(v) if isinstance(v, int | str) and not isinstance(v, bool) else ""
            if len(text) < 12 and _UNITLESS.fullmatch(text):
                n = int(text.strip())
                if 0 < n < 2**20:
                    self.warn(obj, f"{fld}.{name}", f"{v!r} has no unit, so it is {n} bytes; a unit such as "
                              f"'{n}Mi' or '{n}Gi' is probably missing")
                    items = None  # type: ignore[assignment]  (its warning names this object: not kept)
        if items is not None and not skipped and all(type(v) is str for _, v in items):
            self._resource_lists[items] = r.clone()  # (text only: 1 == 1.0 == True as keys)
        return r

    # ---- kinds ----------------------------------------------------------------------------
    def _configmap(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        if name != CONFIGMAP_NAME:
            self.warn(f"ConfigMap/{name}", "metadata.name", f"only {CONFIGMAP_NAME} is read; ignored")
            return False
        obj = f"ConfigMap/{name}"
        data = _map(doc.get("data"), obj, "data")
        if CONF_KEY not in data:
            raise InputError(obj, f"data.{CONF_KEY}", "is missing")
        text = data[CONF_KEY]
        if not isinstance(text, str):
            raise InputError(obj, f"data.{CONF_KEY}", f"must be the configuration as a string, got "
                             f"{_type_name(text)}")
        if self.conf_seen:
            self.warn(obj, "metadata.name", "given more than once; the last one is used")
        self.conf_seen = True
        try:
            self.c.conf = load_conf(text, where=obj)
        except InputError as exc:
            if exc.obj != obj or (exc.field and not exc.field.startswith("line")):
                raise
            fld = f"data.{CONF_KEY}" + (f", {exc.field}" if exc.field else "")
            raise InputError(obj, fld, exc.message) from None
        return True

    def _node(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        obj = f"Node/{name}"
        if name in self.node_names:
            raise InputError(obj, "metadata.name", "duplicate node name")
        self.node_names.add(name)
        status = _map(doc.get("status"), obj, "status")
        spec = _map(doc.get("spec"), obj, "spec")
        fld = "status.allocatable"
        alloc_raw = status.get("allocatable")
        if alloc_raw is None:
            alloc_raw = status.get("capacity")
            fld = "status.capacity"
            if alloc_raw is None:
                self.warn(obj, "status.allocatable", "missing; the node offers nothing")
        alloc = self._resources(alloc_raw, obj, fld, "ignored")
        ready = True
        for i, cond in enumerate(_list(status.get("conditions"), obj, "status.conditions", "mapping")):
            if cond.get("type") == "Ready":
                ready = _str(cond.get("status"), obj, f"status.conditions[{i}].status") == "True"
        if not ready:
            self.warn(obj, "status.conditions", "node is not Ready; Volcano leaves it out of the snapshot")
        taints = _list(spec.get("taints"), obj, "spec.taints", "mapping")
        for i, taint in enumerate(taints):
            _check_shape(taint, _TAINT, obj, f"spec.taints[{i}]")
        labels = _str_map(meta.get("labels"), obj, "metadata.labels")
        for key, problem in cards.label_problems(labels):
            self.warn(obj, f"metadata.labels.{key}", f"{_short(labels[key])}: {problem}")
        self.c.nodes.append(NodeObj(name, labels, alloc, taints,
                                    _bool(spec.get("unschedulable"), obj, "spec.unschedulable", False), ready))
        return False

    def _queue(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        obj = f"Queue/{name}"
        if name in self.c.queues:
            raise InputError(obj, "metadata.name", "duplicate queue name")
        spec = _map(doc.get("spec"), obj, "spec")
        status = _map(doc.get("status"), obj, "status")

        def res(fld: str, raw: Any) -> Resource | None:
            if raw is None or raw == {}:
                return None
            return self._resources(raw, obj, fld, "silently dropped by Volcano")

        guarantee = _map(spec.get("guarantee"), obj, "spec.guarantee")
        for key in guarantee:
            if key != "resource":  # (the API server prunes it: a quota written one level too high is lost)
                self.warn(obj, f"spec.guarantee.{key}", "not a field of a queue's guarantee; the API server "
                          "drops it (a guarantee is spec.guarantee.resource, e.g. resource: {cpu: 4})")
        state = status.get("state")
        weight = _int(spec.get("weight"), obj, "spec.weight", 1)  # 1..65535 is the webhook's rule (lint)
        priority = _int(spec.get("priority"), obj, "spec.priority", 0, 0)
        parent = _str(spec.get("parent"), obj, "spec.parent")
        self.c.queues[name] = QueueSpec(
            name=name, weight=weight, priority=priority, parent=parent,
            state="Open" if state is None else _str(state, obj, "status.state"),
            reclaimable=_bool(spec.get("reclaimable"), obj, "spec.reclaimable", True),
            capability=res("spec.capability", spec.get("capability")),
            deserved=res("spec.deserved", spec.get("deserved")),
            guarantee=res("spec.guarantee.resource", guarantee.get("resource")),
            creation=_str(meta.get("creationTimestamp"), obj, "metadata.creationTimestamp"),
            annotations=_str_map(meta.get("annotations"), obj, "metadata.annotations"),
        )
        self._check_card_json(obj, self.c.queues[name].annotations, cards.QUOTA_KEY)
        return False

    def _check_card_json(self, obj: str, annotations: dict[str, str], key: str) -> None:
        """A capacity-card annotation Go cannot unmarshal into map[string]int: said at load (the plugin
        ignores the whole annotation when the session opens, as Volcano's would)."""
        _, problem = cards.parse_card_json(annotations.get(key))
        if problem:
            self.warn(obj, f"metadata.annotations.{key}", problem)

    def _podgroup(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        ns = meta.get("namespace") or "default"
        obj = f"PodGroup/{ns}/{name}"
        uid = f"{ns}/{name}"
        if uid in self.c.podgroups:
            raise InputError(obj, "metadata.name", "duplicate PodGroup")
        spec = _map(doc.get("spec"), obj, "spec")
        status = _map(doc.get("status"), obj, "status")
        mtm = {_str(k, obj, "spec.minTaskMember"): _int(v, obj, f"spec.minTaskMember.{k}", 0, 0)
               for k, v in _map(spec.get("minTaskMember"), obj, "spec.minTaskMember").items()}
        min_res_raw = spec.get("minResources")
        min_res = None
        if min_res_raw is not None:
            min_res = self._resources(min_res_raw, obj, "spec.minResources", "Volcano does not count it")
        min_member = _int(spec.get("minMember"), obj, "spec.minMember", 1, 0)
        queue = _str(spec.get("queue"), obj, "spec.queue") or "default"
        self.c.podgroups[uid] = PodGroupObj(
            name=name, namespace=ns, queue=queue, min_member=min_member, min_task_member=mtm,
            min_resources=min_res, priority_class_name=_str(spec.get("priorityClassName"), obj,
                                                            "spec.priorityClassName"),
            phase=_str(status.get("phase"), obj, "status.phase") or "Pending",
            annotations=_str_map(meta.get("annotations"), obj, "metadata.annotations"),
            labels=_str_map(meta.get("labels"), obj, "metadata.labels"),
            creation=_str(meta.get("creationTimestamp"), obj, "metadata.creationTimestamp"),
        )
        self._check_card_json(obj, self.c.podgroups[uid].annotations, cards.REQUEST_KEY)
        return False

    def _pod(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        ns = meta.get("namespace") or "default"
        obj = f"Pod/{ns}/{name}"
        key = f"{ns}/{name}"
        if key in self.c.pods:
            raise InputError(obj, "metadata.name", "duplicate pod")
        spec = _map(doc.get("spec"), obj, "spec")
        status = _map(doc.get("status"), obj, "status")
        labels = _str_map(meta.get("labels"), obj, "metadata.labels")
        annotations = _str_map(meta.get("annotations"), obj, "metadata.annotations")
        resreq = pod_request(spec, obj, self)
        role = annotations.get(TASK_SPEC_KEY) or labels.get(TASK_SPEC_KEY, "")
        pre_raw = annotations.get(PREEMPTABLE_KEY, labels.get(PREEMPTABLE_KEY))
        preemptable = True if pre_raw is None else bool(parse_bool(pre_raw))
        has_priority = spec.get("priority") is not None
        raw_priority = _int(spec.get("priority"), obj, "spec.priority", 0)
        priority = raw_priority if has_priority else 1
        if TASK_PRIORITY_KEY in annotations:
            text = annotations[TASK_PRIORITY_KEY]
            if _INT_TEXT.fullmatch(text) and len(text) <= 20 and -(2**63) <= int(text) < 2**63:
                priority = int(text)
            else:
                self.warn(obj, f"metadata.annotations.{TASK_PRIORITY_KEY}", "not an integer; ignored")
        owners = _list(meta.get("ownerReferences"), obj, "metadata.ownerReferences", "mapping")
        owner = next((o for o in owners if o.get("controller")), None)
        if owner is None and owners:
            owner = owners[0]
        gates = [_str(g.get("name"), obj, f"spec.schedulingGates[{i}].name") for i, g in
                 enumerate(_list(spec.get("schedulingGates"), obj, "spec.schedulingGates", "mapping"))]
        affinity = spec.get("affinity")
        _check_shape(affinity, _AFFINITY, obj, "spec.affinity")
        tolerations = _list(spec.get("tolerations"), obj, "spec.tolerations", "mapping")
        for i, tol in enumerate(tolerations):
            _check_shape(tol, _TOLERATION, obj, f"spec.tolerations[{i}]")
        podspec = PodSpec(
            labels=labels, annotations=annotations,
            node_selector=_str_map(spec.get("nodeSelector"), obj, "spec.nodeSelector"),
            affinity=affinity or None,
            tolerations=tolerations,
            preemption_policy=_str(spec.get("preemptionPolicy"), obj, "spec.preemptionPolicy"),
            priority_class_name=_str(spec.get("priorityClassName"), obj, "spec.priorityClassName"),
            owner_kind=_str((owner or {}).get("kind"), obj, "metadata.ownerReferences.kind"),
            owner_name=_str((owner or {}).get("name"), obj, "metadata.ownerReferences.name"),
            creation=_str(meta.get("creationTimestamp"), obj, "metadata.creationTimestamp"),
            has_priority=has_priority, raw_priority=raw_priority,
        )
        phase = _str(status.get("phase"), obj, "status.phase") or "Pending"
        if phase not in ("Pending", "Running", "Succeeded", "Failed", "Unknown"):
            raise InputError(obj, "status.phase", f"unknown pod phase {phase!r} (Pending, Running, "
                             "Succeeded, Failed or Unknown)")
        self.c.pods[key] = PodObj(
            name=name, namespace=ns, uid=_str(meta.get("uid"), obj, "metadata.uid") or key,
            group=annotations.get(GROUP_NAME_KEY, ""),
            resreq=resreq, phase=phase, node_name=_str(spec.get("nodeName"), obj, "spec.nodeName"),
            deleting=meta.get("deletionTimestamp") is not None, spec=podspec, role=role,
            preemptable=preemptable, priority=priority,
            sch_gated=any(g != VOLCANO_GATE for g in gates),
            nominated_node=_str(status.get("nominatedNodeName"), obj, "status.nominatedNodeName"),
        )
        return False

    def _priorityclass(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        obj = f"PriorityClass/{name}"
        value = _int(doc.get("value"), obj, "value", 0)
        self.c.priority_classes[name] = value
        if _bool(doc.get("globalDefault"), obj, "globalDefault", False):
            self.c.global_default_priority = value
        return False

    def _resourcequota(self, doc: dict[str, Any], meta: dict[str, Any], name: str) -> bool:
        ns = meta.get("namespace") or "default"
        obj = f"ResourceQuota/{ns}/{name}"
        hard = _map(_map(doc.get("spec"), obj, "spec").get("hard"), obj, "spec.hard")
        if NAMESPACE_WEIGHT_KEY in hard:
            from capacity.core.quantity import parse_quantity, value
            q = parse_quantity(hard[NAMESPACE_WEIGHT_KEY], obj=obj, field=f"spec.hard.{NAMESPACE_WEIGHT_KEY}")
            self.c.namespace_weights[ns] = max(self.c.namespace_weights.get(ns, 1), value(q))
        return False

    # ---- cross-object checks --------------------------------------------------------------
    def finish(self, found_conf: bool) -> None:
        c = self.c
        c.unit_styles = self.styles.chosen()
        if not found_conf:
            self.warn(f"ConfigMap/{CONFIGMAP_NAME}", "", "not given; using Volcano's default "
                      "configuration (enqueue, allocate, backfill; priority, gang, conformance | "
                      "overcommit, drf, predicates, proportion, nodeorder)")
        check_queue_tree(c.queues)
        c.warnings.extend(admission_warnings(c))  # what the queue webhook would refuse (capacity.core.webhook)
        for uid, pg in c.podgroups.items():
            if pg.queue not in c.queues:
                self.warn(f"PodGroup/{uid}", "spec.queue", f"queue {pg.queue!r} does not exist; Volcano "
                          "leaves the job out of the session (its pods still use node resources)")
        self._check_nodes()
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
        hierarchy = opt is not None and opt.hierarchy
        for name, q in c.queues.items():
            if q.parent and q.parent != "root" and q.parent not in c.queues:
                self.warn(f"Queue/{name}", "spec.parent", f"parent queue {q.parent!r} does not exist; " + (
                    "with hierarchy on, Volcano's capacity plugin refuses to schedule anything this cycle "
                    "(readyToSchedule=false)" if hierarchy else "ignored while capacity's hierarchy is off"))
        if hierarchy:
            children = {q.parent or "root" for q in c.queues.values() if q.name != "root"}
            for uid, pg in c.podgroups.items():
                if pg.queue in children:
                    self.warn(f"PodGroup/{uid}", "spec.queue", f"queue {pg.queue!r} has child queues; with "
                              "hierarchy on, Volcano's capacity plugin refuses to schedule anything this "
                              "cycle (readyToSchedule=false)")


    def _check_nodes(self) -> None:
        """No node to schedule on (a dump taken during an outage), and nodes already over-committed."""
        c = self.c
        ready = [n for n in c.nodes if n.ready]
        if not ready and any(p.phase == "Pending" and not p.node_name for p in c.pods.values()):
            what = ("the input has no Node" if not c.nodes else "the only node is not Ready" if len(c.nodes) == 1
                    else f"none of the {len(c.nodes)} nodes is Ready")
            self.warn("Node", "status.conditions", f"{what}; Volcano's snapshot then holds no node "
                      "(cache.go:1510-1513 @ed72c7c8), so no pod is placed and nothing is evicted this cycle")
        used: dict[str, Resource] = {}
        for pod in c.pods.values():
            # Terminated pods are not on a node for Volcano (a Succeeded or Failed task is never added).
            if pod.node_name and pod.phase not in ("Succeeded", "Failed"):
                used.setdefault(pod.node_name, Resource.empty()).add(pod.resreq)
        for n in ready:
            total = used.get(n.name)
            if total is None:
                continue
            ok, dims = total.less_equal_with_resources_name(n.allocatable, ZERO)
            if ok:
                continue
            detail = ", ".join(f"{d} {format_resource_value(d, total.get(d))} > "
                               f"{format_resource_value(d, n.allocatable.get(d))}" for d in dims)
            # setNodeState only logs "Node out of sync" and keeps the node Ready (node_info.go:318-340
            # @ed72c7c8); every task on it is added with allocateIdleResource, which lets Idle go negative
            # (node_info.go:426-437, 441-487): nothing else fits on the node, and reclaim / preempt start
            # from the negative FutureIdle (reclaim.go:222-247), so they evict more to make room.
            self.warn(f"Node/{n.name}", "status.allocatable", f"running pods request more than the node holds "
                      f"({detail}); Volcano logs 'Node out of sync' and keeps the node Ready with a negative "
                      "idle: nothing more fits on it until enough pods leave, and reclaim or preempt must free "
                      "the deficit as well as the new pod's request")


def check_queue_tree(queues: dict[str, Any]) -> None:
    """Refuse self-parents and cycles, which crash Volcano's capacity plugin (spec §3.1).

    Also refuses parent chains deeper than MAX_TREE_DEPTH: the queue webhook allows 5 levels
    (max-queue-depth), and the hierarchy is walked recursively. Linear time: each queue is
    followed up its parent chain only until a queue already known to be fine.
    """
    for name, q in queues.items():
        if q.parent == name:
            raise InputError(f"Queue/{name}", "spec.parent", "a queue cannot be its own parent")
    depth: dict[str, int] = {}  # queues whose chain ends well -> levels below the top of the chain
    for name in queues:
        path: list[str] = []
        on_path: set[str] = set()
        cur = name
        while cur in queues and cur != "root" and cur not in depth:
            if cur in on_path:
                loop = " -> ".join(path[path.index(cur):] + [cur])
                raise InputError(f"Queue/{cur}", "spec.parent", f"queue parents form a cycle: {loop}")
            path.append(cur)
            on_path.add(cur)
            cur = queues[cur].parent or "root"
        base = depth.get(cur, 0)
        for i, q in enumerate(reversed(path)):
            depth[q] = base + i + 1
        if depth.get(name, 0) > MAX_TREE_DEPTH:
            raise InputError(f"Queue/{name}", "spec.parent", f"the queue is {depth[name]} levels below the root; "
                             f"Capacity Lab reads at most {MAX_TREE_DEPTH} (Volcano's queue webhook allows "
                             f"{MAX_QUEUE_DEPTH} by default)")


def pod_request(spec: dict[str, Any], obj: str, reader: _Reader | None = None) -> Resource:
    """GetPodResourceRequest: containers summed, init containers' peak, overhead, plus pods: 1."""
    def parse(raw: Any, fld: str) -> Resource:
        if reader is not None:
            return reader._resources(raw, obj, fld, "Volcano does not count it")
        return from_resource_list(_map(raw, obj, fld), obj=obj, field=fld)

    def container_req(c: dict[str, Any], fld: str) -> Resource:
        res = _map(c.get("resources"), obj, f"{fld}.resources")
        requests = _map(res.get("requests"), obj, f"{fld}.resources.requests")
        limits = _map(res.get("limits"), obj, f"{fld}.resources.limits")
        r = parse(requests, f"{fld}.resources.requests")
        # The API server defaults a request to its limit when only the limit is given.
        extra = {k: v for k, v in limits.items() if k not in requests}
        if extra:
            r.add(parse(extra, f"{fld}.resources.limits"))
        return r

    total = Resource.empty()
    for i, c in enumerate(_list(spec.get("containers"), obj, "spec.containers", "mapping")):
        total.add(container_req(c, f"spec.containers[{i}]"))
    sidecars = Resource.empty()
    peak = Resource.empty()
    for i, c in enumerate(_list(spec.get("initContainers"), obj, "spec.initContainers", "mapping")):
        r = container_req(c, f"spec.initContainers[{i}]")
        if c.get("restartPolicy") == "Always":
            sidecars.add(r)
            total.add(r)
        else:
            peak = _max_res(peak, r.clone().add(sidecars))
    total = _max_res(total, peak)
    overhead = spec.get("overhead")
    if overhead:
        total.add(parse(overhead, "spec.overhead"))
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
