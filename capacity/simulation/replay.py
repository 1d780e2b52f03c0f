"""The real traces of shared/data as timed Volcano workloads for `capacity.simulation.sim` (the traces are not shipped).

Both readers write ordinary Kubernetes objects with the simulator's annotations (`capacity-lab/arrival`
on each PodGroup, `capacity-lab/duration` on each Pod), so the replay is the same `Simulator` run as
any dump or synthetic workload.

Alibaba openb (`openb_node_list_all_node.csv`, `openb_pod_list_default.csv`), on top of the S1 mapping of
`capacity.io.openb` (nodes, GPU shares, qos, queue tree), which this reuses unchanged:
  node `sn`                -> Node name; `cpu_milli` -> cpu; `memory_mib` -> memory (Mi); `gpu` -> nvidia.com/gpu;
                              `model` -> label gpu-model
  pod `name`               -> Pod and its own PodGroup (minMember 1, minResources = the pod's requests)
  `cpu_milli`, `memory_mib` -> requests; `num_gpu` -> whole nvidia.com/gpu; `gpu_milli` < 1000 with
                              `num_gpu` 1 -> nvidia.com/gpu in milli (e.g. 460m), exact in Volcano's milli units
  `gpu_spec`               -> required node affinity on gpu-model
  `qos`                    -> PriorityClass ls-high (LS, 1000) or be-low (others, 10)
  (no tenant column)       -> one of 200 leaf queues under 20 departments by crc32 of the pod name (synthetic)
  `creation_time`          -> arrival (seconds)
  `deletion_time - scheduled_time` -> duration; pods never scheduled: `deletion_time - creation_time`
                              (the README's rule); pods alive at the end carry the end-of-trace value
  `pod_phase`              -> not used (a snapshot phase; the replay decides where each pod runs)
  The pods have no owner in the trace: an evicted pod is gone, as a bare pod would be.

Helios (`helios_data_training.csv`):
  `u_id`                   -> vcjob and PodGroup `helios-<u_id>` (5 digits) in namespace `user-<user>`
  `user`                   -> leaf queue `user-<user>` (3 digits), one per user (106), flat capacity plugin
  `node_num`               -> pods (one per node, as in Slurm) and minMember: the job is a gang
  `gpu_num / node_num`     -> nvidia.com/gpu per pod; `cpu_num / node_num` -> cpu per pod
  (no memory column)       -> memory = cpu x `memory_per_cpu_gib` (4 GiB) per pod
  `interval`               -> arrival = cumulative sum of intervals
  `run_time`               -> duration
  `wall_time`, `new_status` -> not used (every job runs for run_time, whatever its outcome)
  cluster                  -> `nodes` (128) identical nodes of 8 GPUs, 64 cpu, 256 GiB: ~1,000 GPUs, the
                              size of the Helios cluster these rows fit (README)
  deserved                 -> "usage": each queue's share of the trace's GPU-seconds (gpu) and CPU-seconds
                              (cpu, memory) times the cluster; "equal": the cluster split evenly. No
                              capability: a queue may borrow the whole idle cluster, and reclaim takes
                              it back above deserved
  policies                 -> every job `PodEvicted -> RestartJob` (maxRetry 3) by default
  configuration            -> seed 001's: enqueue, allocate, backfill, reclaim; gang and conformance with
                              enableReclaimable false, so a gang can lose pods to reclaim
"""

from __future__ import annotations

import csv
import json
import os
from collections import defaultdict
from typing import Any

from capacity.core.cluster import Cluster
from capacity.core.errors import InputError
from capacity.io.k8s import load_objects
from capacity.io.openb import read_csv, s1_objects
from capacity.simulation.sim import ARRIVAL_KEY, DURATION_KEY, MAX_RETRY_KEY, POLICIES_KEY, timestamp
from capacity.simulation.workload import RECLAIM_CONF, scaled

HELIOS_FILE = "helios_data_training.csv"
OPENB_POD_FILE = "openb_pod_list_default.csv"


def openb_objects(folder: str, departments: int = 20, leaves: int = 200, pod_limit: int | None = None,
                  node_limit: int | None = None) -> list[dict[str, Any]]:
    """The openb S1 cluster with each pod arriving at its creation time and running for its run time."""
    objs = s1_objects(folder, departments=departments, leaves=leaves, pod_limit=pod_limit, node_limit=node_limit)
    rows = {r["name"]: r for r in read_csv(folder, OPENB_POD_FILE)[:pod_limit]}
    for obj in objs:
        if obj["kind"] not in ("Pod", "PodGroup"):
            continue
        meta = obj["metadata"]
        r = rows[meta["name"]]
        where = f"{OPENB_POD_FILE}: pod {meta['name']}"
        created = _int(r, "creation_time", where)
        meta["creationTimestamp"] = timestamp(created)
        annotations = meta.setdefault("annotations", {})
        if obj["kind"] == "PodGroup":
            annotations[ARRIVAL_KEY] = str(created)
        else:
            start = _int(r, "scheduled_time", where) if r.get("scheduled_time") else created
            annotations[DURATION_KEY] = str(max(0, _int(r, "deletion_time", where) - start))
    return objs


def openb_cluster(folder: str, **kw: Any) -> Cluster:
    return load_objects(openb_objects(folder, **kw), source=folder)


