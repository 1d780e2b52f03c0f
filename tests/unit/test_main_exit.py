"""`python -m capacity` ends without the interpreter's teardown (issue 33): everything written still arrives
whole, the exit status is the command's, and exit handlers still run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "capacity", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)


def test_the_output_and_the_trace_file_arrive_whole(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    proc = _run("simulate", "fixtures/default.yaml", "--format", "json", "--trace", str(trace))
    assert proc.returncode == 0, proc.stderr
    assert "binds" in json.loads(proc.stdout)
    lines = trace.read_text(encoding="utf-8").splitlines()
    assert lines and all(json.loads(line) for line in lines)


def test_an_input_error_keeps_its_status_and_message(tmp_path: Path) -> None:
    proc = _run("simulate", str(tmp_path / "missing.yaml"))
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "cannot be read" in proc.stderr


def test_exit_handlers_still_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = (f"import atexit, pathlib, runpy, sys; atexit.register(pathlib.Path({str(marker)!r}).touch); "
            "sys.argv = ['capacity', 'simulate', 'fixtures/default.yaml']; "
            "runpy.run_module('capacity', run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert "binds" in proc.stdout and marker.exists()
