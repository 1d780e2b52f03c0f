"""Names, values and the file name of an uploaded dump are shown as text on every page, in tables, charts,
hovers and messages: Markdown (`![x](url)`, `[link](url)`), HTML (`<img>`, `<a>`) and Plotly's markup
(`<b>`, `<a href>`, `<span style>`) never become live. Checked in a real browser: no request leaves for an
address other than the app's, and no element links to or loads the attacker's URLs.

The names break Kubernetes' naming rules, which the loader only warns about (simulated as given).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
import yaml
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_home, open_page, wait_for_app_idle
from tests.e2e.test_load_and_read import PAGES

pytestmark = pytest.mark.e2e
expect.set_options(timeout=20_000)

EVIL_HOST = "127.0.0.2"
IMG = f"![x](http://{EVIL_HOST}:9/x.png)"
LINK = f"[link](http://{EVIL_HOST}:9/)"
HTML_IMG = f"<img src=http://{EVIL_HOST}:9/y>"
HTML_A = f"<a href=http://{EVIL_HOST}:9/a>a</a>"
PLOTLY = f"<b>B</b><a href='http://{EVIL_HOST}:9/p'>p</a><span style='font-size:60px'>big</span>"
QUEUE = "q" + IMG + HTML_IMG + PLOTLY
JOB = "j" + LINK + HTML_IMG
NAMESPACE = "ns" + IMG
#: A file name cannot hold "/": backslashes, which browsers read as slashes in http URLs.
FILE_NAME = f"dump![f](http:\\{EVIL_HOST}:9\\f.png)[l](http:\\{EVIL_HOST}:9\\l)<img src=http:\\{EVIL_HOST}:9\\g>.yaml"
#: Anything that would link to or load the attacker's host, in HTML or SVG (Plotly draws SVG).
LIVE = (f'[href*="{EVIL_HOST}"], [src*="{EVIL_HOST}"], [*|href*="{EVIL_HOST}"], [srcset*="{EVIL_HOST}"], '
        '[style*="font-size:60px"], [style*="font-size: 60px"]')


def _dump() -> str:
    docs = [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": "n" + LINK + HTML_A, "labels": {"zone": IMG + HTML_IMG}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                    "conditions": [{"type": "Ready", "status": "True"}]}},
        {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "root"},
         "spec": {"weight": 1}},
        {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
         "metadata": {"name": QUEUE, "annotations": {"note": LINK + HTML_IMG}},
         "spec": {"weight": 1, "capability": {"cpu": "2", "memory": "4G"}}, "status": {"state": "Open"}},
        {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
         "metadata": {"name": JOB, "namespace": NAMESPACE},
         "spec": {"queue": QUEUE, "minMember": 1}, "status": {"phase": "Inqueue"}},
    ]
    for i in range(2):
        docs.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}" + IMG + HTML_A + PLOTLY, "namespace": NAMESPACE,
                         "annotations": {"scheduling.k8s.io/group-name": JOB}, "labels": {"app": LINK}},
            "spec": {"schedulerName": "volcano", "containers": [
                {"name": "c" + HTML_IMG, "image": "busybox",
                 "resources": {"requests": {"cpu": "1500m", "memory": "1G"}}}]},
            "status": {"phase": "Pending"}})
    return yaml.safe_dump_all(docs, sort_keys=False, width=10_000)


def _bad_value_dump() -> str:
    """A dump the loader refuses, quoting the bad value in its error."""
    return yaml.safe_dump({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                           "metadata": {"name": "bad" + LINK},
                           "spec": {"weight": 1, "capability": {"cpu": IMG + HTML_IMG}}}, width=10_000)


def _requests_away(page: Page, app_url: str) -> list[str]:
    app_host = urlsplit(app_url).hostname
    seen: list[str] = []

    def record(request) -> None:
        if urlsplit(request.url).hostname not in (app_host, None) or EVIL_HOST in request.url:
            seen.append(request.url)

    page.on("request", record)
    return seen


def _no_live_markup(page: Page, where: str) -> None:
    wait_for_app_idle(page)
    found = page.locator(LIVE).evaluate_all("els => els.map(e => e.outerHTML.slice(0, 200))")
    assert found == [], f"{where}: input became live markup: {found}"
    expect(page.get_by_test_id("stException")).to_have_count(0)


def _upload(page: Page, name: str, text: str) -> None:
    page.locator(".st-key-upload_cluster input[type=file]").set_input_files(
        files=[{"name": name, "mimeType": "application/yaml", "buffer": text.encode()}])


def test_names_values_and_file_name_are_shown_as_text_everywhere(app_page: Page, streamlit_url: str):
    page = app_page
    away = _requests_away(page, streamlit_url)
    open_home(page, streamlit_url)

    open_page(page, "Scenario")
    page.get_by_role("tab", name="Upload").click()
    _upload(page, FILE_NAME, _dump())
    loaded = page.locator(".st-key-scenario_loaded_box")
    expect(loaded).to_contain_text("1 node, 2 queues, 1 job, 2 pods")
    expect(loaded).to_contain_text(f"![f](http:\\{EVIL_HOST}:9\\f.png)")  # the file name, as typed
    _no_live_markup(page, "Scenario after the upload")

    # A refused file: its error quotes the bad value and names the object, as text.
    _upload(page, "bad.yaml", _bad_value_dump())
    error = page.get_by_test_id("stAlertContentError").first
    expect(error).to_contain_text("Queue/bad" + LINK)
    expect(error).to_contain_text("is kept")
    # The bad value, as typed (an invisible word joiner keeps a bare URL from becoming a link).
    assert IMG in error.inner_text().replace("\u2060", "")
    _no_live_markup(page, "Scenario after a refused upload")

    open_page(page, "Simulate")
    page.get_by_role("button", name="Step one cycle").click()
    expect(page.get_by_text("after cycle 1").first).to_be_visible()
    _no_live_markup(page, "Simulate")

    for title in PAGES:
        open_page(page, title)
        _no_live_markup(page, title)
        # Hover labels are drawn on demand: sweep the mouse over each chart so that they are drawn too.
        for plot in page.locator(".js-plotly-plot").all():
            plot.scroll_into_view_if_needed()
            box = plot.bounding_box()
            assert box is not None
            for i in range(1, 10):
                for j in (0.3, 0.5, 0.7):
                    page.mouse.move(box["x"] + box["width"] * i / 10, box["y"] + box["height"] * j)
            _no_live_markup(page, f"{title} (hovered)")

    open_page(page, "Queues")
    expect(page.get_by_text(QUEUE).first).to_be_visible()  # the queue's name, every character of it
    open_page(page, "Treemaps")
    tile = page.locator(".js-plotly-plot g.slice")  # proportion reports only the queue with a job
    expect(tile).to_have_count(1)
    expect(tile).to_contain_text("q![x](http://")  # drawn, with its name as text
    assert away == [], f"requests left the app: {away}"
