"""`python -m capacity plan`: spec errors, candidates, the webhook's refusals, results files, resume, failures,
and the same figures from every backend (a real local Ray instance included)."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from capacity.cli import main
from capacity.core.errors import InputError
from capacity.plan import evaluate as evaluate_mod
from capacity.plan.backends import InlineBackend, ProcessBackend
from capacity.plan.report import best, pareto, queue_yaml
from capacity.plan.results import read_rows
from capacity.plan.run import prepare, run_plan
from capacity.plan.spec import parse_spec

ROOT = Path(__file__).parents[2]
HELIOS = ROOT / "tests" / "data" / "helios"

#: Six candidates on the default scenario; one is refused by the admission webhook (a child guaranteeing
#: more GPUs than its parent).
SPEC = {
    "cluster": {"fixture": "default"},
    "workload": {"synthetic": {"seed": 3, "jobs": 20, "rate": 0.01, "duration_median": 900,
                               "queues": {"prod-serving": 1, "research-train": 2}}},
    "replay": {"period": 60},
    "search": {"strategy": "grid"},
    "vary": [{"queue": "prod-serving", "field": "guarantee", "resource": "nvidia.com/gpu", "values": [0, 2, 4]},
             {"queue": "production", "field": "guarantee", "resource": "nvidia.com/gpu", "values": [2, 4]}],
    "goals": [{"metric": "wait_p95", "queue": "prod-serving", "at_most": 600},
              {"metric": "utilisation", "resource": "nvidia.com/gpu", "at_least": 0.3}],
    "prefer": {"minimize": "prod-serving.guarantee.nvidia.com/gpu"},
}


def spec(**changes):
    raw = copy.deepcopy(SPEC)
    raw.update(changes)
    return parse_spec(raw)


def comparable(rows):
    """Rows without the wall-clock column, in candidate order (NaN, a figure of a queue without jobs, as None)."""
    def clean(v):
        return None if isinstance(v, float) and math.isnan(v) else v
    return sorted(({k: clean(v) for k, v in r.items() if k != "seconds"} for r in rows), key=lambda r: r["id"])


# ---- spec errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("change", "field", "words"), [
    ({"colour": 1}, "colour", "unknown section"),
    ({"cluster": {}}, "cluster", "exactly one of"),
    ({"search": {"strategy": "annealing"}}, "search.strategy", "grid, random, optuna"),
    ({"vary": []}, "vary", "at least one"),
    ({"vary": [{"queue": "q", "field": "quota", "values": [1]}]}, "vary[0].field", "deserved"),
    ({"vary": [{"queue": "q", "field": "deserved", "values": [1]}]}, "vary[0].resource", "names the resource"),
    ({"vary": [{"queue": "q", "field": "weight", "values": [1], "range": {"min": 1}}]}, "vary[0]", "either values"),
    ({"vary": [{"queue": "q", "field": "weight", "range": {"min": 3, "max": 1, "step": 1}}]}, "vary[0].range.max",
     "below min"),
    ({"vary": [{"queue": "q", "field": "weight", "values": [0]}]}, "vary[0].values", "1 to 65535"),
    ({"vary": [{"queue": "q", "field": "guarantee", "resource": "cpu", "values": [1, "lots"]}]}, "vary[0].values[1]",
     "not a quantity of cpu"),
    ({"goals": [{"metric": "wait_p95", "at_most": 60}]}, "goals[0].queue", "per queue"),
    ({"goals": [{"metric": "latency", "at_most": 60}]}, "goals[0].metric", "one of"),
    ({"goals": [{"metric": "started_within", "queue": "q", "within": 60, "at_least": 90}]}, "goals[0].at_least",
     "share of jobs"),
    ({"constraints": [{"sum_of": "deserved", "queues": ["a"]}]}, "constraints[0].resource", "resource"),
    ({"replay": {"period": "soon"}}, "replay.period", "must be a number"),
])
def test_spec_errors_name_the_field(change, field, words):
    with pytest.raises(InputError) as err:
        spec(**change)
    assert err.value.field == field
    assert words in err.value.message


def test_spec_errors_found_against_the_cluster():
    with pytest.raises(InputError, match="queue 'inference' is not in the cluster"):
        prepare(spec(vary=[{"queue": "inference", "field": "weight", "values": [1, 2]}]))
    with pytest.raises(InputError, match="goals\\[0\\].*production' receives no jobs"):
        prepare(spec(goals=[{"metric": "wait_p50", "queue": "production", "at_most": 60}]))


def test_cli_spec_error_is_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump({**SPEC, "search": {"strategy": "annealing"}}))
    assert main(["plan", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "search.strategy" in err and "\n" not in err


# ---- a plan end to end ----------------------------------------------------------------------------
def test_grid_plan_rows_webhook_refusal_best_and_yaml():
    s = spec()
    run = run_plan(s, InlineBackend())
    assert [r["id"] for r in run.rows] == list(range(6))
    refused = [r for r in run.rows if r["status"] == "rejected"]
    # prod-serving guaranteeing 4 GPUs under a production that guarantees 2: the webhook's own words.
    assert [(r["prod-serving.guarantee.nvidia.com/gpu"], r["production.guarantee.nvidia.com/gpu"]) for r in refused] \
        == [("4", "2")]
    assert "sum of children's guarantee" in refused[0]["error"] and refused[0]["error"].startswith("webhook:")
    ok = [r for r in run.rows if r["status"] == "ok"]
    assert all(r["jobs"] > 0 and r["wait_p95[prod-serving]"] >= r["wait_p50[prod-serving]"] for r in ok)
    chosen = best(s, run.rows)
    assert chosen is not None and chosen["prod-serving.guarantee.nvidia.com/gpu"] == "0"
    assert chosen in pareto(s, run.rows)
    docs = list(yaml.safe_load_all(queue_yaml(s, run.base, chosen)))
    serving = next(d for d in docs if d["metadata"]["name"] == "prod-serving")
    assert serving["kind"] == "Queue" and serving["spec"]["guarantee"]["resource"]["nvidia.com/gpu"] == "0"


def test_sum_of_deserved_equals_cluster_constraint():
    s = spec(vary=[{"queue": "research", "field": "deserved", "resource": "nvidia.com/gpu", "values": [12, 14]},
                   {"queue": "analytics", "field": "deserved", "resource": "nvidia.com/gpu", "values": [0, 2]}],
             constraints=[{"sum_of": "deserved", "resource": "nvidia.com/gpu",
                           "queues": ["research", "production", "analytics"], "equals": "cluster"}],
             prefer={"minimize": "evictions"})
    run = run_plan(s, InlineBackend())
    status = {(r["research.deserved.nvidia.com/gpu"], r["analytics.deserved.nvidia.com/gpu"]): r["status"]
              for r in run.rows}
    # The cluster has 20 GPUs and production deserves 6: only 12 + 2 and 14 + 0 add up.
    assert status == {("12", "0"): "rejected", ("12", "2"): "ok", ("14", "0"): "ok", ("14", "2"): "rejected"}
    assert "not the cluster's 20" in next(r["error"] for r in run.rows if r["status"] == "rejected")


def test_same_seed_same_candidates_random_and_optuna():
    for strategy in ("random", "optuna"):
        s = spec(search={"strategy": strategy, "seed": 5, "candidates": 4, "batch": 2})
        a, b = run_plan(s, InlineBackend()), run_plan(s, InlineBackend())
        assert comparable(a.rows) == comparable(b.rows)
        assert len(a.rows) == 4


# ---- results files, resume, failures ----------------------------------------------------------------
class Interrupting(InlineBackend):
    """Ctrl-C after `after` candidates have finished."""

    def __init__(self, after):
        self.after = after

    def map(self, raw, candidates):
        for row in super().map(raw, candidates):
            if self.after == 0:
                raise KeyboardInterrupt
            self.after -= 1
            yield row


@pytest.mark.parametrize("name", ["rows.csv", "rows.parquet"])
def test_resume_after_interruption_runs_only_what_is_left(tmp_path, name):
    s = spec()
    path = str(tmp_path / name)
    with pytest.raises(KeyboardInterrupt):
        run_plan(s, Interrupting(after=2), path)
    assert [r["id"] for r in read_rows(path, s.digest, [p.name for p in s.params])] == [0, 1]
    resumed = run_plan(s, InlineBackend(), path, resume=True)
    assert resumed.reused == 2
    fresh = run_plan(s, InlineBackend())
    assert comparable(resumed.rows) == comparable([{**r, "spec": s.digest} for r in fresh.rows])
    on_disk = read_rows(path, s.digest, [p.name for p in s.params])
    assert comparable(on_disk) == comparable(resumed.rows)


def test_resume_refuses_another_specs_file(tmp_path):
    path = str(tmp_path / "rows.csv")
    run_plan(spec(), InlineBackend(), path)
    other = spec(replay={"period": 30})
    with pytest.raises(InputError, match="written by another spec"):
        run_plan(other, InlineBackend(), path, resume=True)


def test_a_failing_candidate_is_recorded_then_rerun_on_resume(tmp_path, monkeypatch):
    real = evaluate_mod.run_replay

    def flaky(spec, base, cluster):
        if cluster.queues["prod-serving"].guarantee.get("nvidia.com/gpu") == 2000:
            raise RuntimeError("node lost")
        return real(spec, base, cluster)

    monkeypatch.setattr(evaluate_mod, "run_replay", flaky)
    s = spec()
    path = str(tmp_path / "rows.csv")
    run = run_plan(s, InlineBackend(), path)
    failed = [r for r in run.rows if r["status"] == "failed"]
    assert [r["id"] for r in failed] == [2, 3]
    assert failed[0]["error"].startswith("RuntimeError: node lost")
    assert {r["status"] for r in run.rows} == {"ok", "failed", "rejected"}
    assert [r["status"] for r in read_rows(path, s.digest, [])] == [r["status"] for r in run.rows]
    monkeypatch.setattr(evaluate_mod, "run_replay", real)
    again = run_plan(s, InlineBackend(), path, resume=True)
    assert again.reused == 4 and {r["status"] for r in again.rows} == {"ok", "rejected"}


# ---- backends: the same figures everywhere ------------------------------------------------------------
def test_local_processes_give_the_inline_figures():
    s = spec()
    backend = ProcessBackend(2)
    try:
        pooled = run_plan(s, backend)
    finally:
        backend.close()
    assert comparable(pooled.rows) == comparable(run_plan(s, InlineBackend()).rows)


def test_a_real_local_ray_instance_gives_the_local_figures():
    ray = pytest.importorskip("ray")
    from capacity.plan.backends import RayBackend, ray_runtime_env
    s = spec(search={"strategy": "optuna", "seed": 11, "candidates": 4, "batch": 2})
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=ray_runtime_env(local=True))
    try:
        backend = RayBackend(None)
        on_ray = run_plan(s, backend)
        backend.close()
    finally:
        ray.shutdown()
    assert comparable(on_ray.rows) == comparable(run_plan(s, InlineBackend()).rows)
    assert {r["status"] for r in on_ray.rows} <= {"ok", "rejected"}


# ---- traces, the command line ---------------------------------------------------------------------
def test_helios_trace_plan_cli_json(tmp_path, capsys):
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump({
        "cluster": {"helios": str(HELIOS), "nodes": 2},
        "vary": [{"queue": "user-001", "field": "weight", "values": [1, 4]}],
        "goals": [{"metric": "evictions", "at_most": 100}]}))
    results = tmp_path / "rows.csv"
    assert main(["plan", str(path), "--workers", "1", "--format", "json", "--results", str(results)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["counts"] == {"ok": 2, "rejected": 0, "failed": 0}
    assert out["best"]["id"] == 0 and "kind: Queue" in out["bestYaml"]
    assert len(results.read_text().splitlines()) == 3


def test_help_imports_neither_ray_nor_optuna_nor_pyarrow():
    probe = ("import sys, contextlib, io, capacity.cli\n"
             "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
             "    capacity.cli.main(['plan', '--help'])\n"
             "print(','.join(m for m in ('ray', 'optuna', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def test_the_lessons_plan_answers_its_question():
    """fixtures/lessons/14-...: the smallest guarantee that starts the whole peak at once, without evicting, is 4
    GPUs; the plan's eviction counts are the lesson's (4 with no guarantee, 2 with 2)."""
    from capacity.plan.spec import read_spec
    s = read_spec(str(ROOT / "fixtures" / "lessons" / "14-inference-guarantee-plan" / "plan.yml"))
    run = run_plan(s, InlineBackend())
    evictions = {r["inference.guarantee.nvidia.com/gpu"]: r["evictions"] for r in run.rows}
    assert evictions == {"0": 4, "1": 3, "2": 2, "3": 1, "4": 0}
    assert best(s, run.rows)["inference.guarantee.nvidia.com/gpu"] == "4"


def test_an_unreachable_ray_address_is_one_message_not_a_hang() -> None:
    """`--ray HOST:PORT` where nothing listens: refused before ray.init (which retries for minutes)."""
    import socket

    from capacity.core.errors import InputError
    from capacity.plan.backends import _reachable
    with socket.socket() as sock:  # a loopback port that was free a moment ago and is closed now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(InputError) as err:
        _reachable(f"127.0.0.1:{port}", timeout=2)
    assert "--ray" in str(err.value) and f"127.0.0.1:{port}" in str(err.value)
    with pytest.raises(InputError, match="HOST:PORT"):
        _reachable("not-an-address")
