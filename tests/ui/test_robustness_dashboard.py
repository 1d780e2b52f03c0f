"""AppTest (issue 26, round two): hostile input pasted on the Scenario page, then one cycle stepped.

A refused input shows one error naming object and field and keeps the previous scenario, which still
steps; a tolerated input replaces the scenario, lists its warnings, and steps. Never an exception element.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.state import WORKSPACE_KEY, Workspace

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
ROUND_TWO = ROOT / "tests" / "robustness" / "corpus_round2" / "cli"
FIRST = ROOT / "tests" / "robustness" / "corpus"

#: input -> (object, field) of the one error shown
REFUSED = {
    ROUND_TWO / "error-name-escape.yaml": ("Node/n\\x1b[2K\\r\\x1b[32mall good", "metadata.name"),
    ROUND_TWO / "duration-mapping.yaml": ("Pod/ns/p1", "metadata.annotations.capacity-lab/duration"),
    ROUND_TWO / "queue-cycle-200.yaml": ("Queue/c000", "spec.parent"),
    FIRST / "anchor-bomb-lists.yaml": ("pasted YAML", "line 13, column 12"),
    FIRST / "quantity-huge.yaml": ("Node/node-1", "status.allocatable.cpu"),
}
#: input -> the start of a warning listed on the page
TOLERATED = {
    ROUND_TWO / "warning-parent-newline.yaml": "Queue/team-a: spec.parent: parent queue 'ghost\\nerror: none'",
    ROUND_TWO / "conf-action-escape.yaml": "ConfigMap/volcano-scheduler-configmap: data.volcano-scheduler.conf: "
                                           "actions[1]: unknown action '\\x1b[31mallocate'",
    FIRST / "queue-unknown-parent.yaml": "Queue/team-a: spec.parent: parent queue 'ghost' does not exist",
}


def _paste(path: Path) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/scenario.py").run()
    at.text_area(key="paste_cluster").input(path.read_text(encoding="utf-8")).run()
    at.button(key="load_paste").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _step(at: AppTest) -> Workspace:
    at.switch_page("pages/simulate.py").run()
    at.button(key="step_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    ws: Workspace = at.session_state[WORKSPACE_KEY]
    assert ws.cycle == 1 and "simulate" not in ws.errors
    return ws


@pytest.mark.parametrize("path", sorted(REFUSED), ids=lambda p: p.name)
def test_a_refused_input_names_object_and_field_and_keeps_the_scenario(path: Path) -> None:
    at = _paste(path)
    ws: Workspace = at.session_state[WORKSPACE_KEY]
    obj, field = REFUSED[path]
    assert len(at.error) == 1, [e.value for e in at.error]
    message = at.error[0].value
    assert f"`{obj}`" in message and f"`{field}`" in message, message
    assert "previous scenario **default** is kept" in message
    assert (ws.errors["paste"].obj, ws.errors["paste"].field) == (obj, field)
    assert ws.scenario == "default"
    assert not any(ch in message for ch in "\x1b\r"), "a name's control characters are shown escaped"
    _step(at)


@pytest.mark.parametrize("path", sorted(TOLERATED), ids=lambda p: p.name)
def test_a_tolerated_input_is_loaded_with_its_warning_shown(path: Path) -> None:
    at = _paste(path)
    ws: Workspace = at.session_state[WORKSPACE_KEY]
    assert ws.scenario == "pasted" and not at.error
    assert any(e.label.startswith("Warnings while reading the scenario") for e in at.expander)
    shown = [m.value for m in at.markdown] + [t.value for t in at.text]  # warnings are plain text
    assert any(m.startswith(f"- {TOLERATED[path]}") for m in shown), shown
    _step(at)
