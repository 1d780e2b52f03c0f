"""The queue admission webhook on the release a user runs (issue 29): each webhook switch refuses a queue on
one side of its release and accepts it on the other, in that release's words, and says which change it is."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import yaml

from capacity.core.webhook import validate_cluster, validate_queue, validate_update
from capacity.core.webhook_releases import WEBHOOK_SWITCHES
from capacity.versions import BY_ID, version
from tests.builders import cluster, node, pod, podgroup, queue

ROOT = Path(__file__).resolve().parents[2]


def on(name: str) -> frozenset[str]:
    return version(name).lacking


def refused(c, name: str, release: str) -> list[str]:
    return [e.message for e in validate_cluster(c, on(release)).get(name, [])]


def test_every_webhook_switch_is_registered_with_its_release() -> None:
    assert {BY_ID[s].release for s in WEBHOOK_SWITCHES} == {"v1.12.0", "v1.13.0", "v1.14.0", "v1.15.0"}
    assert all(BY_ID[s].area == "webhook" for s in WEBHOOK_SWITCHES)
    assert on("1.15") & WEBHOOK_SWITCHES == frozenset() and on("1.11") >= WEBHOOK_SWITCHES


def test_pr4033_a_second_child_of_a_busy_parent_is_refused_on_v1_11_only() -> None:
    # validate_queue_test.go @v1.12.0 "Parent Queue has child with jobs": child-queue-b under a parent whose
    # other child runs pods
    c = cluster(node("n1"), queue("parent"), queue("child-a", "parent"), queue("child-b", "parent"),
                podgroup("job", "child-a"), pod("p1", "job", {"cpu": "1"}, node_name="n1"))
    old = validate_queue(c.queues["child-b"], c, lacking=on("1.11"))
    assert [e.message for e in old] == ["queue parent cannot be the parent queue of queue child-b because it has "
                                        "allocated Pods: 1"]
    assert old[0].switch == "pr4033"
    assert validate_queue(c.queues["child-b"], c, lacking=on("1.12")) == []
    assert "child-a" not in validate_cluster(c, on("1.11"))  # its own pods came after it


def test_pr4470_deserved_above_capability_is_accepted_before_v1_13() -> None:
    c = cluster(queue("q", deserved={"cpu": "4"}, capability={"cpu": "2"}))
    assert refused(c, "q", "1.12") == []
    assert refused(c, "q", "1.13") == [
        'requestBody.spec.deserved: Invalid value: "cpu 4000.00, memory 0.00": deserved should less equal than '
        "capability"]
    assert refused(c, "q", "head") == [
        'requestBody.spec.deserved.cpu: Invalid value: "4": deserved[cpu]=4 must be <= capability[cpu]=2']


def test_pr4973_a_capability_without_memory_refuses_a_memory_deserved_on_v1_13_and_v1_14_only() -> None:
    c = cluster(queue("q", deserved={"cpu": "1", "memory": "1Gi"}, capability={"cpu": "2"}))
    assert refused(c, "q", "1.14") and refused(c, "q", "1.13")
    assert validate_cluster(c, on("1.14"))["q"][0].switch == "pr4973-webhook"
    assert refused(c, "q", "1.15") == []


def test_pr4864_webhook_guarantee_without_deserved_is_refused_from_v1_14() -> None:
    c = cluster(queue("q", guarantee={"cpu": "1"}))
    assert refused(c, "q", "1.13") == []
    assert refused(c, "q", "1.14") == [
        'requestBody.spec.guarantee: Invalid value: "cpu 1000.00, memory 0.00": guarantee should less equal than '
        "deserved"]


def test_pr4697_an_update_naming_itself_as_parent_is_accepted_before_v1_14() -> None:
    c = cluster(queue("a"))
    old = c.queues["a"]
    new = replace(old, parent="a")
    assert validate_update(old, new, c, on("1.13")) == []
    assert [e.message for e in validate_update(old, new, c, on("1.14"))] == ["queue a cannot use itself as parent"]
    others = cluster(queue("b"))  # a CREATE still failed before, on the parent lookup
    assert [e.message for e in validate_queue(replace(old, parent="a"), others, lacking=on("1.13"))] == [
        'failed to get parent queue of queue a: queue.scheduling.volcano.sh "a" not found']


def test_pr4864_webhook_children_deserving_more_than_the_parent_are_refused_from_v1_14() -> None:
    c = cluster(queue("p", deserved={"cpu": "2"}), queue("a", "p", deserved={"cpu": "2"}),
                queue("b", "p", deserved={"cpu": "1"}))
    assert validate_cluster(c, on("1.13")) == {}
    assert refused(c, "b", "1.14") == [
        "parent queue p validation failed: sum of children's deserved (cpu 3000.00, memory 0.00) exceeds "
        "parent's deserved limit (cpu 2000.00, memory 0.00)"]
    assert refused(c, "b", "head")


def test_pr4973_webhook_a_parent_without_capability_refuses_a_capped_child_on_v1_14_only() -> None:
    c = cluster(queue("p"), queue("c", "p", capability={"cpu": "2"}))
    assert refused(c, "c", "1.14") == [
        "queue c capability (cpu 2000.00, memory 0.00) exceeds parent queue p capability (cpu 0.00, memory 0.00)"]
    assert refused(c, "c", "1.15") == [] and refused(c, "c", "1.13") == []


def test_pr4973_webhook_depth_and_root_protection_start_with_v1_15() -> None:
    chain = [queue("l1")] + [queue(f"l{i}", f"l{i - 1}") for i in range(2, 7)]
    c = cluster(*chain)
    assert refused(c, "l6", "1.15") == ["queue l6 exceeds the maximum allowed depth of 5"]
    assert refused(c, "l6", "1.14") == []
    rc = cluster(queue("root", capability={"cpu": "8"}), queue("a"))
    old = rc.queues["root"]
    new = replace(old, capability=None)
    assert validate_update(old, new, rc, on("1.15"))
    assert validate_update(old, new, rc, on("1.14")) == []


def _lint(tmp_path: Path, *args: str) -> dict:
    dump = tmp_path / "dump.yaml"
    dump.write_text(yaml.safe_dump_all([queue("q", deserved={"cpu": "4"}, capability={"cpu": "2"})]))
    out = subprocess.run([sys.executable, "-m", "capacity", "lint", str(dump), "--format", "json", *args],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    return json.loads(out.stdout)


def test_lint_applies_the_chosen_release_s_webhook(tmp_path: Path) -> None:
    head = [f for f in _lint(tmp_path)["findings"] if f["obj"] == "Queue/q"]
    assert any("deserved[cpu]=4 must be <= capability[cpu]=2" in f["message"] for f in head)
    v112 = [f for f in _lint(tmp_path, "--volcano-version", "1.12")["findings"] if f["obj"] == "Queue/q"]
    assert not any("capability" in f["message"] for f in v112)
    v113 = [f for f in _lint(tmp_path, "--volcano-version", "1.13")["findings"] if f["obj"] == "Queue/q"]
    assert any("deserved should less equal than capability" in f["message"] and "PR #4864" in f["volcanoDoes"]
               for f in v113)


def test_explain_s_version_difference_names_the_webhook_change(tmp_path: Path) -> None:
    from capacity.versions.diff import version_diff
    c = cluster(node("n1"), queue("q", deserved={"cpu": "4"}, capability={"cpu": "2"}))
    lines = version_diff(c, 1, version("1.12")).lines()
    assert lines[1].startswith("  queue q: accepted by the queue webhook on v1.12, refused by the queue webhook (")
    assert "because of PR #4470 (pr4470), in Volcano from v1.13.0" in lines[2] and len(lines) == 3
    worded = version_diff(c, 1, version("1.14")).differences
    assert [d.switches for d in worded] == [["pr4973-webhook"]]
    assert version_diff(c, 1, version("1.15")).lines() == ["v1.15 decides as HEAD does on this scenario."]


def test_dashboard_edit_checks_and_findings_use_the_selected_release() -> None:
    from capacity.authoring import edit
    from capacity.framework.session import SessionOptions
    from ui.state import Workspace
    head = Workspace(scenario="t", cluster=cluster(node("n1"), queue("q")))
    assert not head.edit("f", edit.set_queue_resources, "q", deserved={"cpu": "4"}, capability={"cpu": "2"})
    assert "deserved[cpu]=4 must be <= capability[cpu]=2" in head.errors["f"].message
    ws = Workspace(scenario="t", cluster=cluster(node("n1"), queue("q")))
    ws.options = SessionOptions(lacking=on("1.12"), version="v1.12")
    assert ws.edit("f", edit.set_queue_resources, "q", deserved={"cpu": "4"}, capability={"cpu": "2"})
    assert not [f for f in ws.current_findings() if f.obj == "Queue/q" and f.severity == "error"]
    ws.options = SessionOptions()  # back on HEAD: the same queue is refused
    assert [f.rule for f in ws.current_findings() if f.obj == "Queue/q" and f.severity == "error"] == [
        "deserved-above-capability"]


def test_lint_strict_admission_refuses_by_the_chosen_release(tmp_path: Path) -> None:
    dump = tmp_path / "dump.yaml"
    dump.write_text(yaml.safe_dump_all([queue("q", deserved={"cpu": "4"}, capability={"cpu": "2"})]))

    def lint(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "capacity", "lint", str(dump), "--strict-admission", *args],
                              capture_output=True, text=True, cwd=ROOT, check=False)
    assert lint("--volcano-version", "1.12").returncode == 0
    v113 = lint("--volcano-version", "1.13")
    assert v113.returncode == 2 and "deserved should less equal than capability" in v113.stderr


def test_simulate_warns_and_refuses_with_the_chosen_release_s_webhook(tmp_path: Path) -> None:
    dump = tmp_path / "dump.yaml"
    dump.write_text(yaml.safe_dump_all([node("n1"), queue("q", deserved={"cpu": "4"}, capability={"cpu": "2"})]))

    def simulate(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "capacity", "simulate", str(dump), *args],
                              capture_output=True, text=True, cwd=ROOT, check=False)
    v112 = simulate("--volcano-version", "1.12", "--strict-admission")
    assert v112.returncode == 0 and "admission webhook" not in v112.stderr
    v114 = simulate("--volcano-version", "1.14")
    assert v114.returncode == 0 and "deserved should less equal than capability" in v114.stderr


def test_pr4470_ported_deserved_less_guarantee_case() -> None:
    # validate_queue_test.go @v1.13.0 "deserved-less-guarantee", refused in v1.13's words; v1.12 let it in
    c = cluster(queue("deserved-less-guarantee", deserved={"cpu": "2", "memory": "1Gi"},
                      guarantee={"cpu": "2", "memory": "3Gi"}))
    assert refused(c, "deserved-less-guarantee", "1.13") == [
        'requestBody.spec.guarantee: Invalid value: "cpu 2000.00, memory 3221225472.00": guarantee should less '
        "equal than deserved"]
    assert refused(c, "deserved-less-guarantee", "1.12") == []


def test_pr4973_webhook_a_parent_without_deserved_limits_its_children_from_v1_15() -> None:
    # v1.14 checked the sum only against a parent's own deserved, else its capability, else not at all
    c = cluster(queue("p"), queue("c", "p", deserved={"cpu": "1"}))
    assert refused(c, "c", "1.14") == []
    assert refused(c, "c", "1.15") == [
        "parent queue p validation failed: sum of children's deserved (cpu 1000.00, memory 0.00) exceeds parent's "
        "deserved limit (cpu 0.00, memory 0.00)"]
    capped = cluster(queue("p", capability={"cpu": "1", "memory": "1Gi"}),
                     queue("c", "p", deserved={"cpu": "2"}))
    assert refused(capped, "c", "1.14") == [
        "parent queue p validation failed: sum of children's deserved (cpu 2000.00, memory 0.00) exceeds parent's "
        "capability (cpu 1000.00, memory 1073741824.00)"]


def test_lint_reports_a_queue_too_deep_only_from_v1_15() -> None:
    from capacity.analysis.lint import lint
    c = cluster(queue("l1"), *(queue(f"l{i}", f"l{i - 1}") for i in range(2, 7)))
    assert "queue-too-deep" in {f.rule for f in lint(c)}
    assert "queue-too-deep" not in {f.rule for f in lint(c, on("1.14"))}


def test_pr4208_weight_is_the_webhooks_own_check_on_v1_11_only() -> None:
    # validate_queue.go:L206-212 @v1.11.0 (no CRD bounds before PR #4208, v1.12.0)
    c = cluster(queue("zero", weight=0), queue("neg", weight=-2), queue("big", weight=70000))
    old = {e.queue: e for e in validate_update(c.queues["zero"], c.queues["zero"], c, on("1.11"))}
    assert old["zero"].message == ("requestBody.spec.weight: Invalid value: 0: queue weight must be a positive "
                                   "integer")
    assert old["zero"].switch == "pr4208"
    assert refused(c, "neg", "1.11") == ["requestBody.spec.weight: Invalid value: -2: queue weight must be a "
                                         "positive integer"]
    assert refused(c, "zero", "1.11") == []  # CREATE: the mutating webhook made it 1 first
    assert refused(c, "big", "1.11") == []   # no upper bound yet
    for release in ("1.12", "1.13", "head"):  # the CRD bounds refuse first, in the API server's words
        assert refused(c, "big", release) == ["spec.weight: Invalid value: 70000: spec.weight in body should be "
                                              "less than or equal to 65535"]
        assert [e.switch for e in validate_cluster(c, on(release)).get("neg", [])] == [""]
