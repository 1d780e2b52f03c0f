"""The results file: one row per candidate, written as each finishes, read back to resume.

CSV (any name but `.parquet`) is appended to and flushed row by row, so an interrupted run leaves every
finished row behind. Parquet cannot be appended to: the file is rewritten whole (to a temporary name, then
renamed) after every row, so it is always complete and readable. The column `spec` holds the spec's
digest: resuming from a file another spec wrote is refused.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Any

from capacity.core.errors import InputError

LEAD = ["id", "status", "error", "seconds", "spec"]


def is_parquet(path: str) -> bool:
    return path.lower().endswith((".parquet", ".pq"))


class ResultsFile:
    """Rows with a fixed set of columns (`LEAD`, the varied settings, the figures), streamed to `path`."""

    def __init__(self, path: str, columns: list[str], digest: str, rows: list[dict[str, Any]] | None = None) -> None:
        self.path = path
        self.columns = columns
        self.digest = digest
        self.rows: list[dict[str, Any]] = list(rows or [])
        if is_parquet(path):
            self._flush_parquet()
        else:
            fresh = not rows
            with open(path, "w" if fresh else "a", newline="", encoding="utf-8") as fh:
                if fresh:
                    csv.writer(fh).writerow(columns)

    def add(self, row: dict[str, Any]) -> None:
        row = {**row, "spec": self.digest}
        self.rows.append(row)
        if is_parquet(self.path):
            self._flush_parquet()
            return
        with open(self.path, "a", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerow([_cell(row.get(c)) for c in self.columns])
            fh.flush()

    def frame(self) -> Any:
        import pandas as pd
        return pd.DataFrame([{c: r.get(c) for c in self.columns} for r in self.rows], columns=self.columns)

    def _flush_parquet(self) -> None:
        tmp = f"{self.path}.tmp"
        self.frame().astype({"error": "string"}).to_parquet(tmp, index=False, engine="pyarrow")
        os.replace(tmp, self.path)


def _cell(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return v


def read_rows(path: str, digest: str, text: list[str]) -> list[dict[str, Any]]:
    """The rows of an earlier run of the same spec, the last row of each candidate kept; `text` columns
    (the varied settings) are read as the strings they were written as."""
    if not Path(path).exists():
        return []
    import pandas as pd
    try:
        if is_parquet(path):
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_csv(path, dtype=dict.fromkeys(["error", *text], "string"), keep_default_na=False,
                                na_values=[""])
    except Exception as exc:  # noqa: BLE001 - any unreadable file is one message
        raise InputError(path, "", f"cannot be resumed from: {type(exc).__name__}: {exc}") from None
    if frame.empty:
        return []
    for col in ("id", "status", "spec"):
        if col not in frame.columns:
            raise InputError(path, col, "is missing: not a plan results file")
    other = sorted({str(s) for s in frame["spec"].dropna()} - {digest})
    if other:
        raise InputError(path, "spec", f"was written by another spec (digest {other[0]}, this spec's is {digest}): "
                         "resume with the spec that wrote it, or write to a new file")
    rows: dict[int, dict[str, Any]] = {}
    for rec in frame.to_dict("records"):
        clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in rec.items()}
        clean = {k: (None if v is pd.NA else v) for k, v in clean.items()}
        clean["error"] = "" if clean.get("error") is None else str(clean["error"])
        rows[int(clean["id"])] = clean
    return [rows[k] for k in sorted(rows)]
