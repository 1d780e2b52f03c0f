"""A synthetic job from a form: its PodGroup and Pods, as Volcano's job controller would create them.

`job_objects(form, cluster)` writes the Kubernetes objects (so they read like a vcjob's PodGroup and
pods, and export as such); `build_job` reads them back through the same loader as any scenario, so a
submitted job is indistinguishable from one in a YAML dump. Pod priorities are resolved the way the
Priority admission plugin does it (the class's value, else the global default, else 0), and an unknown
priority class is refused as admission refuses it.

`generated_jobs` submits a batch from the seeded generator in `capacity.simulation.workload` (same seed, same
jobs), spread over the cluster's leaf queues.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from capacity.authoring.edit import ROOT, check_name, children, hierarchy_on, parse_resources
from capacity.core.cluster import Cluster, PodGroupObj, PodObj
from capacity.core.errors import InputError
from capacity.core.resources import Resource
from capacity.core.service_type import SERVICE_TYPE_KEY
from capacity.io.export import VOLCANO_API, resource_list
from capacity.io.k8s import GROUP_NAME_KEY, PREEMPTABLE_KEY, TASK_SPEC_KEY, load_objects

SERVICE_TYPES = ("", "training", "inference")
#: The owner a controller would set: vcjob pods are owned by a Job, a Deployment's pods by a ReplicaSet.
_OWNER = {"training": ("batch.volcano.sh/v1alpha1", "Job"), "inference": ("apps/v1", "ReplicaSet")}


@dataclass(frozen=True)
class JobForm:
    """What the dashboard's job form asks for. `requests` are quantity strings per resource, per pod."""

    name: str
    queue: str
    namespace: str = "default"
    replicas: int = 1
    min_available: int = 1
    requests: Mapping[str, str] = field(default_factory=lambda: {"cpu": "1", "memory": "1Gi"})
    priority_class: str = ""
    preemptable: bool = True
    service_type: str = ""


def _count(value: Any, obj: str, fld: str, low: int) -> int:
    if isinstance(value, bool):
        raise InputError(obj, fld, f"must be a whole number, got {value!r}")
    try:
        n = int(str(value).strip())
    except ValueError:
        raise InputError(obj, fld, f"must be a whole number, got {value!r}") from None
    if n < low or n > 10_000:
        raise InputError(obj, fld, f"must be between {low} and 10000, got {n}")
    return n


def job_objects(form: JobForm, cluster: Cluster) -> list[dict[str, Any]]:
    """The PodGroup and its pods as Kubernetes objects; InputError names the form's object and field."""
    ns = check_name(form.namespace, f"Namespace/{(form.namespace or '').strip()}", label=True)
    name = check_name(form.name, f"PodGroup/{ns}/{(form.name or '').strip()}")
    obj = f"PodGroup/{ns}/{name}"
    replicas = _count(form.replicas, obj, "replicas", 1)
    min_available = _count(form.min_available, obj, "spec.minMember", 0)
    if min_available > replicas:
        raise InputError(obj, "spec.minMember", f"minAvailable {min_available} is above the {replicas} replicas "
                         "(the job webhook refuses: the gang could never be complete)")
    if form.service_type not in SERVICE_TYPES:
        raise InputError(obj, f"metadata.annotations.{SERVICE_TYPE_KEY}",
                         f"must be training, inference or empty, got {form.service_type!r}")
    request = parse_resources(form.requests, f"Pod/{ns}/{name}-0", "spec.containers[0].resources.requests")
    request = request if request is not None else Resource.empty()
    requests = {k: v for k, v in resource_list(request, with_pods=False).items()
                if k not in ("cpu", "memory") or request.get(k) > 0}
    pclass = (form.priority_class or "").strip()
    if pclass and pclass not in cluster.priority_classes:
        known = ", ".join(sorted(cluster.priority_classes)) or "none"
        raise InputError(obj, "spec.priorityClassName", f"no PriorityClass named {pclass!r} (known: {known}); "
                         "admission refuses the pods")
    priority = cluster.priority_classes[pclass] if pclass else (cluster.global_default_priority or 0)
    minimum = Resource(request.cpu * min_available, request.memory * min_available,
                       {k: v * min_available for k, v in (request.scalars or {}).items() if k != "pods"})
    pg_annotations = {SERVICE_TYPE_KEY: form.service_type} if form.service_type else {}
    pg_spec: dict[str, Any] = {"queue": form.queue, "minMember": min_available,
                               "minResources": {k: v for k, v in resource_list(_floor(minimum), with_pods=False)
                                                .items() if k in requests}}
    if pclass:
        pg_spec["priorityClassName"] = pclass
    objs: list[dict[str, Any]] = [{
        "apiVersion": VOLCANO_API, "kind": "PodGroup",
        "metadata": {"name": name, "namespace": ns, "annotations": pg_annotations},
        "spec": pg_spec, "status": {"phase": "Pending"},
    }]
    owner = _OWNER.get(form.service_type)
    for i in range(replicas):
        meta: dict[str, Any] = {"name": f"{name}-{i}", "namespace": ns, "annotations": {
            GROUP_NAME_KEY: name, TASK_SPEC_KEY: "worker", PREEMPTABLE_KEY: "true" if form.preemptable else "false"}}
        if owner:
            meta["ownerReferences"] = [{"apiVersion": owner[0], "kind": owner[1], "name": name, "controller": True}]
        spec: dict[str, Any] = {"schedulerName": "volcano", "priority": priority,
                                "containers": [{"name": "main", "resources": {"requests": dict(requests)}}]}
        if pclass:
            spec["priorityClassName"] = pclass
        objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                     "status": {"phase": "Pending"}})
    return objs


