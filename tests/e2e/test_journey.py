"""A person's journey in a real browser on the default scenario: step a cycle, see the bind, look at a
treemap (tiles really drawn, also when Plotly needs the 'remainder' fallback) and at a decision reason."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, open_page, wait_for_app_idle

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)
QUEUES_IN_DEFAULT = 11


def test_step_a_cycle_see_the_bind_the_treemap_and_why(app_page: Page, streamlit_url: str):
    page = app_page
    open_home(page, streamlit_url)

    open_page(page, "Simulate")
    expect(page.get_by_text("No cycle has run yet")).to_be_visible()
    page.get_by_role("button", name="Step one cycle").click()
    bind = page.get_by_test_id("stText").filter(has_text="research/eval-bert-0")
    expect(bind).to_contain_text("gpu-3")  # the new text first, then idle
    wait_for_app_idle(page)
    expect(page.get_by_text("Scenario default · after cycle 1")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)

    open_page(page, "Treemaps")
    tiles = page.locator(".js-plotly-plot g.slice")
    expect(tiles).to_have_count(QUEUES_IN_DEFAULT)
    page.get_by_test_id("stRadio").first.get_by_text("capability", exact=True).click()
    expect(page.get_by_text("branchvalues='remainder'")).to_be_visible()
    wait_for_app_idle(page)
    expect(tiles).to_have_count(QUEUES_IN_DEFAULT)  # children above their parent: still drawn

    open_page(page, "Decisions")
    expect(page.get_by_role("heading", name="Why is this pod pending or evicted?")).to_be_visible()
    expect(page.get_by_text("enqueueRealCapability").first).to_be_visible()
