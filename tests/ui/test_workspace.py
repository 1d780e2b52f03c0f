"""The Workspace (plain Python): loading never loses the previous valid state; step, run and rewind."""

from __future__ import annotations

import json

import pytest

from capacity.authoring import edit
from capacity.io.export import export_yaml
from capacity.scheduler import run_cycle
from capacity.simulation.timeline import Until
from ui.state import Workspace, fixture_description, fixture_names, new_workspace, option_names
from ui.views import (
    cycle_summary,
    filter_rows,
    job_rows,
    pod_rows,
    record_links,
    record_rows,
    trace_jsonl,
    why_pending,
)


@pytest.fixture
def ws() -> Workspace:
    return new_workspace()


def test_fixtures_are_listed_default_first_with_descriptions():
    names = fixture_names()
    assert names[0] == "default" and "reclaim" in names
    for name in names:
        assert fixture_description(name).startswith("# ")


def test_failed_load_keeps_everything(ws):
    ws.step()
    cluster, history = ws.cluster, list(ws.history)
    assert not ws.load_text("kind: Queue\nmetadata: {name: q}\nspec: {weight: x}\n", name="bad", source="bad.yaml",
                            input_key="upload")
    assert ws.cluster is cluster and ws.history == history and ws.scenario == "default"
    problem = ws.errors["upload"]
    assert (problem.obj, problem.field) == ("Queue/q", "spec.weight")


def test_successful_load_replaces_and_clears(ws):
    ws.step()
    assert not ws.load_text("not: [valid", name="bad", source="bad.yaml", input_key="upload")
    assert "upload" in ws.errors  # a stale error from another input goes away on the next success
    assert ws.load_fixture("reclaim")
    assert ws.scenario == "reclaim" and ws.cycle == 0 and ws.errors == {}
    assert not ws.load_fixture("no-such-fixture")
    assert ws.scenario == "reclaim" and "fixture" in ws.errors


def test_step_matches_the_engine_and_keeps_the_state_before(ws):
    reference = new_workspace().cluster
    expected = run_cycle(reference)
    before = export_yaml(ws.cluster)
    step = ws.step()
    assert step.cycle == 1 and ws.cycle == 1
    assert step.result.binds == expected.binds and step.result.queues == expected.queues
    assert export_yaml(step.before) == before
    assert export_yaml(ws.cluster) == export_yaml(reference)
    assert step.records and {r.cycle for r in step.records} == {1}


def test_run_and_rewind(ws):
    after = []
    for _ in range(3):
        ws.step()
        after.append(export_yaml(ws.cluster))
    ws.run(2)
    assert ws.cycle == 5 and [s.cycle for s in ws.history] == [1, 2, 3, 4, 5]
    ws.rewind(2)
    assert ws.cycle == 2 and export_yaml(ws.cluster) == after[1]
    assert export_yaml(ws.cluster_after(1)) == after[0]
    ws.step()
    assert export_yaml(ws.cluster) == after[2], "replaying after a rewind gives the same cycle"
    ws.rewind(0)
    assert ws.cycle == 0 and export_yaml(ws.cluster) == export_yaml(new_workspace().cluster)
    ws.rewind(7)  # out of range: nothing happens
    assert ws.cycle == 0


@pytest.mark.parametrize("fixture", ["default", "reclaim", "tidal"])
def test_every_earlier_state_survives_later_cycles(fixture):
    """The history keeps cheap copies (`Cluster.copy_state`): later binds, evictions and phase changes
    must not leak into them."""
    ws = new_workspace()
    assert ws.load_fixture(fixture)
    seen = []
    for _ in range(4):
        seen.append(export_yaml(ws.cluster))
        assert ws.step() is not None
    assert [export_yaml(s.before) for s in ws.history] == seen
    assert any(s.result.binds or s.result.evicted for s in ws.history)
    ws.rewind(1)
    ws.step()
    assert export_yaml(ws.history[0].before) == seen[0]


def test_queue_numbers_are_the_engines(ws):
    numbers = ws.queue_numbers()
    result = run_cycle(ws.cluster, write_back=False)
    assert set(numbers) == set(result.queues)
    for name, q in numbers.items():
        for metric in ("deserved", "realCapability", "capability", "guarantee"):
            assert q[metric] == result.queues[name][metric], (name, metric)
    assert numbers["research-train"]["allocated"]["nvidia.com/gpu"] == 8000  # before the cycle allocates
    assert ws.share_history() == []
    ws.step()
    assert ws.share_history() == [(1, ws.history[0].result.queues)]


