"""`python -m capacity --help` and the engine's first import stay light: the heavy libraries (numba's
compiler, pandas, plotly) are imported only by the commands and pages that draw or compile with them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
HEAVY = ("numba", "pandas", "plotly")

_PROBE = """
import sys
{body}
print(",".join(m for m in {heavy!r} if m in sys.modules))
"""


def _heavy_after(body: str) -> str:
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(body=body, heavy=HEAVY)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=True)
    return proc.stdout.strip()


def test_cli_help_imports_no_heavy_library() -> None:
    body = ("import capacity.cli, contextlib, io\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "    capacity.cli.main(['--help'])")
    assert _heavy_after(body) == ""


def test_engine_import_imports_no_heavy_library() -> None:
    assert _heavy_after("import capacity.io.k8s, capacity.simulation.sim, capacity.scheduler") == ""


def test_cli_help_imports_neither_the_engine_nor_numpy_nor_yaml() -> None:
    """`--help` builds every subcommand's parser: none of them may pull the engine in (about 0.25 s of imports
    on the 2-core machine of issue 33, where --help took 0.3 s)."""
    body = ("import capacity.cli, contextlib, io\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
            "    capacity.cli.main(['--help'])")
    engine = ("numpy", "yaml", "capacity.scheduler", "capacity.framework.session", "capacity.io.k8s",
              "capacity.analysis.answer")
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(body=body, heavy=engine)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=True)
    assert proc.stdout.strip() == ""
