"""`bench --only dashboard` in a real browser, on a tiny dump: every step of the journey is found and measured
(the bench reads the pages by their titles, the uploader and button labels), with bytes received and the
server's memory. Timings are printed by the bench, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import browser

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
DUMP = Path(__file__).resolve().parent / "data" / "waiting.yaml"
# The bench drives Playwright's sync API; run it in its own process, as `python -m capacity bench` does, so
# it never shares an event loop with the browser fixtures of the other e2e tests.
CHILD = ("import json, sys\nfrom dataclasses import asdict\nfrom benchmarks import browser\n"
         "j = browser.journey(sys.argv[1])\nprint(json.dumps([asdict(s) for s in j.steps]))")


def _journey() -> browser.Journey:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(DUMP)], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    steps = [browser.Step(**s) for s in json.loads(proc.stdout.strip().splitlines()[-1])]
    return browser.Journey(steps=steps)


def test_every_step_of_the_dashboard_journey_is_measured() -> None:
    journey = _journey()
    names = [s.name for s in journey.steps]
    assert names[:4] == ["upload S1 (to a drawn page)", "step one cycle", "Decisions, first visit",
                         "why pending: choose a pod"]
    later = [n.removesuffix(", later visit") for n in names[4:]]
    assert {"Home", "Scenario", "Simulate", "Decisions"} <= set(later)
    missed = [f"{s.name}: {s.note}" for s in journey.steps if s.seconds is None]
    assert missed == []
    assert all(s.rss > 0 and s.peak >= s.rss for s in journey.steps)
    assert journey.steps[1].received > 0  # the step's page came over the websocket
    lines = browser.summarise([journey])
    assert len(lines) == len(names) and all("server rss" in line for line in lines)
