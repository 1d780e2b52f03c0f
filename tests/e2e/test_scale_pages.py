"""In Chromium at "a few hundred queues, a few thousand pods" (generated in the test: the openb S1 tree of 221
queues, 2,000 single-pod jobs on 150 nodes): every page stays a few screens tall unless the user asks for more,
and the browser receives at most a few MB for each page. Long lists are paged or summarised on the server
(issue 33); a decision's reasons are readable below the Decisions table without opening a cell (issue 32)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, open_page, step_one_cycle, wait_for_app_idle
from tests.scale_dump import scale_yaml

pytestmark = pytest.mark.e2e
expect.set_options(timeout=120_000)  # a loaded 2-core machine: the first cycle of 2,000 pods takes seconds
PAGES = ["Scenario", "Queues", "Simulate", "Treemaps", "Jobs", "Nodes", "Scheduler", "Compare", "Lint", "Decisions"]
#: "A few screens": the test's viewport is 900 px tall.
MAX_SCREENS = 8
MAX_BYTES = 3_000_000


class Received:
    """Bytes the page's websocket received since the last `reset` (Streamlit sends every element through it)."""

    def __init__(self, page: Page) -> None:
        self.bytes = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: str | bytes) -> None:
        self.bytes += len(payload)

    def reset(self) -> None:
        self.bytes = 0


def _height(page: Page) -> int:
    return int(page.get_by_test_id("stMain").evaluate("e => e.scrollHeight"))


def test_every_page_stays_paged_at_scale(app_page: Page, streamlit_url: str, tmp_path):
    page = app_page
    dump = tmp_path / "scale.yaml"
    dump.write_text(scale_yaml(nodes=150, pods=2000), encoding="utf-8")
    received = Received(page)
    open_home(page, streamlit_url)

    open_page(page, "Scenario")
    page.get_by_role("tab", name="Upload").click()
    page.locator(".st-key-upload_cluster input[type=file]").set_input_files(str(dump))
    expect(page.locator(".st-key-scenario_loaded_box")).to_contain_text("221 queues, 2000 jobs, 2000 pods")
    wait_for_app_idle(page)

    open_page(page, "Simulate")
    received.reset()
    step_one_cycle(page, "Scenario scale.yaml · after cycle 1")
    # 1,200 binds: counted per queue, not listed one by one
    expect(page.get_by_text(re.compile(r"1,200 binds in \d+ queues"))).to_be_visible()
    assert received.bytes < MAX_BYTES and _height(page) < MAX_SCREENS * 900

    sizes = {}
    for title in PAGES:
        received.reset()
        open_page(page, title)
        sizes[title] = (_height(page), received.bytes)
        expect(page.get_by_test_id("stException")).to_have_count(0)
    too_tall = {t: h for t, (h, _) in sizes.items() if h > MAX_SCREENS * 900}
    too_big = {t: b for t, (_, b) in sizes.items() if b > MAX_BYTES}
    assert not too_tall and not too_big, f"pages too tall (px) {too_tall}, too large (bytes) {too_big}; all: {sizes}"

    # Decisions (opened last): the record below the table is readable whole, reasons one per line.
    detail = page.locator(".st-key-decisions_detail")
    expect(detail).to_be_visible()
    for line in detail.get_by_test_id("stText").all():
        assert line.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "a reason is cut off"
    expect(page.get_by_text("records of cycle 1 · one page at a time", exact=False)).to_be_visible()

    # Lint: 242 findings (one per queue about a resource no node has, and two more), one page of them, and a
    # search box that narrows them on the server.
    open_page(page, "Lint")
    expect(page.get_by_text("findings 1-50 of 242 (page 1 of 5)")).to_be_visible()
    search = page.get_by_label("Object, field, rule or problem contains")
    search.fill("victim-tier-order")
    search.press("Enter")
    expect(page.get_by_text("2 findings", exact=True)).to_be_visible()
    wait_for_app_idle(page)

    # Compare: both sides' treemaps draw two levels of the 221 queues (a click opens the rest), and the page with
    # both outcomes stays a few screens tall.
    open_page(page, "Compare")
    received.reset()
    page.locator(".st-key-compare_btn button").click()
    expect(page.get_by_text(re.compile(r"^221 queues: 2 levels drawn at a time"))).to_have_count(2)
    wait_for_app_idle(page)
    charts = page.locator(".js-plotly-plot")
    expect(charts).to_have_count(2)
    for i in range(2):  # Plotly keeps a g.slice for every queue; those below maxdepth get no outline
        tiles = charts.nth(i).evaluate("e => Array.from(e.querySelectorAll('g.slice > path'))"
                                       ".filter(p => p.getAttribute('d')).length")
        # drawn, and at most the root and its 20 departments (a department with nothing allocated has no tile)
        assert 0 < tiles <= 21, f"treemap {i}: {tiles} tiles drawn"
    assert _height(page) < MAX_SCREENS * 900 and received.bytes < MAX_BYTES, (_height(page), received.bytes)
