"""A person's editing journey in a real browser: add a leaf queue with a capability, submit a job into it,
step a cycle, see the job's pod bound, see a treemap tile for the new queue, open the reason for a pending
pod. On failure, conftest's `app_page` saves a screenshot in tests/e2e/artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.pages import open_home, open_page, step_one_cycle, wait_for_app_idle

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)
QUEUES_IN_DEFAULT = 11


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


def add_queue(page: Page, name: str, parent: str, quantities: dict[str, str]) -> None:
    """Fill Queues' "Add queue" form (quantities by their field's label) and submit it."""
    add = form_with(page, "Add queue")
    add.get_by_label("New queue name").fill(name)
    choose(page, add, "Parent", parent)
    for label, value in quantities.items():
        add.get_by_label(label, exact=True).fill(value)
    add.get_by_role("button", name="Add queue").click()


def tile_ids(page: Page) -> list[str]:
    """The ids of the treemap tiles Plotly really drew (each g.slice carries its datum)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot g.slice'))
        .map(g => g.__data__ && g.__data__.data && g.__data__.data.data ? g.__data__.data.data.id : null)""")


def test_add_queue_submit_job_step_treemap_and_why(app_page: Page, streamlit_url: str):
    page = app_page
    open_home(page, streamlit_url)

    # 1. A leaf queue under research with a capability.
    open_page(page, "Queues")
    add_queue(page, "team-new", "research", {"capability cpu": "4", "capability memory": "8Gi"})
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
    bind = page.get_by_test_id("stText").filter(has_text="default/hello-0")
    expect(bind).to_contain_text("bound default/hello-0")
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


def grid_rows(grid: Locator) -> list[dict[str, str]]:
    """A st.dataframe's rows as {column: text}, read from the data grid's accessibility table (the canvas
    itself has no text)."""
    expect(grid.locator("table tr").nth(1)).to_be_attached()
    table = grid.evaluate("""e => Array.from(e.querySelectorAll('table tr'))
        .map(tr => Array.from(tr.children).map(c => c.textContent.trim()))""")
    header, *rows = table
    return [dict(zip(header, row, strict=False)) for row in rows]


def test_add_a_leaf_with_the_suggested_fix_rewind_past_it_and_undo(app_page: Page, fresh_streamlit_url: str):
    """Issue 32, editing and time: a refused leaf gets its fix in one click; a rewind past the edit asks first
    and names it; undo brings it back."""
    page = app_page
    open_home(page, fresh_streamlit_url)

    # 1. One cycle first, so the edit lands between cycles 1 and 2.
    open_page(page, "Simulate")
    step_one_cycle(page, "Scenario default · after cycle 1")

    # 2. A leaf whose deserved pushes research's children above research: refused, with the fix in numbers.
    open_page(page, "Queues")
    add_queue(page, "team-new", "research", {"deserved cpu": "4", "guarantee cpu": "2"})
    expect(page.get_by_text("Suggested fix: siblings' deserved would add up to cpu 68 > research's cpu 64: "
                            "lower research-train's deserved to cpu 36, or raise research's deserved to cpu 68."))\
        .to_be_visible()
    wait_for_app_idle(page)
    expect(page.get_by_text("The button raises research's deserved to cpu 68, then makes your edit again.",
                            exact=False)).to_be_visible()
    page.get_by_role("button", name="Raise the parent's deserved and retry").click()
    expect(page.get_by_text("Raised research's deserved to cpu 68. Added queue team-new.")).to_be_visible()
    wait_for_app_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)

    # 3. Its deserved, allocated and guarantee in the per-resource table.
    choose(page, page.get_by_test_id("stMain"), "Queue", "team-new")
    expect(page.get_by_text("team-new · parent research", exact=False)).to_be_visible()
    wait_for_app_idle(page)
    grid = page.get_by_test_id("stDataFrame").last
    deserved_col = grid_rows(grid) and list(grid_rows(grid)[0]).index("deserved")
    # the grid redraws after the choice: wait for the new queue's cpu row, then read it
    expect(grid.locator("table tr").nth(1).locator("td").nth(deserved_col)).to_have_text("4")
    numbers = grid_rows(grid)
    cpu = next(r for r in numbers if r.get("resource") == "cpu")
    assert (cpu["deserved"], cpu["allocated"], cpu["guarantee"]) == ("4", "0", "2"), numbers

    # 4. Step again, then rewind to before cycle 1: the page names the edit it would undo and asks.
    open_page(page, "Simulate")
    step_one_cycle(page, "Scenario default · after cycle 2")
    choose(page, page.get_by_test_id("stMain"), "Rewind to after cycle", "the start (before cycle 1)")
    page.get_by_role("button", name="Rewind", exact=True).click()
    expect(page.get_by_text("Rewinding to the start also undoes 1 edit(s) made later.", exact=False))\
        .to_be_visible()
    wait_for_app_idle(page)
    page.get_by_role("button", name="Rewind and undo these edits").click()
    expect(page.get_by_text("Scenario default · before the first cycle")).to_be_visible()
    expect(page.get_by_text("Undo rewind to the start")).to_be_visible()
    wait_for_app_idle(page)

    # 5. Undo: the cycles and the edit are back.
    page.get_by_role("button", name="Undo").click()
    expect(page.get_by_text("Undone.")).to_be_visible()
    expect(page.get_by_text("Undo rewind to the start.")).to_be_visible()
    expect(page.get_by_text("Scenario default · after cycle 2")).to_be_visible()
    wait_for_app_idle(page)
    open_page(page, "Queues")
    expect(page.get_by_text("team-new", exact=True).first).to_be_attached()
    expect(page.get_by_test_id("stException")).to_have_count(0)
