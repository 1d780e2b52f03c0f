"""The simulator's incremental bookkeeping equals the same figures computed from scratch, cycle by cycle."""

from __future__ import annotations

from pathlib import Path

from capacity.simulation.replay import helios_cluster, openb_cluster
from capacity.simulation.sim import SimOptions, Simulator

DATA = Path(__file__).resolve().parents[1] / "data"


def _check(sim: Simulator) -> None:
    assert sim._rolled_up_counts() == sim._rolled_up_counts_full()


def test_rolled_up_queue_counts_follow_every_cycle_of_a_hierarchical_replay() -> None:
    sim = Simulator(openb_cluster(str(DATA / "openb"), departments=2, leaves=4), SimOptions(period=10))
    _check(sim)
    seen = 0
    while sim.step() is not None:
        _check(sim)
        seen += 1
    assert seen > 5
    assert any(v != (0, 0) for v in sim._rolled_up_counts_full().values()) or sim.summary()["binds"] > 0
    for cycle in (0, sim.history[len(sim.history) // 2].cycle, sim.cycle):
        sim.rewind(cycle)
        _check(sim)
    other = sim.branch()
    _check(other)
    other.step()
    _check(other)


def test_rolled_up_queue_counts_follow_a_gang_replay_with_restarts() -> None:
    sim = Simulator(helios_cluster(str(DATA / "helios"), nodes=2), SimOptions(period=60))
    _check(sim)
    counts = []
    while sim.step() is not None:
        _check(sim)
        counts.append(sim._rolled_up_counts())
    assert any(any(p or r for p, r in c.values()) for c in counts)
