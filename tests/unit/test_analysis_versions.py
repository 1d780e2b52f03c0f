"""The analysis tools judge a change with the chosen Volcano release's queue webhook (issue 29): what-if
proposes what that release accepts, in its words, and never a refusal only HEAD's webhook makes."""

from __future__ import annotations

from capacity.analysis.whatif import what_if
from capacity.framework.session import SessionOptions
from capacity.versions import version
from tests.builders import cluster
from tests.unit.test_whatif_safe import nested_capability


def on(release: str) -> SessionOptions:
    v = version(release)
    return SessionOptions(lacking=v.lacking, version=v.label)


def test_what_if_on_v1_13_uses_v1_13s_webhook_not_heads() -> None:
    # c's capability equals its parent p's: HEAD's webhook refuses raising c alone (PR #4864, v1.14.0) and
    # asks for p's raise; v1.13's accepts it, so its answer must not quote HEAD's refusal
    head = what_if(cluster(*nested_capability()), "ns1/job", options=on("head"))
    old = what_if(cluster(*nested_capability()), "ns1/job", options=on("1.13"))
    both = ["raise capability of queue p: cpu 2 -> 3", "raise capability of queue c: cpu 2 -> 3"]
    assert [c.parts for c in head.changes if c.kind == "combined"] == [both]
    assert [c.parts for c in old.changes if c.kind == "combined"] == [both]
    assert next(c for c in head.changes if c.kind == "combined").webhook_asked == [
        "Queue/c: queue c capability[cpu]=3 exceeds its ancestor's capability=2"]
    assert all(not c.webhook_asked for c in old.changes)
    # v1.13 words its own refusal of a deserved above the capability (vq.go:L216-241 @v1.13.0)
    assert any(r.startswith("raise deserved of queue c: cpu 0 -> 3, memory 0 -> 2Gi: Queue/c: requestBody.spec."
                            "deserved: Invalid value: \"cpu 3000.00, memory 2147483648.00\": deserved should less "
                            "equal than capability") for r in old.refused)
    assert not any("deserved should less equal than capability" in r for r in head.refused)


def _one_candidate_plan(**extra: object) -> dict:
    from tests.unit.test_plan import SPEC
    raw = {**SPEC, **extra}
    # prod-serving guaranteeing 4 GPUs under a production that guarantees 2: HEAD's webhook refuses the sum
    # (PR #4864, v1.14.0); v1.13's webhook checks no queue against its parent
    raw["vary"] = [{"queue": "prod-serving", "field": "guarantee", "resource": "nvidia.com/gpu", "values": [4]},
                   {"queue": "production", "field": "guarantee", "resource": "nvidia.com/gpu", "values": [2]}]
    return raw


def test_plan_judges_candidates_with_the_chosen_releases_webhook(tmp_path, capsys) -> None:
    import yaml

    from capacity.cli import main
    from capacity.plan.backends import InlineBackend
    from capacity.plan.run import run_plan
    from capacity.plan.spec import parse_spec, with_release

    head = run_plan(parse_spec(_one_candidate_plan()), InlineBackend()).rows
    assert [r["status"] for r in head] == ["rejected"] and "sum of children's guarantee" in head[0]["error"]
    old = parse_spec(_one_candidate_plan(volcano="1.13"))
    assert old.version == "v1.13"
    assert [r["status"] for r in run_plan(old, InlineBackend()).rows] == ["ok"]
    assert with_release(parse_spec(_one_candidate_plan()), "1.13").lacking == old.lacking
    # the CLI flag overrides the spec's release
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(_one_candidate_plan()))
    assert main(["plan", str(path), "--workers", "1", "--no-progress"]) == 0
    assert "0 replayed, 1 refused" in capsys.readouterr().out
    assert main(["plan", str(path), "--volcano-version", "1.13", "--workers", "1", "--no-progress"]) == 0
    assert "1 replayed, 0 refused" in capsys.readouterr().out


def test_plan_names_an_unknown_release_as_the_specs_field() -> None:
    import pytest

    from capacity.core.errors import InputError
    from capacity.plan.spec import parse_spec
    with pytest.raises(InputError) as err:
        parse_spec(_one_candidate_plan(volcano="0.9"))
    assert err.value.field == "volcano" and "1.13" in err.value.message  # the releases it knows


def test_lint_weight_finding_follows_the_chosen_release() -> None:
    # before PR #4208 (v1.12.0) the CRD had no weight bounds: v1.11's webhook refuses only a weight <= 0
    from capacity.analysis.lint import lint
    from tests.builders import queue
    c = cluster(queue("big", weight=70000), queue("neg", weight=-3))

    def weight_findings(release: str) -> dict[str, str]:
        return {f.obj: f.message for f in lint(c, version(release).lacking) if f.rule == "queue-weight-invalid"}

    assert weight_findings("head") == {"Queue/big": "weight 70000 is outside 1..65535",
                                       "Queue/neg": "weight -3 is outside 1..65535"}
    assert weight_findings("1.12") == weight_findings("head")
    assert weight_findings("1.11") == {
        "Queue/neg": "requestBody.spec.weight: Invalid value: -3: queue weight must be a positive integer"}
    old = next(f for f in lint(c, version("1.11").lacking) if f.rule == "queue-weight-invalid")
    assert "before PR #4208 (v1.12.0)" in old.volcano_does
    assert not any(f.rule.startswith("webhook-weight") for f in lint(c, version("1.11").lacking))
