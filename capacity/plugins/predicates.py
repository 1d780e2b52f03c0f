"""predicates: the node filters Volcano runs (spec actions-framework §8.1, §9.4).

No cpu/memory fit here: Volcano's actions check resources on their own accounting. What this
plugin adds is the pod-count check against the Kubernetes mirror (Unschedulable), the stable filters
(unschedulable node, nodeSelector / required node affinity, taints: UnschedulableAndUnresolvable)
and required inter-pod (anti-)affinity. Its event handlers keep the mirror current in the session.
The same filters for many nodes at once: capacity.accel.predicates_vector.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter
from typing import Any

from capacity.core.model import Job, Node, PodSpec, Task
from capacity.core.quantity import go_atoi
from capacity.framework.session import UNRESOLVABLE, UNSCHEDULABLE, EventHandler, FitError, Session
from capacity.plugins.base import Plugin


def match_expression(labels: dict[str, str], expr: dict[str, Any]) -> bool:
    key = expr.get("key", "")
    op = expr.get("operator", "")
    values = [str(v) for v in expr.get("values") or []]
    has = key in labels
    if op == "In":
        return has and labels[key] in values
    if op == "NotIn":
        return not has or labels[key] not in values
    if op == "Exists":
        return has
    if op == "DoesNotExist":
        return not has
    if op in ("Gt", "Lt") and has and values:
        # Kubernetes reads both with strconv.ParseInt(s, 10, 64) (nodeaffinity / labels selector): ASCII digits
        # within int64 only, where Python's int() also takes '٣', '1_000' and ' 5 '.
        lv, rv = go_atoi(labels[key]), go_atoi(values[0])
        if lv is None or rv is None:
            return False
        return lv > rv if op == "Gt" else lv < rv
    return False


def label_selector_matches(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    if selector is None:
        return False
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != str(v):
            return False
    return all(match_expression(labels, e) for e in selector.get("matchExpressions") or [])


def spec_matches_node(spec: PodSpec, node: Node) -> bool:
    for k, v in spec.node_selector.items():
        if node.labels.get(k) != v:
            return False
    aff = (spec.affinity or {}).get("nodeAffinity") or {}
    required = aff.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not required:
        return True
    terms = required.get("nodeSelectorTerms") or []
    fields = {"metadata.name": node.name}
    for term in terms:
        exprs = term.get("matchExpressions") or []
        fexprs = term.get("matchFields") or []
        if not exprs and not fexprs:
            continue
        if all(match_expression(node.labels, e) for e in exprs) and all(
                match_expression(fields, e) for e in fexprs):
            return True
    return False


def tolerates(tolerations: list[dict[str, Any]], taint: dict[str, Any]) -> bool:
    for tol in tolerations:
        effect = tol.get("effect", "")
        if effect and effect != taint.get("effect"):
            continue
        op = tol.get("operator", "Equal")
        if not tol.get("key"):
            if op == "Exists":
                return True
            continue
        if tol.get("key") != taint.get("key"):
            continue
        if op == "Exists" or str(tol.get("value", "")) == str(taint.get("value", "")):
            return True
    return False


UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def static_reason(spec: PodSpec, node: Node) -> str | None:
    """The filters that only read the pod spec and the node (UnschedulableAndUnresolvable): the first
    failing one's reason, or None. Node labels, taints and cordons do not change within a session."""
    if node.unschedulable and not tolerates(spec.tolerations, UNSCHEDULABLE_TAINT):
        return "node(s) were unschedulable"
    if not spec_matches_node(spec, node):
        return "node(s) didn't match Pod's node affinity/selector"
    for taint in node.taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(spec.tolerations, taint):
            return f"node(s) had untolerated taint {{{taint.get('key')}: {taint.get('value', '')}}}"
    return None


_AFFINITY = attrgetter("spec.affinity")


def _names_pod_affinity(tasks: Iterable[Task]) -> bool:
    return any("podAntiAffinity" in a or "podAffinity" in a for a in filter(None, map(_AFFINITY, tasks)))


def _job_names_pod_affinity(job: Job) -> bool:
    got = job.pod_affinity
    if got is None:
        got = job.pod_affinity = _names_pod_affinity(job.tasks.values())
    return got


