"""AppTest: the Decisions page answers "why?" for a pod, a job (also a PodGroup enqueue refused, which has no
pods) or a queue (also one with child queues) with the engine's Answer, as readable text; Compare lines up
PodGroup phases and enqueue verdicts between two configurations, with each side's sentence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from capacity.analysis.answer import answer_job, answer_pod, answer_queue, explain_run
from capacity.analysis.compare import Config, compare
from capacity.authoring.edit import add_queue
from capacity.core.errors import InputError
from capacity.io.k8s import load_cluster
from ui.answers import answer_for
from ui.state import WORKSPACE_KEY, new_workspace
from ui.text import md_escape

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
FULL_QUEUE = (ROOT / "tests/e2e/data/full-queue.yaml").read_text()
#: The full-queue scenario's conf with capacity's enqueue check (jobEnqueueable/jobEnqueued) turned off.
NO_ENQUEUE_CHECK = """actions: "enqueue, allocate, backfill, reclaim, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: capacity
    enableJobEnqueued: false
  - name: nodeorder
"""


def _clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _app(text: str | None = FULL_QUEUE, conf_text: str | None = None, step: bool = True) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    if text is not None:
        ws = at.session_state[WORKSPACE_KEY]
        assert ws.load_text(text, name="full-queue", source="full-queue.yaml", input_key="test", conf_text=conf_text)
    if step:
        at.switch_page("pages/simulate.py").run()
        at.button(key="step_btn").click().run()
        _clean(at)
    at.switch_page("pages/decisions.py").run()
    _clean(at)
    return at


def _texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def _run_of(text: str = FULL_QUEUE, conf_text: str | None = None):
    return explain_run(load_cluster(text, source="full-queue.yaml", conf_text=conf_text), 1)


def test_a_job_without_pods_that_enqueue_refused_is_answered_with_its_numbers():
    at = _app()
    at.radio(key="answer_kind").set_value("job").run()
    _clean(at)
    assert at.subheader[0].value == "Why is this job where it is?"
    picker = at.selectbox(key="why_job")
    assert picker.options[0] == "work/urgent (Pending, no pods)", "jobs not admitted come first"
    assert picker.value == "work/urgent"
    expected = answer_job(_run_of(), "work/urgent")
    # The engine's sentence, whole, as plain text (never only a table cell), with its numbers.
    assert expected.sentence in _texts(at)
    # minResources + allocated + inqueue - elastic > realCapability
    assert "cpu 2 + 4 + 0 - 0 = 6 > 4 (2 over)" in expected.sentence
    assert "**not admitted** in cycle 1 · rule `capacity.enqueueRealCapability`" in [m.value for m in at.markdown]
    # Each figure as a name and its value in the user's units.
    texts = _texts(at)
    for figure in expected.figures:
        i = texts.index(figure.name)
        assert texts[i + 1] == figure.shown
    # The chain in order, the stopper first among its outcomes and marked "stopped here".
    assert expected.stopper is not None
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert badges[0] == ":red-badge[stopped here]"
    assert expected.stopper.text in texts
    assert expected.next in texts


def test_what_would_admit_a_job_that_has_no_pods_yet():
    at = _app()
    at.radio(key="answer_kind").set_value("job").run()
    at.button(key="whatif_btn").click().run()
    _clean(at)
    changes = next(d.value for d in at.dataframe if "description" in d.value.columns)
    assert "raise capability of queue team: cpu 4 -> 6" in list(changes["description"])
    assert "enqueue has not admitted it" in " ".join(_texts(at))


def test_a_what_if_answer_is_not_shown_for_another_release():
    """The answer was worked out on HEAD's rules: after choosing v1.13 on the Scheduler page, the page offers to
    ask again instead of showing HEAD's changes (the cache used to be keyed by cycle and job only)."""
    from capacity.framework.session import SessionOptions
    from capacity.versions import version
    at = _app()
    at.radio(key="answer_kind").set_value("job").run()
    at.button(key="whatif_btn").click().run()
    assert any("description" in d.value.columns for d in at.dataframe)
    v = version("1.13")
    at.session_state[WORKSPACE_KEY].options = SessionOptions(lacking=v.lacking, version=v.label)
    at.run()
    _clean(at)
    assert not any("description" in d.value.columns for d in at.dataframe)
    assert at.button(key="whatif_btn")


