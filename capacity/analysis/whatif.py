"""What would have to change for a pending job to run: changes Volcano would accept, each proven by re-running.

Candidates come from the numbers the job is short of: the capability, deserved or guarantee of its queue
and of the queue's ancestors (with proportion also the queue's weight), room on a node (removing running
pods of other jobs) and room in the cluster (one more node like an existing one). A PodGroup that enqueue
refused (phase Pending) is searched the same way, with its minResources as what it needs: a Volcano Job
has no pods before its PodGroup is Inqueue, so for such a job success means admitted.

Every queue change is first put to Volcano's queue admission webhook (capacity.core.webhook) as the UPDATE a
user would apply. When the webhook refuses it, the search adds the raises the refusal asks for (the
parent's deserved to the children's sum, an ancestor's capability, ...) and tries the combined change;
when no raise can satisfy it (root is protected, a field error) the change is reported as refused, with
Volcano's message. Removing pods never touches the job itself and never takes a gang below minMember.

Each change is applied to a copy of the cluster and cycles are run, up to `cycles + EXTRA_CYCLES`, until
the pod binds (a pipelined pod is not placed: it only holds a promise of room). Nothing is guessed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from capacity.core.cluster import Cluster, NodeObj
from capacity.core.errors import InputError
from capacity.core.model import QueueSpec
from capacity.core.quantity import format_resource_value as _fmt  # the one quantity formatter
from capacity.core.resources import Resource
from capacity.core.trace import Trace
from capacity.core.webhook import ROOT, AdmissionError, Edit, same_resources, validate_update
from capacity.framework.session import SessionOptions
from capacity.scheduler import open_session, run_cycle

DIMS = ("cpu", "memory")
#: Cycles run beyond the ones asked for, to see a pipelined or freshly admitted pod bind.
EXTRA_CYCLES = 3
#: Rounds of "add what the webhook asks for" before a change is given up as refused.
REPAIR_ROUNDS = 8
PLACED_PHASES = ("Pending", "Running")


@dataclass
class Change:
    """One change Volcano would accept, what it costs relative to the cluster, and what re-running showed."""

    kind: str            # capability | deserved | guarantee | weight | combined | free-node | add-node
    target: str          # "Queue/team-a", "Node/n1", "Queue/team-a + Queue/team"
    description: str
    size: float          # the largest single change relative to the cluster's total of that dimension
    placed: list[str]    # the pods bound after the change (never pipelined ones)
    binds_in_cycle: int | None = None
    admitted_in_cycle: int | None = None
    size_explained: str = ""
    parts: list[str] = field(default_factory=list)  # a combined change: each queue's part
    webhook_asked: list[str] = field(default_factory=list)  # refusals that made the search add a part
    evicted: list[str] = field(default_factory=list)  # "ns/x (queue a)": pods the check run evicted on the way

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "description": self.description, "size": self.size,
                "sizeExplained": self.size_explained, "placed": self.placed, "bindsInCycle": self.binds_in_cycle,
                "admittedInCycle": self.admitted_in_cycle, "parts": self.parts, "webhookAsked": self.webhook_asked,
                "evicted": self.evicted}

    def render(self) -> str:
        if self.binds_in_cycle is not None:
            proof = f"binds in cycle {self.binds_in_cycle} ({', '.join(self.placed)})"
        else:
            proof = f"admitted (Inqueue) in cycle {self.admitted_in_cycle}; the job has no pods yet to bind"
        why = "".join(f"\n      (the webhook refuses less: {w})" for w in self.webhook_asked)
        if self.evicted:
            more = len(self.evicted) - 3
            shown = ", ".join(self.evicted[:3]) + (f" and {more} more" if more > 0 else "")
            proof += f"; it works only by evicting {shown} first"
        return f"{self.description}\n      {proof}; {self.size_explained}{why}"


@dataclass
class WhatIf:
    """The answer for one job (or one pod of it): nothing needed, the changes found, the ones Volcano refuses."""

    job: str
    pod: str | None
    cycles_run: int
    refused_by_enqueue: bool
    binds_without_change: int | None = None
    admitted_without_change: int | None = None
    changes: list[Change] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # "change: why the webhook refuses it"
    compat_only: list[str] = field(default_factory=list)  # changes that bind only through a seed's bug switch

    has_pending_pods: bool = True

    @property
    def none_needed(self) -> bool:
        return self.binds_without_change is not None or (
            self.admitted_without_change is not None and not self.has_pending_pods)

    def as_dict(self) -> dict[str, Any]:
        return {"job": self.job, "pod": self.pod, "cyclesRun": self.cycles_run,
                "refusedByEnqueue": self.refused_by_enqueue, "hasPendingPods": self.has_pending_pods,
                "noneNeeded": self.none_needed,
                "bindsWithoutChange": self.binds_without_change,
                "admittedWithoutChange": self.admitted_without_change,
                "changes": [c.as_dict() for c in self.changes], "refusedByWebhook": self.refused,
                "onlyWithCompatibilitySwitch": self.compat_only}

    def render_text(self) -> str:
        lines = [f"what would have to change (each change is one Volcano accepts, checked by running up to "
                 f"{self.cycles_run} cycles; a pipelined pod does not count):"]
        if not self.has_pending_pods and not self.refused_by_enqueue:
            lines.append(f"  nothing to change: {self.pod or self.job} has no pending pod")
            return "\n".join(lines)
        if self.binds_without_change is not None:
            lines.append(f"  none needed: it binds in cycle {self.binds_without_change} without changes")
            return "\n".join(lines)
        if self.none_needed:
            lines.append(f"  none needed: the job is admitted (Inqueue) in cycle {self.admitted_without_change} "
                         "without changes")
            return "\n".join(lines)
        if self.refused_by_enqueue:
            lines.append(f"  (PodGroup {self.job} is Pending: enqueue has not admitted it, so the search includes "
                         "its admission)")
        lines += [f"  - {c.render()}" for c in self.changes] or ["  no accepted change found"]
        if self.refused:
            lines.append("  refused by Volcano's queue admission webhook (not proposed):")
            lines += [f"    - {r}" for r in self.refused]
        if self.compat_only:
            lines.append("  bind only through a compatibility switch's old behaviour, not in Volcano HEAD "
                         "(not proposed):")
            lines += [f"    - {r}" for r in self.compat_only]
        return "\n".join(lines)


# ---- resources -------------------------------------------------------------------------------------
def _get(r: Resource | None, dim: str) -> float:
    if r is None:
        return 0.0
    return getattr(r, dim) if dim in DIMS else r.get(dim)


def _set(r: Resource | None, dim: str, value: float) -> Resource:
    out = r.clone() if r is not None else Resource.empty()
    if dim in DIMS:
        setattr(out, dim, value)
    else:
        out.set_scalar(dim, value)
    return out


def _pct(delta: float, total: float) -> str:
    return f"{100 * delta / total:.1f} %" if total > 0 else "n/a (the cluster has none)"


# ---- running ---------------------------------------------------------------------------------------
@dataclass
class _Outcome:
    bind_cycle: int | None
    placed: list[str]
    admitted_cycle: int | None
    evicted: list[str] = field(default_factory=list)  # "ns/x (queue a)", in the order the check run evicted them


def _run(cluster: Cluster, job_uid: str, targets: set[str], horizon: int,
         options: SessionOptions | None) -> _Outcome:
    """Run up to `horizon` cycles on a copy; stop at the first cycle a target pod binds."""
    trial = copy.deepcopy(cluster)
    placed: list[str] = []
    admitted = None
    pg = trial.podgroups.get(job_uid)
    if pg is not None and pg.phase not in ("Pending", ""):
        admitted = 0
    evicted: list[str] = []
    for i in range(1, horizon + 1):
        result = run_cycle(trial, Trace(enabled=False), options)
        evicted += [_victim(trial, k) for k in result.evicted]
        phase = result.podgroup_phases.get(job_uid)
        if admitted is None and phase is not None and phase != "Pending":
            admitted = i
        placed = sorted(k for k in result.binds if k in targets)
        if placed:
            return _Outcome(i, placed, admitted, evicted)
        if not targets and admitted is not None:
            return _Outcome(None, [], admitted, evicted)
    return _Outcome(None, [], admitted, evicted)


def _victim(c: Cluster, key: str) -> str:
    """'ns/x (queue a)': an evicted pod and the queue of its job, as the check run left them."""
    pod = c.pods.get(key)
    pg = c.podgroups.get(f"{pod.namespace}/{pod.group}") if pod is not None and pod.group else None
    return f"{key} (queue {pg.queue})" if pg is not None else key


def _success(out: _Outcome, targets: set[str]) -> bool:
    return bool(out.placed) if targets else out.admitted_cycle is not None


# ---- the search ------------------------------------------------------------------------------------
def what_would_change(cluster: Cluster, job_uid: str, cycles: int = 1,
                      options: SessionOptions | None = None, limit: int = 5) -> list[Change]:
    """The smallest changes Volcano accepts that let the job run, each verified by re-running; empty when
    none is needed (`what_if` tells that apart from none found)."""
    return what_if(cluster, job_uid, cycles, options, limit).changes


def what_if(cluster: Cluster, job_uid: str, cycles: int = 1, options: SessionOptions | None = None,
            limit: int = 5, pod: str | None = None) -> WhatIf:
    """The full answer: none needed (and when it binds), the accepted changes, the refused ones."""
    pg = cluster.podgroups.get(job_uid)
    if pg is None:
        raise InputError(f"PodGroup/{job_uid}", "", "no such PodGroup in the cluster")
    pending = [p for p in cluster.pods.values()
               if p.namespace == pg.namespace and p.group == pg.name and not p.node_name and p.phase == "Pending"]
    targets = {p.key for p in pending if pod is None or p.key == pod}
    horizon = cycles + EXTRA_CYCLES
    answer = WhatIf(job_uid, pod, horizon, pg.phase == "Pending")
    answer.has_pending_pods = bool(targets)
    if not targets and not answer.refused_by_enqueue:
        return answer  # nothing pending: nothing to change
    base = _run(cluster, job_uid, targets, horizon, options)
    if _success(base, targets):
        answer.binds_without_change = base.bind_cycle
        answer.admitted_without_change = base.admitted_cycle
        return answer
    need = Resource.empty()
    if answer.refused_by_enqueue and pg.min_resources is not None:
        need = pg.min_resources.clone()
    else:
        for p in pending:
            need.add(p.resreq)
    dims = [d for d in ("cpu", "memory", *sorted((need.scalars or {}).keys())) if d != "pods" and _get(need, d) > 0]
    ssn = open_session(cluster, options=options)
    total = ssn.total_resource
    candidates = _queue_candidates(cluster, ssn, pg.queue, need, dims) + _weight_candidates(cluster, ssn, pg.queue)
    ssn.release()  # (its reference cycles freed now, not by the next full collection)
    found: list[Change] = []
    for edits, weight in candidates:
        if weight is not None and any(c.kind == "weight" for c in found):
            continue  # a smaller weight already does it
        asked: list[str] = []
        trial, refusal = _admitted(cluster, edits, weight, pg.queue, asked, _lacking(options))
        if refusal is not None:
            text = f"{_describe_edits(cluster, edits, weight, pg.queue)}: {refusal}"
            if text not in answer.refused:
                answer.refused.append(text)
            continue
        out = _run(trial, job_uid, targets, horizon, options)
        if _success(out, targets):
            change = _queue_change(cluster, trial, edits, weight, total, out)
            change.webhook_asked = asked
            if _also_at_head(trial, job_uid, targets, horizon, options, change, answer):
                found.append(change)
    for kind, target, desc, size, size_text, apply in _node_candidates(cluster, pg, pending, dims, total):
        if kind == "add-node" and any(c.kind == "add-node" for c in found):
            continue  # fewer added nodes already do it
        trial = copy.deepcopy(cluster)
        apply(trial)
        out = _run(trial, job_uid, targets, horizon, options)
        if _success(out, targets):
            change = Change(kind, target, desc, size, out.placed, out.bind_cycle, out.admitted_cycle or None, size_text,
                            evicted=list(out.evicted))
            if _also_at_head(trial, job_uid, targets, horizon, options, change, answer):
                found.append(change)
    kept: list[Change] = []
    for c in sorted(found, key=lambda c: (len(c.parts), c.size, c.binds_in_cycle or 0, c.description)):
        mine = set(c.parts or [c.description])
        if not any(set(k.parts or [k.description]) <= mine for k in kept):
            kept.append(c)  # (a change that contains a smaller accepted one adds nothing)
    answer.changes = sorted(kept, key=lambda c: (c.size, c.binds_in_cycle or 0, c.description))[:limit]
    return answer


#: Switches that reproduce a since-fixed bug (seed 003's leaf-only check, seed 004's root defaults): a change
#: that works only through them would recreate the very bug a user may be debugging.
BUG_SWITCHES = ("leaf_only_allocatable", "seed004_root_init")


def _also_at_head(trial: Cluster, job_uid: str, targets: set[str], horizon: int, options: SessionOptions | None,
                  change: Change, answer: WhatIf) -> bool:
    """With a bug switch on, a change must also work in Volcano HEAD (all switches off); else it is noted."""
    # A switch the chosen Volcano release lacks is that release's behaviour, not a bug to avoid (capacity/versions).
    if options is None or not any(getattr(options, s) and not options.set_by_release(s) for s in BUG_SWITCHES):
        return True
    head = SessionOptions(legacy_namespace_fairshare=options.legacy_namespace_fairshare, lacking=options.lacking,
                          version=options.version)
    if _success(_run(trial, job_uid, targets, horizon, head), targets):
        return True
    on = ", ".join("--" + s.replace("_", "-").replace("seed004-root-init", "seed004-root")
                   for s in BUG_SWITCHES if getattr(options, s) and not options.set_by_release(s))
    answer.compat_only.append(f"{change.description}: works only with {on}; in Volcano HEAD it does not bind")
    return False


def _path(cluster: Cluster, leaf: str) -> list[str]:
    path = [leaf]
    q = cluster.queues.get(leaf)
    while q is not None and q.parent and q.parent in cluster.queues and q.parent not in path:
        path.append(q.parent)
        q = cluster.queues[q.parent]
    return path


def _queue_candidates(cluster: Cluster, ssn: Any, leaf: str, need: Resource,
                      dims: list[str]) -> list[tuple[list[Edit], int | None]]:
    """Raise the capability, deserved or guarantee of the queue or of an ancestor to what the job needs on top
    of what that queue holds (allocated, and for capability also admitted: inqueue); then each kind raised on
    every queue of the path at once. HEAD's webhook asks for an ancestor's raise itself (its repair); an
    older release's webhook accepts the child's raise alone, which its scheduler then still blocks at the
    ancestor, so the raise of the whole path must be a candidate of its own."""
    plugin = ssn.plugins.get("capacity") or ssn.plugins.get("proportion")
    attrs = getattr(plugin, "attrs", {}) or {}
    out: list[tuple[list[Edit], int | None]] = []
    if leaf not in cluster.queues:
        return out
    for name in _path(cluster, leaf):
        attr = attrs.get(name)
        allocated = attr.allocated if attr is not None else Resource.empty()
        inqueue = getattr(attr, "inqueue", None) or Resource.empty()
        spec = cluster.queues[name]
        for kind in ("capability", "deserved", "guarantee"):
            if kind != "capability" and name == ROOT:
                continue  # the scheduler overwrites root's deserved and guarantee every session
            current = getattr(spec, kind)
            if kind == "capability" and current is None:
                continue  # no capability: nothing to raise
            edits = []
            for d in dims:
                want = _get(allocated, d) + _get(need, d) + (_get(inqueue, d) if kind == "capability" else 0.0)
                have = _get(current, d)
                if kind == "capability" and d in DIMS and have <= 0:
                    continue  # cpu/memory 0 in a capability already means unlimited
                if have < want:
                    edits.append(Edit(name, kind, d, want))
            if edits:
                out.append((edits, None))
    for kind in ("capability", "deserved", "guarantee"):
        on_path = [e for edits, _ in out for e in edits if e.kind == kind]
        if len({e.queue for e in on_path}) > 1:
            out.append((on_path, None))
    return out


def _weight_candidates(cluster: Cluster, ssn: Any, leaf: str) -> list[tuple[list[Edit], int | None]]:
    """With proportion, a queue's share follows its weight: try twice and four times the weight."""
    if "proportion" not in ssn.plugins or leaf not in cluster.queues:
        return []
    w = max(cluster.queues[leaf].weight, 1)
    return [([], w * k) for k in (2, 4) if w * k <= 65535]


