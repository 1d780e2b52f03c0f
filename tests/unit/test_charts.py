"""capacity.analysis.charts: figures carry the engine's numbers exactly, and treemaps always draw something."""

from __future__ import annotations

from pathlib import Path

import pytest

from capacity.analysis import charts
from capacity.core.resources import MAX_FLOAT, SCALAR_INFINITY
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import run_cycle

ROOT = Path(__file__).resolve().parents[2]
GI = 2**30


def q(parent: str, share: float = 0.5, **metrics: dict[str, float]) -> dict:
    return {"parent": parent, "share": share, **metrics}


# root -> team (-> a, b), c.  Deserved nests; capability of a + b exceeds team's.
QUEUES = {
    "root": q("", 0.4, deserved={"cpu": 10_000, "memory": 10 * GI}, capability={"cpu": MAX_FLOAT},
              allocated={"cpu": 4000}),
    "team": q("root", 0.5, deserved={"cpu": 6000, "memory": 4 * GI}, capability={"cpu": 6000},
              allocated={"cpu": 3000}),
    "a": q("team", 1.5, deserved={"cpu": 2000, "memory": GI}, capability={"cpu": 5000},
           allocated={"cpu": 3000}, guarantee={"cpu": 0}),
    "b": q("team", 0.0, deserved={"cpu": 4000, "memory": 3 * GI, "nvidia.com/gpu": 2000},
           capability={"cpu": 4000}, allocated={"cpu": 0, "pods": 3}),
    "c": q("root", 0.25, deserved={"cpu": 4000, "memory": 6 * GI}, capability={"cpu": 4000},
           allocated={"cpu": 1000}),
}


def trace_of(fig):
    return fig.data[0]


def test_resource_names_lists_every_scalar_but_pods():
    assert charts.resource_names(QUEUES) == ["cpu", "memory", "nvidia.com/gpu"]


def test_describe_writes_kubernetes_quantities():
    assert charts.describe({"cpu": 2500, "memory": 4 * GI, "nvidia.com/gpu": 1000, "pods": 3}) == \
        "cpu 2500m, memory 4Gi, nvidia.com/gpu 1"
    assert charts.describe(None) == "-"
    assert charts.describe({"cpu": SCALAR_INFINITY}) == "cpu ∞"


def test_treemap_total_when_parents_hold_their_children():
    tm = charts.treemap(QUEUES, "deserved", "cpu")
    t = trace_of(tm.figure)
    assert tm.branchvalues == "total" == t.branchvalues
    assert tm.overflow == [] and tm.unlimited == [] and not tm.empty
    values = dict(zip(t.ids, t.values, strict=True))
    assert values == {"root": 10_000, "team": 6000, "a": 2000, "b": 4000, "c": 4000}
    parents = dict(zip(t.ids, t.parents, strict=True))
    assert parents == {"root": "", "team": "root", "a": "team", "b": "team", "c": "root"}
    # Exact values on hover, coloured by share.
    custom = dict(zip(t.ids, t.customdata, strict=True))
    assert custom["root"][0] == "10" and custom["a"][1] == "1.5"
    assert list(t.marker.colors) == [QUEUES[i]["share"] for i in t.ids]


def test_treemap_memory_hover_in_binary_units():
    t = trace_of(charts.treemap(QUEUES, "deserved", "memory").figure)
    custom = dict(zip(t.ids, t.customdata, strict=True))
    assert custom["b"][0] == "3Gi" and custom["root"][0] == "10Gi"


def _drawn_area(t) -> dict[str, float]:
    """The area Plotly gives each tile in remainder mode: own value plus the children's areas."""
    values = dict(zip(t.ids, t.values, strict=True))
    kids: dict[str, list[str]] = {}
    for i, p in zip(t.ids, t.parents, strict=True):
        kids.setdefault(p, []).append(i)

    def area(i: str) -> float:
        return values[i] + sum(area(k) for k in kids.get(i, []))
    return {i: area(i) for i in t.ids}


