"""Plain words for every kind of decision record (capacity.core.trace), so no answer shows an internal name.

`tests/unit/test_answer_glossary.py` checks that every kind the engine files (`.event(` / `.vote(` in
capacity/) has an entry here.
"""

from __future__ import annotations

#: record kind -> what it means, in words a user of Volcano knows.
KINDS: dict[str, str] = {
    # enqueue
    "jobEnqueueable": "enqueue check (may the job leave Pending?)",
    "jobEnqueueableTierShortCircuit": "a plugin's Permit ended the enqueue vote early",
    "enqueue": "enqueue verdict (Pending -> Inqueue)",
    # allocate / backfill
    "jobValid": "job validity check (enough pods for its minAvailable)",
    "skipJob": "job skipped as not valid",
    "allocateJob": "allocate took up the job",
    "namespaceDone": "allocate finished a namespace",
    "queueOverused": "queue is overused (allocated reached deserved)",
    "overused": "overused check of the queue",
    "allocatable": "queue room check for the pod",
    "notAllocatable": "the queue has no room for the pod",
    "roleAlreadyFailed": "another pod of the same role already found no node",
    "prePredicateFailed": "the pod's pre-filter failed",
    "noFit": "no node fits the pod",
    "noNodes": "the session has no node (none is Ready)",
    "nodeChosen": "node chosen for the pod",
    "scoreTie": "several nodes scored the same",
    "allocate": "pod allocated to a node",
    "pipeline": "pod pipelined onto a node (waits for resources being released)",
    "discard": "a tentative placement or eviction rolled back",
    "gangDiscard": "the job's placements rolled back (fewer than minAvailable placed)",
    "jobPipelined": "check that the job has enough pods placed or pipelined",
    "jobPipelinedTierShortCircuit": "a plugin's Permit ended the pipelined vote early",
    "bind": "pod bound to a node",
    # reclaim / preempt
    "jobStarving": "starving check (does the job still need pods placed?)",
    "preemptionPolicyNever": "the pod's preemptionPolicy is Never",
    "preemptive": "may the queue take resources back (reclaim)?",
    "notPreemptive": "the queue may not take resources back",
    "reclaimableVote": "a plugin's choice of pods reclaim may evict",
    "reclaimableResult": "the pods reclaim may evict (the deciding tier's answer)",
    "preemptableVote": "a plugin's choice of pods preempt may evict",
    "preemptableResult": "the pods preempt may evict (the deciding tier's answer)",
    "victimsInsufficient": "the allowed victims would not free enough",
    "victimsAloneShort": "an older release counted only what the victims freed, not the node's idle room",
    "evictionsKept": "an older release kept the evictions although the job was not pipelined",
    "backfillStopped": "an older release ended backfill at a pod that fit no node",
    "victimOrderByJob": "an older release ordered the victims of equally ranked jobs by job age, not pod priority",
    "reprieveOrder": "an older release spared preemption victims from the least important up",
    "preemptQueueOrder": "an older release took preempt's queues in the order met, not the queue order",
    "preemptorPushedBack": "an older release let the job preempt a second time",
    "preemptEvictionsKept": "an older release kept preempt's evictions on a node the pod still did not fit",
    "preemptPredicateUnasked": "an older release took a node for the preemptor without asking its predicate again",
    "preemptFailedKept": "an older release kept the evictions of a within-job attempt that placed nothing",
    "releasingNotCounted": "an older release did not count terminating pods toward the PodGroup's phase",
    "releasingUnschedulable": "an older release marked a job with terminating pods Unschedulable",
    "tentativeEvict": "victim marked for eviction (committed only if the attempt succeeds)",
    "evict": "pod evicted",
    "preemptSkipJob": "job skipped by preempt as not valid",
    "preemptFailed": "preempt found no placement for the pod",
    "preemptCommit": "preempt kept its evictions (the job is pipelined)",
    "preemptRollback": "preempt undid its evictions",
    "preemptNotEligible": "the pod may not preempt",
    "preemptNoNodes": "no node passes the preemption filters",
    "preemptNoVictims": "no node has victims enough to make room",
    "preemptNoCandidates": "no node becomes feasible by evicting allowed victims",
    "preemptNodeRejected": "a node's victims were rejected",
    "preemptCandidate": "a candidate node with its victims",
    "preemptCandidateChosen": "the candidate node chosen",
    "preemptDryRun": "preempt's dry run over candidate nodes",
    "preemptPickNode": "preempt's pick among candidate nodes",
    # session
    "phase": "PodGroup phase written as the cycle closed",
    "proportionRound": "a round of proportion's water-filling of deserved",
    "pluginNote": "a plugin's note about this cycle",
    "queueFigures": "a queue's figures as the session opened (and how each was derived)",
    "queueChange": "a queue's allocated and share before and after an eviction or placement",
}

#: Vote verdicts in words.
VERDICTS = {"Permit": "permits", "Reject": "rejects", "Abstain": "abstains", True: "passes", False: "fails"}


def words(kind: str) -> str:
    """The plain words for a record kind; an unknown kind is split at its capitals rather than shown raw."""
    known = KINDS.get(kind)
    if known is not None:
        return known
    out = "".join(" " + c.lower() if c.isupper() else c for c in kind)
    return out.strip()


#: Volcano's own names that answers keep (they are what the user sees in Volcano's logs and PodGroup events),
#: each explained once, at the end of the answer that uses it. (Spec fields a user writes, deserved,
#: minAvailable, minResources, need no line.)
TERMS: dict[str, str] = {
    "realCapability": "the most the queue may hold: its capability (or its parent's), cut to what the cluster "
                      "has left after every other queue's guarantee",
    "inqueue": "what jobs already admitted (Inqueue) but not yet running will need (their minResources not yet "
               "allocated)",
    "elastic": "what the queue's running jobs hold above their minAvailable: pods they could lose and still run",
    "starving": "a job still short of pods it needs; reclaim and preempt act only for starving jobs",
    "pipelined": "reserved on a node whose resources are being released; it binds once they are free",
    "overused": "a queue whose allocated has reached its deserved on every resource: allocate skips its jobs",
}


#: Where a term is also an everyday word of the answers, the uses that are the term ("inqueue" is also the
#: PodGroup phase: "12 inqueue" jobs are not the inqueue figure).
TERM_PATTERNS: dict[str, str] = {
    "inqueue": r"\+ inqueue\b|\binqueue \+|\binqueue (cpu|memory|\d|none)|\binqueue [a-z]+/",
}


def term_used(term: str, text: str) -> bool:
    import re
    pattern = TERM_PATTERNS.get(term, rf"(?<![\w-]){re.escape(term)}(?![\w-])")
    return re.search(pattern, text) is not None


def terms_in(text: str, terms: dict[str, str] = TERMS) -> list[tuple[str, str]]:
    """The terms `text` uses (as whole words), each once, in the order of TERMS."""
    return [(t, m) for t, m in terms.items() if term_used(t, text)]
