"""In a real browser: a teacher's whole lesson (the score counts first answers), its setup opened in the workspace
behaving as in the lesson; and a lesson's variant compared with a compatibility switch on and off."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, open_page, wait_for_app_idle

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)


def test_lesson_predict_and_compare(app_page: Page, streamlit_url: str):
    page = app_page
    open_home(page, streamlit_url)

    open_page(page, "Lessons")
    expect(page.get_by_text("Checkpoint 1 of 4")).to_be_visible()
    page.get_by_test_id("stRadio").get_by_text("0.5", exact=True).click()
    wait_for_app_idle(page)
    page.get_by_role("button", name="Check my prediction").click()
    expect(page.get_by_text("Right: the engine decided")).to_be_visible()
    expect(page.get_by_text("the largest ratio, allocated / deserved, is on cpu")).to_be_visible()
    wait_for_app_idle(page)
    page.get_by_role("button", name="Open this setup in the workspace").click()
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


TIDAL = "13 · Tidal scheduling: inference takes GPUs from training, training restarts whole"
#: The tidal lesson, question by question: (a wrong first try or None, the right answer as the radio shows it).
TIDAL_ANSWERS = [
    ("none", "ai/training-low"),
    (None, "no node has room for it"),
    ("bound", "pipelined"),
    (None, "Pending"),
    (None, "ai/inference-high-7d9f-x2k4p"),
]


def _answer(page: Page, choice: str) -> None:
    page.get_by_test_id("stRadio").get_by_text(choice, exact=True).click()
    wait_for_app_idle(page)
    page.get_by_role("button", name="Check my prediction").click()


def test_a_whole_lesson_then_its_setup_in_the_workspace(app_page: Page, streamlit_url: str):
    page = app_page
    open_home(page, streamlit_url)
    open_page(page, "Lessons")
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=TIDAL).click()
    expect(page.get_by_text("Checkpoint 1 of 5")).to_be_visible()
    wait_for_app_idle(page)

    page.get_by_role("button", name="Check my prediction").click()
    expect(page.get_by_text("Choose an answer first.")).to_be_visible()
    wait_for_app_idle(page)
    for n, (wrong, right) in enumerate(TIDAL_ANSWERS, 1):
        expect(page.get_by_text(f"Checkpoint {n} of 5")).to_be_visible()
        if wrong is not None:
            _answer(page, wrong)
            expect(page.get_by_text("the engine decided")).to_be_visible()
            expect(page.get_by_test_id("stAlertContentError")).to_be_visible()
            wait_for_app_idle(page)
        _answer(page, right)
        expect(page.get_by_text("Right: the engine decided")).to_be_visible()
        expect(page.get_by_text("Why", exact=False).first).to_be_visible()
        wait_for_app_idle(page)
        if n < 5:
            page.get_by_role("button", name="Next").click()
            wait_for_app_idle(page)
    # two first answers were wrong: the second tries are shown right but not scored
    expect(page.get_by_text("Lesson done: 3 of 5 predictions right.")).to_be_visible()
    expect(page.get_by_text("score 3/5 (first answers count)")).to_be_visible()

    page.get_by_role("button", name="Open this setup in the workspace").click()
    expect(page.get_by_text("Loaded as the workspace scenario")).to_be_visible()
    wait_for_app_idle(page)
    open_page(page, "Simulate")
    for cycle in range(1, 5):
        page.get_by_role("button", name="Step one cycle").click()
        expect(page.get_by_role("heading", name=f"Cycle {cycle}")).to_be_visible()
        wait_for_app_idle(page)
        if cycle == 3:  # as in the lesson: the inference pod binds once its victim is gone
            expect(page.get_by_text("bound ai/inference-high-7d9f-x2k4p → gpu-node-1")).to_be_visible()
    # RestartJob took the whole training gang down (no worker left half running on its 4 GPUs), so the urgent
    # training job fits in cycle 4; with plain cycles worker1 kept running and nothing bound here.
    expect(page.get_by_text("bound ai/training-urgent-worker-0 → gpu-node-1")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
