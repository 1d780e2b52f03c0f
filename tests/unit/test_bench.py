"""`python -m capacity bench` on the tiny trace CSVs: which figures it prints and how it names them.

Timings are never asserted (DESIGN.md): these tests read the figure lines, not their values."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from benchmarks import suite

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def data_dir(tmp_path: Path) -> str:
    """The bench's --data layout (the traces' own folder names) over the tiny CSVs."""
    os.symlink(DATA / "openb", tmp_path / suite.OPENB)
    os.symlink(DATA / "helios", tmp_path / suite.HELIOS)
    return str(tmp_path)


def test_the_header_names_the_interpreter_and_the_machines_speed(data_dir, capsys):
    code, lines = _bench(capsys, "--data", data_dir, "--only", "steady", "--runs", "1")
    assert code == 0
    assert re.match(r"Capacity Lab bench: .*probe \d+\.\d{3} s, Python 3\.\d+\.\d+ \(", lines[0])


def _bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    code = suite.main(list(argv))
    out = capsys.readouterr()
    return code, (out.out + out.err).splitlines()


def test_steady_is_the_simulators_cycle_and_the_cold_one_a_reference(data_dir, capsys):
    code, lines = _bench(capsys, "--data", data_dir, "--only", "steady,steady-cold", "--runs", "1")
    assert code == 0
    steady = next(line for line in lines if line.startswith("steady cycle (S1, everything running)"))
    assert "<= 50 ms" in steady and "the simulator's cache" in steady
    assert re.search(r"probe \d+\.\d{3}->\d+\.\d{3} s", steady)  # the machine's speed around the figure
    cold = next(line for line in lines if line.startswith("steady cycle, no cache (reference)"))
    assert " ref " in cold and "<=" not in cold and "every object rebuilt" in cold


def test_the_old_name_of_the_cached_figure_still_prints_it(data_dir, capsys):
    code, lines = _bench(capsys, "--data", data_dir, "--only", "steady-cached", "--runs", "1")
    assert code == 0
    assert [line for line in lines if line.startswith("steady cycle")][0].startswith(
        "steady cycle (S1, everything running)")


def test_an_unknown_figure_is_refused_by_name(data_dir, capsys):
    code, lines = _bench(capsys, "--data", data_dir, "--only", "s1,steady-hot")
    assert code == 2
    assert any("unknown figure(s) steady-hot" in line for line in lines)
