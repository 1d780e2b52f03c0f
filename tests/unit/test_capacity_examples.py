"""The capacity plugin's worked examples from the spec (queue-plugins §2.6, §2.13, §3.12) and seed 004 §7."""

from __future__ import annotations

import pytest

from capacity.core.resources import MAX_FLOAT
from capacity.scheduler import open_session, run_actions, run_cycle
from tests.builders import cluster, conf, node, pod, podgroup, queue

GI = 1024**3
CAP = {"name": "capacity"}
CAP_H = {"name": "capacity", "enableHierarchy": True}


def attrs(c):
    return open_session(c).plugins["capacity"].attrs


def test_flat_guarantee_and_capability_interplay_213b() -> None:
    c = cluster(
        conf("allocate", [CAP]),
        node("n1", cpu="16", memory="64Gi", gpu="8"),
        queue("A", deserved={"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4"},
              capability={"cpu": "0", "memory": "48Gi", "nvidia.com/gpu": "6"},
              guarantee={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "2"}),
        queue("B", guarantee={"cpu": "2", "memory": "8Gi"}),
        queue("C", deserved={"cpu": "4", "memory": "16Gi"}, capability={"cpu": "2"}),
        queue("D"),
        podgroup("a", "A"), podgroup("b", "B"), podgroup("c", "C"), podgroup("d", "D"),
        pod("a1", "a", {"cpu": "6", "memory": "20Gi", "nvidia.com/gpu": "5"}, node_name="n1"),
        pod("b1", "b", {"cpu": "1"}), pod("c1", "c", {"cpu": "1"}), pod("d1", "d", {"cpu": "1"}),
    )
    a = attrs(c)
    rc = {q: (x.real_capability.cpu / 1000, x.real_capability.memory / GI,
              x.real_capability.get("nvidia.com/gpu") / 1000) for q, x in a.items()}
    assert rc == {"A": (14, 48, 6), "B": (12, 48, 6), "C": (2, 40, 6), "D": (10, 40, 6)}
    assert a["A"].real_capability.get("pods") == 110
    assert (a["B"].deserved.cpu, a["B"].deserved.memory) == (2000, 8 * GI)
    assert (a["C"].deserved.cpu, a["C"].deserved.memory) == (2000, 16 * GI)
    assert a["A"].share == pytest.approx(1.25)
    assert a["B"].share == 0 and a["C"].share == 0
    assert a["D"].share == 1 and a["D"].deserved.is_empty()


def _team_tree(*objs):
    return cluster(
        conf("allocate", [CAP_H, {"name": "predicates"}, {"name": "gang"}]),
        node("n1", cpu="100", memory="400Gi"),
        queue("root"),
        queue("team-a", "root", {"cpu": "60", "memory": "240Gi"}, {"cpu": "70", "memory": "300Gi"},
              {"cpu": "20", "memory": "80Gi"}),
        queue("team-b", "root", {"cpu": "40", "memory": "160Gi"}, {"cpu": "50", "memory": "200Gi"},
              {"cpu": "20", "memory": "80Gi"}),
        *objs,
    )


def test_hierarchical_real_capability_312a() -> None:
    c = _team_tree(
        queue("default", "root"),
        queue("training", "team-a", {"cpu": "40", "memory": "160Gi"}, None, {"cpu": "10", "memory": "40Gi"}),
        queue("inference", "team-a", {"cpu": "20", "memory": "80Gi"}, {"cpu": "30", "memory": "120Gi"},
              {"cpu": "10", "memory": "40Gi"}),
    )
    a = attrs(c)
    assert a["root"].capability.cpu == MAX_FLOAT and a["root"].real_capability is a["root"].capability
    assert (a["root"].deserved.cpu, a["root"].deserved.memory) == (100_000, 400 * GI)
    assert (a["root"].guarantee.cpu, a["root"].guarantee.memory) == (40_000, 160 * GI)
    assert (a["team-a"].real_capability.cpu, a["team-a"].real_capability.memory) == (70_000, 300 * GI)
    assert (a["training"].capability.cpu, a["training"].capability.memory) == (70_000, 300 * GI)
    assert (a["training"].real_capability.cpu, a["training"].real_capability.memory) == (60_000, 260 * GI)
    assert (a["inference"].real_capability.cpu, a["inference"].real_capability.memory) == (30_000, 120 * GI)
    assert a["default"].real_capability.cpu == MAX_FLOAT


def _seed004_tree(*extra):
    return _team_tree(
        queue("training", "team-a", {"cpu": "40", "memory": "160Gi"}, {"cpu": "50", "memory": "200Gi"},
              {"cpu": "10", "memory": "40Gi"}),
        queue("inference", "team-a", {"cpu": "20", "memory": "80Gi"}, {"cpu": "30", "memory": "120Gi"},
              {"cpu": "10", "memory": "40Gi"}),
        queue("batch", "team-b", {"cpu": "30", "memory": "120Gi"}, {"cpu": "40", "memory": "160Gi"},
              {"cpu": "15", "memory": "60Gi"}),
        queue("interactive", "team-b", {"cpu": "10", "memory": "40Gi"}, {"cpu": "20", "memory": "80Gi"},
              {"cpu": "5", "memory": "20Gi"}),
        podgroup("tr", "training", phase="Running"), podgroup("inf", "inference", phase="Running"),
        podgroup("ba", "batch", phase="Running"),
        pod("tr-run", "tr", {"cpu": "30"}, node_name="n1"),
        pod("inf-run", "inf", {"cpu": "15"}, node_name="n1"),
        pod("ba-run", "ba", {"cpu": "30"}, node_name="n1"),
        *extra,
    )


