"""PR #5010 (v1.15.0) as the switch pr5010: up to v1.14 preempt kept the evictions made on a node where the
preemptor still did not fit, and its within-job phase committed a failed attempt. On the old-expectation
cases both engines decide as v1.14 did, the trace names the change, and `explain` attributes the
difference from HEAD to it."""

from __future__ import annotations

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
from capacity.versions.switches import BY_ID, UNMODELLED

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "acceptance" / "versions" / "cases"

#: old-expectation case -> (the records naming the switch, a pod v1.14 evicts and HEAD does not)
OLD = {
    "pr5010-failed-node-evictions-kept-v1.14": (("preemptEvictionsKept",), "c1/preemptee1"),
    # the node's evictions are kept on the attempt's statement, which the within-job phase then commits
    "pr5010-within-job-eviction-kept-v1.14": (("preemptEvictionsKept", "preemptFailedKept"), "ns/j-0"),
}


def _run(case: str, release: str, traced: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    v = version(release)
    trace = Trace(enabled=traced)
    cycles = int(yaml.safe_load((CASES / case / "expect.yaml").read_text()).get("cycles", 1))
    run = simulate(load_cluster_file(str(CASES / case / "cluster.yaml")), cycles, trace,
                   SessionOptions(lacking=v.lacking, version=v.label))
    return run.as_json(), [r.as_dict() for r in trace.records]


def test_pr5010_is_a_switch_of_v115_and_no_longer_unmodelled() -> None:
    assert BY_ID["pr5010"].release == "v1.15.0" and BY_ID["pr5010"].area == "preempt"
    assert 5010 not in {u.pr for u in UNMODELLED}
    # No cherry-pick: the last patch releases of v1.13 and v1.14 still keep the evictions.
    assert "pr5010" in version("1.13.3").lacking and "pr5010" in version("1.14.4").lacking
    assert "pr5010" not in version("1.15").lacking and "pr5010" not in version("head").lacking


@pytest.mark.parametrize("case", sorted(OLD))
def test_v114_evicts_what_head_does_not(case: str) -> None:
    _, victim = OLD[case]
    assert victim in _run(case, "1.14", False)[0]["evicted"]
    assert victim not in _run(case, "head", False)[0]["evicted"]


@pytest.mark.parametrize("case", sorted(OLD))
def test_both_engines_decide_v114_alike(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for traced in (True, False):
        got = []
        for engine in (REFERENCE.name, ACCELERATED.name):
            monkeypatch.setenv(ENGINE_ENV, engine)
            got.append(_run(case, "1.14", traced))
        assert got[0] == got[1], f"the engines differ on {case} (traced={traced})"


@pytest.mark.parametrize("case", sorted(OLD))
def test_the_trace_names_pr5010_on_v114_and_nothing_on_head(case: str) -> None:
    kinds, victim = OLD[case]
    _, records = _run(case, "1.14", True)
    named = [r for r in records if r.get("detail", {}).get("switch") == "pr5010"]
    assert tuple(r["kind"] for r in named) == kinds
    for r in named:
        words = r["detail"]["words"]
        assert words.startswith("v1.14: ") and "(before PR #5010, v1.15.0)" in words and victim in words
    _, head = _run(case, "head", True)
    assert not [r for r in head if r.get("detail", {}).get("switch")]


@pytest.mark.parametrize("case", sorted(OLD))
def test_the_version_difference_is_attributed_to_pr5010(case: str) -> None:
    _, victim = OLD[case]
    diff = version_diff(load_cluster_file(str(CASES / case / "cluster.yaml")), 1, version("1.14"))
    by_subject = {(d.kind, d.subject): d for d in diff.differences}
    assert ("evict", victim) in by_subject, diff.lines()
    assert list(by_subject[("evict", victim)].switches) == ["pr5010"]


def test_explain_on_v114_names_pr5010() -> None:
    cluster = CASES / "pr5010-failed-node-evictions-kept-v1.14" / "cluster.yaml"
    proc = subprocess.run([sys.executable, "-m", "capacity", "explain", str(cluster), "--pod", "c1/preemptee1",
                           "--volcano-version", "1.14"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "pod c1/preemptee1: evicted on v1.14, not evicted on HEAD" in proc.stdout
    assert "because of PR #5010 (pr5010), in Volcano from v1.15.0" in proc.stdout
