"""In a real browser: a dump whose status disagrees shows, on the Queues page, the reported figures beside the
computed ones with their causes; the Scenario page takes a snapshot of a loopback API server and loads it.

With SHOTS_DIR=/some/dir (never inside the repository) it saves a screenshot of both panels.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_page, wait_for_app_idle
from tests.unit.test_snapshot import Server, kubeconfig, recorded, routes

pytestmark = pytest.mark.e2e
expect.set_options(timeout=30_000)
DUMP = Path(__file__).resolve().parents[1] / "data" / "reality" / "disagreeing.yaml"
SHOTS_DIR = os.environ.get("SHOTS_DIR", "")


def _shot(page: Page, name: str) -> None:
    if SHOTS_DIR:
        page.screenshot(path=str(Path(SHOTS_DIR) / f"{name}.png"), full_page=True)


def test_reported_beside_computed_then_a_snapshot(app_page: Page, streamlit_url: str, tmp_path):
    page = app_page
    page.goto(streamlit_url)
    wait_for_app_idle(page)
    open_page(page, "Scenario")
    page.get_by_role("tab", name="Upload").click()
    page.locator(".st-key-upload_cluster input[type=file]").set_input_files(str(DUMP))
    expect(page.locator(".st-key-scenario_loaded_box")).to_contain_text("Loaded disagreeing.yaml")
    wait_for_app_idle(page)

    open_page(page, "Queues")
    box = page.locator(".st-key-reality_box")
    expect(box).to_contain_text("8 of 16 figures differ.")
    expect(box).to_contain_text("Queue/team-b status.inqueue: computed 1, reported 0")
    expect(box).to_contain_text("the scheduler mounts ConfigMap volcano-scheduler-configmap-v2")
    box.scroll_into_view_if_needed()
    _shot(page, "queues-reality")

    server = Server(routes(recorded()))
    try:
        kc = kubeconfig(tmp_path, server.url)
        open_page(page, "Scenario")
        page.get_by_text("Live cluster: take a read-only snapshot").click()
        field = page.get_by_label("Kubeconfig path")
        field.fill(kc)
        field.press("Enter")
        wait_for_app_idle(page)
        page.get_by_role("button", name="Take snapshot").click()
        expect(page.get_by_text("Loaded scenario: snapshot of lab")).to_be_visible()
        expect(page.get_by_text("5 nodes, 17 pods, 11 queues, 7 PodGroups")).to_be_visible()
        wait_for_app_idle(page)
        _shot(page, "scenario-snapshot")
        assert all(method == "GET" for method, _ in server.requests)
    finally:
        server.close()
