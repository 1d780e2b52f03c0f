"""Small builders for test clusters written as Kubernetes YAML, the way users write them."""

from __future__ import annotations

from typing import Any

import yaml

from capacity.core.cluster import Cluster
from capacity.io.k8s import load_cluster


def conf(actions: str, *tiers: list[dict[str, Any]]) -> dict[str, Any]:
    text = yaml.safe_dump({"actions": actions, "tiers": [{"plugins": t} for t in tiers]})
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
            "data": {"volcano-scheduler.conf": text}}


def node(name: str, cpu: str = "8", memory: str = "16Gi", pods: str = "110", gpu: str | None = None,
         labels: dict[str, str] | None = None) -> dict[str, Any]:
    alloc = {"cpu": cpu, "memory": memory, "pods": pods}
    if gpu is not None:
        alloc["nvidia.com/gpu"] = gpu
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "status": {"allocatable": alloc, "capacity": alloc}}


def queue(name: str, parent: str | None = None, deserved: dict | None = None, capability: dict | None = None,
          guarantee: dict | None = None, priority: int | None = None, **spec: Any) -> dict[str, Any]:
    s: dict[str, Any] = dict(spec)
    if parent is not None:
        s["parent"] = parent
    if deserved:
        s["deserved"] = deserved
    if capability:
        s["capability"] = capability
    if guarantee:
        s["guarantee"] = {"resource": guarantee}
    if priority is not None:
        s["priority"] = priority
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": s, "status": {"state": "Open"}}


def podgroup(name: str, queue_name: str, min_member: int = 1, ns: str = "ns1", phase: str = "Inqueue",
             min_resources: dict | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"queue": queue_name, "minMember": min_member}
    if min_resources:
        spec["minResources"] = min_resources
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec, "status": {"phase": phase}}


def pod(name: str, group: str, requests: dict, node_name: str = "", phase: str | None = None,
        ns: str = "ns1", **meta: Any) -> dict[str, Any]:
    phase = phase or ("Running" if node_name else "Pending")
    spec: dict[str, Any] = {"containers": [{"name": "main", "resources": {"requests": requests}}]}
    if node_name:
        spec["nodeName"] = node_name
    md: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"{ns}-{name}",
                          "annotations": {"scheduling.k8s.io/group-name": group}}
    md.update(meta)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": {"phase": phase}}


def cluster(*objs: dict[str, Any]) -> Cluster:
    return load_cluster(yaml.safe_dump_all(objs))


CAPACITY_ALL = {"name": "capacity"}
