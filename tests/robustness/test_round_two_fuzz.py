"""Generated clusters (issue 26, round two): odd but well-formed input never crashes a cycle.

Hypothesis builds whole clusters from the parts that caused round two's crashes: queue trees flat and deep
with enableHierarchy on, off or quoted, capability/deserved/guarantee per resource unset, zero or set, nodes
Ready, NotReady or unschedulable (or none at all), card annotations holding anything (huge numbers, nested
JSON), and scheduler configurations with odd action lists and tiers. Each one is loaded and simulated for
one or two cycles as `simulate` does. Nothing escapes but `InputError` (a clean message naming object and
field) or `ResourceUnderflow` (where Volcano itself panics), and after the cycles:

* no node holds more than it started with beyond its allocatable (binds only fill free room);
* no pod is invented, and the only pods gone are the ones evicted (terminating) before the last cycle;
* with capacity's hierarchy on (the only queue plugin), a parent queue's allocated is the sum of its children's.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capacity.commands.simulate import render_text
from capacity.core.cluster import Cluster
from capacity.core.errors import InputError, ResourceUnderflow
from capacity.core.resources import Resource
from capacity.core.trace import Trace
from capacity.io.k8s import load_objects
from capacity.scheduler import RunResult, run_cycle
from tests.builders import node, pod, podgroup, queue

EXAMPLES = 300
#: Three times in four, once in four (Hypothesis draws small integers far more often than large ones).
MOSTLY, RARELY = st.sampled_from([True, True, True, False]), st.sampled_from([False, False, False, True])
RESOURCES = ("cpu", "memory", "nvidia.com/gpu")
AMOUNTS = {"cpu": ("0", "500m", "1", "2", "4", "16"), "memory": ("0", "512Mi", "1Gi", "4Gi", "32Gi"),
           "nvidia.com/gpu": ("0", "1", "2", "8")}
PLUGINS = ("priority", "gang", "conformance", "drf", "predicates", "proportion", "capacity", "nodeorder",
           "binpack", "overcommit", "capacity-card", "bogus")
ACTIONS = ("enqueue", "allocate", "backfill", "reclaim", "preempt", "gangreclaim", "shuffle", "", " ", "allocte")
CARD_VALUES = st.sampled_from([
    '{"NVIDIA-A100": 2}', '{"NVIDIA-A100": "2"}', '{"NVIDIA-A100": 1e400}', '{"NVIDIA-A100": ' + "9" * 60 + "}",
    '{"a": {"b": {"c": [1, [2, [3]]]}}}', "[" * 200 + "]" * 200, "not json", "", "-3", '{"NVIDIA-A100": -1}',
    "NVIDIA-A100", "NVIDIA-A100|NVIDIA-H100", '{"": 1}'])


def quotas(draw: st.DrawFn) -> dict[str, str] | None:
    """A ResourceList with each resource unset, zero or some amount; None (the field left out) too."""
    if draw(st.booleans()):
        return None
    out = {r: draw(st.sampled_from(AMOUNTS[r])) for r in RESOURCES if draw(st.booleans())}
    return out or None


@st.composite
def clusters(draw: st.DrawFn) -> list[dict[str, Any]]:
    hierarchy = draw(st.sampled_from([True, True, False, "true", "True", "yes", None]))
    capacity: dict[str, Any] = {"name": "capacity"}
    if hierarchy is not None:
        capacity["enableHierarchy"] = hierarchy
    if draw(MOSTLY):  # mostly a configuration that schedules, with odd spellings
        tiers = [[{"name": "priority"}, {"name": "gang", "enableReclaimable": draw(st.booleans())},
                  {"name": "conformance"}],
                 [{"name": "predicates"}, capacity if draw(MOSTLY) else {"name": "proportion"},
                  {"name": "nodeorder"}]]
        actions = draw(st.sampled_from(["enqueue, allocate, backfill", "enqueue,allocate,backfill,reclaim",
                                        " enqueue , allocate ", "enqueue,,allocate,", "allocate, preempt",
                                        "enqueue, allocate, reclaim, preempt", "allocate", "reclaim",
                                        " allocate , reclaim "]))
    else:  # anything: unknown plugins and actions, empty entries, several tiers
        tiers = [[{"name": n} if n != "capacity" else capacity
                  for n in draw(st.lists(st.sampled_from(PLUGINS), min_size=0, max_size=5))]
                 for _ in range(draw(st.integers(1, 3)))]
        actions = ",".join(draw(st.lists(st.sampled_from(ACTIONS), min_size=0, max_size=5)))
    conf_text = yaml.safe_dump({"actions": actions, "tiers": [{"plugins": t} for t in tiers]})
    objs: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "volcano-scheduler-configmap", "namespace": "volcano-system"}, "data": {"volcano-scheduler.conf":
                                                                                         conf_text}}]
    for i in range(draw(st.integers(0, 4))):
        n = node(f"n{i}", cpu=draw(st.sampled_from(AMOUNTS["cpu"][1:])), memory=draw(st.sampled_from(
            AMOUNTS["memory"][1:])), gpu=draw(st.sampled_from([None, "0", "4", "8"])))
        health = draw(st.sampled_from(["Ready", "Ready", "none", "NotReady", "Unknown", "unschedulable"]))
        if health != "none":
            status = "True" if health in ("Ready", "unschedulable") else "False" if health == "NotReady" else "Unknown"
            n["status"]["conditions"] = [{"type": "Ready", "status": status}]
        if health == "unschedulable":
            n["spec"] = {"unschedulable": True}
        objs.append(n)
    node_names = [o["metadata"]["name"] for o in objs if o["kind"] == "Node"]
    names = ["root"] if draw(MOSTLY) else []  # (hierarchy without root stalls every cycle)
    for name in names:
        objs.append(queue(name))
    for i in range(draw(st.integers(1, 6))):
        name = f"q{i}"
        parent = draw(st.sampled_from([None, "root", *names[-3:]]))  # deep chains and flat trees both
        q = queue(name, parent=parent, deserved=quotas(draw), capability=quotas(draw), guarantee=quotas(draw))
        if draw(st.booleans()):
            q["metadata"]["annotations"] = {"volcano.sh/card.quota": draw(CARD_VALUES)}
        objs.append(q)
        names.append(name)
    parents = {o["spec"].get("parent") for o in objs if o["kind"] == "Queue"}
    leaves = [n for n in names if n != "root" and n not in parents]
    anywhere = [n for n in names if n != "root"]  # (a job on a parent queue stalls the hierarchy's cycle)
    for j in range(draw(st.integers(0, 4))):
        members = draw(st.integers(1, 3))
        pg = podgroup(f"j{j}", draw(st.sampled_from(leaves if draw(MOSTLY) else anywhere)),
                      min_member=draw(st.integers(1, members)),
                      phase=draw(st.sampled_from(["Inqueue", "Running", "Pending", "Running"])))
        objs.append(pg)
        for k in range(members):
            req = {r: draw(st.sampled_from(AMOUNTS[r][1:])) for r in RESOURCES if draw(st.booleans())}
            placed = pg["status"]["phase"] == "Running" and node_names and draw(MOSTLY)
            p = pod(f"j{j}-{k}", f"j{j}", req or {"cpu": "1"},  # running pods may over-commit a node already
                    node_name=draw(st.sampled_from(node_names)) if placed else "")
            if draw(RARELY):
                p["metadata"]["annotations"]["volcano.sh/card.request"] = draw(CARD_VALUES)
            objs.append(p)
    return objs


def used(cluster: Cluster) -> dict[str, Resource]:
    """Per node, the requests of the pods on it that still hold room (terminating ones included)."""
    out = {n.name: Resource.empty() for n in cluster.nodes}
    for p in cluster.pods.values():
        if p.node_name in out and p.phase not in ("Succeeded", "Failed"):
            out[p.node_name].add(p.resreq)
    return out


def over(usage: Resource, alloc: Resource) -> dict[str, float]:
    """The dimensions on which `usage` exceeds `alloc` (with a rounding margin), by how much."""
    out = {}
    for name in ("cpu", "memory", *(usage.scalars or {})):
        excess = usage.get(name) - alloc.get(name)
        if excess > 1e-6:
            out[name] = excess
    return out


def run(objs: list[dict[str, Any]], cycles: int) -> None:
    try:
        cluster = load_objects(copy.deepcopy(objs), source="fuzz")
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    before_pods = set(cluster.pods)
    before_used = used(cluster)
    alloc = {n.name: n.allocatable for n in cluster.nodes}
    run_result = RunResult()
    evicted_before_last: set[str] = set()
    try:
        for i in range(cycles):
            if i == cycles - 1:
                evicted_before_last = {k for c in run_result.cycles for k in c.evicted}
            trace = Trace(enabled=False)
            trace.cycle = i + 1
            run_result.cycles.append(run_cycle(cluster, trace))
    except (InputError, ResourceUnderflow) as exc:
        assert str(exc)
        return
    render_text(run_result.as_json())
    json.dumps(run_result.as_json(), allow_nan=False)
    # no pod invented, none lost but the terminating ones
    assert set(cluster.pods) <= before_pods
    gone = before_pods - set(cluster.pods)
    assert gone <= evicted_before_last, f"pods lost: {sorted(gone - evicted_before_last)}"
    # no node over-committed by the cycles beyond what it started with
    for name, usage in used(cluster).items():
        excess = over(usage, alloc[name])
        started = over(before_used[name], alloc[name])
        worse = {d: v for d, v in excess.items() if v > started.get(d, 0.0) + 1e-6}
        assert not worse, f"node {name} over-committed on {worse}"
    # with capacity's hierarchy on, a parent's allocated is the sum of its children's (when proportion or
    # capacity-card is configured too, some queues' reported numbers are theirs, which know no hierarchy)
    opt = cluster.conf.plugin("capacity")
    queues = run_result.as_json()["queues"]
    alone = all(cluster.conf.plugin(other) is None for other in ("proportion", "capacity-card"))
    if opt is not None and opt.hierarchy and alone and queues:
        children: dict[str, list[str]] = {}
        for name, q in cluster.queues.items():
            if name != "root" and name in queues:
                children.setdefault(q.parent or "root", []).append(name)
        for parent, kids in children.items():
            if parent not in queues:
                continue
            mine = queues[parent]["allocated"]
            for dim in set(mine) | {d for k in kids for d in queues[k]["allocated"]}:
                total = sum(queues[k]["allocated"].get(dim, 0) for k in kids)
                assert abs(mine.get(dim, 0) - total) <= 1e-6, (
                    f"queue {parent}: allocated {dim} {mine.get(dim, 0)} != children's sum {total}")


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(clusters(), st.integers(1, 2))
def test_generated_clusters_run_cleanly(objs: list[dict[str, Any]], cycles: int) -> None:
    run(objs, cycles)
