"""Holding Python's cyclic garbage collector while the engine builds or runs something large."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold Python's cyclic garbage collector for one cycle (or while a dump is read and turned into objects:
    a million containers that all live on, 0.1-0.2 s of collections at S1).

    A cycle allocates hundreds of thousands of small objects (tasks, resources, trace records) that
    live until it ends; the collector would otherwise walk the whole cluster several times per cycle
    (a quarter of a second at the openb scale) to find almost nothing. Reference counting still frees
    everything acyclic at once (`run_cycle` releases its session, so that is nearly everything); what the
    cycle leaves alive is moved to the oldest generation, where any cyclic garbage among it waits for the
    next full collection.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                # What the cycle leaves alive (its result, its trace records: 160k objects at the openb
                # scale) goes straight to the oldest generation, which only full collections walk, instead
                # of being walked by the young collection that would follow at once (0.1 s).
                gc.freeze()
                gc.unfreeze()
            gc.enable()
