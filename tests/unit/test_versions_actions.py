"""The action changes of issue 29 (backfill, victim order, preempt, PodGroup phase at close): on each
old-expectation case the release decides as that Volcano release did, both engines agree, the decision
trace names the change, and `explain` attributes the difference from HEAD to it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from capacity.accel import ACCELERATED, ENGINE_ENV, REFERENCE
from capacity.core.trace import Trace
from capacity.framework.session import SessionOptions
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate
from capacity.versions import version
from capacity.versions.diff import version_diff

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "acceptance" / "versions" / "cases"

#: The old-expectation case of each change, the release it runs on, and a decision HEAD makes otherwise.
OLD_CASES = {
    "pr4029": ("pr4029-backfill-stops-at-first-unfit-v1.11", "1.11", ("bind", "ns/b-0")),
    "pr5115": ("pr5115-victims-by-newest-job-v1.14", "1.14", ("evict", "ns1/p-high")),
    "pr5142": ("pr5142-preempt-queues-as-met-v1.14", "1.14", ("evict", "ns/a-victim-0")),
    "pr5214": ("pr5214-reprieve-least-important-first-v1.14", "1.14", ("evict", "ns1/low-b")),
    "pr5796": ("pr5796-terminating-falls-to-pending-v1.15", "1.15", ("phase", "ns1/all")),
    "pr5818": ("pr5818-preemptor-pushed-back-v1.15", "1.15", ("evict", "ns/c-0")),
}


def _cycles(case: str) -> int:
    return int(yaml.safe_load((CASES / case / "expect.yaml").read_text()).get("cycles", 1))


def _run(case: str, release: str, traced: bool) -> tuple[Any, list[dict[str, Any]]]:
    v = version(release)
    trace = Trace(enabled=traced)
    run = simulate(load_cluster_file(str(CASES / case / "cluster.yaml")), _cycles(case), trace,
                   SessionOptions(lacking=v.lacking, version=v.label))
    return run.as_json(), [r.as_dict() for r in trace.records]


@pytest.mark.parametrize("switch", sorted(OLD_CASES))
def test_both_engines_decide_the_old_release_alike(switch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    case, release, _ = OLD_CASES[switch]
    for traced in (True, False):
        got = []
        for engine in (REFERENCE.name, ACCELERATED.name):
            monkeypatch.setenv(ENGINE_ENV, engine)
            got.append(_run(case, release, traced))
        assert got[0] == got[1], f"{switch}: the engines differ on v{release} (traced={traced})"


@pytest.mark.parametrize("switch", sorted(OLD_CASES))
def test_the_trace_names_the_change_that_decided(switch: str) -> None:
    case, release, _ = OLD_CASES[switch]
    _, records = _run(case, release, True)
    named = [r for r in records if r.get("detail", {}).get("switch") == switch]
    assert named, f"no record of {case} on v{release} names {switch}"
    words = named[0]["detail"]["words"]
    assert words.startswith(f"v{release}: ") and f"(before PR #{switch[2:]}," in words


@pytest.mark.parametrize("switch", sorted(OLD_CASES))
def test_head_names_no_older_change(switch: str) -> None:
    case, _, _ = OLD_CASES[switch]
    _, records = _run(case, "head", True)
    assert not [r for r in records if r.get("detail", {}).get("switch")]


@pytest.mark.parametrize("switch", sorted(OLD_CASES))
def test_the_version_difference_is_attributed_to_the_change(switch: str) -> None:
    case, release, (kind, subject) = OLD_CASES[switch]
    cluster = load_cluster_file(str(CASES / case / "cluster.yaml"))
    diff = version_diff(cluster, _cycles(case), version(release))
    by_subject = {(d.kind, d.subject): d for d in diff.differences}
    assert (kind, subject) in by_subject, diff.lines()
    assert switch in by_subject[(kind, subject)].switches
    assert any(f"because of PR #{switch[2:]} ({switch})" in line for line in diff.lines())


def test_explain_on_v114_names_the_reprieve_change() -> None:
    cluster = CASES / "pr5214-reprieve-least-important-first-v1.14" / "cluster.yaml"
    proc = subprocess.run([sys.executable, "-m", "capacity", "explain", str(cluster), "--pod", "ns1/low-b",
                           "--volcano-version", "1.14"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "pod ns1/low-b: evicted on v1.14, not evicted on HEAD" in proc.stdout
    assert "because of PR #5214 (pr5214), in Volcano from v1.15.0" in proc.stdout
    out = subprocess.run([sys.executable, "-m", "capacity", "explain", str(cluster), "--pod", "ns1/low-b",
                          "--volcano-version", "1.14", "--format", "json"], capture_output=True, text=True,
                         cwd=ROOT, check=False).stdout
    ids = {s["id"] for d in json.loads(out)["versionDifference"]["differences"] for s in d["switches"]}
    assert "pr5214" in ids


@pytest.mark.parametrize("switch,patch", [("pr5142", "1.12.4"), ("pr5142", "1.13.3"), ("pr5142", "1.14.2"),
                                          ("pr5214", "1.14.3")])
def test_a_patch_release_with_the_cherry_pick_decides_as_head(switch: str, patch: str) -> None:
    case, release, (kind, subject) = OLD_CASES[switch]
    before = f"{patch.rsplit('.', 1)[0]}.{int(patch.rsplit('.', 1)[1]) - 1}"
    assert switch in version(before).lacking and switch not in version(patch).lacking
    head, _ = _run(case, "head", False)
    assert _run(case, patch, False)[0]["evicted"] == head["evicted"]
    assert _run(case, before, False)[0]["evicted"] != head["evicted"]
