"""allocate's noFit record: fit_report says exactly what fit_summary and str() of every error say."""

from __future__ import annotations

import pytest

from capacity.accel.fit_report import fit_report
from capacity.core.trace import Trace
from capacity.framework.extension_points import fit_summary
from capacity.framework.session import FitError
from capacity.io.k8s import load_objects
from capacity.scheduler import open_session
from tests.unit.test_nodefit import CONFS, random_cluster


@pytest.mark.parametrize("conf", sorted(CONFS))
@pytest.mark.parametrize("seed", range(3))
def test_fit_report_is_fit_summary_and_every_error(conf: str, seed: int) -> None:
    objs = random_cluster(seed, CONFS[conf], nodes=24, jobs=140, anti_affinity=True)
    ssn = open_session(load_objects(objs), Trace(enabled=False))
    for name in ("enqueue", "allocate"):
        __import__(f"capacity.actions.{name}", fromlist=["execute"]).execute(ssn)
    compared = 0
    for job in ssn.jobs.values():
        for errors in job.nodes_fit_errors.values():
            got = fit_report(errors, len(ssn.node_list))
            assert got == (fit_summary(errors, len(ssn.node_list)), {k: str(v) for k, v in errors.items()})
            compared += 1
    assert compared


def test_plain_mappings_take_the_generic_path() -> None:
    errors = {"n2": FitError("n2", "Unschedulable", ["Insufficient cpu", "Insufficient memory"]),
              "n1": FitError("n1", "UnschedulableAndUnresolvable", ["node(s) didn't match selector"])}
    assert fit_report(errors, 3) == (fit_summary(errors, 3), {"n2": "n2: Insufficient cpu, Insufficient memory",
                                                              "n1": "n1: node(s) didn't match selector"})
