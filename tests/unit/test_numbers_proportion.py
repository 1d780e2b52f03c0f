"""proportion's reasons and records carry the figures they decided with (issue 27, gap 3)."""

from __future__ import annotations

from capacity.core.trace import Record, Trace
from capacity.scheduler import simulate
from tests.builders import cluster, conf, node, pod, podgroup, queue

PREEMPTABLE = {"labels": {"volcano.sh/preemptable": "true"}}
TIERS = ([{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}],
         [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}])


FIRST_TIER = ([{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}, {"name": "proportion"}],
              [{"name": "drf"}, {"name": "predicates"}, {"name": "nodeorder"}])


def _objs(min_b: int = 1, tiers: tuple = TIERS) -> list:
    """6 cpu, 12G: q1 (weight 1, capability cpu 5) runs five 1-cpu / 2G pods; q2 (weight 2, guarantee cpu 1)
    asks for three more. Water-filling: round 1 offers q1 2 and q2 4 (clipped at its request 3), round 2
    gives q1 the last cpu."""
    return [conf("enqueue, allocate, reclaim", *tiers), node("n1", cpu="6", memory="12G"),
            queue("q1", weight=1, capability={"cpu": "5"}), queue("q2", weight=2, guarantee={"cpu": "1"}),
            podgroup("pg1", "q1", phase="Running"),
            *[pod(f"a-{i}", "pg1", {"cpu": "1", "memory": "2G"}, node_name="n1", **PREEMPTABLE) for i in range(5)],
            podgroup("pg2", "q2", min_member=min_b),
            *[pod(f"b-{i}", "pg2", {"cpu": "1", "memory": "2G"}) for i in range(3)]]


def _run(objs: list, traced: bool = True) -> tuple[list[Record], object]:
    trace = Trace(enabled=traced)
    result = simulate(cluster(*objs), 1, trace)
    return trace.records, result


def _texts(records: list[Record], rule: str) -> list[str]:
    return [x.text for r in records for x in r.reasons if x.plugin == "proportion" and x.rule == rule]


def test_water_filling_rounds_show_weights_offers_and_clips() -> None:
    records, _ = _run(_objs())
    rounds = [r for r in records if r.kind == "proportionRound"]
    assert [r.subject for r in rounds] == ["round 1", "round 2"]
    first = rounds[0].reasons[0].text
    assert first.startswith("round 1: cpu 6, memory 12G left to share by weight among q1, q2 (total weight 3)")
    assert ("q2 (weight 2 of 3) is offered cpu 4, memory 8G, clipped at its request cpu 3, memory 6G, so deserves "
            "cpu 3, memory 6G (its request is met: it takes no further part)") in first
    assert "q1 (weight 1 of 3) is offered cpu 2, memory 4G, so deserves cpu 2, memory 4G" in first
    assert first.endswith("Left after the round: cpu 1, memory 2G")
    q2 = rounds[0].detail["queues"]["q2"]
    assert q2["weight"] == 2 and q2["offered"]["cpu"] == 4000
    assert q2["clippedByRequest"] == {"cpu": 3000.0, "memory": 6e9, "pods": 3.0}
    assert q2["clippedByRealCapability"] == {} and q2["met"] == "request satisfied"
    assert "q1 (weight 1 of 1) is offered cpu 1, memory 2G, so deserves cpu 3, memory 6G" in rounds[1].reasons[0].text


def test_queue_figures_show_capability_beside_real_capability() -> None:
    records, _ = _run(_objs())
    figures = {r.subject: r for r in records if r.kind == "queueFigures"}
    q1, q2 = figures["q1"], figures["q2"]
    assert q1.plugin == "proportion"
    assert q1.detail["capability"] == {"cpu": 5000.0, "memory": "unset (no limit)"}
    assert q2.detail["capability"] == {"cpu": "unset (no limit)", "memory": "unset (no limit)"}
    assert q2.detail["realCapabilityHow"]["cpu"] == ("cluster total 6 - guarantees of all queues 1 (queue q2) + "
                                                     "its own guarantee 1 = 6")
    assert q1.detail["realCapabilityHow"]["memory"] == "the cluster total 12G; no queue guarantees any"
    assert "water-filling by weight 1 over 2 rounds" in q1.detail["deservedHow"]
    text = q1.reasons[0].text
    assert text.startswith("queue q1: capability cpu 5, memory unset (no limit); realCapability cpu 5 (cluster total "
                           "6 - guarantees of all queues 1 (queue q2) + its own guarantee 0 = 5)")
    assert "share 1.667, the largest of allocated / deserved: cpu 5 / 3 = 1.667" in text
    for key in ("deserved", "guarantee", "allocated", "inqueue", "elastic", "share", "weight"):
        assert key in q1.detail


