"""AppTest: the editors (queues, jobs, nodes, scheduler) and the decision pages' victims and explanations.

Every edit is driven through the same text inputs and buttons a person uses; refused edits must show the
reason naming object and field and keep what the user typed (also after leaving the page and coming back).
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.state import WORKSPACE_KEY, Workspace

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _open(page_path: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(page_path).run()
    _clean(at)
    return at


def _clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _ws(at: AppTest) -> Workspace:
    return at.session_state[WORKSPACE_KEY]


def _frame(at: AppTest, column: str):
    """The first table with this column (st.dataframe keys are not visible to AppTest)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _step(at: AppTest) -> None:
    at.switch_page("pages/simulate.py").run()
    at.button(key="step_btn").click().run()
    _clean(at)


def _add_queue(at: AppTest, name: str, parent: str, **quotas: str) -> None:
    at.text_input(key="qa_name").input(name)
    at.selectbox(key="qa_parent").select(parent)
    for field, quantity in quotas.items():
        at.text_input(key=f"qa_{field}").input(quantity)
    at.button(key="qa_submit").click().run()
    _clean(at)


# ---- queues -------------------------------------------------------------------------------------
def test_add_a_leaf_queue_with_a_capability():
    at = _open("pages/queues.py")
    _add_queue(at, "team-new", "research", capability_cpu="4", capability_memory="8Gi")
    assert "Added queue `team-new`." in [s.value for s in at.success]
    q = _ws(at).cluster.queues["team-new"]
    assert q.parent == "research" and q.capability.cpu == 4000
    assert "**team-new**" in _text(at)
    assert "team-new" in set(_frame(at, "share")["queue"]), "the queue plugin reports the new queue"
    assert at.text_input(key="qa_name").value == "", "an accepted add clears the form"


def test_refused_edit_names_object_and_field_and_keeps_the_input():
    at = _open("pages/queues.py")
    before = _ws(at).cluster
    at.selectbox(key="qe_choice").select("research-eval").run()
    at.text_input(key="qe_deserved_cpu").input("60")
    at.button(key="qe_apply").click().run()
    _clean(at)
    error = at.error[0].value
    assert "`Queue/research` · `spec.deserved.cpu`" in error and "children-deserved-above-parent" in error
    assert "your input is kept" in error
    assert _ws(at).cluster is before, "a refused edit changes nothing"
    assert at.text_input(key="qe_deserved_cpu").value == "60"
    at.switch_page("pages/jobs.py").run()
    at.switch_page("pages/queues.py").run()
    _clean(at)
    assert at.selectbox(key="qe_choice").value == "research-eval"
    assert at.text_input(key="qe_deserved_cpu").value == "60", "the draft survives a page switch"
    at.text_input(key="qe_deserved_cpu").input("12")
    at.button(key="qe_apply").click().run()
    _clean(at)
    assert not at.error and _ws(at).cluster.queues["research-eval"].deserved.cpu == 12000


def test_self_parent_cycle_and_bad_quantity_are_refused():
    at = _open("pages/queues.py")
    _add_queue(at, "research", "root")
    assert "`Queue/research` · `metadata.name`" in at.error[0].value
    at.text_input(key="qa_name").input("loopy")
    at.selectbox(key="qa_parent").select("research-train")
    at.button(key="qa_submit").click().run()
    assert "job-on-non-leaf-queue" in at.error[0].value, "research-train holds jobs: it must stay a leaf"
    at.selectbox(key="qe_choice").select("research").run()
    at.selectbox(key="qe_parent").select("research-dev")
    at.button(key="qe_apply").click().run()
    assert "cycle" in at.error[-1].value and "`spec.parent`" in at.error[-1].value
    at.selectbox(key="qe_choice").select("research-dev").run()
    at.text_input(key="qe_capability_cpu").input("many")
    at.button(key="qe_apply").click().run()
    assert "`Queue/research-dev` · `spec.capability.cpu`" in at.error[-1].value


