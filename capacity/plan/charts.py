"""The Plan page's figures (plotly): wait time against each varied setting per queue, and the Pareto front.

Names from input (queues, settings) go into traces as text through `capacity.core.text.safe`, never as markup.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from capacity.core.text import safe
from capacity.plan.report import number, objectives, pareto
from capacity.plan.spec import PlanSpec

WAIT_TITLE = "Wait time vs the varied setting, per queue"
PARETO_TITLE = "Pareto front"


def wait_vs_quota(spec: PlanSpec, rows: list[dict[str, Any]], setting: str, queues: list[str]) -> go.Figure:
    """p95 (solid) and p50 (dotted) wait per queue against `setting`, the median over the other settings."""
    ok = [r for r in rows if r.get("status") == "ok" and number(r.get(setting)) is not None]
    fig = go.Figure()
    for q in queues:
        for metric, dash in (("wait_p95", "solid"), ("wait_p50", "dot")):
            col = f"{metric}[{q}]"
            by_x: dict[float, list[float]] = {}
            for r in ok:
                y = number(r.get(col))
                if y is not None:
                    by_x.setdefault(number(r[setting]), []).append(y)  # type: ignore[arg-type]
            if not by_x:
                continue
            xs = sorted(by_x)
            ys = [sorted(by_x[x])[len(by_x[x]) // 2] for x in xs]
            label = safe(f"{q} {metric[-3:]}")
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines+markers", name=label, line={"dash": dash},
                                     text=[label] * len(xs),
                                     hovertemplate="%{text}<br>setting %{x:g}: wait %{y:.0f} s<extra></extra>"))
    fig.update_layout(height=380, margin={"t": 40, "b": 40, "l": 50, "r": 10},
                      title={"text": WAIT_TITLE, "x": 0.01, "font": {"size": 14}},
                      xaxis={"title": {"text": safe(setting)}}, yaxis={"title": {"text": "wait (s)"}},
                      legend={"orientation": "h", "y": -0.25})
    return fig


def pareto_figure(spec: PlanSpec, rows: list[dict[str, Any]]) -> go.Figure:
    """The first two objectives of every candidate that ran, the Pareto front joined and marked."""
    cols = [c for c, _ in objectives(spec)]
    if len(cols) < 2:
        cols.append("evictions" if "evictions" not in cols else "fairness")
    x_col, y_col = cols[0], cols[1]
    ok = [r for r in rows if r.get("status") == "ok"]
    front = {int(r["id"]) for r in pareto(spec, rows)}
    fig = go.Figure()
    for on_front, name, symbol in ((False, "other candidates", "circle-open"), (True, "Pareto front", "diamond")):
        pts = [r for r in ok if (int(r["id"]) in front) == on_front]
        pts.sort(key=lambda r: number(r.get(x_col)) or 0.0)
        fig.add_trace(go.Scatter(
            x=[number(r.get(x_col)) for r in pts], y=[number(r.get(y_col)) for r in pts],
            mode="lines+markers" if on_front else "markers", name=name, marker={"symbol": symbol, "size": 11},
            text=[f"#{r['id']}" for r in pts], hovertemplate="%{text}: (%{x:.3g}, %{y:.3g})<extra></extra>"))
    fig.update_layout(height=360, margin={"t": 40, "b": 40, "l": 50, "r": 10},
                      title={"text": PARETO_TITLE, "x": 0.01, "font": {"size": 14}},
                      xaxis={"title": {"text": safe(x_col)}}, yaxis={"title": {"text": safe(y_col)}},
                      legend={"orientation": "h", "y": -0.25})
    return fig
