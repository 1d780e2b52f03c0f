"""What an outside grader of `explain` asked for, checked over every scenario of the explain corpus
(tests/explain): the answer first, then whether waiting can succeed and what to change; each thing said
once; [STOP] only where the object was stopped; nothing claimed that did not happen; Volcano's own names
explained; a what-if's raises in the order they can be applied."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from capacity import cli
from capacity.analysis.answer import STOPPED_OUTCOMES, answer_job, answer_pod, explain_run
from capacity.core.glossary import TERMS, term_used
from capacity.io.k8s import load_cluster_file
from tests.explain.test_explain_corpus import SCENARIOS, argv, spec

EXPLAIN = [n for n in SCENARIOS if spec(n)["command"].startswith("explain")]
HERE = Path(__file__).resolve().parents[1] / "explain"


def _out(name: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        cli.main(argv(name))
    return out.getvalue()


def _answer(name: str):
    args = argv(name)
    cycles = int(args[args.index("--cycles") + 1]) if "--cycles" in args else 1
    run = explain_run(load_cluster_file(args[1]), cycles)
    if "--pod" in args:
        return answer_pod(run, args[args.index("--pod") + 1])
    if "--job" in args:
        return answer_job(run, args[args.index("--job") + 1])
    return None


@pytest.mark.parametrize("name", EXPLAIN)
def test_each_clause_of_the_answer_is_said_once(name):
    """The [STOP] line once repeated the headline, and a pipelined pod's queue figures came three times."""
    a = _answer(name)
    if a is None:
        return
    text = _out(name).split("\nwhat would have to change")[0]
    for clause in a.sentence.split("; "):
        if len(clause) > 50:
            assert text.count(clause) == 1, f"said {text.count(clause)} times: {clause}"


@pytest.mark.parametrize("name", EXPLAIN)
def test_stop_only_on_an_object_that_was_stopped(name):
    a = _answer(name)
    if a is None:
        return
    checks = [line for line in _out(name).splitlines() if line.startswith("    [")]
    if a.outcome not in STOPPED_OUTCOMES:
        assert not any("[STOP]" in line for line in checks), f"{a.outcome} object marked STOP"


@pytest.mark.parametrize("name", EXPLAIN)
def test_the_answer_leads_then_waiting_then_what_to_change(name):
    """The answer, then whether waiting can succeed and what to change, before the evidence (the checks)."""
    a = _answer(name)
    if a is None or a.outcome not in STOPPED_OUTCOMES:
        return
    lines = _out(name).splitlines()
    at = {k: next((i for i, x in enumerate(lines) if x.startswith(f"  {k}")), None)
          for k in ("next:", "to change it:", "checks,")}
    assert at["next:"] is not None and at["next:"] == 2, lines[:4]
    if at["checks,"] is not None:
        assert at["next:"] < at["checks,"]
        if at["to change it:"] is not None:
            assert at["to change it:"] < at["checks,"]


@pytest.mark.parametrize(("name", "says"), [
    ("capability-clipped-by-cluster-total", "it can bind by itself once running pods of queue big-cap finish and "
                                            "free cpu 1 (they hold cpu 6)"),
    ("2067-preempt-never-sees-pending-job", "it is admitted by itself once running pods in the cluster finish and "
                                            "free cpu 2.4"),
    ("4235-capacity-enqueue-counts-inqueue-jobs", "it is admitted by itself once jobs of queue q1 finish or give "
                                                  "back cpu 1"),
    ("no-root-queue-in-dump", "waiting will not help: the plugin refuses every pod until the configuration is "
                              "fixed"),
    ("whatif-child-capability-needs-parent-raise", "raise the capability of queue org, then queue team to at least "
                                                   "cpu 3"),
])
def test_whether_waiting_can_succeed(name, says):
    assert says in _out(name)


@pytest.mark.parametrize(("name", "says"), [
    # an outsider's grading: when no node fits, what kept reclaim from making room is what to change
    ("2256-gang-not-starving-blocks-reclaim", "reclaim and preempt make room only for a job short of its "
                                              "minAvailable, and job default/b-job already runs its minAvailable 1"),
    ("3842-reclaimer-queue-above-deserved", "reclaim takes room back only while queue first stays within its "
                                            "deserved on a resource the pod asks for: raise its deserved to at "
                                            "least cpu 5 or memory 5Gi"),
])
def test_what_to_change_names_what_kept_reclaim_from_acting(name, says):
    assert says in _out(name)


def test_no_pointer_to_record_kinds_a_person_never_sees():
    assert "proportionRound" not in _out("4165-proportion-counts-unusable-nodes")


def test_a_pod_larger_than_its_queues_limit_never_binds_by_waiting():
    from capacity.io.k8s import load_cluster
    text = (HERE / "capability-clipped-by-cluster-total" / "cluster.yaml").read_text()
    cluster = load_cluster(text)
    pod = cluster.pods["default/big-6"]
    pod.resreq.cpu = 7000.0  # alone above the queue's realCapability of 6 cpu
    a = answer_pod(explain_run(cluster, 1), "default/big-6")
    assert a.next.startswith("waiting will not help: the pod alone asks cpu 7, more than queue big-cap's capacity "
                             "limit (realCapability) 6"), a.next


def test_nothing_rolled_back_when_nothing_was_placed():
    out = _out("3842-reclaimer-queue-above-deserved")
    assert "rolled back" not in out and "nothing was placed for it" in out


def test_an_evicted_pod_that_is_gone_is_not_guessed_about():
    out = _out("cycles-evicted-pod-not-running")
    assert "final: after cycle 2: default/a-job-1 is gone" in out
    assert "it terminates" not in out and "once it is gone" not in out


def test_a_parent_raise_comes_before_the_childs():
    out = _out("whatif-child-capability-needs-parent-raise")
    assert "raise capability of queue org: cpu 2 -> 3 + raise capability of queue team: cpu 2 -> 3" in out


@pytest.mark.parametrize("name", EXPLAIN)
def test_volcano_names_are_explained_and_flags_are_words(name):
    out = _out(name)
    assert "readyToSchedule" not in out
    body = out.split("\n  terms: ")[0].split("\n", 1)[-1]  # (the first line is the outcome: "inqueue" the phase)
    used = [t for t in TERMS if term_used(t, body)]
    if used:
        terms = next(line for line in out.splitlines() if line.startswith("  terms: "))
        for t in used:
            assert f"{t} = " in terms, t


def test_lint_says_each_rule_id_in_plain_words():
    """Lint's [rule-id] brackets were internal names: each id printed is explained once, before the summary."""
    out = _out("5634-child-guarantee-parent-unset")
    legend = out.split("\nrules:\n", 1)[1]
    assert "[webhook-children-guarantee-above-parent] the queue webhook rejects it" in legend
    assert "see webhook-" not in out  # no rule id used as a cross-reference in the text