def test_seed004_section7_shares_stale_within_cycle_fresh_next_cycle() -> None:
    c = _seed004_tree(podgroup("tr2", "training"), pod("tr-new", "tr2", {"cpu": "10"}))
    ssn = open_session(c)
    a = ssn.plugins["capacity"].attrs
    assert (a["training"].share, a["team-a"].share, a["root"].share) == (0.75, 0.75, 0.75)
    run_actions(ssn)
    result = ssn.close()
    assert result.binds == {"ns1/tr-new": "n1"}
    # Within the cycle only the leaf's share moves (spec trap 3): team-a and root stay stale.
    assert a["training"].share == 1.0
    assert a["team-a"].share == 0.75 and a["root"].share == 0.75
    assert a["team-a"].allocated.cpu == 55_000
    from capacity.scheduler import apply_cycle
    apply_cycle(c, result)
    a2 = attrs(c)
    assert a2["training"].share == 1.0
    assert a2["team-a"].share == pytest.approx(55 / 60)
    assert a2["root"].share == pytest.approx(0.85)


def test_seed004_section7_batch_before_training() -> None:
    c = _seed004_tree(pod("tr-more", "tr", {"cpu": "10"}, node_name="n1"))
    ssn = open_session(c)
    q = ssn.queues
    # team-a 55/60 = 0.917 vs team-b 30/40 = 0.75: batch goes first.
    assert ssn.queue_order_fn(q["batch"], q["training"]) is True
    assert ssn.queue_order_fn(q["training"], q["batch"]) is False


def test_stale_ancestor_shares_let_one_subtree_take_all_312b() -> None:
    c = cluster(
        conf("allocate", [CAP_H, {"name": "predicates"}, {"name": "gang"}]),
        node("n1", cpu="8", memory="64Gi"),
        queue("root"),
        queue("A", "root", {"cpu": "4"}), queue("a1", "A", {"cpu": "2"}), queue("a2", "A", {"cpu": "2"}),
        queue("B", "root", {"cpu": "4"}), queue("b1", "B", {"cpu": "4"}),
        podgroup("ra", "a1", phase="Running"), pod("ra-0", "ra", {"cpu": "2"}, node_name="n1"),
        podgroup("rb", "b1", phase="Running"), pod("rb-0", "rb", {"cpu": "1"}, node_name="n1"),
        podgroup("ja", "a2"), podgroup("jb", "b1"),
        *[pod(f"ja-{i}", "ja", {"cpu": "1"}) for i in range(4)],
        *[pod(f"jb-{i}", "jb", {"cpu": "1"}) for i in range(4)],
    )
    result = run_cycle(c)
    assert sorted(k for k in result.binds if k.startswith("ns1/jb")) == [f"ns1/jb-{i}" for i in range(4)]
    assert [k for k in result.binds if k.startswith("ns1/ja")] == ["ns1/ja-0"]


def test_enqueue_reservation_example_26() -> None:
    c = cluster(
        conf("enqueue", [CAP, {"name": "gang"}]),
        node("n1", cpu="4", memory="64Gi"),
        queue("q", capability={"cpu": "4", "memory": "64Gi"}),
        podgroup("run", "q", min_member=2, phase="Running", min_resources={"cpu": "2"}),
        *[pod(f"run-{i}", "run", {"cpu": "1"}, node_name="n1") for i in range(3)],
        podgroup("pg-a", "q", phase="Pending", min_resources={"cpu": "2"}),
        podgroup("pg-b", "q", phase="Pending", min_resources={"cpu": "2"}),
        pod("a-0", "pg-a", {"cpu": "2"}), pod("b-0", "pg-b", {"cpu": "2"}),
    )
    result = run_cycle(c)
    assert result.podgroup_phases["ns1/pg-a"] == "Inqueue"
    assert result.podgroup_phases["ns1/pg-b"] == "Pending"


def test_reclaim_dimensions_example_28() -> None:
    c = cluster(
        conf("reclaim", [CAP, {"name": "gang"}, {"name": "predicates"}]),
        node("n1", cpu="4", memory="8Gi", gpu="1"),
        queue("queue17", deserved={"cpu": "2", "memory": "2Gi"}),
        queue("queue18", deserved={"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"}),
        podgroup("pg17", "queue17", phase="Running"), podgroup("pg18", "queue18", phase="Running"),
        podgroup("pg18b", "queue18"),
        pod("p26", "pg17", {"memory": "4Gi"}, node_name="n1"),
        pod("p27", "pg17", {"cpu": "1"}, node_name="n1"),
        pod("p28", "pg17", {"nvidia.com/gpu": "1"}, node_name="n1"),
        pod("p29", "pg18", {"cpu": "2", "memory": "4Gi"}, node_name="n1"),
        pod("p30", "pg18b", {"cpu": "1", "nvidia.com/gpu": "1"}),
    )
    result = run_cycle(c, write_back=False)
    assert result.evicted == ["ns1/p28"]
    assert result.pipelined == {"ns1/pg18b": ["n1"]}