def test_warning_shown_next_to_the_queue_and_the_edit_kept():
    at = _open("pages/queues.py")
    _add_queue(at, "gpu-typo", "research", capability_cpu="2")
    at.selectbox(key="qe_choice").select("gpu-typo").run()
    at.selectbox(key="qe_state").select("Closed")
    at.button(key="qe_apply").click().run()
    _clean(at)
    assert _ws(at).cluster.queues["gpu-typo"].state == "Closed"
    assert "Applied the changes to queue `gpu-typo`." in [s.value for s in at.success]


def test_rename_and_remove():
    at = _open("pages/queues.py")
    at.selectbox(key="qr_choice").select("research-dev")
    at.text_input(key="qr_name").input("dev")
    at.button(key="qr_rename").click().run()
    _clean(at)
    ws = _ws(at)
    assert "dev" in ws.cluster.queues and "research-dev" not in ws.cluster.queues
    assert all(pg.queue != "research-dev" for pg in ws.cluster.podgroups.values())
    at.selectbox(key="qr_choice").select("research").run()
    at.button(key="qr_remove").click().run()
    assert "child queues" in at.error[0].value and "research" in _ws(at).cluster.queues
    _add_queue(at, "spare", "production")
    at.selectbox(key="qr_choice").select("spare").run()
    at.button(key="qr_remove").click().run()
    _clean(at)
    assert "spare" not in _ws(at).cluster.queues and "Removed queue `spare`." in [s.value for s in at.success]


# ---- jobs ---------------------------------------------------------------------------------------
def test_submit_a_job_then_step_binds_it():
    at = _open("pages/queues.py")
    _add_queue(at, "team-new", "research", capability_cpu="4", capability_memory="8Gi")
    at.switch_page("pages/jobs.py").run()
    at.text_input(key="jf_name").input("hello")
    at.selectbox(key="jf_queue").select("team-new")
    at.number_input(key="jf_replicas").set_value(2)
    at.number_input(key="jf_min").set_value(3)
    at.button(key="jf_submit").click().run()
    _clean(at)
    assert "`PodGroup/default/hello` · `spec.minMember`" in at.error[0].value
    assert at.text_input(key="jf_name").value == "hello", "the refused form keeps its input"
    at.number_input(key="jf_min").set_value(2)
    at.button(key="jf_submit").click().run()
    _clean(at)
    assert not at.error and "Submitted job `default/hello` (2 pods) to queue `team-new`." in \
        [s.value for s in at.success]
    pods = _frame(at, "pod")
    assert set(pods[pods["job"] == "default/hello"]["queue"]) == {"team-new"}
    _step(at)
    at.switch_page("pages/jobs.py").run()
    pods = _frame(at, "pod")
    hello = pods[pods["job"] == "default/hello"]
    assert len(hello) == 2 and all(hello["node"] != "")


def test_generate_jobs_with_a_seed_and_delete_one():
    at = _open("pages/jobs.py")
    jobs = len(_frame(at, "minMember"))
    at.number_input(key="gen_seed").set_value(11)
    at.number_input(key="gen_jobs").set_value(4)
    at.button(key="gen_submit").click().run()
    _clean(at)
    assert len(_frame(at, "minMember")) == jobs + 4
    assert any(s.value.startswith("Generated 4 jobs") for s in at.success)
    at.button(key="gen_submit").click().run()
    assert "already exists" in at.error[0].value, "the same seed gives the same jobs: refused as duplicates"
    generated = sorted(j for j in _ws(at).cluster.podgroups if j.startswith("gen-11/"))
    at.selectbox(key="jd_choice").select(generated[0])
    at.button(key="jd_delete").click().run()
    _clean(at)
    assert len(_frame(at, "minMember")) == jobs + 3


