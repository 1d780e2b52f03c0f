"""The seeds' worked examples, reproduced exactly by the lesson fixtures the dashboard opens.

The fixtures hold the same objects as the scenarios the engine tests already pin
(tests/unit/test_capacity_examples.py, test_compat_switches.py, test_seed002_legacy.py): the first test
of each block checks that, so the lesson, the dashboard and the engine tests talk about one scenario.
"""

from __future__ import annotations

import pytest

from capacity.authoring.lessons import LessonRun, load_lesson
from capacity.framework.session import SessionOptions
from capacity.scheduler import open_session, run_cycle
from tests.builders import pod, podgroup
from tests.unit.test_capacity_examples import _seed004_tree
from tests.unit.test_compat_switches import _seed003
from tests.unit.test_seed002_legacy import CASE1, CASE2, CASE3, LEGACY, _seed002, _split

GI = 1024**3


def _same_outcome(a, b, options=None) -> None:
    ra, rb = run_cycle(a, options=options, write_back=False), run_cycle(b, options=options, write_back=False)
    assert ra.binds == rb.binds and ra.evicted == rb.evicted and ra.queues == rb.queues


# ---- seed 004 §7 -------------------------------------------------------------------------------------------
SEED004 = load_lesson("10-seed004-section7")


def test_seed004_fixtures_are_the_engine_tests_scenarios():
    _same_outcome(SEED004.cluster("allocate"), _seed004_tree(podgroup("tr2", "training"),
                                                             pod("tr-new", "tr2", {"cpu": "10"})))


def test_seed004_tree_as_71_describes_it():
    attrs = open_session(SEED004.cluster("allocate")).plugins["capacity"].attrs
    want = {"team-a": (60, 70, 20), "team-b": (40, 50, 20), "training": (40, 50, 10), "inference": (20, 30, 10),
            "batch": (30, 40, 15), "interactive": (10, 20, 5)}
    got = {q: (attrs[q].deserved.cpu / 1000, attrs[q].capability.cpu / 1000, attrs[q].guarantee.cpu / 1000)
           for q in want}
    assert got == want
    assert attrs["training"].ancestors and [a.name for a in attrs["training"].ancestors] == ["root", "team-a"]


def test_seed004_allocation_table_72():
    """training 30 -> 40 (1.0), team-a 45 -> 55 (0.917), root 75 -> 85 (0.85), as the next cycle sees them."""
    run = LessonRun(SEED004)
    c1, c2 = run.cycle("allocate", 1), run.cycle("allocate", 2)
    before = {q: c1.opening[q]["allocated"]["cpu"] / 1000 for q in ("training", "team-a", "root")}
    after = {q: c2.opening[q]["allocated"]["cpu"] / 1000 for q in ("training", "team-a", "root")}
    assert before == {"training": 30, "team-a": 45, "root": 75}
    assert after == {"training": 40, "team-a": 55, "root": 85}
    assert c1.result.binds == {"ns1/tr-new": "n1"}
    shares_next = {q: c2.opening[q]["share"] for q in ("training", "team-a", "root")}
    assert shares_next == pytest.approx({"training": 1.0, "team-a": 55 / 60, "root": 0.85})
    assert round(shares_next["team-a"], 3) == 0.917
    # Within cycle 1 only the leaf's share was refreshed (spec trap 3): the ancestors still read 0.75.
    shares_end = {q: c1.result.queues[q]["share"] for q in ("training", "team-a", "root")}
    assert shares_end == {"training": 1.0, "team-a": 0.75, "root": 0.75}
    assert c1.result.queues["team-a"]["allocated"]["cpu"] == 55_000


def test_seed004_batch_before_training_73():
    run = LessonRun(SEED004)
    c = run.cycle("ordering", 1)
    assert c.opening["team-a"]["share"] == pytest.approx(55 / 60) and c.opening["team-b"]["share"] == 0.75
    order = [r.subject for r in c.records if r.kind == "allocateJob"]
    assert order.index("ns1/ba-next") < order.index("ns1/tr-next")


# ---- seed 003 ------------------------------------------------------------------------------------------------
SEED003 = load_lesson("11-seed003-leaf-only")


def test_seed003_fixture_is_the_engine_tests_scenario():
    _same_outcome(SEED003.cluster("head"), _seed003())
    _same_outcome(SEED003.cluster("leaf-only"), _seed003(), SessionOptions(leaf_only_allocatable=True))


def test_seed003_defect_reproduced_with_the_switch_and_prevented_without():
    run = LessonRun(SEED003)
    head, old = run.cycle("head", 1).result, run.cycle("leaf-only", 1).result
    assert head.binds == {} and head.queues["queue1"]["allocated"]["memory"] == 4 * GI
    assert old.binds == {"ns1/new-0": "n1"}
    assert old.queues["queue1"]["allocated"]["memory"] == 6 * GI > old.queues["queue1"]["realCapability"]["memory"]
    assert old.queues["queue1"]["realCapability"]["memory"] == 5 * GI


# ---- seed 002 ------------------------------------------------------------------------------------------------
SEED002 = load_lesson("12-seed002-namespace-fairshare")
CASES = {"case1": ((1, 1), CASE1), "case2": ((1, 3), CASE2), "case3": ((1, 3), CASE3)}
#: (legacy namespace split, HEAD namespace split, the seed's own table) — spec queue-plugins §6.5.
TABLES = {
    "case1": ("ns1 4, ns2 4, ns3 6, ns4 2", "ns1 4, ns2 4, ns3 6, ns4 2", "ns1 4, ns2 4, ns3 6, ns4 2"),
    "case2": ("ns1 3, ns2 1, ns3 10, ns4 2", "ns1 2, ns2 2, ns3 10, ns4 2", "ns1 3, ns2 1, ns3 10, ns4 2"),
    "case3": ("ns1 4, ns2 12", "ns1 5, ns2 11", "ns1 3, ns2 9"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_seed002_fixtures_are_the_engine_tests_scenarios(case):
    qw, jobs = CASES[case]
    _same_outcome(SEED002.cluster(f"{case}-head"), _seed002(qw, jobs))
    _same_outcome(SEED002.cluster(f"{case}-legacy"), _seed002(qw, jobs), LEGACY)


@pytest.mark.parametrize("case", sorted(CASES))
def test_seed002_tables_legacy_and_head(case):
    run = LessonRun(SEED002)
    legacy, head, seed = TABLES[case]
    as_text = {mode: ", ".join(f"{k} {v}" for k, v in sorted(_split(run.cycle(f"{case}-{mode}", 1).result).items()))
               for mode in ("legacy", "head")}
    assert as_text == {"legacy": legacy, "head": head}
    # Every namespace-split checkpoint that differs from the seed's table says why.
    for cp in SEED002.checkpoints:
        if cp.variant.startswith(case) and cp.fact == {"kind": "split", "by": "namespace"}:
            assert cp.seed == seed
            got = legacy if cp.variant.endswith("legacy") else head
            assert (got == seed) == (not cp.note.startswith("Differs from the naive reading")), cp.variant


def test_seed002_queue_totals():
    run = LessonRun(SEED002)
    per_queue = {}
    for case in CASES:
        counts: dict[str, int] = {}
        c = run.cycle(f"{case}-head", 1)
        for key in c.result.binds:
            p = c.before.pods[key]
            q = c.before.podgroups[f"{p.namespace}/{p.group}"].queue
            counts[q] = counts.get(q, 0) + 1
        per_queue[case] = counts
    assert per_queue == {"case1": {"q1": 8, "q2": 8}, "case2": {"q1": 4, "q2": 12}, "case3": {"q2": 16}}
