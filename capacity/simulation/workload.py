"""Synthetic workloads: a seeded generator of Volcano jobs and services, the same jobs for the same seed.

The generator writes ordinary Kubernetes objects (PodGroups and Pods) carrying the simulator's
annotations (`capacity.simulation.sim`: arrival, duration, vcjob policies), so a generated workload can be
saved as YAML, edited, loaded back, and replayed by the same `Simulator` as a trace or a dump.

Per job, in this order, always the same number of draws: the gap since the previous arrival
(exponential, `arrival_rate` jobs per second, rounded down to whole seconds like Kubernetes
timestamps), service type, queue, namespace, priority class, replicas, whether it is a gang
(`gang`: minMember = replicas, else 1), pod size, duration (lognormal around `duration_median`) and
the PodEvicted policy. Only `random.Random(seed).random()` is used, whose sequence Python keeps
stable across versions, so a seed names one workload.

- `training` jobs are Volcano Jobs: pods `<job>-worker-<i>` owned by kind `Job`, minResources =
  minMember x the pod's request, the sampled policy in `capacity-lab/policies`.
- `inference` jobs are Deployments: pods owned by a ReplicaSet, minMember 1, `volcano.sh/preemptable:
  "false"` on the pods (seed 001's convention), running until the end unless `inference_duration`.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from capacity.core.cluster import Cluster
from capacity.core.resources import Resource, from_resource_list
from capacity.io.export import resource_list
from capacity.io.k8s import load_objects
from capacity.simulation.sim import ARRIVAL_KEY, DURATION_KEY, MAX_RETRY_KEY, POLICIES_KEY, timestamp

K = TypeVar("K")
SERVICE_TYPE_KEY = "volcano.sh/service.type"

#: The seed 001 configuration: queues reclaim from each other; gangs can lose pods (then the vcjob
#: policy decides what happens to the rest of the job).
RECLAIM_CONF = """\
actions: "enqueue, allocate, backfill, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
    enableReclaimable: false
  - name: conformance
    enableReclaimable: false
- plugins:
  - name: predicates
  - name: capacity
  - name: nodeorder
"""


def _default_sizes() -> tuple[tuple[float, dict[str, str]], ...]:
    return ((0.6, {"cpu": "1", "memory": "2Gi"}), (0.4, {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}))


@dataclass(frozen=True)
class WorkloadSpec:
    """What to generate. Every mapping is value -> weight (weights need not sum to 1)."""

    seed: int = 0
    jobs: int = 100
    arrival_rate: float = 1 / 60
    start: float = 0.0
    replicas: Mapping[int, float] = field(default_factory=lambda: {1: 0.5, 2: 0.2, 4: 0.2, 8: 0.1})
    gang: float = 1.0
    pod_sizes: tuple[tuple[float, Mapping[str, str]], ...] = field(default_factory=_default_sizes)
    duration_median: float = 600.0
    duration_sigma: float = 1.0
    queues: Mapping[str, float] = field(default_factory=lambda: {"default": 1.0})
    namespaces: Mapping[str, float] = field(default_factory=lambda: {"default": 1.0})
    #: name -> (value, weight); empty: no priority class
    priority_classes: Mapping[str, tuple[int, float]] = field(default_factory=dict)
    service_types: Mapping[str, float] = field(default_factory=lambda: {"training": 1.0})
    #: PodEvicted action of training jobs -> weight; "" means no policy (the default SyncJob)
    policies: Mapping[str, float] = field(default_factory=lambda: {"RestartJob": 1.0})
    max_retry: int = 3
    inference_duration: float | None = None

    def check(self) -> None:
        """Refuse a spec that cannot generate, naming the field."""
        from capacity.core.errors import InputError
        if self.jobs < 0:
            raise InputError("workload", "jobs", "must be >= 0")
        if not self.arrival_rate > 0:
            raise InputError("workload", "arrival_rate", "must be > 0 jobs per second")
        if not 0 <= self.gang <= 1:
            raise InputError("workload", "gang", "must be a probability in [0, 1]")
        for name in ("replicas", "queues", "namespaces", "service_types", "policies"):
            weights = getattr(self, name)
            if not weights or sum(weights.values()) <= 0 or min(weights.values()) < 0:
                raise InputError("workload", name, "needs at least one value with a positive weight")
        if any(int(r) < 1 for r in self.replicas):
            raise InputError("workload", "replicas", "every job size must be >= 1 pod")
        if not self.pod_sizes or sum(w for w, _ in self.pod_sizes) <= 0:
            raise InputError("workload", "pod_sizes", "needs at least one size with a positive weight")
        unknown = set(self.service_types) - {"training", "inference"}
        if unknown:
            raise InputError("workload", "service_types", f"unknown {sorted(unknown)} (training, inference)")


class _Draw:
    """Distributions from `random()` alone (inverse CDFs), so the stream never depends on the version."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def u(self) -> float:
        return self._rng.random()

    def pick(self, weights: Mapping[K, float], default: K | None = None) -> K:
        """A value with probability proportional to its weight; `default` (one draw spent) if none."""
        u = self.u() * sum(weights.values())
        if not weights:
            return default  # type: ignore[return-value]
        acc = 0.0
        last = next(iter(weights))
        for value, w in weights.items():
            if w <= 0:
                continue
            acc += w
            last = value
            if u < acc:
                return value
        return last

    def exponential(self, rate: float) -> float:
        return -math.log(1.0 - self.u()) / rate

    def lognormal(self, median: float, sigma: float) -> float:
        u1, u2 = self.u(), self.u()
        z = math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)
        return median * math.exp(sigma * z)


