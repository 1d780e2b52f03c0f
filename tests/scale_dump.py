"""A generated cluster dump at "a few hundred queues, a few thousand pods" for the dashboard's scale tests:
the openb S1 tree (root, 20 departments, 200 leaves: 221 queues, quotas in milli-cores as S1 writes them),
`nodes` equal nodes and `pods` single-pod jobs spread over the leaves; about a fifth of the pods find no room.
Built in memory in a fraction of a second, so tests need no data files."""

from __future__ import annotations

from typing import Any

import yaml

from capacity.io.openb import S1_CONF, queue_objects

DEPARTMENTS, LEAVES = 20, 200


def scale_objects(nodes: int = 300, pods: int = 3000) -> list[dict[str, Any]]:
    cpu, mem_gi = 33, 128  # 33: a leaf deserves 16500m, which reads "16.5" (cores), not "16500m"
    total = {"cpu": nodes * cpu * 1000.0, "memory": nodes * mem_gi * 1024.0, "gpu": 0.0}
    objs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": S1_CONF}}]
    for i in range(nodes):
        alloc = {"cpu": str(cpu), "memory": f"{mem_gi}Gi", "pods": "110"}
        objs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i:04d}"},
                     "status": {"allocatable": alloc, "capacity": alloc}})
    objs += [{"apiVersion": "scheduling.volcano.sh/v1beta1", **q} for q in queue_objects(DEPARTMENTS, LEAVES, total)]
    per_dept = LEAVES // DEPARTMENTS
    for i in range(pods):
        leaf = i % LEAVES
        queue = f"dept-{leaf // per_dept:02d}-q{leaf % per_dept:02d}"
        name = f"job-{i:05d}"
        req = {"cpu": "4", "memory": "10Gi"}
        objs.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                     "metadata": {"name": name, "namespace": "scale"},
                     "spec": {"queue": queue, "minMember": 1, "minResources": req}, "status": {"phase": "Pending"}})
        objs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"{name}-0", "namespace": "scale",
                                  "annotations": {"scheduling.k8s.io/group-name": name}},
                     "spec": {"schedulerName": "volcano",
                              "containers": [{"name": "main", "resources": {"requests": req}}]},
                     "status": {"phase": "Pending"}})
    return objs


def scale_yaml(nodes: int = 300, pods: int = 3000) -> str:
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump_all(scale_objects(nodes, pods), Dumper=dumper, sort_keys=False)
