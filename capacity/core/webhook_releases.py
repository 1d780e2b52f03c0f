"""The queue admission webhook's rules as older Volcano releases had them (issue 29).

`capacity.core.webhook` is HEAD's webhook; each function here is the form a rule had before one change,
consulted when the chosen release lacks that change (`lacking`, switch ids of `capacity.versions`):

* `pr4033` (v1.12.0, cherry-picked into v1.11.1): a parent that holds allocated pods refused every new child,
  not only its first one (validate_queue.go:L250-267 @v1.11.0);
* `pr4470` (v1.13.0): no check of deserved/guarantee/capability sizes before it;
* `pr4697` (v1.14.0): no self-parent check; a CREATE naming itself failed on the parent lookup;
* `pr4864-webhook` (v1.14.0): no check against parent or children before it; v1.13 compared sizes with
  LessPartly (validate_queue.go:L216-241 @v1.13.0);
* `pr4973-webhook` (v1.15.0, cherry-picked into v1.14.2): before it the capability was compared with the
  parent's only (an unset parent capability read as 0), sums were checked against the parent's own value or
  else its capability, no depth limit and no root protection (validate_queue.go:L221-534 @v1.14.0);
* `pr4208` (v1.12.0): the Queue CRD had no spec.weight bounds; the webhook's own check (weight > 0) refused
  what the API server now refuses first (validate_queue.go:L206-212 @v1.11.0), and no weight was too large.

Each error an older rule writes carries its switch id, so a report can say which change it predates.
"""

from __future__ import annotations

from dataclasses import replace

from capacity.core.cluster import Cluster
from capacity.core.model import QueueSpec
from capacity.core.resources import ZERO, Resource
from capacity.core.webhook_base import (
    FIELDS,
    ROOT,
    AdmissionError,
    Edit,
    Lister,
    _ancestors,
    _invalid,
    _keys,
    _res,
    allocated_pods,
    go_string,
    over_dims,
)

PR4033, PR4470, PR4697 = "pr4033", "pr4470", "pr4697"
PR4864_WEBHOOK, PR4973_WEBHOOK = "pr4864-webhook", "pr4973-webhook"
PR4208 = "pr4208"
#: Every webhook switch: a release lacking none of them runs HEAD's webhook unchanged.
WEBHOOK_SWITCHES = frozenset({PR4033, PR4208, PR4470, PR4697, PR4864_WEBHOOK, PR4973_WEBHOOK})


def _tag(errors: list[AdmissionError], switch: str) -> list[AdmissionError]:
    return [replace(e, switch=switch) for e in errors]


# ---- spec.weight before the Queue CRD bounded it ----------------------------------------------------------
def weight(q: QueueSpec, create: bool) -> list[AdmissionError]:
    """validateWeightOfQueue (vq.go:L206-212 @v1.11.0): a weight must be > 0, with no upper bound (the CRD had
    none before PR #4208, v1.12.0); on CREATE the mutating webhook first turns 0 into 1
    (mutate_queue.go:L133-140 @v1.11.0). From v1.12.0 the CRD bounds refuse first, so this check, dropped by
    PR #4813 in v1.14.0, never decided again."""
    if q.weight > 0 or (q.weight == 0 and create):
        return []
    msg = f"requestBody.spec.weight: Invalid value: {q.weight}: queue weight must be a positive integer"
    return [AdmissionError(q.name, "spec.weight", msg, "weight-not-positive", "set spec.weight to 1 or more",
                           "vq.go:L206-212 @v1.11.0", (), PR4208)]


