"""Why a pod was bound, evicted, pipelined or left pending: read back from the decision trace.

Nothing here re-decides anything. The records were written by the code that decided (plugins via
`Trace.because`, actions via `Trace.event`); this module only picks, for one pod, job or queue, the
record that settled its fate in the last cycle that touched it, and says it in one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from capacity.cluster import Cluster
from capacity.errors import InputError
from capacity.trace import Reason, Record

QUEUE_PLUGINS = ("capacity", "proportion")
#: Record kinds that stop a pod in enqueue/allocate, in the order a cycle meets them.
BLOCKERS = ("enqueue", "skipJob", "queueOverused", "notAllocatable", "roleAlreadyFailed", "prePredicateFailed",
            "noFit", "gangDiscard", "noNodes")
#: Record kinds of failed attempts to make room (reclaim / preempt), reported after the blocker.
ATTEMPTS = ("notPreemptive", "preemptionPolicyNever", "victimsInsufficient", "preemptNoVictims", "preemptFailed",
            "preemptNotEligible", "preemptNoNodes", "preemptRollback", "preemptNoCandidates")


@dataclass
class Explanation:
    """The verdict on one object, the rule that decided it, and the records that show it."""

    subject: str
    outcome: str
    rule: str
    sentence: str
    cycle: int = 0
    chain: list[Record] = field(default_factory=list)
    quirks: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "outcome": self.outcome, "rule": self.rule, "sentence": self.sentence,
                "cycle": self.cycle, "quirks": self.quirks, "chain": [r.as_dict() for r in self.chain]}


def _rule(reason: Reason) -> str:
    return f"{reason.plugin}.{reason.rule}"


def _prefer_queue_plugin(reasons: list[Reason]) -> Reason | None:
    """The most telling reason: a queue plugin's, then priority's, drf's, gang's, in that order."""
    for plugin in (*QUEUE_PLUGINS, "capacity-card", "priority", "drf", "gang"):
        for r in reasons:
            if r.plugin == plugin:
                return r
    return reasons[0] if reasons else None


class _Reader:
    """Walks the records of one cycle for one pod and its job."""

    def __init__(self, records: list[Record], cycle: int) -> None:
        self.records = [r for r in records if r.cycle == cycle]

    def index_of(self, rec: Record) -> int:
        return next(i for i, r in enumerate(self.records) if r is rec)

    def last_before(self, idx: int, pred: Any) -> Record | None:
        for r in reversed(self.records[:idx]):
            if pred(r):
                return r
        return None


def explain_pod(records: list[Record], cluster: Cluster, pod_key: str) -> Explanation:
    """The chain of reasons for one pod over the cycles run, ending in one plain sentence."""
    pod = cluster.pods.get(pod_key)
    subject = f"Pod/{pod_key}"
    if pod is None:
        raise InputError(subject, "", "no such pod in the cluster")
    job_uid = f"{pod.namespace}/{pod.group}" if pod.group else ""
    mine = [r for r in records if r.subject == pod_key or (job_uid and r.subject == job_uid)]
    static = _outside_session(cluster, pod_key, job_uid, subject)
    if static is not None:
        return static
    if not mine:
        return _untouched(cluster, records, pod_key, job_uid, subject)
    cycle = max(r.cycle for r in mine)
    reader = _Reader(records, cycle)
    mine = [r for r in reader.records if r.subject == pod_key or r.subject == job_uid]
    for fn in (_evicted, _bound, _pipelined, _allocated_not_bound):
        exp = fn(reader, mine, pod_key, job_uid, subject)
        if exp is not None:
            exp.cycle = cycle
            return exp
    if pod.node_name:
        exp = _kept(reader, pod_key, pod.node_name, subject)
    else:
        exp = _pending(reader, mine, cluster, pod_key, job_uid, subject)
    exp.cycle = cycle
    return exp


def _outside_session(cluster: Cluster, pod_key: str, job_uid: str, subject: str) -> Explanation | None:
    pod = cluster.pods[pod_key]
    if not pod.group:
        return Explanation(subject, "not-scheduled", "session.noPodGroup",
                           f"{pod_key} is not scheduled by Volcano: it names no PodGroup "
                           "(annotation scheduling.k8s.io/group-name)")
    pg = cluster.podgroups.get(job_uid)
    if pg is None:
        return Explanation(subject, "not-scheduled", "session.podGroupMissing",
                           f"{pod_key} is not scheduled: its PodGroup {job_uid} does not exist")
    if pg.queue not in cluster.queues:
        return Explanation(subject, "not-scheduled", "session.queueMissing",
                           f"{pod_key} is not scheduled: queue {pg.queue!r} of PodGroup {job_uid} does not exist, "
                           "so Volcano leaves the job out of the session")
    return None


def _untouched(cluster: Cluster, records: list[Record], pod_key: str, job_uid: str, subject: str) -> Explanation:
    pod = cluster.pods[pod_key]
    if pod.phase == "Running" and not pod.node_name:
        return Explanation(subject, "running", "none", f"{pod_key} is Running (no node recorded); no decision of "
                           "the cycles run touched it")
    if pod.node_name:
        return Explanation(subject, "running", "none", f"{pod_key} runs on {pod.node_name}; no decision of the "
                           "cycles run touched it")
    queue = cluster.podgroups[job_uid].queue
    overused = [r for r in records if r.kind == "queueOverused" and r.subject == queue]
    if overused:
        return Explanation(subject, "pending", "proportion.overused", f"pending because queue {queue} is overused "
                           "(allocated reached deserved on every dimension), so allocate skipped it",
                           overused[-1].cycle, overused[-1:])
    phase = cluster.podgroups[job_uid].phase
    if "allocate" not in cluster.conf.actions:
        return Explanation(subject, "pending", "conf.noAllocate",
                           f"pending: the scheduler configuration runs no allocate action "
                           f"({', '.join(cluster.conf.actions) or 'none'}), so nothing places it")
    return Explanation(subject, "pending", "session.notConsidered",
                       f"pending: no action considered it (PodGroup {job_uid} is {phase}; allocate only places "
                       "tasks of jobs that are not Pending, and enqueue decides that)")


def _evicted(reader: _Reader, mine: list[Record], pod_key: str, job_uid: str, subject: str) -> Explanation | None:
    evict = next((r for r in mine if r.kind == "evict" and r.subject == pod_key), None)
    if evict is None:
        return None
    idx = reader.index_of(evict)
    tentative = reader.last_before(idx, lambda r: r.kind == "tentativeEvict" and r.subject == pod_key)
    tidx = reader.index_of(tentative) if tentative is not None else idx
    result = reader.last_before(tidx, lambda r: r.kind.endswith("Result") and isinstance(r.verdict, list)
                                and pod_key in r.verdict)
    chain = [r for r in (result, tentative, evict) if r is not None]
    if result is None:
        return Explanation(subject, "evicted", f"{evict.action}.evicted",
                           f"evicted by {evict.action}", chain=chain)
    point = result.kind[: -len("Result")]
    ridx = reader.index_of(result)
    votes = []
    for r in reversed(reader.records[:ridx]):
        if r.kind.endswith("Result"):
            break
        if r.kind == f"{point}Vote" and r.subject == result.subject and r.detail.get("tier") == result.detail.get(
                "tier") and pod_key in r.verdict:
            votes.insert(0, r)
    reasons = [reason for v in votes for reason in v.reasons if reason.values.get("task") == pod_key]
    main = _prefer_queue_plugin(reasons)
    quirks = [result.detail["quirk"]] if result.detail.get("quirk") else []
    rule = _rule(main) if main else (f"{votes[0].plugin}.accepted" if votes else f"{evict.action}.evicted")
    why = main.text if main else "every plugin of the deciding tier accepted it as a victim"
    sentence = f"evicted by {evict.action} to make room for {result.subject}: {why}"
    return Explanation(subject, "evicted", rule, sentence, chain=[*votes, *chain], quirks=quirks)


def _kept(reader: _Reader, pod_key: str, node: str, subject: str) -> Explanation:
    """A running pod that was a candidate victim but stayed: the rule that protected it."""
    votes = [r for r in reader.records if r.kind.endswith("Vote") and isinstance(r.verdict, list)
             and pod_key not in r.verdict and any(x.values.get("task") == pod_key for x in r.reasons)]
    reasons = [x for v in votes for x in v.reasons if x.values.get("task") == pod_key]
    main = _prefer_queue_plugin(reasons)
    if main is None:
        return Explanation(subject, "running", "none", f"{pod_key} keeps running on {node}; no decision of this "
                           "cycle touched it")
    return Explanation(subject, "running", _rule(main), f"{pod_key} keeps running on {node}: {main.text}",
                       chain=votes)


def _allowing_reason(reader: _Reader, idx: int, pod_key: str) -> tuple[str, str, list[Record]]:
    """The Allocatable answer that let the pod be placed (the last passing vote before idx)."""
    votes = []
    for r in reversed(reader.records[:idx]):
        if r.subject != pod_key:
            continue
        if r.kind == "allocatable" and r.verdict is True:
            votes.insert(0, r)
        elif votes:
            break
    reasons = [reason for v in votes for reason in v.reasons]
    main = _prefer_queue_plugin(reasons)
    if main is None:
        return "allocate.nodeFit", "it fits a node and no queue plugin limits it", votes
    return _rule(main), main.text, votes


def _node_choice(reader: _Reader, idx: int, pod_key: str) -> str:
    chosen = reader.last_before(idx, lambda r: r.kind == "nodeChosen" and r.subject == pod_key)
    if chosen is None:
        return ""
    n = chosen.detail.get("feasible", 0)
    return f"; {chosen.verdict} was the only feasible node" if n == 1 else \
        f"; {chosen.verdict} scored best of {n} feasible nodes"


def _bound(reader: _Reader, mine: list[Record], pod_key: str, job_uid: str, subject: str) -> Explanation | None:
    bind = next((r for r in mine if r.kind == "bind" and r.subject == pod_key), None)
    if bind is None:
        return None
    idx = reader.index_of(bind)
    if bind.action == "backfill":
        return Explanation(subject, "bound", "backfill.bestEffort", f"bound to {bind.verdict} by backfill: it "
                           "requests no resources (BestEffort), so only the predicates decide", chain=[bind])
    rule, why, votes = _allowing_reason(reader, idx, pod_key)
    sentence = f"bound to {bind.verdict} by {bind.action}: {why}{_node_choice(reader, idx, pod_key)}"
    return Explanation(subject, "bound", rule, sentence, chain=[*votes, bind])


def _pipelined(reader: _Reader, mine: list[Record], pod_key: str, job_uid: str, subject: str) -> Explanation | None:
    pipes = [r for r in mine if r.kind == "pipeline" and r.subject == pod_key]
    if not pipes:
        return None
    pipe = pipes[-1]
    idx = reader.index_of(pipe)
    undone = any(r.kind == "discard" and r.subject == pod_key and r.verdict == "pipeline"
                 for r in reader.records[idx:])
    if undone:
        return None
    if pipe.action in ("reclaim", "preempt"):
        evicted = [r.subject for r in reader.records[:idx] if r.kind == "tentativeEvict"
                   and r.action == pipe.action][-8:]
        freed = f" after evicting {', '.join(evicted)}" if pipe.detail.get("evictionOccurred") and evicted else \
            " (the node's future idle resources already fit it)"
        pre = reader.last_before(idx, lambda r: r.kind == "preemptive" and r.subject == pod_key and r.verdict)
        why = pre.reasons[0].text if pre is not None and pre.reasons else ""
        rule = f"{pipe.action}.pipelined" if not why else _rule(pre.reasons[0])
        sentence = f"pipelined onto {pipe.verdict} by {pipe.action}{freed}" + (f": {why}" if why else "") + \
            "; it binds in a later cycle once the victims are gone"
        return Explanation(subject, "pipelined", rule, sentence, chain=[r for r in (pre, pipe) if r is not None])
    rule, why, votes = _allowing_reason(reader, idx, pod_key)
    return Explanation(subject, "pipelined", "allocate.pipelined",
                       f"pipelined onto {pipe.verdict} by allocate: {why}; the node's idle resources do not fit it "
                       "yet, only its future idle (resources being released) do", chain=[*votes, pipe])


def _allocated_not_bound(reader: _Reader, mine: list[Record], pod_key: str, job_uid: str,
                         subject: str) -> Explanation | None:
    alloc = [r for r in mine if r.kind == "allocate" and r.subject == pod_key]
    if not alloc:
        return None
    idx = reader.index_of(alloc[-1])
    if any(r.kind == "discard" and r.subject == pod_key for r in reader.records[idx:]):
        return None
    return Explanation(subject, "pending", "gang.jobReady",
                       f"allocated to {alloc[-1].verdict} but not bound: job {job_uid} is not ready (fewer than "
                       "minAvailable tasks allocated, the rest only pipelined), so Volcano keeps the statement "
                       "uncommitted until the cycle ends", chain=alloc[-1:])


def _pending(reader: _Reader, mine: list[Record], cluster: Cluster, pod_key: str, job_uid: str,
             subject: str) -> Explanation:
    blocker = next((r for r in mine if r.kind in BLOCKERS and r.verdict is not True), None)
    attempts = [r for r in mine if r.kind in ATTEMPTS]
    if blocker is None:
        sibling = next((r for r in reader.records if r.kind == "noFit" and r.subject != pod_key
                        and cluster.pods.get(r.subject) is not None
                        and f"{cluster.pods[r.subject].namespace}/{cluster.pods[r.subject].group}" == job_uid), None)
        if sibling is not None:
            return Explanation(subject, "pending", "allocate.jobStopped",
                               f"pending: not tried, because {sibling.subject} of the same job found no node and "
                               f"Volcano stops allocating the job ({sibling.verdict})", chain=[sibling, *attempts])
        queue = cluster.podgroups[job_uid].queue
        over = [r for r in reader.records if r.kind == "queueOverused" and r.subject == queue]
        if over:
            return Explanation(subject, "pending", "proportion.overused", f"pending because queue {queue} is "
                               "overused (allocated reached deserved on every dimension)", chain=over)
        if attempts:
            first = next((r for r in attempts if r.kind != "preemptFailed"), attempts[0])
            rule, why = _attempt_rule(reader, first)
            return Explanation(subject, "pending", rule, f"pending because {first.action} could not make room: {why}",
                               chain=attempts)
        starving = next((r for r in mine if r.kind == "jobStarving" and r.verdict is False), None)
        if starving is not None:
            return Explanation(subject, "pending", f"{starving.plugin}.notStarving",
                               f"pending: job {job_uid} is not starving by {starving.plugin}'s rule (its ready and "
                               "pipelined tasks reach what it needs), so reclaim and preempt do not act for it",
                               chain=[starving])
        admitted = next((r for r in mine if r.kind == "enqueue" and r.verdict is True), None)
        if admitted is not None:
            return Explanation(subject, "pending", "enqueue.admitted",
                               f"pending: enqueue admitted job {job_uid} (Inqueue, {admitted.detail.get('why')}); "
                               "no later action of this cycle placed it", chain=[admitted, *attempts])
        return Explanation(subject, "pending", "session.notConsidered",
                           "pending: no action placed or blocked it in this cycle", chain=attempts)
    idx = reader.index_of(blocker)
    chain = [blocker]
    rule, why = _blocker_reason(reader, idx, blocker, chain)
    tail = ""
    if attempts:
        last = attempts[-1]
        tail = f"; {last.action} could not make room either ({_attempt_text(reader, last)})"
    sentence = f"pending because {why}{tail}"
    quirks = [q for r in chain for q in [x.quirk for x in r.reasons] if q]
    return Explanation(subject, "pending", rule, sentence, chain=[*chain, *attempts], quirks=quirks)


def _blocker_reason(reader: _Reader, idx: int, blocker: Record, chain: list[Record]) -> tuple[str, str]:
    kind = blocker.kind
    if kind in ("enqueue", "notAllocatable"):
        point = "jobEnqueueable" if kind == "enqueue" else "allocatable"
        vote = reader.last_before(idx, lambda r: r.kind == point and r.subject == blocker.subject
                                  and r.verdict in (False, "Reject"))
        if vote is not None:
            chain.insert(0, vote)
            reason = vote.reasons[0] if vote.reasons else None
            if reason is not None:
                prefix = f"job {blocker.subject} was not admitted by enqueue: " if kind == "enqueue" else ""
                return _rule(reason), prefix + reason.text
            return f"{vote.plugin}.{point}", f"{vote.plugin} answered no to {point}"
        return f"{point}.rejected", f"{point} was refused"
    if kind == "noFit":
        return "allocate.nodeFit", f"no node fits it: {blocker.verdict}"
    if kind == "gangDiscard":
        d = blocker.detail
        return "gang.minAvailable", (f"job {blocker.subject} could not place minAvailable {d.get('minAvailable')} "
                                     f"tasks together (ready {d.get('ready')}), so allocate rolled back its "
                                     "placements")
    if kind == "skipJob":
        return "gang.jobValid", f"job {blocker.subject} is not valid: {blocker.verdict}"
    if kind == "roleAlreadyFailed":
        return "allocate.roleFitError", (f"another task of role {blocker.detail.get('role')!r} already found no "
                                         "node this cycle, so Volcano skips the rest of that role")
    if kind == "prePredicateFailed":
        return "predicates.prePredicate", f"the pre-predicate failed: {blocker.verdict}"
    if kind == "queueOverused":
        return "proportion.overused", f"queue {blocker.subject} is overused"
    return f"{blocker.action}.{kind}", str(blocker.verdict)


def _attempt_text(reader: _Reader, rec: Record) -> str:
    return _attempt_rule(reader, rec)[1]


def _attempt_rule(reader: _Reader, rec: Record) -> tuple[str, str]:
    """Rule and text of a failed reclaim / preempt attempt."""
    if rec.kind == "notPreemptive":
        vote = reader.last_before(reader.index_of(rec), lambda r: r.kind == "preemptive" and r.subject == rec.subject)
        if vote is not None and vote.reasons:
            return _rule(vote.reasons[0]), vote.reasons[0].text
        return "reclaim.notPreemptive", "the queue may not reclaim"
    if rec.kind == "preemptionPolicyNever":
        return f"{rec.action}.preemptionPolicyNever", "its preemptionPolicy is Never"
    if rec.kind == "preemptRollback":
        return "preempt.rollback", (f"evicting victims on {rec.verdict} still did not let it fit (queue limit, node "
                                    "or predicates), so the evictions were rolled back")
    if rec.kind == "preemptNoCandidates":
        return "preempt.noCandidates", ("no node becomes feasible by evicting allowed victims (topology-aware "
                                        "preemption needs at least one victim per candidate node)")
    if rec.kind == "victimsInsufficient" and "nodes" in rec.detail:  # one record for the nodes passed over
        return "reclaim.victimsInsufficient", (f"evicting every preemptable pod of other queues on {_node_list(rec)} "
                                               "would not free enough for it")
    if rec.kind == "victimsInsufficient":
        kept = _kept_reason(reader, rec)
        if kept is not None:
            return _rule(kept), f"no victim allowed on {rec.verdict}: {kept.text}"
        return "reclaim.victimsInsufficient", (f"the victims allowed on {rec.verdict} would not free enough for it")
    why = rec.detail.get("why")
    return f"{rec.action}.{rec.kind}", str(why) if why else rec.kind


def _node_list(rec: Record, shown: int = 3) -> str:
    """'n1', 'n1 and n2', 'n1, n2, n3 and 5 more nodes' for a summary record's `nodes`."""
    nodes = [str(n) for n in rec.detail.get("nodes") or []]
    if len(nodes) <= shown:
        return " and ".join([", ".join(nodes[:-1]), nodes[-1]] if len(nodes) > 1 else nodes)
    return f"{', '.join(nodes[:shown])} and {len(nodes) - shown} more nodes"


