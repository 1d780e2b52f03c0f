"""Lint rules: for every rule one scenario that triggers it and one, as close as possible, that does not."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from capacity.analysis.lint import RULES, SEVERITIES, Finding, counts, lint, lint_text, render_text
from tests.builders import cluster, conf, node, pod, podgroup, queue

CAP = {"name": "capacity"}
CAP_H = {"name": "capacity", "enableHierarchy": True}
TIER1 = [{"name": "priority"}, {"name": "gang"}]
FLAT = conf("enqueue, allocate, backfill", TIER1, [{"name": "predicates"}, CAP])
HIER = conf("enqueue, allocate, backfill", TIER1, [{"name": "predicates"}, CAP_H])
N1 = node("n1", cpu="16", memory="64Gi")
GPU_NODE = node("g1", cpu="16", memory="64Gi", gpu="4")


def conf_text(text: str) -> dict[str, Any]:
    """A ConfigMap holding conf text exactly as written (builders.conf only writes actions and tiers)."""
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
            "data": {"volcano-scheduler.conf": text}}


def with_state(q: dict[str, Any], state: str) -> dict[str, Any]:
    q["status"]["state"] = state
    return q


def annotated(q: dict[str, Any], annotations: dict[str, str]) -> dict[str, Any]:
    q["metadata"]["annotations"] = annotations
    return q


def run_lint(*objs: dict[str, Any]) -> list[Finding]:
    return lint_text(yaml.safe_dump_all(objs))


def chain(depth: int) -> list[dict[str, Any]]:
    """root -> q1 -> q2 -> ... -> q<depth>."""
    return [queue("root"), *(queue(f"q{i}", "root" if i == 1 else f"q{i - 1}") for i in range(1, depth + 1))]


def deployment(on_template: bool) -> dict[str, Any]:
    ann = {"volcano.sh/preemptable": "false"}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "ns1", **({} if on_template else {"annotations": ann})},
            "spec": {"replicas": 2, "template": {"metadata": {"annotations": ann} if on_template else {},
                                                 "spec": {"containers": [{"name": "c"}]}}}}


RECLAIM_TIER1 = conf("enqueue, allocate, reclaim", TIER1, [CAP])

# rule id -> (objects that trigger it, objects that do not)
CASES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "unknown-switch": (
        [conf("allocate", [{"name": "capacity", "enabledHierarchy": True}]), queue("root")],
        [conf("allocate", [CAP_H]), queue("root")]),
    "switch-not-boolean": (
        [conf("allocate", [{"name": "capacity", "enableHierarchy": "true"}]), queue("root")],
        [conf("allocate", [CAP_H]), queue("root")]),
    "unknown-plugin": (
        [conf("allocate", [{"name": "capacty"}])],
        [conf("allocate", [CAP])]),
    "unknown-conf-key": (
        [conf_text("actions: allocate\ntier:\n- plugins:\n  - name: capacity\n")],
        [conf_text("actions: allocate\ntiers:\n- plugins:\n  - name: capacity\n")]),
    "configuration-without-name": (
        [conf_text("actions: allocate\ntiers:\n- plugins:\n  - name: capacity\n"
                   "configurations:\n- arguments: {predicateErrorCacheEnable: false}\n")],
        [conf_text("actions: allocate\ntiers:\n- plugins:\n  - name: capacity\n"
                   "configurations:\n- name: allocate\n  arguments: {predicateErrorCacheEnable: false}\n")]),
    "not-simulated": (
        [conf("allocate", [CAP, {"name": "sla"}])],
        [conf("allocate", [CAP])]),
    "proportion-drf-hierarchy": (
        [conf("allocate", [{"name": "proportion"}, {"name": "drf", "enableHierarchy": True}])],
        [conf("allocate", [{"name": "proportion"}, {"name": "drf"}])]),
    "capacity-and-proportion": (
        [conf("allocate", TIER1, [CAP, {"name": "proportion"}])],
        [conf("allocate", TIER1, [CAP])]),
    "victim-tier-order": (
        [RECLAIM_TIER1],
        [conf("enqueue, allocate, reclaim", [{"name": "priority"}, {"name": "gang", "enableReclaimable": False}],
              [CAP])]),
    "gangreclaim-without-deserved-check": (
        [conf("allocate, gangreclaim", TIER1, [{"name": "proportion"}])],
        [conf("allocate, gangreclaim", TIER1, [CAP])]),
    "no-job-starving": (
        [conf("allocate, reclaim", [{"name": "gang", "enableJobStarving": False}], [CAP])],
        [conf("allocate, reclaim", [{"name": "gang"}], [CAP])]),
    "argument-wrong-type": (
        [conf("allocate", [{"name": "capacity", "arguments": {"ancestorReclaimLevel": "1"}}])],
        [conf("allocate", [{"name": "capacity", "arguments": {"ancestorReclaimLevel": 1}}])]),
    "argument-out-of-range": (
        [conf("allocate", [CAP, {"name": "overcommit", "arguments": {"overcommit-factor": 0.5}}])],
        [conf("allocate", [CAP, {"name": "overcommit", "arguments": {"overcommit-factor": 1.5}}])]),
    "parent-without-hierarchy": (
        [FLAT, queue("root"), queue("team"), queue("dev", "team")],
        [HIER, queue("root"), queue("team"), queue("dev", "team")]),
    "missing-root-queue": (
        [HIER, queue("team")],
        [HIER, queue("root"), queue("team")]),
    "unknown-parent": (
        [HIER, queue("root"), queue("dev", "tema")],
        [HIER, queue("root"), queue("team"), queue("dev", "team")]),
    "self-parent": (
        [HIER, queue("root"), queue("dev", "dev")],
        [HIER, queue("root"), queue("dev", "root")]),
    "parent-cycle": (
        [HIER, queue("root"), queue("a", "b"), queue("b", "a")],
        [HIER, queue("root"), queue("a", "root"), queue("b", "a")]),
    "queue-too-deep": (
        [HIER, *chain(6)],
        [HIER, *chain(5)]),
    "child-capability-above-parent": (
        [HIER, N1, queue("root"), queue("team", capability={"cpu": "4"}),
         queue("dev", "team", capability={"cpu": "8"})],
        [HIER, N1, queue("root"), queue("team", capability={"cpu": "4"}),
         queue("dev", "team", capability={"cpu": "2"})]),
    "children-deserved-above-parent": (
        [HIER, N1, queue("root"), queue("team", deserved={"cpu": "4"}),
         queue("a", "team", deserved={"cpu": "3"}), queue("b", "team", deserved={"cpu": "3"})],
        [HIER, N1, queue("root"), queue("team", deserved={"cpu": "4"}),
         queue("a", "team", deserved={"cpu": "2"}), queue("b", "team", deserved={"cpu": "2"})]),
    "children-guarantee-above-parent": (
        [HIER, N1, queue("root"), queue("team", deserved={"cpu": "4"}, guarantee={"cpu": "2"}),
         queue("a", "team", deserved={"cpu": "2"}, guarantee={"cpu": "2"}),
         queue("b", "team", deserved={"cpu": "2"}, guarantee={"cpu": "2"})],
        [HIER, N1, queue("root"), queue("team", deserved={"cpu": "4"}, guarantee={"cpu": "2"}),
         queue("a", "team", deserved={"cpu": "2"}, guarantee={"cpu": "1"}),
         queue("b", "team", deserved={"cpu": "2"}, guarantee={"cpu": "1"})]),
    "guarantee-without-deserved": (
        [FLAT, queue("q", guarantee={"cpu": "2"})],
        [FLAT, queue("q", guarantee={"cpu": "2"}, deserved={"cpu": "2"})]),
    "guarantee-above-deserved": (
        [FLAT, queue("q", guarantee={"cpu": "4"}, deserved={"cpu": "2"})],
        [FLAT, queue("q", guarantee={"cpu": "4"}, deserved={"cpu": "4"})]),
    "deserved-above-capability": (
        [FLAT, queue("q", deserved={"cpu": "8"}, capability={"cpu": "4"})],
        [FLAT, queue("q", deserved={"cpu": "4"}, capability={"cpu": "8"})]),
    "webhook-quantity-not-integer": (
        [FLAT, GPU_NODE, queue("q", capability={"nvidia.com/gpu": "0.5"})],
        [FLAT, GPU_NODE, queue("q", capability={"nvidia.com/gpu": "1"})]),
    "webhook-state-invalid": (
        [FLAT, with_state(queue("q"), "Closing")],
        [FLAT, with_state(queue("q"), "Closed")]),
    "webhook-hierarchy-annotation": (
        [FLAT, annotated(queue("q"), {"volcano.sh/hierarchy": "root/q", "volcano.sh/hierarchy-weights": "1"})],
        [FLAT, annotated(queue("q"), {"volcano.sh/hierarchy": "root/q", "volcano.sh/hierarchy-weights": "1/2"})]),
    "webhook-parent-has-pods": (
        [FLAT, N1, queue("team"), queue("dev", "team"), podgroup("pg", "team", phase="Running"),
         pod("p", "pg", {"cpu": "1"}, node_name="n1")],
        [FLAT, N1, queue("team"), queue("dev", "team"), podgroup("pg", "team", phase="Pending"),
         pod("p", "pg", {"cpu": "1"})]),
    "webhook-capability-above-ancestor": (
        [FLAT, queue("team", capability={"cpu": "4"}), queue("dev", "team", capability={"cpu": "8"})],
        [FLAT, queue("team", capability={"cpu": "4"}), queue("dev", "team", capability={"cpu": "4"})]),
    "webhook-children-guarantee-above-parent": (
        [FLAT, queue("team"), queue("dev", "team", guarantee={"cpu": "2"}, deserved={"cpu": "2"})],
        [FLAT, queue("team", guarantee={"cpu": "2"}, deserved={"cpu": "2"}),
         queue("dev", "team", guarantee={"cpu": "2"}, deserved={"cpu": "2"})]),
    "webhook-children-deserved-above-parent": (
        [FLAT, queue("team", deserved={"cpu": "2"}), queue("dev", "team", deserved={"cpu": "4"})],
        [FLAT, queue("team", deserved={"cpu": "4"}), queue("dev", "team", deserved={"cpu": "4"})]),
    "capability-above-cluster": (
        [FLAT, N1, queue("q", capability={"cpu": "64", "memory": "8Gi"})],
        [FLAT, N1, queue("q", capability={"cpu": "16", "memory": "8Gi"})]),
    "deserved-with-proportion": (
        [conf("enqueue, allocate", TIER1, [{"name": "proportion"}]), queue("q", deserved={"cpu": "4"})],
        [conf("enqueue, allocate", TIER1, [CAP]), queue("q", deserved={"cpu": "4"})]),
    "root-capability-kept": (
        [HIER, N1, queue("root", capability={"cpu": "100"}), queue("team")],
        [HIER, N1, queue("root"), queue("team")]),
    "root-quota-overwritten": (
        [HIER, N1, queue("root", deserved={"cpu": "10"}), queue("team")],
        [HIER, N1, queue("root"), queue("team", deserved={"cpu": "10"})]),
    "job-on-non-leaf-queue": (
        [HIER, queue("root"), queue("team"), queue("dev", "team"), podgroup("pg", "team")],
        [HIER, queue("root"), queue("team"), queue("dev", "team"), podgroup("pg", "dev")]),
    "unknown-resource": (
        [FLAT, GPU_NODE, queue("q", capability={"nvidia.com/gpus": "2"})],
        [FLAT, GPU_NODE, queue("q", capability={"nvidia.com/gpu": "2"})]),
    "queue-state-invalid": (
        [FLAT, with_state(queue("q"), "open")],
        [FLAT, with_state(queue("q"), "Closed")]),
    "queue-weight-invalid": (
        [FLAT, queue("q", weight=0)],
        [FLAT, queue("q", weight=65535)]),
    "queue-not-open-with-jobs": (
        [FLAT, with_state(queue("q"), "Closed"), podgroup("pg", "q")],
        [FLAT, with_state(queue("q"), "Closed"), podgroup("pg", "q", phase="Completed")]),
    "podgroup-unknown-queue": (
        [FLAT, queue("q"), podgroup("pg", "qq")],
        [FLAT, queue("q"), podgroup("pg", "q")]),
    "elastic-job-never-starving": (
        [RECLAIM_TIER1, N1, queue("q"), podgroup("web", "q", phase="Running"),
         pod("web-0", "web", {"cpu": "1"}, node_name="n1"), pod("web-1", "web", {"cpu": "1"})],
        [conf("enqueue, allocate, reclaim", [{"name": "priority"}, {"name": "gang", "enableJobStarving": False}],
              [CAP]), N1, queue("q"), podgroup("web", "q", phase="Running"),
         pod("web-0", "web", {"cpu": "1"}, node_name="n1"), pod("web-1", "web", {"cpu": "1"})]),
    "preemptable-on-workload": (
        [FLAT, deployment(on_template=False)],
        [FLAT, deployment(on_template=True)]),
    "loader-warning": (
        [FLAT, N1, queue("q"), pod("p", "missing", {"cpu": "1"})],
        [FLAT, N1, queue("q"), podgroup("pg", "q"), pod("p", "pg", {"cpu": "1"})]),
}


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_fires_on_its_scenario(rule: str) -> None:
    found = [f for f in run_lint(*CASES[rule][0]) if f.rule == rule]
    assert found, f"{rule} did not fire"
    for f in found:
        assert f.severity in SEVERITIES
        assert f.obj and f.message and f.volcano_does
        assert f.field or f.obj.startswith("Deployment/"), f


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_stays_quiet_on_the_fixed_scenario(rule: str) -> None:
    assert [f for f in run_lint(*CASES[rule][1]) if f.rule == rule] == []


# ---- details of single rules ------------------------------------------------------------------------
def test_parent_without_hierarchy_names_the_misspelled_switch() -> None:
    found = run_lint(conf("allocate", [{"name": "capacity", "enabledHierarchy": True}]),
                     queue("root"), queue("team"), queue("dev", "team"))
    [f] = [f for f in found if f.rule == "parent-without-hierarchy"]
    assert f.obj == "Queue/dev" and f.field == "spec.parent"
    assert "tiers[0].plugins[0].enabledHierarchy is a misspelling" in f.message


def test_parent_root_is_what_the_queue_controller_writes_and_is_not_flagged() -> None:
    assert not [f for f in run_lint(FLAT, queue("root"), queue("team", "root")) if f.rule == "parent-without-hierarchy"]


def test_child_capability_is_an_error_only_when_the_parent_sets_one() -> None:
    explicit = run_lint(*CASES["child-capability-above-parent"][0])
    assert [f.severity for f in explicit if f.rule == "child-capability-above-parent"] == ["error"]
    inherited = run_lint(HIER, N1, queue("root"), queue("org", capability={"cpu": "4"}), queue("team", "org"),
                         queue("dev", "team", capability={"cpu": "8"}))
    [f] = [f for f in inherited if f.rule == "child-capability-above-parent"]
    assert (f.severity, f.obj, f.field) == ("warning", "Queue/dev", "spec.capability.cpu")
    assert "inherited" in f.message


def test_child_only_scalar_is_not_above_the_parent() -> None:
    """GreaterPartly(parent, Infinity): a key only the child sets does not count (PR #5176)."""
    found = run_lint(HIER, GPU_NODE, queue("root"), queue("team", capability={"cpu": "8"}),
                     queue("dev", "team", capability={"cpu": "4", "nvidia.com/gpu": "2"}))
    assert not [f for f in found if f.rule == "child-capability-above-parent"]


def test_partial_root_capability_blocks_memory_and_is_named() -> None:
    [f] = [f for f in run_lint(*CASES["root-capability-kept"][0]) if f.rule == "root-capability-kept"]
    assert (f.severity, f.field) == ("warning", "spec.capability.memory")
    full = run_lint(HIER, N1, queue("root", capability={"cpu": "100", "memory": "1Ti"}), queue("team"))
    assert [f.severity for f in full if f.rule == "root-capability-kept"] == ["info"]


def test_victim_tier_order_is_quiet_when_conformance_shares_capacitys_tier() -> None:
    same_tier = conf("allocate, reclaim", [{"name": "priority"}, {"name": "conformance"}, CAP])
    assert not [f for f in run_lint(same_tier) if f.rule == "victim-tier-order"]


def test_victim_tier_order_names_each_earlier_plugin() -> None:
    c = conf("allocate, reclaim", [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}], [CAP])
    found = [f for f in run_lint(c) if f.rule == "victim-tier-order"]
    assert [f.field for f in found] == ["tiers[0].plugins[1]", "tiers[0].plugins[2]"]
    assert all("#5896" in f.message for f in found)