def test_treemap_falls_back_to_remainder_when_children_exceed_parent():
    tm = charts.treemap(QUEUES, "capability", "cpu")
    t = trace_of(tm.figure)
    assert tm.branchvalues == "remainder" == t.branchvalues
    assert tm.overflow == ["team"]  # a 5 + b 4 > team 6
    assert tm.unlimited == ["root"]
    assert all(v >= 0 for v in t.values)
    area = _drawn_area(t)
    assert area["team"] == 9000 and area["a"] == 5000 and area["root"] == 13_000
    message = charts.overflow_message(tm, QUEUES, "capability", "cpu")
    assert "team (6 < children 9)" in message and "remainder" in message and "root" in message
    custom = dict(zip(t.ids, t.customdata, strict=True))
    assert custom["team"][0] == "6" and custom["root"][0] == "∞"


def test_treemap_parent_zero_with_children_is_remainder():
    queues = {"root": q("", guarantee={"cpu": 0}), "x": q("root", guarantee={"cpu": 1000})}
    tm = charts.treemap(queues, "guarantee", "cpu")
    assert tm.branchvalues == "remainder" and tm.overflow == ["root"]


def test_treemap_all_zero_is_empty():
    tm = charts.treemap(QUEUES, "guarantee", "nvidia.com/gpu")
    assert tm.empty and tm.branchvalues == "total"


def test_queue_rows_are_in_tree_order_with_exact_text():
    rows = charts.queue_rows(QUEUES)
    assert [r["queue"] for r in rows] == ["root", "c", "team", "a", "b"]
    b = rows[-1]
    assert b["deserved"] == "cpu 4, memory 3Gi, nvidia.com/gpu 2"
    assert b["allocated"] == "cpu 0"  # pods are left out
    assert b["guarantee"] == "-" and b["share"] == 0.0 and b["depth"] == 2


def test_queue_tree_figure_has_a_node_per_queue_and_an_edge_per_parent():
    fig = charts.queue_tree_figure(QUEUES)
    edges, nodes = fig.data
    assert sorted(nodes.text) == sorted(QUEUES)
    assert list(edges.x).count(None) == len(QUEUES) - 1
    pos = {n: (x, y) for n, x, y in zip(nodes.text, nodes.x, nodes.y, strict=True)}
    assert pos["root"][1] == 0 and pos["a"][1] == -2
    assert pos["a"][0] < pos["team"][0] < pos["b"][0]  # a parent sits above the middle of its children
    hover = dict(zip(nodes.text, nodes.hovertext, strict=True))
    assert "deserved: cpu 2, memory 1Gi" in hover["a"]


def test_share_timeline_one_line_per_queue():
    history = [(1, {"a": {"share": 0.5}, "b": {"share": 0.0}}), (2, {"a": {"share": 0.75}, "b": {"share": 1.0}})]
    fig = charts.share_timeline_figure(history)
    lines = {t.name: (list(t.x), list(t.y)) for t in fig.data}
    assert lines == {"a": ([1, 2], [0.5, 0.75]), "b": ([1, 2], [0.0, 1.0])}


@pytest.mark.parametrize("metric", charts.TREEMAP_METRICS)
def test_default_scenario_treemaps_match_the_engine(metric):
    cluster = load_cluster_file(str(ROOT / "fixtures" / "default.yaml"))
    queues = run_cycle(cluster).queues
    assert "nvidia.com/gpu" in charts.resource_names(queues)
    for resource in charts.resource_names(queues):
        tm = charts.treemap(queues, metric, resource)
        t = trace_of(tm.figure)
        assert set(t.ids) == set(queues)
        if tm.branchvalues == "total":
            values = dict(zip(t.ids, t.values, strict=True))
            for name, numbers in queues.items():
                assert values[name] == numbers[metric].get(resource, 0)
        else:
            assert tm.overflow or tm.unlimited
            area = _drawn_area(t)
            for name, numbers in queues.items():
                if not charts.is_unlimited(numbers[metric].get(resource, 0)):
                    assert area[name] >= numbers[metric].get(resource, 0)


# ---- input shown as text, units, unset capability, side-by-side bars ----------------------------------------

EVIL = "q<a href='http://127.0.0.2:9/'>x</a><span style='font-size:60px'>big</span>&"