# ---- nodes --------------------------------------------------------------------------------------
def test_edit_add_and_refuse_nodes():
    at = _open("pages/nodes.py")
    assert len(_frame(at, "allocatable")) == 5
    at.selectbox(key="ne_choice").select("cpu-1").run()
    at.text_input(key="ne_cpu").input("64")
    at.checkbox(key="ne_unschedulable").check()
    at.button(key="ne_apply").click().run()
    _clean(at)
    node = next(n for n in _ws(at).cluster.nodes if n.name == "cpu-1")
    assert node.allocatable.cpu == 64000 and node.unschedulable
    busy = next(p.node_name for p in _ws(at).cluster.pods.values() if p.node_name)
    at.selectbox(key="ne_choice").select(busy).run()
    at.button(key="ne_remove").click().run()
    assert f"`Node/{busy}`" in at.error[0].value and "bound" in at.error[0].value
    at.text_input(key="na_name").input("node-9")
    at.button(key="na_submit").click().run()
    _clean(at)
    assert len(_frame(at, "allocatable")) == 6


# ---- scheduler ----------------------------------------------------------------------------------
def test_scheduler_actions_tiers_hierarchy_and_switches():
    at = _open("pages/scheduler.py")
    tiers = _frame(at, "plugin")
    assert "capacity" in set(tiers["plugin"]) and "enableHierarchy=true" in set(tiers["switches"])
    at.text_input(key="sch_actions").input("enqueue, allocat")
    at.button(key="sch_actions_apply").click().run()
    _clean(at)
    assert "`actions[1]`" in at.error[0].value and at.text_input(key="sch_actions").value == "enqueue, allocat"
    at.text_input(key="sch_actions").input("enqueue, allocate, backfill")
    at.button(key="sch_actions_apply").click().run()
    assert _ws(at).cluster.conf.actions == ["enqueue", "allocate", "backfill"]
    at.toggle(key="sch_hierarchy").set_value(False).run()
    _clean(at)
    assert not _ws(at).cluster.conf.plugin("capacity").hierarchy
    assert any(f.rule == "parent-without-hierarchy" for f in _ws(at).current_findings())
    assert any("warnings" in c.value and "Queues" in c.value for c in at.caption)
    at.toggle(key="sched_option_seed004_root_init").set_value(True).run()
    assert _ws(at).options.seed004_root_init is True
    text = at.text_area(key="sch_conf").value
    at.text_area(key="sch_conf").input(text.replace("enableHierarchy: false", "enableHierarchy: true")
                                       if "enableHierarchy: false" in text else text + "\n")
    at.button(key="sch_conf_apply").click().run()
    _clean(at)
    at.text_area(key="sch_conf").input("actions: [1, 2]\n")
    at.button(key="sch_conf_apply").click().run()
    assert "`volcano-scheduler.conf` · `actions`" in at.error[0].value


# ---- decisions ----------------------------------------------------------------------------------
def test_victims_and_why_evicted_on_the_reclaim_scenario():
    at = _open("pages/scenario.py")
    at.selectbox(key="fixture_choice").select("reclaim").run()
    at.button(key="load_fixture").click().run()
    _step(at)
    at.switch_page("pages/decisions.py").run()
    _clean(at)
    victims = _frame(at, "candidate")
    assert set(victims["action"]) == {"reclaim"} and "decidingTier" in victims.columns
    evicted = victims[victims["evicted"]]
    assert set(evicted["candidate"]) == {"team-a/spark-etl-2", "team-a/spark-etl-3"}
    assert any(c.startswith("tier1:gang") for c in victims.columns)
    at.selectbox(key="why_pod").select("team-a/spark-etl-2").run()
    _clean(at)
    assert "**evicted** in cycle 1" in _text(at) and "reclaim" in _text(at)


def test_why_pending_in_one_click_and_what_would_change():
    at = _open("pages/simulate.py")
    _step(at)
    at.switch_page("pages/decisions.py").run()
    choice = at.selectbox(key="why_pod")
    assert "(pending)" in choice.options[0], "pending pods come first"
    at.selectbox(key="why_pod").select("analytics/adhoc-query-0").run()
    _clean(at)
    assert "**pending** in cycle 1 · rule `capacity.enqueueRealCapability`" in _text(at)
    at.button(key="whatif_btn").click().run()
    _clean(at)
    changes = _frame(at, "description")
    assert len(changes) >= 1 and all(len(placed) > 0 for placed in changes["placed"])