def test_queue_too_deep_flags_every_queue_beyond_the_limit() -> None:
    found = [f for f in run_lint(HIER, *chain(7)) if f.rule == "queue-too-deep"]
    assert [f.obj for f in found] == ["Queue/q6", "Queue/q7"]


def test_a_cycle_is_reported_once_and_its_tail_is_not_blamed() -> None:
    found = run_lint(HIER, queue("root"), queue("a", "b"), queue("b", "c"), queue("c", "b"))
    cycles = [f for f in found if f.rule == "parent-cycle"]
    assert [(f.obj, f.message) for f in cycles] == [("Queue/b", "queue parents form a cycle: b -> c -> b")]


def test_quoted_integer_argument_of_an_action() -> None:
    c = conf_text("actions: allocate, preempt\ntiers:\n- plugins:\n  - name: priority\n  - name: capacity\n"
                  "configurations:\n- name: preempt\n  arguments: {minCandidateNodesAbsolute: '5'}\n")
    [f] = [f for f in run_lint(c) if f.rule == "argument-wrong-type"]
    assert f.field == "configurations[preempt].arguments.minCandidateNodesAbsolute"
    assert f.volcano_does == "ignores the value and uses its default 1"


def test_loader_warnings_are_not_repeated_when_a_rule_explains_them() -> None:
    found = run_lint(*CASES["job-on-non-leaf-queue"][0])
    assert [f.rule for f in found if f.obj == "PodGroup/ns1/pg"] == ["job-on-non-leaf-queue"]


