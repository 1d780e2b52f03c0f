"""In a real browser: open a lesson from the sidebar, predict, see the engine's reason; then compare a
compatibility switch on and off and see both treemaps drawn."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_journey import open_page
from tests.e2e.test_smoke import wait_for_app_idle

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)


def test_lesson_predict_and_compare(app_page: Page, streamlit_url: str):
    page = app_page
    page.goto(streamlit_url)
    expect(page.get_by_role("heading", name="Capacity Lab", level=1)).to_be_visible()
    wait_for_app_idle(page)

    open_page(page, "Lessons")
    expect(page.get_by_text("Checkpoint 1 of 4")).to_be_visible()
    page.get_by_test_id("stRadio").get_by_text("0.5", exact=True).click()
    wait_for_app_idle(page)
    page.get_by_role("button", name="Check my prediction").click()
    expect(page.get_by_text("Right: the engine decided")).to_be_visible()
    expect(page.get_by_text("the dominant dimension is cpu")).to_be_visible()
    wait_for_app_idle(page)
    page.get_by_role("button", name="Open this variant in the workspace").click()
    expect(page.get_by_text("Loaded as the workspace scenario")).to_be_visible()
    wait_for_app_idle(page)

    open_page(page, "Compare")
    page.get_by_test_id("stCheckbox").filter(has_text="seed004_root_init").last.click()
    wait_for_app_idle(page)
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_text("Queue shares")).to_be_visible()
    wait_for_app_idle(page)
    expect(page.locator(".js-plotly-plot")).to_have_count(2)
    for plot in (page.locator(".js-plotly-plot").first, page.locator(".js-plotly-plot").last):
        expect(plot.locator("g.slice")).not_to_have_count(0)  # tiles really drawn on both sides
    expect(page.get_by_test_id("stException")).to_have_count(0)

    open_page(page, "Lint")
    expect(page.get_by_text("Errors", exact=True)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
