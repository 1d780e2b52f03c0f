"""Screenshots of every dashboard page at 1400x1000, on the built-in default scenario.

    python scripts/screenshots.py [DIR] [--pages Home,Decisions]     # DIR defaults to docs/screenshots/

Starts `streamlit run app.py` headless on a free loopback port (a private HOME, as tests/e2e/conftest.py
does), drives Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) with Playwright, steps one cycle on
Simulate so the pages have decisions to show, and saves `<page>.png` per page (lowercase). Decisions is
taken with a pending pod selected (the page lists pending pods first). Exit status 0 when every page was
saved; 1 with one line saying why otherwise (no chromium, the server never became healthy, a page failed).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as `python scripts/screenshots.py`: the repository's packages too
from benchmarks.browser import CHROMIUM_ARGS, _free_port, _healthy  # noqa: E402 - one copy of the server probes

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
PAGES = ["Home", "Scenario", "Queues", "Simulate", "Treemaps", "Jobs", "Nodes", "Scheduler", "Decisions",
         "Compare", "Lint", "Lessons", "Plan"]
HEADINGS = {"Home": "Capacity Lab"}  # pages whose heading is not their name in the navigation
VIEWPORT = {"width": 1400, "height": 1000}
START_TIMEOUT_S = 90
TIMEOUT_MS = 60_000


class ShotError(Exception):
    """Why the screenshots could not be taken, in one line."""


@contextlib.contextmanager
def server(home: Path) -> Iterator[str]:
    """`streamlit run app.py` headless on a free loopback port; yields its URL once healthy, stops it after."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--server.fileWatcherType", "none",
           "--browser.gatherUsageStats", "false"]
    env = {**os.environ, "HOME": str(home), "PYTHONUNBUFFERED": "1"}
    log = (home / "server.log").open("w")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _healthy(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise ShotError(f"streamlit did not start (log: {home / 'server.log'})")
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(0.2)  # wakes at once if the server exits
        yield url
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


def _idle(page) -> None:
    """Connected, script finished, no placeholders left (the e2e tests' readiness check)."""
    page.locator('[data-testid="stApp"][data-test-connection-state="CONNECTED"]').wait_for()
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()
    page.get_by_test_id("stSkeleton").first.wait_for(state="detached")


def _open(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    page.get_by_role("heading", name=HEADINGS.get(title, title), level=1).wait_for()
    _idle(page)


def take(out: Path, pages: list[str]) -> list[Path]:
    """Save a screenshot of each of `pages` into `out`; the paths written."""
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import expect, sync_playwright
    except ImportError as err:
        raise ShotError("playwright is not installed (pip install -r requirements-dev.txt)") from err
    if not os.access(CHROMIUM, os.X_OK):
        raise ShotError(f"no chromium at {CHROMIUM} (apt-get install -y chromium)")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="capacity-shots-") as home, server(Path(home)) as url, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(url)
            page.get_by_role("heading", name="Capacity Lab", level=1).wait_for()
            _idle(page)
            # One cycle of the default scenario, so Simulate, Jobs and Decisions have something to show.
            _open(page, "Simulate")
            page.get_by_role("button", name="Step one cycle").click()
            page.get_by_text("after cycle 1").first.wait_for()
            _idle(page)
            for title in pages:
                _open(page, title)
                if title == "Decisions":  # pending pods come first: the default choice is one
                    picker = page.get_by_role("combobox", name="Pod to explain", exact=True)
                    expect(picker).to_have_value(re.compile(r"\(pending\)$"))
                    page.locator(".st-key-why_answer").wait_for()
                    _idle(page)
                path = out / f"{title.lower()}.png"
                page.screenshot(path=str(path))
                written.append(path)
        except PlaywrightError as err:
            raise ShotError(f"after {len(written)} page(s): {str(err).splitlines()[0]}") from err
        finally:
            browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "docs" / "screenshots"), help="directory for the PNGs")
    parser.add_argument("--pages", default=",".join(PAGES), help=f"comma-separated, of: {', '.join(PAGES)}")
    args = parser.parse_args(argv)
    pages = [p.strip() for p in args.pages.split(",") if p.strip()]
    unknown = [p for p in pages if p not in PAGES]
    if unknown:
        print(f"screenshots: unknown page(s) {', '.join(unknown)}; known: {', '.join(PAGES)}", file=sys.stderr)
        return 2
    try:
        written = take(Path(args.out), pages)
    except ShotError as err:
        print(f"screenshots: {err}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