def _apply(q: QueueSpec, edits: list[Edit]) -> QueueSpec:
    new = copy.deepcopy(q)
    for e in edits:
        if e.queue == q.name:
            current = getattr(new, e.kind)
            if _get(current, e.dim) < e.value:
                setattr(new, e.kind, _set(current, e.dim, e.value))
    return new


def _depth(cluster: Cluster, name: str) -> int:
    return len(_path(cluster, name))


def _lacking(options: SessionOptions | None) -> frozenset[str]:
    """The switches the chosen Volcano release lacks: its queue webhook is the one that judges a change."""
    return options.lacking if options is not None else frozenset()


def _admitted(cluster: Cluster, edits: list[Edit], weight: int | None, leaf: str,
              asked: list[str] | None = None, lacking: frozenset[str] = frozenset()) -> tuple[Cluster, str | None]:
    """Apply the edits as the UPDATEs a user would send, ancestors first; when the webhook refuses one, add
    the raises it asks for (its refusals go to `asked`) and start again. Returns the changed copy, or why it
    cannot be done. `lacking`: the chosen release's missing switches (its webhook rules, core.webhook_releases)."""
    edits = list(edits)
    asked = asked if asked is not None else []
    for _ in range(REPAIR_ROUNDS):
        trial = copy.deepcopy(cluster)
        errors: list[AdmissionError] = []
        names = sorted({e.queue for e in edits}, key=lambda n: (_depth(cluster, n), n))
        for name in names:
            old = trial.queues[name]
            new = _apply(old, edits)
            errors = validate_update(old, new, trial, lacking)
            if errors:
                break
            trial.queues[name] = new
        if weight is not None and not errors:
            old = trial.queues[leaf]
            new = copy.deepcopy(old)
            new.weight = weight
            errors = validate_update(old, new, trial, lacking)
            if not errors:
                trial.queues[leaf] = new
        if not errors:
            return trial, None
        more = [r for e in errors for r in e.repair if not _covered(edits, r)]
        if not more:
            e = errors[0]
            return cluster, f"Queue/{e.queue}: {e.message}"
        asked += [f"Queue/{e.queue}: {e.message}" for e in errors]
        edits += more
    return cluster, "the webhook keeps refusing after several raises"


