"""Volcano's queue admission webhook: which Queue objects the API server would refuse, in Volcano's words.

The scheduler never re-validates a queue, so a dump (or an edit made here) can hold a tree the webhook
rejects; Volcano's users never see such a tree. This module ports the validating webhook
(pkg/webhooks/admission/queues/validate/validate_queue.go @ed72c7c8, cited per rule as `vq.go:Lx-y`),
the mutating webhook's default for weight (mutate/mutate_queue.go:L134-141) and the Queue CRD's schema
bounds, as pure functions over `capacity.core.cluster.Cluster`:

* `validate_queue(queue, cluster)`: the queue CREATEd now, every other queue of the cluster present;
* `validate_update(old, new, cluster)`: an UPDATE, as the what-if search proposes one;
* `validate_cluster(cluster)`: every queue, with a parent's sum/capability error left out when a child
  already carries the same fact (the child is the queue the webhook refuses when created in order).

Comparisons are Volcano's: sums of children use `Resource.LessPartly(.., Zero)` on the parent's own
values, so a dimension the parent leaves unset is a limit of 0 (deserved and guarantee are lower bounds;
unset means 0); capability compares per dimension against the nearest ancestor that sets it (> 0).

The vocabulary (AdmissionError, Volcano's formatting, the lister) is in `capacity.core.webhook_base`; the
rules as older releases had them in `capacity.core.webhook_releases`, chosen by `lacking` (the switches of
`capacity.versions` the release does not have).

Known gap: a Resource keeps no trace of an explicit `cpu: 0` / `memory: 0`, so those read as unset here
(Volcano's `deserved[cpu] must be >= guarantee[cpu]` and `deserved <= capability` look at map keys).
"""

from __future__ import annotations

from collections.abc import Mapping

from capacity.core.cluster import Cluster, LoadWarning
from capacity.core.model import QueueSpec
from capacity.core.resources import ZERO, Resource
from capacity.core.webhook_base import (  # noqa: F401 - the webhook's public names stay importable here
    FIELDS,
    HIERARCHY_KEY,
    HIERARCHY_WEIGHTS_KEY,
    MAX_QUEUE_DEPTH,
    MAX_WEIGHT,
    REJECTS,
    RESOURCE_FIELDS,
    ROOT,
    RULES,
    AdmissionError,
    Edit,
    Lister,
    _ancestors,
    _children,
    _field,
    _invalid,
    _keys,
    _names,
    _qty,
    _res,
    _with_type,
    allocated_pods,
    go_string,
    over_dims,
    parent_index,
    response_message,
)

#: Switches whose older form of a rule lives in capacity.core.webhook_releases, by the check they change.
_OLD_QUANTITIES = frozenset({"pr4470", "pr4864-webhook", "pr4973-webhook"})
_OLD_PARENT = frozenset({"pr4033", "pr4697", "pr4973-webhook"})


