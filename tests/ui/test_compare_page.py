"""AppTest: the Compare page runs the workspace's scenario under two configurations and shows both sides, with
treemaps; the Lint page shows the scenario's findings grouped by severity and lints pasted YAML."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from capacity.authoring.lessons import load_lesson
from ui.state import WORKSPACE_KEY

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def _open(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _frame(at: AppTest, column: str, nth: int = 0):
    """The nth dataframe with this column (AppTest does not expose st.dataframe keys)."""
    return [d.value for d in at.dataframe if column in d.value.columns][nth]


def _load_lesson_scenario(at: AppTest, lesson_id: str, variant: str) -> None:
    lesson = load_lesson(lesson_id)
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.load_text(lesson.scenario_text(variant), name=lesson_id, source=lesson_id, input_key="test",
                        conf_text=lesson.conf_text(variant))


def test_compare_page_before_running():
    at = _open("pages/compare.py")
    assert at.title[0].value == "Compare"
    assert "press Compare" in at.info[0].value
    assert at.checkbox(key="cmp_b_leaf_only_allocatable").value is False


def test_compare_switch_on_and_off_side_by_side():
    at = _open("pages/compare.py")
    _load_lesson_scenario(at, "11-seed003-leaf-only", "head")
    at.checkbox(key="cmp_b_leaf_only_allocatable").check().run()
    at.button(key="compare_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    binds = {m.label: m.value for m in at.metric if m.label == "Binds"}
    assert [m.value for m in at.metric if m.label == "Binds"] == ["0", "1"], binds
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    spec = json.loads(charts[1].proto.spec)
    assert spec["data"][0]["type"] == "treemap" and "queue121" in spec["data"][0]["ids"]
    table = _frame(at, "pod")
    assert list(table["pod"]) == ["ns1/new-0"] and list(table["Configuration B"]) == ["n1"]
    assert "difference" in at.caption[1].value or any("difference" in c.value for c in at.caption)


def test_compare_two_confs():
    lesson = load_lesson("09-proportion-vs-capacity")
    at = _open("pages/compare.py")
    _load_lesson_scenario(at, lesson.id, "capacity")
    at.text_input(key="cmp_label_b").set_value("proportion")
    at.text_area(key="cmp_conf_b").set_value(lesson.conf_text("proportion"))
    at.button(key="compare_btn").click().run()
    assert not at.exception
    table = _frame(at, "pod")
    assert len(table) == 12 and "proportion" in table.columns
    shares = _frame(at, "queue")
    assert set(shares["queue"]) == {"q1", "q2"}


def test_compare_bad_conf_is_reported():
    at = _open("pages/compare.py")
    at.text_area(key="cmp_conf_a").set_value("actions: [\n")
    at.button(key="compare_btn").click().run()
    assert not at.exception and at.error


def test_compare_warns_when_the_workspace_changed():
    at = _open("pages/compare.py")
    at.button(key="compare_btn").click().run()
    assert not at.warning
    at.switch_page("pages/simulate.py").run()
    at.button(key="step_btn").click().run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception and "changed" in at.warning[0].value


# ---- Lint ----------------------------------------------------------------------------------------------------
def test_lint_page_groups_findings_by_severity():
    at = _open("pages/lint.py")
    assert at.title[0].value == "Lint"
    labels = [m.label for m in at.metric]
    assert labels[:3] == ["Errors", "Warnings", "Info"]
    ws = at.session_state[WORKSPACE_KEY]
    ws.load_text((ROOT / "tests/lint_cases/misspelled-hierarchy.yaml").read_text(), name="bad", source="bad",
                 input_key="test")
    at.run()
    assert not at.exception
    warnings = next(f for f in (d.value for d in at.dataframe) if "unknown-switch" in set(f.get("rule", [])))
    assert {"object", "field", "problem", "what Volcano does", "rule"} <= set(warnings.columns)


def test_lint_page_shows_what_the_chosen_release_does():
    """On v1.13 a children-deserved violation stops capacity for the whole cycle: the Lint page says so (the
    release's own finding, as `lint --volcano-version 1.13` prints it), and its hierarchy finding does too."""
    from capacity.framework.session import SessionOptions
    from capacity.versions import version
    at = _open("pages/lint.py")
    ws = at.session_state[WORKSPACE_KEY]
    ws.load_text((ROOT / "tests/unit/data/lint-release-hierarchy.yaml").read_text(), name="tree", source="tree",
                 input_key="test")
    v = version("1.13")
    ws.options = SessionOptions(lacking=v.lacking, version=v.label)
    at.run()
    assert not at.exception
    rows = [f for f in (d.value for d in at.dataframe) if {"rule", "what Volcano does"} <= set(f.columns)]
    rules = {r for f in rows for r in f["rule"]}
    assert "release-behaviour" in rules
    said = " ".join(str(x) for f in rows for x in f["what Volcano does"])
    assert "readyToSchedule=false" in said and "before PR #4864, v1.14.0" in said


def test_lint_pasted_yaml_including_a_cycle():
    at = _open("pages/lint.py")
    before = sum(1 for h in at.subheader if h.value.startswith("Error"))
    at.text_area(key="lint_input").set_value((ROOT / "tests/lint_cases/queue-cycle.yaml").read_text())
    at.button(key="lint_btn").click().run()
    assert not at.exception
    assert sum(1 for h in at.subheader if h.value.startswith("Error")) == before + 1
    at.text_area(key="lint_input").set_value("kind: Queue\nmetadata: {name: q}\nspec: {capability: {cpu: lots}}\n")
    at.button(key="lint_btn").click().run()
    assert not at.exception and at.error