def test_a_pod_and_what_would_change():
    at = _app()
    picker = at.selectbox(key="why_pod")
    assert at.subheader[0].value == "Why is this pod pending or evicted?"
    picker.select("work/batch-low-0").run()
    _clean(at)
    expected = answer_pod(_run_of(), "work/batch-low-0")
    assert expected.sentence in _texts(at)
    assert any(m.value.startswith(f"**{expected.outcome}**") for m in at.markdown)


def test_several_cycles_one_line_each_and_a_bound_pod_has_no_stopper():
    at = AppTest.from_file(APP, default_timeout=60).run()
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.load_fixture("reclaim")
    ws.run(3)
    at.switch_page("pages/decisions.py").run()
    _clean(at)
    at.selectbox(key="why_pod").select("team-b/train-0").run()
    _clean(at)
    run = explain_run(ws.history[0].before, 3)
    expected = answer_pod(run, "team-b/train-0")
    assert expected.outcome == "bound" and len(expected.per_cycle) == 3
    texts = _texts(at)
    assert expected.sentence in texts
    for cycle, line in expected.per_cycle:
        assert f"cycle {cycle}: {line}" in texts
    assert "**Cycle by cycle**" in [m.value for m in at.markdown]
    assert ":red-badge[stopped here]" not in [m.value for m in at.markdown], "a bound pod was not stopped"
    at.selectbox(key="decisions_cycle").select(1).run()
    _clean(at)
    assert answer_pod(explain_run(ws.history[0].before, 1), "team-b/train-0").sentence in _texts(at)


def test_a_queue_with_child_queues_is_answered():
    at = _app(text=None)  # the default scenario: root > research > research-train, ...
    at.radio(key="answer_kind").set_value("queue").run()
    _clean(at)
    picker = at.selectbox(key="why_queue")
    assert "research (has child queues)" in picker.options and picker.options[0] == "root (has child queues)"
    picker.select("research").run()
    _clean(at)
    ws = at.session_state[WORKSPACE_KEY]
    run = explain_run(ws.history[0].before, 1)
    expected = answer_queue(run, "research")
    assert expected.sentence in _texts(at)
    assert at.code and at.code[0].value.startswith("Queue/research")


def test_an_undeclared_root_queue_is_answered_too():
    at = _app()
    at.radio(key="answer_kind").set_value("queue").run()
    picker = at.selectbox(key="why_queue")
    assert picker.options[0] == "root (not declared) (has child queues)" and picker.value == "root"
    _clean(at)
    expected = answer_queue(_run_of(), "root")
    assert expected.sentence in _texts(at)
    assert [c.subject for c in expected.children] == ["Queue/team"]
    assert f"team: {expected.children[0].sentence}" in _texts(at)


def test_session_notes_are_shown():
    conf = NO_ENQUEUE_CHECK.replace("  - name: drf\n", "  - name: drf\n    enableHierarchy: true\n")
    at = _app(conf_text=conf)
    notes = at.session_state[WORKSPACE_KEY].history[0].result.notes
    assert any(n.startswith("drf: enableHierarchy") for n in notes)
    assert [m.value for m in at.markdown if m.value == "**Session notes of cycle 1**"]
    for note in notes:
        assert note in _texts(at)


def test_names_from_the_input_are_never_read_as_markdown():
    sly = "**urgent**_:red[x]"
    at = _app(FULL_QUEUE.replace("name: urgent\n  namespace: work", f"name: '{sly}'\n  namespace: work"))
    at.radio(key="answer_kind").set_value("job").run()
    _clean(at)
    assert at.selectbox(key="why_job").value == f"work/{sly}"
    assert any(f"work/{sly}" in t for t in _texts(at)), "the sentence shows the name as it is"
    for m in at.markdown:
        bare = re.sub(r"`[^`]*`", "", m.value)
        assert "**urgent**" not in bare and ":red[" not in bare, m.value
    assert md_escape(sly) == r"\*\*urgent\*\*\_\:red\[x\]"


def test_decisions_before_any_cycle_points_to_simulate():
    at = _app(step=False)
    assert at.info and not at.selectbox


