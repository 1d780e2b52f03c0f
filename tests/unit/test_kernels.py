"""The compiled placement loop (capacity.accel.kernels) answers exactly as the Python and numpy paths.

Every placement handed out while the compiled loop runs is compared with the same placement computed from
scratch node by node in Python and over the whole NodeList with numpy; whole runs decide alike with the
loop and without it (numba missing, or CAPACITY_LAB_NO_JIT set), on random clusters and on a slice of the
openb shape (fractional GPUs: BalancedAllocation with three fractions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from capacity.accel import kernels, nodefit
from capacity.core.trace import Trace
from capacity.io.k8s import load_objects
from capacity.scheduler import simulate
from tests.unit.test_nodefit import CONFS, openb_slice, random_cluster

pytestmark = pytest.mark.usefixtures("accelerated_engine")  # (tests of the acceleration itself)


def test_numba_is_installed_so_the_compiled_loop_runs() -> None:
    """requirements.txt brings numba: without it every placement silently takes the slower paths."""
    assert kernels.lean_loop() is not None


def test_small_node_lists_keep_the_python_paths() -> None:
    """Below MIN_NODES nodes a NodeFit does not ask for the loop, so small runs never import numba."""
    import subprocess
    import sys
    code = ("import sys; from tests.builders import cluster, node, pod, podgroup, queue; "
            "from capacity.scheduler import run_cycle; "
            "run_cycle(cluster(node('n1'), queue('q', deserved={'cpu': '8'}), podgroup('j', 'q'), "
            "pod('p', 'j', {'cpu': '1'}))); print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _python_and_numpy(fit: nodefit.NodeFit, task: Any, monkeypatch: pytest.MonkeyPatch) -> list[nodefit.Placement]:
    """The placement of `task` from scratch with numpy and, where the plugins have per-node forms, node by
    node in Python, the loop switched off."""
    with monkeypatch.context() as m:
        m.setattr(fit, "lean_loop", None)
        by_numpy = nodefit.Placement(fit, task)
        by_python = nodefit.Placement(fit, task)
        by_python.cand[:] = False
        by_python.s1[:] = by_python.s2[:] = 0.0
        per_node = by_python.update_nodes(task, list(range(fit.n)))
    return [by_python, by_numpy] if per_node else [by_numpy]


def _run(objs: list[dict[str, Any]], compiled: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, int]:
    checked = 0
    original = nodefit.NodeFit.placement

    def placement(self: nodefit.NodeFit, task: Any) -> Any:
        nonlocal checked
        p = original(self, task)
        if p is not None and compiled:
            for ref in _python_and_numpy(self, task, monkeypatch):
                assert np.array_equal(p.cand, ref.cand)
                assert np.array_equal(p.s1, ref.s1)
                assert np.array_equal(p.s2, ref.s2)
            checked += p.per_node is not False and p.per_node[3] is not None
        return p

    with monkeypatch.context() as m:
        m.setattr(nodefit.NodeFit, "placement", placement)
        m.setattr(kernels, "MIN_NODES", 0 if compiled else 10**9)
        result = simulate(load_objects(objs), cycles=3, trace=Trace(enabled=True))
    return (result.as_json(), [r.as_dict() for c in result.cycles for r in c.records]), checked


@pytest.mark.parametrize("case", ["hierarchy-0", "hierarchy-3", "topology-2", "openb"])
def test_the_compiled_loop_decides_and_explains_as_the_python_paths(case: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    if case == "openb":
        objs = openb_slice(seed=9, nodes=32, pods=220)
    else:
        conf, seed = case.split("-")
        objs = random_cluster(int(seed) + 60, CONFS[conf], nodes=32, jobs=120)
    compiled, checked = _run(objs, True, monkeypatch)
    plain, _ = _run(objs, False, monkeypatch)
    assert checked > 10  # placements that the compiled loop kept, each checked against both references
    assert compiled == plain


def test_balanced_values_near_a_whole_number_are_answered_again_in_python() -> None:
    """Three equal fractions give BalancedAllocation exactly 100, where x*x and sqrt could truncate
    otherwise than Python's ** 2 and ** 0.5: the loop flags the node, and only that one."""
    loop = kernels.lean_loop()
    assert loop is not None
    idx = np.array([0, 1], dtype=np.int64)
    rk, rv = np.array([0], dtype=np.int64), np.array([1.0])
    fi = idle = np.full((2, 2), 1e6)
    ok = np.array([True, True])
    pods, max_tasks = np.zeros(2, dtype=np.int64), np.full(2, 110, dtype=np.int64)
    sums = np.zeros((5, 2))
    alloc = np.array([[1000.0, 1000.0], [1000.0, 1000.0], [2.0, 3.0]])  # cpu, memory, GPU per node
    whole = alloc[:2].astype(np.int64)
    cand, s1, s2 = np.zeros(2, dtype=bool), np.zeros(2), np.zeros(2)
    flagged = np.empty(2, dtype=np.int64)
    # cpu 500/1000, memory 500/1000, GPU 1/2 on node 0 (all 0.5), 1/3 on node 1
    n = loop(idx, rk, rv, fi, idle, ok, pods, max_tasks, sums, alloc, whole, 500.0, 500.0, 500.0,
                            500.0, 1.0, 1, 1, -1e-9, cand, s1, s2, flagged)
    assert n == 1 and flagged[0] == 0
    assert cand.all() and np.isinf(s2).all() and s1[0] == 50 + 100