# ---- validateQueue (vq.go:L132-145): fields of the queue itself ---------------------------------------
def _quantities(q: QueueSpec) -> list[AdmissionError]:
    """validateResourceQuantityOfQueue (vq.go:L227-293) and ValidateResourceQuantityValue."""
    out: list[AdmissionError] = []
    for kind in RESOURCE_FIELDS:
        r = getattr(q, kind)
        for dim in _keys(r):
            v = r.get(dim)
            path = f"spec.{'guarantee.resource' if kind == 'guarantee' else kind}.{dim}"
            if v < 0:
                out.append(AdmissionError(
                    q.name, _field(kind, dim), _invalid(path, _qty(dim, v), "must be greater than or equal to 0"),
                    "quantity-negative", f"set {_field(kind, dim)} to 0 or more", "vq.go:L230-247"))
            integer = dim == "pods" or ("/" in dim and not dim.startswith(("kubernetes.io/", "requests.")))
            if integer and dim != "pods" and v % 1000:
                out.append(AdmissionError(
                    q.name, _field(kind, dim), _invalid(path, _qty(dim, v), "must be an integer"),
                    "quantity-not-integer", f"use a whole number for {_field(kind, dim)}", "vq.go:L230-247"))
    g, d, cap = q.guarantee, q.deserved, q.capability
    d_keys = set(_keys(d))
    for dim in _keys(g):
        gv = g.get(dim) if g is not None else 0.0
        if dim not in d_keys:
            out.append(AdmissionError(
                q.name, _field("guarantee", dim),
                _invalid(f"spec.deserved.{dim}", "<nil>",
                         f"deserved[{dim}] must be >= guarantee[{dim}]={_qty(dim, gv)}"),
                "guarantee-without-deserved",
                f"set spec.deserved.{dim} to at least {_qty(dim, gv)} (the guarantee), or drop the guarantee",
                "vq.go:L249-257", (Edit(q.name, "deserved", dim, gv),)))
            continue
        dv = _res(d).get(dim)
        if dv < gv:
            out.append(AdmissionError(
                q.name, _field("guarantee", dim),
                _invalid(f"spec.deserved.{dim}", _qty(dim, dv),
                         f"deserved[{dim}]={_qty(dim, dv)} must be >= guarantee[{dim}]={_qty(dim, gv)}"),
                "guarantee-above-deserved",
                f"raise spec.deserved.{dim} to {_qty(dim, gv)} or lower spec.guarantee.resource.{dim} to "
                f"{_qty(dim, dv)}", "vq.go:L260-267", (Edit(q.name, "deserved", dim, gv),)))
    cap_keys = set(_keys(cap))
    for dim in _keys(d):
        if dim not in cap_keys:
            continue  # "If the capability is not configured considers that the capability is not restricted"
        dv, cv = _res(d).get(dim), _res(cap).get(dim)
        if dv > cv:
            out.append(AdmissionError(
                q.name, _field("deserved", dim),
                _invalid(f"spec.deserved.{dim}", _qty(dim, dv),
                         f"deserved[{dim}]={_qty(dim, dv)} must be <= capability[{dim}]={_qty(dim, cv)}"),
                "deserved-above-capability",
                f"raise spec.capability.{dim} to {_qty(dim, dv)} or lower spec.deserved.{dim} to {_qty(dim, cv)}",
                "vq.go:L271-290", (Edit(q.name, "capability", dim, dv),)))
    return out


def _state(q: QueueSpec) -> list[AdmissionError]:
    """validateStateOfQueue (vq.go:L205-224): empty, Open or Closed."""
    if q.state in ("", "Open", "Closed"):
        return []
    msg = _invalid("spec.state", q.state, "queue state must be in [Open Closed]")
    return [AdmissionError(q.name, "status.state", msg, "state-invalid", "set status.state to Open or Closed",
                           "vq.go:L205-224")]


def _weight(q: QueueSpec, create: bool) -> list[AdmissionError]:
    """The Queue CRD's spec.weight bounds (config/crd/volcano/bases/scheduling.volcano.sh_queues.yaml:L167-172),
    checked by the API server; on CREATE the mutating webhook first turns 0 into 1 (mutate_queue.go:L134-141)."""
    w = q.weight
    if 1 <= w <= MAX_WEIGHT or (w == 0 and create):
        return []
    bound = "greater than or equal to 1" if w < 1 else f"less than or equal to {MAX_WEIGHT}"
    return [AdmissionError(q.name, "spec.weight", f"spec.weight: Invalid value: {w}: spec.weight in body should be "
                           f"{bound}", "weight-out-of-range", f"set spec.weight between 1 and {MAX_WEIGHT}",
                           "scheduling.volcano.sh_queues.yaml:L167-172")]


def queue_weight(q: QueueSpec, create: bool = False, lacking: frozenset[str] = frozenset()) -> list[AdmissionError]:
    """Why the chosen release refuses the queue's spec.weight (lint asks this, never re-deriving the bounds):
    the CRD's bounds, or before PR #4208 (v1.12.0) the webhook's own weight > 0 check."""
    if "pr4208" in lacking:
        from capacity.core.webhook_releases import weight
        return weight(q, create)
    return _weight(q, create)


