"""The explain corpus (issue 27): scenarios modelled on real Volcano reports, each with the facts its answer
must state.

Every folder here holds a `cluster.yaml` (a kubectl-style dump with its scheduler ConfigMap) and a
`facts.yaml`:

* ``source``: the report it is modelled on (a URL) or ``synthetic``; ``gap``: the gaps of issue 27 it covers;
  ``complaint``: the user's words.
* ``command``: the arguments after ``python -m capacity`` (``cluster.yaml`` stands for the scenario's file).
* ``expect``: the decision, checked like the acceptance corpus (binds, evicted, pipelined, podgroupPhases)
  on a plain ``simulate`` of as many cycles as the command runs; ``exit`` is the command's exit status
  (0 when absent).
* ``facts``: what the answer (stdout and stderr together) must contain: a plain string, or ``re: <regex>``.
* ``absent``: what it must not contain, in the same two forms; ``max_lines``: the answer's length limit.

The facts were decided from Volcano's semantics (the comments in each facts.yaml cite the code), not copied
from the tool's output: a failing fact is a gap of the answer, not of the fact.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from capacity import cli
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate
from tests.acceptance.compare import differences

HERE = Path(__file__).resolve().parent
SCENARIOS = sorted(p.name for p in HERE.iterdir() if (p / "facts.yaml").is_file())
GAPS = range(1, 9)
REQUIRED_KEYS = {"source", "gap", "complaint", "command", "expect", "facts"}

# Kinds of trace records: the engine's vocabulary, not the user's (gap 5).
INTERNAL_NAMES = ["tentativeEvict", "reclaimableVote", "reclaimableResult", "victimsInsufficient",
                  "notPreemptive", "notAllocatable", "preemptableVote", "skipJob", "jobEnqueueable ->",
                  "re: (?m)^\\s+(capacity|proportion|gang|conformance|drf)\\.[a-z]\\w+: "]
# Rule ids (`[capacity.realCapability]`) printed to a person: kept apart, as programs may want them in JSON.
RULE_IDS = ["re: \\[(capacity|proportion|allocate|backfill|gang|drf|reclaim|preempt|enqueue|overcommit|none)"
            "\\.?\\w*\\]"]


def spec(name: str) -> dict[str, Any]:
    return yaml.safe_load((HERE / name / "facts.yaml").read_text())


def argv(name: str) -> list[str]:
    """The scenario's command with `cluster.yaml` pointing at the scenario's own file."""
    path = str(HERE / name / "cluster.yaml")
    return [path if a == "cluster.yaml" else a for a in shlex.split(spec(name)["command"])]


def cycles(args: list[str]) -> int:
    return int(args[args.index("--cycles") + 1]) if "--cycles" in args else 1


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + ("\n" + self.err if self.err else "")


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> Run:
    capsys.readouterr()
    code = cli.main(args)
    out, err = capsys.readouterr()
    return Run(code, out, err)


def matches(pattern: str, text: str) -> bool:
    if pattern.startswith("re: "):
        return re.search(pattern[4:], text) is not None
    return pattern in text


def missing_facts(name: str, text: str) -> list[str]:
    return [f for f in spec(name).get("facts") or [] if not matches(str(f), text)]


def present_absents(name: str, text: str) -> list[str]:
    return [f for f in spec(name).get("absent") or [] if matches(str(f), text)]


def test_corpus_size_and_shape() -> None:
    assert len(SCENARIOS) >= 20
    for name in SCENARIOS:
        s = spec(name)
        assert set(s) >= REQUIRED_KEYS, f"{name}: facts.yaml lacks {REQUIRED_KEYS - set(s)}"
        assert s["source"] == "synthetic" or s["source"].startswith("https://"), name
        assert set(s["gap"]) <= set(GAPS), name
        assert s["facts"], f"{name}: no facts"
        assert "cluster.yaml" in shlex.split(s["command"]), name


@pytest.mark.parametrize("gap", GAPS)
def test_every_gap_is_covered_twice(gap: int) -> None:
    covering = [n for n in SCENARIOS if gap in spec(n)["gap"]]
    assert len(covering) >= 2, f"gap {gap}: only {covering}"


@pytest.mark.parametrize("name", [n for n in SCENARIOS if set(spec(n)["expect"]) - {"exit"}])
def test_decision(name: str) -> None:
    """The engine's decision is the one the scenario was built for (it is faithful on decisions); lint
    scenarios state no decision."""
    expect = {k: v for k, v in spec(name)["expect"].items() if k != "exit"}
    cluster = load_cluster_file(str(HERE / name / "cluster.yaml"))
    out = simulate(cluster, cycles(argv(name))).as_json()
    assert differences(expect, out) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_command_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = run_cli(argv(name), capsys)
    assert r.code == spec(name)["expect"].get("exit", 0), r.err
    assert "Traceback" not in r.text


@pytest.mark.parametrize("name", SCENARIOS)
def test_facts(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = run_cli(argv(name), capsys)
    missing = missing_facts(name, r.text)
    assert not missing, f"the answer does not state {missing}\n--- answer ---\n{r.text}"


@pytest.mark.parametrize("name", SCENARIOS)
def test_absent(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = run_cli(argv(name), capsys)
    present = present_absents(name, r.text)
    assert not present, f"the answer states {present}\n--- answer ---\n{r.text}"


@pytest.mark.parametrize("name", [n for n in SCENARIOS if spec(n).get("max_lines")])
def test_answer_length(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = run_cli(argv(name), capsys)
    lines = r.out.strip().splitlines()
    assert len(lines) <= spec(name)["max_lines"], f"{len(lines)} lines\n{r.out}"


@pytest.mark.parametrize("name", [n for n in SCENARIOS if spec(n)["command"].startswith("explain")])
def test_no_internal_names(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An answer speaks the user's words: no trace-record kinds or plugin.rule ids (gap 5)."""
    r = run_cli(argv(name), capsys)
    present = [f for f in INTERNAL_NAMES if matches(f, r.text)]
    assert not present, f"internal names {present}\n--- answer ---\n{r.text}"


@pytest.mark.parametrize("name", [n for n in SCENARIOS if spec(n)["command"].startswith("explain")])
def test_no_rule_ids_in_text(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The text answer does not print plugin.rule ids such as `[allocate.nodeFit]` (gap 5)."""
    r = run_cli(argv(name), capsys)
    present = [m.group(0) for f in RULE_IDS for m in re.finditer(f[4:], r.text)]
    assert not present, f"rule ids {sorted(set(present))}\n--- answer ---\n{r.text}"


@pytest.mark.parametrize("name", [n for n in SCENARIOS if spec(n)["command"].startswith("explain")])
def test_json_answer_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The same question as JSON for programs: it parses and names the subject."""
    import json
    args = [*argv(name), "--format", "json"]
    r = run_cli(args, capsys)
    assert r.code == 0, r.err
    json.loads(r.out)