# ---- entry points and output ----------------------------------------------------------------------------
def test_lint_text_reports_cycles_that_the_loader_refuses() -> None:
    objs = CASES["parent-cycle"][0]
    with pytest.raises(Exception, match="cycle"):
        cluster(*objs)
    assert "parent-cycle" in {f.rule for f in run_lint(*objs)}


def test_lint_of_a_loaded_cluster_is_what_the_dashboard_gets() -> None:
    objs = CASES["children-deserved-above-parent"][0] + [podgroup("pg", "team")]
    assert lint(cluster(*objs)) == run_lint(*objs)


def test_findings_come_errors_first_and_render_grouped() -> None:
    found = run_lint(FLAT, queue("q", guarantee={"cpu": "4"}, deserved={"cpu": "2"}), podgroup("pg", "qq"),
                     conf("allocate", [CAP, {"name": "sla"}]))
    assert [f.severity for f in found] == sorted((f.severity for f in found), key=SEVERITIES.index)
    text = render_text(found)
    assert text.index("errors (") < text.index("warnings (") < text.index("info (")
    assert "Queue/q: spec.guarantee.resource.cpu [guarantee-above-deserved]" in text
    assert "    Volcano: the queue webhook rejects the queue" in text
    assert text.endswith(f"summary: {counts(found)['error']} error(s), {counts(found)['warning']} warning(s), "
                         f"{counts(found)['info']} info")


