"""Queues page: what the cluster reported (Queue status, PodGroup phases, optionally the scheduler's metrics)
beside what the engine computes for the loaded dump, differences first with their likely causes.

The figures come from `capacity.analysis.check.compare`, the same code as `python -m capacity check`; they are of the
dump as loaded (before any cycle or edit), which is what the cluster's status describes.
"""

from __future__ import annotations

import logging

import streamlit as st

from capacity.analysis.check import Report, compare
from capacity.core.errors import InputError
from capacity.io.prometheus import parse_text
from ui.state import Problem, Workspace
from ui.text import md_escape
from ui.widgets import show_problem

MEMO_KEY = "reality_memo"
METRICS_KEY = "reality_metrics"


def _report(ws: Workspace, metrics_text: str | None) -> Report | Problem:
    """The comparison of the loaded text, computed once per text (and metrics) and kept in the session."""
    text = ws.loaded_text or ""
    key = (hash(text), len(text), hash(ws.loaded_conf), metrics_text)  # (a str caches its hash)
    memo = st.session_state.get(MEMO_KEY)
    if memo is not None and memo[0] == key:
        return memo[1]
    try:
        metrics = parse_text(metrics_text) if metrics_text is not None else None
        result: Report | Problem = compare(text, source=ws.scenario, metrics=metrics, conf_text=ws.loaded_conf)
    except InputError as err:
        result = Problem.from_error(err)
    except Exception:  # a bug in the engine: logged with its traceback on the server, one line on the page
        logging.getLogger(__name__).exception("reality check of %r failed", ws.scenario)
        result = Problem(ws.scenario, "", "the engine failed while comparing (an internal error, logged on the "
                         "server)")
    st.session_state[MEMO_KEY] = (key, result)
    return result


def rows(report: Report) -> list[dict[str, str]]:
    """One row per figure compared, the differing ones first (strings from the dump stay plain text)."""
    ordered = sorted(report.rows, key=lambda d: d.agree)
    return [{"": "differs" if not d.agree else "agrees", "object": d.obj, "figure": d.field,
             "computed (engine)": d.shown_engine(), "reported (cluster)": d.shown_reported(),
             "likely causes": "; ".join(d.causes) if not d.agree else ""} for d in ordered]


def show_reality(ws: Workspace) -> None:
    """The comparison, shown only when the loaded dump carries Queue status (or a metrics scrape is given)."""
    if not ws.loaded_text:
        return
    upload = st.session_state.get(METRICS_KEY)
    metrics_text = upload.getvalue().decode("utf-8", errors="replace") if upload is not None else None
    report = _report(ws, metrics_text)
    if isinstance(report, Report) and metrics_text is None and not any(
            d.obj.startswith("Queue/") for d in report.rows):
        return  # no Queue status in the dump (a hand-written scenario): nothing the cluster reported
    with st.container(key="reality_box"):
        st.subheader("Reported by the cluster, beside what the engine computes")
        st.caption(f"The dump as loaded ({md_escape(ws.scenario)}), before any cycle or edit: each Queue's "
                   "status.allocated and PodGroup counts, each PodGroup's phase after the session's enqueue, and "
                   "with a metrics scrape the scheduler's volcano_queue_* gauges. Same comparison as `python -m "
                   "capacity check`.")
        st.file_uploader("Scheduler metrics (optional): a Prometheus text scrape of the scheduler's /metrics",
                         type=["txt", "prom", "metrics"], key=METRICS_KEY)
        if isinstance(report, Problem):
            show_problem(report, "The comparison could not be made.")
            return
        diffs = report.differences
        if not report.rows:
            st.info("Nothing to compare: the dump carries no Queue status or PodGroup phase, and the metrics name "
                    "no queue the engine has numbers for.", icon=":material/info:")
        elif not diffs:
            st.success(f"The engine agrees with the cluster on all {len(report.rows)} figures.",
                       icon=":material/check_circle:")
        else:
            st.warning(f"{len(diffs)} of {len(report.rows)} figures differ.", icon=":material/warning:")
            common = report.common_causes()
            lines = []
            for d in diffs[:20]:
                own = [c for c in d.causes if c not in common]
                lines.append(f"- **{md_escape(d.obj)}** {md_escape(d.field)}: computed "
                             f"**{md_escape(d.shown_engine())}**, reported **{md_escape(d.shown_reported())}**")
                lines += [f"    - likely: {md_escape(c)}" for c in own] or (
                    ["    - no cause found in the dump" + (" besides those below" if common else "")])
            st.markdown("\n".join(lines))
            if len(diffs) > 20:
                st.caption(f"... and {len(diffs) - 20} more in the table below.")
            for c in sorted(common):
                st.markdown(f"Every difference may also come from {md_escape(c)}.")
        if report.rows:
            st.dataframe(rows(report), hide_index=True, key="reality_table",
                         column_config={"likely causes": st.column_config.TextColumn(width="large")})
        for note in report.notes:
            st.caption(f"Note: {md_escape(note)}")
