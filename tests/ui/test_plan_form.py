"""AppTest: the Plan page runs a small plan on the default scenario, shows the table and both plots, refuses a
bad spec naming the field, and applies the chosen candidate to the workspace's queues."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.state import WORKSPACE_KEY

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _plan_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/plan.py").run()
    assert not at.exception
    return at


def test_run_a_plan_then_apply_the_best_candidate():
    at = _plan_page()
    at.button(key="plan_run_btn").click().run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "meets goals" in d.value.columns)
    assert len(table) == 6
    assert set(table["status"]) == {"ok", "rejected"}
    assert len(at.get("plotly_chart")) == 2  # wait vs setting, Pareto front
    ws = at.session_state[WORKSPACE_KEY]
    before = ws.cluster.queues["prod-serving"].guarantee.get("nvidia.com/gpu")
    assert any("Best: candidate #" in t.value for t in at.text)
    best = int(at.selectbox(key="plan_pick").value)
    chosen = table[table["#"] == best].iloc[0]
    at.button(key="plan_apply_btn").click().run()
    assert not at.exception
    after = at.session_state[WORKSPACE_KEY].cluster.queues["prod-serving"].guarantee.get("nvidia.com/gpu")
    assert after == float(chosen["prod-serving.guarantee.nvidia.com/gpu"]) * 1000
    assert after != before
    assert any("Applied plan candidate" in t.value for t in at.text)


def test_a_bad_value_is_named():
    at = _plan_page()
    at.text_input(key="plan_v1").set_value("0, lots").run()
    at.button(key="plan_run_btn").click().run()
    assert not at.exception
    assert any("vary[0].values[1]" in e.value and "lots" in e.value for e in at.error)
