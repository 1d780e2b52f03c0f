"""--volcano-version: releases as switch sets, the seed flags folded in, the CLI, detection from a dump, and
explain naming the change that makes a release decide differently from HEAD."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from capacity.framework.session import SessionOptions
from capacity.versions import BY_ID, RELEASES, SWITCHES, UnknownVersion, parse_version, version
from capacity.versions.releases import lacking

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "acceptance" / "versions" / "cases"
ONE_DIMENSION = CASES / "pr4659-capacity-reclaim-deserved-one-dimension-v1.13" / "cluster.yaml"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "capacity", *args], capture_output=True, text=True, cwd=ROOT,
                          check=False)


@pytest.mark.parametrize("text,name", [("1.13", "1.13"), ("v1.13", "1.13"), ("1.13.2", "1.13"),
                                       ("v1.15.1", "1.15"), ("head", "head"), ("HEAD", "head")])
def test_version_spellings(text: str, name: str) -> None:
    assert parse_version(text) == name


@pytest.mark.parametrize("text", ["1.9", "1.16", "2", "", "v1.13.x"])
def test_unknown_version_lists_the_known_ones(text: str) -> None:
    with pytest.raises(UnknownVersion, match="known: 1.11, 1.12, 1.13, 1.14, 1.15, head"):
        parse_version(text)


def test_an_older_release_lacks_every_change_a_newer_one_lacks() -> None:
    sets = [lacking(r) for r in RELEASES]
    assert all(a >= b for a, b in zip(sets, sets[1:], strict=False))
    assert sets[-1] == frozenset()
    assert "pr4659" in version("1.13").lacking and "pr4659" not in version("1.14").lacking
    assert "pr4160" in version("1.11").lacking and "pr4160" not in version("1.12").lacking


def test_every_switch_names_its_pr_and_a_release_tag() -> None:
    for s in SWITCHES:
        assert s.id == f"pr{s.pr}" or s.id.startswith(f"pr{s.pr}-")  # "pr4864-webhook": same PR, other rule site
        assert s.release == "HEAD" or s.release.startswith("v1.")
        assert s.before and s.after


def test_seed_flags_are_switches_of_the_same_table() -> None:
    assert SessionOptions(leaf_only_allocatable=True).older("pr3940")
    assert SessionOptions(seed004_root_init=True).older("pr4973")
    assert SessionOptions(legacy_namespace_fairshare=True).older("pr2757")
    v14 = SessionOptions(lacking=version("1.14").lacking)
    assert v14.seed004_root_init and not v14.leaf_only_allocatable
    assert {BY_ID["pr3940"].flag, BY_ID["pr4973"].flag, BY_ID["pr2757"].flag} == {
        "--leaf-only-allocatable", "--seed004-root", "--legacy-namespace-fairshare"}


def test_unknown_version_on_the_command_line_exits_2_with_the_list() -> None:
    proc = _cli("simulate", str(ONE_DIMENSION), "--volcano-version", "1.9")
    assert proc.returncode == 2
    assert "unknown Volcano version '1.9'; known: 1.11, 1.12, 1.13, 1.14, 1.15, head" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_simulate_on_v113_reproduces_the_old_decision_and_the_trace_names_the_change(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    old = json.loads(_cli("simulate", str(ONE_DIMENSION), "--volcano-version", "v1.13.0", "--format", "json",
                          "--trace", str(trace)).stdout)
    new = json.loads(_cli("simulate", str(ONE_DIMENSION), "--format", "json").stdout)
    assert old["evicted"] == [] and new["evicted"] == ["ns1/p18"]
    reasons = [r for line in trace.read_text().splitlines() for r in json.loads(line).get("reasons", [])]
    named = [r for r in reasons if "pr4659" in json.dumps(r)]
    assert named and "v1.13.0: capacity required every requested dimension" in named[0]["text"]
    assert "(before PR #4659, v1.14.0; backported to v1.13.1)" in named[0]["text"]


def test_explain_names_the_change_and_the_release_that_has_it() -> None:
    proc = _cli("explain", str(ONE_DIMENSION), "--pod", "ns1/p18", "--volcano-version", "1.13")
    assert proc.returncode == 0, proc.stderr
    assert "v1.13 decides differently from HEAD on this scenario:" in proc.stdout
    assert "pod ns1/p18: not evicted on v1.13, evicted on HEAD" in proc.stdout
    assert "because of PR #4659 (pr4659), in Volcano from v1.14.0 (backported to v1.13.1)" in proc.stdout
    out = json.loads(_cli("explain", str(ONE_DIMENSION), "--pod", "ns1/p18", "--volcano-version", "1.13",
                          "--format", "json").stdout)
    diff = out["versionDifference"]
    assert diff["version"] == "v1.13"
    assert {s["id"] for d in diff["differences"] for s in d["switches"]} == {"pr4659"}


def test_explain_on_head_says_nothing_about_versions() -> None:
    assert "HEAD" not in _cli("explain", str(ONE_DIMENSION), "--pod", "ns1/p18").stdout


SCHEDULER = """---
apiVersion: apps/v1
kind: Deployment
metadata: {name: volcano-scheduler, namespace: volcano-system, labels: {app: volcano-scheduler}}
spec:
  template:
    metadata: {labels: {app: volcano-scheduler}}
    spec:
      containers:
      - name: volcano-scheduler
        image: docker.io/volcanosh/vc-scheduler:v1.13.0
