"""Builds Answers from an ExplainRun's records (see capacity.answer)."""

from __future__ import annotations

from capacity.answer import Answer, ExplainRun
from capacity.errors import InputError
from capacity.explain import explain_pod


def build_pod(run: ExplainRun, key: str) -> Answer:
    e = explain_pod(run.records, run.before, key)
    return Answer(e.subject, "pod", e.outcome, e.sentence, e.rule, e.cycle, quirks=list(e.quirks))


def build_job(run: ExplainRun, uid: str) -> Answer:
    pg = run.before.podgroups.get(uid)
    if pg is None:
        raise InputError(f"PodGroup/{uid}", "", "no such PodGroup in the cluster")
    pods = sorted(k for k, p in run.before.pods.items() if p.group == pg.name and p.namespace == pg.namespace)
    parts = [build_pod(run, k) for k in pods]
    return Answer(f"PodGroup/{uid}", "job", pg.phase or "Pending", f"job {uid}", "none", run.cycles, parts=parts)


def build_queue(run: ExplainRun, name: str, verbose: bool = False) -> Answer:
    if name not in run.before.queues:
        raise InputError(f"Queue/{name}", "", "no such queue in the cluster")
    parts = [build_job(run, uid) for uid, pg in sorted(run.before.podgroups.items()) if pg.queue == name]
    return Answer(f"Queue/{name}", "queue", "", f"queue {name}", "none", run.cycles, parts=parts)
