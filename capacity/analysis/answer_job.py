"""A job's (PodGroup's) and a queue's Answer, built on the pods' answers (capacity.analysis.answer_build)."""

from __future__ import annotations

from collections import Counter

from capacity.analysis.answer_build import build_pod, cycle_lines, job_phase_at_open, notes_for, pod_cycle, queue_path
from capacity.analysis.answer_chain import Chain, add_not_reached, consider_verb, first_stopped, not_reached_actions
from capacity.analysis.answer_model import Answer, Check, ExplainRun, Figure
from capacity.analysis.answer_wait import job_waiting
from capacity.core.errors import InputError
from capacity.core.quantity import format_resource_value

_ORDER = ("evicted", "bound", "pipelined", "pending", "running", "terminating", "gone", "not-scheduled")


def _job_cycle(run: ExplainRun, uid: str, cycle: int) -> tuple[str, str, str, list[Check], str]:
    """outcome, sentence, rule, checks, next of the job itself (its PodGroup) in one cycle."""
    chain = Chain(run, cycle, "", uid)
    chain.build()
    phase = job_phase_at_open(run, uid, cycle)
    add_not_reached(chain, phase, False)
    checks = [c for c in chain.checks if c.outcome != "info" or c.action == "enqueue"]
    after = run.results[cycle - 1].podgroup_phases.get(uid, phase) if cycle - 1 < len(run.results) else phase
    stop = first_stopped(checks)
    if stop is not None and stop.action == "enqueue":
        vote = next((c for c in checks if c.action == "enqueue" and c.outcome == "stopped" and c.plugin), stop)
        skipped = not_reached_actions(checks)
        queue = run.before.podgroups[uid].queue
        text = f"job {uid} (queue {queue}) stays Pending: enqueue did not admit it: {vote.text}" + (
            f"; {skipped} only {consider_verb(skipped)} jobs that are Inqueue or Running, so nothing else was "
            "tried for it" if skipped else "")
        return "not admitted", text, chain.rules.get(id(vote), "") or "enqueue.rejected", checks, \
            "waits in Pending: enqueue tries the job again every cycle"
    no_enqueue = "enqueue" not in run.before.conf.actions
    if phase in ("Pending", "") and after not in ("Pending", ""):
        if no_enqueue:
            return "admitted", (f"job {uid} left Pending: with no enqueue action configured, allocate moved it "
                                f"(Pending -> {after})"), "allocate.admitted", checks, ""
        return "admitted", f"job {uid} was admitted by enqueue: Pending -> {after}", "enqueue.admitted", checks, ""
    if phase in ("Pending", "") and no_enqueue and "allocate" not in run.before.conf.actions:
        text = f"job {uid} stays Pending: the scheduler configuration runs neither enqueue nor allocate"
        return "not admitted", text, "conf.noEnqueue", checks, ""
    return after.lower() or "pending", f"job {uid} is {after}", "none", checks, ""


def build_job(run: ExplainRun, uid: str) -> Answer:
    """A PodGroup's answer: works with or without pods (then enqueue's verdict is the answer)."""
    pg = run.before.podgroups.get(uid)
    if pg is None:
        raise InputError(f"PodGroup/{uid}", "", "no such PodGroup in the cluster")
    subject = f"PodGroup/{uid}"
    if pg.queue not in run.before.queues:
        text = (f"job {uid} is not scheduled: its queue {pg.queue!r} does not exist, so Volcano leaves it out of the "
                "session")
        return Answer(subject, "job", "not-scheduled", text, "session.queueMissing", 1,
                      checks=[Check("session", "the job's queue exists", "stopped", text)])
    pods = sorted(k for k, p in run.before.pods.items() if p.group == pg.name and p.namespace == pg.namespace)
    parts = [build_pod(run, k) for k in pods]
    per = [_job_cycle(run, uid, c) for c in range(1, run.cycles + 1)]
    decisive = next((i for i, p in enumerate(per) if p[0] in ("not admitted", "admitted")), len(per) - 1)
    if any(p[0] == "admitted" for p in per):
        decisive = next(i for i, p in enumerate(per) if p[0] == "admitted")
    outcome, text, rule, checks, nxt = per[decisive]
    figures = [Figure("minAvailable", str(pg.min_member), float(pg.min_member))]
    if pg.min_resources is not None:
        for dim, v in _dims(pg.min_resources).items():
            figures.append(Figure(f"minResources {dim}", format_resource_value(dim, v, run.before.unit_styles), v))
    if parts and outcome != "not admitted":
        rep = _representative(parts)
        lead = f"{text}; queue {pg.queue}, minAvailable {pg.min_member}" if outcome == "admitted" else \
            f"job {uid} (queue {pg.queue}, minAvailable {pg.min_member})"
        text = f"{lead}: {_pods_summary(parts)}; {rep.subject[4:]} {rep.sentence}"
        rule, checks, cycle = rep.rule, rep.checks, rep.cycle  # (its chain holds the job's own checks too)
        nxt, todo = rep.next, rep.todo
    else:
        cycle = decisive + 1
        vote = next((c for c in checks if c.action == "enqueue" and c.outcome == "stopped" and c.plugin), None)
        styles = run.before.unit_styles or None
        wait, todo = job_waiting(vote, rule, styles, run.before) if vote is not None else ("", "")
        nxt = wait or nxt
        if parts:
            text += f" ({len(parts)} pod{'' if len(parts) == 1 else 's'} wait with it)"
        else:
            text += "; it has no pods in the cluster, so there is nothing to place" if outcome != "not admitted" \
                else "; it has no pods in the cluster yet"
    a = Answer(subject, "job", outcome, text, rule, cycle, figures=figures, checks=checks, next=nxt, todo=todo,
               parts=parts, notes=notes_for(run, queue_path(run, pg.queue)))
    if run.cycles > 1:
        lines = []
        for i, (o, t, *_rest) in enumerate(per):
            c = i + 1
            if parts and o != "not admitted":
                now = [pod_cycle(run, c, p.subject[4:]) for p in parts]
                r = _representative(now)
                o, t = _pods_summary(now), f"{r.subject[4:]} {r.sentence}"
            lines.append((c, o, t))
        a.per_cycle = cycle_lines(lines)
        after = run.after.podgroups.get(uid)
        a.final = f"after cycle {run.cycles}: PodGroup {uid} is {after.phase if after else 'gone'}"
    return a


#: Which pod speaks for its job: one still waiting first, then one placed or evicted, then any.
_REPRESENTS = ("pending", "pipelined", "evicted", "bound", "terminating", "running", "gone", "not-scheduled")


def _representative(parts: list[Answer]) -> Answer:
    return min(parts, key=lambda p: _REPRESENTS.index(p.outcome) if p.outcome in _REPRESENTS else len(_REPRESENTS))


def _pods_summary(parts: list[Answer]) -> str:
    counts = Counter(p.outcome for p in parts)
    summary = ", ".join(f"{counts[o]} {o}" for o in _ORDER if counts.get(o))
    return f"{len(parts)} pod{'' if len(parts) == 1 else 's'}: {summary}"


def _dims(r: object) -> dict[str, float]:
    out: dict[str, float] = {}
    for name in ("cpu", "memory"):
        v = getattr(r, name, 0.0)
        if v:
            out[name] = float(v)
    scalars = getattr(r, "scalars", None) or {}
    for name, v in dict(scalars).items():
        if v:
            out[str(name)] = float(v)
    return out
