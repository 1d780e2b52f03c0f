"""Mutation fuzzing of the reader: any damage to a valid cluster is either read or refused cleanly.

Hypothesis takes a valid cluster that uses every field the reader looks at (affinity, tolerations,
taints, init containers, overhead, owner references, priority classes, a ResourceQuota, the
scheduler ConfigMap), then replaces, deletes or adds values anywhere in it with junk: nulls, booleans,
huge and negative numbers, NaN, strings, lists, nested mappings. Whatever comes out, loading raises
nothing but `InputError`, and a cluster that loads simulates two cycles, renders as text and as strict
JSON, exactly like `python -m capacity simulate`.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capacity.commands.simulate import render_text
from capacity.core.errors import InputError
from capacity.io.k8s import load_cluster, load_objects
from capacity.scheduler import simulate
from tests.builders import conf, node, pod, podgroup, queue

EXAMPLES = 400


def _base() -> list[dict[str, Any]]:
    n1 = node("n1", gpu="2", labels={"zone": "a"})
    n1["spec"] = {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]}
    n1["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    n2 = node("n2", cpu="4", memory="8Gi", labels={"zone": "b"})
    p0 = pod("job-a-0", "job-a", {"cpu": "1", "memory": "1Gi"}, node_name="n2")
    p1 = pod("job-a-1", "job-a", {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "1"})
    p1["spec"].update({
        "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "nodeSelector": {"zone": "a"},
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]},
        },
        "initContainers": [{"name": "init", "resources": {"limits": {"cpu": "500m"}}, "restartPolicy": "Always"}],
        "overhead": {"cpu": "100m"},
        "priority": 10,
        "schedulingGates": [],
    })
    p1["metadata"].update({"labels": {"app": "x"}, "ownerReferences": [{"kind": "Job", "name": "job-a",
                                                                         "controller": True}],
                           "creationTimestamp": "2024-01-01T00:00:00Z"})
    p2 = pod("job-b-0", "job-b", {"cpu": "3", "memory": "3Gi"}, node_name="n1")
    p2["metadata"]["annotations"]["volcano.sh/preemptable"] = "true"
    pg_b = podgroup("job-b", "team-b", min_resources={"cpu": "3", "memory": "3Gi"}, phase="Running")
    pg_b["spec"]["priorityClassName"] = "low"
    pg_b["spec"]["minTaskMember"] = {"worker": 1}
    return [
        conf("enqueue, allocate, backfill, reclaim, preempt",
             [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}],
             [{"name": "drf"}, {"name": "predicates"}, {"name": "capacity", "enableHierarchy": True,
                                                         "arguments": {"ancestorReclaimLevel": 1}},
              {"name": "nodeorder"}, {"name": "binpack"}]),
        n1, n2,
        queue("root"),
        queue("team-a", parent="root", deserved={"cpu": "4", "memory": "8Gi"}, capability={"cpu": "8"}),
        queue("team-b", parent="root", deserved={"cpu": "2"}, guarantee={"cpu": "1"}, reclaimable=False,
              weight=2, priority=1),
        podgroup("job-a", "team-a", min_member=2, phase="Inqueue"),
        pg_b, p0, p1, p2,
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": -5,
         "globalDefault": False},
        {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "rq", "namespace": "ns1"},
         "spec": {"hard": {"volcano.sh/namespace.weight": "3"}}},
    ]


BASE = _base()

_scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2**31, 2**63, 10**400 % 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", "-1", "1e40", "9" * 50, "1.5Gi", "lots", "Running", "Open", "true", "no", "root", "n1",
                     "team-a", "job-a", "cpu", "memory", "nvidia.com/gpu", "2024-01-01T00:00:00Z", "<<"]),
)
JUNK = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.one_of(st.text(max_size=8), st.sampled_from(["cpu", "name", "kind", "key", "values"])),
                    inner, max_size=3)), max_leaves=6)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> list[Any]:
    objs: list[Any] = copy.deepcopy(BASE)
    # The conf is YAML text inside the ConfigMap: parse it so that its structure is mutated too.
    objs[0]["data"]["volcano-scheduler.conf"] = yaml.safe_load(objs[0]["data"]["volcano-scheduler.conf"])
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(objs)
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if not path:
            continue
        parent: Any = objs
        for p in path[:-1]:
            parent = parent[p]
        last = path[-1]
        if op == "replace":
            parent[last] = draw(JUNK)
        elif op == "delete":
            del parent[last]
        elif isinstance(parent[last], dict):
            parent[last][draw(st.sampled_from(["cpu", "memory", "name", "parent", "kind", "x", "items"]))] = draw(JUNK)
        elif isinstance(parent[last], list):
            parent[last].append(draw(JUNK))
    cm = objs[0] if objs and isinstance(objs[0], dict) else None
    data = cm.get("data") if isinstance(cm, dict) else None
    if isinstance(data, dict) and "volcano-scheduler.conf" in data and not isinstance(
            data["volcano-scheduler.conf"], str):
        data["volcano-scheduler.conf"] = yaml.safe_dump(data["volcano-scheduler.conf"])
    return objs


def _run(objs: list[Any]) -> None:
    try:
        cluster = load_objects(objs)
    except InputError as exc:
        assert str(exc) and len(str(exc)) < 2000
        return
    out = simulate(cluster, 2).as_json()
    text = json.dumps(out, allow_nan=False)  # strict JSON: no NaN or Infinity
    assert json.loads(text) == out
    render_text(out)
    for q in out["queues"].values():
        assert not math.isnan(q["share"])


def test_the_base_cluster_is_valid() -> None:
    cluster = load_objects(copy.deepcopy(BASE))
    assert len(cluster.pods) == 3 and len(cluster.queues) == 3
    _run(copy.deepcopy(BASE))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_mutated_objects_load_or_fail_cleanly(objs: list[Any]) -> None:
    _run(objs)


@settings(max_examples=EXAMPLES // 4, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_mutated_yaml_text_loads_or_fails_cleanly(objs: list[Any]) -> None:
    """The same through YAML text (what the CLI and the dashboard read)."""
    try:
        text = yaml.safe_dump_all(objs)
    except (yaml.YAMLError, ValueError):
        return
    try:
        cluster = load_cluster(text)
    except InputError:
        return
    json.dumps(simulate(cluster, 1).as_json(), allow_nan=False)
