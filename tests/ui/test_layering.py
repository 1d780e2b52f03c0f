"""The engine (`capacity/`) never imports Streamlit: the CLI, tests and pages share one plain API."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "capacity"


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_engine_does_not_import_streamlit():
    sources = sorted(ENGINE.rglob("*.py"))
    if not sources:
        pytest.skip("capacity/ has no Python files yet")
    offenders = [
        str(path.relative_to(ENGINE.parent))
        for path in sources
        if any(name == "streamlit" or name.startswith("streamlit.") for name in _imported_modules(path))
    ]
    assert offenders == [], f"engine modules import streamlit: {offenders}"
