"""What every browser journey does the same way: wait for the app, open it, open a page, step a cycle."""

from __future__ import annotations

from playwright.sync_api import Page, expect

expect.set_options(timeout=20_000)
#: Pages whose heading is not their name in the navigation.
HEADINGS = {"Home": "Capacity Lab"}


def wait_for_app_idle(page: Page) -> None:
    """Connected, script finished, no placeholders left (Streamlit's own e2e readiness checks)."""
    page.locator('[data-testid="stApp"][data-test-connection-state="CONNECTED"]').wait_for()
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0)


def open_home(page: Page, url: str) -> None:
    """Load the dashboard at `url` and wait until Home is drawn."""
    page.goto(url)
    expect(page.get_by_role("heading", name="Capacity Lab", level=1)).to_be_visible()
    wait_for_app_idle(page)


def open_page(page: Page, title: str) -> None:
    """Click `title` in the sidebar and wait until that page is drawn."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=HEADINGS.get(title, title), level=1)).to_be_visible()
    wait_for_app_idle(page)


def step_one_cycle(page: Page, caption: str) -> None:
    """On Simulate: step one cycle and wait for the page's caption `caption` ("Scenario x · after cycle n")."""
    page.get_by_role("button", name="Step one cycle").click()
    expect(page.get_by_text(caption)).to_be_visible()
    wait_for_app_idle(page)
