"""Statements: operations applied to the session at once, later committed or rolled back.

pkg/scheduler/framework/statement.go (spec actions-framework §5). Evict fires DeallocateFunc,
Pipeline and Allocate fire AllocateFunc, so queue quotas see every tentative step; Discard undoes
them newest first, and un-evicting always returns the task to Running (trap 19).
"""

from __future__ import annotations

from dataclasses import dataclass

from capacity.core.model import Node, Task, TaskStatus
from capacity.framework.session import Session

EVICT = "evict"
PIPELINE = "pipeline"
ALLOCATE = "allocate"


@dataclass(slots=True)
class Operation:
    name: str
    task: Task
    reason: str = ""


class Statement:
    """A list of operations already applied to the session."""

    __slots__ = ("ssn", "operations")

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.operations: list[Operation] = []

    def evict(self, task: Task, reason: str) -> None:
        ssn = self.ssn
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, TaskStatus.RELEASING)
        node = ssn.nodes.get(task.node_name)
        if node is not None:
            node.update_task(task)
        ssn.fire_deallocate(task)
        self.operations.append(Operation(EVICT, task, reason))
        ssn.trace.event("tentativeEvict", task.key, reason, node=task.node_name)

    def _unevict(self, task: Task) -> None:
        ssn = self.ssn
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, TaskStatus.RUNNING)
        node = ssn.nodes.get(task.node_name)
        if node is not None:
            node.update_task(task)
        ssn.fire_allocate(task)

    def pipeline(self, task: Task, node_name: str, eviction_occurred: bool) -> None:
        ssn = self.ssn
        job = ssn.jobs[task.job]
        job.update_task_status(task, TaskStatus.PIPELINED)
        task.node_name = node_name
        task.eviction_occurred = eviction_occurred
        ssn.nodes[node_name].add_task(task)
        ssn.fire_allocate(task)
        self.operations.append(Operation(PIPELINE, task))
        if ssn.trace.enabled:
            ssn.trace.event("pipeline", task.key, node_name, job=task.job, evictionOccurred=eviction_occurred)

    def _unpipeline(self, task: Task) -> None:
        self.ssn.return_to_pending(task)

    def allocate(self, task: Task, node: Node) -> None:
        ssn = self.ssn
        job = ssn.jobs[task.job]
        job.update_task_status(task, TaskStatus.ALLOCATED)
        task.node_name = node.name
        node.add_task(task)
        ssn.fire_allocate(task)
        self.operations.append(Operation(ALLOCATE, task))
        if ssn.trace.enabled:
            ssn.trace.event_with("allocate", task.key, node.name, {"job": task.job})

    def _unallocate(self, task: Task) -> None:
        self.ssn.return_to_pending(task)

    def discard(self) -> None:
        """Undo every operation, newest first, remembering the last transaction on each task."""
        ssn = self.ssn
        for op in reversed(self.operations):
            op.task.last_transaction = (
                {EVICT: TaskStatus.RELEASING, PIPELINE: TaskStatus.PIPELINED,
                 ALLOCATE: TaskStatus.ALLOCATED}[op.name], op.task.node_name)
            if op.name == EVICT:
                self._unevict(op.task)
            elif op.name == PIPELINE:
                self._unpipeline(op.task)
            else:
                self._unallocate(op.task)
            ssn.trace.event("discard", op.task.key, op.name)
        self.operations = []

    def commit(self) -> None:
        ssn = self.ssn
        for op in self.operations:
            op.task.last_transaction = None
            if op.name == EVICT:
                ssn.record_eviction(op.task, op.reason)
            elif op.name == ALLOCATE:
                ssn.dispatch(op.task)
        self.operations = []

    def merge(self, other: Statement) -> None:
        self.operations.extend(other.operations)
        other.operations = []
