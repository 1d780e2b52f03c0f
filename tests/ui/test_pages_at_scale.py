"""AppTest at "a few hundred queues, a thousand pods" (tests/scale_dump.py): every long list is sent a page at
a time or summarised with counts, the queue tree opens collapsed and can be searched, quantities read in cores,
and a decision's reasons are readable whole below the Decisions table."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from capacity.analysis.views_paging import PAGE_SIZE
from capacity.io.k8s import load_cluster
from tests.scale_dump import scale_yaml
from ui.state import WORKSPACE_KEY, Workspace, new_workspace
from ui.views import filter_rows, record_index, record_rows, why_pending

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def stepped() -> Workspace:
    ws = Workspace("scale", load_cluster(scale_yaml(nodes=100, pods=1000), source="scale.yaml"))
    assert ws.step() is not None
    return ws


def _open(ws: Workspace, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state[WORKSPACE_KEY] = ws
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _figure(at: AppTest, nth: int = 0) -> dict:
    import json
    charts = [e for e in at.main if type(e).__name__ == "UnknownElement" and e.type == "plotly_chart"]
    return json.loads(charts[nth].proto.spec)


def test_decisions_sends_one_page_and_shows_the_record_whole(stepped):
    at = _open(stepped, "pages/decisions.py")
    total = len(stepped.history[0].records)
    table = at.dataframe[0].value
    assert total > 10 * PAGE_SIZE and len(table) == PAGE_SIZE
    assert list(table.columns[:3]) == ["subject", "verdict", "reasons"]  # the reason is never the cut-off last column
    detail = [t.value for t in at.text]
    first = stepped.history[0].records[0]
    assert any(f"[{r.plugin}/{r.rule}] {r.text}" in t for t in detail for r in first.reasons) or not first.reasons
    at.text_input(key="decisions_search").input("job-00007").run()
    narrowed = at.dataframe[0].value
    assert 0 < len(narrowed) <= PAGE_SIZE and all("job-00007" in f"{s}{j}{p}" for s, j, p in
                                                  zip(narrowed["subject"], narrowed["job"], narrowed["pod"],
                                                      strict=True))
    at.text_input(key="decisions_search").input("").run()
    at.number_input(key="decisions_table_page").set_value(3).run()
    assert len(at.dataframe[0].value) == PAGE_SIZE and not at.exception
    # a thousand pods are not all offered at once: a search box narrows the picker
    assert len(at.selectbox(key="why_pod").options) <= 300


def test_simulate_sums_binds_per_queue_and_lists_one_queue_on_asking(stepped):
    at = _open(stepped, "pages/simulate.py")
    binds = stepped.history[0].result.binds
    assert at.metric[0].value == str(len(binds)) and len(binds) > PAGE_SIZE
    assert not [t for t in at.text if t.value.startswith("bound ")], "every bind listed one by one"
    per_queue = at.dataframe[0].value
    assert list(per_queue.columns) == ["queue", "count"] and per_queue["count"].sum() <= len(binds)
    queue = per_queue["queue"][0]
    at.selectbox(key="binds_queue").select(queue).run()
    listed = at.dataframe[1].value
    assert set(listed["queue"]) == {queue} and len(listed) == per_queue["count"][0]
    assert not [e for e in at.main if getattr(e, "type", "") == "plotly_chart"]  # one cycle: no history drawn yet


def test_simulate_draws_the_top_queues_history_from_the_second_cycle():
    ws = Workspace("scale", load_cluster(scale_yaml(nodes=100, pods=1000), source="scale.yaml"))
    assert ws.step() is not None and ws.step() is not None
    at = _open(ws, "pages/simulate.py")
    lines = _figure(at)["data"]
    assert len(lines) == 10  # the history draws the top 10 of 221 queues, not all of them
    assert all(list(line["x"]) == [1, 2] for line in lines)


def test_queue_tree_opens_collapsed_and_finds_a_leaf(stepped):
    at = _open(stepped, "pages/queues.py")
    nodes = _figure(at)["data"][1]["text"]
    assert len(nodes) == 21 and "dept-03 (+10)" in nodes  # root and 20 departments; 200 leaves folded
    at.text_input(key="queue_tree_search").input("dept-07-q03").run()
    assert sorted(_figure(at)["data"][1]["text"]) == ["dept-07 (+9)", "dept-07-q03", "root (+209)"]
    at.select_slider(key="queue_tree_levels").set_value(3).run()
    table = at.dataframe[0].value
    assert len(table) == PAGE_SIZE  # 221 queues, one page
    deserved = table[table["queue"] == "dept-00-q00"].iloc[0]["deserved"]
    assert deserved.startswith("cpu 16.5,"), deserved  # cores, not "16500m" as the dump writes it


def test_jobs_and_nodes_tables_are_paged(stepped):
    at = _open(stepped, "pages/jobs.py")
    jobs, pods = at.dataframe[0].value, at.dataframe[1].value
    assert len(jobs) == PAGE_SIZE and len(pods) == PAGE_SIZE
    at.text_input(key="pods_search").input("job-00999").run()
    assert list(at.dataframe[1].value["pod"]) == ["scale/job-00999-0"]
    at = _open(stepped, "pages/nodes.py")
    assert len(at.dataframe[0].value) == PAGE_SIZE


def test_record_index_gives_the_rows_and_filters_of_record_rows():
    """The index the Decisions page pages over reads exactly what the full table did."""
    ws = new_workspace()
    step = ws.step()
    rows = record_rows(step.records, step.before)
    index = record_index(step)
    assert index.rows(range(len(rows))) == rows
    for queue in {r["queue"] for r in rows}:
        assert index.rows(index.select(actions=["allocate"], queue=queue)) == \
            filter_rows(rows, actions=["allocate"], queue=queue)
    for pod in sorted(step.before.pods)[:5]:
        assert index.rows(index.about_pod(step.before, pod)) == why_pending(rows, step.before, pod)
    assert record_index(step) is index  # kept on the step


def test_a_new_scenario_lets_the_previous_one_go():
    """Loading another scenario leaves nothing of the previous one reachable from the workspace: its clusters,
    cycles, record index and kept answers are freed (at openb scale they are hundreds of MB)."""
    import gc
    import weakref

    from ui.answers import answer_for

    ws = new_workspace()
    step = ws.step()
    record_index(step)
    pod = sorted(step.before.pods)[0]
    answer_for(ws, 1, "pod", pod)  # keeps the answer model's run on the step
    ws.queue_numbers()
    gone = [weakref.ref(step), weakref.ref(step.before), weakref.ref(ws.cluster)]
    del step
    assert ws.load_fixture("reclaim")
    gc.collect()
    assert [r() is None for r in gone] == [True, True, True]


def test_treemap_draws_two_levels_at_a_time_in_cores(stepped):
    at = _open(stepped, "pages/treemaps.py")
    trace = _figure(at)["data"][0]
    assert trace["maxdepth"] == 2 and len(trace["ids"]) == 221  # every queue there, opened by clicking
    assert dict(zip(trace["ids"], trace["customdata"], strict=True))["dept-00-q00"][0] == "16.5"  # not "16500m"


def test_crowded_tree_level_labels_alternate_so_they_do_not_overlap(stepped):
    at = _open(stepped, "pages/queues.py")
    nodes = _figure(at)["data"][1]
    depts = [p for t, p in zip(nodes["text"], nodes["textposition"], strict=True) if t.startswith("dept-")]
    assert len(depts) == 20 and depts.count("top center") == 10 and depts.count("bottom center") == 10


def test_answers_about_one_cycle_share_one_run_and_a_new_cycle_gets_its_own():
    """The answer model's index of a cycle's records is built once for every question about that cycle
    (choosing another pod took 7.9 s at openb scale when each answer rebuilt it)."""
    from ui.answers import answer_for, workspace_run

    ws = new_workspace()
    ws.step()
    pods = sorted(ws.history[0].before.pods)
    answer_for(ws, 1, "pod", pods[0])
    run = ws.answer_run[2]
    answer_for(ws, 1, "pod", pods[1])
    assert ws.answer_run[2] is run and workspace_run(ws, 1, "pod", pods[2]) is run
    ws.step()
    assert workspace_run(ws, 2, "pod", pods[0]) is not run
    assert workspace_run(ws, 1, "pod", pods[0]) is not run  # cycle 1's after is now a copy: a run of its own


def test_lint_sends_one_page_of_findings_and_a_search_narrows_them(stepped):
    """242 findings at this scale (a warning per leaf and department about a resource no node has, and two more):
    one page of each severity, the rules counted above it, and a search box applied on the server."""
    at = _open(stepped, "pages/lint.py")
    assert [m.value for m in at.metric[:3]] == ["0", "242", "0"]
    assert [h.value for h in at.subheader] == ["Warning (242)"]
    assert len(at.dataframe[0].value) == PAGE_SIZE
    assert "240 unknown-resource · 2 victim-tier-order" in [c.value for c in at.caption]
    at.number_input(key="lint_ws_warning_page").set_value(5).run()
    assert len(at.dataframe[0].value) == 242 - 4 * PAGE_SIZE
    at.text_input(key="lint_ws_search").input("victim-tier-order").run()
    table = at.dataframe[0].value
    assert list(table["rule"]) == ["victim-tier-order"] * 2, "a stale page number never hides the matches"
    at.text_input(key="lint_ws_search").input("DEPT-07-Q03").run()  # any case
    table = at.dataframe[0].value
    assert len(table) >= 1 and all("dept-07-q03" in f"{o}{f}{p}" for o, f, p in
                                   zip(table["object"], table["field"], table["problem"], strict=True))
    at.text_input(key="lint_ws_search").input("no-such-thing").run()
    assert not [d for d in at.dataframe if "problem" in d.value.columns], "no table of findings"
    assert "None of the 242 contains 'no-such-thing'." in [c.value for c in at.caption]
    assert not at.exception


def test_compare_treemaps_draw_two_levels_at_a_time(stepped):
    """Compare's two treemaps open a few hundred queues as the Treemaps page does: two levels, then by clicking."""
    at = _open(stepped, "pages/compare.py")
    at.button(key="compare_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    for side in (0, 1):
        trace = _figure(at, side)["data"][0]
        assert trace["type"] == "treemap" and trace["maxdepth"] == 2 and len(trace["ids"]) == 221
    assert sum("221 queues: 2 levels drawn at a time" in c.value for c in at.caption) == 2
