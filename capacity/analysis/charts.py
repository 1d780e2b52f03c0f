"""Plotly figures from engine state: pure functions, no Streamlit, every number from the engine.

The input is the per-queue summary the queue plugin reports (`CycleResult.queues`: for each queue
`deserved`, `allocated`, `realCapability`, `capability`, `guarantee` as `to_dict` values, `share` and
`parent`). Figures only arrange those numbers; tables, tiles and hover texts show them for reading at any size
(`capacity.core.human_units`: cores, Gi; in the input's own family of units when the caller passes the cluster's
`unit_styles`).

Names come from the user's input and Plotly renders an HTML subset in labels, hover texts, legends and
titles: every input string goes through `safe` (HTML-escaped), and none is put into a template
(`texttemplate`/`hovertemplate` only reference data fields).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go

from capacity.core.human_units import human_describe, human_value
from capacity.core.quantity import format_resource_value, format_resources
from capacity.core.resources import SCALAR_INFINITY

#: The per-queue resource vectors a treemap can show, in the order the dashboard offers them.
TREEMAP_METRICS = ("deserved", "allocated", "guarantee", "capability", "realCapability")
#: Columns of the queue table, in the spec's vocabulary.
TABLE_METRICS = ("deserved", "allocated", "capability", "guarantee", "realCapability")
#: Share 1.0 = allocated equals deserved on the dominant dimension: the neutral colour.
SHARE_COLORSCALE = "RdBu_r"

QueueNumbers = Mapping[str, Mapping[str, Any]]
Styles = Mapping[str, str] | None
#: How a queue's capability reads for a resource its spec leaves out (Volcano applies no limit there).
UNSET = "unset (no limit)"


def safe(text: object) -> str:
    """`text` from the input as Plotly shows it literally: `<`, `>`, `&` and quotes escaped."""
    return html.escape(str(text), quote=True)


def is_unlimited(amount: float) -> bool:
    """Volcano's "no limit": MaxFloat64 for cpu/memory, MaxInt64 for scalars (spec 3.3)."""
    return amount >= SCALAR_INFINITY


def describe(values: Mapping[str, float] | None, *, skip: Iterable[str] = ("pods",), styles: Styles = None,
             unset: Iterable[str] = ()) -> str:
    """A resource dict as a user writes it: ``"cpu 8, memory 64Gi, nvidia.com/gpu 2"``.

    `styles`: the input's unit style per resource (Cluster.unit_styles), so 4G reads 4G, not 3906250Ki.
    `unset`: resources whose 0 means "not set" (a capability the queue's spec leaves out): written `UNSET`.
    """
    return format_resources(values, styles, skip=skip, unset=unset, unset_text=UNSET, empty="-")


def unset_capabilities(queues: QueueNumbers, declared: Mapping[str, Iterable[str]] | None) -> dict[str, set[str]]:
    """Per queue, the resources of its reported capability that its spec does not set (`declared`: the
    resource names each queue's spec.capability lists; None: nothing is known, nothing is called unset)."""
    if declared is None:
        return {}
    out: dict[str, set[str]] = {}
    for name, numbers in queues.items():
        if name in declared:
            out[name] = set(numbers.get("capability") or {}) - set(declared[name])
    return out


def resource_names(queues: QueueNumbers) -> list[str]:
    """cpu, memory, then every scalar (GPU kinds, ...) any queue mentions; `pods` is left out."""
    scalars: set[str] = set()
    for numbers in queues.values():
        for metric in TREEMAP_METRICS:
            scalars.update(numbers.get(metric) or {})
    scalars -= {"cpu", "memory", "pods"}
    return ["cpu", "memory", *sorted(scalars)]


def _parent_of(name: str, queues: QueueNumbers) -> str:
    parent = str(queues[name].get("parent") or "")
    return parent if parent in queues and parent != name else ""


def _children(queues: QueueNumbers) -> dict[str, list[str]]:
    kids: dict[str, list[str]] = {name: [] for name in queues}
    for name in queues:
        parent = _parent_of(name, queues)
        if parent:
            kids[parent].append(name)
    return kids


def _roots(queues: QueueNumbers) -> list[str]:
    return [name for name in queues if not _parent_of(name, queues)]


def _preorder(queues: QueueNumbers) -> list[tuple[str, int]]:
    """(queue, depth) in depth-first order, children sorted by name: parents before their children."""
    kids = _children(queues)
    out: list[tuple[str, int]] = []
    stack = [(name, 0) for name in sorted(_roots(queues), reverse=True)]
    while stack:
        name, depth = stack.pop()
        out.append((name, depth))
        stack.extend((child, depth + 1) for child in sorted(kids[name], reverse=True))
    return out


