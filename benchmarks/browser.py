"""The dashboard at S1 scale as a person meets it: `streamlit run app.py` headless on a free loopback port, driven
by Debian's Chromium through Playwright (as tests/e2e/conftest.py does). Not a test: figures, never asserts.

One journey (a fresh server each, so that its memory is one session's):

  upload        Scenario, Upload tab: the S1 dump chosen in the uploader, until the page is drawn again
  step          Simulate: "Step one cycle", until the page says "after cycle 1" and is drawn
  decisions-1   the first visit to Decisions after the step
  why-pod       Decisions: another pod chosen in "Pod to explain" (why pending)
  <Page>        every page of the navigation visited once, then each timed on a later visit (Decisions
                included)

Each timing runs from the action until Streamlit has finished the rerun it started (the browser received
the server's script_finished message: a short rerun never shows the app's "running" state, so that state is
not watched), the page shows what the step expects and the app is idle (connected, not running, no skeleton).
Beside each: the bytes the browser received over the websocket during it, and the server's memory (RSS of the
streamlit process now, and its peak: VmHWM) once it is done, and the server's garbage collections during it
(recorded in the server by gc.callbacks: app.py, CAPACITY_LAB_GC_LOG): how many were full (generation 2, mean
per journey) and their seconds, and the seconds of all of them (Streamlit runs a full collection after every
rerun: runner.postScriptGC).

Written against what stays put while the pages change: the page titles in the navigation, the uploader's
file input, the button labels "Step one cycle", the scenario caption ("after cycle 1"), the "Pod to
explain" picker. A step that cannot be found is reported as missing, the rest still measured.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
START_TIMEOUT_S = 90
#: The longest a single step may take before it is reported as timed out (S1 on a loaded machine).
STEP_TIMEOUT_MS = 180_000
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))

#: The ForwardMsg that ends a script run, and the endings that mean the page is complete (not interrupted).
_FINISHED = ("FINISHED_SUCCESSFULLY", "FINISHED_WITH_COMPILE_ERROR")
#: A script_finished message is a few bytes; bigger frames are page content and are not parsed.
_SMALL_FRAME = 512


def script_finished(payload: Any) -> bool:
    """True when a websocket frame from the server is the message that ends a complete script run.

    The rerun an action started is over when this arrives, however short it was: a run of a few ms never shows
    the app's "running" state in the page (React batches both changes), so watching that state misses it."""
    if not isinstance(payload, bytes | bytearray) or len(payload) > _SMALL_FRAME:
        return False
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    msg = ForwardMsg()
    try:
        msg.ParseFromString(bytes(payload))
    except Exception:  # noqa: BLE001 - not a ForwardMsg: not the end of a run
        return False
    if msg.WhichOneof("type") != "script_finished":
        return False
    return ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished) in _FINISHED


@dataclass
class Step:
    """One measured step of one journey."""

    name: str
    seconds: float | None = None  # None: not measured (the note says why)
    received: int = 0  # websocket bytes the browser received during it
    rss: int = 0  # server RSS after it, KiB
    peak: int = 0  # server VmHWM after it, KiB
    note: str = ""
    window: tuple[float, float] = (0.0, 0.0)  # its start and end on the monotonic clock (the server's too)
    gc_full: int = 0  # full (generation 2) collections the server ran during it
    gc_full_s: float = 0.0  # their total seconds
    gc_s: float = 0.0  # seconds of every collection during it


def read_pauses(path: str) -> list[tuple[int, float, float]]:
    """(generation, start, seconds) of each collection the server recorded (capacity.core.gcpause.record_pauses)."""
    out = []
    with contextlib.suppress(OSError), open(path, encoding="ascii") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 3:
                out.append((int(parts[0]), float(parts[1]), float(parts[2])))
    return out