@pytest.mark.parametrize("gated", [True, False])
def test_enqueue_reserves_minresources_less_what_gated_pods_request(gated: bool) -> None:
    """JobEnqueued adds DeductSchGated(minResources) to the queue's inqueue (queue-plugins §2.13): job a's
    gated pod leaves its 2 cpu out of the reservation, so job b's 2 cpu still fit the queue's 4 after it;
    ungated, a reserves all 4 and b waits."""
    gate = {"schedulingGates": [{"name": "example.com/wait"}]} if gated else {}
    gated_pod = pod("a2", "a", {"cpu": "2"})
    gated_pod["spec"].update(gate)
    c = cluster(
        conf("enqueue", [CAP]),
        node("n1", cpu="8"),
        queue("q", capability={"cpu": "4"}),
        podgroup("a", "q", min_member=2, phase="Pending", min_resources={"cpu": "4"}),
        podgroup("b", "q", phase="Pending", min_resources={"cpu": "2"}),
        pod("a1", "a", {"cpu": "2"}), gated_pod, pod("b1", "b", {"cpu": "2"}),
    )
    phases = run_cycle(c).podgroup_phases
    assert phases["ns1/a"] == "Inqueue"
    assert phases["ns1/b"] == ("Inqueue" if gated else "Pending")


def test_a_permit_in_an_earlier_tier_hides_later_enqueue_voters_and_the_trace_says_which() -> None:
    """JobEnqueueable voting (actions-framework): a tier with a Permit decides, so overcommit in the second
    tier is never asked; the trace names what the Permit hid (and only a traced cycle lists it)."""
    c = cluster(
        conf("enqueue", [CAP], [{"name": "overcommit"}]),
        node("n1", cpu="8"),
        queue("q", capability={"cpu": "4"}),
        podgroup("a", "q", phase="Pending", min_resources={"cpu": "2"}),
        pod("a1", "a", {"cpu": "2"}),
    )
    result = run_cycle(c)
    hidden = [r for r in result.records if r.kind == "jobEnqueueableTierShortCircuit"]
    assert [(r.subject, r.detail["tier"], r.detail["quirk"]) for r in hidden] == [
        ("ns1/a", 0, "a Permit in tier 1 hides overcommit in later tiers")]
    assert not [r for r in result.records if r.kind == "jobEnqueueable" and r.plugin == "overcommit"]
    assert result.podgroup_phases["ns1/a"] == "Inqueue"


def test_a_gated_pod_larger_than_minresources_reserves_nothing_not_less_than_nothing() -> None:
    """DeductSchGated floors each dimension at 0 (queue-plugins §1.6): job a's gated 4-cpu pod against its
    2-cpu minResources reserves 0, not -2 cpu that would let job b's 5 cpu past the queue's 4."""
    gated = pod("a2", "a", {"cpu": "4"})
    gated["spec"]["schedulingGates"] = [{"name": "example.com/wait"}]
    c = cluster(
        conf("enqueue", [CAP]),
        node("n1", cpu="8"),
        queue("q", capability={"cpu": "4"}),
        podgroup("a", "q", phase="Pending", min_resources={"cpu": "2"}),
        podgroup("b", "q", phase="Pending", min_resources={"cpu": "5"}),
        pod("a1", "a", {"cpu": "1"}), gated, pod("b1", "b", {"cpu": "5"}),
    )
    phases = run_cycle(c).podgroup_phases
    assert (phases["ns1/a"], phases["ns1/b"]) == ("Inqueue", "Pending")


@pytest.mark.parametrize(("min_member", "b_phase"), [(1, "Pending"), (2, "Inqueue")])
def test_a_running_job_reserves_the_rest_of_its_minresources_once_minmember_tasks_run(min_member: int,
                                                                                        b_phase: str) -> None:
    """Tree build step 3 (queue-plugins §3): a Running PodGroup with at least minMember allocated tasks keeps
    minResources - allocated in the queue's inqueue. Job a runs 1 of its 3 cpu: with minMember 1 the other
    2 stay reserved and job b's 2 cpu do not fit the queue's 4 (1 + 2 + 2); with minMember 2 nothing is."""
    c = cluster(
        conf("enqueue", [CAP]),
        node("n1", cpu="8"),
        queue("q", capability={"cpu": "4"}),
        podgroup("a", "q", min_member=min_member, phase="Running", min_resources={"cpu": "3"}),
        podgroup("b", "q", phase="Pending", min_resources={"cpu": "2"}),
        pod("a1", "a", {"cpu": "1"}, node_name="n1"), pod("b1", "b", {"cpu": "2"}),
    )
    assert run_cycle(c).podgroup_phases["ns1/b"] == b_phase