def _covered(edits: list[Edit], r: Edit) -> bool:
    return any(e.queue == r.queue and e.kind == r.kind and e.dim == r.dim and e.value >= r.value for e in edits)


def _describe_edits(cluster: Cluster, edits: list[Edit], weight: int | None, leaf: str) -> str:
    parts = []
    # parents first: the order to apply them in (the webhook checks a child against its parent)
    for name in sorted({e.queue for e in edits}, key=lambda n: (_depth(cluster, n), n)):
        q = cluster.queues[name]
        for kind in ("capability", "deserved", "guarantee"):
            mine = [e for e in edits if e.queue == name and e.kind == kind]
            best: dict[str, float] = {}
            for e in mine:
                best[e.dim] = max(best.get(e.dim, 0.0), e.value)
            if best:
                parts.append(f"raise {kind} of queue {name}: " + ", ".join(
                    f"{d} {_fmt(d, _get(getattr(q, kind), d))} -> {_fmt(d, v)}" for d, v in best.items()))
    if weight is not None:
        parts.append(f"raise weight of queue {leaf}: {cluster.queues[leaf].weight} -> {weight}")
    return " + ".join(parts)


def _differs(a: QueueSpec, b: QueueSpec) -> bool:
    return a.weight != b.weight or any(not same_resources(getattr(a, k), getattr(b, k))
                                       for k in ("capability", "deserved", "guarantee"))


