"""A person's editing journey in a real browser: add a leaf queue with a capability, submit a job into it,
step a cycle, see the job's pod bound, see a treemap tile for the new queue, open the reason for a pending
pod. On failure, conftest's `app_page` saves a screenshot in tests/e2e/artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.test_smoke import wait_for_app_idle

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)
QUEUES_IN_DEFAULT = 11


def open_page(page: Page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
    wait_for_app_idle(page)


def form_with(page: Page, button: str) -> Locator:
    """The st.form whose submit button is called `button`."""
    return page.get_by_test_id("stForm").filter(has=page.get_by_role("button", name=button))


def choose(page: Page, scope: Locator, label: str, option: str) -> None:
    """Pick `option` in the selectbox labelled `label` inside `scope`."""
    box = scope.get_by_role("combobox", name=label, exact=True)
    box.scroll_into_view_if_needed()
    box.click()
    # Typing filters the options and opens the list even when the click only focused the box. While the list
    # is open the rest of the page is hidden from the accessibility tree, so only `page` finds the option.
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).click()
    expect(box).to_have_value(option)


def tile_ids(page: Page) -> list[str]:
    """The ids of the treemap tiles Plotly really drew (each g.slice carries its datum)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot g.slice'))
        .map(g => g.__data__ && g.__data__.data && g.__data__.data.data ? g.__data__.data.data.id : null)""")


def test_add_queue_submit_job_step_treemap_and_why(app_page: Page, streamlit_url: str):
    page = app_page
    page.goto(streamlit_url)
    expect(page.get_by_role("heading", name="Capacity Lab", level=1)).to_be_visible()
    wait_for_app_idle(page)

    # 1. A leaf queue under research with a capability.
    open_page(page, "Queues")
    add = form_with(page, "Add queue")
    add.get_by_label("New queue name").fill("team-new")
    choose(page, add, "Parent", "research")
    add.get_by_label("capability cpu", exact=True).fill("4")
    add.get_by_label("capability memory", exact=True).fill("8Gi")
    add.get_by_role("button", name="Add queue").click()
    expect(page.get_by_text("Added queue team-new.")).to_be_visible()
    wait_for_app_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)

    # 2. A job into it.
    open_page(page, "Jobs")
    job = form_with(page, "Submit job")
    job.get_by_label("Job name").fill("hello")
    choose(page, job, "Queue", "team-new")
    job.get_by_label("cpu per pod").fill("1")
    job.get_by_role("button", name="Submit job").click()
    expect(page.get_by_text("Submitted job default/hello (1 pod) to queue team-new.")).to_be_visible()
    wait_for_app_idle(page)

    # 3. Step a cycle: the job's pod is bound.
    open_page(page, "Simulate")
    page.get_by_role("button", name="Step one cycle").click()
    bind = page.locator("li").filter(has_text="default/hello-0")
    expect(bind).to_contain_text("bound")
    wait_for_app_idle(page)
    expect(page.get_by_text("Scenario default · after cycle 1")).to_be_visible()

    # 4. The treemap draws a tile for the new queue.
    open_page(page, "Treemaps")
    page.get_by_test_id("stRadio").first.get_by_text("allocated", exact=True).click()
    expect(page.get_by_text("allocated · cpu")).to_be_visible()
    wait_for_app_idle(page)
    expect(page.locator(".js-plotly-plot g.slice").first).to_be_visible()
    page.wait_for_function("() => Array.from(document.querySelectorAll('.js-plotly-plot g.slice'))"
                           ".some(g => g.__data__ && g.__data__.data && g.__data__.data.data"
                           " && g.__data__.data.data.id === 'team-new')")
    assert "team-new" in tile_ids(page)

    # 5. The reason for a pending pod, in one click.
    open_page(page, "Decisions")
    expect(page.get_by_role("heading", name="Why is this pod pending or evicted?")).to_be_visible()
    choose(page, page.get_by_test_id("stMain"), "Pod to explain", "analytics/adhoc-query-0 (pending)")
    answer = page.locator(".st-key-why_answer")
    expect(answer).to_contain_text("pending")
    expect(answer).to_contain_text("capacity.enqueueRealCapability")
    wait_for_app_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)