def helios_rows(folder: str, job_limit: int | None = None) -> list[dict[str, str]]:
    path = os.path.join(folder, HELIOS_FILE)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))[:job_limit]
    except OSError as exc:
        raise InputError(path, "", f"cannot be read: {exc.strerror or exc} (get the Helios 15k trace from "
                         "github.com/DIR-LAB/Gen-Parallel-Workloads, Helios/training_data)") from None


def helios_objects(folder: str, nodes: int = 128, gpus_per_node: int = 8, cpus_per_node: int = 64,
                   memory_per_cpu_gib: int = 4, policy: str = "RestartJob", max_retry: int = 3,
                   deserved: str = "usage", job_limit: int | None = None) -> list[dict[str, Any]]:
    """Helios jobs as gang vcjobs in one queue per user, on `nodes` 8-GPU nodes (mapping in the module doc)."""
    if deserved not in ("usage", "equal"):
        raise InputError("helios", "deserved", f"must be 'usage' or 'equal', got {deserved!r}")
    rows = helios_rows(folder, job_limit)
    node_alloc = {"cpu": str(cpus_per_node), "memory": f"{cpus_per_node * memory_per_cpu_gib}Gi",
                  "nvidia.com/gpu": str(gpus_per_node)}
    objs: list[dict[str, Any]] = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": RECLAIM_CONF}}]
    for i in range(nodes):
        objs.append({"kind": "Node", "metadata": {"name": f"helios-node-{i:03d}", "labels": {}},
                     "status": {"allocatable": {**node_alloc, "pods": "110"}}})
    jobs: list[dict[str, Any]] = []
    usage: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    annotations = {MAX_RETRY_KEY: str(max_retry)}
    if policy:
        annotations[POLICIES_KEY] = json.dumps([{"event": "PodEvicted", "action": policy}])
    t = 0
    for r in rows:
        where = f"{HELIOS_FILE}: u_id {r.get('u_id', '?')}"
        t += _int(r, "interval", where)
        user = _int(r, "user", where)
        gpus, cpus, n = _int(r, "gpu_num", where), _int(r, "cpu_num", where), _int(r, "node_num", where)
        run_time = _int(r, "run_time", where)
        if n < 1 or gpus % n or cpus % n:
            raise InputError(where, "node_num", f"{n} does not divide gpu_num {gpus} and cpu_num {cpus}")
        queue = f"user-{user:03d}"
        usage[queue][0] += gpus * run_time
        usage[queue][1] += cpus * run_time
        jobs += _helios_job(_int(r, "u_id", where), queue, t, n, gpus // n, cpus // n, memory_per_cpu_gib,
                            run_time, annotations)
    total_gpu = sum(u[0] for u in usage.values())
    total_cpu = sum(u[1] for u in usage.values())
    for queue in sorted(usage):
        if deserved == "equal":
            share_gpu = share_cpu = 1 / len(usage)
        else:
            share_gpu = usage[queue][0] / total_gpu if total_gpu else 0.0
            share_cpu = usage[queue][1] / total_cpu if total_cpu else 0.0
        d = scaled({"cpu": node_alloc["cpu"], "memory": node_alloc["memory"]}, nodes * share_cpu)
        d["nvidia.com/gpu"] = scaled({"nvidia.com/gpu": node_alloc["nvidia.com/gpu"]}, nodes * share_gpu)[
            "nvidia.com/gpu"]
        objs.append({"kind": "Queue", "metadata": {"name": queue}, "spec": {"deserved": d}})
    return objs + jobs


def _requests(gpu: int, cpu: int, mem_per_cpu: int) -> dict[str, str]:
    req = {"cpu": str(cpu), "memory": f"{cpu * mem_per_cpu}Gi"}
    if gpu:
        req["nvidia.com/gpu"] = str(gpu)
    return req


def _helios_job(uid: int, queue: str, arrival: int, n: int, gpu: int, cpu: int, mem_per_cpu: int, run_time: int,
                annotations: dict[str, str]) -> list[dict[str, Any]]:
    name = f"helios-{uid:05d}"
    created = timestamp(arrival)
    req = _requests(gpu, cpu, mem_per_cpu)
    objs: list[dict[str, Any]] = [{"kind": "PodGroup", "metadata": {
        "name": name, "namespace": queue, "creationTimestamp": created,
        "annotations": {ARRIVAL_KEY: str(arrival), **annotations}},
        "spec": {"queue": queue, "minMember": n, "minResources": _requests(gpu * n, cpu * n, mem_per_cpu)},
        "status": {"phase": "Pending"}}]
    owner = [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": name, "controller": True}]
    spec = {"containers": [{"name": "main", "resources": {"requests": req}}]}
    duration = str(run_time)
    for i in range(n):
        objs.append({"kind": "Pod", "metadata": {
            "name": f"{name}-worker-{i}", "namespace": queue, "uid": f"{name}-worker-{i}",
            "creationTimestamp": created, "ownerReferences": owner,
            "annotations": {"scheduling.k8s.io/group-name": name, "volcano.sh/task-spec": "worker",
                            DURATION_KEY: duration}},
            "spec": spec, "status": {"phase": "Pending"}})
    return objs


def helios_cluster(folder: str, **kw: Any) -> Cluster:
    return load_objects(helios_objects(folder, **kw), source=folder)


def _int(row: dict[str, str], column: str, where: str) -> int:
    raw = row.get(column)
    if raw is None or raw == "":
        raise InputError(where, column, "is missing")
    try:
        return int(float(raw))
    except ValueError:
        raise InputError(where, column, f"must be a number, got {raw!r}") from None
