"""A person's first minutes in a real browser: choose a dump (it loads at once), see what came in and where to
go next, step one cycle, and read why a pod and a job wait, on the Jobs page, as text (no table cell to open).

With SHOTS_DIR=/some/dir (never inside the repository) it also saves a 1400x1000 screenshot of every page.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, open_page, step_one_cycle, wait_for_app_idle
from tests.e2e.test_smoke import outside_requests

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)
DUMP = Path(__file__).resolve().parent / "data" / "waiting.yaml"
SHOTS_DIR = os.environ.get("SHOTS_DIR", "")
PAGES = ["Home", "Scenario", "Queues", "Simulate", "Treemaps", "Jobs", "Nodes", "Scheduler", "Decisions",
         "Compare", "Lint", "Lessons"]


#: Pages whose heading is not their name in the navigation.
def test_upload_in_one_step_step_and_read_why_it_waits(app_page: Page, streamlit_url: str):
    page = app_page
    outside = outside_requests(page)
    open_home(page, streamlit_url)

    # 1. Choosing the file is the whole upload: no second button.
    open_page(page, "Scenario")
    page.get_by_role("tab", name="Upload").click()
    page.locator(".st-key-upload_cluster input[type=file]").set_input_files(str(DUMP))
    loaded = page.locator(".st-key-scenario_loaded_box")
    expect(loaded).to_contain_text(re.compile(r"Loaded waiting\.yaml \(\d+ KB, 1 node, 1 queue, 2 jobs, 2 pods\), "
                                              r"loaded at \d\d:\d\d:\d\d"))
    expect(page.get_by_text("Loaded scenario: waiting.yaml")).to_be_visible()
    wait_for_app_idle(page)

    # 2. ... and says where to go next: Simulate.
    loaded.get_by_role("link", name="Simulate: run cycles").click()
    expect(page.get_by_role("heading", name="Simulate", level=1)).to_be_visible()
    wait_for_app_idle(page)
    step_one_cycle(page, "Scenario waiting.yaml · after cycle 1")

    # 3. Jobs: one readable line per waiting job and pod, with the engine's sentence.
    open_page(page, "Jobs")
    why = page.locator(".st-key-jobs_why")
    pod_line = why.get_by_test_id("stText").filter(has_text="Pod work/wide-1")
    expect(pod_line).to_contain_text("pending because queue team would exceed its deserved on cpu")
    expect(pod_line).to_contain_text("cpu 3 + 3 = 6 > 4 (2 over)")
    job_line = why.get_by_test_id("stText").filter(has_text="Job work/urgent")
    expect(job_line).to_contain_text("enqueue did not admit it")
    expect(job_line).to_contain_text("minResources 20 > idle 4800m")
    for line in (pod_line, job_line):  # the whole sentence is on screen, not cut off in a cell
        box = line.bounding_box()
        assert box is not None and box["width"] > 300
        assert line.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the line is cut off"
    expect(page.get_by_test_id("stException")).to_have_count(0)

    if SHOTS_DIR:
        shots = Path(SHOTS_DIR)
        shots.mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 1400, "height": 1000})
        for title in PAGES:
            open_page(page, title)
            page.screenshot(path=str(shots / f"dash-load-{title.lower()}.png"))
        # The side-by-side bars on a scenario with many queues: the built-in default after one cycle.
        open_page(page, "Scenario")
        page.get_by_role("button", name="Load scenario", exact=True).click()
        expect(page.get_by_text("Loaded scenario: default")).to_be_visible()
        wait_for_app_idle(page)
        open_page(page, "Simulate")
        step_one_cycle(page, "Scenario default · after cycle 1")
        open_page(page, "Queues")
        page.get_by_role("heading", name="Deserved, allocated and guarantee side by side").evaluate(
            "e => e.scrollIntoView({block: 'start'})")
        wait_for_app_idle(page)
        page.screenshot(path=str(shots / "dash-load-queues-bars-default.png"))
    assert outside == [], "the page must not need the internet"


def test_a_direct_link_on_a_fresh_server_has_the_app_navigation(app_page: Page, fresh_streamlit_url: str):
    page = app_page
    page.goto(f"{fresh_streamlit_url}/queues")
    expect(page.get_by_role("heading", name="Queues", level=1)).to_be_visible()
    wait_for_app_idle(page)
    nav = page.get_by_test_id("stSidebarNav")
    expect(nav.get_by_role("link", name="Simulate", exact=True)).to_be_visible()
    # Streamlit's legacy pages/ sidebar (lowercase file names and "app") must not show.
    expect(nav.get_by_role("link", name="app", exact=True)).to_have_count(0)
    expect(nav.get_by_role("link", name="queues", exact=True)).to_have_count(0)
    expect(page).to_have_title(re.compile("Capacity Lab"))
