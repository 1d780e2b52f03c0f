"""A cycle holds the garbage collector (speed) and always gives it back, also when the cycle fails."""

from __future__ import annotations

import gc
import os

import pytest

from capacity.k8s import load_cluster_file
from capacity.scheduler import gc_paused, run_cycle
from capacity.trace import Trace
from ui.state import new_workspace

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")


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


@pytest.mark.parametrize("fixture", ["default", "reclaim", "tidal"])
@pytest.mark.parametrize("traced", [False, True])
def test_a_cycle_leaves_no_cyclic_garbage(fixture: str, traced: bool) -> None:
    """The session is freed by reference counting when its cycle ends (Session.release): left to the
    collector, a cycle's whole session was walked again after every cycle (40 % of a Helios replay)."""
    cluster = load_cluster_file(os.path.join(FIXTURES, f"{fixture}.yaml"))
    run_cycle(cluster, Trace(enabled=traced))  # imports and first-use caches out of the way
    gc.collect()
    gc.disable()
    try:
        for _ in range(2):
            run_cycle(cluster, Trace(enabled=traced))
        assert gc.collect() == 0
    finally:
        gc.enable()