# ---- editing and time: rewind with edits, undo, the sibling-sum fix, run until, branches -------------
def _sim(at: AppTest) -> None:
    at.switch_page("pages/simulate.py").run()
    _clean(at)


def _texts(at: AppTest) -> str:
    return "\n".join(t.value for t in at.text)


def test_rewind_past_an_edit_asks_first_and_undo_brings_it_back():
    at = _open("pages/simulate.py")
    at.button(key="step_btn").click().run()
    at.button(key="step_btn").click().run()
    at.switch_page("pages/queues.py").run()
    _add_queue(at, "team-new", "research")
    _sim(at)
    at.button(key="step_btn").click().run()
    at.selectbox(key="rewind_to").select(1).run()
    at.button(key="rewind_btn").click().run()
    _clean(at)
    assert _ws(at).cycle == 3 and "team-new" in _ws(at).cluster.queues, "nothing happens before the user agrees"
    assert "also undoes 1 edit(s)" in at.warning[0].value
    assert list(_frame(at, "edit")["edit"]) == ["Added queue team-new."]
    at.button(key="rewind_confirm_btn").click().run()
    _clean(at)
    assert _ws(at).cycle == 1 and "team-new" not in _ws(at).cluster.queues
    at.switch_page("pages/queues.py").run()
    assert "Added queue `team-new`." not in [s.value for s in at.success], "the notice goes with the edit"
    _sim(at)
    assert "Undo rewind to cycle 1" in _texts(at)
    at.button(key="undo_btn").click().run()
    _clean(at)
    assert _ws(at).cycle == 3 and "team-new" in _ws(at).cluster.queues
    assert "Undone." in [s.value for s in at.success] and "Undo rewind to cycle 1." in _texts(at)


def test_cancel_keeps_the_edit_and_a_rewind_without_later_edits_does_not_ask():
    at = _open("pages/simulate.py")
    at.button(key="step_btn").click().run()
    at.switch_page("pages/queues.py").run()
    _add_queue(at, "team-new", "research")
    _sim(at)
    at.button(key="step_btn").click().run()
    at.selectbox(key="rewind_to").select(0).run()
    at.button(key="rewind_btn").click().run()
    at.button(key="rewind_cancel_btn").click().run()
    _clean(at)
    assert _ws(at).cycle == 2 and not at.warning
    at.selectbox(key="rewind_to").select(1).run()  # the edit was made after cycle 1: the state kept has it
    at.button(key="rewind_btn").click().run()
    _clean(at)
    assert _ws(at).cycle == 1 and "team-new" in _ws(at).cluster.queues and not at.warning


def test_undo_the_last_edit_from_the_editor():
    at = _open("pages/queues.py")
    _add_queue(at, "team-new", "research")
    at.button(key="queue_add_undo").click().run()
    _clean(at)
    assert "team-new" not in _ws(at).cluster.queues and _ws(at).edits == []


def test_sibling_sum_refusal_suggests_the_fix_and_its_button_applies_the_parent_raise():
    at = _open("pages/queues.py")
    _add_queue(at, "team-x", "research", deserved_cpu="4")
    assert "team-x" not in _ws(at).cluster.queues
    assert ("Suggested fix: siblings' deserved would add up to cpu 68 > research's cpu 64: lower research-train's "
            "deserved to cpu 36, or raise research's deserved to cpu 68.") in _texts(at)
    button = at.button(key="queue_add_fix_btn")
    assert button.label == "Raise the parent's deserved and retry", "a fixed label: names are shown as text"
    assert "The button raises research's deserved to cpu 68, then makes your edit again." in _texts(at)
    button.click().run()
    _clean(at)
    cluster = _ws(at).cluster
    assert cluster.queues["research"].deserved.cpu == 68000 and cluster.queues["team-x"].deserved.cpu == 4000
    assert "Raised `research`'s deserved to cpu 68. Added queue `team-x`." in [s.value for s in at.success]
    assert not at.error


