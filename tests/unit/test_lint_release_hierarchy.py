"""lint's own hierarchy findings follow the chosen Volcano release's build and webhook, not HEAD's (issue 29):
the same dump gets HEAD's words on HEAD and the older release's behaviour, naming the change, on v1.12 / v1.13."""

from __future__ import annotations

from pathlib import Path

from capacity.analysis.lint import Finding, lint_text
from capacity.versions import version

DUMP = (Path(__file__).parent / "data" / "lint-release-hierarchy.yaml").read_text()


def _findings(release: str) -> dict[tuple[str, str], Finding]:
    return {(f.rule, f.obj): f for f in lint_text(DUMP, source="dump.yaml", lacking=version(release).lacking)}


def test_head_says_the_webhook_rejects_and_the_scheduler_only_logs() -> None:
    f = _findings("head")[("children-deserved-above-parent", "Queue/p")]
    assert "the queue webhook rejects the child" in f.volcano_does and "the scheduler only logs it" in f.volcano_does
    assert _findings("head")[("root-capability-kept", "Queue/root")].severity == "info"


def test_v1_13_says_its_webhook_accepts_and_capacity_stops() -> None:
    f = _findings("1.13")[("children-deserved-above-parent", "Queue/p")]
    assert "this release's queue webhook accepts it" in f.volcano_does and "before PR #4864, v1.14.0" in f.volcano_does
    assert "readyToSchedule=false" in f.volcano_does and "only logs it)" in f.volcano_does  # (only from v1.14 on)
    assert not any(rule.startswith("webhook-") for rule, _obj in _findings("1.13"))
    kept = _findings("1.13")[("root-capability-kept", "Queue/root")]
    assert "root's realCapability is the cluster total (before PR #4973, v1.15.0)" in kept.volcano_does


def test_v1_12_overwrites_a_root_capability_with_the_cluster_total() -> None:
    f = _findings("1.12")[("root-quota-overwritten", "Queue/root")]
    assert f.severity == "warning" and f.field == "spec.capability"
    assert "with the cluster total every session (before PR #4354, v1.13.0, and PR #4973, v1.15.0)" in f.volcano_does
