"""Shared by every test directory."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _thaw_after_each_test() -> Iterator[None]:
    """The dashboard's workspace freezes what is alive after a step (capacity.core.gcpause.gc_paused_keeping):
    process-wide, as in the server. A test process runs many workspaces one after the other, so each test
    starts with nothing frozen, and what one froze can be collected after it."""
    yield
    if gc.get_freeze_count():
        gc.unfreeze()