def _hierarchy_annotations(q: QueueSpec, queues: Mapping[str, QueueSpec]) -> list[AdmissionError]:
    """validateHierarchicalAttributes (vq.go:L147-203): the older annotation-based hierarchy."""
    path = q.annotations.get(HIERARCHY_KEY, "")
    weights = q.annotations.get(HIERARCHY_WEIGHTS_KEY, "")
    if not path and not weights:
        return []
    fld = "metadata.annotations"

    def err(value: str, detail: str, fix: str) -> list[AdmissionError]:
        msg = _invalid(fld, value, detail)
        return [AdmissionError(q.name, fld, msg, "hierarchy-annotation", fix, "vq.go:L147-203")]

    parts, ws = path.split("/"), weights.split("/")
    if len(parts) != len(ws):
        return err(path, f"{HIERARCHY_KEY} must have the same length with {HIERARCHY_WEIGHTS_KEY}",
                   f"give {HIERARCHY_KEY} and {HIERARCHY_WEIGHTS_KEY} the same number of /-separated parts")
    for w in ws:
        try:
            value = float(w)
        except ValueError:
            return err(weights, f'{w} in the {weights} is invalid number: strconv.ParseFloat: parsing "{w}": '
                       "invalid syntax", f"write every part of {HIERARCHY_WEIGHTS_KEY} as a number")
        if value <= 0:
            return err(weights, f"{w} in the {weights} must be larger than 0",
                       f"make every part of {HIERARCHY_WEIGHTS_KEY} larger than 0")
    for other in sorted(queues.values(), key=lambda o: o.name):
        theirs = other.annotations.get(HIERARCHY_KEY, "")
        if theirs and other.name != q.name and theirs.startswith(path + "/"):
            return err(path, f"{path} is not allowed to be in the sub path of {theirs} of queue {other.name}",
                       f"choose a {HIERARCHY_KEY} path that no other queue's path continues")
    return []


def validate_fields(q: QueueSpec, queues: Mapping[str, QueueSpec], create: bool = True,
                    lacking: frozenset[str] = frozenset()) -> list[AdmissionError]:
    """validateQueue (vq.go:L132-145), plus the CRD's weight bounds: every error, as Go aggregates them.
    `lacking`: the changes the chosen release does not have (capacity.core.webhook_releases)."""
    quantities = _quantities(q)
    if lacking & _OLD_QUANTITIES:
        from capacity.core.webhook_releases import quantities as older
        quantities = older(q, quantities, lacking)
    if "pr4208" in lacking:  # no CRD bounds yet: the webhook's own weight check (capacity.core.webhook_releases)
        from capacity.core.webhook_releases import weight
        return quantities + _state(q) + weight(q, create) + _hierarchy_annotations(q, queues)
    return quantities + _state(q) + _hierarchy_annotations(q, queues) + _weight(q, create)


# ---- validateHierarchicalQueue (vq.go:L373-408): the parent link ------------------------------------
def validate_parent(q: QueueSpec, cluster: Cluster, queues: Lister, pods: dict[str, int] | None = None,
                    lacking: frozenset[str] = frozenset()) -> list[AdmissionError]:
    """Self-parent, depth, a parent that exists and, for its first child, holds no allocated pods.

    `queues` is what the webhook's lister holds (the other queues; on UPDATE the old version of `q` too);
    `pods` the allocated pods per queue, when the caller counted them once for every queue.
    """
    parent = q.parent
    if not parent or parent == ROOT:
        return []
    if lacking & _OLD_PARENT:
        from capacity.core.webhook_releases import parent_link
        return parent_link(q, cluster, queues, pods, lacking)
    src = "vq.go:L373-408"
    if parent == q.name:
        return [AdmissionError(q.name, "spec.parent", f"queue {q.name} cannot use itself as parent", "self-parent",
                               "set spec.parent to another queue (or root)", src)]
    # validateQueueDepth (vq.go:L500-518)
    depth, cur, seen = 1, parent, set()
    while cur and cur != ROOT:
        depth += 1
        if depth > MAX_QUEUE_DEPTH or cur in seen:
            return [AdmissionError(
                q.name, "spec.parent", f"queue {q.name} exceeds the maximum allowed depth of {MAX_QUEUE_DEPTH}",
                "queue-too-deep", f"attach the queue at most {MAX_QUEUE_DEPTH} levels below root (or start the "
                "webhook with a larger --max-queue-depth)", "vq.go:L500-518")]
        seen.add(cur)
        pq = queues.get(cur)
        if pq is None:
            return [AdmissionError(
                q.name, "spec.parent", f"failed to get parent queue {cur} of queue {q.name}: "
                f'queue.scheduling.volcano.sh "{cur}" not found', "parent-missing",
                f"create queue {cur} first, or set spec.parent to an existing queue", "vq.go:L509-513")]
        cur = pq.parent
    if not _children(queues, parent):
        pods_held = pods.get(parent, 0) if pods is not None else allocated_pods(cluster).get(parent, 0)
        if pods_held:
            return [AdmissionError(
                q.name, "spec.parent", f"queue {parent} cannot be the parent queue of queue {q.name} because it "
                f"has allocated Pods: {pods_held}", "parent-has-pods",
                f"let the running jobs of queue {parent} finish (or move them to a leaf queue) before giving it a "
                "child queue", "vq.go:L393-403")]
    return []


