"""Holding Python's cyclic garbage collector while the engine builds or runs something large."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
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
    with _paused(_to_oldest_generation):
        yield


def _to_oldest_generation() -> None:
    """What the cycle leaves alive (its result, its trace records: 160k objects at the openb scale) goes straight
    to the oldest generation, which only full collections walk, instead of being walked by the young collection
    that would follow at once (0.1 s)."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


@contextmanager
def _paused(on_exit: Callable[[], None]) -> Iterator[None]:
    """The collector off while the work runs; then, if it was on, `on_exit` and the collector back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            on_exit()
            gc.enable()


@contextmanager
def gc_paused_keeping() -> Iterator[None]:
    """`gc_paused`, for a long-lived process that keeps what the work builds (the dashboard's scenario, its
    cycles and their trace records): what is alive at the end is frozen (`keep_long_lived`) instead of being
    moved to the oldest generation.

    At S1 the dashboard's server holds a few million tracked objects that live until the scenario changes;
    in the oldest generation each full collection walks all of them (0.3-1.1 s), and one follows whenever a
    quarter as many again have reached it, so it lands on whichever page reruns next. Frozen, they are never
    walked. What the work leaves as cyclic garbage would be frozen with them: `run_cycle` releases its
    session, so a cycle leaves none (tests/unit/test_gc_pause.py), and `release_frozen` frees any when the
    scenario changes.
    """
    with _paused(keep_long_lived):
        yield


def keep_long_lived() -> None:
    """Freeze every object alive now, so that no collection walks them again (process-wide: another session's
    objects too, which `release_frozen` gives back)."""
    gc.freeze()


def release_frozen() -> None:
    """Unfreeze everything and collect once (a full collection), so that what a replaced scenario left as
    cyclic garbage, in this session or another one of the process, is freed; what stays alive is frozen again.
    Called when a scenario is replaced: the one moment a person expects to wait, and the one at which a large
    part of what is frozen becomes garbage."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


#: The file a recording process appends its collections to (`record_pauses`), or None.
_recording: list[str] = []


def record_pauses(path: str) -> None:
    """Append one line per collection of this process to `path`: `generation start seconds collected`, start
    on the system-wide monotonic clock (time.monotonic, comparable across processes), so a benchmark driving
    this process can tell which of its steps each pause fell into. Idempotent (the dashboard's entry point
    calls it on every rerun)."""
    if path in _recording:
        return
    _recording.append(path)
    fh = open(path, "a", buffering=1, encoding="ascii")  # noqa: SIM115 - open for the life of the process
    started: dict[int, float] = {}

    def on_collection(phase: str, info: dict[str, int]) -> None:
        gen = info["generation"]
        if phase == "start":
            started[gen] = time.monotonic()
            return
        t0 = started.pop(gen, None)
        if t0 is not None:
            fh.write(f"{gen} {t0:.6f} {time.monotonic() - t0:.6f} {info.get('collected', 0)}\n")

    gc.callbacks.append(on_collection)
