"""Every bind, eviction and pending pod of the acceptance corpus names the rule that decided it.

The expected rules and sentences were read off the trace and checked by hand against the spec; the
sentence is what `python -m capacity explain` prints last.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from capacity.analysis.explain import explain_pod
from capacity.core.trace import Trace
from capacity.io.k8s import load_cluster_file
from capacity.scheduler import simulate

CORPUS = Path(__file__).resolve().parents[1] / "acceptance" / "volcano"

CASES = [
    ('allocate-fairshare-empty-job-requeued', 'ns-1/pod-2', 'bound', 'allocate.nodeFit',
     'bound to node-1 by allocate: it fits a node and no queue plugin limits it; node-1 was the only feasible node'),
    ('allocate-fairshare-low-share-first', 'ns-1/pod-large-1', 'pending', 'allocate.nodeFit',
     'pending because no node fits it: 0/1 nodes are available: 1 Insufficient cpu'),
    ('allocate-fairshare-low-share-first', 'ns-1/pod-large-2', 'bound', 'allocate.nodeFit',
     'bound to node-1 by allocate: it fits a node and no queue plugin limits it; node-1 was the only feasible node'),
    ('allocate-node-selector-mismatch', 'c1/p2', 'bound', 'proportion.deserved',
     "bound to n1 by allocate: c1/p2 fits queue c1's deserved: allocated + request <= deserved: cpu 0 + 1 = 1 <= 2, memory 0 + 1G = 1G <= 2G; n1 was the only feasible node"),
    ('allocate-one-job-two-pods', 'c1/p1', 'bound', 'proportion.deserved',
     "bound to n1 by allocate: c1/p1 fits queue c1's deserved: allocated + request <= deserved: cpu 0 + 1 = 1 <= 2, memory 0 + 1G = 1G <= 2G; n1 was the only feasible node"),
    ('allocate-one-job-two-pods', 'c1/p2', 'bound', 'proportion.deserved',
     "bound to n1 by allocate: c1/p2 fits queue c1's deserved: allocated + request <= deserved: cpu 1 + 1 = 2 <= 2, memory 1G + 1G = 2G <= 2G; n1 was the only feasible node"),
    ('allocate-task-min-member-unmet', 'c1/p0', 'pending', 'gang.minAvailable',
     'pending because job c1/pg1 could not place minAvailable 2 pods together (ready 0), so allocate rolled back the 1 pod it had placed'),
    ('allocate-task-min-member-unmet', 'c1/p2', 'pending', 'gang.minAvailable',
     'pending because job c1/pg1 could not place minAvailable 2 pods together (ready 0), so allocate rolled back the 1 pod it had placed'),
    ('allocate-task-min-member-unmet', 'c1/p3', 'pending', 'gang.minAvailable',
     'pending because job c1/pg1 could not place minAvailable 2 pods together (ready 0), so allocate rolled back the 1 pod it had placed'),
    ('capacity-ancestor-l0-leaf-level-reclaim', 'ns1/p-reclaimer', 'pipelined', 'capacity.underDeserved',
     'pipelined onto n1 by reclaim after evicting ns1/p-victim: queue queue-a stays within its deserved on cpu, memory: allocated + request <= deserved: cpu 0 + 2 = 2 <= 2, memory 0 + 2Gi = 2Gi <= 2Gi; queue queue-b allocated cpu 2 -> 0, memory 2Gi -> 0 (share 2 -> 0); queue queue-a allocated cpu 0 -> 2, memory 0 -> 2Gi (share 0 -> 1)'),
    ('capacity-ancestor-l0-leaf-level-reclaim', 'ns1/p-victim', 'evicted', 'capacity.overDeserved',
     "evicted by reclaim on n1 to make room for ns1/p-reclaimer: ns1/p-victim may go: queue queue-b's allocated cpu 2, memory 2Gi is above its deserved cpu 1, memory 1Gi"),
    ('capacity-ancestor-l1-evict-sibling-queue-victim', 'ns1/p3', 'evicted', 'capacity.immediateVictim',
     'evicted by reclaim on n1 to make room for ns1/p6: ns1/p3 may go: it uses nothing its queue deserves (it uses cpu, memory, nvidia.com/a100, rdma/hca; queue project2_preemptable deserves nothing)'),
    ('capacity-ancestor-l1-evict-sibling-queue-victim', 'ns1/p6', 'pipelined', 'capacity.underDeserved',
     'pipelined onto n1 by reclaim after evicting ns1/p3: queue project2_non-preemptable stays within its deserved on nvidia.com/a100: allocated + request <= deserved: nvidia.com/a100 0 + 1 = 1 <= 3; queue project2_preemptable allocated cpu 3 -> 2, memory 3Gi -> 2Gi, nvidia.com/a100 3 -> 2, rdma/hca 3 -> 2 (share 1 -> 1); queue project2_non-preemptable allocated cpu 0 -> 1, memory 0 -> 1Gi, nvidia.com/a100 0 -> 1, rdma/hca 0 -> 1 (share 0 -> 0.3333)'),
    ('capacity-ancestor-l1-parent-check-passes', 'ns1/p-reclaimer', 'pipelined', 'capacity.underDeserved',
     'pipelined onto n1 by reclaim after evicting ns1/p-victim: queue queue-a stays within its deserved on cpu, memory: allocated + request <= deserved: cpu 0 + 2 = 2 <= 2, memory 0 + 2Gi = 2Gi <= 2Gi; queue queue-b allocated cpu 2 -> 0, memory 2Gi -> 0 (share 2 -> 0); queue queue-a allocated cpu 0 -> 2, memory 0 -> 2Gi (share 0 -> 1)'),
    ('capacity-ancestor-l1-parent-check-passes', 'ns1/p-victim', 'evicted', 'capacity.overDeserved',
     "evicted by reclaim on n1 to make room for ns1/p-reclaimer: ns1/p-victim may go: queue queue-b's allocated cpu 2, memory 2Gi is above its deserved cpu 1, memory 1Gi"),
    ('capacity-ancestor-l1-reclaim-by-parent-deserved', 'ns1/p1', 'evicted', 'capacity.immediateVictim',
     'evicted by reclaim on n1 to make room for ns1/p2: ns1/p1 may go: it uses nothing its queue deserves (it uses cpu, memory, nvidia.com/a100, rdma/hca; queue case1_queue2 deserves nothing)'),
    ('capacity-ancestor-l1-reclaim-by-parent-deserved', 'ns1/p2', 'pipelined', 'capacity.ancestorUnderDeserved',
     'pipelined onto n1 by reclaim after evicting ns1/p1: ancestor case1_queue1 (depth 1) stays within its deserved on nvidia.com/a100: allocated + request <= deserved: nvidia.com/a100 0 + 1 = 1 <= 1; queue case1_queue2 allocated cpu 1 -> 0, memory 1Gi -> 0, nvidia.com/a100 4 -> 0, rdma/hca 1 -> 0 (share 1 -> 1); queue case1_queue11 allocated cpu 0 -> 1, memory 0 -> 1Gi, nvidia.com/a100 0 -> 1, rdma/hca 0 -> 1 (share 1 -> 1)'),
    ('capacity-ancestor-l2-unbalanced-shared-grandparent', 'ns1/p-reclaimer', 'pending', 'capacity.overDeserved',
     'pending: reclaim did not make room: queue queue-shallow would exceed its deserved on every requested dimension: allocated + request > deserved: cpu 0 + 2 = 2 > 0 (2 over), memory 0 + 2Gi = 2Gi > 0 (2Gi over); allocate did not place it: queue grand would exceed its realCapability on cpu, memory at level root/grand: cpu 2 + 2 = 4 > 2 (2 over), memory 2Gi + 2Gi = 4Gi > 2Gi (2Gi over)'),
    ('capacity-enqueue-blocked-by-capability', 'ns1/pod5', 'pending', 'capacity.enqueueRealCapability',
     'pending: enqueue did not admit job ns1/pg5: queue resource quota insufficient: minResources + allocated + inqueue - elastic exceeds the realCapability of q1 on memory: memory 1G + 3G + 0 - 0 = 4G > 2G (2G over); allocate only considers jobs that are Inqueue or Running, so none tried it'),
    ('capacity-enqueue-closed-queue', 'ns1/pod6', 'pending', 'capacity.queueState',
     'pending: enqueue did not admit job ns1/pg6: queue q3 is Closed (state must be Open); allocate only considers jobs that are Inqueue or Running, so none tried it'),
    ('capacity-enqueue-cpu-only-job-memory-over-deserved', 'ns1/pod3', 'bound', 'capacity.realCapability',
     'bound to n1 by allocate: fits the realCapability of q1; n1 was the only feasible node'),
    ('capacity-flat-allocate-blocked-by-capability', 'ns1/p4', 'pending', 'capacity.realCapability',
     'pending because queue q2 would exceed its realCapability on cpu, memory at level q2: cpu 1 + 1 = 2 > 1.5 (0.5 over), memory 1Gi + 1Gi = 2Gi > 1536Mi (512Mi over); reclaim did not make room either, for the same reason'),
    ('capacity-flat-reclaim-deserved-one-dimension', 'ns1/p18', 'evicted', 'capacity.immediateVictim',
     'evicted by reclaim on n1 to make room for ns1/p17: ns1/p18 may go: it uses nothing its queue deserves (it uses cpu, memory; queue q11 deserves nothing)'),
    ('capacity-flat-reclaim-scalar-only-request', 'ns1/p9', 'evicted', 'capacity.overDeserved',
     "evicted by reclaim on n4 to make room for ns1/p12: ns1/p9 may go: queue q5's allocated nvidia.com/A100 20 is above its deserved nvidia.com/A100 10"),
    ('capacity-hier-job-queue-missing', 'ns1/orphan', 'not-scheduled', 'session.queueMissing',
     "ns1/orphan is not scheduled: queue 'deleted-queue' of PodGroup ns1/pg-orphan does not exist, so Volcano leaves the job out of the session"),
    ('enqueue-inqueue-stays-inqueue', 'c1/p1', 'pending', 'conf.noAllocate',
     'pending: the scheduler configuration runs no allocate action (enqueue), so nothing places it'),
    ('enqueue-inqueue-stays-inqueue', 'c1/p2', 'pending', 'conf.noAllocate',
     'pending: the scheduler configuration runs no allocate action (enqueue), so nothing places it'),
    ('enqueue-pending-to-inqueue', 'c1/p1', 'pending', 'conf.noAllocate',
     'pending: enqueue admitted job c1/pg1 (no minResources): its PodGroup moves from Pending to Inqueue, but the scheduler configuration runs no allocate action (enqueue), so nothing places it'),
    ('enqueue-pending-to-inqueue', 'c1/p2', 'pending', 'conf.noAllocate',
     'pending: enqueue admitted job c1/pg2 (no minResources): its PodGroup moves from Pending to Inqueue, but the scheduler configuration runs no allocate action (enqueue), so nothing places it'),
    ('preempt-besteffort-both', 'c1/preemptee1', 'evicted', 'priority.lowerPriority',
     'evicted by preempt on n1 to make room for c1/preemptor1: c1/preemptee1 may go: lower priority than c1/preemptor1'),
    ('preempt-besteffort-both', 'c1/preemptor1', 'pipelined', 'preempt.pipelined',
     "pipelined onto n1 by preempt (the node's future idle resources already fit it)"),
    ('preempt-besteffort-victim', 'c1/preemptee1', 'evicted', 'priority.lowerPriority',
     'evicted by preempt on n1 to make room for c1/preemptor1: c1/preemptee1 may go: lower priority than c1/preemptor1'),
    ('preempt-besteffort-victim', 'c1/preemptor1', 'pipelined', 'preempt.pipelined',
     "pipelined onto n1 by preempt (the node's future idle resources already fit it); queue q1 allocated cpu 0 -> 3, memory 0 -> 3G (share 1 -> 1)"),
    ('preempt-enough-idle', 'c1/preemptor1', 'pipelined', 'preempt.pipelined',
     "pipelined onto n1 by preempt (the node's future idle resources already fit it); queue q1 allocated cpu 2 -> 3, memory 2G -> 3G (share 0.6667 -> 1)"),
    ('preempt-job-pipelined', 'c1/preemptor2', 'pending', 'gang.notStarving',
     'pending: preempt did not make room: job c1/pg2 is not starving: ready 1 + pipelined 0 >= minAvailable 1, and only a starving job gets room made for it'),
    ('preempt-low-priority-same-queue', 'c1/preemptee1', 'evicted', 'priority.lowerPriority',
     'evicted by preempt on n1 to make room for c1/preemptor1: c1/preemptee1 may go: lower priority than c1/preemptor1'),
    ('preempt-one-task-other-job', 'c1/preemptor2', 'pending', 'gang.notStarving',
     'pending: preempt did not make room: job c1/pg2 is not starving: ready 0 + pipelined 1 >= minAvailable 1 (after the attempts for its other pods), so preempt stopped trying for this job before reaching this pod; then no node has victims enough to make room: the task does not fit FutureIdle even with every allowed victim gone (on n1)'),
    ('preempt-policy-never', 'c1/preemptor1', 'pending', 'preempt.preemptNotEligible',
     'pending: preempt did not make room: the pod may not preempt: preemptionPolicy is Never'),
    ('preempt-rollback-over-capability', 'c1/preemptor1', 'pending', 'preempt.rollback',
     'pending: preempt did not make room: preempt undid its evictions: evicting c1/preemptee2 on n1 still did not let it fit: the task still does not fit (queue Allocatable, FutureIdle or predicate); then no tier of plugins offered a victim: conformance offered none, which ends a tier'),
    ('preempt-topoaware-enough-idle', 'c1/preemptor1', 'pending', 'preempt.noVictims',
     'pending: preempt did not make room: no tier of plugins offered a victim: conformance offered none, which ends a tier; then no node becomes feasible by evicting allowed victims (topology-aware preemption needs at least one victim per candidate node)'),
    ('preempt-topoaware-job-pipelined', 'c1/preemptor2', 'pending', 'gang.notStarving',
     'pending: preempt did not make room: job c1/pg2 is not starving: ready 1 + pipelined 0 >= minAvailable 1, and only a starving job gets room made for it'),
    ('preempt-topoaware-policy-never', 'c1/preemptor1', 'pending', 'preempt.preemptNotEligible',
     'pending: preempt did not make room: the pod may not preempt: preemptionPolicy is Never'),
    ('proportion-enqueue-closed-queue', 'ns1/pod6', 'pending', 'proportion.queueState',
     'pending: enqueue did not admit job ns1/pg6: queue q3 is Closed (state must be Open); allocate only considers jobs that are Inqueue or Running, so none tried it'),
    ('reclaim-closed-queue-capacity', 'c1/preemptor1', 'pending', 'capacity.queueState',
     'pending: reclaim did not make room: queue q2 is not Open'),
    ('reclaim-closed-queue-proportion', 'c1/preemptor1', 'pending', 'proportion.queueState',
     'pending: reclaim did not make room: queue q2 is Closed (state must be Open)'),
    ('reclaim-no-evict-when-idle-suffices', 'c1/preemptor1', 'pipelined', 'proportion.preemptiveDeserved',
     "pipelined onto n1 by reclaim (the node's future idle resources already fit it): c1/preemptor1 fits queue q2's deserved: allocated + request <= deserved: cpu 0 + 3 = 3 <= 3, memory 0 + 3G = 3G <= 3G; queue q2 allocated cpu 0 -> 3, memory 0 -> 3G (share 0 -> 1)"),
    ('reclaim-overused-queue', 'c1/preemptee2', 'evicted', 'proportion.overDeserved',
     "evicted by reclaim on n1 to make room for c1/preemptor1: c1/preemptee2 may go: queue q1's allocated cpu 3, memory 3G is above its deserved cpu 2, memory 2.22G"),
    ('reclaim-overused-queue', 'c1/preemptor1', 'pipelined', 'proportion.preemptiveDeserved',
     "pipelined onto n1 by reclaim after evicting c1/preemptee2: c1/preemptor1 fits queue q2's deserved: allocated + request <= deserved: cpu 0 + 1 = 1 <= 1, memory 0 + 1G = 1G <= 1G; queue q1 allocated cpu 3 -> 2, memory 3G -> 2G (share 1.5 -> 1); queue q2 allocated cpu 0 -> 1, memory 0 -> 1G (share 0 -> 1)"),
    ('reclaim-preemption-policy-never', 'c1/preemptor1', 'pending', 'gang.notStarving',
     'pending: reclaim did not make room: job c1/pg2 is not starving: ready 0 + pipelined 0 >= minAvailable 0, and only a starving job gets room made for it'),
    ('reclaim-sort-by-job-priority', 'c1/preemptee2-1', 'evicted', 'proportion.overDeserved',
     "evicted by reclaim on n1 to make room for c1/preemptor1: c1/preemptee2-1 may go: queue q2's allocated cpu 2, memory 2G is above its deserved cpu 1.5, memory 1.65G"),
    ('reclaim-sort-by-job-priority', 'c1/preemptor1', 'pipelined', 'proportion.preemptiveDeserved',
     "pipelined onto n1 by reclaim after evicting c1/preemptee2-1: c1/preemptor1 fits queue q3's deserved: allocated + request <= deserved: cpu 0 + 1 = 1 <= 1, memory 0 + 1G = 1G <= 1G; queue q2 allocated cpu 2 -> 1, memory 2G -> 1G (share 1.333 -> 0.6667); queue q3 allocated cpu 0 -> 1, memory 0 -> 1G (share 0 -> 1)"),
    ('reclaim-sort-by-queue-priority', 'c1/preemptee1-1', 'evicted', 'proportion.overDeserved',
     "evicted by reclaim on n1 to make room for c1/preemptor1: c1/preemptee1-1 may go: queue q1's allocated cpu 2, memory 2G is above its deserved cpu 1.5, memory 1.65G"),
]


def _explain(case: str, pod: str):
    spec = yaml.safe_load((CORPUS / case / "expect.yaml").read_text())
    cluster = load_cluster_file(str(CORPUS / case / "cluster.yaml"))
    before = copy.deepcopy(cluster)
    trace = Trace(enabled=True)
    simulate(cluster, spec.get("cycles", 1), trace)
    return explain_pod(trace.records, before, pod)


def test_enough_cases_are_pinned() -> None:
    assert len({c for c, *_ in CASES}) >= 20


@pytest.mark.parametrize(("case", "pod", "outcome", "rule", "sentence"), CASES)
def test_decision_names_its_rule(case: str, pod: str, outcome: str, rule: str, sentence: str) -> None:
    e = _explain(case, pod)
    assert (e.outcome, e.rule) == (outcome, rule)
    assert e.sentence == sentence
    if not rule.startswith(("session.", "conf.")):
        assert e.chain, "the explanation shows the records it rests on"
