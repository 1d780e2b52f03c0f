"""Acceptance cases that do not pass yet, each with its reason. This list only shrinks.

An issue that ports Volcano's behaviour is not resolved while this holds anything but cases we
argue are wrong (and then the reason says why, and the closing note repeats it).
"""

KNOWN_FAILURES: dict[str, str] = {
    "allocate-fairshare-low-share-first": "the proportion / drf plugins are not implemented yet",
    "allocate-two-jobs-one-node": "the proportion / drf plugins are not implemented yet",
    "enqueue-min-resources-over-capability": "the proportion / drf plugins are not implemented yet",
    "preempt-besteffort-both": "the preempt action is not implemented yet",
    "preempt-besteffort-victim": "the preempt action is not implemented yet",
    "preempt-enough-idle": "the preempt action is not implemented yet",
    "preempt-job-pipelined": "the preempt action is not implemented yet",
    "preempt-low-priority-same-queue": "the preempt action is not implemented yet",
    "preempt-one-task-other-job": "the preempt action is not implemented yet",
    "preempt-policy-never": "the preempt action is not implemented yet",
    "preempt-rollback-over-capability": "the preempt action is not implemented yet",
    "preempt-several-tasks-large-task": "the preempt action is not implemented yet",
    "preempt-skip-non-preemptable-and-higher-priority": "the preempt action is not implemented yet",
    "preempt-topoaware-besteffort-both": "the preempt action is not implemented yet",
    "preempt-topoaware-enough-idle": "the preempt action is not implemented yet",
    "preempt-topoaware-job-pipelined": "the preempt action is not implemented yet",
    "preempt-topoaware-low-priority-same-queue": "the preempt action is not implemented yet",
    "preempt-topoaware-pod-anti-affinity": "the preempt action is not implemented yet",
    "preempt-topoaware-policy-never": "the preempt action is not implemented yet",
    "preempt-topoaware-priority-queues": "the preempt action is not implemented yet",
    "preempt-topoaware-several-tasks-large-task": "the preempt action is not implemented yet",
    "preempt-topoaware-skip-non-preemptable-and-higher-priority": "the preempt action is not implemented yet",
    "proportion-allocate-queue-priority-order": "the proportion / drf plugins are not implemented yet",
    "proportion-enqueue-closed-queue": "the proportion / drf plugins are not implemented yet",
    "reclaim-closed-queue-proportion": "the proportion / drf plugins are not implemented yet",
    "reclaim-sort-by-queue-priority": "the proportion / drf plugins are not implemented yet",
}
