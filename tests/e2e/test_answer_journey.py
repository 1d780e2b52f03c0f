"""A person's journey in a real browser: upload a dump of a full queue, step one cycle, and ask Decisions why a
high-priority job is not running. Its PodGroup has no pods (the job controller creates them only once the
PodGroup is Inqueue), so the answer is enqueue's: the numbers of the quota check, and that reclaim and
preempt never act for a job that was not admitted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, open_page, step_one_cycle, wait_for_app_idle

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)
DUMP = Path(__file__).resolve().parent / "data" / "full-queue.yaml"
#: Where a screenshot of the answer goes when asked for (ANSWER_SCREENSHOT=path); never inside the repository.
SCREENSHOT = os.environ.get("ANSWER_SCREENSHOT", "")


def test_why_is_the_urgent_job_not_running(app_page: Page, streamlit_url: str):
    page = app_page
    open_home(page, streamlit_url)

    # 1. Upload the dump.
    open_page(page, "Scenario")
    page.get_by_role("tab", name="Upload").click()
    page.get_by_test_id("stFileUploader").first.locator("input[type=file]").set_input_files(str(DUMP))
    # Choosing the file loads it (one step).
    expect(page.get_by_text("Loaded scenario: full-queue.yaml")).to_be_visible()
    wait_for_app_idle(page)

    # 2. One cycle.
    open_page(page, "Simulate")
    step_one_cycle(page, "Scenario full-queue.yaml · after cycle 1")

    # 3. Decisions: ask about the job.
    open_page(page, "Decisions")
    page.get_by_test_id("stRadio").get_by_text("a job (PodGroup)", exact=True).click()
    expect(page.get_by_role("heading", name="Why is this job where it is?")).to_be_visible()
    wait_for_app_idle(page)
    picker = page.get_by_role("combobox", name="Job (PodGroup) to explain", exact=True)
    expect(picker).to_have_value("work/urgent (Pending, no pods)")  # jobs not admitted come first

    answer = page.locator(".st-key-why_answer")
    expect(answer).to_contain_text("not admitted in cycle 1")
    expect(answer).to_contain_text("capacity.enqueueRealCapability")
    # The sentence with its numbers, in the user's units, and why reclaim/preempt cannot help.
    sentence = page.locator(".st-key-why_sentence")
    expect(sentence).to_contain_text("minResources + allocated + inqueue - elastic exceeds the realCapability of team")
    expect(sentence).to_contain_text("cpu 2 + 4 + 0 - 0 = 6 > 4 (2 over)")
    expect(sentence).to_contain_text("reclaim and preempt only consider jobs that are Inqueue or Running")
    # The chain: the quota check is the one that stopped it, in its own box.
    stopper = page.locator("[class*='st-key-why_check_'][class*='_stopper']")
    expect(stopper).to_have_count(1)
    expect(stopper).to_contain_text("stopped here")
    expect(stopper).to_contain_text("enqueue")
    # whether waiting can succeed, and what to change, right under the answer
    expect(page.get_by_text("it is admitted by itself once jobs of queue team finish or give back cpu 2; enqueue "
                            "asks again every cycle", exact=True)).to_be_visible()
    expect(page.get_by_text("to admit it sooner, raise the capability of queue team to at least cpu 6",
                            exact=False).first).to_be_visible()
    wait_for_app_idle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)

    if SCREENSHOT:
        page.set_viewport_size({"width": 1400, "height": 1000})
        wait_for_app_idle(page)
        page.get_by_role("heading", name="Why is this job where it is?").evaluate(
            "e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=SCREENSHOT)
