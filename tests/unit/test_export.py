"""capacity.io.export: a Cluster written as apply-ready YAML reads back as the same scheduling input."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from capacity.core.errors import InputError
from capacity.core.resources import Resource, to_dict
from capacity.io.export import export_objects, export_yaml, quantity, resource_list
from capacity.io.k8s import load_cluster, load_cluster_file
from capacity.scheduler import run_cycle

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures").glob("*.yaml"))
CORPUS = sorted((ROOT / "tests" / "acceptance" / "volcano").glob("*/cluster.yaml"))


@pytest.mark.parametrize(("name", "amount", "text"), [
    ("cpu", 2000, "2"), ("cpu", 500, "500m"), ("cpu", 0, "0"),
    ("memory", 4 * 2**30, "4Gi"), ("memory", 10**9, "1G"), ("memory", 1500, "1500"), ("memory", 0, "0"),
    ("pods", 110, "110"),
    ("nvidia.com/gpu", 2000, "2"), ("nvidia.com/gpu", 1500, "1.5"),
    ("ephemeral-storage", 10 * 2**30 * 1000, str(10 * 2**30)),
])
def test_quantity_is_exact(name, amount, text):
    assert quantity(name, amount) == text


def test_resource_list_reads_back_to_the_same_resource():
    r = Resource(2500, 3 * 2**30, {"nvidia.com/gpu": 4000, "pods": 10})
    text = yaml.safe_dump({"spec": resource_list(r)})
    from capacity.core.resources import from_resource_list
    back = from_resource_list(yaml.safe_load(text)["spec"])
    assert to_dict(back) == to_dict(r)


def _same_input(a, b) -> None:
    assert [(n.name, to_dict(n.allocatable), n.labels, n.taints, n.unschedulable, n.ready) for n in a.nodes] == [
        (n.name, to_dict(n.allocatable), n.labels, n.taints, n.unschedulable, n.ready) for n in b.nodes]
    assert a.queues.keys() == b.queues.keys()
    for name, q in a.queues.items():
        other = b.queues[name]
        for attr in ("weight", "priority", "parent", "state", "reclaimable"):
            assert getattr(q, attr) == getattr(other, attr), (name, attr)
        for attr in ("capability", "deserved", "guarantee"):
            mine, theirs = getattr(q, attr), getattr(other, attr)
            assert (mine is None) == (theirs is None), (name, attr)
            if mine is not None:
                assert to_dict(mine) == to_dict(theirs), (name, attr)
                assert (mine.scalars is None) == (theirs.scalars is None), (name, attr)
    assert {k: (pg.queue, pg.min_member, pg.phase, pg.min_task_member) for k, pg in a.podgroups.items()} == {
        k: (pg.queue, pg.min_member, pg.phase, pg.min_task_member) for k, pg in b.podgroups.items()}
    assert {k: (p.group, to_dict(p.resreq), p.phase, p.node_name, p.deleting, p.priority, p.preemptable)
            for k, p in a.pods.items()} == {
        k: (p.group, to_dict(p.resreq), p.phase, p.node_name, p.deleting, p.priority, p.preemptable)
        for k, p in b.pods.items()}
    assert a.priority_classes == b.priority_classes
    assert a.conf.actions == b.conf.actions
    assert [[(o.name, o.switches, o.arguments) for o in t] for t in a.conf.tiers] == [
        [(o.name, o.switches, o.arguments) for o in t] for t in b.conf.tiers]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_round_trip_gives_the_same_cycle(path):
    original = load_cluster_file(str(path))
    again = load_cluster(export_yaml(original), source="export")
    _same_input(original, again)
    first, second = run_cycle(original), run_cycle(again)
    assert first.binds == second.binds and first.evicted == second.evicted
    assert first.podgroup_phases == second.podgroup_phases and first.queues == second.queues


def test_round_trip_after_cycles_keeps_running_and_terminating_pods():
    cluster = load_cluster_file(str(ROOT / "fixtures" / "reclaim.yaml"))
    run_cycle(cluster)
    assert any(p.deleting for p in cluster.pods.values()), "the reclaim fixture evicts in cycle 1"
    again = load_cluster(export_yaml(cluster))
    _same_input(cluster, again)
    assert run_cycle(cluster).binds == run_cycle(again).binds


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.parent.name)
def test_acceptance_clusters_round_trip(path):
    try:
        original = load_cluster_file(str(path))
    except InputError:
        pytest.skip("input the loader refuses on purpose")
    again = load_cluster(export_yaml(original), source="export")
    _same_input(original, again)


def test_objects_are_apply_ready():
    cluster = load_cluster_file(str(ROOT / "fixtures" / "default.yaml"))
    objs = export_objects(cluster)
    kinds = [o["kind"] for o in objs]
    # Namespaces first, so `kubectl apply -f` can create the namespaced objects after them.
    assert kinds[: kinds.count("Namespace")] == ["Namespace"] * kinds.count("Namespace")
    namespaces = {o["metadata"]["name"] for o in objs if o["kind"] == "Namespace"}
    for o in objs:
        assert o["apiVersion"] and o["metadata"]["name"]
        assert "uid" not in o["metadata"]
        if o["kind"] in ("Pod", "PodGroup"):
            assert o["metadata"]["namespace"] in namespaces | {"default"}
    queue_names = [o["metadata"]["name"] for o in objs if o["kind"] == "Queue"]
    for o in objs:
        if o["kind"] == "Queue" and "parent" in o["spec"]:
            assert queue_names.index(o["spec"]["parent"]) < queue_names.index(o["metadata"]["name"])
    gpu_pod = next(o for o in objs if o["kind"] == "Pod" and "nvidia.com/gpu" in
                   o["spec"]["containers"][0]["resources"]["requests"])
    res = gpu_pod["spec"]["containers"][0]["resources"]
    assert res["limits"]["nvidia.com/gpu"] == res["requests"]["nvidia.com/gpu"]
    assert "pods" not in res["requests"]


def test_default_configuration_is_not_written():
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                           "status": {"allocatable": {"cpu": "1", "memory": "1Gi"}}})
    cluster = load_cluster(text)
    assert cluster.conf.is_default
    assert all(o["kind"] != "ConfigMap" for o in export_objects(cluster))
    assert load_cluster(export_yaml(cluster)).conf.is_default


def test_a_queue_quota_naming_only_gpus_is_written_without_zero_cpu_and_memory() -> None:
    """`capability: {cpu: '0', memory: '0', nvidia.com/gpu: '4'}` reads as "no cpu at all" (the plan command's
    Queue YAML showed it); Volcano reads the absent cpu the same. An all-zero list keeps its entries (empty and
    non-empty lists differ in Volcano)."""
    import yaml as _yaml

    from capacity.io.export import export_objects
    from capacity.io.k8s import load_cluster
    text = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
spec:
  weight: 1
  guarantee: {resource: {nvidia.com/gpu: '2'}}
  capability: {nvidia.com/gpu: '4', memory: 8Gi}
  deserved: {cpu: '0'}
"""
    spec = next(o for o in export_objects(load_cluster(text)) if o["kind"] == "Queue")["spec"]
    assert spec["guarantee"] == {"resource": {"nvidia.com/gpu": "2"}}
    assert spec["capability"] == {"memory": "8Gi", "nvidia.com/gpu": "4"}
    assert spec["deserved"] == {"cpu": "0", "memory": "0"}
    assert "cpu: '0'" not in _yaml.safe_dump(spec["capability"])
