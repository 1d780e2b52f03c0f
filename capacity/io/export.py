"""`Cluster` -> Kubernetes / Volcano YAML that `kubectl apply -f` accepts and `load_cluster` reads back.

The dashboard's "download scenario" is this: what the user sees (after edits or simulated cycles) as
the objects a real cluster would hold. Reading the output back gives the same scheduling input:
resources are written in exact quantities, PodGroup phases, pod phases and node names are kept, and
the scheduler configuration goes into `volcano-scheduler-configmap` unless it is Volcano's default.

What cannot survive the trip, on purpose: a pod's containers are folded into one container whose
requests are the pod's effective request (the scheduler only ever sees that sum), and pod UIDs are
left to the API server (`metadata.uid` is not user-settable).
"""

from __future__ import annotations

from typing import Any

import yaml

from capacity.core.cluster import Cluster, NodeObj, PodGroupObj, PodObj
from capacity.core.model import QueueSpec
from capacity.core.quantity import format_bytes, format_milli_count, format_milli_cpu, format_number
from capacity.core.resources import Resource
from capacity.io.k8s import CONF_KEY, CONFIGMAP_NAME, GROUP_NAME_KEY, NAMESPACE_WEIGHT_KEY

VOLCANO_API = "scheduling.volcano.sh/v1beta1"
#: Written for a gated pod: the loader keeps only "is gated", not the gate names.
EXPORT_GATE = "capacity-lab/gated"
#: Where `metadata.deletionTimestamp` of a terminating pod points (any timestamp means "terminating").
DELETION_TIMESTAMP = "1970-01-01T00:00:00Z"
_NATIVE = frozenset({"cpu", "memory", "ephemeral-storage", "pods"})


def quantity(name: str, amount: float) -> str:
    """One dimension of a Resource (internal units) as an exact Kubernetes quantity string."""
    if name == "cpu":
        return format_milli_cpu(amount)
    if name == "memory":
        return format_bytes(amount)
    if name == "pods":
        return format_number(amount)
    return format_milli_count(amount)  # every other scalar is kept in milli-units (spec 1.2)


def resource_list(r: Resource, *, with_pods: bool = True, zero_cpu_memory: bool = True) -> dict[str, str]:
    """A ResourceList that `from_resource_list` turns back into `r` (cpu and memory always present).
    `zero_cpu_memory=False` (a Queue's deserved, capability, guarantee): a zero cpu or memory is left out when
    another entry remains. Volcano reads an absent cpu as 0 (api.NewResource) and tells only an empty list from
    a non-empty one (capacity.go `len(Spec.Capability) != 0`), but `capability: {cpu: '0', nvidia.com/gpu: 4}`
    reads to a person as "no cpu at all"."""
    out = {"cpu": quantity("cpu", r.cpu), "memory": quantity("memory", r.memory)}
    for name in sorted(r.scalars or {}):
        if name == "pods" and not with_pods:
            continue
        out[name] = quantity(name, r.scalars[name])
    zeros = [name for name, value in (("cpu", r.cpu), ("memory", r.memory)) if not value]
    if not zero_cpu_memory and len(out) > len(zeros):
        for name in zeros:
            del out[name]
    return out


def export_objects(cluster: Cluster) -> list[dict[str, Any]]:
    """Every object of the cluster, in an order `kubectl apply` can create them in."""
    objs: list[dict[str, Any]] = []
    for ns in _namespaces(cluster):
        objs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    if not cluster.conf.is_default:
        objs.append({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": CONFIGMAP_NAME, "namespace": "volcano-system"},
            "data": {CONF_KEY: cluster.conf.text},
        })
    for name, value in cluster.priority_classes.items():
        pc: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                              "metadata": {"name": name}, "value": value}
        if cluster.global_default_priority is not None and cluster.global_default_priority == value:
            pc["globalDefault"] = True
        objs.append(pc)
    for ns, weight in sorted(cluster.namespace_weights.items()):
        objs.append({"apiVersion": "v1", "kind": "ResourceQuota",
                     "metadata": {"name": "namespace-weight", "namespace": ns},
                     "spec": {"hard": {NAMESPACE_WEIGHT_KEY: str(weight)}}})
    objs += [_node(n) for n in cluster.nodes]
    objs += [_queue(q) for q in _parents_first(cluster.queues)]
    objs += [_podgroup(pg) for pg in cluster.podgroups.values()]
    objs += [_pod(p) for p in cluster.pods.values()]
    return objs


def export_yaml(cluster: Cluster) -> str:
    """The cluster as a multi-document YAML stream."""
    return yaml.dump_all(export_objects(cluster), Dumper=_Dumper, sort_keys=False, default_flow_style=False)


class _Dumper(yaml.SafeDumper):
    """Block style for multi-line strings, so the embedded scheduler conf stays readable."""


