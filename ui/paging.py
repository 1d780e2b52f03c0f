"""A table that sends one page of rows to the browser, with a page picker and a "rows a-b of N" caption.

The rows are filtered and cut on the server (`capacity.analysis.views_paging`); the browser never holds more than a
page, however large the cluster. The page number lives under `<key>_page` and is clamped when the rows
shrink (a filter changed), so a stale page never raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from capacity.analysis.views_paging import PAGE_SIZE, Page, paginate


def page_picker(total: int, key: str, size: int = PAGE_SIZE, label: str = "Page") -> int:
    """The page number to show (1-based); a number input only when there is more than one page."""
    pages = max(1, -(-total // max(1, size)))
    page_key = f"{key}_page"
    if pages <= 1:
        st.session_state.pop(page_key, None)
        return 1
    current = st.session_state.get(page_key, 1)
    if not isinstance(current, int) or not 1 <= current <= pages:
        st.session_state[page_key] = min(max(1, int(current or 1)), pages)
    return int(st.number_input(f"{label} (of {pages:,})", min_value=1, max_value=pages, step=1, key=page_key))


def paged_table(rows: Sequence[Mapping[str, Any]], key: str, *, noun: str = "rows", size: int = PAGE_SIZE,
                column_config: Mapping[str, Any] | None = None, column_order: Sequence[str] | None = None,
                select: bool = False) -> tuple[Page, Mapping[str, Any] | None]:
    """One page of `rows` as a dataframe; (the page, the row the user selected or None).

    With `select`, a click on a row selects it (for a detail shown below the table).
    """
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    with c1:
        number = page_picker(len(rows), key, size)
    page = paginate(rows, number, size)
    c2.caption(page.caption(noun))
    kwargs: dict[str, Any] = {"hide_index": True, "key": key}
    if column_config is not None:
        kwargs["column_config"] = dict(column_config)
    if column_order is not None:
        kwargs["column_order"] = list(column_order)
    if select:
        kwargs.update(on_select="rerun", selection_mode="single-row")
    event = st.dataframe(page.rows, **kwargs)
    chosen = None
    if select:
        picked = list(getattr(getattr(event, "selection", None), "rows", []) or [])
        if picked and 0 <= picked[0] < len(page.rows):
            chosen = page.rows[picked[0]]
    return page, chosen
