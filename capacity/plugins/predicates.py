"""predicates: the node filters Volcano runs (spec actions-framework §8.1, §9.4).

No cpu/memory fit here: Volcano's actions check resources on their own accounting. What this
plugin adds is the pod-count check against the Kubernetes mirror (Unschedulable), the stable filters
(unschedulable node, nodeSelector / required node affinity, taints: UnschedulableAndUnresolvable)
and required inter-pod (anti-)affinity. Its event handlers keep the mirror current in the session.
"""

from __future__ import annotations

from typing import Any

from capacity.framework.session import UNRESOLVABLE, UNSCHEDULABLE, EventHandler, FitError, Session
from capacity.model import Node, Task
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
        try:
            lv, rv = int(labels[key]), int(values[0])
        except ValueError:
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


def node_affinity_matches(task: Task, node: Node) -> bool:
    for k, v in task.spec.node_selector.items():
        if node.labels.get(k) != v:
            return False
    aff = (task.spec.affinity or {}).get("nodeAffinity") or {}
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


class PredicatesPlugin(Plugin):
    name = "predicates"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        ssn.add_fn("predicate", self.name, self.predicate)
        ssn.add_fn("prePredicate", self.name, lambda task: None)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))
        self._affinity_in_play = any(
            t.spec.affinity and ("podAntiAffinity" in t.spec.affinity or "podAffinity" in t.spec.affinity)
            for node in ssn.node_list for t in node.mirror.values()) or any(
            t.spec.affinity for j in ssn.jobs.values() for t in j.tasks.values())

    def _on_allocate(self, task: Task) -> None:
        node = self.ssn.nodes.get(task.node_name)
        if node is not None:
            node.mirror[task.key] = task

    def _on_deallocate(self, task: Task) -> None:
        node = self.ssn.nodes.get(task.node_name)
        if node is not None:
            node.mirror.pop(task.key, None)

    def predicate(self, task: Task, node: Node) -> FitError | None:
        reasons: list[str] = []
        code = ""
        if node.max_task_num() <= len(node.mirror):
            reasons.append("Too many pods")
            code = UNSCHEDULABLE
        if node.unschedulable and not tolerates(task.spec.tolerations, {
                "key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}):
            return FitError(node.name, UNRESOLVABLE, reasons + ["node(s) were unschedulable"])
        if not node_affinity_matches(task, node):
            return FitError(node.name, UNRESOLVABLE, reasons + ["node(s) didn't match Pod's node affinity/selector"])
        for taint in node.taints:
            if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(task.spec.tolerations, taint):
                untolerated = f"node(s) had untolerated taint {{{taint.get('key')}: {taint.get('value', '')}}}"
                return FitError(node.name, UNRESOLVABLE, reasons + [untolerated])
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
