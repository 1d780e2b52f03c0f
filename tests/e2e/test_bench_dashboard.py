"""`bench --only dashboard` in a real browser, on a tiny dump: every step of the journey is found and measured
(the bench reads the pages by their titles, the uploader and button labels), with bytes received and the
server's memory. Timings are printed by the bench, never asserted here."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import browser

pytestmark = pytest.mark.e2e
DUMP = Path(__file__).resolve().parent / "data" / "waiting.yaml"


def test_every_step_of_the_dashboard_journey_is_measured() -> None:
    journey = browser.journey(str(DUMP))
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