def _kept_reason(reader: _Reader, rec: Record) -> Reason | None:
    """When no victim was allowed at all, the reason the plugins gave for keeping the candidates."""
    idx = reader.index_of(rec)
    result = reader.last_before(idx, lambda r: r.kind.endswith("Result") and r.subject == rec.subject)
    if result is None or result.verdict:
        return None
    ridx = reader.index_of(result)
    reasons = []
    for r in reversed(reader.records[:ridx]):
        if r.kind.endswith("Result"):
            break
        if r.kind.endswith("Vote") and r.subject == rec.subject:
            reasons = list(r.reasons) + reasons
    return _prefer_queue_plugin(reasons)


def explain_job(records: list[Record], cluster: Cluster, job_uid: str) -> list[Explanation]:
    pg = cluster.podgroups.get(job_uid)
    if pg is None:
        raise InputError(f"PodGroup/{job_uid}", "", "no such PodGroup in the cluster")
    pods = [k for k, p in cluster.pods.items() if p.group == pg.name and p.namespace == pg.namespace]
    return [explain_pod(records, cluster, k) for k in sorted(pods)]


def explain_queue(records: list[Record], cluster: Cluster, queue: str) -> list[Explanation]:
    if queue not in cluster.queues:
        raise InputError(f"Queue/{queue}", "", "no such queue in the cluster")
    out = []
    for uid, pg in sorted(cluster.podgroups.items()):
        if pg.queue == queue:
            out.extend(explain_job(records, cluster, uid))
    return out