def attribute_pauses(steps: list[Step], pauses: list[tuple[int, float, float]]) -> None:
    """Each collection that started within a step's window counts for that step."""
    for step in steps:
        lo, hi = step.window
        mine = [(gen, secs) for gen, start, secs in pauses if lo <= start <= hi]
        step.gc_full = sum(1 for gen, _ in mine if gen == 2)
        step.gc_full_s = sum(secs for gen, secs in mine if gen == 2)
        step.gc_s = sum(secs for _, secs in mine)


@dataclass
class Journey:
    steps: list[Step] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with _DIRECT.open(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except OSError:
        return False


def memory_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in KiB, from /proc; (0, 0) where that cannot be read."""
    found = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found[key] = int(value.split()[0])
    except OSError:
        return 0, 0
    return found.get("VmRSS", 0), found.get("VmHWM", 0)


@contextlib.contextmanager
def streamlit_server(home: str, log_path: str, gc_log: str | None = None) -> Iterator[tuple[str, int]]:
    """`streamlit run app.py` headless on a free loopback port: (url, pid) once healthy; stopped after. With
    `gc_log`, the server appends its garbage collections there (app.py, CAPACITY_LAB_GC_LOG)."""
    env = {**os.environ, "HOME": home, "PYTHONUNBUFFERED": "1"}
    if gc_log is not None:
        env["CAPACITY_LAB_GC_LOG"] = gc_log
    for _attempt in range(3):
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.address", "127.0.0.1", "--server.port", str(port), "--server.fileWatcherType", "none",
               "--browser.gatherUsageStats", "false"]
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while proc.poll() is None and time.monotonic() < deadline:
                if _healthy(url):
                    yield url, proc.pid
                    return
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(0.2)
            if proc.poll() is None:
                break
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    with open(log_path, encoding="utf-8", errors="replace") as fh:
        tail = fh.read()[-2000:]
    raise RuntimeError(f"streamlit never became healthy within {START_TIMEOUT_S} s; log tail:\n{tail}")


class Driver:
    """Times actions on one page of one server: until the rerun they start is over and `ready` holds."""

    def __init__(self, page: Any, pid: int) -> None:
        self.page = page
        self.pid = pid
        self.received = 0
        self.finished = 0  # script runs completed (script_finished messages received), over every socket
        page.on("websocket", self._watch_socket)

    def _watch_socket(self, ws: Any) -> None:
        # A click that reloads the document opens a new socket: it is watched the same way.
        def count(payload: Any) -> None:
            self.received += len(payload)
            if script_finished(payload):
                self.finished += 1
        ws.on("framereceived", count)

    def wait_finished(self, after: int, timeout: float = STEP_TIMEOUT_MS) -> None:
        """Until more than `after` script runs have finished (Playwright delivers the frames while it waits)."""
        deadline = time.monotonic() + timeout / 1000
        while self.finished <= after:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no script run finished within {timeout / 1000:.0f} s")
            self.page.wait_for_timeout(10)

    def idle(self, timeout: float = STEP_TIMEOUT_MS) -> None:
        page = self.page
        page.locator('[data-testid="stApp"][data-test-connection-state="CONNECTED"]').wait_for(timeout=timeout)
        page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=timeout)
        page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0",
                               timeout=timeout)

    def timed(self, name: str, action: Callable[[], None], ready: Callable[[], None] | None = None) -> Step:
        """Run `action`, wait for the rerun it started to end (and for `ready`), measure; never raises."""
        step = Step(name)
        try:
            self.idle()
            before, runs = self.received, self.finished
            t0 = time.perf_counter()
            m0 = time.monotonic()
            action()
            self.wait_finished(runs)
            if ready is not None:
                ready()
            self.idle()
            step.seconds = time.perf_counter() - t0
            step.window = (m0, time.monotonic())
            step.received = self.received - before
        except Exception as exc:  # noqa: BLE001 - a step the page no longer offers: reported, the rest measured
            step.note = f"not measured: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        step.rss, step.peak = memory_kib(self.pid)
        return step

    def nav(self, title: str) -> None:
        self.page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()

    def titles(self) -> list[str]:
        links = self.page.get_by_test_id("stSidebarNav").get_by_role("link")
        # Each link's text is its icon's ligature name, then its title: the title is the last line.
        return [t.strip().splitlines()[-1].strip() for t in links.all_inner_texts() if t.strip()]


def _choose_another_pod(page: Any) -> None:
    """Decisions' "Pod to explain": the second pod of the list (the first is shown already)."""
    picker = page.get_by_role("combobox", name=re.compile("Pod to explain"))
    picker.click()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")


def journey(dump: str, timeout_s: float = 900.0) -> Journey:
    """One fresh server, one browser: the steps of the module docstring."""
    import tempfile

    out = Journey()
    name = os.path.basename(dump)
    with tempfile.TemporaryDirectory() as home:
        gc_log = os.path.join(home, "gc.log")
        try:
            _drive(out, dump, name, home, gc_log)
        finally:
            attribute_pauses(out.steps, read_pauses(gc_log))
    return out


def _drive(out: Journey, dump: str, name: str, home: str, gc_log: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with streamlit_server(home, os.path.join(home, "server.log"), gc_log) as (url, pid), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.set_default_timeout(STEP_TIMEOUT_MS)
            expect.set_options(timeout=STEP_TIMEOUT_MS)
            d = Driver(page, pid)
            page.goto(url)
            d.idle()
            d.nav("Scenario")
            d.idle()
            with contextlib.suppress(Exception):
                page.get_by_role("tab", name="Upload").click()
            keyed = page.locator(".st-key-upload_cluster input[type=file]")
            upload = keyed if keyed.count() else page.locator("input[type=file]").first
            out.steps.append(d.timed("upload S1 (to a drawn page)", lambda: upload.set_input_files(dump),
                                     lambda: expect(page.get_by_text(name).first).to_be_visible()))
            d.nav("Simulate")
            d.idle()
            out.steps.append(d.timed("step one cycle", lambda: page.get_by_role(
                "button", name=re.compile("Step one cycle")).click(),
                lambda: expect(page.get_by_text(re.compile("after cycle 1")).first).to_be_visible()))
            out.steps.append(d.timed("Decisions, first visit", lambda: d.nav("Decisions")))
            out.steps.append(d.timed("why pending: choose a pod", lambda: _choose_another_pod(page)))
            titles = d.titles()
            for title in titles:  # a first visit of every page, not measured
                d.nav(title)
                d.idle()
            for title in titles:
                out.steps.append(d.timed(f"{title}, later visit", lambda title=title: d.nav(title)))
        finally:
            browser.close()


def summarise(journeys: list[Journey]) -> list[str]:
    """One line per step: median seconds over the journeys, MB received, server RSS and peak (median)."""
    lines = []
    names = [s.name for s in journeys[0].steps] if journeys else []
    for i, name in enumerate(names):
        steps = [j.steps[i] for j in journeys if i < len(j.steps) and j.steps[i].name == name]
        secs = [s.seconds for s in steps if s.seconds is not None]
        notes = sorted({s.note for s in steps if s.note})
        value = f"{statistics.median(secs):8.3f} s" if secs else "       - s"
        runs = ", ".join(f"{s:.3f}" for s in secs)
        mb = statistics.median(s.received for s in steps) / 1e6
        rss = statistics.median(s.rss for s in steps) / 1024
        peak = max(s.peak for s in steps) / 1024
        full = sum(s.gc_full for s in steps) / max(len(steps), 1)
        full_s = statistics.median(s.gc_full_s for s in steps) if steps else 0.0
        gc_s = statistics.median(s.gc_s for s in steps) if steps else 0.0
        lines.append(f"dashboard: {name:<34} {value}  received {mb:7.2f} MB  server rss {rss:6.0f} MiB, "
                     f"peak {peak:6.0f} MiB  gc: {full:.1f} full ({full_s:.2f} s), all {gc_s:.2f} s  "
                     f"runs [{runs}]{'  ' + '; '.join(notes) if notes else ''}")
    return lines
