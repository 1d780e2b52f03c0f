"""Hypothesis strategies for random but well-formed clusters, queue trees and workloads.

Everything is built as the Kubernetes objects a user would write (the `tests.builders` shapes) and
read with `capacity.io.k8s.load_objects`, so the property tests exercise the reader as well as the engine.
Sizes stay small (at most 4 nodes, 6 queues, 5 jobs of up to 4 pods) so that a thousand examples run
in CI time; the interesting interactions (gang minimums, guarantees, reclaim across queues, a job that
does not fit anywhere) appear at these sizes already.

Running pods are only placed where they fit, so the snapshot itself never overcommits a node: any
overcommit the invariants find was made by the scheduler.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from tests.builders import conf, node, pod, podgroup, queue

MODES = ("flat", "hierarchical", "proportion")

#: (milli-cpu, MiB) per pod
_CPU = (250, 500, 1000, 1500, 2000, 3000)
_MEM = (256, 512, 1024, 2048, 4096)


@dataclass
class Scenario:
    mode: str
    actions: list[str]
    objects: list[dict[str, Any]]
    leaves: list[str] = field(default_factory=list)
    layout: str = "documented"

    @property
    def queue_plugin_decides_victims(self) -> bool:
        """True when no earlier plugin can hand reclaim victims past the queue plugin (see VICTIM_LAYOUTS)."""
        return self.layout != "documented"

    def __repr__(self) -> str:  # what hypothesis prints for a falsifying example: loadable YAML
        import yaml
        return f"Scenario(mode={self.mode!r}, actions={self.actions!r}) as YAML:\n" + yaml.safe_dump_all(self.objects)


def _res(cpu_milli: int, mem_mib: int, gpu: int = 0) -> dict[str, str]:
    out = {"cpu": f"{cpu_milli}m", "memory": f"{mem_mib}Mi"}
    if gpu:
        out["nvidia.com/gpu"] = str(gpu)
    return out


#: Where the queue plugin sits relative to gang and conformance, which also answer "which victims?":
#: "documented" is Volcano's documented layout (they in tier 1, the queue plugin in tier 2), where their
#: victims bypass the queue plugin's deserved and guarantee checks (open issue #5896, spec 1.10);
#: "queue-plugin-last" puts it last in tier 1 (every victim set is intersected with its answer);
#: "no-reclaimable" turns enableReclaimable off on gang and conformance.
VICTIM_LAYOUTS = ("documented", "queue-plugin-last", "no-reclaimable")


def _conf(mode: str, actions: list[str], level: int, layout: str = "documented") -> dict[str, Any]:
    first: list[dict[str, Any]] = [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]
    if mode == "proportion":
        queue_plugin: dict[str, Any] = {"name": "proportion"}
    elif mode == "hierarchical":
        queue_plugin = {"name": "capacity", "enableHierarchy": True}
        if level:
            queue_plugin["arguments"] = {"ancestorReclaimLevel": level}
    else:
        queue_plugin = {"name": "capacity"}
    second: list[dict[str, Any]] = [{"name": "drf"}, {"name": "predicates"}, {"name": "nodeorder"}]
    if layout == "queue-plugin-last":
        first.append(queue_plugin)
    else:
        second.insert(2, queue_plugin)
    if layout == "no-reclaimable":
        for opt in first[1:]:
            opt["enableReclaimable"] = False
    return conf(", ".join(actions), first, second)


@st.composite
def quota(draw: st.DrawFn, scale: int) -> dict[str, str] | None:
    """A deserved / capability / guarantee: absent, or some cpu and memory (in units of `scale`)."""
    if not draw(st.booleans()):
        return None
    out: dict[str, str] = {"cpu": f"{draw(st.integers(0, 8)) * scale}m"}
    if draw(st.booleans()):
        out["memory"] = f"{draw(st.integers(0, 8)) * scale}Mi"
    return out


@st.composite
def scenarios(draw: st.DrawFn, modes: tuple[str, ...] = MODES, actions: tuple[str, ...] | None = None) -> Scenario:
    mode = draw(st.sampled_from(modes))
    if actions is None:
        acts = ["enqueue", "allocate", "backfill"]
        if draw(st.booleans()):
            acts.append("reclaim")
        if draw(st.booleans()):
            acts.append("preempt")
    else:
        acts = list(actions)
    level = draw(st.integers(0, 2)) if mode == "hierarchical" else 0
    layout = draw(st.sampled_from(VICTIM_LAYOUTS))
    objs: list[dict[str, Any]] = [_conf(mode, acts, level, layout)]

    # nodes
    n_nodes = draw(st.integers(1, 4))
    free: dict[str, list[int]] = {}
    for i in range(n_nodes):
        cores = draw(st.sampled_from([2, 4, 8]))
        gib = draw(st.sampled_from([4, 8, 16]))
        gpu = draw(st.sampled_from([0, 0, 2]))
        n = node(f"n{i}", cpu=str(cores), memory=f"{gib}Gi", pods="110", gpu=str(gpu) if gpu else None)
        odd = draw(st.integers(0, 9))
        if odd == 0:
            n["spec"] = {"unschedulable": True}
        elif odd == 1:
            n["spec"] = {"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}
        objs.append(n)
        free[f"n{i}"] = [cores * 1000, gib * 1024, gpu, 110]

    # queues
    n_queues = draw(st.integers(1, 5))
    names = [f"q{i}" for i in range(n_queues)]
    parents: dict[str, str] = {}
    if mode == "hierarchical":
        objs.append(queue("root"))
        for i, name in enumerate(names):
            parents[name] = draw(st.sampled_from(["root", *names[:i]]))
    for name in names:
        kwargs: dict[str, Any] = {}
        for key, scale in (("deserved", 500), ("capability", 1000), ("guarantee", 250)):
            q = draw(quota(scale))
            if q:
                kwargs[key] = q
        obj = queue(name, parent=parents.get(name), priority=draw(st.sampled_from([None, 0, 1])),
                    weight=draw(st.integers(1, 3)), **kwargs)
        if not draw(st.integers(0, 5)):
            obj["spec"]["reclaimable"] = False
        if not draw(st.integers(0, 9)):
            obj["status"]["state"] = "Closed"
        objs.append(obj)
    leaves = [n for n in names if n not in parents.values()]

    # jobs
    n_jobs = draw(st.integers(1, 5))
    for j in range(n_jobs):
        q = draw(st.sampled_from(leaves))
        n_tasks = draw(st.integers(1, 4))
        min_member = draw(st.integers(1, n_tasks))
        cpu = draw(st.sampled_from(_CPU))
        mem = draw(st.sampled_from(_MEM))
        gpu = draw(st.sampled_from([0, 0, 0, 1]))
        running = draw(st.integers(0, n_tasks))
        pods = []
        placed = 0
        for t in range(n_tasks):
            node_name = ""
            if t < running:
                for n, f in free.items():
                    if f[0] >= cpu and f[1] >= mem and f[2] >= gpu and f[3] >= 1:
                        f[0] -= cpu
                        f[1] -= mem
                        f[2] -= gpu
                        f[3] -= 1
                        node_name = n
                        placed += 1
                        break
            p = pod(f"job{j}-{t}", f"job{j}", _res(cpu, mem, gpu), node_name=node_name)
            del p["metadata"]["uid"]  # the uid defaults to namespace/name, which export keeps too
            if draw(st.integers(0, 4)) == 0:
                p["metadata"]["annotations"]["volcano.sh/preemptable"] = draw(st.sampled_from(["true", "false"]))
            if draw(st.integers(0, 4)) == 0:
                p["spec"]["priority"] = draw(st.integers(0, 3))
            if node_name and draw(st.integers(0, 7)) == 0:
                p["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"  # terminating: Releasing
            if draw(st.integers(0, 7)) == 0:
                p["spec"]["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
            pods.append(p)
        phase = "Running" if placed else draw(st.sampled_from(["Pending", "Inqueue"]))
        min_res = _res(cpu * min_member, mem * min_member, gpu * min_member) if draw(st.booleans()) else None
        pg = podgroup(f"job{j}", q, min_member=min_member, phase=phase, min_resources=min_res)
        pg["metadata"]["creationTimestamp"] = f"2024-01-01T00:00:{j:02d}Z"
        objs.append(pg)
        objs.extend(pods)
    return Scenario(mode, acts, objs, leaves, layout)


@st.composite
def reclaim_scenarios(draw: st.DrawFn, modes: tuple[str, ...] = ("flat", "hierarchical")) -> Scenario:
    """Full nodes held by queues above their deserved, and hungry queues below theirs: reclaim territory.

    Random scenarios rarely evict (a few percent); here most cycles do, with random guarantees on the
    busy queues so that the guarantee check decides some of the victims.
    """
    mode = draw(st.sampled_from(modes))
    acts = ["enqueue", "allocate", "backfill", "reclaim"]
    layout = draw(st.sampled_from(VICTIM_LAYOUTS))
    objs: list[dict[str, Any]] = [_conf(mode, acts, draw(st.integers(0, 1)) if mode == "hierarchical" else 0,
                                        layout)]
    n_nodes = draw(st.integers(1, 3))
    for i in range(n_nodes):
        objs.append(node(f"n{i}", cpu="4", memory="8Gi", pods="110"))
    hierarchical = mode == "hierarchical"
    if hierarchical:
        objs.append(queue("root"))
    n_busy = draw(st.integers(1, 2))
    n_hungry = draw(st.integers(1, 2))
    shared_parent = hierarchical and draw(st.booleans())
    if shared_parent:
        objs.append(queue("org", parent="root"))
    parent = "org" if shared_parent else ("root" if hierarchical else None)
    busy = [f"busy{i}" for i in range(n_busy)]
    hungry = [f"hungry{i}" for i in range(n_hungry)]
    for name in busy:
        guarantee = {"cpu": f"{draw(st.integers(0, 6)) * 500}m"} if draw(st.booleans()) else None
        objs.append(queue(name, parent=parent, deserved={"cpu": f"{draw(st.integers(0, 4)) * 500}m"},
                          guarantee=guarantee))
    for name in hungry:
        objs.append(queue(name, parent=parent if draw(st.booleans()) else ("root" if hierarchical else None),
                          deserved={"cpu": f"{draw(st.integers(2, 8))}", "memory": "16Gi"}))
    # busy queues fill every node with 1-cpu pods
    slots = [(f"n{i}", s) for i in range(n_nodes) for s in range(4)]
    per_job = draw(st.integers(1, 4))
    j = 0
    while slots:
        take, slots = slots[:per_job], slots[per_job:]
        q = draw(st.sampled_from(busy))
        pg = podgroup(f"busy-job{j}", q, min_member=draw(st.integers(1, len(take))), phase="Running")
        pg["metadata"]["creationTimestamp"] = f"2024-01-01T00:00:{j:02d}Z"
        objs.append(pg)
        for t, (n, _slot) in enumerate(take):
            p = pod(f"busy-job{j}-{t}", f"busy-job{j}", {"cpu": "1", "memory": "1Gi"}, node_name=n)
            del p["metadata"]["uid"]
            objs.append(p)
        j += 1
    for k in range(draw(st.integers(1, 3))):
        q = draw(st.sampled_from(hungry))
        n_tasks = draw(st.integers(1, 3))
        pg = podgroup(f"hungry-job{k}", q, min_member=draw(st.integers(1, n_tasks)), phase="Inqueue")
        pg["metadata"]["creationTimestamp"] = f"2024-01-01T00:01:{k:02d}Z"
        objs.append(pg)
        cpu = draw(st.sampled_from(["1", "2"]))
        for t in range(n_tasks):
            p = pod(f"hungry-job{k}-{t}", f"hungry-job{k}", {"cpu": cpu, "memory": "1Gi"})
            del p["metadata"]["uid"]
            objs.append(p)
    return Scenario(mode, acts, objs, [*busy, *hungry], layout)
