"""Hostile and odd input, round two (issue 26): the command line's half.

`corpus_round2/cli/` holds one file per input; `CORPUS` says what `simulate` (and `explain`, which loads the
same way) and `replay cluster` must do with it, and what `lint` exits with:

* ``("ok", "")``: exit 0; ``("warning", needle)``: exit 0 and a ``warning: `` line on stderr starting with
  the needle; ``("error", needle)``: exit 2 and exactly one line, ``error: <obj>: <field>: <message>``,
  starting with the needle. Never a traceback; never a raw control character on stdout or stderr.

The replay annotations (`capacity-lab/arrival`, `duration`, `policies`, `max-retry`) are read by `replay`
only, so `simulate` runs those dumps as they are. Besides the corpus: numeric options of `replay` blame the
option, unwritable output paths are refused before the run (or reported after the result), Ctrl-C keeps the
cycles done, a closed pipe ends quietly, and lint stays linear and short on long parent chains.
"""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from capacity import cli
from capacity.analysis import lint
from capacity.simulation.sim import Simulator

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = Path(__file__).resolve().parent / "corpus_round2" / "cli"
FIRST_CORPUS = Path(__file__).resolve().parent / "corpus"

OK = ("ok", "")
ARRIVAL = "PodGroup/ns/j1: metadata.annotations.capacity-lab/arrival: "
DURATION = "Pod/ns/p1: metadata.annotations.capacity-lab/duration: "
POLICIES = "PodGroup/ns/j1: metadata.annotations.capacity-lab/policies"
RETRY = "PodGroup/ns/j1: metadata.annotations.capacity-lab/max-retry: "
CONF_WARNING = "ConfigMap/volcano-scheduler-configmap: data.volcano-scheduler.conf: actions[1]: unknown action "