def _floor(r: Resource) -> Resource:
    return Resource(math.floor(r.cpu), math.floor(r.memory), {k: math.floor(v) for k, v in (r.scalars or {}).items()})


def read_jobs(objs: list[dict[str, Any]], source: str) -> list[tuple[PodGroupObj, list[PodObj]]]:
    """PodGroups with their pods, read by the scenario loader (same checks, same defaults)."""
    loaded = load_objects(objs, source)
    out = []
    for pg in loaded.podgroups.values():
        pods = [p for p in loaded.pods.values() if p.namespace == pg.namespace and p.group == pg.name]
        out.append((pg, pods))
    return out


def build_job(form: JobForm, cluster: Cluster) -> tuple[PodGroupObj, list[PodObj]]:
    """The form's job as the cluster would hold it after submission (not yet added: see edit.add_job)."""
    return read_jobs(job_objects(form, cluster), "job form")[0]


def leaf_queues(cluster: Cluster) -> list[str]:
    """Queues a job may be submitted to: Open, and without children when the hierarchy is on."""
    hier = hierarchy_on(cluster)
    return sorted(n for n, q in cluster.queues.items()
                  if q.state == "Open" and not (hier and (n == ROOT or children(cluster, n))))


def generated_jobs(cluster: Cluster, seed: int, jobs: int, queues: list[str] | None = None,
                   namespace: str = "") -> list[tuple[PodGroupObj, list[PodObj]]]:
    """`jobs` jobs from the seeded generator (`capacity.simulation.workload`), spread evenly over `queues` (default:
    every leaf queue), in namespace `gen-<seed>` unless given. Same seed, same jobs."""
    from capacity.simulation.workload import WorkloadSpec, generate

    queues = queues or leaf_queues(cluster)
    obj = "workload"
    if not queues:
        raise InputError(obj, "queues", "no queue can take jobs (no Open leaf queue)")
    jobs = _count(jobs, obj, "jobs", 1)
    seed = _count(seed, obj, "seed", 0)
    ns = namespace or f"gen-{seed}"
    classes = {name: (value, 1.0) for name, value in sorted(cluster.priority_classes.items())}
    spec = WorkloadSpec(seed=seed, jobs=jobs, queues=dict.fromkeys(queues, 1.0), namespaces={ns: 1.0},
                        priority_classes=classes, service_types={"training": 0.7, "inference": 0.3})
    return read_jobs(generate(spec), f"workload seed {seed}")
