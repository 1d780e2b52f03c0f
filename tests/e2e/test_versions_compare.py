"""In a real browser: load a dump, choose v1.13 and HEAD on Compare, and see the decision that differs with the
Volcano change behind it named (PR #4659, in Volcano from v1.14.0)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, open_page, wait_for_app_idle
from tests.e2e.test_editing_journey import choose

pytestmark = pytest.mark.e2e
expect.set_options(timeout=30_000)
DUMP = Path(__file__).resolve().parent / "data" / "versions-reclaim.yaml"


def test_compare_v113_with_head_names_the_change(app_page: Page, streamlit_url: str):
    page = app_page
    open_home(page, streamlit_url)

    open_page(page, "Scenario")
    page.get_by_role("tab", name="Upload").click()
    page.locator(".st-key-upload_cluster input[type=file]").set_input_files(str(DUMP))
    expect(page.get_by_text("Loaded scenario: versions-reclaim.yaml")).to_be_visible()
    wait_for_app_idle(page)

    open_page(page, "Compare")
    columns = page.get_by_test_id("stColumn")
    choose(page, columns.nth(0), "Volcano version", "v1.13")
    wait_for_app_idle(page)
    choose(page, columns.nth(1), "Volcano version", "HEAD")
    wait_for_app_idle(page)
    page.get_by_role("button", name="Compare").click()
    wait_for_app_idle(page)

    differs = page.locator(".st-key-cmp_release_diff_0")
    expect(differs).to_contain_text("pod ns1/p18: not evicted on v1.13, evicted on HEAD")
    expect(differs).to_contain_text("because of PR #4659 (pr4659), in Volcano from v1.14.0")
    expect(differs).to_contain_text("capacity required every requested dimension of allocated + request within "
                                    "deserved")
    expect(page.get_by_test_id("stException")).to_have_count(0)
