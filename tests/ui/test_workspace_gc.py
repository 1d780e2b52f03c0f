"""The dashboard keeps a scenario's objects out of the garbage collector's way while they live (frozen after a
step), and gives them back when the scenario changes: Streamlit runs a full collection after every rerun
(runner.postScriptGC), which at S1 walked millions of objects on every page visit (0.4-0.7 s)."""

from __future__ import annotations

import gc
import weakref

from capacity.simulation.steps import queue_numbers
from ui.state import new_workspace


def _tracked_ids() -> set[int]:
    """Objects the collector walks (frozen objects are in none of its generations)."""
    return {id(o) for o in gc.get_objects()}


def test_a_step_freezes_what_the_scenario_keeps() -> None:
    ws = new_workspace()
    step = ws.step()
    assert step is not None and gc.get_freeze_count() > 0
    walked = _tracked_ids()
    assert id(step.before) not in walked and id(step.result) not in walked and id(ws.cluster) not in walked


def test_reading_a_steps_decisions_freezes_its_records() -> None:
    from ui.state import read_decisions

    ws = new_workspace()
    step = ws.step()
    assert step is not None and read_decisions([step]) is None
    walked = _tracked_ids()
    assert step.records and not any(id(r) in walked for r in step.records[:50])


def test_loading_another_scenario_frees_the_frozen_one_even_in_a_reference_cycle() -> None:
    ws = new_workspace()
    step = ws.step()
    assert step is not None
    step.index = step  # a reference cycle: only a collection can free it, and a frozen object is never collected
    gone = weakref.ref(step)
    del step
    gc.disable()  # no automatic collection helps: loading the scenario must free it itself
    try:
        assert ws.load_fixture("reclaim")
        assert gone() is None
    finally:
        gc.enable()


def test_another_sessions_scenario_stays_intact_and_frozen_when_one_session_loads() -> None:
    """gc.freeze is process-wide (Streamlit runs sessions as threads of one process)."""
    a, b = new_workspace(), new_workspace()
    kept = a.step()
    b.step()
    assert b.load_fixture("reclaim")
    assert kept is not None and a.step_at(1) is kept and id(kept.before) not in _tracked_ids()
    assert a.step() is not None and a.cycle == 2


def test_the_queue_numbers_session_leaves_no_cyclic_garbage() -> None:
    """Opened for the numbers a page shows, then dropped: left whole (plugins point back at it), it was cyclic
    garbage, 100k objects at S1, each time the numbers of a new state were asked for."""
    cluster = new_workspace().cluster
    queue_numbers(cluster, None)  # imports and first-use caches out of the way
    gc.collect()
    gc.disable()
    try:
        numbers = queue_numbers(cluster, None)
        assert numbers and gc.collect() == 0
    finally:
        gc.enable()


def test_a_closed_sessions_workspace_is_freed_without_a_collection() -> None:
    """A session that ends drops its workspace while it is frozen: reference counting alone must free it (its
    clusters, cycles, records and numbers), or it would stay until some session loads another scenario."""
    ws = new_workspace()
    step = ws.step()
    assert step is not None and step.records
    ws.queue_numbers()
    ws.share_history()
    gone = [weakref.ref(ws), weakref.ref(ws.cluster), weakref.ref(step), weakref.ref(step.before)]
    del step
    gc.disable()
    try:
        del ws
        assert [r() is None for r in gone] == [True, True, True, True]
    finally:
        gc.enable()
