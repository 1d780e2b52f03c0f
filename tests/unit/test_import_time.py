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
    assert _heavy_after("import capacity.k8s, capacity.sim, capacity.scheduler") == ""