#: file -> (simulate and explain, replay cluster, lint's exit status)
CORPUS: dict[str, tuple[tuple[str, str], tuple[str, str], int]] = {
    # replay annotations: wrong type or absurd size, each named by object and field
    "arrival-negative.yaml": (OK, ("error", ARRIVAL + "must be a number of seconds from 0 to 1e+10, got '-5'"), 0),
    "arrival-1e400.yaml": (OK, ("error", ARRIVAL + "must be a number of seconds from 0 to 1e+10, got '1e400'"), 0),
    "arrival-1e308.yaml": (OK, ("error", ARRIVAL + "must be a number of seconds from 0 to 1e+10, got '1e308'"), 0),
    "arrival-400-digits.yaml": (OK, ("error", ARRIVAL + "must be a number of seconds from 0 to 1e+10, got '9999"), 0),
    "arrival-nan.yaml": (OK, ("error", ARRIVAL + "must be a number of seconds from 0 to 1e+10, got 'nan'"), 0),
    "arrival-list.yaml": (("error", ARRIVAL + "must be a string, got a list"),
                          ("error", ARRIVAL + "must be a string, got a list"), 2),
    "duration-negative.yaml": (OK, ("error", DURATION + "must be a number of seconds from 0 to 1e+10, got '-1'"), 0),
    "duration-400-digits.yaml": (OK, ("error", DURATION + "must be a number of seconds from 0 to 1e+10"), 0),
    "duration-infinite.yaml": (OK, ("error", DURATION + "must be a number of seconds from 0 to 1e+10, got 'inf'"), 0),
    "duration-mapping.yaml": (("error", DURATION + "must be a string, got a mapping"),
                              ("error", DURATION + "must be a string, got a mapping"), 2),
    "policies-not-json.yaml": (OK, ("error", POLICIES + ": is not JSON"), 0),
    "policies-not-a-list.yaml": (OK, ("error", POLICIES + ": must be a JSON list"), 0),
    "policies-event-a-list.yaml": (OK, ("error", POLICIES + "[0].event: unknown event"), 0),
    "policies-events-a-string.yaml": (OK, ("error", POLICIES + "[0].events: must be a list of event names"), 0),
    "policies-action-a-number.yaml": (OK, ("error", POLICIES + "[0].action: unknown action '7'"), 0),
    "policies-nested-deep.yaml": (OK, ("error", POLICIES + ": is JSON nested too deeply to read"), 0),
    "max-retry-negative.yaml": (OK, ("error", RETRY + "must be an integer from 0 to 2147483647, got '-3'"), 0),
    "max-retry-400-digits.yaml": (OK, ("error", RETRY + "must be an integer from 0 to 2147483647, got '8888"), 0),
    # names that would drive the terminal: accepted, shown escaped
    "name-escape-node.yaml": (OK, OK, 0),
    "name-newline-pod.yaml": (OK, OK, 0),
    "name-bidi-queue.yaml": (OK, OK, 0),
    "name-osc-title-podgroup.yaml": (OK, OK, 0),
    "name-10000-characters.yaml": (OK, OK, 0),
    "error-name-escape.yaml": (("error", "Node/n\\x1b[2K\\r\\x1b[32mall good: metadata.name: duplicate"),
                               ("error", "Node/n\\x1b[2K\\r\\x1b[32mall good: metadata.name: duplicate"), 2),
    "warning-parent-newline.yaml": (("warning", "Queue/team-a: spec.parent: parent queue 'ghost\\nerror: none'"),
                                    ("warning", "Queue/team-a: spec.parent: parent queue 'ghost\\nerror: none'"), 0),
    "conf-action-escape.yaml": (("warning", CONF_WARNING + "'\\x1b[31mallocate'"),
                                ("warning", CONF_WARNING + "'\\x1b[31mallocate'"), 1),
    # trees: refused by simulate, reported (shortened) by lint
    "queue-chain-300.yaml": (("error", "Queue/q100: spec.parent: the queue is 101 levels below the root"),
                             ("error", "Queue/q100: spec.parent: the queue is 101 levels below the root"), 1),
    "queue-cycle-200.yaml": (("error", "Queue/c000: spec.parent: queue parents form a cycle"),
                             ("error", "Queue/c000: spec.parent: queue parents form a cycle"), 1),
    "queue-weights-invalid-300.yaml": (OK, OK, 1),
}

#: What a terminal acts on: C0 controls but newline and tab, DEL, C1 controls, bidi and line separators.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def expect(outcome: tuple[str, str], code: int, out: str, err: str) -> None:
    kind, needle = outcome
    assert "Traceback" not in err
    assert not RAW_CONTROL.search(out) and not RAW_CONTROL.search(err), "a raw control character reached the terminal"
    if kind == "error":
        lines = err.splitlines()
        assert code == 2, err
        assert out == ""
        assert len(lines) == 1, f"expected one message, got:\n{err}"
        assert lines[0].startswith(f"error: {needle}"), lines[0]
        obj, field, *_ = lines[0].removeprefix("error: ").split(": ")
        assert obj and field, "names neither object nor field"
    else:
        assert code == 0, err
        assert all(line.startswith("warning: ") for line in err.splitlines()), err
        if kind == "warning":
            assert any(line.startswith(f"warning: {needle}") for line in err.splitlines()), err


