"""docs/VERSIONS.md is the table the switch registry generates, and names every change a user needs."""

from __future__ import annotations

from pathlib import Path

from capacity.versions import SWITCHES
from capacity.versions.table import document

DOC = Path(__file__).resolve().parents[2] / "docs" / "VERSIONS.md"


def test_versions_doc_is_up_to_date() -> None:
    assert DOC.read_text(encoding="utf-8") == document(), \
        "docs/VERSIONS.md is stale: run `python -m capacity.versions.table > docs/VERSIONS.md`"


def test_table_has_the_capacity_proportion_enqueue_and_reclaim_changes() -> None:
    text = document()
    for area in ("capacity", "proportion", "enqueue", "reclaim"):
        assert any(s.area == area for s in SWITCHES), area
    for s in SWITCHES:
        assert f"[#{s.pr}](https://github.com/volcano-sh/volcano/pull/{s.pr}) | {s.release} | {s.area}" in text
    assert "| `1.13` | `pr4659`, `pr4774`, `pr4794`, `pr4864`, `pr4865`, `pr4919`" in text
