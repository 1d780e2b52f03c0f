"""PR #4347 and the proportion plugin: before v1.13 helpers.Max dropped a scalar that proportion's water-filled
deserved ended at 0. Proportion reads a missing scalar as 0 in every comparison and its share skips values below
minResource, so no decision changes; the trace says what the older release dropped and names the switch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from capacity.core.trace import Trace
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate
from capacity.versions import version

SCENARIO = Path(__file__).parent / "data" / "pr4347-proportion-zero-gpu.yaml"


def _run(release: str) -> tuple[dict[str, Any], list[Any]]:
    trace = Trace(enabled=True)
    v = version(release)
    from capacity.framework.session import SessionOptions
    out = simulate(load_cluster_file(str(SCENARIO)), 1, trace, SessionOptions(lacking=v.lacking, version=v.label))
    return out.as_json(), [r for r in trace.records if r.kind == "proportionRound"]


@pytest.mark.parametrize("release", ["1.11", "1.12"])
def test_an_older_release_drops_the_zero_gpu_and_says_so(release: str) -> None:
    got, rounds = _run(release)
    entry = rounds[-1].detail["queues"]["qa"]
    assert entry["switch"] == "pr4347" and entry["droppedScalars"] == ["nvidia.com/gpu"]
    assert "nvidia.com/gpu" not in entry["deserved"]
    assert got["binds"] == {"ns1/a-1": "n1"}


def test_the_round_text_names_the_switch_on_v1_12() -> None:
    trace = Trace(enabled=True)
    v = version("1.12")
    from capacity.framework.session import SessionOptions
    simulate(load_cluster_file(str(SCENARIO)), 1, trace, SessionOptions(lacking=v.lacking, version=v.label))
    words = [x.text for r in trace.records if r.kind == "proportionRound" for x in r.reasons if "round 1" in x.text]
    assert words and "on v1.12 helpers.Max then drops nvidia.com/gpu 0 from its deserved" in words[0]
    assert "before PR #4347 (v1.13.0)" in words[0] and "no decision changes" in words[0]


def test_every_release_decides_alike_and_head_keeps_the_zero() -> None:
    head, rounds = _run("head")
    entry = rounds[-1].detail["queues"]["qa"]
    assert entry["deserved"]["nvidia.com/gpu"] == 0 and "switch" not in entry
    decisions = ("binds", "evicted", "pipelined", "podgroupPhases")
    for release in ("1.11", "1.12", "1.13", "1.14", "1.15"):
        got = _run(release)[0]
        assert {k: got[k] for k in decisions} == {k: head[k] for k in decisions}, release