# ---- validateHierarchicalQueueResources (vq.go:L520-681): quotas against parent and children ------------
def _nearest_ancestor_capability(queues: Lister, q: QueueSpec, dim: str) -> tuple[str, float] | None:
    """findNearestAncestorCapability (vq.go:L438-458): the closest ancestor whose capability sets dim > 0."""
    for pq in _ancestors(queues, q):
        if pq.capability is not None and pq.capability.get(dim) > 0:
            return pq.name, pq.capability.get(dim)
    return None


def _subtree_max_capability(queues: Lister, q: QueueSpec, dim: str, seen: set[str]) -> float:
    """findSubtreeMaxCapability (vq.go:L460-483): the queue's own capability if set, else its subtree's max."""
    if q.capability is not None and q.capability.get(dim) > 0:
        return q.capability.get(dim)
    seen = seen | {q.name}
    return max((_subtree_max_capability(queues, c, dim, seen) for c in _children(queues, q.name)
                if c.name not in seen), default=0.0)


def _sum_error(parent: QueueSpec, kids: list[QueueSpec], child_side: str | None) -> AdmissionError | None:
    """The running sums of validateSiblingsSum (vq.go:L589-627, `child_side` = the queue validated, added
    last) and validateChildrenConstraints (vq.go:L662-678): after each child its guarantee, then its
    deserved, each checked with `parentX.LessPartly(total, Zero)`; the first that exceeds is the answer."""
    totals = {"guarantee": Resource.empty(), "deserved": Resource.empty()}
    for c in kids:
        for kind in ("guarantee", "deserved"):
            totals[kind].add(_res(getattr(c, kind)))
            limit = _res(getattr(parent, kind))
            if limit.less_partly(totals[kind], ZERO):
                return _sum_refusal(parent, kids, kind, totals[kind], child_side)
    return None


def _sum_refusal(parent: QueueSpec, kids: list[QueueSpec], kind: str, total: Resource,
                 child_side: str | None) -> AdmissionError:
    limit = _res(getattr(parent, kind))
    full = Resource.empty()
    for c in kids:
        full.add(_res(getattr(c, kind)))
    who = f"parent queue {parent.name}" if child_side else f"queue {parent.name}"
    msg = (f"{who} validation failed: sum of children's {kind} ({go_string(total)}) exceeds parent's {kind} "
           f"limit ({go_string(limit)})")
    dims = over_dims(limit, full)
    need = ", ".join(f"{d} {_qty(d, full.get(d))}" for d in dims)
    repair = tuple(Edit(parent.name, kind, d, full.get(d)) for d in dims)
    if child_side:
        return AdmissionError(
            child_side, _field(kind, dims[0]), msg, f"siblings-{kind}-above-parent",
            f"raise {FIELDS[kind]} of parent {parent.name} to at least {need} (its children's sum; unset means 0) "
            f"or lower this queue's {kind}", "vq.go:L589-627", repair)
    return AdmissionError(
        parent.name, _field(kind, dims[0]), msg, f"children-{kind}-above-parent",
        f"raise {FIELDS[kind]} to at least {need} (the children's sum) or lower the children's {kind}",
        "vq.go:L662-678", repair)


