"""Without a trace, the actions may test the cheaper of two effect-free answers first (reclaim, preempt,
allocate skip JobValid for jobs that cannot matter): every decision, cycle by cycle, is as with a trace."""

from __future__ import annotations

from typing import Any

import pytest

from capacity.k8s import load_objects
from capacity.scheduler import simulate
from capacity.trace import Trace
from tests.unit.test_nodefit import random_cluster
from tests.unit.test_victim_bound import BOUND_CONFS, with_guarantees


def _cycles(objs: list[dict[str, Any]], traced: bool) -> list[Any]:
    run = simulate(load_objects(objs), cycles=3, trace=Trace(enabled=traced))
    return [(c.binds, c.evicted, c.pipelined, c.podgroup_phases, c.queues, c.nominated) for c in run.cycles]


@pytest.mark.parametrize("conf", sorted(BOUND_CONFS))
@pytest.mark.parametrize("seed", range(2))
def test_decisions_do_not_depend_on_tracing(conf: str, seed: int) -> None:
    objs = with_guarantees(random_cluster(seed + 70, BOUND_CONFS[conf], nodes=16, jobs=80), seed)
    traced = _cycles(objs, True)
    assert any(c[0] for c in traced)
    assert traced == _cycles(objs, False)
