"""Fixtures shared by the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from capacity.accel import ACCELERATED, ENGINE_ENV


@pytest.fixture
def accelerated_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The accelerated engine, whatever CAPACITY_LAB_ENGINE says: for the tests of the acceleration itself
    (NodeFit, kernels, victim bounds, the SnapshotCache, ...), which the reference engine never runs."""
    monkeypatch.setenv(ENGINE_ENV, ACCELERATED.name)
    yield
