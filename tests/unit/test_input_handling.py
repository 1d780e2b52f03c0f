"""Bad input gets one clear message naming object and field (exit 2); tolerated input gets a warning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from capacity.io.k8s import load_cluster
from tests.builders import conf, node, pod, podgroup, queue

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    f = tmp_path / "cluster.yaml"
    f.write_text(text)
    return subprocess.run([sys.executable, "-m", "capacity", "simulate", str(f), "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, check=False)


def _dump(*objs) -> str:
    return yaml.safe_dump_all(objs)


@pytest.mark.parametrize(("text", "needle"), [
    ("kind: Node\nmetadata: {name: n1\n", "malformed YAML"),
    (_dump(node("n1", cpu="lots")), "Node/n1: status.allocatable.cpu"),
    (_dump(queue("q1", capability={"memory": "-4Gi"})), "Queue/q1: spec.capability.memory"),
    (_dump(queue("a", parent="b"), queue("b", parent="a")), "cycle"),
    (_dump(queue("a", parent="a")), "Queue/a: spec.parent"),
    (_dump(pod("p", "pg", {"cpu": "1x"})), "Pod/ns1/p: spec.containers[0].resources.requests.cpu"),
    ("kind: Node\nmetadata: {}\n", "Node: metadata.name"),
])
def test_cli_refuses_bad_input_with_exit_2(tmp_path: Path, text: str, needle: str) -> None:
    proc = _run(tmp_path, text)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_file_is_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "capacity", "simulate", str(tmp_path / "nope.yaml")],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 2 and "cannot be read" in proc.stderr


def test_tolerated_input_is_kept_with_warnings() -> None:
    c = load_cluster(_dump(
        conf("allocate", [{"name": "capacity", "enabledHierarchy": True}]),
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}},
        queue("q1"),
        podgroup("pg1", "ghost"),
        pod("p1", "missing-pg", {"cpu": "1"}),
    ))
    text = "\n".join(str(w) for w in c.warnings + c.conf.warnings)
    assert "Deployment/web: kind" in text
    assert "PodGroup/ns1/pg1: spec.queue" in text
    assert "Pod/ns1/p1" in text and "missing-pg" in text
    assert "enabledHierarchy" in text and "enableHierarchy" in text  # suggestion for the misspelling
    assert c.conf.plugin("capacity").hierarchy is False  # Volcano ignores the misspelled key


def test_no_configmap_uses_volcano_default_conf() -> None:
    c = load_cluster(_dump(node("n1")))
    assert c.conf.actions == ["enqueue", "allocate", "backfill"]
    assert [o.name for o in c.conf.tiers[0]] == ["priority", "gang", "conformance"]
    assert any("ConfigMap" in str(w) for w in c.warnings)


def test_defaulted_switches_are_on_except_hierarchy() -> None:
    c = load_cluster(_dump(conf("allocate", [{"name": "capacity"}])))
    opt = c.conf.plugin("capacity")
    assert opt.enabled("allocatable") and opt.enabled("reclaimable") and opt.enabled("jobEnqueued")
    assert opt.hierarchy is False


def test_unknown_action_refuses_the_file_and_the_default_runs() -> None:
    """Volcano keeps its previous configuration (at start the default) when it refuses the file (issue 26)."""
    c = load_cluster(_dump(conf("enqueue, allocte", [])))
    assert c.conf.actions == ["enqueue", "allocate", "backfill"]
    assert [str(w) for w in c.conf.warnings] == [next(str(w) for w in c.conf.warnings
                                                      if "unknown action 'allocte'" in str(w))]


def test_quoted_ancestor_level_is_ignored_like_volcano() -> None:
    from capacity.scheduler import open_session
    c = load_cluster(_dump(conf("allocate", [{"name": "capacity", "enableHierarchy": True,
                                              "arguments": {"ancestorReclaimLevel": "2"}}]), queue("root")))
    ssn = open_session(c)
    assert ssn.plugins["capacity"].ancestor_level == 0
    assert any("ancestorReclaimLevel" in n for n in ssn.notes)


def test_a_guarantee_written_without_its_resource_key_is_named_and_ignored() -> None:
    """`guarantee: {cpu: 4}` is one level too high (Volcano's field is guarantee.resource): the API server
    drops it, so the queue has no guarantee, and the warning says where the quota belongs."""
    flat = queue("q1")
    flat["spec"]["guarantee"] = {"cpu": "4", "memory": "8Gi"}
    c = load_cluster(_dump(flat, queue("q2", guarantee={"cpu": "2"}, deserved={"cpu": "2"})))
    text = "\n".join(str(w) for w in c.warnings)
    assert "Queue/q1: spec.guarantee.cpu: not a field" in text and "spec.guarantee.memory" in text
    assert "spec.guarantee.resource" in text and "Queue/q2" not in text
    assert c.queues["q1"].guarantee is None and c.queues["q2"].guarantee is not None