def test_tables_and_decisions(ws):
    jobs = {r["job"]: r for r in job_rows(ws.cluster)}
    assert jobs["research/train-llm"]["waiting"] == 4 and jobs["research/train-resnet"]["placed"] == 2
    pods = {r["pod"]: r for r in pod_rows(ws.cluster)}
    assert pods["research/eval-bert-0"]["queue"] == "research-eval" and pods["research/eval-bert-0"]["node"] == ""
    step = ws.step()
    summary = cycle_summary(step)
    assert {b["pod"] for b in summary.binds} == set(step.result.binds)
    assert {p["job"] for p in summary.phases} == {"production/batch-report", "research/eval-bert"}
    rows = record_rows(step.records, step.before)
    allocate = next(r for r in step.records if r.kind == "bind")
    links = record_links(allocate, step.before)
    assert links.pod == allocate.subject and links.queue
    assert filter_rows(rows, actions=["enqueue"], queue="analytics-adhoc")
    pending = why_pending(rows, step.before, "research/train-llm-2")
    # the job's records, and its queue's (queueFigures: the queue's numbers at session open)
    assert all(r["job"] == "research/train-llm" or r["subject"] == "research-train" for r in pending)
    assert any(r["job"] == "research/train-llm" for r in pending)
    assert why_pending(rows, step.before, "nobody/nothing") == []


def test_evictions_in_the_cycle_summary():
    ws = new_workspace()
    ws.load_fixture("reclaim")
    summary = cycle_summary(ws.step())
    assert {e["pod"] for e in summary.evicted} == {"team-a/spark-etl-2", "team-a/spark-etl-3"}
    assert summary.evicted[0]["node"] == "node-1" and summary.evicted[0]["queue"] == "team-a"
    assert summary.pipelined == [{"job": "team-b/train", "nodes": "node-1, node-1"}]
    # Cycle 2: the evicted pods are still terminating (Releasing), train stays pipelined on them.
    assert cycle_summary(ws.step()).binds == []
    third = cycle_summary(ws.step())
    assert {b["pod"] for b in third.binds} == {"team-b/train-0", "team-b/train-1"}


def test_trace_download_is_the_cli_format(ws):
    ws.run(2)
    lines = trace_jsonl(ws.history).splitlines()
    assert len(lines) == sum(len(s.records) for s in ws.history)
    first = json.loads(lines[0])
    assert {"cycle", "action", "kind", "subject", "verdict"} <= set(first)
    assert {json.loads(line)["cycle"] for line in lines} == {1, 2}


def test_option_names_are_the_engines_switches(ws):
    assert {"leaf_only_allocatable", "seed004_root_init"} <= set(option_names(ws.options))


def test_edit_refused_keeps_everything_and_the_draft(ws):
    from capacity.authoring import edit

    ws.step()
    cluster, history = ws.cluster, list(ws.history)
    assert not ws.edit("queue_add", edit.add_queue, "research", "root", draft={"qa_name": "research"})
    assert ws.cluster is cluster and ws.history == history and ws.revision == 0
    assert (ws.errors["queue_add"].obj, ws.errors["queue_add"].field) == ("Queue/research", "metadata.name")
    assert ws.drafts["queue_add"] == {"qa_name": "research"}
    assert ws.edit("queue_add", edit.add_queue, "team-new", "research", notice="added")
    assert ws.revision == 1 and "queue_add" not in ws.errors and "queue_add" not in ws.drafts
    assert ws.notices["queue_add"] == "added" and "team-new" in ws.cluster.queues
    assert ws.history == history, "an edit applies from now on; the cycles run so far stay"
    assert ws.findings_about("Queue/team-new") == []
    ws.rewind(0)
    assert "team-new" not in ws.cluster.queues, "rewinding goes back to before the edit"


def test_tidal_fixture_runs_in_the_dashboard_and_its_decisions_name_the_rule(ws):
    """Seed 001's fixture: loaded as a scenario, one step, and the eviction names capacity-card's rule."""
    from capacity.analysis.explain import explain_pod

    assert ws.load_fixture("tidal")
    step = ws.step()
    assert step is not None
    assert step.result.evicted == ["ai/training-low-worker2-0"]
    exp = explain_pod(step.records, step.before, "ai/training-low-worker2-0")
    assert exp.rule == "capacity-card.inferenceReclaimsTraining"
    pending = explain_pod(step.records, step.before, "ai/training-urgent-worker-0")
    assert "training never takes resources from training or inference" in pending.sentence


def test_queue_numbers_are_asked_once_per_state(ws):
    """Pages rerun on every widget change: the numbers of an unchanged state are not worked out again, and
    every change of state (a step, an edit, an option, a rewind) gives fresh ones."""
    from dataclasses import replace

    from capacity.authoring.edit import set_queue_resources

    first = ws.queue_numbers()
    assert ws.queue_numbers() is first
    ws.step()
    stepped = ws.queue_numbers()
    assert stepped is not first and stepped == Workspace(ws.scenario, ws.cluster).queue_numbers()
    assert stepped != first  # the cycle bound pods: some queue's allocated moved
    assert ws.edit("q", set_queue_resources, "research-train", deserved={"cpu": "30", "memory": "256Gi",
                                                                          "nvidia.com/gpu": "8"})
    edited = ws.queue_numbers()
    assert edited is not stepped and edited["research-train"]["deserved"]["cpu"] == 30000
    ws.options = replace(ws.options, seed004_root_init=True)
    assert ws.queue_numbers() is not edited
    ws.rewind(0)
    assert ws.queue_numbers() == Workspace(ws.scenario, ws.cluster, options=ws.options).queue_numbers()