# ---- queue table --------------------------------------------------------------------------------


def queue_rows(queues: QueueNumbers, styles: Styles = None,
               declared: Mapping[str, Iterable[str]] | None = None) -> list[dict[str, Any]]:
    """One row per queue (tree order) with the table's metrics for reading (cores, Gi: `human_describe`).

    `declared`: each queue's spec.capability resource names; a capability its spec leaves out reads `UNSET`.
    """
    unset = unset_capabilities(queues, declared)
    rows = []
    for name, depth in _preorder(queues):
        numbers = queues[name]
        row: dict[str, Any] = {"queue": name, "parent": _parent_of(name, queues), "depth": depth,
                               "share": float(numbers.get("share", 0.0))}
        for metric in TABLE_METRICS:
            row[metric] = human_describe(numbers.get(metric), styles=styles, unset_text=UNSET,
                                         unset=unset.get(name, ()) if metric == "capability" else ())
        rows.append(row)
    return rows


# ---- queue tree ---------------------------------------------------------------------------------


#: More queues than this on one level of the tree: their labels alternate below and above.
CROWDED_LEVEL = 10


def queue_tree_figure(queues: QueueNumbers, styles: Styles = None,
                      hidden: Mapping[str, int] | None = None) -> go.Figure:
    """The queue hierarchy as a top-down tree, nodes coloured by share, numbers on hover.

    `hidden`: per queue, how many queues below it are not drawn (a collapsed level): labelled "(+n)"."""
    order = _preorder(queues)
    kids = _children(queues)
    x: dict[str, float] = {}
    next_leaf = 0.0

    def place(name: str) -> float:
        nonlocal next_leaf
        if not kids[name]:
            x[name] = next_leaf
            next_leaf += 1.0
        else:
            xs = [place(child) for child in sorted(kids[name])]
            x[name] = (xs[0] + xs[-1]) / 2
        return x[name]

    for root in sorted(_roots(queues)):
        place(root)
    depth = dict(order)
    edge_x: list[float | None] = []
    edge_y: list[float | None] = []
    for name, _ in order:
        parent = _parent_of(name, queues)
        if parent:
            edge_x += [x[parent], x[name], None]
            edge_y += [-depth[parent], -depth[name], None]
    names = [name for name, _ in order]
    shares = [float(queues[n].get("share", 0.0)) for n in names]
    hover = [_queue_hover(n, queues[n], styles) for n in names]
    # Many queues on one level: labels alternate below and above their markers, so neighbours do not overlap.
    position = dict.fromkeys(names, "bottom center")
    for level in set(depth.values()):
        row = sorted((n for n in names if depth[n] == level), key=lambda n: x[n])
        if len(row) > CROWDED_LEVEL:
            position.update(dict.fromkeys(row[1::2], "top center"))
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=edge_x, y=edge_y, mode="lines", line={"color": "#999", "width": 1.5},
                             hoverinfo="skip", showlegend=False))
    fig.add_trace(go.Scatter(
        x=[x[n] for n in names], y=[-depth[n] for n in names], mode="markers+text",
        text=[safe(n) + (f" (+{hidden[n]})" if hidden and hidden.get(n) else "") for n in names],
        textposition=[position[n] for n in names], hovertext=hover, hoverinfo="text", showlegend=False, name="queues",
        marker={"size": 26, "color": shares, "colorscale": SHARE_COLORSCALE, "cmin": 0.0,
                "cmax": max(2.0, *shares) if shares else 2.0, "cmid": 1.0,
                "line": {"color": "#333", "width": 1}, "colorbar": {"title": {"text": "share"}}},
    ))
    levels = max(depth.values(), default=0)
    fig.update_layout(
        height=160 + 110 * levels, margin={"t": 20, "b": 40, "l": 20, "r": 20},
        xaxis={"visible": False, "range": [-0.7, max(next_leaf - 0.3, 0.7)]},
        yaxis={"visible": False, "range": [-levels - 0.6, 0.4]},
        plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


def _queue_hover(name: str, numbers: Mapping[str, Any], styles: Styles = None) -> str:
    lines = [f"<b>{safe(name)}</b>", f"share: {float(numbers.get('share', 0.0)):.4g}"]
    lines += [f"{metric}: {safe(human_describe(numbers.get(metric), styles=styles))}" for metric in TABLE_METRICS
              if metric in numbers]
    return "<br>".join(lines)


# ---- treemaps -----------------------------------------------------------------------------------


@dataclass
class Treemap:
    """A treemap figure and what the user must be told about how it was drawn.

    `branchvalues` is "total" when every parent holds its children; otherwise "remainder", where a
    parent's tile is as large as the larger of its own value and its children's tiles (`overflow`
    names those parents). `unlimited` queues (∞) are drawn as large as their children.
    """

    figure: go.Figure
    branchvalues: str
    overflow: list[str] = field(default_factory=list)
    unlimited: list[str] = field(default_factory=list)
    empty: bool = False


def treemap(queues: QueueNumbers, metric: str, resource: str, styles: Styles = None) -> Treemap:
    """One treemap: tiles sized by `metric` on `resource`, coloured by queue share, exact on hover."""
    order = _preorder(queues)
    kids = _children(queues)
    own = {name: float((queues[name].get(metric) or {}).get(resource, 0.0)) for name, _ in order}
    unlimited = [name for name, _ in order if is_unlimited(own[name])]
    # Tile totals bottom-up: a parent is at least as large as its children (needed by any drawing).
    total: dict[str, float] = {}
    overflow: list[str] = []
    for name, _ in reversed(order):
        below = sum(total[child] for child in kids[name])
        value = below if is_unlimited(own[name]) else own[name]
        if kids[name] and below > value:
            overflow.append(name)
        total[name] = max(value, below)
    overflow.reverse()
    names = [name for name, _ in order]
    if overflow or unlimited:
        branchvalues = "remainder"
        values = [total[n] - sum(total[c] for c in kids[n]) for n in names]
    else:
        branchvalues = "total"
        values = [own[n] for n in names]
    shares = [float(queues[n].get("share", 0.0)) for n in names]
    what = safe(f"{metric} {resource}")
    custom = [[safe(human_value(resource, own[n], styles)), f"{shares[i]:.4g}",
               safe(human_value(resource, total[n], styles)), what] for i, n in enumerate(names)]
    fig = go.Figure(go.Treemap(
        ids=names, labels=[safe(n) for n in names], parents=[_parent_of(n, queues) for n in names], values=values,
        branchvalues=branchvalues, customdata=custom, sort=False,
        texttemplate="<b>%{label}</b><br>%{customdata[0]}",
        hovertemplate=("<b>%{label}</b><br>%{customdata[3]}: %{customdata[0]}"
                       "<br>share: %{customdata[1]}<br>tile: %{customdata[2]}<extra></extra>"),
        marker={"colors": shares, "colorscale": SHARE_COLORSCALE, "cmin": 0.0,
                "cmax": max(2.0, *shares) if shares else 2.0, "cmid": 1.0,
                "colorbar": {"title": {"text": "share"}}},
    ))
    fig.update_layout(height=460, margin={"t": 30, "b": 10, "l": 10, "r": 10},
                      title={"text": safe(f"{metric} · {resource}"), "x": 0.01})
    empty = not any(total[n] > 0 for n in names)
    return Treemap(fig, branchvalues, overflow, unlimited, empty)


def overflow_message(tm: Treemap, queues: QueueNumbers, metric: str, resource: str, styles: Styles = None) -> str:
    """What to tell the user when the treemap could not use branchvalues="total"."""
    parts = []
    for name in tm.overflow:
        kids = [k for k in queues if _parent_of(k, queues) == name]
        below = sum(float((queues[k].get(metric) or {}).get(resource, 0.0)) for k in kids)
        mine = float((queues[name].get(metric) or {}).get(resource, 0.0))
        parts.append(f"{name} ({format_resource_value(resource, mine, styles)} < children "
                     f"{format_resource_value(resource, below, styles)})")
    text = ""
    if parts:
        text = (f"The children's {metric} on {resource} exceed their parent's for " + "; ".join(parts)
                + ". Plotly draws nothing in that case with branchvalues='total', so this treemap uses "
                "branchvalues='remainder': such a parent's tile is as large as its children's.")
    if tm.unlimited:
        text += (" " if text else "") + (f"Unlimited (∞) {metric} on {resource}: {', '.join(tm.unlimited)}; "
                                         "drawn as large as the children.")
    return text


# ---- history ------------------------------------------------------------------------------------


#: What the history chart's points are: the capacity plugin's share as a cycle closed. Pages showing "now"
#: numbers show the share as the next session opens (jobs that finished or were evicted are gone by then).
SHARE_TIMELINE_TITLE = "Share at the end of each cycle (as the cycle closed, before the next session opens)"


def share_timeline_figure(history: Iterable[tuple[int, QueueNumbers]],
                          queues: Iterable[str] | None = None) -> go.Figure:
    """Queue share at the end of each cycle: one line per queue, x = cycle number."""
    points = list(history)
    wanted = list(queues) if queues is not None else sorted({q for _, numbers in points for q in numbers})
    fig = go.Figure()
    for name in wanted:
        xs = [cycle for cycle, numbers in points if name in numbers]
        ys = [float(numbers[name].get("share", 0.0)) for _, numbers in points if name in numbers]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines+markers", name=safe(name), text=[safe(name)] * len(xs),
                                 hovertemplate="%{text}<br>share at the end of cycle %{x}: %{y:.4g}<extra></extra>"))
    fig.update_layout(height=380, margin={"t": 40, "b": 40, "l": 50, "r": 10},
                      title={"text": SHARE_TIMELINE_TITLE, "x": 0.01, "font": {"size": 14}},
                      xaxis={"title": {"text": "cycle"}, "dtick": 1}, yaxis={"title": {"text": "share"}},
                      legend={"orientation": "h", "y": -0.25})
    return fig