# ---- validateQueue's resource checks before v1.15 -------------------------------------------------------
def quantities(q: QueueSpec, head_quantities: list[AdmissionError], lacking: frozenset[str]) -> list[AdmissionError]:
    """validateResourceOfQueue: none before PR #4470; LessPartly comparisons of whole resources on v1.13
    (vq.go:L216-241 @v1.13.0) and v1.14, which also checks each quantity's value and compares guarantee with
    deserved whenever a guarantee is set (vq.go:L221-265 @v1.14.0)."""
    if PR4470 in lacking:
        return []
    v114 = PR4864_WEBHOOK not in lacking
    switch = PR4973_WEBHOOK if v114 else PR4864_WEBHOOK
    src = "vq.go:L221-265 @v1.14.0" if v114 else "vq.go:L216-241 @v1.13.0"
    out: list[AdmissionError] = []
    if v114:  # ValidateResourceQuantityValue per quantity: as HEAD words it
        out += [e for e in head_quantities if e.rule in ("quantity-negative", "quantity-not-integer")]
    cap, d, g = _res(q.capability), _res(q.deserved), _res(q.guarantee)

    def refuse(kind: str, value: Resource, detail: str, rule: str, fix: str) -> list[AdmissionError]:
        return _tag([*out, AdmissionError(q.name, f"spec.{kind}", _invalid(f"spec.{kind}", go_string(value), detail),
                                          rule, fix, src)], switch)

    if _keys(q.capability) and cap.less_partly(d, ZERO):
        return refuse("deserved", d, "deserved should less equal than capability", "deserved-above-capability",
                      "lower spec.deserved to at most spec.capability on every dimension (a dimension the "
                      "capability leaves unset reads as 0 on this release)")
    if _keys(q.capability) and cap.less_partly(g, ZERO):
        return refuse("guarantee", g, "guarantee should less equal than capability", "guarantee-above-capability",
                      "lower spec.guarantee.resource to at most spec.capability on every dimension (unset reads as 0)")
    guarded = q.guarantee if v114 else q.deserved
    if _keys(guarded) and d.less_partly(g, ZERO):
        return refuse("guarantee", g, "guarantee should less equal than deserved", "guarantee-above-deserved",
                      "raise spec.deserved to at least spec.guarantee.resource on every dimension (unset reads as 0)")
    return _tag(out, switch)


# ---- validateHierarchicalQueue before v1.15 ------------------------------------------------------------
def _subtree_pods(cluster: Cluster, parent: str, child: str, pods: dict[str, int] | None) -> int:
    """status.allocated[pods] of `parent` as the scheduler reports it with hierarchy on (its subtree's pods),
    less those of `child`'s own subtree (the queue being created holds none yet)."""
    held = pods if pods is not None else allocated_pods(cluster)
    total = 0
    for name, n in held.items():
        q = cluster.queues.get(name)
        if q is None:
            continue
        chain = {name} | {a.name for a in _ancestors(cluster.queues, q)}
        if parent in chain and child not in chain:
            total += n
    return total


def parent_link(q: QueueSpec, cluster: Cluster, queues: Lister, pods: dict[str, int] | None,
                lacking: frozenset[str]) -> list[AdmissionError]:
    """validateHierarchicalQueue before PR #4973 (no depth limit; only the direct parent looked up),
    with PR #4697's self-parent check and PR #4033's first-child-only pod check where the release has them
    (vq.go:L337-367 @v1.14.0, L272-296 @v1.13.0, L250-267 @v1.11.0)."""
    parent = q.parent or ""
    if parent == q.name and PR4697 not in lacking:
        return _tag([AdmissionError(q.name, "spec.parent", f"queue {q.name} cannot use itself as parent",
                                    "self-parent", "set spec.parent to another queue (or root)",
                                    "vq.go:L343-345 @v1.14.0")], PR4973_WEBHOOK)
    pq = queues.get(parent)
    if pq is None:  # a CREATE naming itself lands here too before PR #4697
        switch = PR4697 if parent == q.name else PR4973_WEBHOOK
        rule = "self-parent" if parent == q.name else "parent-missing"
        fix = ("set spec.parent to another queue (or root)" if parent == q.name
               else f"create queue {parent} first, or set spec.parent to an existing queue")
        return _tag([AdmissionError(q.name, "spec.parent", f"failed to get parent queue of queue {q.name}: "
                                    f'queue.scheduling.volcano.sh "{parent}" not found', rule, fix,
                                    "vq.go:L347-350 @v1.14.0")], switch)
    if PR4033 in lacking:
        held, switch = _subtree_pods(cluster, parent, q.name, pods), PR4033
    elif not queues.children(parent):  # as HEAD decides it: no tag
        held, switch = (pods if pods is not None else allocated_pods(cluster)).get(parent, 0), ""
    else:
        held, switch = 0, ""
    if held:
        return _tag([AdmissionError(
            q.name, "spec.parent", f"queue {parent} cannot be the parent queue of queue {q.name} because it "
            f"has allocated Pods: {held}", "parent-has-pods",
            f"let the running jobs under queue {parent} finish before adding a child queue to it",
            "vq.go:L256-261 @v1.11.0" if switch else "vq.go:L357-362 @v1.14.0")], switch)
    return []