def test_corpus_and_table_agree() -> None:
    assert sorted(p.name for p in CORPUS_DIR.iterdir()) == sorted(CORPUS)
    assert len(CORPUS) >= 25


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_simulate(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    expect(CORPUS[name][0], *run_cli(capsys, "simulate", str(CORPUS_DIR / name)))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_explain(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """explain loads like simulate but prints no load warnings."""
    outcome = CORPUS[name][0]
    pod = "ns/p1\nbinds (0):" if name == "name-newline-pod.yaml" else "ns/p1"
    if name in ("queue-weights-invalid-300.yaml", "conf-action-escape.yaml", "warning-parent-newline.yaml"):  # no pods
        outcome = ("error", "Pod/ns/p1: no such pod in the cluster")
    code, out, err = run_cli(capsys, "explain", str(CORPUS_DIR / name), "--pod", pod)
    expect(OK if outcome[0] == "warning" else outcome, code, out, err)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_replay_cluster(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    expect(CORPUS[name][1], *run_cli(capsys, "replay", "cluster", str(CORPUS_DIR / name)))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_lint(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "lint", str(CORPUS_DIR / name))
    assert code == CORPUS[name][2], out + err
    if code == 2:
        expect(CORPUS[name][0], code, out, err)
    assert "Traceback" not in err and not RAW_CONTROL.search(out + err)
    assert len(out) < 20_000, "lint's text output is capped"


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_real_cli_never_tracebacks(name: str) -> None:
    """`python -m capacity replay cluster FILE` in a process of its own, within 30 s."""
    proc = subprocess.run([sys.executable, "-m", "capacity", "replay", "cluster", str(CORPUS_DIR / name)],
                          capture_output=True, text=True, cwd=ROOT, timeout=30, check=False)
    expect(CORPUS[name][1], proc.returncode, proc.stdout, proc.stderr)


# ---- names with terminal controls, in every text output -------------------------------------------

ESCAPED = {"name-escape-node.yaml": "node-1\\x1b[2K\\rall good", "name-newline-pod.yaml": "p1\\nbinds (0):",
           "name-bidi-queue.yaml": "team\\u202ea", "name-osc-title-podgroup.yaml": "j1\\x1b]0;pwned\\x07"}


@pytest.mark.parametrize("name", sorted(ESCAPED))
@pytest.mark.parametrize("command", [("simulate",), ("replay", "cluster"), ("lint",), ("explain",)])
def test_names_are_shown_escaped(name: str, command: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    path = str(CORPUS_DIR / name)
    argv = [*command, path]
    if command == ("explain",):
        argv += ["--pod", "ns/p1\nbinds (0):" if "newline" in name else "ns/p1"]
    code, out, err = run_cli(capsys, *argv)
    assert code in (0, 1), err
    assert not RAW_CONTROL.search(out) and not RAW_CONTROL.search(err)
    if command == ("simulate",):  # (the one output that names pods, nodes, PodGroups and queues alike)
        assert ESCAPED[name] in out


def test_json_output_escapes_control_characters(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "simulate", str(CORPUS_DIR / "name-escape-node.yaml"), "--format", "json")
    assert code == 0
    assert "node-1\\u001b[2K\\rall good" in out and not RAW_CONTROL.search(out)


# ---- replay's numeric options name themselves -------------------------------------------------------

HELIOS = ROOT.parent.parent / "shared" / "data" / "helios-dirlab-15k"


@pytest.mark.parametrize(("argv", "needle"), [
    (["--nodes", "-3"], "--nodes: must be from 1 to 100,000 nodes, got -3"),
    (["--nodes", "0"], "--nodes: must be from 1 to 100,000 nodes, got 0"),
    (["--nodes", "9" * 400], "--nodes: must be from 1 to 100,000 nodes, got 999999999999... (400 digits)"),
    (["--jobs", "-1"], "--jobs: must be from 0 to 100,000 jobs"),
    (["--jobs", "9" * 400], "--jobs: must be from 0 to 100,000 jobs"),
    (["--rate", "0"], "--rate: must be a number of arrivals per second"),
    (["--rate", "inf"], "--rate: must be a number of arrivals per second"),
    (["--rate", "nan"], "--rate: must be a number of arrivals per second"),
    (["--period", "-1"], "--period: must be a number of seconds from 0.001"),
    (["--period", "1e400"], "--period: must be a number of seconds from 0.001"),
    (["--period", "nan"], "--period: must be a number of seconds from 0.001"),
    (["--until", "nan"], "--until: must be a number of seconds from 0"),
    (["--until", "-5"], "--until: must be a number of seconds from 0"),
    (["--max-cycles", "0"], "--max-cycles: must be at least 1"),
    (["--limit", "-1"], "--limit: must be 0 or more"),
])
def test_replay_synthetic_options_blame_the_option(argv: list[str], needle: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "replay", "synthetic", *argv)
    assert (code, out) == (2, ""), err
    assert err == f"error: {needle}" + err.removeprefix(f"error: {needle}") and len(err.splitlines()) == 1, err


def test_replay_helios_policy_blames_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "replay", "helios", str(HELIOS), "--policy", "Bogus")
    assert code == 2 and err.startswith("error: --policy: unknown action 'Bogus'"), err


# ---- output files ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("argv", "needle"), [
    (["simulate", "fixtures/default.yaml", "--trace", "{tmp}/no/such/folder/t.jsonl"], "--trace: {tmp}/no/such"),
    (["simulate", "fixtures/default.yaml", "--trace", "{tmp}"], "--trace: {tmp}: is a folder"),
    (["replay", "synthetic", "--csv", "{tmp}/no/q.csv"], "--csv: {tmp}/no/q.csv: cannot be written"),
    (["replay", "synthetic", "--cycles-csv", "{tmp}/file.txt/c.csv"], "--cycles-csv: {tmp}/file.txt/c.csv: "
     "cannot be written: the folder {tmp}/file.txt is a file"),
])
def test_unwritable_output_is_refused_before_the_run(argv: list[str], needle: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    (tmp_path / "file.txt").write_text("x")
    ran: list[Any] = []
    monkeypatch.setattr(Simulator, "run_to_end", lambda *a, **k: ran.append(a))
    code, out, err = run_cli(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert (code, out, ran) == (2, "", []), err
    assert err.startswith(f"error: {needle.format(tmp=tmp_path)}") and len(err.splitlines()) == 1, err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a file every write to fails)")
@pytest.mark.parametrize("argv", [["simulate", "fixtures/default.yaml", "--trace", "/dev/full"],
                                  ["replay", "synthetic", "--jobs", "5", "--cycles-csv", "/dev/full"]])
def test_a_failed_write_keeps_the_result(argv: list[str], capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out.startswith(("binds (", "replay synthetic")), "the result is printed all the same"
    assert err.splitlines()[-1].startswith(f"error: {argv[-2]}: /dev/full: cannot be written: "), err


# ---- Ctrl-C and closed pipes ------------------------------------------------------------------------

def test_ctrl_c_in_a_replay_prints_the_cycles_done_and_writes_their_csv(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    execute = Simulator._execute
    calls = []

    def execute_then_ctrl_c(self: Simulator, k: int) -> Any:
        calls.append(k)
        if len(calls) == 3:
            signal.raise_signal(signal.SIGINT)  # what the terminal sends, in the middle of the third cycle
        return execute(self, k)

    monkeypatch.setattr(Simulator, "_execute", execute_then_ctrl_c)
    handler_before = signal.getsignal(signal.SIGINT)  # (a background shell starts tests with SIGINT ignored)
    out_csv = tmp_path / "cycles.csv"
    code, out, err = run_cli(capsys, "replay", "synthetic", "--jobs", "50", "--every-cycle",
                             "--cycles-csv", str(out_csv))
    assert code == 130
    assert "cycles: 3 (3 run, 0 skipped" in out
    assert err.startswith("interrupted (Ctrl-C) after cycle 3") and "Traceback" not in err
    with out_csv.open() as fh:
        assert [row["cycle"] for row in csv.DictReader(fh)] == ["1", "2", "3"]
    assert signal.getsignal(signal.SIGINT) is handler_before, "Ctrl-C is given back"


def test_output_piped_into_head_ends_quietly() -> None:
    """`python -m capacity lint ... --format json | head -1`: the reader goes away, no BrokenPipeError."""
    proc = subprocess.Popen([sys.executable, "-m", "capacity", "lint", str(CORPUS_DIR / "queue-chain-300.yaml"),
                             "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"{\n"
    proc.stdout.close()  # (100 kB of JSON: far more than the pipe holds, so the writer meets the closed pipe)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=30) == 141
    assert err == ""


def test_a_broken_pipe_in_process_returns_141(monkeypatch: pytest.MonkeyPatch) -> None:
    class ClosedPipe:
        def write(self, s: str) -> int:
            raise BrokenPipeError

        def flush(self) -> None:
            raise BrokenPipeError

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert cli.main(["lint", str(FIRST_CORPUS / "queue-cycle.yaml")]) == 141


# ---- lint on long parent chains ------------------------------------------------------------------------

def chain_objects(n: int) -> list[dict[str, Any]]:
    conf = ('actions: "enqueue, allocate"\ntiers:\n- plugins: [{name: gang}, {name: capacity, enableHierarchy: '
            'true}]\n')
    objs: list[dict[str, Any]] = [
        {"kind": "ConfigMap", "metadata": {"name": "volcano-scheduler-configmap"},
         "data": {"volcano-scheduler.conf": conf}},
        {"kind": "Queue", "metadata": {"name": "root"}, "spec": {}}]
    objs += [{"kind": "Queue", "metadata": {"name": f"q{i:05d}"}, "spec": {"parent": f"q{i - 1:05d}" if i else "root"}}
             for i in range(n)]
    return objs


def test_lint_text_on_a_5000_queue_chain_is_short() -> None:
    found = lint.lint_objects(chain_objects(5000))
    assert sum(f.rule == "queue-too-deep" for f in found) == 4995
    deepest = next(f for f in found if f.obj == "Queue/q04999")
    assert deepest.message == ("the queue is 5000 levels below root (q00000 -> q00001 -> q00002 -> q00003 -> ... "
                               "(4,992 more) -> q04996 -> q04997 -> q04998 -> q04999); the limit is 5")
    text = lint.render_text(found)
    assert len(text.splitlines()) < 100 and len(text) < 20_000
    assert "  ... and 4,975 more [queue-too-deep] (--format json lists every finding)" in text
    assert text.endswith("summary: 4995 error(s), 0 warning(s), 0 info")


class CountingDict(dict):  # type: ignore[type-arg]
    """A queue table that counts its lookups: the work lint does on the tree."""

    lookups = 0

    def __getitem__(self, key: Any) -> Any:
        CountingDict.lookups += 1
        return super().__getitem__(key)


def lookups_to_lint(n: int) -> int:
    cluster = lint._load_tolerating_tree_errors(chain_objects(n), "chain", None)
    cluster.queues = CountingDict(cluster.queues)
    CountingDict.lookups = 0
    lint.lint(cluster)
    return CountingDict.lookups


def test_lint_work_is_linear_in_the_depth_of_a_chain() -> None:
    """Twice the queues, about twice the lookups (it was cubic: a 10,000 chain ran past 10 minutes)."""
    small, big = lookups_to_lint(1000), lookups_to_lint(2000)
    assert big < 2.2 * small


def test_lint_reads_at_most_the_input_limit(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAPACITY_MAX_INPUT_MB", "1")
    code, out, err = run_cli(capsys, "lint", "/dev/zero")
    assert (code, out) == (2, "")
    assert err.startswith("error: /dev/zero: is more than 1.0 MB, larger than the 1.0 MB input limit"), err


def test_ctrl_c_in_simulate_is_one_line_and_130(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr("capacity.scheduler.simulate", interrupted)  # (imported by run())
    code, out, err = run_cli(capsys, "simulate", str(ROOT / "fixtures" / "default.yaml"))
    assert (code, out, err) == (130, "", "interrupted\n")


@pytest.mark.parametrize("option", ["--runs", "--replay-runs"])
def test_bench_run_counts_must_be_positive(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "bench", "--only", "lint", option, "0")
    assert (code, out, err) == (2, "", f"error: {option}: must be at least 1, got 0\n")