# ---- deserved, allocated and guarantee side by side ---------------------------------------------

#: Marks drawn on each queue's bar: (metric, legend label, marker symbol, size, colour); deserved drawn last, on top.
BAR_MARKS = (("capability", "capability", "line-ew-open", 60, "#d62728"),
             ("guarantee", "guarantee", "triangle-up", 12, "#2a9d8f"),
             ("deserved", "deserved", "line-ew-open", 44, "#111"))


def axis_unit(resource: str, styles: Styles = None) -> tuple[float, str]:
    """(divisor, unit) to draw `resource`'s internal amounts on an axis in the units a user writes."""
    if resource == "cpu":
        return 1000.0, "cores"
    if resource == "memory":
        return (1e9, "GB") if styles and styles.get("memory") == "decimal" else (float(2**30), "GiB")
    if resource == "pods":
        return 1.0, "pods"
    if resource == "ephemeral-storage" or resource.startswith("hugepages-"):
        return 1000.0 * 2**30, "GiB"
    return 1000.0, "count"  # scalars are milli-units


def queue_bars_figure(queues: QueueNumbers, resource: str, styles: Styles = None) -> go.Figure:
    """Per queue on one resource: allocated as a bar (the part above deserved, i.e. borrowed, in its own
    colour), with deserved, guarantee and capability marked on it; no mark for no limit (∞) or no guarantee."""
    order = _preorder(queues)
    names = [n for n, _ in order]
    labels = [safe(("· " * depth) + n) for n, depth in order]

    scale, unit = axis_unit(resource, styles)

    def amount(name: str, metric: str) -> float:
        return float((queues[name].get(metric) or {}).get(resource, 0.0))

    def shown(v: float) -> str:
        return safe(human_value(resource, v, styles))

    alloc = [amount(n, "allocated") for n in names]
    deserved = [amount(n, "deserved") for n in names]
    within = [min(a, d) for a, d in zip(alloc, deserved, strict=True)]
    borrowed = [max(a - d, 0.0) for a, d in zip(alloc, deserved, strict=True)]
    hover = [f"{labels[i]}<br>allocated: {shown(alloc[i])}<br>deserved: {shown(deserved[i])}"
             f"<br>borrowed (above deserved): {shown(borrowed[i])}" for i in range(len(names))]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=[v / scale for v in within], name="allocated (within deserved)",
                         marker_color="#4c78a8",
                         text=hover, hovertemplate="%{text}<extra></extra>", textposition="none"))
    fig.add_trace(go.Bar(x=labels, y=[v / scale for v in borrowed], name="borrowed (allocated above deserved)",
                         marker_color="#f58518",
                         text=hover, hovertemplate="%{text}<extra></extra>", textposition="none"))
    for metric, label, symbol, size, colour in BAR_MARKS:
        xs, ys, texts = [], [], []
        for i, n in enumerate(names):
            v = amount(n, metric)
            if metric not in queues[n] or is_unlimited(v) or (metric == "guarantee" and v == 0):
                continue  # no limit, or no guarantee: nothing to mark
            xs.append(labels[i])
            ys.append(v / scale)
            texts.append(f"{labels[i]}<br>{label}: {shown(v)}")
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=label, text=texts,
                                 hovertemplate="%{text}<extra></extra>",
                                 marker={"symbol": symbol, "size": size, "color": colour,
                                         "line": {"width": 4 if metric == "deserved" else 2, "color": colour}}))
    fig.update_layout(barmode="stack", height=420, margin={"t": 40, "b": 80, "l": 60, "r": 10},
                      title={"text": safe(f"allocated against deserved, guarantee and capability · {resource}"),
                             "x": 0.01, "font": {"size": 14}},
                      yaxis={"title": {"text": safe(f"{resource} ({unit})")}, "rangemode": "tozero"},
                      legend={"orientation": "h", "y": -0.3})
    return fig