def validate_resources(q: QueueSpec, queues: Lister, lacking: frozenset[str] = frozenset()) -> list[AdmissionError]:
    """validateHierarchicalQueueResources (vq.go:L527-567): the first error, as Volcano returns it. None
    before PR #4864 (v1.14.0); v1.14's form before PR #4973 (capacity.core.webhook_releases)."""
    if "pr4864-webhook" in lacking:
        return []
    if "pr4973-webhook" in lacking:
        from capacity.core.webhook_releases import resources_v114
        return resources_v114(q, queues)
    if q.parent and q.parent != ROOT:
        parent = queues.get(q.parent)
        if parent is None:
            return [AdmissionError(q.name, "spec.parent", f"parent queue {q.parent} not found: "
                                   f'queue.scheduling.volcano.sh "{q.parent}" not found', "parent-missing",
                                   f"create queue {q.parent} first, or set spec.parent to an existing queue",
                                   "vq.go:L529-534")]
        # validateChildAgainstAncestor (vq.go:L570-585)
        if q.capability is not None:
            over = []  # (dim, mine, ancestor, its value): Volcano names the first, the fix names them all
            for dim in _names(q.capability):
                up = _nearest_ancestor_capability(queues, q, dim)
                if up is not None and q.capability.get(dim) > up[1]:
                    over.append((dim, q.capability.get(dim), *up))
            if over:
                dim, mine, _, limit = over[0]
                lower = ", ".join(f"{d} {_qty(d, v)}" for d, _m, _a, v in over)
                by_ancestor: dict[str, list[str]] = {}
                for d, m, a, _v in over:
                    by_ancestor.setdefault(a, []).append(f"{d} {_qty(d, m)}")
                raise_ = " and of ".join(f"{a} to {', '.join(v)}" for a, v in by_ancestor.items())
                return [AdmissionError(
                    q.name, _field("capability", dim),
                    f"queue {q.name} capability[{dim}]={_with_type(dim, mine)} exceeds its ancestor's "
                    f"capability={_with_type(dim, limit)}", "capability-above-ancestor",
                    f"lower spec.capability to {lower} or raise the capability of {raise_}", "vq.go:L570-585",
                    tuple(Edit(a, "capability", d, m) for d, m, a, _v in over))]
        siblings = [c for c in _children(queues, q.parent) if c.name != q.name] + [q]
        err = _sum_error(parent, siblings, q.name)
        if err is not None:
            return [err]
    kids = [c for c in _children(queues, q.name) if c.name != q.name]
    if not kids:
        return []
    # validateChildrenConstraints (vq.go:L630-681)
    if q.capability is not None:
        for dim in _names(q.capability):
            mine = q.capability.get(dim)
            child_max = max(_subtree_max_capability(queues, c, dim, {q.name}) for c in kids)
            if mine < child_max:
                return [AdmissionError(
                    q.name, _field("capability", dim),
                    f"queue {q.name} capability[{dim}]={_with_type(dim, mine)} is smaller than its descendants' max "
                    f"capability={_with_type(dim, child_max)}", "capability-below-descendants",
                    f"raise spec.capability.{dim} to {_qty(dim, child_max)} or lower the descendants' capability",
                    "vq.go:L634-660", (Edit(q.name, "capability", dim, child_max),))]
    err = _sum_error(q, kids, None)
    return [err] if err is not None else []


# ---- the webhook's two paths ----------------------------------------------------------------------
def validate_queue(queue: QueueSpec, cluster: Cluster, index: dict[str, list[QueueSpec]] | None = None,
                   pods: dict[str, int] | None = None, lacking: frozenset[str] = frozenset()) -> list[AdmissionError]:
    """The webhook's answer to CREATE of `queue` with every other queue of `cluster` present (AdmitQueues,
    vq.go:L73-130): the field errors if any (all of them), else the parent link's, else the first quota
    error against parent and children. Root's quotas are never checked (vq.go:L336-340). `index`
    (parent_index) and `pods` (allocated_pods) may be given when many queues of one cluster are checked;
    `lacking`: the changes the chosen Volcano release does not have (their older rules apply)."""
    index = index if index is not None else parent_index(cluster.queues)
    others = Lister(cluster.queues, index, without=queue.name)
    errors = validate_fields(queue, others, create=True, lacking=lacking)
    if errors:
        return errors
    errors = validate_parent(queue, cluster, others, pods, lacking)
    if errors or queue.name == ROOT:
        return errors
    return validate_resources(queue, Lister(cluster.queues, index, override=queue), lacking)


def same_resources(a: Resource | None, b: Resource | None) -> bool:
    """equality.Semantic.DeepEqual of two ResourceLists (nil and empty are equal)."""
    a, b = _res(a), _res(b)
    return a.cpu == b.cpu and a.memory == b.memory and (a.scalars or {}) == (b.scalars or {})