def test_sibling_sum_fix_refused_by_the_webhook_says_why():
    at = _open("pages/queues.py")
    _add_queue(at, "team-x", "research", deserved_cpu="60", capability_cpu="60")
    at.button(key="queue_add_fix_btn").click().run()
    _clean(at)
    assert "team-x" not in _ws(at).cluster.queues and _ws(at).cluster.queues["research"].deserved.cpu == 64000
    assert "capability" in at.error[0].value


def _run_until(at: AppTest, kind: str, target: str = "", most: int = 20) -> None:
    at.selectbox(key="until_kind").select(kind).run()
    if target:
        at.selectbox(key="until_queue" if kind == "queue-reclaim" else "until_job").select(target).run()
    at.number_input(key="until_max").set_value(most).run()
    at.button(key="until_btn").click().run()
    _clean(at)


def _reclaim_app() -> AppTest:
    at = _open("pages/simulate.py")
    _ws(at).load_fixture("reclaim")
    return at.run()


def test_run_until_each_condition_stops_at_its_cycle_and_shows_it():
    cases = [("eviction", "", 1, "2 pod(s) evicted"),
             ("queue-reclaim", "team-b", 1, "queue team-b reclaims: team-b/train-"),
             ("queue-reclaim", "team-a", 1, "queue team-a is reclaimed from"),
             ("job", "team-b/train", 3, "job team-b/train: bound team-b/train-0, team-b/train-1"),
             ("quiet", "", 2, "nothing changed")]
    for kind, target, cycle, words in cases:
        at = _reclaim_app()
        _run_until(at, kind, target)
        assert _ws(at).cycle == cycle, kind
        assert f"Stopped at cycle {cycle} after {cycle} cycle(s): the condition was met." in \
            [s.value for s in at.success], kind
        assert words in _texts(at), kind
        summary = _ws(at).step_at(cycle).result
        assert f"Cycle {cycle}: {len(summary.binds)} bind(s), {len(summary.evicted)} eviction(s)." in _texts(at)
        assert at.selectbox(key="shown_cycle").value == cycle, "the page shows the cycle it stopped at"
        assert any("Decisions" in str(link.proto.label) for link in at.get("page_link")), "a link to the reasons"


def test_run_until_never_met_stops_at_the_maximum():
    at = _reclaim_app()
    _run_until(at, "job", "team-a/spark-etl")  # evicted in cycle 1: met
    _run_until(at, "eviction", most=3)
    assert _ws(at).cycle == 4
    assert "Cycles 2-4 together: 2 bind(s), 0 eviction(s)." in _texts(at)
    assert "Ran 3 cycle(s), up to cycle 4; the condition was not met." in [i.value for i in at.info]


def test_branch_from_a_past_cycle_and_switch_between_timelines():
    at = _open("pages/simulate.py")
    at.number_input(key="run_n").set_value(3).run()
    at.button(key="run_btn").click().run()
    at.selectbox(key="branch_at").select(1).run()
    at.button(key="branch_btn").click().run()
    _clean(at)
    assert _ws(at).cycle == 1 and _ws(at).timeline == "branch at cycle 1"
    at.switch_page("pages/queues.py").run()
    _add_queue(at, "team-new", "research")
    _sim(at)
    assert list(_frame(at, "edit")["edit"]) == ["Added queue team-new."]
    at.selectbox(key="timeline_pick").select("main").run()
    _clean(at)
    assert _ws(at).cycle == 3 and "team-new" not in _ws(at).cluster.queues
    assert "No edits on this timeline yet." in _texts(at)
    at.selectbox(key="timeline_pick").select("branch at cycle 1").run()
    assert _ws(at).cycle == 1 and "team-new" in _ws(at).cluster.queues
