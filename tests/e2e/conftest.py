"""Real-browser fixtures: `streamlit run` on a free loopback port, driven by Debian's Chromium.

Where the browser tests cannot run (no chromium, no playwright) they are skipped with the reason,
except in CI (CI=true or E2E_REQUIRED=1), where that is a failure. On a failed test the page's
screenshot goes to tests/e2e/artifacts/ (gitignored), next to the server logs.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# One copy of the server probes and of Chromium's flags (as root it needs --no-sandbox; the rest keep a closed
# network quiet), shared with the bench and scripts/screenshots.py.
from benchmarks.browser import CHROMIUM_ARGS, _free_port, _healthy

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
E2E_REQUIRED = os.environ.get("E2E_REQUIRED") == "1" or os.environ.get("CI", "").lower() in {"1", "true"}
SERVER_START_TIMEOUT_S = 60


def require(ok: bool, why: str) -> None:
    """Skip (on a laptop) or fail (in CI) when the browser tests cannot run."""
    if ok:
        return
    if E2E_REQUIRED:
        pytest.fail(f"browser tests are required here (CI) but cannot run: {why}", pytrace=False)
    pytest.skip(why, allow_module_level=True)


try:
    import pytest_playwright  # noqa: F401  (without the plugin there is no `page` fixture)
except ImportError:
    require(False, "pytest-playwright is not installed (pip install -r requirements-dev.txt)")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Overrides pytest-playwright's: use Debian's chromium, never a downloaded browser build."""
    require(os.access(CHROMIUM, os.X_OK), f"no chromium at {CHROMIUM} (apt-get install -y chromium)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 900}}


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()  # SIGTERM: Streamlit stops cleanly in 1-3 s
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def streamlit_server(name: str, home: Path) -> Iterator[str]:
    """Start `streamlit run app.py` headless on a free loopback port; yield its URL once healthy.

    The probed port can be taken before Streamlit binds it (Streamlit then exits 1), so try 3 times.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / f"server-{name}.log"
    # A private HOME: no user config or credentials file, never an e-mail prompt.
    env = {**os.environ, "HOME": str(home), "PYTHONUNBUFFERED": "1"}
    for _attempt in range(3):
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        cmd = [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.headless", "true",
            "--server.address", "127.0.0.1",
            "--server.port", str(port),
            "--server.fileWatcherType", "none",
            "--browser.gatherUsageStats", "false",
        ]  # fmt: skip
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        try:
            deadline = time.monotonic() + SERVER_START_TIMEOUT_S
            while proc.poll() is None and time.monotonic() < deadline:
                if _healthy(url):
                    yield url
                    return
                # Readiness poll that wakes at once if the server exits (e.g. the port was taken).
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(0.1)
            if proc.poll() is None:
                break  # alive but never healthy: retrying would not help
        finally:
            _stop(proc)
    pytest.fail(
        f"streamlit never became healthy within {SERVER_START_TIMEOUT_S} s or exited; "
        f"log tail ({log_path}):\n{log_path.read_text()[-3000:]}"
    )


@pytest.fixture(scope="session")
def streamlit_url(tmp_path_factory) -> Iterator[str]:
    """One server for the whole session; each test still gets a fresh browser context (session)."""
    with streamlit_server("session", tmp_path_factory.mktemp("home")) as url:
        yield url


@pytest.fixture
def fresh_streamlit_url(tmp_path_factory) -> Iterator[str]:
    """A server that no browser has visited yet (for direct-link tests on a fresh server)."""
    with streamlit_server("fresh", tmp_path_factory.mktemp("home")) as url:
        yield url


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def app_page(page, request):
    """pytest-playwright's fresh page, with a screenshot in tests/e2e/artifacts/ when the test fails."""
    page.set_default_timeout(20_000)
    yield page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name) + ".png")
        try:
            page.screenshot(path=str(path), full_page=True)
        except Exception as exc:  # best effort: a crashed page must not hide the test's own failure
            print(f"could not save failure screenshot {path}: {exc}")
        else:
            print(f"failure screenshot: {path}")