# ---- validateHierarchicalQueueResources on v1.14 ---------------------------------------------------------
def _limit_error(parent: QueueSpec, total: Resource, kind: str, child_side: str | None) -> AdmissionError | None:
    """validateResourceLimit (vq.go:L515-534 @v1.14.0): the parent's own deserved/guarantee when it sets
    one, else its capability, else no limit; the whole sum compared once."""
    own = getattr(parent, kind)
    if _keys(own):
        limit, against, limit_kind = _res(own), f"parent's {kind} limit", kind
    elif _keys(parent.capability):
        limit, against, limit_kind = _res(parent.capability), "parent's capability", "capability"
    else:
        return None
    if not limit.less_partly(total, ZERO):
        return None
    who = f"parent queue {parent.name}" if child_side else f"queue {parent.name}"
    msg = (f"{who} validation failed: sum of children's {kind} ({go_string(total)}) exceeds {against} "
           f"({go_string(limit)})")
    dims = over_dims(limit, total)
    repair = tuple(Edit(parent.name, limit_kind, d, total.get(d)) for d in dims)
    fld = f"{FIELDS[kind]}.{dims[0]}"
    if child_side:
        return AdmissionError(child_side, fld, msg, f"siblings-{kind}-above-parent",
                              f"raise {FIELDS[limit_kind]} of parent {parent.name} to at least the children's sum "
                              f"or lower this queue's {kind}", "vq.go:L451-479 @v1.14.0", repair, PR4973_WEBHOOK)
    return AdmissionError(parent.name, fld, msg, f"children-{kind}-above-parent",
                          f"raise {FIELDS[limit_kind]} to at least the children's sum or lower the children's {kind}",
                          "vq.go:L482-512 @v1.14.0", repair, PR4973_WEBHOOK)


def _sums(parent: QueueSpec, kids: list[QueueSpec], child_side: str | None) -> AdmissionError | None:
    totals = {"guarantee": Resource.empty(), "deserved": Resource.empty()}
    for c in kids:
        for kind in totals:
            totals[kind].add(_res(getattr(c, kind)))
    for kind in ("guarantee", "deserved"):
        err = _limit_error(parent, totals[kind], kind, child_side)
        if err is not None:
            return err
    return None


def resources_v114(q: QueueSpec, queues: Lister) -> list[AdmissionError]:
    """validateHierarchicalQueueResources as v1.14.0 had it (vq.go:L393-434 @v1.14.0): the capability against
    the direct parent's and each child's with LessPartly (an unset capability reads as 0 on every
    dimension), then the sums."""
    mine = _res(q.capability)
    if q.parent and q.parent != ROOT:
        parent = queues.get(q.parent)
        if parent is None:
            return [AdmissionError(q.name, "spec.parent", f"parent queue {q.parent} not found: "
                                   f'queue.scheduling.volcano.sh "{q.parent}" not found', "parent-missing",
                                   f"create queue {q.parent} first, or set spec.parent to an existing queue",
                                   "vq.go:L396-400 @v1.14.0", (), PR4973_WEBHOOK)]
        theirs = _res(parent.capability)
        if theirs.less_partly(mine, ZERO):  # validateChildAgainstParent (vq.go:L436-447 @v1.14.0)
            return [AdmissionError(
                q.name, "spec.capability", f"queue {q.name} capability ({go_string(mine)}) exceeds parent queue "
                f"{parent.name} capability ({go_string(theirs)})", "capability-above-ancestor",
                f"lower spec.capability to at most {parent.name}'s on every dimension, or set a capability on "
                f"{parent.name} that covers it (an unset one reads as 0 on this release)",
                "vq.go:L436-447 @v1.14.0", (), PR4973_WEBHOOK)]
        siblings = [c for c in queues.children(q.parent) if c.name != q.name] + [q]
        err = _sums(parent, siblings, q.name)
        if err is not None:
            return [err]
    kids = [c for c in queues.children(q.name) if c.name != q.name]
    if not kids:
        return []
    for c in kids:  # validateChildrenConstraints (vq.go:L482-512 @v1.14.0)
        theirs = _res(c.capability)
        if mine.less_partly(theirs, ZERO):
            return [AdmissionError(
                q.name, "spec.capability", f"queue {q.name} capability ({go_string(mine)}) is less than child queue "
                f"{c.name} capability ({go_string(theirs)})", "capability-below-descendants",
                f"set spec.capability to at least child {c.name}'s on every dimension (unset reads as 0 on this "
                "release)", "vq.go:L489-495 @v1.14.0", (), PR4973_WEBHOOK)]
    err = _sums(q, kids, None)
    return [err] if err is not None else []
