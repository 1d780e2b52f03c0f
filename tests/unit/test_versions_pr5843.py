"""PR #5843 (in no release yet): preempt's normal phase asks the full predicate before it pipelines the preemptor.
Up to v1.15 a node whose predicate still failed (here: a required anti-affinity with a pod not yet evicted) was
taken; the trace names the change, and `explain` puts the difference down to it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from capacity.core.trace import Trace
from capacity.framework.session import SessionOptions
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate
from capacity.versions import BY_ID, version

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests/acceptance/versions/cases/pr5843-anti-affinity-unasked-v1.15/cluster.yaml"


def _run(release: str) -> tuple[dict, list]:
    v = version(release)
    trace = Trace(enabled=True)
    out = simulate(load_cluster_file(str(CASE)), 1, trace, SessionOptions(lacking=v.lacking, version=v.label))
    return out.as_json(), trace.records


def test_pr5843_is_a_switch_every_release_lacks() -> None:
    assert BY_ID["pr5843"].release == "HEAD"
    assert all("pr5843" in version(r).lacking for r in ("1.11", "1.13", "1.15", "1.15.1"))
    assert "pr5843" not in version("head").lacking


def test_v1_15_trace_names_the_predicate_it_did_not_ask() -> None:
    out, records = _run("1.15")
    assert out["evicted"] == ["ns1/low-1"]
    unasked = [r for r in records if r.kind == "preemptPredicateUnasked"]
    assert len(unasked) == 1 and unasked[0].detail["switch"] == "pr5843"
    assert "v1.15: preempt stopped evicting on a node" in unasked[0].detail["words"]
    assert not [r for r in _run("head")[1] if r.kind == "preemptPredicateUnasked"]


def test_explain_puts_the_extra_eviction_down_to_pr5843() -> None:
    got = subprocess.run([sys.executable, "-m", "capacity", "explain", str(CASE), "--pod", "ns1/low-0",
                          "--volcano-version", "1.15"], capture_output=True, text=True, cwd=ROOT, check=False)
    assert "PR #5843" in got.stdout, got.stdout + got.stderr
