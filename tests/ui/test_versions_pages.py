"""AppTest: the Volcano version selector. A dump naming its scheduler's release preselects it on the Scheduler
page; Compare runs the same dump on two releases and names the change behind each decision that differs."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.state import WORKSPACE_KEY

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
DUMP = ROOT / "tests" / "acceptance" / "versions" / "cases" / "pr4659-capacity-reclaim-deserved-one-dimension-v1.13" \
    / "cluster.yaml"
SCHEDULER = """---
apiVersion: apps/v1
kind: Deployment
metadata: {name: volcano-scheduler, namespace: volcano-system}
spec:
  template:
    metadata: {labels: {app: volcano-scheduler}}
    spec:
      containers:
      - {name: volcano-scheduler, image: "docker.io/volcanosh/vc-scheduler:v1.13.0"}
"""


def _open(page: str, text: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert at.session_state[WORKSPACE_KEY].load_text(text, name="dump.yaml", source="dump.yaml", input_key="t")
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_scheduler_page_preselects_the_dumps_release_and_lists_what_it_lacks() -> None:
    at = _open("pages/scheduler.py", DUMP.read_text() + SCHEDULER)
    assert at.selectbox(key="sched_version").value == "1.13.0"
    assert "1.13" in at.selectbox(key="sched_version").options[2]  # the minors stay offered beside it
    assert any("Preselected from the dump's volcano-scheduler image (1.13.0)" in c.value for c in at.caption)
    changes = [d.value for d in at.dataframe if "change" in d.value.columns][0]
    assert "PR #4659" in list(changes["change"])
    assert at.toggle(key="sched_option_seed004_root_init").value is True  # v1.13 lacks PR #4973
    at.selectbox(key="sched_version").set_value("head").run()
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.options.version == "HEAD" and not ws.options.lacking and not ws.options.seed004_root_init


def test_scheduler_page_defaults_to_head_without_a_scheduler_image() -> None:
    at = _open("pages/scheduler.py", DUMP.read_text())
    assert at.selectbox(key="sched_version").value == "head"


def test_compare_two_releases_names_the_change_behind_the_difference() -> None:
    at = _open("pages/compare.py", DUMP.read_text())
    at.selectbox(key="cmp_a_version").set_value("1.13").run()
    at.selectbox(key="cmp_b_version").set_value("head").run()
    at.button(key="compare_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    warnings = [w.value for w in at.warning]
    assert "pod ns1/p18: not evicted on v1.13, evicted on HEAD" in warnings
    assert any(t.value.startswith("because of PR #4659 (pr4659), in Volcano from v1.14.0") for t in at.text)
    assert [m.value for m in at.metric if m.label == "Evictions"] == ["0", "1"]


def test_decisions_page_names_the_change_when_head_decides_the_cycle_differently() -> None:
    at = _open("pages/scheduler.py", DUMP.read_text() + SCHEDULER)  # v1.13, preselected
    ws = at.session_state[WORKSPACE_KEY]
    ws.step()
    at.switch_page("pages/decisions.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="decisions_release_btn").click().run()
    assert "pod ns1/p18: not evicted on v1.13.0, evicted on HEAD" in [w.value for w in at.warning]
    assert any(t.value.startswith("because of PR #4659 (pr4659), in Volcano from v1.14.0") for t in at.text)


def test_a_patch_release_with_the_fix_backported_decides_as_head() -> None:
    """PR #4659 was cherry-picked into v1.13.1: a dump whose scheduler runs v1.13.2 is offered that release and
    it lacks no capacity change of #4659 (before, any 1.13.x ran v1.13.0's rule)."""
    at = _open("pages/scheduler.py", DUMP.read_text() + SCHEDULER.replace("v1.13.0", "v1.13.2"))
    box = at.selectbox(key="sched_version")
    assert box.value == "1.13.2" and "1.13.2" in box.options[3]
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.options.version == "v1.13.2" and "pr4659" not in ws.options.lacking and "pr4973" in ws.options.lacking
