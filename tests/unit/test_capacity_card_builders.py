"""Builders for capacity-card and tidal tests: card nodes, quota queues, annotated PodGroups and pods.

Kept in a test module of their own (no tests here) so test_capacity_card*.py and test_tidal*.py share them.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from capacity.core.cluster import Cluster
from capacity.core.conf import SWITCH_DEFAULTS
from capacity.core.trace import Trace
from capacity.io.k8s import load_cluster

H200 = "NVIDIA-H200"
MIG = "NVIDIA-H200/mig-1g.18gb-mixed"
OWNER_MAP = {"ReplicaSet": "inference", "Deployment": "inference", "Job": "training"}
SEED_CARD_ARGS = {"overCommitFactor": 2, "cardUnlimitedCpuMemory": True, "podOwnerReferenceToServiceType": OWNER_MAP}


def seed_tiers(card_args: dict[str, Any] | None = None, gang: dict[str, Any] | None = None,
               conformance: dict[str, Any] | None = None) -> list[list[dict[str, Any]]]:
    """The seed's tiers, through the YAML path (unset switches on)."""
    return [
        [{"name": "priority"}, {"name": "gang", "enableReclaimable": False, **(gang or {})},
         {"name": "conformance", "enableReclaimable": False, **(conformance or {})}],
        [{"name": "predicates"}, {"name": "capacity-card", "arguments": dict(SEED_CARD_ARGS if card_args is None
                                                                             else card_args)},
         {"name": "nodeorder"}],
    ]


def code_plugin(name: str, *on: str, **arguments: Any) -> dict[str, Any]:
    """A plugin entry as Volcano's unit tests build tiers in code: every switch off except `on`."""
    p: dict[str, Any] = {"name": name, **{k: k in on for k in SWITCH_DEFAULTS}}
    if arguments:
        p["arguments"] = arguments
    return p


def conf(actions: str, tiers: list[list[dict[str, Any]]]) -> dict[str, Any]:
    text = yaml.safe_dump({"actions": actions, "tiers": [{"plugins": t} for t in tiers]})
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
            "data": {"volcano-scheduler.conf": text}}


def card_node(name: str = "n1", gpus: int | None = 8, product: str = H200, cpu: str = "40", memory: str = "40Gi",
              pods: str = "10", extra: dict[str, str] | None = None, labels: dict[str, str] | None = None,
              count_memory_labels: bool = True) -> dict[str, Any]:
    alloc: dict[str, str] = {"cpu": cpu, "memory": memory, "pods": pods}
    if gpus is not None:
        alloc["nvidia.com/gpu"] = str(gpus)
    alloc.update(extra or {})
    lab = {"nvidia.com/gpu.product": product} if product else {}
    if product and count_memory_labels:
        lab.update({"nvidia.com/gpu.count": str(gpus or 0), "nvidia.com/gpu.memory": "81920"})
    lab.update(labels or {})
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": lab},
            "status": {"allocatable": alloc, "capacity": alloc}}


def card_queue(name: str, quota: dict[str, int] | str | None = None, priority: int | None = None,
               reclaimable: bool | None = None, capability: dict[str, str] | None = None,
               state: str = "Open", created: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": 1}
    if priority is not None:
        spec["priority"] = priority
    if reclaimable is not None:
        spec["reclaimable"] = reclaimable
    if capability is not None:
        spec["capability"] = capability
    meta: dict[str, Any] = {"name": name}
    if quota is not None:
        meta["annotations"] = {"volcano.sh/card.quota": quota if isinstance(quota, str) else json.dumps(quota)}
    if created:
        meta["creationTimestamp"] = created
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": meta, "spec": spec,
            "status": {"state": state}}


def pg(name: str, queue: str, min_member: int = 1, phase: str = "Inqueue", ns: str = "c1",
       annotations: dict[str, str] | None = None, min_resources: dict[str, str] | None = None,
       priority_class: str = "", service: str | None = None) -> dict[str, Any]:
    ann = dict(annotations or {})
    if service is not None:
        ann["volcano.sh/service.type"] = service
    spec: dict[str, Any] = {"queue": queue, "minMember": min_member}
    if min_resources is not None:
        spec["minResources"] = min_resources
    if priority_class:
        spec["priorityClassName"] = priority_class
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if ann:
        meta["annotations"] = ann
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": meta, "spec": spec,
            "status": {"phase": phase}}


def pod(name: str, group: str, gpus: int = 0, card: str | None = H200, node: str = "", ns: str = "c1",
        cpu: str = "1", memory: str = "1G", resource: str = "nvidia.com/gpu", owner: str | None = None,
        annotations: dict[str, str] | None = None, labels: dict[str, str] | None = None,
        priority: int | None = None, preemptable: str | None = "true", phase: str | None = None) -> dict[str, Any]:
    req: dict[str, str] = {"cpu": cpu, "memory": memory}
    if gpus:
        req[resource] = str(gpus)
    ann = {"scheduling.k8s.io/group-name": group}
    if card and gpus:
        ann["volcano.sh/card.name"] = card
    if preemptable is not None:
        ann["volcano.sh/preemptable"] = preemptable
    ann.update(annotations or {})
    meta: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"{ns}-{name}", "annotations": ann,
                            "creationTimestamp": "2025-01-01T00:00:00Z"}
    if labels:
        meta["labels"] = labels
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": owner, "name": f"{group}-owner", "uid": group,
                                    "controller": True}]
    spec: dict[str, Any] = {"containers": [{"name": "main", "resources": {"requests": req, "limits": dict(req)}}]}
    if node:
        spec["nodeName"] = node
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": phase or ("Running" if node else "Pending")}}


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


def cluster(*objs: dict[str, Any]) -> Cluster:
    return load_cluster(yaml.safe_dump_all(objs))


def reasons(trace: Trace, plugin: str = "capacity-card") -> list[Any]:
    """Every reason a plugin gave, in order."""
    return [x for r in trace.records for x in r.reasons if x.plugin == plugin]


def notes(trace: Trace) -> list[str]:
    return [str(r.verdict) for r in trace.records if r.kind == "pluginNote"]