def generate(spec: WorkloadSpec) -> list[dict[str, Any]]:
    """The jobs of `spec` as Kubernetes objects (PodGroups then their Pods, in arrival order)."""
    spec.check()
    draw = _Draw(spec.seed)
    sizes = {i: w for i, (w, _) in enumerate(spec.pod_sizes)}
    objs: list[dict[str, Any]] = []
    t = spec.start
    for i in range(spec.jobs):
        t += draw.exponential(spec.arrival_rate)
        service = draw.pick(spec.service_types)
        queue = draw.pick(spec.queues)
        namespace = draw.pick(spec.namespaces)
        pclass = draw.pick({k: w for k, (_, w) in spec.priority_classes.items()}, default="")
        replicas = int(draw.pick(spec.replicas))
        gang = draw.u() < spec.gang
        requests = dict(spec.pod_sizes[draw.pick(sizes)][1])
        duration = max(1, round(draw.lognormal(spec.duration_median, spec.duration_sigma)))
        policy = draw.pick(spec.policies)
        arrival = math.floor(t)
        value = spec.priority_classes[pclass][0] if pclass else None
        if service == "training":
            objs += _vcjob(f"job-{i:05d}", namespace, queue, arrival, replicas, replicas if gang else 1, requests,
                           duration, policy, spec.max_retry, pclass, value)
        else:
            objs += _deployment(f"svc-{i:05d}", namespace, queue, arrival, replicas, requests,
                                spec.inference_duration, pclass, value)
    return objs


def _pod_spec(requests: Mapping[str, str], pclass: str, value: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "resources": {"requests": dict(requests)}}]}
    if pclass:
        spec["priorityClassName"] = pclass
        spec["priority"] = value
    return spec


def _podgroup(name: str, namespace: str, queue: str, arrival: int, min_member: int, min_resources: dict[str, str],
              pclass: str, annotations: dict[str, str]) -> dict[str, Any]:
    spec: dict[str, Any] = {"queue": queue, "minMember": min_member, "minResources": min_resources}
    if pclass:
        spec["priorityClassName"] = pclass
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": namespace, "creationTimestamp": timestamp(arrival),
                         "annotations": {ARRIVAL_KEY: str(arrival), **annotations}},
            "spec": spec, "status": {"phase": "Pending"}}


