"""Allocate's kept Placements stay equal to Placements computed from scratch, on either update path.

`Placement.update_nodes` (a few nodes, plain Python, the plugins' per-node forms) and `Placement.update`
(numpy) must leave the same candidates and the same G1/G2 scores as a fresh whole-NodeList Placement.
Randomized clusters from test_nodefit run a few cycles with every placement checked as it is handed out,
with the Python path forced on (SMALL_UPDATE huge) and off (SMALL_UPDATE 0, and nodeorder's per-node
scoring of small sets off too): the two runs must also decide alike. The compiled loop that replaces both
where numba is installed is off here; tests/unit/test_kernels.py holds it to these two.
"""

from __future__ import annotations

import numpy as np
import pytest

from capacity.accel import kernels, nodefit, nodeorder_vector
from capacity.core.trace import Trace
from capacity.io.k8s import load_objects
from capacity.scheduler import simulate
from tests.unit.test_nodefit import CONFS, random_cluster

pytestmark = pytest.mark.usefixtures("accelerated_engine")  # (tests of the acceleration itself)


def _checked_run(objs: list, small_update: int, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, int]:
    checked = 0
    original = nodefit.NodeFit.placement

    def placement(self: nodefit.NodeFit, task):  # type: ignore[no-untyped-def]
        nonlocal checked
        p = original(self, task)
        if p is not None:
            fresh = nodefit.Placement(self, task)
            assert np.array_equal(p.cand, fresh.cand)
            assert np.array_equal(p.s1, fresh.s1)
            assert np.array_equal(p.s2, fresh.s2)
            checked += 1
        return p

    with pytest.MonkeyPatch.context() as mp:  # (undone at the end; the engine fixture's setting stays)
        mp.setattr(nodefit.NodeFit, "placement", placement)
        mp.setattr(kernels, "MIN_NODES", 10**9)  # these two paths (the compiled one: test_kernels.py)
        mp.setattr(nodefit, "SMALL_UPDATE", small_update)
        if not small_update:  # numpy all the way, scores included
            mp.setattr(nodeorder_vector, "SMALL", 0)
        result = simulate(load_objects(objs), cycles=3, trace=Trace(enabled=False))
    return result.as_json(), checked


@pytest.mark.parametrize("conf", sorted(CONFS))
@pytest.mark.parametrize("seed", range(3))
def test_incremental_placements_equal_fresh_ones(conf: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    objs = random_cluster(seed + 20, CONFS[conf], nodes=48, jobs=160)
    by_python, n_python = _checked_run(objs, 10**9, monkeypatch)
    by_numpy, n_numpy = _checked_run(objs, 0, monkeypatch)
    assert n_python > 20 and n_numpy == n_python
    assert by_python == by_numpy


def test_python_path_is_used_for_small_updates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-node path must actually run (and not silently fall back to numpy) for the S1 plugins."""
    calls = {"nodes": 0, "vector": 0}
    update_nodes, update = nodefit.Placement.update_nodes, nodefit.Placement.update

    def counting_nodes(self, task, idx):  # type: ignore[no-untyped-def]
        done = update_nodes(self, task, idx)
        calls["nodes"] += done
        return done

    def counting_vector(self, task, idx):  # type: ignore[no-untyped-def]
        calls["vector"] += idx is not None
        return update(self, task, idx)

    monkeypatch.setattr(nodefit.Placement, "update_nodes", counting_nodes)
    monkeypatch.setattr(nodefit.Placement, "update", counting_vector)
    monkeypatch.setattr(kernels, "MIN_NODES", 10**9)  # (where numba is, the compiled loop runs instead)
    simulate(load_objects(random_cluster(3, CONFS["hierarchy"], nodes=64, jobs=200)), cycles=2,
             trace=Trace(enabled=False))
    assert calls["nodes"] > 10


@pytest.mark.parametrize("seed", range(3))
def test_per_node_scores_equal_the_reference(seed: int) -> None:
    """nodeorder's per-node score functions (the lean one for the default weights included) give
    `score(task, node)` exactly, for every task and node, also after random binds that overfill nodes."""
    import random

    from capacity.scheduler import open_session

    rnd = random.Random(seed)
    cl = load_objects(random_cluster(seed + 40, CONFS["hierarchy"], nodes=40, jobs=150))
    ssn = open_session(cl, Trace(enabled=False))
    plugin = ssn.plugins["nodeorder"]
    vector = nodeorder_vector.NodeOrderVector(plugin)
    fit = ssn.node_fit()
    assert fit is not None and fit.exact
    tasks = [t for j in ssn.jobs.values() for t in j.tasks.values()]
    predicates = ssn.plugins["predicates"]
    for round_ in range(4):
        if round_:  # bind random pending tasks anywhere, capacity or not: fractions above 1, negative free
            for t in rnd.sample(tasks, 25):
                node = rnd.choice(ssn.node_list)
                if t.key not in node.mirror:
                    clone = t.clone()
                    clone.node_name = node.name
                    predicates._on_allocate(clone)
            fit = ssn.node_fit()
        for t in tasks:
            fn = vector.node_score(t)
            assert fn is not None
            for i, node in enumerate(ssn.node_list):
                assert fn(i) == plugin.score(t, node), (t.key, node.name)
