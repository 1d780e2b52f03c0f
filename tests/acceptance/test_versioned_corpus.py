"""The acceptance corpus on every Volcano release it applies to, and the per-release cases
(tests/acceptance/versions): each release runs as the set of switches capacity/versions gives it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from capacity.framework.session import SessionOptions
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate
from capacity.versions import BY_ID, RELEASES, version
from tests.acceptance.compare import differences
from tests.acceptance.known_failures import KNOWN_FAILURES

HERE = Path(__file__).parent
CORPUS = HERE / "volcano"
CASES = HERE / "versions" / "cases"
APPLIES: dict[str, dict] = yaml.safe_load((HERE / "versions" / "applies.yaml").read_text())
CORPUS_CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expect.yaml").is_file())
VERSIONED = sorted(p.name for p in CASES.iterdir() if (p / "expect.yaml").is_file())


def _run(cluster: Path, spec: dict, release: str) -> dict:
    v = version(release)
    options = SessionOptions(lacking=v.lacking, version=v.label)
    return simulate(load_cluster_file(str(cluster)), spec.get("cycles", 1), None, options).as_json()


def _applies(case: str) -> list[str]:
    start = APPLIES.get(case, {}).get("from")
    return list(RELEASES[RELEASES.index(start):] if start else RELEASES)


@pytest.mark.parametrize("case,release", [(c, r) for c in CORPUS_CASES if c not in KNOWN_FAILURES
                                          for r in _applies(c)])
def test_corpus_case_on_release(case: str, release: str) -> None:
    spec = yaml.safe_load((CORPUS / case / "expect.yaml").read_text())
    assert differences(spec["expect"], _run(CORPUS / case / "cluster.yaml", spec, release)) == []


def test_applies_names_real_cases() -> None:
    assert set(APPLIES) <= set(CORPUS_CASES)
    assert all(v["from"] in RELEASES for v in APPLIES.values())


def _versioned() -> list[tuple[str, str]]:
    out = []
    for case in VERSIONED:
        spec = yaml.safe_load((CASES / case / "expect.yaml").read_text())
        out += [(case, r) for r in spec["versions"]]
    return out


@pytest.mark.parametrize("case,release", _versioned())
def test_versioned_case(case: str, release: str) -> None:
    spec = yaml.safe_load((CASES / case / "expect.yaml").read_text())
    assert differences(spec["expect"], _run(CASES / case / "cluster.yaml", spec, release)) == []


@pytest.mark.parametrize("case", VERSIONED)
def test_versioned_case_is_decided_by_its_switch(case: str) -> None:
    """At the edge of the case's releases (its newest release for an old expectation, its oldest for a new
    one), flipping the case's switch alone changes the decision: the switch is the change responsible."""
    spec = yaml.safe_load((CASES / case / "expect.yaml").read_text())
    switch = BY_ID[spec["switch"]]
    cluster = str(CASES / case / "cluster.yaml")
    old = all(switch.id in version(r).lacking for r in spec["versions"])
    edge = version(spec["versions"][-1] if old else spec["versions"][0])
    assert (switch.id in edge.lacking) == old
    flipped = SessionOptions(lacking=edge.lacking ^ {switch.id})
    out = simulate(load_cluster_file(cluster), spec.get("cycles", 1), None, flipped).as_json()
    assert differences(spec["expect"], out) != [], f"turning {switch.id} {'on' if old else 'off'} alone on " \
        f"{edge.label} should change this decision"
