"""AppTest: every page renders from a fresh session (also opened directly) and its main action works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from capacity.io.export import export_yaml
from ui.state import WORKSPACE_KEY, Workspace

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
# Every file in pages/ must be reachable; a page missing from app.py's navigation fails here.
PAGES = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_"))
TITLES = {
    "pages/home.py": "Capacity Lab", "pages/scenario.py": "Scenario", "pages/queues.py": "Queues",
    "pages/simulate.py": "Simulate", "pages/treemaps.py": "Treemaps", "pages/jobs.py": "Jobs",
    "pages/decisions.py": "Decisions", "pages/nodes.py": "Nodes", "pages/scheduler.py": "Scheduler",
    "pages/compare.py": "Compare", "pages/plan.py": "Plan", "pages/lint.py": "Lint", "pages/lessons.py": "Lessons",
}
BAD_QUEUE = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: broken
spec:
  capability:
    cpu: lots
"""
SMALL = """\
apiVersion: v1
kind: Node
metadata:
  name: n1
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "10"}
"""

TWO_QUEUES = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q1}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q2}
spec: {weight: 3}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg1, namespace: ns}
spec: {queue: q1, minMember: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg2, namespace: ns}
spec: {queue: q2, minMember: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ns, annotations: {scheduling.k8s.io/group-name: pg1}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: ns, annotations: {scheduling.k8s.io/group-name: pg2}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
"""


def _fresh_app() -> AppTest:
    # The default 3 s timeout is too short on a loaded 2-core CI machine.
    return AppTest.from_file(APP, default_timeout=30)


def _assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _ws(at: AppTest) -> Workspace:
    return at.session_state[WORKSPACE_KEY]


def _open(page_path: str) -> AppTest:
    at = _fresh_app().run()
    at.switch_page(page_path).run()
    _assert_clean(at)
    return at


def _figure(at: AppTest, index: int = 0) -> dict:
    return json.loads(at.get("plotly_chart")[index].proto.spec)


def _step(at: AppTest) -> AppTest:
    at.switch_page("pages/simulate.py").run()
    at.button(key="step_btn").click().run()
    _assert_clean(at)
    return at


def test_every_page_has_a_known_title():
    assert set(PAGES) == set(TITLES), "add the new page's title to TITLES"


def test_home_renders_on_a_fresh_start():
    at = _fresh_app().run()
    _assert_clean(at)
    assert at.title[0].value == "Capacity Lab"
    ws = _ws(at)
    assert isinstance(ws, Workspace) and ws.scenario == "default" and ws.cycle == 0


# `page_path`, not `page`: that name is pytest-playwright's browser-page fixture.
@pytest.mark.parametrize("page_path", PAGES)
def test_direct_link_to_page_on_a_fresh_session(page_path):
    # Switching before the first run is what a direct link in a new browser tab does; on a fresh
    # server Streamlit then runs the page file without app.py (legacy `pages/` mode).
    at = _fresh_app()
    at.switch_page(page_path).run()
    _assert_clean(at)
    assert at.title[0].value == TITLES[page_path]
    assert _ws(at).scenario == "default"


@pytest.mark.parametrize("page_path", PAGES)
def test_every_page_renders_after_cycles(page_path):
    at = _step(_fresh_app().run())
    at.button(key="step_btn").click().run()
    at.switch_page(page_path).run()
    _assert_clean(at)
    assert at.title[0].value == TITLES[page_path]


def test_workspace_is_created_once_and_survives_page_switches():
    at = _step(_fresh_app().run())
    ws = _ws(at)
    for page_path in [*PAGES, PAGES[0]]:
        at.switch_page(page_path).run()
        _assert_clean(at)
        assert _ws(at) is ws and ws.cycle == 1


# ---- Scenario -----------------------------------------------------------------------------------


def test_scenario_loads_a_fixture_and_resets_history():
    at = _step(_fresh_app().run())
    at.switch_page("pages/scenario.py").run()
    at.selectbox(key="fixture_choice").select("reclaim").run()
    at.button(key="load_fixture").click().run()
    _assert_clean(at)
    ws = _ws(at)
    assert ws.scenario == "reclaim" and ws.cycle == 0 and set(ws.cluster.queues) == {"root", "team-a", "team-b"}
    assert any("Loaded scenario: **reclaim**" in m.value for m in at.markdown)


def test_bad_paste_names_object_and_field_and_keeps_the_old_scenario():
    at = _step(_fresh_app().run())
    before = _ws(at).cluster
    at.switch_page("pages/scenario.py").run()
    at.text_area(key="paste_cluster").input(BAD_QUEUE).run()
    at.button(key="load_paste").click().run()
    _assert_clean(at)
    errors = [e.value for e in at.error]
    assert len(errors) == 1
    assert "Queue/broken" in errors[0] and "spec.capability.cpu" in errors[0]
    assert "previous scenario **default** is kept" in errors[0]
    ws = _ws(at)
    assert ws.scenario == "default" and ws.cycle == 1 and ws.cluster is before


def test_bad_upload_names_object_and_field_and_keeps_the_old_scenario():
    at = _step(_fresh_app().run())
    at.switch_page("pages/scenario.py").run()
    at.file_uploader(key="upload_cluster").upload("broken.yaml", BAD_QUEUE.encode(), "application/yaml").run()
    _assert_clean(at)
    assert len(at.error) == 1
    assert "`Queue/broken` · `spec.capability.cpu`" in at.error[0].value
    ws = _ws(at)
    assert ws.scenario == "default" and ws.cycle == 1


def test_upload_of_an_exported_scenario_with_a_separate_conf():
    at = _step(_fresh_app().run())
    ws = _ws(at)
    exported = export_yaml(ws.cluster)
    conf = ws.cluster.conf.text.replace("enqueue, allocate, backfill, reclaim, preempt", "enqueue, allocate")
    at.switch_page("pages/scenario.py").run()
    at.file_uploader(key="upload_cluster").upload("after-1.yaml", exported.encode(), "application/yaml")
    at.file_uploader(key="upload_conf").upload("sched.conf", conf.encode(), "text/plain").run()
    _assert_clean(at)
    ws = _ws(at)
    assert ws.scenario == "after-1.yaml" and ws.cycle == 0 and ws.cluster.conf.actions == ["enqueue", "allocate"]
    assert ws.cluster.pods["research/eval-bert-0"].node_name == "gpu-3"  # the state after cycle 1 came back


def test_good_paste_replaces_the_scenario_and_clears_the_error():
    at = _open("pages/scenario.py")
    at.text_area(key="paste_cluster").input(BAD_QUEUE).run()
    at.button(key="load_paste").click().run()
    assert at.error
    at.text_area(key="paste_cluster").input(SMALL).run()
    at.button(key="load_paste").click().run()
    _assert_clean(at)
    assert not at.error
    ws = _ws(at)
    assert ws.scenario == "pasted" and [n.name for n in ws.cluster.nodes] == ["n1"]
    # No queues at all: the number pages say so instead of failing.
    for page_path in ("pages/queues.py", "pages/treemaps.py"):
        at.switch_page(page_path).run()
        _assert_clean(at)
        assert any("no queues" in i.value for i in at.info)


def test_proportion_scenario_shows_proportion_numbers():
    # Without a ConfigMap Volcano's default configuration runs: proportion computes the queue numbers.
    at = _open("pages/scenario.py")
    at.text_area(key="paste_cluster").input(SMALL + "---\n" + TWO_QUEUES).run()
    at.button(key="load_paste").click().run()
    _assert_clean(at)
    assert _ws(at).cluster.conf.is_default
    at.switch_page("pages/queues.py").run()
    _assert_clean(at)
    table = at.dataframe[0].value
    assert {"q1", "q2"} <= set(table["queue"])
    at.switch_page("pages/treemaps.py").run()
    _assert_clean(at)
    assert _figure(at)["data"][0]["type"] == "treemap"


def test_bad_scheduler_conf_is_reported_against_the_conf():
    at = _open("pages/scenario.py")
    at.text_area(key="paste_cluster").input(SMALL).run()
    at.text_area(key="paste_conf").input('actions: "enqueue, allocat"\n').run()
    at.button(key="load_paste").click().run()
    _assert_clean(at)
    # Volcano refuses the file and runs its default configuration (issue 26): loaded, and told why
    assert not at.error and _ws(at).cluster.conf.actions == ["enqueue", "allocate", "backfill"]
    told = [m.value for m in [*at.markdown, *at.text] if "actions[1]" in m.value]
    assert len(told) == 1 and "allocat" in told[0] and "Volcano refuses the whole configuration" in told[0]


def test_scenario_offers_a_download():
    at = _open("pages/scenario.py")
    assert at.get("download_button"), "the download button is missing"
    assert any(m.value == 5 or m.value == "5" for m in at.metric)  # five nodes in the default scenario


# ---- Queues, Treemaps, Jobs ---------------------------------------------------------------------


def test_queues_draws_the_tree_and_tables():
    at = _open("pages/queues.py")
    fig = _figure(at)
    nodes = fig["data"][1]
    assert "research-train" in nodes["text"] and len(nodes["text"]) == 11
    table = at.dataframe[0].value
    assert len(table) == 11 and {"deserved", "allocated", "capability", "guarantee", "realCapability",
                                 "share"} <= set(table.columns)
    row = table[table["queue"] == "research"].iloc[0]
    assert row["deserved"] == "cpu 64, memory 384Gi, nvidia.com/gpu 12"
    detail = at.dataframe[1].value
    assert list(detail["resource"]) == ["cpu", "memory", "nvidia.com/gpu"]


def test_treemap_present_and_falls_back_with_a_warning():
    at = _open("pages/treemaps.py")
    trace = _figure(at)["data"][0]
    assert trace["type"] == "treemap" and trace["branchvalues"] == "total"
    assert len(trace["ids"]) == 11 and not at.warning
    at.radio(key="treemap_metric").set_value("capability").run()
    at.radio(key="treemap_resource").set_value("nvidia.com/gpu").run()
    _assert_clean(at)
    trace = _figure(at)["data"][0]
    assert trace["branchvalues"] == "remainder"
    assert "remainder" in at.warning[0].value and "research" in at.warning[0].value


def test_jobs_lists_jobs_and_pods():
    at = _open("pages/jobs.py")
    jobs, pods = at.dataframe[0].value, at.dataframe[1].value
    assert len(jobs) == 7 and len(pods) == 16
    assert set(jobs["queue"]) >= {"research-train", "prod-batch"}
    at.toggle(key="jobs_only_waiting").set_value(True).run()
    assert set(at.dataframe[1].value["node"]) == {""}


# ---- Simulate, Decisions ------------------------------------------------------------------------


def test_step_shows_binds_and_phase_changes():
    at = _step(_fresh_app().run())
    assert _ws(at).cycle == 1
    text = "\n".join(t.value for t in at.text)
    assert "bound research/eval-bert-0 → gpu-3" in text, "pod and node names are shown as text, not Markdown"
    assert at.metric[0].label == "Binds" and at.metric[0].value == "3"
    phases = at.dataframe[1].value
    assert set(phases["after"]) == {"Inqueue"}
    # one cycle is one dot per queue: the share history is drawn from the second cycle on, and says so
    assert not at.get("plotly_chart")
    assert any("drawn from the second cycle on" in c.value for c in at.caption)
    at.button(key="step_btn").click().run()
    _assert_clean(at)
    lines = _figure(at)["data"]
    assert lines and all(list(line["x"]) == [1, 2] for line in lines), "the share timeline is drawn"


def test_run_n_cycles_and_rewind():
    at = _step(_fresh_app().run())
    at.number_input(key="run_n").set_value(3).run()
    at.button(key="run_btn").click().run()
    _assert_clean(at)
    assert _ws(at).cycle == 4
    assert len(at.dataframe[-1].value) == 4  # one history line per cycle
    at.selectbox(key="rewind_to").select(1).run()
    at.button(key="rewind_btn").click().run()
    _assert_clean(at)
    ws = _ws(at)
    assert ws.cycle == 1 and all(p.node_name for k, p in ws.cluster.pods.items() if "eval-bert" in k)
    at.selectbox(key="rewind_to").select(0).run()
    at.button(key="rewind_btn").click().run()
    _assert_clean(at)
    assert _ws(at).cycle == 0 and at.info  # back at the start: nothing to show yet


def test_reclaim_fixture_shows_evictions():
    at = _open("pages/scenario.py")
    at.selectbox(key="fixture_choice").select("reclaim").run()
    at.button(key="load_fixture").click().run()
    at = _step(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Evictions"] == "2" and metrics["Pipelined jobs"] == "1"


def test_decisions_before_and_after_a_step():
    at = _open("pages/decisions.py")
    assert at.info and not at.dataframe
    at = _step(at)
    at.switch_page("pages/decisions.py").run()
    _assert_clean(at)
    table = at.dataframe[0].value
    assert len(table) > 0 and {"enqueue", "allocate"} <= set(table["action"])
    at.multiselect(key="decisions_actions").select("enqueue").run()
    assert set(at.dataframe[0].value["action"]) == {"enqueue"}
    at.selectbox(key="decisions_queue").select("analytics-adhoc").run()
    assert set(at.dataframe[0].value["subject"]) == {"analytics/adhoc-query"}


def test_why_is_this_pod_pending():
    at = _step(_fresh_app().run())
    at.switch_page("pages/decisions.py").run()
    at.selectbox(key="why_pod").select("research/train-llm-0").run()
    _assert_clean(at)
    text = "\n".join(m.value for m in at.markdown)
    assert "jobEnqueueable" in text and "research/train-llm" in text and "realCapability" in text
    at.selectbox(key="why_pod").select("research/eval-bert-0").run()
    assert "bound to `gpu-3`" in at.success[0].value


def test_compatibility_switches_reach_the_engine():
    at = _open("pages/simulate.py")
    names = [t.key.removeprefix("option_") for t in at.toggle]
    assert "leaf_only_allocatable" in names and "seed004_root_init" in names
    at.toggle(key="option_leaf_only_allocatable").set_value(True).run()
    _assert_clean(at)
    assert _ws(at).options.leaf_only_allocatable is True


def test_queue_numbers_of_a_past_cycle():
    at = _step(_fresh_app().run())
    at.button(key="step_btn").click().run()
    at.switch_page("pages/queues.py").run()
    picker = at.selectbox(key="queues_numbers")
    assert picker.options == ["now (as the next cycle opens)", "at the end of cycle 2", "at the end of cycle 1"]
    picker.select(1).run()
    _assert_clean(at)
    table = at.dataframe[0].value
    expected = _ws(at).history[0].result.queues["research-eval"]["allocated"]
    row = table[table["queue"] == "research-eval"].iloc[0]
    assert row["allocated"] == "cpu 4, memory 32Gi, nvidia.com/gpu 2" and expected["nvidia.com/gpu"] == 2000


def test_decisions_trace_download():
    at = _step(_fresh_app().run())
    at.switch_page("pages/decisions.py").run()
    assert at.get("download_button"), "the trace download is missing"
