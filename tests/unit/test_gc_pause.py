"""A cycle holds the garbage collector (speed) and always gives it back, also when the cycle fails."""

from __future__ import annotations

import gc

import pytest

from capacity.scheduler import gc_paused, run_cycle
from ui.state import new_workspace


def test_collector_is_off_during_a_cycle_and_back_on_after():
    seen = []
    cluster = new_workspace().cluster
    gc.callbacks.append(lambda phase, info: seen.append(phase))
    try:
        with gc_paused():
            assert not gc.isenabled()
            gc.collect()  # an explicit collection still works
        assert gc.isenabled()
        run_cycle(cluster)
        assert gc.isenabled()
    finally:
        gc.callbacks.pop()
    assert "start" in seen


def test_collector_comes_back_after_a_failing_cycle():
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_caller_that_disabled_the_collector_keeps_it_disabled():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
