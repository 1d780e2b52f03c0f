"""`python -m capacity lint`: the scenarios of tests/lint_cases, exit statuses, text and JSON output."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from capacity.analysis.lint import lint_text

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "tests/lint_cases").glob("*.yaml"))
CORPUS = sorted((ROOT / "tests/acceptance/volcano").glob("*/cluster.yaml")) + sorted((ROOT / "fixtures").glob("*.yaml"))


def _lint(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "capacity", "lint", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, check=False)


def _header(path: Path, key: str) -> str:
    m = re.search(rf"^# {key}: (.*)$", path.read_text(), re.MULTILINE)
    assert m, f"{path.name} needs a '# {key}:' line"
    return m.group(1).strip()


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_lint_case_reports_exactly_its_expected_rules(case: Path) -> None:
    proc = _lint(case, "--format", "json")
    assert proc.returncode == int(_header(case, "exit")), proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    expected = _header(case, "expect")
    rules = {f["rule"] for f in out["findings"] if f["severity"] != "info"}
    assert rules == (set() if expected == "none" else {r.strip() for r in expected.split(",")})
    assert out["summary"]["error"] == sum(f["severity"] == "error" for f in out["findings"])


def test_text_output_groups_by_severity() -> None:
    proc = _lint(ROOT / "tests/lint_cases/stalled-hierarchy.yaml")
    assert proc.returncode == 1
    assert proc.stdout.startswith("errors (3):\n  ")
    assert "PodGroup/team-a/adhoc: spec.queue [job-on-non-leaf-queue]" in proc.stdout
    assert "    Volcano: the capacity plugin sets readyToSchedule=false" in proc.stdout
    assert proc.stdout.rstrip().endswith("summary: 3 error(s), 0 warning(s), 0 info")


def test_conf_given_separately(tmp_path: Path) -> None:
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text("actions: allocate, reclaim\ntiers:\n- plugins:\n  - name: capacity\n    enableHierarchy: true\n")
    proc = _lint(ROOT / "tests/lint_cases/clean.yaml", "--conf", conf, "--format", "json")
    assert proc.returncode == 1
    assert [f["rule"] for f in json.loads(proc.stdout)["findings"]] == ["no-job-starving"]


@pytest.mark.parametrize(("text", "needle"), [
    (None, "cannot be read"),
    ("kind: Queue\nmetadata: {name: q\n", "malformed YAML"),
    ("kind: Queue\nmetadata: {name: q}\nspec: {capability: {cpu: lots}}\n", "Queue/q: spec.capability.cpu"),
])
def test_unreadable_input_is_exit_2(tmp_path: Path, text: str | None, needle: str) -> None:
    f = tmp_path / "cluster.yaml"
    if text is not None:
        f.write_text(text)
    proc = _lint(f)
    assert proc.returncode == 2
    assert needle in proc.stderr and "Traceback" not in proc.stderr


def test_a_conf_volcano_refuses_is_a_lint_error(tmp_path: Path) -> None:
    """Volcano runs its default configuration instead (issue 26): a lint error, not unreadable input."""
    f = tmp_path / "cluster.yaml"
    f.write_text("kind: ConfigMap\nmetadata: {name: volcano-scheduler-configmap}\n"
                 "data: {volcano-scheduler.conf: 'actions: allocate, reclaimm'}\n")
    proc = _lint(f, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    found = [x for x in json.loads(proc.stdout)["findings"] if x["rule"] == "conf-refused"]
    assert len(found) == 1 and "unknown action 'reclaimm'" in found[0]["message"]


def test_help_documents_the_exit_statuses() -> None:
    proc = subprocess.run([sys.executable, "-m", "capacity", "lint", "--help"], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    for line in ("0  no errors", "1  at least one lint error", "2  unreadable input"):
        assert line in proc.stdout


@pytest.mark.parametrize("path", CORPUS, ids=[f"{p.parent.name}/{p.name}" for p in CORPUS])
def test_every_scenario_we_ship_lints_without_crashing(path: Path) -> None:
    for f in lint_text(path.read_text(), str(path)):
        assert f.obj and f.message and f.volcano_does