def _str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str)


def _namespaces(cluster: Cluster) -> list[str]:
    names = {pg.namespace for pg in cluster.podgroups.values()} | {p.namespace for p in cluster.pods.values()}
    names |= set(cluster.namespace_weights)
    return sorted(names - {"default"})


def _parents_first(queues: dict[str, QueueSpec]) -> list[QueueSpec]:
    def depth(q: QueueSpec) -> int:
        d, cur, seen = 0, q.parent, {q.name}
        while cur and cur in queues and cur not in seen:
            seen.add(cur)
            d += 1
            cur = queues[cur].parent
        return d
    return sorted(queues.values(), key=depth)


def _meta(name: str, namespace: str = "", labels: dict[str, str] | None = None,
          annotations: dict[str, str] | None = None, creation: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if creation:
        meta["creationTimestamp"] = creation
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def _node(n: NodeObj) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if n.taints:
        spec["taints"] = n.taints
    if n.unschedulable:
        spec["unschedulable"] = True
    alloc = resource_list(n.allocatable)
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": _meta(n.name, labels=n.labels)}
    if spec:
        obj["spec"] = spec
    obj["status"] = {"capacity": dict(alloc), "allocatable": alloc,
                     "conditions": [{"type": "Ready", "status": "True" if n.ready else "False"}]}
    return obj


def _queue(q: QueueSpec) -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": q.weight}
    if q.priority:
        spec["priority"] = q.priority
    if q.parent:
        spec["parent"] = q.parent
    if q.deserved is not None:
        spec["deserved"] = resource_list(q.deserved, zero_cpu_memory=False)
    if q.capability is not None:
        spec["capability"] = resource_list(q.capability, zero_cpu_memory=False)
    if q.guarantee is not None:
        spec["guarantee"] = {"resource": resource_list(q.guarantee, zero_cpu_memory=False)}
    spec["reclaimable"] = q.reclaimable
    return {"apiVersion": VOLCANO_API, "kind": "Queue",
            "metadata": _meta(q.name, annotations=q.annotations, creation=q.creation),
            "spec": spec, "status": {"state": q.state}}


def _podgroup(pg: PodGroupObj) -> dict[str, Any]:
    spec: dict[str, Any] = {"queue": pg.queue, "minMember": pg.min_member}
    if pg.min_task_member:
        spec["minTaskMember"] = dict(pg.min_task_member)
    if pg.min_resources is not None:
        spec["minResources"] = resource_list(pg.min_resources, with_pods=False)
    if pg.priority_class_name:
        spec["priorityClassName"] = pg.priority_class_name
    return {"apiVersion": VOLCANO_API, "kind": "PodGroup",
            "metadata": _meta(pg.name, pg.namespace, pg.labels, pg.annotations, pg.creation),
            "spec": spec, "status": {"phase": pg.phase}}


def _pod(p: PodObj) -> dict[str, Any]:
    s = p.spec
    annotations = dict(s.annotations)
    if p.group:
        annotations[GROUP_NAME_KEY] = p.group
    meta = _meta(p.name, p.namespace, s.labels, annotations, s.creation)
    if p.deleting:
        meta["deletionTimestamp"] = DELETION_TIMESTAMP
    if s.owner_kind and s.owner_name:
        meta["ownerReferences"] = [{"apiVersion": "batch.volcano.sh/v1alpha1" if s.owner_kind == "Job" else "v1",
                                    "kind": s.owner_kind, "name": s.owner_name, "uid": s.owner_name,
                                    "controller": True}]
    requests = resource_list(p.resreq, with_pods=False)
    resources: dict[str, Any] = {"requests": requests}
    # The API server wants limits equal to requests for extended resources such as GPUs.
    extended = {k: v for k, v in requests.items() if k not in _NATIVE and not k.startswith("hugepages-")}
    if extended:
        resources["limits"] = extended
    spec: dict[str, Any] = {"schedulerName": "volcano", "containers": [
        {"name": "main", "image": "registry.k8s.io/pause:3.9", "resources": resources},
    ]}
    if p.node_name:
        spec["nodeName"] = p.node_name
    if s.priority_class_name:
        spec["priorityClassName"] = s.priority_class_name
    if s.has_priority:
        spec["priority"] = s.raw_priority
    if s.preemption_policy:
        spec["preemptionPolicy"] = s.preemption_policy
    if s.node_selector:
        spec["nodeSelector"] = dict(s.node_selector)
    if s.affinity:
        spec["affinity"] = s.affinity
    if s.tolerations:
        spec["tolerations"] = s.tolerations
    if p.sch_gated:
        spec["schedulingGates"] = [{"name": EXPORT_GATE}]
    status: dict[str, Any] = {"phase": p.phase}
    if p.nominated_node:
        status["nominatedNodeName"] = p.nominated_node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}