def _queue_change(cluster: Cluster, trial: Cluster, edits: list[Edit], weight: int | None, total: Resource,
                  out: _Outcome) -> Change:
    """The accepted change as the user would apply it: every queue whose spec differs in `trial`."""
    changed = [n for n in cluster.queues if _differs(cluster.queues[n], trial.queues[n])]
    changed.sort(key=lambda n: (_depth(cluster, n), n))  # parents first: the order to apply them in
    parts: list[str] = []
    size, size_text = 0.0, ""
    for name in changed:
        before, after = cluster.queues[name], trial.queues[name]
        for kind in ("capability", "deserved", "guarantee"):
            a, b = getattr(before, kind), getattr(after, kind)
            dims = sorted({*(d for d in DIMS if _get(a, d) != _get(b, d)),
                           *(k for k in (b.scalars or {}) if b is not None and _get(a, k) != _get(b, k))}) if b else []
            if not dims:
                continue
            parts.append(f"raise {kind} of queue {name}: " + ", ".join(
                f"{d} {_fmt(d, _get(a, d))} -> {_fmt(d, _get(b, d))}" for d in dims))
            for d in dims:
                delta = _get(b, d) - _get(a, d)
                t = _get(total, d)
                rel = delta / t if t > 0 else float("inf")
                if rel > size or not size_text:
                    size, size_text = rel, (f"largest change relative to the cluster's total {d} "
                                            f"({_fmt(d, t)}): {d} +{_fmt(d, delta)} = {_pct(delta, t)}")
        if before.weight != after.weight:
            parts.append(f"raise weight of queue {name}: {before.weight} -> {after.weight}")
            if not size_text:
                size_text = "a weight changes no resource total (size 0)"
    kinds = {p.split(" of ")[0].removeprefix("raise ") for p in parts}
    kind = kinds.pop() if len(kinds) == 1 and len(changed) == 1 else "combined"
    target = " + ".join(f"Queue/{n}" for n in changed)
    description = " + ".join(parts)
    return Change(kind, target, description, size if size != float("inf") else 1e9, out.placed, out.bind_cycle,
                  out.admitted_cycle or None, size_text, parts if len(parts) > 1 else [], evicted=list(out.evicted))


