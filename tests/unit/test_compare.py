"""compare(): one workload, two configurations, side by side (binds, evictions, pipelined jobs, shares)."""

from __future__ import annotations

import pytest

from capacity.analysis.compare import Config, compare, configured
from capacity.authoring.lessons import load_lesson
from capacity.core.errors import InputError
from capacity.framework.session import SessionOptions

HEAD = Config("HEAD")


def test_switch_on_and_off_seed003():
    cluster = load_lesson("11-seed003-leaf-only").cluster("head")
    cmp = compare(cluster, HEAD, Config("leaf-only", SessionOptions(leaf_only_allocatable=True)))
    assert cmp.a.binds == {} and cmp.b.binds == {"ns1/new-0": "n1"}
    assert cmp.binds == [{"pod": "ns1/new-0", "a": "", "b": "n1", "same": False}]
    assert not cmp.identical and cmp.differences >= 1
    assert cmp.b.queues_next["queue1"]["allocated"]["memory"] == 6 * 1024**3
    assert cluster.pods["ns1/new-0"].node_name == ""  # the input is not changed


def test_two_confs_proportion_vs_capacity():
    lesson = load_lesson("09-proportion-vs-capacity")
    cluster = lesson.cluster("capacity")
    cmp = compare(cluster, Config("capacity"), Config("proportion", conf_text=lesson.conf_text("proportion")))

    def per_queue(binds):
        out: dict[str, int] = {}
        for k in binds:
            q = "q1" if "/j1-" in k else "q2"
            out[q] = out.get(q, 0) + 1
        return out

    assert per_queue(cmp.a.binds) == {"q1": 2, "q2": 6}
    assert per_queue(cmp.b.binds) == {"q1": 6, "q2": 2}
    shares = {r["queue"]: r for r in cmp.shares}
    assert shares["q1"]["a next"] == 1.0 and shares["q1"]["b next"] == 1.0  # each at its own deserved
    assert sum(1 for r in cmp.binds if not r["same"]) == 8


def test_shares_at_cycle_end_and_next_open_seed004():
    cluster = load_lesson("10-seed004-section7").cluster("allocate")
    cmp = compare(cluster, HEAD, Config("seed 004 root", SessionOptions(seed004_root_init=True)))
    team_a = next(r for r in cmp.shares if r["queue"] == "team-a")
    assert team_a["a end"] == 0.75 and team_a["a next"] == pytest.approx(55 / 60)
    root = next(r for r in cmp.shares if r["queue"] == "root")
    assert root["a next"] == pytest.approx(0.85) and root["b next"] == pytest.approx(0.85)


def test_evictions_over_cycles_and_identical_configs():
    cluster = load_lesson("08-preempt-with-gang").cluster("main")
    cmp = compare(cluster, HEAD, Config("again"), cycles=3)
    assert cmp.identical and len(cmp.a.cycles) == 3
    assert [r["pod"] for r in cmp.evictions] == ["ns1/elastic-2", "ns1/elastic-3"]
    assert all(r["a"] and r["b"] for r in cmp.evictions)
    assert cmp.a.binds == {"ns1/urgent-0": "n1", "ns1/urgent-1": "n1"}


def test_reclaim_level_confs_differ_in_evictions():
    lesson = load_lesson("06-ancestor-reclaim-level")
    cluster = lesson.cluster("level0")
    cmp = compare(cluster, Config("L1", conf_text=lesson.conf_text("level1")),
                  Config("L2", conf_text=lesson.conf_text("level2")))
    assert cmp.evictions == [{"pod": "ns1/p-victim", "a": True, "b": False, "same": False}]
    assert cmp.pipelined == [{"job": "ns1/reclaimer", "a": "n1", "b": "", "same": False}]


def test_bad_input():
    cluster = load_lesson("01-deserved-and-share").cluster("main")
    with pytest.raises(InputError, match="cycles"):
        compare(cluster, HEAD, HEAD, cycles=0)
    with pytest.raises(InputError):
        configured(cluster, Config("bad", conf_text="actions: [\n"))
    assert configured(cluster, Config("blank", conf_text="  ")).conf.text == cluster.conf.text
