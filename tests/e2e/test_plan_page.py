"""In a real browser: a 6-candidate plan on the default scenario, its plots drawn, and the best candidate applied
to the workspace (the queue's guarantee changes)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, open_page, wait_for_app_idle

pytestmark = pytest.mark.e2e
expect.set_options(timeout=60_000)  # six replays on a loaded 2-core machine


def test_run_a_plan_see_the_plot_apply_the_best(app_page: Page, streamlit_url: str):
    page = app_page
    open_home(page, streamlit_url)

    open_page(page, "Plan")
    expect(page.get_by_text("press Run plan", exact=False)).to_be_visible()
    page.get_by_role("button", name="Run plan").click()
    expect(page.get_by_role("heading", name="Results")).to_be_visible()
    wait_for_app_idle(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Candidates")).to_contain_text("6")
    plots = page.locator(".js-plotly-plot")
    expect(plots).to_have_count(2)
    expect(plots.first).to_contain_text("Wait time vs the varied setting")
    expect(plots.first.locator("g.trace.scatter")).not_to_have_count(0)  # lines really drawn
    expect(plots.last).to_contain_text("Pareto front")

    now = page.get_by_test_id("stText").filter(has_text=re.compile(r"^prod-serving\.guarantee"))
    expect(now).to_contain_text("prod-serving.guarantee.nvidia.com/gpu = 2")
    expect(page.get_by_test_id("stText").filter(has_text="Best: candidate #0")).to_be_visible()
    page.get_by_role("button", name="Apply to the workspace").click()
    expect(page.get_by_text("Applied to the workspace.")).to_be_visible()
    wait_for_app_idle(page)
    expect(now).to_contain_text("prod-serving.guarantee.nvidia.com/gpu = 0")
    expect(page.get_by_test_id("stException")).to_have_count(0)
