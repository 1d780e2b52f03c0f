"""`explain` answers every pod, job and queue of every acceptance scenario without an error (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from capacity.analysis.answer import answer_job, answer_pod, answer_queue, explain_run, render_text
from capacity.io.k8s import load_cluster_file

CORPUS = Path(__file__).resolve().parents[1] / "acceptance" / "volcano"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "cluster.yaml").exists())


@pytest.mark.parametrize("case", CASES)
def test_every_pod_job_and_queue_is_answered(case: str) -> None:
    spec = yaml.safe_load((CORPUS / case / "expect.yaml").read_text())
    cluster = load_cluster_file(str(CORPUS / case / "cluster.yaml"))
    for cycles in sorted({1, int(spec.get("cycles", 1)), 2}):
        run = explain_run(cluster, cycles)
        answers = [answer_pod(run, k) for k in sorted(run.before.pods)]
        answers += [answer_job(run, uid) for uid in sorted(run.before.podgroups)]
        answers += [answer_queue(run, q) for q in [*sorted(run.before.queues), "root"]]
        for a in answers:
            assert a.sentence and a.outcome
            text = render_text(a)
            assert a.subject in text
            json.dumps(a.as_dict())
            if a.kind == "queue":
                assert len(text.splitlines()) <= 30
        for a in answers:
            if a.kind == "pod" and a.outcome == "pending":
                assert a.stopper is not None or a.rule in ("session.notConsidered", "conf.noAllocate"), a