def _vcjob(name: str, namespace: str, queue: str, arrival: int, replicas: int, min_member: int,
           requests: Mapping[str, str], duration: int, policy: str, max_retry: int, pclass: str,
           value: int | None) -> list[dict[str, Any]]:
    annotations = {SERVICE_TYPE_KEY: "training", MAX_RETRY_KEY: str(max_retry)}
    if policy:
        annotations[POLICIES_KEY] = json.dumps([{"event": "PodEvicted", "action": policy}])
    objs = [_podgroup(name, namespace, queue, arrival, min_member, scaled(requests, min_member), pclass, annotations)]
    owner = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": name, "controller": True}
    for r in range(replicas):
        objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"{name}-worker-{r}", "namespace": namespace, "uid": f"{namespace}-{name}-worker-{r}",
            "creationTimestamp": timestamp(arrival), "ownerReferences": [owner],
            "annotations": {"scheduling.k8s.io/group-name": name, "volcano.sh/task-spec": "worker",
                            DURATION_KEY: str(duration)}},
            "spec": _pod_spec(requests, pclass, value), "status": {"phase": "Pending"}})
    return objs


def _deployment(name: str, namespace: str, queue: str, arrival: int, replicas: int, requests: Mapping[str, str],
                duration: float | None, pclass: str, value: int | None) -> list[dict[str, Any]]:
    objs = [_podgroup(name, namespace, queue, arrival, 1, dict(requests), pclass, {SERVICE_TYPE_KEY: "inference"})]
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{name}-rs", "controller": True}
    for r in range(replicas):
        annotations = {"scheduling.k8s.io/group-name": name, "volcano.sh/preemptable": "false"}
        if duration is not None:
            annotations[DURATION_KEY] = str(duration)
        objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"{name}-rs-{r}", "namespace": namespace, "uid": f"{namespace}-{name}-rs-{r}",
            "creationTimestamp": timestamp(arrival), "ownerReferences": [owner], "annotations": annotations},
            "spec": _pod_spec(requests, pclass, value), "status": {"phase": "Pending"}})
    return objs


def scaled(requests: Mapping[str, str], factor: float) -> dict[str, str]:
    """factor x a ResourceList, rounded down to Volcano's units, as exact quantities."""
    r = from_resource_list(dict(requests), obj="workload", field="requests")
    scalars = {k: math.floor(v * factor) for k, v in (r.scalars or {}).items()}
    return resource_list(Resource(math.floor(r.cpu * factor), math.floor(r.memory * factor), scalars),
                         with_pods=False)


def cluster_objects(spec: WorkloadSpec, nodes: int = 8, node_cpu: str = "32", node_memory: str = "128Gi",
                    node_gpu: str | None = "8", conf: str = RECLAIM_CONF) -> list[dict[str, Any]]:
    """A cluster for the workload: identical nodes, one flat queue per `spec.queues` entry whose
    deserved is its weight's share of the cluster, the priority classes, and `conf`."""
    spec.check()
    objs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap",
                                                             "namespace": "volcano-system"},
         "data": {"volcano-scheduler.conf": conf}}]
    for name, (value, _w) in spec.priority_classes.items():
        objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                     "value": value})
    alloc = {"cpu": node_cpu, "memory": node_memory, "pods": "110"}
    if node_gpu is not None:
        alloc["nvidia.com/gpu"] = node_gpu
    for i in range(nodes):
        objs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i:03d}", "labels": {}},
                     "status": {"allocatable": alloc, "capacity": alloc}})
    total_w = sum(spec.queues.values())
    node_res = {k: v for k, v in alloc.items() if k != "pods"}
    for name, w in spec.queues.items():
        deserved = scaled(node_res, nodes * w / total_w)
        objs.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
                     "spec": {"weight": max(1, round(w)), "deserved": deserved}, "status": {"state": "Open"}})
    return objs


def synthetic_cluster(spec: WorkloadSpec, **cluster: Any) -> Cluster:
    """`cluster_objects` plus the generated jobs, loaded (see `cluster_objects` for the knobs)."""
    return load_objects([*cluster_objects(spec, **cluster), *generate(spec)], source=f"workload seed {spec.seed}")
