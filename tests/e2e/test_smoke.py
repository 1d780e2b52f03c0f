"""Smoke tests in a real browser: the dashboard loads, navigates, and a direct link works."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, wait_for_app_idle

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)


def outside_requests(page: Page) -> list[str]:
    """Collect every request the page sends anywhere but loopback (telemetry, icon fonts, ...)."""
    seen: list[str] = []

    def record(request) -> None:
        host = urlsplit(request.url).hostname
        if request.url.startswith(("http:", "https:", "ws:", "wss:")) and host != "127.0.0.1":
            seen.append(request.url)

    page.on("request", record)
    return seen


def test_home_page_shows_title(app_page: Page, streamlit_url: str):
    page = app_page
    outside = outside_requests(page)
    page.goto(streamlit_url)
    expect(page.get_by_role("heading", name="Capacity Lab", level=1)).to_be_visible()
    expect(page.get_by_text("Every number on these pages comes from the engine")).to_be_visible()
    wait_for_app_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert outside == [], "the page must not need the internet"


def test_sidebar_link_opens_scenario_page(app_page: Page, streamlit_url: str):
    page = app_page
    open_home(page, streamlit_url)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Scenario").click()
    expect(page.get_by_role("heading", name="Scenario", level=1)).to_be_visible()
    expect(page.get_by_text("Loaded scenario: default")).to_be_visible()
    expect(page).to_have_url(f"{streamlit_url}/scenario")


def test_direct_link_on_a_fresh_server(app_page: Page, fresh_streamlit_url: str):
    # The first visit of a new server goes straight to a page, not to the home page.
    page = app_page
    page.goto(f"{fresh_streamlit_url}/scenario")
    expect(page.get_by_role("heading", name="Scenario", level=1)).to_be_visible()
    expect(page.get_by_text("Loaded scenario: default")).to_be_visible()
    wait_for_app_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)