def _node_candidates(cluster: Cluster, pg: Any, pending: list[Any], dims: list[str],
                     total: Resource) -> list[tuple[str, str, str, float, str, Callable[[Cluster], None]]]:
    """Room on a node: remove running pods of other jobs (lowest priority first), never the job's own pods
    and never one whose gang would drop below minMember; or one more node like the largest one."""
    out: list[tuple[str, str, str, float, str, Callable[[Cluster], None]]] = []
    job = f"{pg.namespace}/{pg.name}"
    largest = max(pending, key=lambda p: tuple(_get(p.resreq, d) for d in dims)) if pending else None
    want = largest.resreq if largest is not None else pg.min_resources
    if want is None or not dims:
        return out
    placed_per_job: dict[str, int] = {}
    for p in cluster.pods.values():
        if p.group and p.node_name and p.phase in PLACED_PHASES and not p.deleting:
            uid = f"{p.namespace}/{p.group}"
            placed_per_job[uid] = placed_per_job.get(uid, 0) + 1
    for node in cluster.nodes:
        on_node = [p for p in cluster.pods.values() if p.node_name == node.name and p.phase in PLACED_PHASES]
        free = node.allocatable.clone()
        for p in on_node:
            free.sub_without_assert(p.resreq)
        if all(_get(free, d) >= _get(want, d) for d in dims):
            continue  # room is not what is missing here
        removable = sorted((p for p in on_node if f"{p.namespace}/{p.group}" != job and not p.deleting),
                           key=lambda p: (p.priority, p.key))
        left = dict(placed_per_job)
        chosen = []
        for p in removable:
            if all(_get(free, d) >= _get(want, d) for d in dims):
                break
            uid = f"{p.namespace}/{p.group}"
            owner = cluster.podgroups.get(uid)
            if p.group and owner is not None and left.get(uid, 0) - 1 < owner.min_member:
                continue  # its gang would fall below minMember
            chosen.append(p.key)
            left[uid] = left.get(uid, 0) - 1
            free.add(p.resreq)
        if not chosen or not all(_get(free, d) >= _get(want, d) for d in dims):
            continue
        freed = Resource.empty()
        for k in chosen:
            freed.add(cluster.pods[k].resreq)
        size, size_text = _relative(freed, dims, total, "removes running work of")

        def apply(c: Cluster, chosen: list = chosen) -> None:
            for k in chosen:
                c.pods.pop(k, None)

        out.append(("free-node", f"Node/{node.name}", f"free node {node.name} by removing {', '.join(chosen)}",
                    size, size_text, apply))
    if cluster.nodes:
        model = max(cluster.nodes, key=lambda n: tuple(_get(n.allocatable, d) for d in dims))
        # a pod must fit one node; a job waiting for admission needs room in the cluster as a whole
        counts = (1,) if largest is not None else (1, 2, 3)
        if largest is None or all(_get(model.allocatable, d) >= _get(want, d) for d in dims):
            for n in counts:
                added = Resource.empty()
                for _ in range(n):
                    added.add(model.allocatable)
                size, size_text = _relative(added, dims, total, "adds")
                names = [f"{model.name}-copy{i + 1 if n > 1 else ''}" for i in range(n)]

                def add(c: Cluster, model: NodeObj = model, names: list = names) -> None:
                    for name in names:
                        c.nodes.append(NodeObj(name, dict(model.labels), model.allocatable.clone(),
                                               list(model.taints)))

                what = "one more node" if n == 1 else f"{n} more nodes"
                spec = ", ".join(f"{d} {_fmt(d, _get(model.allocatable, d))}" for d in dims)
                desc = f"add {what} like {model.name} ({spec}{' each' if n > 1 else ''})"
                out.append(("add-node", " + ".join(f"Node/{x}" for x in names), desc, size, size_text, add))
    return out


