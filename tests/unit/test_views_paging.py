"""Server-side paging, search and summaries (capacity.analysis.views_paging) and quantities for reading
(capacity.core.human_units): what keeps a page a screenful at openb scale."""

from __future__ import annotations

from capacity.analysis.views_paging import counts_by, paginate, queue_depths, search_rows, top_queues, tree_view
from capacity.core.human_units import human_describe, human_value
from capacity.core.resources import SCALAR_INFINITY

GI = 2**30


def test_paginate_cuts_one_page_and_clamps_the_number():
    rows = list(range(120))
    page = paginate(rows, 2, 50)
    assert page.rows == list(range(50, 100)) and (page.number, page.pages, page.total) == (2, 3, 120)
    assert page.caption("pods") == "pods 51-100 of 120 (page 2 of 3)"
    assert paginate(rows, 99, 50).rows == list(range(100, 120))  # past the end: the last page
    assert paginate(rows, 0, 50).number == 1
    empty = paginate([], 3, 50)
    assert empty.rows == [] and empty.pages == 1 and empty.caption("rows") == "0 rows"
    assert paginate([1], 1).caption("cycles") == "1 cycle"


def test_search_is_case_insensitive_over_the_named_fields_only():
    rows = [{"pod": "ns/Train-0", "node": "n1"}, {"pod": "ns/eval-0", "node": "train-node"}, {"pod": "x", "node": ""}]
    assert [r["pod"] for r in search_rows(rows, "TRAIN", ("pod",))] == ["ns/Train-0"]
    assert len(search_rows(rows, "train", ("pod", "node"))) == 2
    assert len(search_rows(rows, "  ", ("pod",))) == 3  # an empty box keeps everything


def test_counts_by_summarises_a_long_list_most_first():
    binds = [{"queue": "b"}] * 3 + [{"queue": "a"}] * 3 + [{"queue": "c"}]
    assert counts_by(binds, "queue") == [{"queue": "a", "count": 3}, {"queue": "b", "count": 3},
                                         {"queue": "c", "count": 1}]


def _tree() -> dict[str, dict]:
    queues: dict[str, dict] = {"root": {"parent": ""}}
    for d in range(3):
        queues[f"d{d}"] = {"parent": "root"}
        for i in range(4):
            queues[f"d{d}-q{i}"] = {"parent": f"d{d}", "share": float(d + i)}
    return queues


def test_tree_view_opens_levels_and_counts_what_is_collapsed():
    queues = _tree()
    assert queue_depths(queues) == {n: 0 if n == "root" else 1 if "-" not in n else 2 for n in queues}
    two = tree_view(queues, 2)
    assert set(two.queues) == {"root", "d0", "d1", "d2"} and two.levels == 3
    assert two.hidden == {"d0": 4, "d1": 4, "d2": 4} and two.hidden_total == 12
    assert set(tree_view(queues, 3).queues) == set(queues) and not tree_view(queues, 3).hidden
    one = tree_view(queues, 1)
    assert set(one.queues) == {"root"} and one.hidden == {"root": 15}


def test_tree_search_keeps_matches_their_ancestors_and_children():
    view = tree_view(_tree(), 1, "D1")
    assert set(view.queues) == {"root", "d1", "d1-q0", "d1-q1", "d1-q2", "d1-q3"}
    leaf = tree_view(_tree(), 1, "d2-q3")
    assert set(leaf.queues) == {"root", "d2", "d2-q3"} and leaf.hidden == {"d2": 3, "root": 10}


def test_queue_depths_survive_a_parent_cycle():
    depths = queue_depths({"a": {"parent": "b"}, "b": {"parent": "a"}, "c": {"parent": "a"}})
    assert set(depths) == {"a", "b", "c"}


def test_top_queues_are_those_whose_share_went_highest():
    history = [(1, {"a": {"share": 0.2}, "b": {"share": 1.5}, "c": {"share": 0.9}}),
               (2, {"a": {"share": 2.0}, "b": {"share": 0.1}, "c": {"share": 0.9}})]
    assert top_queues(history, 2) == ["a", "b"]
    assert top_queues(history, 5, "c") == ["c"]
    assert top_queues(history, 0) == []


def test_human_units_read_in_cores_and_gi_at_any_size():
    assert human_value("cpu", 627570) == "627.57"  # S1's deserved cpu, "627570m" before
    assert human_value("cpu", 500) == "500m" and human_value("cpu", 2000) == "2"
    assert human_value("cpu", 12551400, {"cpu": "milli"}) == "12551.4"
    assert human_value("memory", 4 * 10**9, {"memory": "decimal"}) == "4G"  # "3906250Ki" before
    assert human_value("memory", 4 * 10**9) == "3.73Gi"
    assert human_value("memory", 64175830204416) == "58.37Ti"
    assert human_value("memory", 512 * 2**10) == "512Ki"  # small amounts stay exact
    assert human_value("nvidia.com/gpu", 621200) == "621.2" and human_value("nvidia.com/gpu", 1000) == "1"
    assert human_value("cpu", SCALAR_INFINITY) == "∞"
    assert human_describe({"cpu": 627570, "memory": 384 * GI, "pods": 3}) == "cpu 627.57, memory 384Gi"
    assert human_describe({"cpu": 0, "memory": 0}, unset=["memory"], unset_text="unset") == "cpu 0, memory unset"
    assert human_describe(None) == "-"