# ---- Compare: PodGroup phases and enqueue verdicts ---------------------------------------------------------
@pytest.mark.parametrize("plugin", ["capacity", "proportion"])
def test_compare_engine_lines_up_phases_and_enqueue_verdicts(plugin: str):
    on = NO_ENQUEUE_CHECK.replace("    enableJobEnqueued: false\n", "").replace("name: capacity", f"name: {plugin}")
    off = NO_ENQUEUE_CHECK.replace("name: capacity", f"name: {plugin}")
    cluster = load_cluster(FULL_QUEUE, source="full-queue.yaml")
    cmp = compare(cluster, Config(f"{plugin} checks", conf_text=on), Config("no check", conf_text=off))
    row = next(r for r in cmp.jobs if r["job"] == "work/urgent")
    assert (row["a phase"], row["b phase"], row["a enqueue"], row["b enqueue"], row["same"]) == \
        ("Pending", "Inqueue", "refused", "admitted", False)
    assert row["a why"] == answer_job(_run_of(conf_text=on), "work/urgent").sentence
    assert "cpu 2 + 4 + 0 - 0 = 6 > 4 (2 over)" in row["a why"]
    assert row["b why"] == answer_job(_run_of(conf_text=off), "work/urgent").sentence
    same = next(r for r in cmp.jobs if r["job"] == "work/batch-low")
    assert same["same"] and same["a why"] == same["b why"] == ""
    assert cmp.differences >= 1
    assert cluster.podgroups["work/urgent"].phase == "Pending", "the workspace's cluster is not changed"


@pytest.mark.parametrize("side", ["a", "b"])
def test_compare_page_shows_the_verdict_and_its_sentence_on_each_side(side: str):
    at = AppTest.from_file(APP, default_timeout=60).run()
    ws = at.session_state[WORKSPACE_KEY]
    assert ws.load_text(FULL_QUEUE, name="full-queue", source="full-queue.yaml", input_key="test")
    at.switch_page("pages/compare.py").run()
    other = "b" if side == "a" else "a"
    at.text_input(key=f"cmp_label_{side}").set_value("without the enqueue check")
    at.text_input(key=f"cmp_label_{other}").set_value("capacity as is")
    at.text_area(key=f"cmp_conf_{side}").set_value(NO_ENQUEUE_CHECK)
    at.button(key="compare_btn").click().run()
    _clean(at)
    jobs = next(d.value for d in at.dataframe if "capacity as is enqueue" in d.value.columns)
    urgent = jobs[jobs["job"] == "work/urgent"].iloc[0]
    assert urgent["capacity as is phase"] == "Pending" and urgent["without the enqueue check phase"] == "Inqueue"
    assert urgent["capacity as is enqueue"] == "refused" and urgent["without the enqueue check enqueue"] == "admitted"
    texts = _texts(at)
    assert "capacity as is: Pending · enqueue refused" in texts
    assert "without the enqueue check: Inqueue · enqueue admitted" in texts
    refused = answer_job(_run_of(), "work/urgent").sentence
    admitted = answer_job(_run_of(conf_text=NO_ENQUEUE_CHECK), "work/urgent").sentence
    assert refused in texts and admitted in texts and refused != admitted


# ---- the workspace's cycles as one run -----------------------------------------------------------------------
def test_answers_read_the_workspace_cycles_and_follow_edits_and_rewinds():
    ws = new_workspace()
    assert ws.load_text(FULL_QUEUE, name="full-queue", source="full-queue.yaml", input_key="test")
    ws.step()
    assert ws.edit("queue", add_queue, "late", capability={"cpu": "1"})
    ws.step()
    memo: dict = {}
    late = answer_for(ws, 2, "queue", "late", memo=memo)  # added between the cycles: answered from cycle 2 on
    assert late.subject == "Queue/late"
    first = answer_for(ws, 2, "job", "work/urgent", memo=memo)
    assert answer_for(ws, 2, "job", "work/urgent", memo=memo) is first, "kept while the cycles are the same"
    assert [c for c, _ in first.per_cycle] == [1, 2]
    ws.rewind(1)
    ws.step()
    again = answer_for(ws, 2, "job", "work/urgent", memo=memo)
    assert again is not first and again.sentence == first.sentence, "a rewound cycle is read again"
    with pytest.raises(InputError):
        answer_for(ws, 1, "job", "work/nobody")