def test_overused_names_allocated_and_deserved() -> None:
    records, _ = _run(_objs())
    assert _texts(records, "overused") == [
        "queue q1 is overused: allocated cpu 5, memory 10G, pods 5 reached deserved cpu 3, memory 6G, pods 5 on every "
        "dimension (pods included)"]


def test_allocatable_shows_the_sum_against_deserved() -> None:
    records, _ = _run(_objs())
    assert _texts(records, "deserved")[:2] == [
        "ns1/b-0 fits queue q2's deserved: allocated + request <= deserved: cpu 0 + 1 = 1 <= 3, "
        "memory 0 + 2G = 2G <= 6G",
        "ns1/b-1 fits queue q2's deserved: allocated + request <= deserved: cpu 1 + 1 = 2 <= 3, "
        "memory 2G + 2G = 4G <= 6G"]


def test_refused_allocation_shows_the_sum_over_deserved() -> None:
    objs = [conf("allocate", *TIERS), node("n1", cpu="4", memory="8Gi"), queue("q1"), queue("q2"),
            podgroup("pg1", "q1"), pod("a", "pg1", {"cpu": "3", "memory": "1Gi"}),
            podgroup("pg2", "q2"), pod("b", "pg2", {"cpu": "3", "memory": "1Gi"})]
    records, _ = _run(objs)
    assert "queue q1 would exceed its deserved on cpu: allocated + request > deserved: cpu 0 + 3 = 3 > 2 (1 over)" in \
        _texts(records, "deserved")[0]


def test_reclaim_victims_state_the_sequence() -> None:
    """q2 (starving: minMember 3) reclaims; q1 is above its deserved cpu 3 until two victims are counted off."""
    records, result = _run(_objs(min_b=3, tiers=FIRST_TIER))
    goes = _texts(records, "overDeserved")
    kept = _texts(records, "notOverDeserved")
    assert goes[0] == "ns1/a-4 may go: queue q1's allocated cpu 5, memory 10G is above its deserved cpu 3, memory 6G"
    assert goes[1].startswith("ns1/a-3 may go: after evicting ns1/a-4 (cpu 1, memory 2G), queue q1's allocated would "
                              "be cpu 4, memory 8G, still above its deserved cpu 3, memory 6G")
    assert kept[0].startswith("ns1/a-2 kept: after evicting ns1/a-4 (cpu 1, memory 2G), ns1/a-3 (cpu 1, memory 2G), "
                              "queue q1's allocated would be cpu 3, memory 6G, pods 3, which is within its deserved "
                              "cpu 3, memory 6G, pods 5 on every dimension (pods included), so ns1/a-2 is kept")
    assert result.as_json()["evicted"]  # the reclaim happened


def test_enqueue_refusal_names_each_term() -> None:
    objs = [conf("enqueue", *TIERS), node("n1", cpu="4", memory="8Gi"), queue("q1", capability={"cpu": "2"}),
            podgroup("pg1", "q1", phase="Pending", min_resources={"cpu": "3"}), pod("a", "pg1", {"cpu": "3"})]
    records, _ = _run(objs)
    assert _texts(records, "enqueueRealCapability") == [
        "queue resource quota insufficient: minResources + allocated + inqueue - elastic exceeds queue q1's "
        "realCapability on cpu: cpu 3 + 0 + 0 - 0 = 3 > 2 (1 over)"]


def test_tracing_changes_no_decision() -> None:
    for objs in (_objs(), _objs(min_b=3), _objs(min_b=3, tiers=FIRST_TIER)):
        _, traced = _run(objs)
        _, plain = _run(objs, traced=False)
        assert traced.as_json() == plain.as_json()


def test_round_shows_real_capability_clip_and_guarantee_raise() -> None:
    """4 cpu, weights 1:1; q1 guarantees 3 cpu, so q2's realCapability is 4 - 3 = 1."""
    objs = [conf("allocate", *TIERS), node("n1", cpu="4", memory="8Gi"),
            queue("q1", guarantee={"cpu": "3"}), queue("q2"),
            podgroup("pg1", "q1"), *[pod(f"a-{i}", "pg1", {"cpu": "1"}) for i in range(4)],
            podgroup("pg2", "q2"), *[pod(f"b-{i}", "pg2", {"cpu": "1"}) for i in range(4)]]
    records, _ = _run(objs)
    first = next(r for r in records if r.kind == "proportionRound")
    text = first.reasons[0].text
    assert ("q1 (weight 1 of 2) is offered cpu 2, memory 4Gi, clipped at its request memory 0, raised to its "
            "guarantee cpu 3, so deserves cpu 3, memory 0") in text
    assert ("q2 (weight 1 of 2) is offered cpu 2, memory 4Gi, clipped at its realCapability cpu 1, clipped at its "
            "request memory 0, so deserves cpu 1, memory 0") in text
    assert first.detail["queues"]["q2"]["clippedByRealCapability"] == {"cpu": 1000.0}
    assert first.detail["queues"]["q1"]["raisedToGuarantee"] == {"cpu": 3000.0}
