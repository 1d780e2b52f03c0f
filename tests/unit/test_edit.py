"""capacity.authoring.edit: cluster edits as pure functions, validated as Volcano would (webhook, tree, quota rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from capacity.authoring import edit
from capacity.core.cluster import Cluster
from capacity.core.conf import parse_conf
from capacity.core.errors import InputError
from capacity.io.export import export_yaml
from capacity.io.k8s import load_cluster
from capacity.scheduler import run_cycle

DEFAULT = Path(__file__).resolve().parents[2] / "fixtures" / "default.yaml"


@pytest.fixture
def cluster() -> Cluster:
    """The default scenario: hierarchy on; root -> research (cpu 64 deserved, 112 capability) -> 3 leaves."""
    return load_cluster(DEFAULT.read_text(encoding="utf-8"), source="default.yaml")


def refused(fn, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    return info.value


def test_an_edit_never_mutates_its_input(cluster):
    before = export_yaml(cluster)
    out = edit.add_queue(cluster, "team-new", "research", capability={"cpu": "4", "memory": "8Gi"})
    assert export_yaml(cluster) == before
    q = out.cluster.queues["team-new"]
    assert q.parent == "research" and q.capability.cpu == 4000 and q.capability.memory == 8 * 2**30
    assert q.deserved is None and q.guarantee is None
    refused(edit.add_queue, cluster, "research-new", "research", deserved={"cpu": "500"})
    assert export_yaml(cluster) == before


def test_add_queue_defaults_under_root_with_hierarchy(cluster):
    assert edit.add_queue(cluster, "top").cluster.queues["top"].parent == "root"
    flat = edit.set_hierarchy(cluster, False).cluster
    assert edit.add_queue(flat, "flat-one").cluster.queues["flat-one"].parent == ""


@pytest.mark.parametrize(("name", "field"), [("Bad_Name", "metadata.name"), ("", "metadata.name"),
                                             ("research", "metadata.name")])
def test_add_queue_refuses_bad_or_duplicate_names(cluster, name, field):
    err = refused(edit.add_queue, cluster, name, "research")
    assert err.field == field


def test_self_parent_and_cycles_are_refused(cluster):
    err = refused(edit.update_queue, cluster, "research", parent="research")
    assert (err.obj, err.field) == ("Queue/research", "spec.parent") and "own parent" in err.message
    err = refused(edit.update_queue, cluster, "research", parent="research-train")
    assert err.field == "spec.parent" and "cycle" in err.message and "research -> research-train" in err.message
    err = refused(edit.update_queue, cluster, "research", parent="nowhere")
    assert "does not exist" in err.message


def test_child_capability_above_parent_is_refused(cluster):
    err = refused(edit.set_queue_resources, cluster, "research-train", capability={"cpu": "500", "memory": "1Gi"})
    assert (err.obj, err.field) == ("Queue/research-train", "spec.capability.cpu")
    assert "child-capability-above-parent" in err.message and "webhook" in err.message


def test_children_deserved_or_guarantee_above_parent_is_refused(cluster):
    err = refused(edit.set_queue_resources, cluster, "research-eval", deserved={"cpu": "60", "memory": "96Gi"})
    assert err.obj == "Queue/research" and err.field == "spec.deserved.cpu"
    assert "children-deserved-above-parent" in err.message
    err = refused(edit.add_queue, cluster, "greedy", "research", deserved={"cpu": "64"}, guarantee={"cpu": "64"})
    assert err.obj == "Queue/research"


def test_webhook_quota_rules_are_refused(cluster):
    flat = edit.set_hierarchy(cluster, False).cluster  # only the webhook's own rules are left to break
    err = refused(edit.set_queue_resources, flat, "research-dev", guarantee={"cpu": "9"})
    assert (err.obj, err.field) == ("Queue/research-dev", "spec.guarantee.resource.cpu")
    assert "guarantee-above-deserved" in err.message
    err = refused(edit.set_queue_resources, cluster, "research-dev", capability={"cpu": "1"})
    assert "deserved-above-capability" in err.message


def test_bad_quantities_name_the_field(cluster):
    err = refused(edit.set_queue_resources, cluster, "research-dev", capability={"cpu": "lots"})
    assert (err.obj, err.field) == ("Queue/research-dev", "spec.capability.cpu")
    err = refused(edit.update_queue, cluster, "research-dev", weight="0")
    assert err.field == "spec.weight"
    err = refused(edit.update_queue, cluster, "research-dev", state="Paused")
    assert err.field == "status.state"


def test_blank_quantities_unset_and_fields_change(cluster):
    out = edit.set_queue_resources(cluster, "research-dev", capability={"cpu": "", "memory": ""}).cluster
    assert out.queues["research-dev"].capability is None
    out = edit.update_queue(cluster, "research-dev", weight="3", priority="7", reclaimable=False,
                            state="Closed").cluster
    q = out.queues["research-dev"]
    assert (q.weight, q.priority, q.reclaimable, q.state) == (3, 7, False, "Closed")


def test_jobs_on_a_non_leaf_queue_are_refused(cluster):
    # research-train holds jobs: a child under it would make it a non-leaf queue with jobs.
    err = refused(edit.add_queue, cluster, "sub", "research-train")
    assert err.obj.startswith("PodGroup/research/") and err.field == "spec.queue"
    assert "job-on-non-leaf-queue" in err.message


def test_remove_queue_refuses_children_jobs_and_root(cluster):
    assert "child queues" in refused(edit.remove_queue, cluster, "research").message
    assert "PodGroup" in refused(edit.remove_queue, cluster, "research-train").message
    assert "root" in refused(edit.remove_queue, cluster, "root").message
    empty = edit.add_queue(cluster, "empty", "research").cluster
    assert "empty" not in edit.remove_queue(empty, "empty").cluster.queues


def test_rename_repoints_children_and_podgroups(cluster):
    out = edit.rename_queue(cluster, "research", "science").cluster
    assert "research" not in out.queues and out.queues["science"].parent == "root"
    assert {out.queues[n].parent for n in ("research-train", "research-eval", "research-dev")} == {"science"}
    out = edit.rename_queue(out, "research-train", "train").cluster
    assert {pg.queue for uid, pg in out.podgroups.items() if uid.startswith("research/train-")} == {"train"}
    assert run_cycle(out).binds == run_cycle(cluster).binds, "a rename changes nothing the scheduler decides"
    assert "already exists" in refused(edit.rename_queue, cluster, "research", "production").message


def test_update_queue_checks_everything_together(cluster):
    out = edit.update_queue(cluster, "research-dev", parent="root", weight="2",
                            deserved={"cpu": "4", "memory": "8Gi"}, capability={"cpu": "8", "memory": "16Gi"})
    q = out.cluster.queues["research-dev"]
    assert q.parent == "root" and q.weight == 2 and q.deserved.cpu == 4000
    assert refused(edit.update_queue, cluster, "research", parent="research-dev").field == "spec.parent"


def test_warnings_are_kept_with_the_edit(cluster):
    out = edit.add_queue(cluster, "gpu-typo", "research", capability={"nvidia.com/gpus": "2"})
    assert [f.rule for f in out.about("Queue/gpu-typo")] == ["unknown-resource"]


def test_existing_problems_do_not_block_unrelated_edits(cluster):
    broken = edit.set_hierarchy(cluster, False).cluster
    broken.queues["research-dev"].capability = None
    broken.queues["research-dev"].guarantee = broken.queues["research-dev"].deserved.clone()
    broken.queues["research-dev"].guarantee.cpu *= 100  # guarantee-above-deserved: already an error
    out = edit.update_queue(broken, "research-eval", weight="2")
    assert any(f.rule == "guarantee-above-deserved" for f in out.findings)


def test_nodes(cluster):
    out = edit.set_node(cluster, "cpu-1", allocatable={"cpu": "64", "memory": "256Gi"}, unschedulable=True).cluster
    node = next(n for n in out.nodes if n.name == "cpu-1")
    assert node.allocatable.cpu == 64000 and node.unschedulable and node.allocatable.max_task_num == 110
    busy = next(p.node_name for p in cluster.pods.values() if p.node_name)
    err = refused(edit.set_node, cluster, busy, allocatable={"cpu": "1m", "memory": "1"})
    assert err.obj == f"Node/{busy}" and err.field.startswith("status.allocatable.")
    assert "bound" in refused(edit.remove_node, cluster, busy).message
    added = edit.add_node(cluster, "node-9", {"cpu": "8", "memory": "32Gi"}).cluster
    assert added.nodes[-1].name == "node-9"
    assert "node-9" not in {n.name for n in edit.remove_node(added, "node-9").cluster.nodes}
    assert "already exists" in refused(edit.add_node, cluster, busy, {"cpu": "1"}).message


def test_conf_text_round_trips(cluster):
    text = edit.conf_text(cluster.conf)
    again = parse_conf(text)
    assert again.actions == cluster.conf.actions
    assert [[(o.name, o.switches) for o in t] for t in again.tiers] == \
        [[(o.name, o.switches) for o in t] for t in cluster.conf.tiers]


def test_scheduler_configuration_edits(cluster):
    out = edit.set_actions(cluster, "enqueue, allocate").cluster
    assert out.conf.actions == ["enqueue", "allocate"] and out.conf.plugin("capacity").hierarchy
    err = refused(edit.set_actions, cluster, "enqueue, allocat")
    assert err.field == "actions[1]" and "allocate" in err.message
    off = edit.set_hierarchy(cluster, False)
    assert not edit.hierarchy_on(off.cluster)
    assert any(f.rule == "parent-without-hierarchy" for f in off.findings)
    assert edit.hierarchy_on(edit.set_hierarchy(off.cluster, True).cluster)
    assert refused(edit.set_conf_text, cluster, "  ").obj == "volcano-scheduler.conf"
    no_capacity = edit.set_conf_text(cluster, 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n')
    assert "capacity" in refused(edit.set_hierarchy, no_capacity.cluster, True).message


def test_hierarchy_on_without_root_is_refused():
    flat = load_cluster(
        "kind: Queue\nmetadata: {name: a}\nspec: {weight: 1}\n---\n"
        "kind: ConfigMap\nmetadata: {name: volcano-scheduler-configmap}\ndata:\n  volcano-scheduler.conf: |\n"
        "    actions: \"enqueue, allocate\"\n    tiers:\n    - plugins:\n      - name: capacity\n")
    err = refused(edit.set_hierarchy, flat, True)
    assert err.obj == "Queue/root" and "missing-root-queue" in err.message
