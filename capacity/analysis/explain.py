"""Why a pod was bound, evicted, pipelined or left pending: the older entry points, now views of
capacity.analysis.answer (one answer model), plus the victim table of reclaim / preempt decisions.

Nothing here re-decides anything: the answers are read back from the records the deciding code wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from capacity.core.cluster import Cluster
from capacity.core.errors import InputError
from capacity.core.trace import Record


@dataclass
class Explanation:
    """The verdict on one object, the rule that decided it, and the records that show it.

    A thin view of capacity.analysis.answer.Answer for the callers written before it (the lessons, the Decisions
    page): `answer` holds the whole answer (its chain of checks, per-cycle lines and notes).
    """

    subject: str
    outcome: str
    rule: str
    sentence: str
    cycle: int = 0
    chain: list[Record] = field(default_factory=list)
    quirks: list[str] = field(default_factory=list)
    answer: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "outcome": self.outcome, "rule": self.rule, "sentence": self.sentence,
                "cycle": self.cycle, "quirks": self.quirks, "chain": [r.as_dict() for r in self.chain]}


def _run(records: list[Record], cluster: Cluster) -> Any:
    """An ExplainRun over records already taken (no cluster after, no per-cycle queue figures or notes)."""
    from dataclasses import replace

    from capacity.analysis.answer import ExplainRun
    cycles = max((r.cycle for r in records), default=0)
    if cycles == 0:  # a session run by hand, outside `simulate` (its trace never numbered a cycle): cycle 1
        records, cycles = [replace(r, cycle=1) for r in records], 1
    return ExplainRun(cluster, cluster, records, cycles)  # (cycles given: from_records would count them again)


def _explanation(answer: Any, records: list[Record], cluster: Cluster) -> Explanation:
    key = answer.subject.split("/", 1)[1]
    pod = cluster.pods.get(key)
    uid = f"{pod.namespace}/{pod.group}" if pod is not None and pod.group else ""
    chain = [r for r in records if r.cycle == answer.cycle and (r.subject == key or (uid and r.subject == uid)
                                                                  or _names_pod(r, key))]
    quirks = list(answer.quirks)
    quirks += [x.quirk for r in chain for x in r.reasons if x.quirk and x.quirk not in quirks]
    return Explanation(answer.subject, answer.outcome, answer.rule, answer.sentence, answer.cycle, chain, quirks,
                       answer)


def _names_pod(r: Record, key: str) -> bool:
    return (r.kind.endswith(("Vote", "Result")) and isinstance(r.verdict, list) and key in r.verdict) or \
        any(x.values.get("task") == key for x in r.reasons)


def explain_pod(records: list[Record], cluster: Cluster, pod_key: str) -> Explanation:
    """The answer for one pod over the cycles run (capacity.analysis.answer.answer_pod), as an Explanation."""
    from capacity.analysis.answer import answer_pod
    if pod_key not in cluster.pods:
        raise InputError(f"Pod/{pod_key}", "", "no such pod in the cluster")
    return _explanation(answer_pod(_run(records, cluster), pod_key), records, cluster)


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