def test_no_findings_render() -> None:
    assert render_text([]) == "no findings\nsummary: 0 error(s), 0 warning(s), 0 info"


def test_finding_as_dict_names_everything() -> None:
    f = run_lint(*CASES["self-parent"][0])[0]
    assert f.as_dict() == {"severity": "error", "rule": "self-parent", "obj": "Queue/dev", "field": "spec.parent",
                           "message": f.message, "volcanoDoes": f.volcano_does}
    assert str(f).startswith("error: Queue/dev: spec.parent: ") and str(f).endswith("[self-parent]")


def test_parent_without_hierarchy_names_a_quoted_enable_hierarchy() -> None:
    found = run_lint(conf("allocate", [{"name": "capacity", "enableHierarchy": "true"}]),
                     queue("root"), queue("team"), queue("dev", "team"))
    [f] = [f for f in found if f.rule == "parent-without-hierarchy"]
    assert "tiers[0].plugins[0].enableHierarchy is not a YAML boolean" in f.message


def test_a_child_quota_on_a_dimension_the_parent_leaves_unset_is_a_webhook_error_with_a_fix() -> None:
    """Issue 27, gap 8: deserved and guarantee are lower bounds, unset means 0; the webhook refuses the child."""
    found = run_lint(HIER, N1, queue("root"), queue("team", deserved={"memory": "8Gi"}),
                     queue("dev", "team", deserved={"cpu": "2", "memory": "4Gi"}))
    [f] = [f for f in found if f.rule == "webhook-children-deserved-above-parent"]
    assert (f.severity, f.obj, f.field) == ("error", "Queue/dev", "spec.deserved.cpu")
    assert f.message == ("parent queue team validation failed: sum of children's deserved (cpu 2000.00, memory "
                         "4294967296.00) exceeds parent's deserved limit (cpu 0.00, memory 8589934592.00)")
    assert "fix: raise spec.deserved of parent team to at least cpu 2" in f.volcano_does
    assert not [f for f in found if f.rule == "loader-warning" and f.obj == "Queue/dev"]  # said once


def test_capability_above_the_cluster_names_every_dimension_with_numbers() -> None:
    [f] = [f for f in run_lint(FLAT, N1, queue("q", capability={"cpu": "64", "memory": "128Gi"}))
           if f.rule == "capability-above-cluster"]
    assert f.message == "capability above the cluster's total (1 node(s)): cpu 64 > 16, memory 128Gi > 64Gi"
