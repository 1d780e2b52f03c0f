"""Volcano's queue admission webhook: each rule refuses its case in Volcano's words and accepts the fixed one;
loading warns about refused queues, --strict-admission refuses them like the API server (exit 2)."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from capacity.core.resources import Resource
from capacity.core.webhook import RULES, validate_cluster, validate_queue, validate_update
from tests.builders import cluster, node, pod, podgroup, queue

ROOT = Path(__file__).resolve().parents[2]


def annotated(q: dict[str, Any], annotations: dict[str, str]) -> dict[str, Any]:
    q["metadata"]["annotations"] = annotations
    return q


def state(q: dict[str, Any], value: str) -> dict[str, Any]:
    q["status"]["state"] = value
    return q


N1 = node("n1")
# rule -> (objects, the queue checked, Volcano's message), (the fixed objects)
CASES: dict[str, tuple[list[dict[str, Any]], str, str, list[dict[str, Any]]]] = {
    "guarantee-without-deserved": (
        [queue("q", guarantee={"cpu": "1"})], "q",
        'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= guarantee[cpu]=1',
        [queue("q", guarantee={"cpu": "1"}, deserved={"cpu": "1"})]),
    "guarantee-above-deserved": (
        [queue("q", guarantee={"memory": "3Gi"}, deserved={"memory": "1Gi"})], "q",
        'requestBody.spec.deserved.memory: Invalid value: "1Gi": deserved[memory]=1Gi must be >= guarantee[memory]=3Gi',
        [queue("q", guarantee={"memory": "3Gi"}, deserved={"memory": "3Gi"})]),
    "deserved-above-capability": (
        [queue("q", deserved={"cpu": "2"}, capability={"cpu": "1"})], "q",
        'requestBody.spec.deserved.cpu: Invalid value: "2": deserved[cpu]=2 must be <= capability[cpu]=1',
        [queue("q", deserved={"cpu": "2"}, capability={"memory": "1Gi"})]),  # no cpu capability: not limited
    "quantity-not-integer": (
        [queue("q", capability={"nvidia.com/gpu": "0.5"})], "q",
        'requestBody.spec.capability.nvidia.com/gpu: Invalid value: "0.5": must be an integer',
        [queue("q", capability={"nvidia.com/gpu": "1"})]),
    "state-invalid": (
        [state(queue("q"), "wrong")], "q",
        'requestBody.spec.state: Invalid value: "wrong": queue state must be in [Open Closed]',
        [state(queue("q"), "Closed")]),
    "weight-out-of-range": (
        [queue("q", weight=70000)], "q",
        "spec.weight: Invalid value: 70000: spec.weight in body should be less than or equal to 65535",
        [queue("q", weight=0)]),  # the mutating webhook turns 0 into 1 on CREATE
    "hierarchy-annotation": (
        [annotated(queue("q"), {"volcano.sh/hierarchy": "root/a/b", "volcano.sh/hierarchy-weights": "1/2"})], "q",
        'requestBody.metadata.annotations: Invalid value: "root/a/b": volcano.sh/hierarchy must have the same '
        "length with volcano.sh/hierarchy-weights",
        [annotated(queue("q"), {"volcano.sh/hierarchy": "root/a/b", "volcano.sh/hierarchy-weights": "1/2/3"})]),
    "queue-too-deep": (
        [queue("q1"), *(queue(f"q{i}", f"q{i - 1}") for i in range(2, 7))], "q6",
        "queue q6 exceeds the maximum allowed depth of 5",
        [queue("q1"), *(queue(f"q{i}", f"q{i - 1}") for i in range(2, 6)), queue("q6", "q4")]),
    "parent-has-pods": (
        [N1, queue("team"), queue("dev", "team"), podgroup("pg", "team", phase="Running"),
         pod("p", "pg", {"cpu": "1"}, node_name="n1")], "dev",
        "queue team cannot be the parent queue of queue dev because it has allocated Pods: 1",
        [N1, queue("team"), queue("dev", "team"), podgroup("pg", "team", phase="Running"),
         pod("p", "pg", {"cpu": "1"}, node_name="n1", phase="Succeeded")]),
    "capability-above-ancestor": (
        [queue("top", capability={"cpu": "10"}), queue("mid", "top"), queue("leaf", "mid", capability={"cpu": "20"})],
        "leaf", "queue leaf capability[cpu]=20 exceeds its ancestor's capability=10",
        [queue("top", capability={"cpu": "10"}), queue("mid", "top"), queue("leaf", "mid", capability={"cpu": "10"})]),
    "siblings-guarantee-above-parent": (
        [queue("p", deserved={"cpu": "8", "memory": "16Gi"}, guarantee={"cpu": "8", "memory": "16Gi"}),
         queue("a", "p", deserved={"cpu": "5", "memory": "10Gi"}, guarantee={"cpu": "5", "memory": "10Gi"}),
         queue("b", "p", deserved={"cpu": "4", "memory": "8Gi"}, guarantee={"cpu": "4", "memory": "8Gi"})], "b",
        "parent queue p validation failed: sum of children's guarantee (cpu 9000.00, memory 19327352832.00) exceeds "
        "parent's guarantee limit (cpu 8000.00, memory 17179869184.00)",
        [queue("p", deserved={"cpu": "9", "memory": "18Gi"}, guarantee={"cpu": "9", "memory": "18Gi"}),
         queue("a", "p", deserved={"cpu": "5", "memory": "10Gi"}, guarantee={"cpu": "5", "memory": "10Gi"}),
         queue("b", "p", deserved={"cpu": "4", "memory": "8Gi"}, guarantee={"cpu": "4", "memory": "8Gi"})]),
    "siblings-deserved-above-parent": (
        # the gap this port closes: a parent that leaves a dimension unset has a limit of 0 on it
        [queue("p", deserved={"memory": "8Gi"}), queue("c", "p", deserved={"cpu": "2"})], "c",
        "parent queue p validation failed: sum of children's deserved (cpu 2000.00, memory 0.00) exceeds parent's "
        "deserved limit (cpu 0.00, memory 8589934592.00)",
        [queue("p", deserved={"memory": "8Gi", "cpu": "2"}), queue("c", "p", deserved={"cpu": "2"})]),
    "capability-below-descendants": (
        [queue("p", capability={"cpu": "30"}), queue("c", "p"), queue("g", "c", capability={"cpu": "50"})], "p",
        "queue p capability[cpu]=30 is smaller than its descendants' max capability=50",
        [queue("p", capability={"cpu": "50"}), queue("c", "p"), queue("g", "c", capability={"cpu": "50"})]),
    "children-guarantee-above-parent": (
        [queue("p", deserved={"cpu": "10"}, guarantee={"cpu": "1"}),
         queue("c", "p", deserved={"cpu": "2"}, guarantee={"cpu": "2"})], "p",
        "queue p validation failed: sum of children's guarantee (cpu 2000.00, memory 0.00) exceeds parent's "
        "guarantee limit (cpu 1000.00, memory 0.00)",
        [queue("p", deserved={"cpu": "10"}, guarantee={"cpu": "2"}),
         queue("c", "p", deserved={"cpu": "2"}, guarantee={"cpu": "2"})]),
    "children-deserved-above-parent": (
        [queue("p", deserved={"cpu": "1"}), queue("c", "p", deserved={"cpu": "2"})], "p",
        "queue p validation failed: sum of children's deserved (cpu 2000.00, memory 0.00) exceeds parent's "
        "deserved limit (cpu 1000.00, memory 0.00)",
        [queue("p", deserved={"cpu": "2"}), queue("c", "p", deserved={"cpu": "2"})]),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_refuses_with_volcanos_message_and_accepts_the_fix(rule: str) -> None:
    objs, name, message, fixed = CASES[rule]
    c = cluster(*copy.deepcopy(objs))
    errors = validate_queue(c.queues[name], c)
    assert [(e.rule, e.message) for e in errors][:1] == [(rule, message)]
    assert errors[0].fix and errors[0].source
    c = cluster(*copy.deepcopy(fixed))
    assert [e for e in validate_queue(c.queues[name], c) if e.rule == rule] == []


def test_every_rule_is_known() -> None:
    older = {"guarantee-above-capability"}  # v1.13/v1.14 only: test_webhook_versions.py
    assert set(CASES) | {"self-parent", "parent-missing", "quantity-negative", "root-protected"} | older == set(RULES)


def test_self_parent_and_missing_parent_in_volcanos_words() -> None:
    c = cluster(queue("a", "b"), queue("b"))
    c.queues["b"].parent = "b"
    assert validate_queue(c.queues["b"], c)[0].message == "queue b cannot use itself as parent"
    c = cluster(queue("a"))
    c.queues["a"].parent = "nope"
    assert validate_queue(c.queues["a"], c)[0].message == ('failed to get parent queue nope of queue a: '
                                                           'queue.scheduling.volcano.sh "nope" not found')


def test_updates_of_roots_quotas_are_refused() -> None:
    c = cluster(queue("root"), queue("a"))
    new = copy.deepcopy(c.queues["root"])
    new.capability = Resource(4000.0, 0.0)
    assert [e.rule for e in validate_update(c.queues["root"], new, c)] == ["root-protected"]


def test_an_innocent_sibling_and_the_parent_are_not_blamed() -> None:
    c = cluster(queue("root"), queue("p"), queue("q", "p", guarantee={"cpu": "2"}, deserved={"cpu": "2"}),
                queue("x", "p"))
    assert list(validate_cluster(c)) == ["q"]


def _dump(tmp_path: Path, *objs: dict[str, Any]) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(objs))
    return str(path)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "capacity", *args], capture_output=True, text=True, cwd=ROOT,
                          check=False)


REFUSED = ("Queue/c: spec.deserved.cpu: the admission webhook would reject this queue: parent queue p validation "
           "failed: sum of children's deserved (cpu 2000.00, memory 0.00) exceeds parent's deserved limit (cpu 0.00, "
           "memory 0.00)")


def test_load_warns_and_strict_admission_refuses_with_the_same_line(tmp_path: Path) -> None:
    path = _dump(tmp_path, N1, queue("root"), queue("p"), queue("c", "p", deserved={"cpu": "2"}),
                 podgroup("pg", "c"), pod("w", "pg", {"cpu": "1"}))
    proc = _cli("simulate", path)
    assert proc.returncode == 0 and f"warning: {REFUSED}" in proc.stderr.splitlines()
    for command in (["simulate", path], ["explain", path, "--pod", "ns1/w"], ["lint", path]):
        proc = _cli(*command, "--strict-admission")
        assert proc.returncode == 2, command
        assert proc.stderr.strip() == f"error: {REFUSED}", command
    fixed = _dump(tmp_path, N1, queue("root"), queue("p", deserved={"cpu": "2"}),
                  queue("c", "p", deserved={"cpu": "2"}), podgroup("pg", "c"), pod("w", "pg", {"cpu": "1"}))
    assert _cli("simulate", fixed, "--strict-admission").returncode == 0


def test_sums_are_checked_per_sibling_guarantee_then_deserved_as_volcano_does() -> None:
    """The first sibling's deserved already exceeds; the guarantee sum exceeds only with the second."""
    c = cluster(queue("p", deserved={"cpu": "1"}, guarantee={"cpu": "1"}),
                queue("a", "p", deserved={"cpu": "2"}), queue("b", "p", deserved={"cpu": "2"}, guarantee={"cpu": "2"}))
    [e] = validate_queue(c.queues["b"], c)
    assert e.rule == "siblings-deserved-above-parent"
    assert "sum of children's deserved (cpu 2000.00, memory 0.00)" in e.message


def test_a_capability_above_an_ancestor_names_volcanos_first_dimension_and_fixes_them_all() -> None:
    c = cluster(queue("team", capability={"cpu": "4", "memory": "8Gi"}),
                queue("dev", "team", capability={"cpu": "8", "memory": "16Gi"}))
    [e] = validate_queue(c.queues["dev"], c)
    assert e.message == "queue dev capability[cpu]=8 exceeds its ancestor's capability=4"
    assert e.fix == "lower spec.capability to cpu 4, memory 8Gi or raise the capability of team to cpu 8, memory 16Gi"


def test_lint_cites_the_webhook_rule_by_volcano_s_own_file_path() -> None:
    """A reader can look the rule up: the citation names validate_queue.go's path, not a private shorthand."""
    from capacity.core.webhook import AdmissionError
    e = AdmissionError("q", "spec.deserved.cpu", "msg", "rule", "fix", "vq.go:L589-627")
    assert e.cited == "pkg/webhooks/admission/queues/validate/validate_queue.go:L589-627"
    assert e.as_dict()["source"] == e.cited