"""


def test_a_dump_naming_its_scheduler_release_runs_that_release(tmp_path: Path) -> None:
    dump = tmp_path / "dump.yaml"
    dump.write_text(ONE_DIMENSION.read_text() + SCHEDULER)
    proc = _cli("simulate", str(dump), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["evicted"] == []
    assert "volcano-scheduler image is 1.13.0: simulating v1.13.0" in proc.stderr
    head = _cli("simulate", str(dump), "--format", "json", "--volcano-version", "head")
    assert json.loads(head.stdout)["evicted"] == ["ns1/p18"]


def test_lint_on_an_older_release_reports_the_stall_it_would_cause() -> None:
    dump = CASES / "pr4864-hierarchy-check-stops-capacity-v1.13" / "cluster.yaml"
    old = json.loads(_cli("lint", str(dump), "--volcano-version", "1.13", "--format", "json").stdout)
    rules = [f for f in old["findings"] if f["rule"] == "release-behaviour"]
    assert rules and rules[0]["severity"] == "error" and "PR #4864" in rules[0]["message"]
    new = json.loads(_cli("lint", str(dump), "--format", "json").stdout)
    assert not [f for f in new["findings"] if f["rule"] == "release-behaviour"]


def test_replay_and_bench_take_the_version_too() -> None:
    dump = CASES / "pr5053-reclaim-beyond-realcapability-v1.14" / "cluster.yaml"
    proc = _cli("replay", "cluster", str(dump), "--volcano-version", "1.14", "--max-cycles", "1", "--every-cycle",
                "--format", "json")
    assert proc.returncode == 0, proc.stderr
    bad = _cli("bench", "--volcano-version", "0.9", "--only", "s1")
    assert bad.returncode == 2 and "known: 1.11, 1.12, 1.13, 1.14, 1.15, head" in bad.stderr


def test_a_release_sets_the_seed_flag_it_implies_and_a_flag_alone_is_not_a_release() -> None:
    v13 = SessionOptions(lacking=version("1.13").lacking, version="v1.13")
    assert v13.set_by_release("seed004_root_init") and not v13.set_by_release("leaf_only_allocatable")
    flag = SessionOptions(seed004_root_init=True)
    assert flag.older("pr4973") and not flag.set_by_release("seed004_root_init") and flag.version == "HEAD"
    assert flag.all_lacking() == frozenset({"pr4973"})


def test_a_patch_release_has_the_switches_backported_to_its_branch() -> None:
    """PR #4659 reached release-1.13 by the cherry-pick #4830, first in v1.13.1: 1.13.1 and later decide as HEAD
    on the one-dimension reclaim, 1.13 (= v1.13.0) as before the change."""
    from capacity.versions import version
    assert "pr4659" in version("1.13").lacking and "pr4659" in version("1.13.0").lacking
    assert "pr4659" not in version("1.13.1").lacking and "pr4659" not in version("v1.13.3").lacking
    assert version("1.13.2").label == "v1.13.2" and version("1.13").label == "v1.13"
    assert "pr4973" in version("1.14.1").lacking and "pr4973" not in version("1.14.2").lacking
    patched = json.loads(_cli("simulate", str(ONE_DIMENSION), "--volcano-version", "1.13.2", "--format", "json").stdout)
    assert patched["evicted"] == ["ns1/p18"]


def test_backports_reach_the_patch_releases_named() -> None:
    """#4160 reached release-1.11 in v1.11.1 (the lessPartly removal), #4033 too: `1.11.1` reclaims smaller pods
    and lets a second sub-queue be created; `1.11` (v1.11.0) does neither."""
    from capacity.versions import version
    assert {"pr4160", "pr4033"} <= version("1.11").lacking
    assert not {"pr4160", "pr4033"} & version("1.11.1").lacking
    assert "pr4973-webhook" in version("1.14.1").lacking and "pr4973-webhook" not in version("1.14.2").lacking


def test_every_backport_names_a_switch_and_a_patch_release_of_an_older_branch() -> None:
    from capacity.versions import BY_ID
    from capacity.versions.releases import BACKPORTS
    for sid, tags in BACKPORTS.items():
        assert sid in BY_ID, sid
        first = BY_ID[sid].minor
        for tag in tags:
            major, minor, patch = (int(p) for p in tag.split("."))
            assert (major, minor) < first and patch > 0, (sid, tag)