def _relative(r: Resource, dims: list[str], total: Resource, verb: str) -> tuple[float, str]:
    rels = [(_get(r, d) / _get(total, d) if _get(total, d) > 0 else 0.0, d) for d in dims]
    size, dim = max(rels)
    return size, (f"{verb} {', '.join(f'{d} {_fmt(d, _get(r, d))}' for d in dims)}: largest relative to the "
                  f"cluster's total {dim} ({_fmt(dim, _get(total, dim))}) = {_pct(_get(r, dim), _get(total, dim))}")


__all__ = ["EXTRA_CYCLES", "ROOT", "Change", "WhatIf", "what_if", "what_would_change"]


def webhook_fix(cluster: Cluster, repair: tuple[Edit, ...] | list[Edit], lacking: frozenset[str] = frozenset()) -> str:
    """A webhook refusal's fix checked end to end: apply its raises as the UPDATEs a user would send (parents
    first), add what the webhook asks for next (a parent's guarantee needs a deserved at least as large, ...)
    until it accepts them all; the whole change in words, or "" when it cannot be completed.

    5634: "raise org's guarantee to cpu 2" alone is refused again (a guarantee above its unset deserved);
    the full fix also raises org's deserved. `lacking`: the chosen release's missing switches (its webhook)."""
    if not repair:
        return ""
    trial, error = _admitted(cluster, list(repair), None, "", None, lacking)
    if error is not None:
        return ""
    changed = sorted((n for n in cluster.queues if _differs(cluster.queues[n], trial.queues[n])),
                     key=lambda n: (_depth(cluster, n), n))
    parts = []
    for name in changed:
        before, after = cluster.queues[name], trial.queues[name]
        for kind in ("deserved", "guarantee", "capability"):  # the order the webhook checks them in an update
            a, b = getattr(before, kind), getattr(after, kind)
            dims = [d for d in (*DIMS, *sorted((b.scalars or {}) if b is not None else {})) if b is not None
                    and _get(a, d) != _get(b, d)]
            if dims:
                parts.append(f"raise {kind} of queue {name}: " + ", ".join(
                    f"{d} {_fmt(d, _get(a, d))} -> {_fmt(d, _get(b, d))}" for d in dict.fromkeys(dims)))
    return " + ".join(parts)
