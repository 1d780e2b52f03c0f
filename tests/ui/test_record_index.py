"""The Decisions page's record index answers "which records are about this pod, job or queue" from maps built
once per cycle; these must name exactly the records the plain definitions do (a "why?" lists them)."""

from __future__ import annotations

import pytest

from capacity.io.k8s import load_cluster
from tests.scale_dump import scale_yaml
from ui.state import Workspace
from ui.views import pod_job, record_index


@pytest.fixture(scope="module")
def step():
    ws = Workspace("scale", load_cluster(scale_yaml(nodes=20, pods=200), source="scale.yaml"))
    assert ws.step() is not None
    return ws.history[0]


def test_records_about_a_pod_job_or_queue_are_those_the_definitions_name(step):
    index = record_index(step)
    pairs = list(zip(index.records, index.links, strict=True))
    cluster = step.before
    pods = sorted(cluster.pods)[:40]
    assert pods
    for pod_key in pods:
        job = pod_job(cluster, cluster.pods[pod_key])
        pg = cluster.podgroups.get(job)
        queue = pg.queue if pg else ""
        want = [i for i, (r, lk) in enumerate(pairs)
                if lk.pod == pod_key or (job and lk.job == job and not lk.pod) or (queue and r.subject == queue)]
        assert index.about_pod(cluster, pod_key) == want
    for job in sorted(cluster.podgroups)[:40]:
        assert index.about_job(job) == [i for i, (_, lk) in enumerate(pairs) if lk.job == job]
    for queue in sorted(cluster.queues):
        assert index.about_queue(queue) == [i for i, (r, lk) in enumerate(pairs)
                                            if lk.queue == queue or r.subject == queue]
    assert any(index.about_queue(q) for q in cluster.queues)
    assert index.about_pod(cluster, "no/such-pod") == []


def test_table_rows_leave_the_numbers_to_the_record_shown_whole(step):
    index = record_index(step)
    with_numbers = [i for i, r in enumerate(index.records) if r.detail or any(x.values for x in r.reasons)][:5]
    assert with_numbers
    lean = index.rows(with_numbers, numbers=False)
    whole = index.rows(with_numbers)
    assert all(row["numbers"] == "" for row in lean)
    assert all(row["numbers"] for row in whole)
    assert [{k: v for k, v in r.items() if k != "numbers"} for r in lean] == \
        [{k: v for k, v in r.items() if k != "numbers"} for r in whole]
    assert index.actions() == sorted({r.action for r in index.records})
