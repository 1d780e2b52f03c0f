"""The Alibaba openb GPU trace as a Volcano cluster (the traces are not shipped; pass their folder).

Column mapping (shared/data README): node `sn` -> Node name, `cpu_milli` -> cpu, `memory_mib` -> memory
(Mi), `gpu` -> `nvidia.com/gpu`, `model` -> label `gpu-model`. Pod `cpu_milli`/`memory_mib` ->
requests; whole GPUs (`num_gpu`) -> `nvidia.com/gpu`; a shared GPU (`num_gpu` 1, `gpu_milli` < 1000)
-> `nvidia.com/gpu: <gpu_milli>m`, which Volcano's milli arithmetic carries exactly; `gpu_spec` ->
required node affinity on `gpu-model`; `qos` LS -> PriorityClass `ls-high` (1000), others
`be-low` (10). The trace has no tenants: each pod is its own PodGroup (minMember 1, minResources = its
requests) in one of `leaves` leaf queues under `departments` departments, chosen by crc32 of the pod
name (stated, synthetic). Deserved is split evenly; departments may borrow up to 2x their deserved.
"""

from __future__ import annotations

import csv
import os
import zlib
from typing import Any

from capacity.core.cluster import Cluster
from capacity.core.errors import InputError
from capacity.io.k8s import load_objects

NODE_FILE = "openb_node_list_all_node.csv"
POD_FILE = "openb_pod_list_default.csv"
S1_CONF = """\
actions: "enqueue, allocate, backfill, reclaim, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: capacity
    enableHierarchy: true
  - name: nodeorder
"""


def read_csv(folder: str, name: str) -> list[dict[str, str]]:
    path = os.path.join(folder, name)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    except OSError as exc:
        raise InputError(path, "", f"cannot be read: {exc.strerror or exc} (get the openb trace from "
                         "github.com/alibaba/clusterdata, cluster-trace-gpu-v2023/csv)") from None


def node_objects(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        alloc = {"cpu": f"{r['cpu_milli']}m", "memory": f"{r['memory_mib']}Mi", "pods": "110"}
        if int(r["gpu"] or 0) > 0:
            alloc["nvidia.com/gpu"] = r["gpu"]
        labels = {"kubernetes.io/hostname": r["sn"]}
        if r.get("model"):
            labels["gpu-model"] = r["model"]
        out.append({"kind": "Node", "metadata": {"name": r["sn"], "labels": labels},
                    "status": {"allocatable": alloc}})
    return out


def pod_requests(r: dict[str, str]) -> dict[str, str]:
    req = {"cpu": f"{r['cpu_milli']}m", "memory": f"{r['memory_mib']}Mi"}
    num_gpu = int(r["num_gpu"] or 0)
    milli = int(r["gpu_milli"] or 0)
    if num_gpu == 1 and 0 < milli < 1000:
        req["nvidia.com/gpu"] = f"{milli}m"
    elif num_gpu > 0:
        req["nvidia.com/gpu"] = str(num_gpu)
    return req


def queue_objects(departments: int, leaves: int, total: dict[str, float]) -> list[dict[str, Any]]:
    per_dept = leaves // departments

    def share(frac: float) -> dict[str, str]:
        return {"cpu": f"{int(total['cpu'] * frac)}m", "memory": f"{int(total['memory'] * frac)}Mi",
                "nvidia.com/gpu": f"{int(total['gpu'] * 1000 * frac)}m"}

    out: list[dict[str, Any]] = [{"kind": "Queue", "metadata": {"name": "root"}, "spec": {}}]
    for d in range(departments):
        dept = f"dept-{d:02d}"
        out.append({"kind": "Queue", "metadata": {"name": dept},
                    "spec": {"parent": "root", "deserved": share(1 / departments),
                             "capability": share(2 / departments)}})
        for i in range(per_dept):
            out.append({"kind": "Queue", "metadata": {"name": f"{dept}-q{i:02d}"},
                        "spec": {"parent": dept, "deserved": share(1 / leaves)}})
    return out


def leaf_of(pod_name: str, departments: int, leaves: int) -> str:
    idx = zlib.crc32(pod_name.encode()) % leaves
    per_dept = leaves // departments
    return f"dept-{idx // per_dept:02d}-q{idx % per_dept:02d}"


def s1_objects(folder: str, departments: int = 20, leaves: int = 200, pod_limit: int | None = None,
               node_limit: int | None = None) -> list[dict[str, Any]]:
    """S1: every openb pod pending, one PodGroup each, on the openb nodes, in a 2-level tree."""
    node_rows = read_csv(folder, NODE_FILE)[:node_limit]
    pod_rows = read_csv(folder, POD_FILE)[:pod_limit]
    total = {"cpu": sum(float(r["cpu_milli"]) for r in node_rows) / 1000,
             "memory": sum(float(r["memory_mib"]) for r in node_rows),
             "gpu": sum(float(r["gpu"] or 0) for r in node_rows)}
    total["cpu"] *= 1000
    objs: list[dict[str, Any]] = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": S1_CONF}},
        {"kind": "PriorityClass", "metadata": {"name": "ls-high"}, "value": 1000},
        {"kind": "PriorityClass", "metadata": {"name": "be-low"}, "value": 10},
    ]
    objs += node_objects(node_rows)
    objs += queue_objects(departments, leaves, total)
    for r in pod_rows:
        name = r["name"]
        req = pod_requests(r)
        queue = leaf_of(name, departments, leaves)
        pc = "ls-high" if r["qos"] == "LS" else "be-low"
        objs.append({"kind": "PodGroup", "metadata": {"name": name, "namespace": "openb"},
                     "spec": {"queue": queue, "minMember": 1, "minResources": req, "priorityClassName": pc},
                     "status": {"phase": "Pending"}})
        spec: dict[str, Any] = {"containers": [{"name": "main", "resources": {"requests": req}}],
                                "priority": 1000 if pc == "ls-high" else 10, "priorityClassName": pc}
        if r.get("gpu_spec"):
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "gpu-model", "operator": "In", "values": r["gpu_spec"].split("|")}]}]}}}
        objs.append({"kind": "Pod", "metadata": {"name": name, "namespace": "openb", "uid": name,
                                                 "annotations": {"scheduling.k8s.io/group-name": name}},
                     "spec": spec, "status": {"phase": "Pending"}})
    return objs


def s1_cluster(folder: str, **kw: Any) -> Cluster:
    return load_objects(s1_objects(folder, **kw), source=folder)
