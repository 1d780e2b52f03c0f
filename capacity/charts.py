"""Plotly figures from engine state: pure functions, no Streamlit, every number from the engine.

The input is the per-queue summary the queue plugin reports (`CycleResult.queues`: for each queue
`deserved`, `allocated`, `realCapability`, `capability`, `guarantee` as `to_dict` values, `share` and
`parent`). Figures only arrange those numbers; hover texts show them exactly, in Kubernetes units.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go

from capacity.quantity import format_resource_value
from capacity.resources import SCALAR_INFINITY

#: The per-queue resource vectors a treemap can show, in the order the dashboard offers them.
TREEMAP_METRICS = ("deserved", "allocated", "guarantee", "capability", "realCapability")
#: Columns of the queue table, in the spec's vocabulary.
TABLE_METRICS = ("deserved", "allocated", "capability", "guarantee", "realCapability")
#: Share 1.0 = allocated equals deserved on the dominant dimension: the neutral colour.
SHARE_COLORSCALE = "RdBu_r"

QueueNumbers = Mapping[str, Mapping[str, Any]]


def is_unlimited(amount: float) -> bool:
    """Volcano's "no limit": MaxFloat64 for cpu/memory, MaxInt64 for scalars (spec 3.3)."""
    return amount >= SCALAR_INFINITY


def describe(values: Mapping[str, float] | None, *, skip: Iterable[str] = ("pods",)) -> str:
    """A resource dict as a user writes it: ``"cpu 8, memory 64Gi, nvidia.com/gpu 2"``."""
    if not values:
        return "-"
    skipped = set(skip)
    parts = [f"{k} {format_resource_value(k, v)}" for k, v in values.items() if k not in skipped]
    return ", ".join(parts) or "-"


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


def queue_rows(queues: QueueNumbers) -> list[dict[str, Any]]:
    """One row per queue (tree order) with the table's metrics written out exactly."""
    rows = []
    for name, depth in _preorder(queues):
        numbers = queues[name]
        row: dict[str, Any] = {"queue": name, "parent": _parent_of(name, queues), "depth": depth,
                               "share": float(numbers.get("share", 0.0))}
        for metric in TABLE_METRICS:
            row[metric] = describe(numbers.get(metric))
        rows.append(row)
    return rows


# ---- queue tree ---------------------------------------------------------------------------------


def queue_tree_figure(queues: QueueNumbers) -> go.Figure:
    """The queue hierarchy as a top-down tree, nodes coloured by share, numbers on hover."""
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
    hover = [_queue_hover(n, queues[n]) for n in names]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=edge_x, y=edge_y, mode="lines", line={"color": "#999", "width": 1.5},
                             hoverinfo="skip", showlegend=False))
    fig.add_trace(go.Scatter(
        x=[x[n] for n in names], y=[-depth[n] for n in names], mode="markers+text", text=names,
        textposition="bottom center", hovertext=hover, hoverinfo="text", showlegend=False, name="queues",
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


def _queue_hover(name: str, numbers: Mapping[str, Any]) -> str:
    lines = [f"<b>{name}</b>", f"share: {float(numbers.get('share', 0.0)):.4g}"]
    lines += [f"{metric}: {describe(numbers.get(metric))}" for metric in TABLE_METRICS if metric in numbers]
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


def treemap(queues: QueueNumbers, metric: str, resource: str) -> Treemap:
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
    custom = [[format_resource_value(resource, own[n]), f"{shares[i]:.4g}",
               format_resource_value(resource, total[n])] for i, n in enumerate(names)]
    fig = go.Figure(go.Treemap(
        ids=names, labels=names, parents=[_parent_of(n, queues) for n in names], values=values,
        branchvalues=branchvalues, customdata=custom, sort=False,
        texttemplate="<b>%{label}</b><br>%{customdata[0]}",
        hovertemplate=(f"<b>%{{label}}</b><br>{metric} {resource}: %{{customdata[0]}}"
                       "<br>share: %{customdata[1]}<br>tile: %{customdata[2]}<extra></extra>"),
        marker={"colors": shares, "colorscale": SHARE_COLORSCALE, "cmin": 0.0,
                "cmax": max(2.0, *shares) if shares else 2.0, "cmid": 1.0,
                "colorbar": {"title": {"text": "share"}}},
    ))
    fig.update_layout(height=460, margin={"t": 30, "b": 10, "l": 10, "r": 10},
                      title={"text": f"{metric} · {resource}", "x": 0.01})
    empty = not any(total[n] > 0 for n in names)
    return Treemap(fig, branchvalues, overflow, unlimited, empty)


def overflow_message(tm: Treemap, queues: QueueNumbers, metric: str, resource: str) -> str:
    """What to tell the user when the treemap could not use branchvalues="total"."""
    parts = []
    for name in tm.overflow:
        kids = [k for k in queues if _parent_of(k, queues) == name]
        below = sum(float((queues[k].get(metric) or {}).get(resource, 0.0)) for k in kids)
        mine = float((queues[name].get(metric) or {}).get(resource, 0.0))
        parts.append(f"{name} ({format_resource_value(resource, mine)} < children "
                     f"{format_resource_value(resource, below)})")
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


def share_timeline_figure(history: Iterable[tuple[int, QueueNumbers]],
                          queues: Iterable[str] | None = None) -> go.Figure:
    """Queue share after each cycle: one line per queue, x = cycle number."""
    points = list(history)
    wanted = list(queues) if queues is not None else sorted({q for _, numbers in points for q in numbers})
    fig = go.Figure()
    for name in wanted:
        xs = [cycle for cycle, numbers in points if name in numbers]
        ys = [float(numbers[name].get("share", 0.0)) for _, numbers in points if name in numbers]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines+markers", name=name,
                                 hovertemplate=f"{name}<br>cycle %{{x}}<br>share %{{y:.4g}}<extra></extra>"))
    fig.update_layout(height=360, margin={"t": 30, "b": 40, "l": 50, "r": 10},
                      xaxis={"title": {"text": "cycle"}, "dtick": 1}, yaxis={"title": {"text": "share"}},
                      legend={"orientation": "h", "y": -0.25})
    return fig