# ---- edits in the timeline, undo, run until, branches ---------------------------------------------
def _add_team(ws: Workspace, name: str = "team-new") -> bool:
    return ws.edit("queue_add", edit.add_queue, name, "research", notice=f"Added queue `{name}`.")


def test_rewind_past_an_edit_names_it_and_undo_brings_it_back(ws):
    ws.run(2)
    assert _add_team(ws)
    ws.run(2)
    assert [e.label for e in ws.edits] == ["Added queue team-new."] and ws.edits[0].at_cycle == 2
    assert ws.edits_dropped_by_rewind(2) == [], "the state after cycle 2 is what cycle 3 found: it has the edit"
    assert [e.label for e in ws.edits_dropped_by_rewind(1)] == ["Added queue team-new."]
    ws.rewind(1)
    assert "team-new" not in ws.cluster.queues and ws.edits == [] and ws.cycle == 1
    assert ws.notices == {}, "the 'Added queue' notice goes with the edit"
    assert ws.undo_label() == "undo rewind to cycle 1"
    ws.undo()
    assert "team-new" in ws.cluster.queues and ws.cycle == 4 and len(ws.edits) == 1


def test_undo_the_last_edit_says_which_cycles_it_also_drops(ws):
    ws.step()
    assert _add_team(ws)
    assert ws.undo_label() == "undo edit: Added queue team-new."
    ws.run(2)
    assert ws.undo_label() == "undo edit: Added queue team-new. (also drops cycles 2-3 run since)"
    ws.undo()
    assert "team-new" not in ws.cluster.queues and ws.cycle == 1 and ws.edits == []
    assert ws.undo_label() == "" and ws.undo() == ""


def test_a_refused_sibling_sum_edit_keeps_its_fix_and_applying_it_is_one_edit(ws):
    assert not ws.edit("queue_add", edit.add_queue, "team-x", "research", deserved={"cpu": "4"},
                       notice="Added queue `team-x`.")
    assert ws.fixes["queue_add"].fix.raise_to["cpu"] == "68"
    assert ws.apply_fix("queue_add")
    assert ws.cluster.queues["research"].deserved.cpu == 68000 and "team-x" in ws.cluster.queues
    assert ws.notices["queue_add"] == "Raised `research`'s deserved to cpu 68. Added queue `team-x`."
    assert "queue_add" not in ws.fixes and "queue_add" not in ws.errors
    ws.undo()
    assert ws.cluster.queues["research"].deserved.cpu == 64000 and "team-x" not in ws.cluster.queues


def test_run_until_stops_at_the_cycle_that_meets_it_or_at_the_maximum():
    ws = new_workspace()
    ws.load_fixture("reclaim")
    steps, why = ws.run_until(Until("job", "team-b/train"), 10)
    assert [s.cycle for s in steps] == [1, 2, 3] and why.startswith("job team-b/train: bound")
    steps, why = ws.run_until(Until("eviction"), 4)
    assert len(steps) == 4 and why is None and ws.cycle == 7


def test_branch_keeps_the_original_timeline_and_switching_comes_back(ws):
    ws.run(3)
    main_state = export_yaml(ws.cluster)
    assert ws.branch(1) == "branch at cycle 1"
    assert ws.cycle == 1 and ws.timeline_names() == ["branch at cycle 1", "main"]
    assert _add_team(ws)
    ws.step()
    assert ws.switch_timeline("main")
    assert ws.cycle == 3 and export_yaml(ws.cluster) == main_state and "team-new" not in ws.cluster.queues
    assert ws.switch_timeline("branch at cycle 1")
    assert ws.cycle == 2 and "team-new" in ws.cluster.queues and len(ws.edits) == 1
    assert ws.branch(2) == "branch at cycle 2" and len(ws.timelines) == 2


def test_loading_a_scenario_starts_a_fresh_timeline(ws):
    ws.step()
    assert _add_team(ws)
    ws.branch(0)
    assert ws.load_fixture("reclaim")
    assert (ws.edits, ws.undo_stack, ws.timelines, ws.timeline, ws.notices) == ([], [], {}, "main", {})
    assert ws.undo() == "", "undo never brings back another scenario"


def test_an_engine_bug_during_a_step_keeps_the_last_good_state(ws, monkeypatch):
    """Not an input error: the step is refused with one message naming the cycle, and nothing is lost."""
    import capacity.simulation.steps

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    before = export_yaml(ws.cluster)
    monkeypatch.setattr(capacity.simulation.steps, "run_cycle", broken)
    assert ws.step() is None
    assert ws.cycle == 0 and export_yaml(ws.cluster) == before
    problem = ws.errors["simulate"]
    assert problem.obj == "cycle 1" and "ZeroDivisionError" in problem.message and "kept" in problem.message
