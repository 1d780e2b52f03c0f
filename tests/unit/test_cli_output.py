"""`python -m capacity simulate` prints the acceptance JSON, and the same as readable text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests/acceptance/volcano/capacity-flat-reclaim-reclaimer-dimensions-only/cluster.yaml"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "capacity", "simulate", str(CASE), *args],
                          capture_output=True, text=True, cwd=ROOT, check=True)


def test_json_has_exactly_the_format_keys_and_round_trips() -> None:
    out = json.loads(_run("--format", "json").stdout)
    assert set(out) == {"binds", "evicted", "pipelined", "podgroupPhases", "queues", "notes"}  # notes: issue 27
    assert out["evicted"] == ["ns1/p28"]
    assert json.loads(json.dumps(out)) == out
    q = next(iter(out["queues"].values()))
    assert {"deserved", "allocated", "realCapability", "share"} <= set(q)


def test_text_says_the_same_thing(tmp_path: Path) -> None:
    text = _run("--format", "text").stdout
    assert "evicted (1):\n  ns1/p28" in text
    assert "pipelined:\n  ns1/pg30 on n8" in text


def test_trace_file_is_json_lines_naming_the_eviction(tmp_path: Path) -> None:
    f = tmp_path / "trace.jsonl"
    _run("--format", "json", "--trace", str(f))
    records = [json.loads(line) for line in f.read_text().splitlines()]
    evict = [r for r in records if r["kind"] == "evict"]
    assert [r["subject"] for r in evict] == ["ns1/p28"]
    votes = [r for r in records if r["kind"] == "reclaimableVote"]
    assert any(reason["rule"] == "immediateVictim" for r in votes for reason in r.get("reasons", []))
