"""A cycle holds the garbage collector (speed) and always gives it back, also when the cycle fails."""

from __future__ import annotations

import gc
import os

import pytest

from capacity.core.trace import Trace
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import gc_paused, run_cycle
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


def test_what_a_cycle_leaves_alive_goes_to_the_oldest_generation() -> None:
    """Its trace records (160k objects at the openb scale) skip the young collections that would walk them
    right after the cycle: the greater part of tracing's cost before."""
    cluster = load_cluster_file(os.path.join(FIXTURES, "default.yaml"))
    trace = Trace(enabled=True)
    run_cycle(cluster, trace)
    young = {id(o) for o in gc.get_objects(generation=0)} | {id(o) for o in gc.get_objects(generation=1)}
    assert trace.records and not any(id(r) in young for r in trace.records)


def test_a_callers_frozen_objects_stay_frozen() -> None:
    """The survivors are moved by freeze + unfreeze, which must not thaw what a caller froze (gc.freeze
    before forking a server)."""
    cluster = load_cluster_file(os.path.join(FIXTURES, "default.yaml"))
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        run_cycle(cluster)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
