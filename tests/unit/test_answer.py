"""The one answer model (capacity.analysis.answer): every Pending job, every non-decision, with the numbers (issue 27).

Each test is a small cluster whose answer must state the facts a user needs, numbers included.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from capacity.analysis.answer import answer_job, answer_pod, answer_queue, explain_run, render_text
from capacity.core.glossary import KINDS
from tests.builders import cluster, conf, node, pod, podgroup, queue

ROOT = Path(__file__).resolve().parents[2]
ACTIONS = "enqueue, allocate, backfill, reclaim, preempt"
CAPACITY_CONF = conf(ACTIONS, [{"name": "priority"}, {"name": "gang", "enablePreemptable": False},
                               {"name": "conformance"}],
                     [{"name": "drf"}, {"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}])


# ---- gap 1: a job enqueue refused ----------------------------------------------------------------------

def _refused(with_pods: bool):
    objs = [CAPACITY_CONF, node("n1", cpu="4", memory="8Gi"),
            queue("q1", capability={"cpu": "2", "memory": "4Gi"}),
            podgroup("big", "q1", phase="Pending", min_resources={"cpu": "3", "memory": "1Gi"}),
            podgroup("run", "q1", phase="Running"), pod("r0", "run", {"cpu": "1", "memory": "1Gi"}, node_name="n1")]
    if with_pods:
        objs.append(pod("b0", "big", {"cpu": "3", "memory": "1Gi"}))
    return explain_run(cluster(*objs), 1)


def test_a_job_enqueue_refused_without_pods_is_answered_with_every_number() -> None:
    a = answer_job(_refused(with_pods=False), "ns1/big")
    assert (a.outcome, a.rule) == ("not admitted", "capacity.enqueueRealCapability")
    assert "minResources + allocated + inqueue - elastic" in a.sentence
    assert "cpu 3 + 1 + 0 - 1 = 3 > 2 (1 over)" in a.sentence
    assert "reclaim and preempt only consider jobs that are Inqueue or Running" in a.sentence
    stop = a.stopper
    assert stop is not None and (stop.action, stop.plugin) == ("enqueue", "capacity")
    assert {f.name: f.value for f in stop.figures}["q1 realCapability cpu"] == 2000
    assert [c.action for c in a.checks if c.outcome == "not reached"] == ["allocate", "backfill", "reclaim",
                                                                          "preempt"]
    assert "] allocate, backfill, reclaim, preempt: the job is past Pending" in render_text(a)  # said once


def test_a_pod_of_a_job_enqueue_refused_names_the_refusal_not_a_node() -> None:
    a = answer_pod(_refused(with_pods=True), "ns1/b0")
    assert a.outcome == "pending" and a.rule == "capacity.enqueueRealCapability"
    assert a.sentence.startswith("pending: enqueue did not admit job ns1/big")
    assert "cpu 3 + 1 + 0 - 1 = 3 > 2 (1 over)" in a.sentence and "no node" not in a.sentence


def test_the_cli_answers_a_job_without_pods() -> None:
    path = ROOT / "tests/acceptance/volcano/capacity-enqueue-blocked-by-capability/cluster.yaml"
    proc = subprocess.run([sys.executable, "-m", "capacity", "explain", str(path), "--job", "ns1/pg5"],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0 and "nothing to explain" not in proc.stdout
    assert "not admitted" in proc.stdout and "realCapability" in proc.stdout


# ---- gap 2: the real stopper of reclaim / preempt ----------------------------------------------------

def _not_starving():
    c = conf(ACTIONS, [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}],
             [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}])
    return explain_run(cluster(c, node("n1", cpu="4", memory="8Gi"), queue("q1"), queue("q2"),
                               podgroup("hog", "q1", phase="Running"),
                               pod("h0", "hog", {"cpu": "2", "memory": "1Gi"}, node_name="n1"),
                               pod("h1", "hog", {"cpu": "2", "memory": "1Gi"}, node_name="n1"),
                               podgroup("want", "q2", phase="Running"),
                               pod("w0", "want", {"cpu": "1", "memory": "1Gi"}, node_name="n1"),
                               pod("w1", "want", {"cpu": "1", "memory": "1Gi"})), 1)


def test_a_pending_pod_says_reclaim_and_preempt_did_nothing_because_gang_says_not_starving() -> None:
    a = answer_pod(_not_starving(), "ns1/w1")
    assert "no node fits it" in a.sentence  # allocate's stopper first, in the order Volcano ran
    assert "reclaim and preempt did not make room: job ns1/want is not starving: ready 1 + pipelined 0 >= " \
           "minAvailable 1" in a.sentence
    reclaim = next(c for c in a.checks if c.action == "reclaim" and c.outcome == "stopped")
    assert (reclaim.plugin, reclaim.name) == ("gang", "gang: is the job starving?")


def _tiers():
    c = conf(ACTIONS, [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}],
             [{"name": "drf"}, {"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}])
    return cluster(c, node("n1", cpu="4", memory="8Gi"),
                   queue("q1", deserved={"cpu": "1", "memory": "1Gi"}),
                   queue("q2", deserved={"cpu": "3", "memory": "4Gi"}),
                   podgroup("a", "q1", min_member=2, phase="Running"),
                   pod("a0", "a", {"cpu": "1", "memory": "1Gi"}, node_name="n1"),
                   pod("a1", "a", {"cpu": "1", "memory": "1Gi"}, node_name="n1"),
                   podgroup("b", "q1", min_member=1, phase="Running"),
                   pod("b0", "b", {"cpu": "1", "memory": "1Gi"}, node_name="n1"),
                   pod("b1", "b", {"cpu": "1", "memory": "1Gi"}, node_name="n1"),
                   podgroup("want", "q2", phase="Inqueue"), pod("w0", "want", {"cpu": "1", "memory": "1Gi"}))


def test_a_kept_victim_names_the_tier_that_decided_and_that_later_tiers_were_not_consulted() -> None:
    a = answer_pod(explain_run(_tiers(), 1), "ns1/a0")
    assert (a.outcome, a.rule) == ("running", "gang.gangMinAvailable")
    assert "kept: job ns1/a would fall below minAvailable 2" in a.sentence
    assert "capacity in later tiers were not consulted" in a.sentence
    assert "may go" not in a.sentence  # never the verdict of a plugin that did not decide
    assert not [c for c in a.checks if c.plugin == "capacity"]


def test_an_evicted_pod_names_its_preemptor_node_and_reason() -> None:
    a = answer_pod(explain_run(_tiers(), 1), "ns1/b1")
    assert a.outcome == "evicted"
    assert a.sentence.startswith("evicted by reclaim on n1 to make room for ns1/w0: ns1/b1 may go: job ns1/b keeps 1")


# ---- gap 5: plain words, short queue answers --------------------------------------------------------

def _kinds_filed() -> set[str]:
    import re
    kinds: set[str] = set()
    for path in (ROOT / "capacity").rglob("*.py"):
        text = path.read_text()
        kinds.update(re.findall(r'\.(?:event|vote)\(\s*"([A-Za-z]+)"', text))
        kinds.update(re.findall(r'event_with\(\s*"([A-Za-z]+)"', text))
        kinds.update(re.findall(r'skipped\.file\(ssn, "([A-Za-z]+)"', text))
    for point in ("reclaimable", "preemptable"):
        kinds.update({f"{point}Vote", f"{point}Result"})
    kinds.update({"jobEnqueueable", "jobPipelined", "jobEnqueueableTierShortCircuit", "jobPipelinedTierShortCircuit"})
    return kinds


def test_every_record_kind_has_plain_words() -> None:
    kinds = _kinds_filed()
    assert len(kinds) > 40
    assert sorted(kinds - set(KINDS)) == []


def test_no_answer_text_shows_an_internal_record_name() -> None:
    run = explain_run(_tiers(), 1)
    text = "\n".join(render_text(answer_pod(run, p), verbose=True) for p in ("ns1/w0", "ns1/a0", "ns1/b1"))
    for raw in ("tentativeEvict", "reclaimableVote", "reclaimableResult", "-> False", "-> ['"):
        assert raw not in text


def _many_jobs():
    objs = [CAPACITY_CONF, node("n1", cpu="4", memory="8Gi"),
            queue("parent", capability={"cpu": "4", "memory": "8Gi"}), queue("leaf", parent="parent"),
            queue("other", parent="parent", capability={"cpu": "1", "memory": "1Gi"})]
    for i in range(30):
        objs += [podgroup(f"j{i}", "leaf" if i % 2 else "other"),
                 pod(f"p{i}", f"j{i}", {"cpu": "1", "memory": "1Gi"})]
    return cluster(*objs)


def test_a_queue_answer_is_a_short_summary_with_its_figures() -> None:
    a = answer_queue(explain_run(_many_jobs(), 1), "leaf")
    text = render_text(a)
    assert len(text.splitlines()) <= 30
    facts = dict(a.facts)
    assert facts["capability"] == "unset (no limit)"  # never 0
    assert a.reasons and sum(n for n, *_ in a.reasons) <= 15
    assert "15 jobs" in a.sentence and "top reasons:" in text
    assert len(render_text(a, verbose=True).splitlines()) > 30


def test_a_parent_queue_answer_summarises_its_children() -> None:
    a = answer_queue(explain_run(_many_jobs(), 1), "parent")
    assert [c.subject for c in a.children] == ["Queue/leaf", "Queue/other"]
    assert "30 jobs" in a.sentence
    other = a.children[1]
    assert "capability cpu 1, memory 1Gi" in other.sentence and "15 jobs" in other.sentence


# ---- gap 6: several cycles --------------------------------------------------------------------------

def test_a_pod_evicted_in_cycle_1_is_evicted_over_two_cycles_with_one_line_per_cycle() -> None:
    a = answer_pod(explain_run(_tiers(), 2), "ns1/b1")
    assert (a.outcome, a.cycle) == ("evicted", 1)
    assert [c for c, _ in a.per_cycle] == [1, 2]
    assert a.per_cycle[0][1].startswith("evicted by reclaim on n1")
    assert a.per_cycle[1][1].startswith("terminating: ns1/b1 is terminating on n1 (evicted in cycle 1)")
    assert a.final == "after cycle 2: ns1/b1 is gone (evicted and deleted)"
    assert "keeps running" not in render_text(a)


# ---- gap 7: session notes ---------------------------------------------------------------------------

def _hierarchy_objs() -> list:
    c = conf("enqueue, allocate, backfill, reclaim", [{"name": "priority"}, {"name": "gang"}],
             [{"name": "drf", "enableHierarchy": True}, {"name": "predicates"},
              {"name": "capacity", "enableHierarchy": True}])
    return [c, node("n1", cpu="4", memory="8Gi"), queue("root", deserved={"cpu": "4", "memory": "8Gi"}),
            queue("parent", parent="root", deserved={"cpu": "1", "memory": "1Gi"}),
            queue("child", parent="parent", deserved={"cpu": "2", "memory": "2Gi"}),
            queue("aside", parent="root", deserved={"cpu": "1", "memory": "1Gi"}),
            podgroup("j", "child"), pod("p0", "j", {"cpu": "1", "memory": "1Gi"}),
            podgroup("k", "aside"), pod("k0", "k", {"cpu": "1", "memory": "1Gi"})]


def test_answers_carry_the_session_notes_about_their_queue_path() -> None:
    run = explain_run(cluster(*_hierarchy_objs()), 1)
    mine = answer_pod(run, "ns1/p0").notes
    assert any("children of parent deserve more than it does" in n for n in mine)
    assert any("drf: enableHierarchy" in n for n in mine)  # a note about no queue concerns every answer
    aside = answer_pod(run, "ns1/k0").notes
    assert not any("children of parent" in n for n in aside)
    assert "session notes:" in render_text(answer_pod(run, "ns1/p0"))


def test_simulate_prints_the_session_notes(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(_hierarchy_objs()))
    run = [sys.executable, "-m", "capacity", "simulate", str(path)]
    out = json.loads(subprocess.run([*run, "--format", "json"], capture_output=True, text=True, cwd=ROOT,
                                    check=True).stdout)
    assert any("children of parent deserve more" in n for n in out["notes"])
    text = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert "\nnotes:\n" in text and "drf: enableHierarchy" in text


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_explain_cli_renders_the_one_answer(fmt: str) -> None:
    path = ROOT / "tests/acceptance/volcano/capacity-flat-allocate-blocked-by-capability/cluster.yaml"
    proc = subprocess.run([sys.executable, "-m", "capacity", "explain", str(path), "--pod", "ns1/p4", "--format",
                           fmt], capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 0
    if fmt == "json":
        out = json.loads(proc.stdout)
        assert out["kind"] == "pod" and out["checks"] and out["rule"] == "capacity.realCapability"
    else:
        assert "checks, in the order Volcano ran them:" in proc.stdout and "first to stop it" in proc.stdout


def test_without_an_enqueue_action_allocate_takes_up_a_pending_job_and_the_answer_says_so() -> None:
    c = conf("allocate, backfill", [{"name": "priority"}, {"name": "gang"}],
             [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}])
    a = answer_pod(explain_run(cluster(c, node("n1"), queue("q1"), podgroup("j", "q1", phase="Pending"),
                                       pod("p", "j", {"cpu": "1"})), 1), "ns1/p")
    assert a.outcome == "bound"
    assert a.checks[0].text == "job ns1/j was Pending; with no enqueue action configured, allocate moves it to " \
                               "Inqueue itself"
    assert not [c for c in a.checks if c.outcome in ("stopped", "not reached")]


def test_a_step_failing_node_after_node_is_said_once_with_a_count_and_the_chain_is_capped() -> None:
    c = conf("enqueue, allocate, reclaim", [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}],
             [{"name": "drf"}, {"name": "predicates"}])
    objs = [c, queue("q1"), queue("q2"), podgroup("w", "q2"), pod("w0", "w", {"cpu": "1", "memory": "1Gi"})]
    for i in range(30):
        objs += [node(f"n{i:02}", cpu="1", memory="2Gi"), podgroup(f"r{i}", "q1", phase="Running"),
                 pod(f"r{i}", f"r{i}", {"cpu": "1", "memory": "1Gi"}, node_name=f"n{i:02}")]
    a = answer_pod(explain_run(cluster(*objs), 1), "ns1/w0")
    assert "reclaim did not make room: no tier of plugins offered a victim: gang offered none" in a.sentence
    assert a.sentence.endswith("(and so 29 more times)")
    text = render_text(a)
    assert len(text.splitlines()) <= 32 and "more checks (--verbose)" in text
    assert "<- first to stop it" in text
    assert len(render_text(a, verbose=True).splitlines()) > 90


def test_an_overcommit_refusal_gives_total_factor_used_and_idle() -> None:
    c = conf("enqueue, allocate, backfill, reclaim", [{"name": "priority"}, {"name": "gang"}],
             [{"name": "overcommit", "arguments": {"overcommit-factor": 1.2}}, {"name": "drf"},
              {"name": "predicates"}, {"name": "proportion"}])
    run = explain_run(cluster(c, node("n1", cpu="10", memory="20Gi"), queue("qa"), queue("qb"),
                              podgroup("a", "qa", phase="Running"),
                              pod("a0", "a", {"cpu": "10", "memory": "1Gi"}, node_name="n1"),
                              podgroup("b", "qb", phase="Pending", min_resources={"cpu": "4"})), 1)
    a = answer_job(run, "ns1/b")
    assert (a.outcome, a.rule) == ("not admitted", "overcommit.overcommit")
    assert "job ns1/b (queue qb) stays Pending" in a.sentence
    assert "inqueue 0 + minResources 4 > idle 2 (total 10 x factor 1.2 = 12, minus used 10)" in a.sentence
    assert "allocate and reclaim only consider jobs that are Inqueue or Running" in a.sentence


# ---- the integrator's additions --------------------------------------------------------------------------

def test_no_ready_node_is_the_first_stopper_and_each_check_says_its_words_once() -> None:
    """With every node NotReady, allocate's "the session has no node" stopped the pod first (not preempt's
    filters, which only come later), and no check line repeats its own name before its text."""
    sick = node("n1", cpu="4", memory="8Gi")
    sick["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    objs = [CAPACITY_CONF, sick, queue("q1"),
            podgroup("j1", "q1", phase="Inqueue"), pod("p0", "j1", {"cpu": "1", "memory": "1Gi"})]
    a = answer_pod(explain_run(cluster(*objs), 1), "ns1/p0")
    assert a.stopper is not None and a.stopper.action == "allocate"
    assert "the session has no node" in a.sentence.split(";")[0]
    text = render_text(a)
    assert "no node passes the preemption filters: no node passes the preemption filters" not in text


def test_a_newline_in_a_name_is_shown_escaped_and_never_starts_a_line() -> None:
    """A pod named 'p0\\nall good' must not print a line reading 'all good' in the answer."""
    objs = [CAPACITY_CONF, node("n1", cpu="1", memory="1Gi"), queue("q1"),
            podgroup("j1", "q1", phase="Inqueue"), pod("p0\nall good", "j1", {"cpu": "2", "memory": "1Gi"})]
    text = render_text(answer_pod(explain_run(cluster(*objs), 1), "ns1/p0\nall good"))
    assert "p0\\nall good" in text
    assert not any(line.startswith("all good") for line in text.split("\n"))


def test_a_not_scheduled_pod_has_its_deciding_check_and_a_bound_pod_has_none() -> None:
    """`Answer.decided_by` is the one rule for "which check decided": the first stopper of a stopped object
    only (the page once spelled the outcome "not scheduled" and lost the box for pods outside the session)."""
    objs = [CAPACITY_CONF, node("n1", cpu="4", memory="8Gi"), queue("q1"),
            podgroup("j1", "ghost", phase="Inqueue"), pod("p0", "j1", {"cpu": "1", "memory": "1Gi"}),
            podgroup("j2", "q1", phase="Inqueue"), pod("p1", "j2", {"cpu": "1", "memory": "1Gi"})]
    run = explain_run(cluster(*objs), 1)
    lost = answer_pod(run, "ns1/p0")
    assert lost.outcome == "not-scheduled" and lost.decided_by is lost.stopper is not None
    bound = answer_pod(run, "ns1/p1")
    assert bound.outcome == "bound" and bound.decided_by is None
