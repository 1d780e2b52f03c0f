"""Edits to a cluster as pure functions: each returns a new `Cluster` or raises `InputError`.

The dashboard's editors (queues, nodes, jobs, scheduler configuration) call these; so can a script.
An edit never mutates its input: it works on a deep copy, so a refused edit leaves nothing behind.

Validation is Volcano's, not a second rule book: an edit first checks what the API server or the
Volcano webhooks refuse outright (names, quantities, duplicates, unknown queues, deleting a queue that
still has children or jobs), then `checked` runs `capacity.analysis.lint.lint` on the result and compares it
with the lint of the input. A new **error** finding (webhook rejection, a queue cycle or self-parent,
a child's capability above its parent's, children's deserved or guarantee above the parent's, a job in
a non-leaf queue, ...) refuses the edit with that finding's object, field and reason; warnings are
returned with the new cluster, to show next to the object. Problems that were already in the input
do not block unrelated edits.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from capacity.analysis.lint import Finding, lint
from capacity.core.cluster import Cluster, NodeObj, PodGroupObj, PodObj
from capacity.core.conf import SWITCH_DEFAULTS, SchedulerConf, parse_conf
from capacity.core.errors import InputError
from capacity.core.model import QueueSpec
from capacity.core.resources import Resource, from_resource_list
from capacity.io.export import quantity

ROOT = "root"
QUEUE_STATES = ("Open", "Closed")
#: metadata.name of cluster-scoped and namespaced objects: an RFC 1123 DNS subdomain.
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
#: A namespace name: an RFC 1123 DNS label.
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
QUOTAS = ("capability", "deserved", "guarantee")
_QUOTA_FIELD = {"capability": "spec.capability", "deserved": "spec.deserved", "guarantee": "spec.guarantee.resource"}


@dataclass
class Edited:
    """A cluster after an accepted edit, with every lint finding it now has (warnings included)."""

    cluster: Cluster
    findings: list[Finding] = field(default_factory=list)

    def about(self, obj: str) -> list[Finding]:
        return [f for f in self.findings if f.obj == obj]


# ---- validation -----------------------------------------------------------------------------------
def check_name(name: str, obj: str, *, label: bool = False) -> str:
    """metadata.name as the API server checks it (lowercase letters, digits, '-', '.'; 253 characters)."""
    name = (name or "").strip()
    limit = 63 if label else 253
    pattern = _DNS_LABEL if label else _DNS_SUBDOMAIN
    what = "a DNS label" if label else "a DNS subdomain"
    chars = "'-'" if label else "'-' and '.'"
    fld = "metadata.name"
    if not name:
        raise InputError(obj, fld, "is empty; give a name")
    if len(name) > limit or not pattern.fullmatch(name):
        raise InputError(obj, fld, f"{name!r} is not {what}: lowercase letters, digits and {chars} only, "
                         f"starting and ending with a letter or digit, at most {limit} characters; the API "
                         "server rejects it")
    return name


def parse_resources(values: Mapping[str, Any] | None, obj: str, fld: str) -> Resource | None:
    """Quantity strings ("4", "500m", "8Gi") per resource name -> a Resource; blank entries are left out.

    None when nothing is left (the field is unset). Errors name the object and `fld.<resource>`.
    """
    if values is None:
        return None
    given = {str(k).strip(): v.strip() if isinstance(v, str) else v for k, v in values.items()}
    given = {k: v for k, v in given.items() if k and v not in ("", None)}
    if not given:
        return None
    return from_resource_list(given, obj=obj, field=fld)


def resource_strings(r: Resource | None, names: Iterable[str] = ()) -> dict[str, str]:
    """A Resource as quantity strings per name for a form: the names asked for ("" if unset), then any other."""
    out = dict.fromkeys(names, "")
    if r is None:
        return out
    if r.cpu > 0:
        out["cpu"] = quantity("cpu", r.cpu)
    if r.memory > 0:
        out["memory"] = quantity("memory", r.memory)
    for k, v in sorted((r.scalars or {}).items()):
        if k != "pods" or "pods" in out:
            out[k] = quantity(k, v)
    return out


def _key(f: Finding) -> tuple[str, str, str]:
    return f.rule, f.obj, f.field


class RefusedEdit(InputError):
    """An edit refused for a lint error, with a fix the user can apply in one click when one is known."""

    def __init__(self, obj: str, field: str, message: str, fix: SiblingFix | None = None) -> None:
        super().__init__(obj, field, message)
        self.fix = fix


#: The changes the Volcano release being edited for lacks: its queue webhook's rules check the edit.
_LACKING: ContextVar[frozenset[str]] = ContextVar("edit_release_lacking", default=frozenset())


@contextmanager
def on_release(lacking: frozenset[str]) -> Iterator[None]:
    """Check the edits made inside as the release lacking `lacking` would (the dashboard's chosen version)."""
    token = _LACKING.set(frozenset(lacking))
    try:
        yield
    finally:
        _LACKING.reset(token)


def checked(before: Cluster, after: Cluster) -> Edited:
    """Accept `after` unless it has an error finding `before` did not have; then raise with its reason.

    When the reason is children's deserved or guarantee adding up to more than their parent's, the message
    ends with the fix in numbers (lower a sibling, or raise the parent) and the error carries it (`fix`).
    """
    lacking = _LACKING.get()
    old = {_key(f) for f in lint(before, lacking) if f.severity == "error"}
    found = lint(after, lacking)
    for f in found:
        if f.severity == "error" and _key(f) not in old:
            fix = sibling_fix(before, after, f)
            hint = f" Fix: {fix.text}." if fix else ""
            raise RefusedEdit(f.obj, f.field, f"{f.message}. What Volcano does: {f.volcano_does} [{f.rule}]{hint}",
                              fix)
    return Edited(after, found)


# ---- a fix for children's quotas above their parent's ------------------------------------------------
_SIBLING_RULES = {"children-deserved-above-parent": "deserved", "webhook-children-deserved-above-parent": "deserved",
                  "children-guarantee-above-parent": "guarantee",
                  "webhook-children-guarantee-above-parent": "guarantee"}


@dataclass(frozen=True)
class SiblingFix:
    """Children's `quota` would add up to more than the parent's: the numbers, and the two ways out."""

    parent: str
    quota: str  # "deserved" or "guarantee"
    total: dict[str, str]  # the children's sum, on the dimensions that exceed the parent's
    parent_has: dict[str, str]
    raise_to: dict[str, str]  # the parent's quota raised to the children's sum (other dimensions kept)
    lower: str = ""  # a sibling that can give the excess up ("" if none can)
    lower_to: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        def say(values: dict[str, str]) -> str:
            return ", ".join(f"{k} {v}" for k, v in values.items())
        what = "deserved" if self.quota == "deserved" else "guarantees"
        head = f"siblings' {what} would add up to {say(self.total)} > {self.parent}'s {say(self.parent_has)}"
        ways = ([f"lower {self.lower}'s {self.quota} to {say(self.lower_to)}"] if self.lower else []) + \
            [f"raise {self.parent}'s {self.quota} to {say({n: self.raise_to[n] for n in self.total})}"]
        return f"{head}: {', or '.join(ways)}"


def _quota_of(q: QueueSpec, quota: str) -> Resource:
    """The quota the sums are made of: a queue's deserved counts at least its guarantee (lint does the same)."""
    from capacity.core.resources import res_max

    guarantee = q.guarantee or Resource.empty()
    return res_max(q.deserved or Resource.empty(), guarantee) if quota == "deserved" else guarantee


def sibling_fix(before: Cluster, after: Cluster, finding: Finding) -> SiblingFix | None:
    """The fix for a children-above-parent finding on `after`: the numbers and what to change, or None."""
    quota = _SIBLING_RULES.get(finding.rule)
    name = finding.obj.split("/", 1)[1] if finding.obj.startswith("Queue/") else ""
    if quota is None or name not in after.queues:
        return None
    parent = name if children(after, name) else (after.queues[name].parent or ROOT)
    kids = children(after, parent)
    pq = after.queues.get(parent)
    if pq is None or not kids:
        return None
    total = Resource.empty()
    for k in kids:
        total.add(_quota_of(after.queues[k], quota))
    mine = _quota_of(pq, quota)
    over = [n for n in _names(total) if total.get(n) > mine.get(n)]
    if not over:
        return None
    raise_to = resource_strings(getattr(pq, quota))
    raise_to.update({n: quantity(n, total.get(n)) for n in over})
    changed = {k for k in kids if k not in before.queues or _quotas_of(before.queues[k]) != _quotas_of(after.queues[k])}
    lower, lower_to = "", {}
    for k in sorted(set(kids) - changed, key=lambda k: (-_quota_of(after.queues[k], quota).get(over[0]), k)):
        q = after.queues[k]
        own = getattr(q, quota)
        floor = q.guarantee if quota == "deserved" and q.guarantee is not None else Resource.empty()
        if own is None:
            continue
        new = {n: own.get(n) - (total.get(n) - mine.get(n)) for n in over}
        if all(v >= floor.get(n) and v >= 0 for n, v in new.items()):
            lower, lower_to = k, {n: quantity(n, v) for n, v in new.items()}
            break
    return SiblingFix(parent, quota, {n: quantity(n, total.get(n)) for n in over},
                      {n: quantity(n, mine.get(n)) for n in over}, raise_to, lower, lower_to)


def _quotas_of(q: QueueSpec) -> tuple[Any, ...]:
    return q.parent, *(resource_strings(getattr(q, label)) for label in QUOTAS)


def _names(r: Resource) -> list[str]:
    return [n for n in ("cpu", "memory") if r.get(n) > 0] + sorted((r.scalars or {}).keys())


def with_parent_raised(cluster: Cluster, fix: SiblingFix, then: Any, *args: Any, **kwargs: Any) -> Edited:
    """Apply the fix's parent raise, then the edit that was refused (`then(cluster, *args, **kwargs)`).

    Both steps are validated as any edit is (the queue webhook's rules and lint's errors), so a raise the
    parent's own parent or capability does not allow is refused with its reason, and nothing changes.
    """
    raised = set_queue_resources(cluster, fix.parent, **{fix.quota: fix.raise_to})
    return then(raised.cluster, *args, **kwargs)


def _copy(cluster: Cluster) -> Cluster:
    return copy.deepcopy(cluster)


def _queue(cluster: Cluster, name: str) -> QueueSpec:
    q = cluster.queues.get(name)
    if q is None:
        raise InputError(f"Queue/{name}", "metadata.name", "no such queue")
    return q


def hierarchy_on(cluster: Cluster) -> bool:
    opt = cluster.conf.plugin("capacity")
    return bool(opt and opt.hierarchy)


def children(cluster: Cluster, name: str) -> list[str]:
    """The queues whose parent is `name` (a queue without spec.parent is root's child)."""
    return sorted(q.name for q in cluster.queues.values()
                  if q.name != ROOT and (q.parent or ROOT) == name and q.name != name)


def jobs_in(cluster: Cluster, queue: str) -> list[str]:
    return sorted(uid for uid, pg in cluster.podgroups.items() if pg.queue == queue)


# ---- queues ---------------------------------------------------------------------------------------
def add_queue(cluster: Cluster, name: str, parent: str | None = None, *, weight: int = 1, priority: int = 0,
              reclaimable: bool = True, state: str = "Open", capability: Mapping[str, Any] | None = None,
              deserved: Mapping[str, Any] | None = None, guarantee: Mapping[str, Any] | None = None) -> Edited:
    """A new queue. `parent` None: under root when capacity's hierarchy is on, else none."""
    obj = f"Queue/{(name or '').strip()}"
    name = check_name(name, obj)
    obj = f"Queue/{name}"
    if name in cluster.queues:
        raise InputError(obj, "metadata.name", "a queue with this name already exists")
    if parent is None:
        parent = ROOT if hierarchy_on(cluster) and name != ROOT else ""
    _check_parent(cluster, name, parent)
    out = _copy(cluster)
    out.queues[name] = QueueSpec(name=name, parent=parent, creation="")
    return _finish_queue(cluster, out, name, weight=weight, priority=priority, reclaimable=reclaimable,
                         state=state, capability=capability, deserved=deserved, guarantee=guarantee)


def remove_queue(cluster: Cluster, name: str) -> Edited:
    """Delete a queue. Refused for root, `default`, a queue with child queues or with PodGroups."""
    obj = f"Queue/{name}"
    _queue(cluster, name)
    if name == ROOT:
        raise InputError(obj, "metadata.name", "the root queue cannot be deleted (Volcano recreates it; the "
                         "queue webhook refuses)")
    if name == "default":
        raise InputError(obj, "metadata.name", "the `default` queue cannot be deleted (the queue webhook refuses)")
    kids = children(cluster, name)
    if kids:
        raise InputError(obj, "metadata.name", f"it has child queues ({', '.join(kids)}); delete or re-parent "
                         "them first")
    jobs = jobs_in(cluster, name)
    if jobs:
        more = ", ..." if len(jobs) > 3 else ""
        raise InputError(obj, "metadata.name", f"it holds {len(jobs)} PodGroup(s) ({', '.join(jobs[:3])}{more}); "
                         "delete them or move them to another queue first")
    out = _copy(cluster)
    del out.queues[name]
    return checked(cluster, out)


def rename_queue(cluster: Cluster, old: str, new: str) -> Edited:
    """A queue under a new name, its child queues and PodGroups re-pointed to it.

    Kubernetes cannot rename an object: this is what deleting it and creating the new one, then editing
    every child's spec.parent and every PodGroup's spec.queue, would leave behind.
    """
    q = _queue(cluster, old)
    obj = f"Queue/{old}"
    if old == ROOT:
        raise InputError(obj, "metadata.name", "the root queue cannot be renamed")
    new = check_name(new, f"Queue/{(new or '').strip()}")
    if new == old:
        raise InputError(obj, "metadata.name", "the new name is the same as the old one")
    if new in cluster.queues:
        raise InputError(f"Queue/{new}", "metadata.name", "a queue with this name already exists")
    if new == ROOT:
        raise InputError(f"Queue/{new}", "metadata.name", "'root' is reserved for the top of the hierarchy")
    out = _copy(cluster)
    del out.queues[old]
    out.queues[new] = replace(copy.deepcopy(q), name=new)
    for other in out.queues.values():
        if other.parent == old:
            other.parent = new
    for pg in out.podgroups.values():
        if pg.queue == old:
            pg.queue = new
    return checked(cluster, out)


def _check_parent(cluster: Cluster, name: str, parent: str) -> None:
    obj = f"Queue/{name}"
    if not parent:
        return
    if parent == name:
        raise InputError(obj, "spec.parent", "a queue cannot be its own parent (the queue webhook refuses; "
                         "with hierarchy on the scheduler would recurse forever)")
    if parent != ROOT and parent not in cluster.queues:
        raise InputError(obj, "spec.parent", f"parent queue {parent!r} does not exist (the queue webhook refuses)")
    cur, seen = parent, [name]
    while cur and cur != ROOT and cur in cluster.queues:
        if cur in seen:
            loop = " -> ".join([*seen, cur])
            raise InputError(obj, "spec.parent", f"queue parents would form a cycle: {loop} (the queue webhook "
                             "refuses; with hierarchy on the scheduler would recurse forever)")
        seen.append(cur)
        cur = cluster.queues[cur].parent or ROOT


def set_queue_resources(cluster: Cluster, name: str, *, capability: Mapping[str, Any] | None = None,
                        deserved: Mapping[str, Any] | None = None,
                        guarantee: Mapping[str, Any] | None = None) -> Edited:
    """Replace capability / deserved / guarantee (a mapping of resource -> quantity; blank = unset).

    A quota passed as None is left as it is; an empty mapping (or all blanks) unsets it.
    """
    _queue(cluster, name)
    out = _copy(cluster)
    _set_quotas(out.queues[name], capability=capability, deserved=deserved, guarantee=guarantee)
    return checked(cluster, out)


def _set_quotas(q: QueueSpec, **quotas: Mapping[str, Any] | None) -> None:
    parsed = {label: parse_resources(values, f"Queue/{q.name}", _QUOTA_FIELD[label])
              for label, values in quotas.items() if values is not None}
    for label, r in parsed.items():
        setattr(q, label, r)


def _int_field(value: Any, obj: str, fld: str, low: int, high: int) -> int:
    text = str(value).strip()
    if isinstance(value, bool) or not re.fullmatch(r"[+-]?[0-9]{1,12}", text):
        raise InputError(obj, fld, f"must be a whole number, got {value!r}")
    n = int(text)
    if not low <= n <= high:
        raise InputError(obj, fld, f"must be between {low} and {high}, got {n}")
    return n


def _set_fields(q: QueueSpec, *, weight: Any, priority: Any, reclaimable: bool | None, state: str | None) -> None:
    obj = f"Queue/{q.name}"
    if weight is not None:
        q.weight = _int_field(weight, obj, "spec.weight", 1, 65535)
    if priority is not None:
        q.priority = _int_field(priority, obj, "spec.priority", 0, 2**31 - 1)
    if reclaimable is not None:
        q.reclaimable = bool(reclaimable)
    if state is not None and state != q.state:
        if state not in QUEUE_STATES:
            raise InputError(obj, "status.state", f"must be Open or Closed, got {state!r}")
        q.state = state


def _finish_queue(before: Cluster, out: Cluster, name: str, **values: Any) -> Edited:
    q = out.queues[name]
    _set_fields(q, weight=values["weight"], priority=values["priority"], reclaimable=values["reclaimable"],
                state=values["state"])
    _set_quotas(q, capability=values["capability"], deserved=values["deserved"], guarantee=values["guarantee"])
    return checked(before, out)


def update_queue(cluster: Cluster, name: str, *, parent: str | None = None, weight: Any = None,
                 priority: Any = None, reclaimable: bool | None = None, state: str | None = None,
                 capability: Mapping[str, Any] | None = None, deserved: Mapping[str, Any] | None = None,
                 guarantee: Mapping[str, Any] | None = None) -> Edited:
    """Every editable field of one queue at once (what the queue form submits), validated together."""
    _queue(cluster, name)
    out = _copy(cluster)
    q = out.queues[name]
    if parent is not None and name != ROOT:
        parent = parent.strip()
        if parent != (q.parent or ""):
            _check_parent(cluster, name, parent)
            q.parent = parent
    _set_fields(q, weight=weight, priority=priority, reclaimable=reclaimable, state=state)
    _set_quotas(q, capability=capability, deserved=deserved, guarantee=guarantee)
    return checked(cluster, out)


# ---- nodes ----------------------------------------------------------------------------------------
def _node_index(cluster: Cluster, name: str) -> int:
    for i, n in enumerate(cluster.nodes):
        if n.name == name:
            return i
    raise InputError(f"Node/{name}", "metadata.name", "no such node")


def _node_alloc(values: Mapping[str, Any], obj: str) -> Resource:
    r = parse_resources(values, obj, "status.allocatable")
    return r if r is not None else Resource.empty()


def _check_fits(cluster: Cluster, node: NodeObj) -> None:
    """A node cannot shrink below what its bound pods already use (the kubelet would evict them)."""
    used = Resource.empty()
    for pod in cluster.pods.values():
        if pod.node_name == node.name and pod.phase in ("Pending", "Running"):
            used.add(pod.resreq)
    short = [n for n in ("cpu", "memory") if used.get(n) > node.allocatable.get(n)]
    short += [k for k, v in sorted((used.scalars or {}).items()) if k != "pods" and v > node.allocatable.get(k)]
    if short:
        raise InputError(f"Node/{node.name}", f"status.allocatable.{short[0]}",
                         f"below what the pods bound to it already request ({', '.join(short)}); move or "
                         "delete those pods first")


def set_node(cluster: Cluster, name: str, *, allocatable: Mapping[str, Any] | None = None,
             unschedulable: bool | None = None, labels: Mapping[str, str] | None = None) -> Edited:
    """A node's allocatable (quantity strings per resource; pods defaults to 110), cordon, labels."""
    i = _node_index(cluster, name)
    obj = f"Node/{name}"
    out = _copy(cluster)
    node = out.nodes[i]
    if allocatable is not None:
        alloc = _node_alloc(_with_pods(allocatable), obj)
        node.allocatable = alloc
        _check_fits(out, node)
    if unschedulable is not None:
        node.unschedulable = bool(unschedulable)
    if labels is not None:
        node.labels = dict(labels)
    return checked(cluster, out)


def _with_pods(values: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(values)
    if not str(out.get("pods", "") or "").strip():
        out["pods"] = "110"
    return out


def add_node(cluster: Cluster, name: str, allocatable: Mapping[str, Any], labels: Mapping[str, str] | None = None,
             unschedulable: bool = False) -> Edited:
    obj = f"Node/{(name or '').strip()}"
    name = check_name(name, obj)
    obj = f"Node/{name}"
    if any(n.name == name for n in cluster.nodes):
        raise InputError(obj, "metadata.name", "a node with this name already exists")
    alloc = _node_alloc(_with_pods(allocatable), obj)
    out = _copy(cluster)
    out.nodes.append(NodeObj(name, dict(labels or {}), alloc, [], unschedulable, True))
    return checked(cluster, out)


def remove_node(cluster: Cluster, name: str) -> Edited:
    """Delete a node; refused while pods are bound to it."""
    i = _node_index(cluster, name)
    pods = sorted(k for k, p in cluster.pods.items() if p.node_name == name and p.phase in ("Pending", "Running"))
    if pods:
        more = ", ..." if len(pods) > 3 else ""
        raise InputError(f"Node/{name}", "metadata.name", f"{len(pods)} pod(s) are bound to it "
                         f"({', '.join(pods[:3])}{more}); they would be lost")
    out = _copy(cluster)
    del out.nodes[i]
    return checked(cluster, out)


# ---- jobs -----------------------------------------------------------------------------------------
def add_job(cluster: Cluster, podgroup: PodGroupObj, pods: Iterable[PodObj]) -> Edited:
    """Submit a PodGroup and its pods, as the vcjob / PodGroup webhooks would accept them."""
    return add_jobs(cluster, [(podgroup, list(pods))])


def add_jobs(cluster: Cluster, groups: Iterable[tuple[PodGroupObj, list[PodObj]]]) -> Edited:
    """Several jobs at once (e.g. from the seeded generator), refused as a whole if one is refused."""
    out = _copy(cluster)
    for podgroup, pods in groups:
        _insert_job(out, podgroup, pods)
    return checked(cluster, out)


def _insert_job(out: Cluster, podgroup: PodGroupObj, pods: Iterable[PodObj]) -> None:
    obj = f"PodGroup/{podgroup.uid}"
    if podgroup.uid in out.podgroups:
        raise InputError(obj, "metadata.name", "a PodGroup with this name already exists in the namespace")
    q = out.queues.get(podgroup.queue)
    if q is None:
        raise InputError(obj, "spec.queue", f"queue {podgroup.queue!r} does not exist (the job webhook refuses: "
                         "unable to find job queue)")
    if q.state != "Open":
        raise InputError(obj, "spec.queue", f"queue {podgroup.queue!r} is {q.state}; the job webhook only admits "
                         "jobs to an Open queue")
    kids = children(out, podgroup.queue)
    if hierarchy_on(out) and kids:
        raise InputError(obj, "spec.queue", f"queue {podgroup.queue!r} has child queues ({', '.join(kids)}); "
                         "jobs belong in leaf queues (the job webhook refuses)")
    out.podgroups[podgroup.uid] = copy.deepcopy(podgroup)
    for pod in pods:
        if pod.key in out.pods:
            raise InputError(f"Pod/{pod.key}", "metadata.name", "a pod with this name already exists in the "
                             "namespace")
        out.pods[pod.key] = copy.deepcopy(pod)


def remove_job(cluster: Cluster, uid: str) -> Edited:
    """Delete a PodGroup and its pods (bound ones free their node)."""
    pg = cluster.podgroups.get(uid)
    if pg is None:
        raise InputError(f"PodGroup/{uid}", "metadata.name", "no such PodGroup")
    out = _copy(cluster)
    del out.podgroups[uid]
    for key in [k for k, p in out.pods.items() if p.namespace == pg.namespace and p.group == pg.name]:
        del out.pods[key]
    return checked(cluster, out)


# ---- scheduler configuration -----------------------------------------------------------------------
def conf_text(conf: SchedulerConf) -> str:
    """The configuration as volcano-scheduler.conf text: actions, tiers (switches that differ from their
    default, arguments) and configurations. `parse_conf` of it gives the same configuration back."""
    tiers = []
    for tier in conf.tiers:
        plugins = []
        for opt in tier:
            entry: dict[str, Any] = {"name": opt.name}
            entry.update({k: v for k, v in opt.switches.items() if SWITCH_DEFAULTS.get(k) != v})
            if opt.arguments:
                entry["arguments"] = opt.arguments
            plugins.append(entry)
        tiers.append({"plugins": plugins})
    data: dict[str, Any] = {"actions": ", ".join(conf.actions), "tiers": tiers}
    if conf.configurations:
        data["configurations"] = [{"name": k, "arguments": v} for k, v in conf.configurations.items()]
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False)


def set_conf_text(cluster: Cluster, text: str) -> Edited:
    """Replace the scheduler configuration with `text` (volcano-scheduler.conf), refused where Volcano would."""
    where = "volcano-scheduler.conf"
    if not (text or "").strip():
        raise InputError(where, "", "is empty; Volcano would keep its previous configuration")
    conf = parse_conf(text, where=where)
    out = _copy(cluster)
    out.conf = conf
    return checked(cluster, out)


def set_actions(cluster: Cluster, actions: str) -> Edited:
    """The `actions` line ("enqueue, allocate, backfill, reclaim, preempt"), tiers kept."""
    data = yaml.safe_load(conf_text(cluster.conf))
    data["actions"] = actions
    return set_conf_text(cluster, yaml.safe_dump(data, sort_keys=False))


def set_hierarchy(cluster: Cluster, on: bool) -> Edited:
    """Switch capacity's enableHierarchy on or off (every capacity entry of the tiers)."""
    conf = copy.deepcopy(cluster.conf)
    entries = [opt for tier in conf.tiers for opt in tier if opt.name == "capacity"]
    if not entries:
        raise InputError("volcano-scheduler.conf", "tiers", "no capacity plugin is configured: hierarchical "
                         "queues are a capacity plugin feature (add `- name: capacity` to a tier)")
    for opt in entries:
        opt.switches["enableHierarchy"] = bool(on)
    return set_conf_text(cluster, conf_text(conf))