def victim_table(records: list[Record], cycle: int | None = None) -> list[dict[str, Any]]:
    """For every reclaim / preempt victim decision: one row per candidate with each plugin's verdict.

    Columns: cycle, action, preemptor, candidate, one column per plugin that voted ("victim: rule" or
    "kept: rule"), decidingTier, victim (in the tier's final list) and evicted (committed this cycle).
    """
    rows: list[dict[str, Any]] = []
    recs = [r for r in records if cycle is None or r.cycle == cycle]
    evicted = {(r.cycle, r.subject) for r in recs if r.kind == "evict"}
    votes: list[Record] = []
    for r in recs:
        if r.kind.endswith("Vote") and isinstance(r.verdict, list):
            votes.append(r)
            continue
        if not (r.kind.endswith("Result") and isinstance(r.verdict, list)):
            continue
        mine = [v for v in votes if v.subject == r.subject]
        votes = [v for v in votes if v.subject != r.subject]
        candidates: list[str] = []
        for v in mine:
            for name in [*v.verdict, *[x.values.get("task") for x in v.reasons]]:
                if name and name not in candidates:
                    candidates.append(name)
        for cand in candidates:
            row: dict[str, Any] = {"cycle": r.cycle, "action": r.action, "preemptor": r.subject, "candidate": cand}
            for v in mine:
                why = next((x.rule for x in v.reasons if x.values.get("task") == cand), "")
                verdict = "victim" if cand in v.verdict else "kept"
                row[f"tier{v.detail.get('tier', 0) + 1}:{v.plugin}"] = f"{verdict}: {why}" if why else verdict
            row["decidingTier"] = r.detail.get("tier", -1) + 1 if r.detail.get("tier", -1) >= 0 else None
            row["victim"] = cand in r.verdict
            row["evicted"] = (r.cycle, cand) in evicted
            rows.append(row)
    return rows
