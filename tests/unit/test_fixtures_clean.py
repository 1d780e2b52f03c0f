"""Every built-in scenario and lesson loads without a warning: a teacher's scenario that Volcano's API server
or admission webhook would refuse teaches the wrong thing (lesson 03 once guaranteed more than it deserved,
lesson 05 once named its queues A and B)."""

from __future__ import annotations

from pathlib import Path

import pytest

from capacity.io.k8s import load_cluster_file

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in [*ROOT.glob("fixtures/*.yaml"), *ROOT.glob("fixtures/lessons/*/*.yaml")]
                   if p.name != "checkpoints.yaml")


def test_there_are_scenarios_to_check() -> None:
    assert len(SCENARIOS) >= 15


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_a_built_in_scenario_loads_without_warnings(path: Path) -> None:
    cluster = load_cluster_file(str(path))
    assert [str(w) for w in cluster.warnings] == []
