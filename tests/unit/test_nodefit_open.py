"""NodeFit's tables built at session open equal what the per-task bookkeeping builds."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from capacity import nodefit
from capacity.scheduler import open_session
from capacity.trace import Trace
from tests.builders import cluster, conf, node, pod, podgroup, queue


def _random_cluster(rnd: random.Random) -> Any:
    objs: list[dict[str, Any]] = [
        conf("enqueue, allocate, reclaim", [{"name": "priority"}, {"name": "gang"}],
             [{"name": "predicates"}, {"name": "proportion"}]),
        queue("q1"), queue("q2"), queue("q3"),
    ]
    nodes = [f"n{i}" for i in range(rnd.randint(1, 6))]
    objs += [node(n, cpu="64", memory="256Gi") for n in nodes]
    for j in range(rnd.randint(1, 12)):
        objs.append(podgroup(f"pg{j}", rnd.choice(["q1", "q2", "q3"]), phase="Running"))
        for t in range(rnd.randint(0, 4)):
            labels = {"volcano.sh/preemptable": rnd.choice(["true", "false"])}
            phase = rnd.choice(["Running", "Pending", "Succeeded"])
            objs.append(pod(f"pg{j}-t{t}", rnd.choice([f"pg{j}", "nogroup"]), {"cpu": "1"},
                            node_name=rnd.choice(["", *nodes]), phase=phase, labels=labels))
    return cluster(*objs)


def _tables(fit: nodefit.NodeFit) -> Any:
    return (fit.victims_total.tolist(), fit.victims_total.dtype,
            [(q, a.tolist(), a.dtype) for q, a in fit.victims_by_queue.items()],
            [(j, list(d.items())) for j, d in fit.victims_by_job.items()])


def test_victim_counts_at_open_equal_counting_task_by_task() -> None:
    rnd = random.Random(4)
    counted = 0
    for _ in range(80):
        ssn = open_session(_random_cluster(rnd), Trace(enabled=False))
        fit = nodefit.NodeFit(ssn)
        fast = _tables(fit)
        fit.victims_total = np.zeros(fit.n, dtype=np.int64)
        fit.victims_by_queue = {}
        fit.victims_by_job = {}
        for i, n in enumerate(fit.nodes):
            for clone in n.tasks.values():
                fit._count_victim(i, clone, 1)
        assert fast == _tables(fit)
        counted += int(fit.victims_total.sum())
    assert counted > 50