def _strings(fig) -> str:
    """Every string Plotly could render as markup: labels, texts, hover texts, names, templates, titles."""
    return fig.to_json()


def test_plotly_labels_and_hovers_escape_names_from_the_input():
    queues = {"root": q("", deserved={"cpu": 4000}, allocated={"cpu": 1000}),
              EVIL: q("root", deserved={"cpu": 2000}, allocated={"cpu": 3000}, capability={"cpu": 3000})}
    figs = [charts.treemap(queues, "deserved", "cpu").figure, charts.queue_tree_figure(queues),
            charts.share_timeline_figure([(1, queues)]), charts.queue_bars_figure(queues, "cpu"),
            charts.treemap(queues, "deserved", "x<b>r</b>").figure]
    for fig in figs:
        text = _strings(fig)
        assert "<a href" not in text and "<span style" not in text and "<b>r</b>" not in text, text[:500]
    tm = trace_of(figs[0])
    assert list(tm.ids) == ["root", EVIL] and tm.parents[1] == "root"  # ids stay the names: the tree holds
    assert tm.labels[1] == "q&lt;a href=&#x27;http://127.0.0.2:9/&#x27;&gt;x&lt;/a&gt;&lt;span style=&#x27;" \
        "font-size:60px&#x27;&gt;big&lt;/span&gt;&amp;"
    assert "%{customdata[3]}" in tm.hovertemplate and "x<b>" not in tm.hovertemplate  # input never in a template


def test_memory_is_written_in_the_inputs_own_units():
    # A third of 10G (a share of decimal input) reads in the input's decimal units, not as 3.1Gi.
    third = {"memory": 10**10 / 3}
    assert charts.describe(third) == "memory 3.1Gi"
    assert charts.describe(third, styles={"memory": "decimal"}) == "memory 3.33G"
    rows = charts.queue_rows({"root": q("", deserved=third)}, {"memory": "decimal"})
    assert rows[0]["deserved"] == "memory 3.33G"
    tm = trace_of(charts.treemap({"root": q("", deserved=third)}, "deserved", "memory", {"memory": "decimal"}).figure)
    assert tm.customdata[0][0] == "3.33G"


def test_unset_capability_reads_unset_not_zero():
    queues = {"root": q("", capability={"cpu": MAX_FLOAT, "memory": MAX_FLOAT}),
              "team": q("root", capability={"cpu": 4000, "memory": 0, "nvidia.com/gpu": 0})}
    rows = {r["queue"]: r for r in charts.queue_rows(queues, declared={"root": set(), "team": {"cpu"}})}
    assert rows["team"]["capability"] == "cpu 4, memory unset (no limit), nvidia.com/gpu unset (no limit)"
    assert rows["root"]["capability"] == "cpu ∞, memory ∞"
    # Without the specs nothing is called unset (the numbers alone cannot tell).
    assert charts.queue_rows(queues)[1]["capability"] == "cpu 4, memory 0, nvidia.com/gpu 0"


def test_queue_bars_show_borrowing_and_the_marks():
    fig = charts.queue_bars_figure(QUEUES, "cpu")
    by_name = {t.name: t for t in fig.data}
    within, borrowed = by_name["allocated (within deserved)"], by_name["borrowed (allocated above deserved)"]
    labels = list(within.x)
    assert labels == ["root", "· c", "· team", "· · a", "· · b"]  # tree order, depth shown
    a = labels.index("· · a")
    assert within.y[a] == 2 and borrowed.y[a] == 1  # a: allocated 3 > deserved 2 cores, 1 core borrowed
    assert sum(borrowed.y) == 1
    assert dict(zip(by_name["deserved"].x, by_name["deserved"].y, strict=True))["· · a"] == 2
    assert fig.layout.yaxis.title.text == "cpu (cores)"
    assert "root" not in by_name["capability"].x  # unlimited: no mark
    assert "borrowed (above deserved): 1" in borrowed.text[a]


def test_share_timeline_says_it_is_the_end_of_each_cycle():
    fig = charts.share_timeline_figure([(1, {"a": {"share": 0.5}})])
    assert "end of each cycle" in fig.layout.title.text
    assert "share at the end of cycle %{x}" in fig.data[0].hovertemplate
