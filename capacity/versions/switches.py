"""The behaviour changes between Volcano releases that decide differently in this engine.

A `Switch` is one upstream change (a pull request) to something the engine models. HEAD has every switch
on; an older release lacks the switches whose first release is newer than it, and the engine then runs
the behaviour from before the change at the rule site (each site cites the Volcano file at the old tag).
Changes found in Volcano's history that this engine does not (yet) reproduce are listed in `UNMODELLED`
so the table says plainly that those releases decide like HEAD there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Switch:
    """One upstream behaviour change: on = the behaviour from `release` on, off = `before`."""

    id: str          # "pr4160"
    pr: int          # the Volcano pull request that made the change
    release: str     # first release tag that has it, "v1.12.0"; "HEAD" when no release has it yet
    area: str        # capacity, proportion, enqueue, reclaim, hierarchy, allocate, ...
    after: str       # the behaviour with the change (what HEAD does), one line
    before: str      # the behaviour before the change, one line, past tense
    flag: str = ""   # the older compatibility flag that turns the change off, if any

    @property
    def minor(self) -> tuple[int, int]:
        """(1, 12) for "v1.12.0"; HEAD sorts after every release."""
        if self.release == "HEAD":
            return (99, 0)
        major, minor = self.release.lstrip("v").split(".")[:2]
        return (int(major), int(minor))


SWITCHES: tuple[Switch, ...] = (
    Switch("pr2757", 2757, "v1.8.0", "allocate",
           "namespaces are not weighed: jobs of a queue are ordered by the job order plugins only",
           "allocate weighed namespaces by the ResourceQuota volcano.sh/namespace.weight (seed 002)",
           flag="--legacy-namespace-fairshare"),
    Switch("pr3940", 3940, "v1.11.0", "hierarchy",
           "hierarchical allocate checks the leaf queue's and every ancestor's realCapability",
           "hierarchical allocate checked only the leaf queue's realCapability (seed 003)",
           flag="--leaf-only-allocatable"),
    Switch("pr4029", 4029, "v1.12.0", "backfill",
           "backfill goes on to the next BestEffort task when one fails PrePredicate or fits no node",
           "backfill stopped at the first BestEffort task that failed PrePredicate or fit no node, leaving every "
           "later BestEffort task of every job unplaced"),
    Switch("pr4119", 4119, "v1.12.0", "enqueue",
           "hierarchical enqueue checks the job's leaf queue and every ancestor's realCapability, and reserves "
           "the job's minResources on each",
           "hierarchical enqueue checked and reserved only the job's own leaf queue, so a full parent still "
           "admitted jobs"),
    Switch("pr4033", 4033, "v1.12.0", "webhook",
           "the queue webhook refuses a child of a queue holding allocated pods only when it would be the first "
           "child",
           "the queue webhook refused every new child of a queue whose status counted allocated pods, its "
           "children's included, so a second sub-queue could not be created (fixed in v1.11.1 too)"),
    Switch("pr4208", 4208, "v1.12.0", "webhook",
           "the Queue CRD bounds spec.weight to 1..65535, so the API server refuses 0 (on UPDATE), negatives "
           "and larger weights before the queue webhook runs (PR #4813, v1.14.0, then dropped the webhook's "
           "own weight > 0 check, which the bounds already covered)",
           "spec.weight had no CRD bounds: the queue webhook refused a weight <= 0 (\"queue weight must be a "
           "positive integer\"; 0 on CREATE became 1 first) and any weight above 65535 was accepted"),
    Switch("pr3946", 3946, "v1.12.0", "capacity",
           "a queue's deserved is what its spec says (clipped only by its realCapability)",
           "capacity clipped each queue's deserved to what its pods requested (hierarchical: a resource not "
           "requested read as 0), so an idle queue deserved nothing"),
    Switch("pr4160", 4160, "v1.12.0", "reclaim",
           "capacity and proportion may pick a victim whatever its queue's allocation is compared with the "
           "reclaimer's request",
           "capacity and proportion skipped every reclaimee of a queue whose allocation was below the "
           "reclaimer's request on some dimension, so smaller pods were never reclaimed"),
    Switch("pr4263", 4263, "v1.12.0", "enqueue",
           "capacity and proportion refuse to enqueue, allocate or reclaim for a queue that is not Open "
           "(with PRs #4274 and #4307)",
           "capacity and proportion did not read a queue's state: jobs of a Closed queue were enqueued, "
           "allocated and reclaimed for like any other"),
    Switch("pr4470", 4470, "v1.13.0", "webhook",
           "the queue webhook refuses a deserved above the capability and a guarantee above the capability or "
           "deserved",
           "the queue webhook did not compare a queue's deserved, guarantee and capability: any sizes were "
           "accepted"),
    Switch("pr4354", 4354, "v1.13.0", "hierarchy",
           "a capability set on the root queue is kept, and a child's deserved is not clipped to its "
           "realCapability",
           "the root queue's capability, deserved and realCapability were always the cluster total, even when "
           "root set a capability, and each child's deserved was clipped to its realCapability"),
    Switch("pr4347", 4347, "v1.13.0", "capacity",
           "a scalar a queue's deserved sets to 0 stays 0 when deserved is raised to the guarantee (also in "
           "v1.12.3 and later v1.12 patches)",
           "raising deserved to the guarantee (helpers.Max) dropped every scalar set to 0: a flat queue's 0 read "
           "as unlimited, and a parent whose children deserved a 0 scalar failed the hierarchy check (proportion's "
           "deserved lost its 0 scalars too, with no decision changed)"),
    Switch("pr4504", 4504, "v1.13.0", "hierarchy",
           "a child queue's capability takes every scalar of its parent's that it does not name",
           "a child queue's capability took only cpu and memory from its parent's, never a scalar, so a queue "
           "without a capability failed the hierarchy check against children naming a scalar"),
    Switch("pr4697", 4697, "v1.14.0", "webhook",
           "the queue webhook refuses a queue naming itself as parent",
           "the queue webhook did not check for a self-parent: an UPDATE setting spec.parent to the queue's own "
           "name was accepted (a CREATE failed only on the parent lookup)"),
    Switch("pr4864-webhook", 4864, "v1.14.0", "webhook",
           "the queue webhook checks a child's capability against its parent's, the siblings' and children's "
           "deserved/guarantee sums against the parent, and each quantity's value",
           "the queue webhook checked no queue against its parent or children and no quantity's sign"),
    Switch("pr4659", 4659, "v1.14.0", "capacity",
           "a queue may reclaim when allocated + request stays within deserved on at least one requested "
           "dimension",
           "capacity required every requested dimension of allocated + request within deserved"),
    Switch("pr4865", 4865, "v1.14.0", "capacity",
           "a best-effort queue (no deserved) has share 1, and of two queues with the same share the one with "
           "a deserved goes first",
           "a best-effort queue's share was 0 whatever it held, so it went before every queue already using "
           "some of its deserved, and equal shares tied"),
    Switch("pr4919", 4919, "v1.14.0", "reclaim",
           "capacity's victims share a requested dimension with the reclaimer and are over deserved on a "
           "dimension they use; a pod using nothing its queue deserves is a victim at once",
           "capacity took any reclaimee of a queue whose allocation exceeded deserved on some dimension, "
           "whatever resources the reclaimer needed"),
    Switch("pr4774", 4774, "v1.14.0", "reclaim",
           "reclaim counts the node's idle resources with what the victims free, and stops evicting once the "
           "pod fits",
           "reclaim counted only what the victims freed, so it evicted until the victims alone covered the pod "
           "even where the node had room already"),
    Switch("pr4794", 4794, "v1.14.0", "reclaim",
           "reclaim's evictions for a job are kept only if the job ends up pipelined (a statement per job)",
           "reclaim evicted at once: victims stayed evicted even when the job was never pipelined"),
    Switch("pr4864", 4864, "v1.14.0", "hierarchy",
           "a queue tree that breaks the hierarchy rules is logged and scheduling goes on",
           "a queue tree whose children asked more than their parent allowed stopped every "
           "allocate, enqueue and reclaim of capacity"),
    Switch("pr4973", 4973, "v1.15.0", "hierarchy",
           "an unset root capability is infinite and root's deserved/guarantee are its children's sums",
           "an unset root capability and deserved were the cluster total and realCapability was the "
           "cluster total (seed 004)",
           flag="--seed004-root"),
    Switch("pr4973-webhook", 4973, "v1.15.0", "webhook",
           "the queue webhook compares capabilities per resource with the nearest ancestor setting it and the "
           "descendants, limits depth to 5 and protects root's quotas",
           "the queue webhook compared deserved, guarantee and capability as whole resources (an unset dimension "
           "read as 0), a capability with the direct parent's and children's only, sums with the parent's own "
           "value or else its capability, and had no depth limit or root protection (fixed in v1.14.2 too)"),
    Switch("pr5010", 5010, "v1.15.0", "preempt",
           "preempt undoes the evictions on a node where the preemptor still does not fit, and discards a "
           "within-job attempt that placed nothing",
           "preempt kept the evictions made on a node where the preemptor still did not fit (later nodes saw "
           "them; between jobs they were committed when the job ended pipelined), and committed a within-job "
           "attempt's evictions even when it placed nothing"),
    Switch("pr5053", 5053, "v1.15.0", "capacity",
           "a queue may not reclaim beyond its realCapability",
           "capacity let a queue reclaim even when allocated + request exceeded its realCapability"),
    Switch("pr5100", 5100, "v1.15.0", "proportion",
           "an Inqueue job's reservation counts only what its allocated pods do not already hold",
           "proportion counted an Inqueue job's whole minResources as inqueue even for pods already "
           "allocated, so they were counted twice"),
    Switch("pr5130", 5130, "v1.15.0", "capacity",
           "an Inqueue job's reservation in capacity counts only what its allocated pods do not already hold",
           "capacity counted an Inqueue job's whole minResources as inqueue, also for its pods already "
           "allocated, so they were counted twice"),
    Switch("pr5115", 5115, "v1.15.0", "reclaim",
           "capacity's ancestorReclaimLevel argument also checks ancestors' deserved when choosing victims; "
           "victims of jobs the job-order plugins rank equal go in task order (lowest-priority pod first)",
           "capacity had no ancestorReclaimLevel argument (it was ignored and only the leaf queues' deserved "
           "decided reclaim), and victims of jobs the job-order plugins ranked equal went by job creation "
           "time and UID (the newest job's pods first), whatever their pods' priority"),
    Switch("pr5142", 5142, "v1.15.0", "preempt",
           "preempt visits queues in QueueOrderFn order, and a queue's turn tries preemption within a job "
           "for that queue's starving jobs only",
           "preempt visited queues in Go map order (here: in the order their first job is met, by job UID), "
           "and every queue's turn tried preemption within a job for the starving jobs of all queues, replacing "
           "their task queues, so a later queue's job lost the tasks tried there (PR #5141 came with it)"),
    Switch("pr5176", 5176, "v1.15.0", "hierarchy",
           "a resource the child's capability names and its parent's does not is not counted as exceeding it",
           "a resource in a child's capability that its parent's capability did not name counted as exceeding "
           "the parent (and, before PR #4864, stopped capacity)"),
    Switch("pr5214", 5214, "v1.15.0", "preempt",
           "topology-aware preemption reprieves its potential victims from the most important pod down",
           "topology-aware preemption reprieved its potential victims from the least important pod up, so it "
           "kept low-priority pods and evicted more important ones"),
    Switch("pr5339", 5339, "HEAD", "enqueue",
           "capacity and proportion reserve a job's minResources only once every plugin let it in "
           "(JobEnqueuedFn)",
           "capacity and proportion reserved a job's minResources as soon as they voted for it, even when "
           "a later plugin refused the job, leaving a phantom reservation for the rest of the session"),
    Switch("pr5796", 5796, "HEAD", "enqueue",
           "a PodGroup whose scheduled pods are terminating counts them as scheduled: it stays Running (and "
           "gang does not mark it Unschedulable)",
           "a PodGroup whose scheduled pods were terminating did not count them: it fell to Pending (then was "
           "enqueued again) or Unknown (the change is on the release-1.13, 1.14 and 1.15 branches, in no tag "
           "yet)"),
    Switch("pr5818", 5818, "HEAD", "preempt",
           "a preemptor job is popped once per queue turn in preempt",
           "a preemptor job whose last task was placed by preempt was pushed back into its queue's preemptors "
           "and tried a second time"),
    Switch("pr5843", 5843, "HEAD", "preempt",
           "preempt's normal phase also asks the full predicate before it stops evicting on a node and pipelines "
           "the preemptor there (preemptorFitsOnNode)",
           "preempt stopped evicting on a node, and pipelined the preemptor there, once the queue was Allocatable "
           "and the preemptor's request fit the node's FutureIdle, without asking the predicate again (a node "
           "whose predicate still failed, as on a required anti-affinity with a pod not evicted yet, was taken; the "
           "change is on the release-1.15 branch, in no tag yet)"),
)

BY_ID: dict[str, Switch] = {s.id: s for s in SWITCHES}


@dataclass(frozen=True, slots=True)
class Unmodelled:
    """A change found in Volcano's history that the engine does not reproduce as a switch (yet)."""

    pr: int
    release: str
    area: str
    what: str


UNMODELLED: tuple[Unmodelled, ...] = (
    Unmodelled(5067, "v1.15.0", "reclaim", "a node's evictions are undone when the pod still does not fit there "
               "(only an eviction error gets there since PR #4774: none happens in a simulation)"),
    Unmodelled(5528, "HEAD", "allocate", "a PrePredicate failure no longer stops allocating the rest of the job "
               "(also in v1.14.4 and v1.15.1); up to v1.15 PrePredicate fails only on what this engine does not "
               "model (volume binding and dynamic resources, selectors Kubernetes cannot parse, a restartable init "
               "container without SidecarContainers), so it never fails here and no scenario shows the change"),
)