def validate_update(old: QueueSpec, new: QueueSpec, cluster: Cluster,
                    lacking: frozenset[str] = frozenset()) -> list[AdmissionError]:
    """The webhook's answer to UPDATE from `old` to `new` (vq.go:L81-116); `cluster` holds `old`."""
    lister = Lister(cluster.queues)
    errors = validate_fields(new, lister, create=False, lacking=lacking)
    if errors:
        return errors
    if old.parent != new.parent:
        errors = validate_parent(new, cluster, lister, lacking=lacking)
        if errors:
            return errors
    changed = any(not same_resources(getattr(old, k), getattr(new, k)) for k in RESOURCE_FIELDS)
    if new.name == ROOT:
        # --enable-root-queue-protection, on by default (options.go:L105); added by PR #4973 (v1.15.0)
        if changed and "pr4973-webhook" not in lacking:
            return [AdmissionError(ROOT, "spec", "root queue's resource attributes (capability, deserved, guarantee) "
                                   "cannot be modified", "root-protected",
                                   "leave root's capability, deserved and guarantee as they are", "vq.go:L102-109")]
        return []
    if changed or old.parent != new.parent:
        return validate_resources(new, Lister(cluster.queues, override=new), lacking)
    return []


#: A parent's error that says the same as an error of one of its descendants.
_PARENT_SIDE = {"children-guarantee-above-parent": "siblings-guarantee-above-parent",
                "children-deserved-above-parent": "siblings-deserved-above-parent",
                "capability-below-descendants": "capability-above-ancestor"}


def validate_cluster(cluster: Cluster, lacking: frozenset[str] = frozenset()) -> dict[str, list[AdmissionError]]:
    """Every queue the webhook would refuse, as `validate_queue` answers for it, sorted by name.

    A parent's "children exceed me" error is left out when a descendant already carries the matching
    child-side error: created in order, the descendant is the queue refused. So is a sibling's "siblings
    exceed the parent" error when the sibling adds nothing on the dimensions that exceed. `lacking`: the
    changes the chosen Volcano release does not have.
    """
    index, pods = parent_index(cluster.queues), allocated_pods(cluster)
    found = {name: errs for name in sorted(cluster.queues)
             if (errs := validate_queue(cluster.queues[name], cluster, index, pods, lacking))}
    out: dict[str, list[AdmissionError]] = {}
    for name, errs in found.items():
        keep = []
        for e in errs:
            child_rule = _PARENT_SIDE.get(e.rule)
            if child_rule and any(c.rule == child_rule and _below(cluster.queues, other, name)
                                  for other, ce in found.items() for c in ce):
                continue
            if e.rule.startswith("siblings-") and not _contributes(cluster.queues[name], e):
                continue  # a sibling that adds nothing on the exceeding dimensions is refused only with the others
            keep.append(e)
        if keep:
            out[name] = keep
    return out


def _contributes(q: QueueSpec, e: AdmissionError) -> bool:
    kind = e.rule.split("-")[1]  # siblings-<guarantee|deserved>-above-parent
    mine = set(_keys(getattr(q, kind)))
    return any(edit.dim in mine for edit in e.repair)


def _below(queues: dict[str, QueueSpec], name: str, ancestor: str) -> bool:
    q = queues.get(name)
    return q is not None and any(a.name == ancestor for a in _ancestors(queues, q))


def admission_warnings(cluster: Cluster, lacking: frozenset[str] = frozenset()) -> list[LoadWarning]:
    """One load warning per queue the webhook would refuse, with the message it would answer (on the
    release lacking `lacking`: HEAD by default)."""
    out = []
    for name, errs in validate_cluster(cluster, lacking).items():
        out.append(LoadWarning(f"Queue/{name}", errs[0].field, REJECTS + response_message(errs)))
    return out


def is_admission_warning(w: LoadWarning) -> bool:
    return w.obj.startswith("Queue/") and w.message.startswith(REJECTS)


def release_warnings(cluster: Cluster, lacking: frozenset[str]) -> list[LoadWarning]:
    """The cluster's load warnings with the admission ones (HEAD's, written by the loader) replaced by those
    of the release lacking `lacking`."""
    if not lacking:
        return list(cluster.warnings)
    return [w for w in cluster.warnings if not is_admission_warning(w)] + admission_warnings(cluster, lacking)