class PredicatesPlugin(Plugin):
    name = "predicates"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        ssn.add_fn("predicate", self.name, self.predicate)
        ssn.add_fn("prePredicate", self.name, lambda task: None)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))
        # Whether any pod this session can see names a pod (anti-)affinity: else `_inter_pod_affinity` has
        # nothing to check (it reads the pending pod's terms and the placed pods' anti-affinity; a job's
        # task may be placed during the session). Node affinities do not count. Every pod a mirror can hold
        # this session is a loose one on a node or a task of a session job; a job keeps its answer while it
        # keeps its tasks (Job.pod_affinity).
        self._affinity_in_play = _names_pod_affinity(ssn.loose) or any(map(_job_names_pod_affinity,
                                                                            ssn.jobs.values()))

    def _on_allocate(self, task: Task) -> None:
        node = self.ssn.nodes.get(task.node_name)
        if node is not None:
            node.mirror[task.key] = task
            node.mark_touched()

    def _on_deallocate(self, task: Task) -> None:
        node = self.ssn.nodes.get(task.node_name)
        if node is not None:
            node.mirror.pop(task.key, None)
            node.mark_touched()

    def predicate(self, task: Task, node: Node) -> FitError | None:
        reasons: list[str] = []
        code = ""
        if node.max_task_num() <= len(node.mirror):
            reasons.append("Too many pods")
            code = UNSCHEDULABLE
        static = static_reason(task.spec, node)
        if static is not None:
            return FitError(node.name, UNRESOLVABLE, reasons + [static])
        if self._affinity_in_play:
            err = self._inter_pod_affinity(task, node)
            if err is not None:
                if err[0] == UNRESOLVABLE:
                    return FitError(node.name, UNRESOLVABLE, reasons + [err[1]])
                reasons.append(err[1])
                code = UNSCHEDULABLE
        if reasons:
            return FitError(node.name, code, reasons)
        return None

    def _pods_in_domain(self, node: Node, key: str) -> list[Task]:
        if key == "kubernetes.io/hostname" and node.labels.get(key, node.name) == node.name:
            return list(node.mirror.values())
        value = node.labels.get(key)
        if value is None:
            return []
        return [t for n in self.ssn.node_list if n.labels.get(key) == value for t in n.mirror.values()]

    @staticmethod
    def _term_matches(term: dict[str, Any], owner: Task, other: Task) -> bool:
        namespaces = term.get("namespaces") or [owner.namespace]
        return other.namespace in namespaces and label_selector_matches(term.get("labelSelector"),
                                                                        other.spec.labels)

    def _inter_pod_affinity(self, task: Task, node: Node) -> tuple[str, str] | None:
        aff = task.spec.affinity or {}
        anti = (aff.get("podAntiAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or []
        for term in anti:
            for other in self._pods_in_domain(node, term.get("topologyKey", "")):
                if other.uid != task.uid and self._term_matches(term, task, other):
                    return UNSCHEDULABLE, "node(s) didn't match pod anti-affinity rules"
        for n in self.ssn.node_list:
            for other in n.mirror.values():
                oaff = (other.spec.affinity or {}).get("podAntiAffinity") or {}
                for term in oaff.get("requiredDuringSchedulingIgnoredDuringExecution") or []:
                    key = term.get("topologyKey", "")
                    if n.labels.get(key, n.name if key == "kubernetes.io/hostname" else None) is None:
                        continue
                    same = (n is node) if key == "kubernetes.io/hostname" and key not in n.labels else \
                        n.labels.get(key) == node.labels.get(key)
                    if same and self._term_matches(term, other, task):
                        return UNSCHEDULABLE, "node(s) didn't satisfy existing pods anti-affinity rules"
        req = (aff.get("podAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or []
        for term in req:
            in_domain = any(self._term_matches(term, task, o) for o in
                            self._pods_in_domain(node, term.get("topologyKey", "")))
            if in_domain:
                continue
            anywhere = any(self._term_matches(term, task, o) for n in self.ssn.node_list
                           for o in n.mirror.values())
            if anywhere or not self._term_matches(term, task, task):
                return UNRESOLVABLE, "node(s) didn't match pod affinity rules"
        return None
