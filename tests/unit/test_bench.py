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


def test_every_figure_has_its_peak_memory_beside_it(data_dir, capsys):
    code, lines = _bench(capsys, "--data", data_dir, "--only", "steady", "--runs", "1")
    assert code == 0
    steady = next(line for line in lines if line.startswith("steady cycle (S1"))
    assert re.search(r" peak \d+ MiB ", steady)


def test_process_figures_name_the_whole_processes_and_the_floor(data_dir, capsys):
    """Issue 33: --help, the engine's first import, simulate from YAML and from JSON against the parse floor
    measured in the same run, each with the child's peak memory."""
    code, lines = _bench(capsys, "--data", data_dir, "--only", "process", "--runs", "1")
    assert code == 0
    figures = {line[:34].strip(): line for line in lines[1:]}
    assert list(figures) == ["--help, whole process", "engine first import, whole process",
                             "S1 parse floor (C loader alone)", "S1 simulate YAML, whole process",
                             "S1 simulate JSON, whole process", "simulate YAML / parse floor",
                             "simulate JSON / parse floor", "S1 simulate JSON, less the cycle",
                             "S1 simulate YAML, phases (cpu)", "S1 simulate JSON, phases (cpu)"]
    assert "<= 0.3 s" in figures["--help, whole process"]
    assert "<= 0.3 s" in figures["engine first import, whole process"]
    assert "<= 1.5x" in figures["simulate YAML / parse floor"]
    assert "<= 1 s" in figures["S1 simulate JSON, less the cycle"]  # "at most 1.0 s for S1 plus the cycle"
    assert all(re.search(r" peak \d+ MiB ", figures[name]) for name in list(figures)[:8])
    assert re.search(r"imports \d\.\d{3}, parse \d\.\d{3}, objects \d\.\d{3}, cycle \d\.\d{3}, output \d\.\d{3}$",
                     figures["S1 simulate YAML, phases (cpu)"])


def test_the_dashboard_lines_say_what_each_step_cost(capsys):
    """benchmarks/browser.py's summary (the browser itself runs in tests/e2e/test_bench_dashboard.py)."""
    from benchmarks.browser import Journey, Step, summarise
    runs = [Journey([Step("upload S1 (to a drawn page)", 2.0, 3_000_000, 400_000, 500_000),
                     Step("Home, later visit", None, 0, 400_000, 500_000, "not measured: TimeoutError: x")]),
            Journey([Step("upload S1 (to a drawn page)", 4.0, 1_000_000, 300_000, 700_000),
                     Step("Home, later visit", 1.0, 10, 300_000, 700_000)])]
    upload, home = summarise(runs)
    assert upload.startswith("dashboard: upload S1 (to a drawn page)")
    assert "3.000 s" in upload and "received    2.00 MB" in upload  # medians of the two journeys
    assert "server rss    342 MiB, peak    684 MiB" in upload  # peak: the highest
    assert "runs [2.000, 4.000]" in upload
    assert "1.000 s" in home and "not measured: TimeoutError" in home


def test_without_a_browser_the_dashboard_figure_says_why(data_dir, capsys, monkeypatch):
    from benchmarks import browser
    monkeypatch.setattr(browser, "CHROMIUM", "/nonexistent/chromium")
    code, lines = _bench(capsys, "--data", data_dir, "--only", "dashboard", "--runs", "1")
    assert code == 0
    assert lines[1] == "dashboard: not available: no chromium at /nonexistent/chromium (apt-get install -y chromium)"


def test_the_dashboard_lines_count_the_servers_full_collections_per_step(tmp_path):
    """Each collection the server recorded (capacity.core.gcpause.record_pauses) counts for the step it began in."""
    from benchmarks.browser import Journey, Step, attribute_pauses, read_pauses, summarise
    log = tmp_path / "gc.log"
    log.write_text("2 10.5 0.400000 0\n0 10.6 0.010000 0\n2 20.5 0.050000 0\n2 99.0 1.000000 0\n", encoding="ascii")
    steps = [Step("step one cycle", 1.0, window=(10.0, 11.0)), Step("Home, later visit", 0.5, window=(20.0, 21.0))]
    attribute_pauses(steps, read_pauses(str(log)))
    assert (steps[0].gc_full, steps[0].gc_full_s, steps[1].gc_full) == (1, 0.4, 1)
    step_line, home_line = summarise([Journey(steps)])
    assert "gc: 1.0 full (0.40 s), all 0.41 s" in step_line and "gc: 1.0 full (0.05 s)" in home_line
