"""Every scenario of the acceptance corpus (Volcano's own unit tests), through the engine.

The corpus is a verbatim copy of shared/acceptance (a user's clone has no ../shared). Most cases run
in-process; a handful also go through `python -m capacity simulate` as check.py does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate
from tests.acceptance.compare import differences
from tests.acceptance.known_failures import KNOWN_FAILURES

CORPUS = Path(__file__).parent / "volcano"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expect.yaml").is_file())
ROOT = Path(__file__).resolve().parents[2]


def _expect(case: str) -> dict:
    return yaml.safe_load((CORPUS / case / "expect.yaml").read_text())


def _marks(case: str) -> list:
    if case in KNOWN_FAILURES:
        return [pytest.mark.xfail(reason=KNOWN_FAILURES[case], strict=True)]
    return []


def test_corpus_is_complete() -> None:
    assert len(CASES) == 74


def test_known_failures_are_real_cases() -> None:
    assert set(KNOWN_FAILURES) <= set(CASES)


@pytest.mark.parametrize("case", [pytest.param(c, marks=_marks(c)) for c in CASES])
def test_case(case: str) -> None:
    spec = _expect(case)
    cluster = load_cluster_file(str(CORPUS / case / "cluster.yaml"))
    out = simulate(cluster, spec.get("cycles", 1)).as_json()
    assert differences(spec["expect"], out) == []


CLI_CASES = ["capacity-flat-reclaim-reclaimer-dimensions-only", "capacity-hier-ancestor-capability-blocks-enqueue",
             "capacity-hier-inherit-parent-cpu-capability", "enqueue-pending-to-inqueue"]


@pytest.mark.parametrize("case", CLI_CASES)
def test_case_through_cli(case: str) -> None:
    spec = _expect(case)
    proc = subprocess.run(
        [sys.executable, "-m", "capacity", "simulate", str(CORPUS / case / "cluster.yaml"),
         "--cycles", str(spec.get("cycles", 1)), "--format", "json"],
        capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert differences(spec["expect"], out) == []
