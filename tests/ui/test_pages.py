"""AppTest: the app and every page render from a fresh session, including a direct link to a page."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.state import WORKSPACE_KEY

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
# Every file in pages/ must be reachable; a page missing from app.py's navigation fails here.
PAGES = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_"))
TITLES = {"pages/home.py": "Capacity Lab", "pages/scenario.py": "Scenario"}


def _fresh_app() -> AppTest:
    # The default 3 s timeout is too short on a loaded 2-core CI machine.
    return AppTest.from_file(APP, default_timeout=30)


def _assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def test_every_page_has_a_known_title():
    assert set(PAGES) == set(TITLES), "add the new page's title to TITLES"


def test_home_renders_on_a_fresh_start():
    at = _fresh_app().run()
    _assert_clean(at)
    assert at.title[0].value == "Capacity Lab"
    assert at.session_state[WORKSPACE_KEY] == {"scenario": "default"}


# `page_path`, not `page`: that name is pytest-playwright's browser-page fixture.
@pytest.mark.parametrize("page_path", PAGES)
def test_direct_link_to_page_on_a_fresh_session(page_path):
    # Switching before the first run is what a direct link in a new browser tab does; on a fresh
    # server Streamlit then runs the page file without app.py (legacy `pages/` mode).
    at = _fresh_app()
    at.switch_page(page_path).run()
    _assert_clean(at)
    assert at.title[0].value == TITLES[page_path]
    assert at.session_state[WORKSPACE_KEY]["scenario"] == "default"


def test_workspace_is_created_once_and_survives_page_switches():
    at = _fresh_app().run()
    at.session_state[WORKSPACE_KEY] = {"scenario": "edited"}
    for page_path in [*PAGES, PAGES[0]]:
        at.switch_page(page_path).run()
        _assert_clean(at)
        assert at.session_state[WORKSPACE_KEY] == {"scenario": "edited"}
