"""Whether waiting can succeed, and what to change otherwise: the two questions a user asks right after "why?".

Read from the numbers the deciding check recorded (its figures: `<queue> allocated cpu`, `<queue> request cpu`,
`<queue> realCapability cpu`, `<queue> over cpu`, ...), never re-decided: the limit is the one the plugin
compared against. A limit smaller than the pod's (or job's) own request can never be met by waiting: something
has to change. Otherwise the object gets in by itself once running work of its queue (or of the cluster, or
of the node) finishes and frees the amount it was over by.
"""

from __future__ import annotations

from collections.abc import Iterable

from capacity.analysis.answer_model import Check, Figure
from capacity.core.cluster import Cluster
from capacity.core.quantity import format_resource_value

#: The limit each deciding rule compares against, with its name in plain words.
LIMITS = {"realCapability": "capacity limit (realCapability)", "deserved": "deserved"}
NEVER = "waiting will not help"
#: The caveat of "it binds by itself": freed room goes to whichever job allocate serves first.
UNLESS = "nothing has to change, unless a job allocate serves first takes that room"
WHAT_IF = "`explain --what-if` lists the smallest changes, each checked by running cycles"


def _by_role(figures: Iterable[Figure]) -> dict[str, dict[str, tuple[str, float]]]:
    """{role: {dim: (owner, value)}} from figure names "<owner> <role> <dim>" (or "<role> <dim>")."""
    out: dict[str, dict[str, tuple[str, float]]] = {}
    for f in figures:
        if f.value is None:
            continue
        words = f.name.split(" ")
        if len(words) < 2:
            continue
        owner, role, dim = (" ".join(words[:-2]), words[-2], words[-1])
        out.setdefault(role, {})[dim] = (owner, float(f.value))
    return out


def _amount(dim: str, value: float, styles: dict | None) -> str:
    return f"{dim} {format_resource_value(dim, value, styles)}"


def _capability_fix(cluster: Cluster, queue: str, dim: str, need: float, styles: dict | None) -> str:
    """Which capabilities cap `queue` below `need` on `dim`: the queue's own and its parents' (a child's
    realCapability is capped by its parent's, and the webhook refuses a child capability above its parent's),
    parents first, as they must be raised first; else the other queues' guarantees hold the room back."""
    capped, name, seen = [], queue, set()
    while name and name in cluster.queues and name not in seen:
        seen.add(name)
        q = cluster.queues[name]
        cap = q.capability.get(dim) if q.capability is not None else 0.0
        if 0 < cap < need:
            capped.append(name)
        name = q.parent if q.parent != name else ""
    amount = _amount(dim, need, styles)
    if capped:
        queues = ", then ".join(f"queue {n}" for n in reversed(capped))
        return f"raise the capability of {queues} to at least {amount}"
    return (f"let queue {queue}'s limit reach {amount}: no capability caps it there; the limit is what the "
            "cluster leaves after the other queues' guarantees, so lower those guarantees or add nodes")


def _room_todo(later: list[tuple[Check, str]], cluster: Cluster, key: str, styles: dict | None) -> str:
    """When no node fits, what stopped reclaim or preempt from making room is what to change."""
    pod = cluster.pods[key]
    uid = f"{pod.namespace}/{pod.group}"
    for check, rule in later:
        if rule.endswith("notStarving") and uid in cluster.podgroups:
            n = sum(1 for p in cluster.pods.values() if f"{p.namespace}/{p.group}" == uid)
            m = cluster.podgroups[uid].min_member
            return (f"reclaim and preempt make room only for a job short of its minAvailable, and job {uid} already "
                    f"runs its minAvailable {m}: to place it sooner, free a node or add one" + (
                        f" (or give the job a minAvailable of {n}, if it needs all its pods)" if n > m else ""))
        roles = _by_role(check.figures)
        if rule == "capacity.overDeserved" and {"allocated", "request", "deserved"} <= set(roles):
            queue = next(iter(roles["deserved"].values()))[0]
            need = " or ".join(_amount(d, roles["allocated"][d][1] + v, styles) for d, (_o, v) in
                               roles["request"].items() if d in roles["allocated"])
            return (f"reclaim takes room back only while queue {queue} stays within its deserved on a resource "
                    f"the pod asks for: raise its deserved to at least {need}, or free a node or add one")
    return ""


def pod_waiting(check: Check, rule: str, cluster: Cluster, key: str,
                styles: dict | None = None, later: list[tuple[Check, str]] | None = None) -> tuple[str, str]:
    """(waiting, to do) for a pending pod whose first stopper is `check` (rule `rule`), with the later stoppers
    and their rules (what kept reclaim or preempt from making room); ("", "") when unknown."""
    roles = _by_role(check.figures)
    limit_role = next((r for r in LIMITS if r in roles), "")
    if limit_role and "request" in roles and "over" in roles:
        never = [(dim, owner, req, roles[limit_role][dim][1]) for dim, (owner, req) in roles["request"].items()
                 if dim in roles[limit_role] and req > roles[limit_role][dim][1]]
        owner = next(iter(roles["over"].values()))[0]
        limit = LIMITS[limit_role]
        if never:
            dim, who, req, lim = never[0]
            return (f"{NEVER}: the pod alone asks {_amount(dim, req, styles)}, more than queue {who}'s {limit} "
                    f"{format_resource_value(dim, lim, styles)}; it binds only after a change",
                    f"raise queue {who}'s {limit} to at least its request ({WHAT_IF})")
        over = ", ".join(_amount(d, v, styles) for d, (_o, v) in roles["over"].items())
        held = ", ".join(_amount(d, v, styles) for d, (_o, v) in roles.get("allocated", {}).items()
                         if d in roles["over"])
        if limit_role == "deserved":
            todo = f"to place it sooner, raise queue {owner}'s weight: proportion computes deserved from weights"
        else:
            dim, (_o, total) = next(iter(roles.get("total", roles["over"]).items()))
            todo = "to place it sooner, " + _capability_fix(cluster, owner, dim, total, styles)
        return (f"it can bind by itself once running pods of queue {owner} finish and free {over} "
                f"(they hold {held}); {UNLESS}", f"{todo} ({WHAT_IF})")
    if rule == "allocate.nodeFit":
        pod = cluster.pods[key]
        dims = [d for d in pod.resreq.resource_names() if pod.resreq.get(d) > 0]
        ready = [n for n in cluster.nodes if getattr(n, "ready", True)]
        if ready and not any(all(pod.resreq.get(d) <= n.allocatable.get(d) for d in dims) for n in ready):
            return (f"{NEVER}: no node is large enough for it, even empty ("
                    + ", ".join(_amount(d, pod.resreq.get(d), styles) for d in dims) + ")",
                    "add a node large enough for it, or lower its request")
        todo = _room_todo(later or [], cluster, key, styles) or "to place it sooner, make room on a node or add one"
        return (f"it can bind by itself once pods on a node finish and free room for it; {UNLESS}",
                f"{todo} ({WHAT_IF})")
    if rule.endswith(".notReady"):
        return (f"{NEVER}: the plugin refuses every pod until the configuration is fixed", "fix the cause named above")
    return "", ""


def job_waiting(check: Check, rule: str, styles: dict | None = None,
                cluster: Cluster | None = None) -> tuple[str, str]:
    """(waiting, to do) for a job enqueue did not admit, from the enqueue check's figures."""
    roles = _by_role(check.figures)
    if "minResources" in roles and "realCapability" in roles:
        never = [(d, o, v, roles["realCapability"][d][1]) for d, (o, v) in roles["minResources"].items()
                 if d in roles["realCapability"] and v > roles["realCapability"][d][1]]
        if never:
            dim, who, need, lim = never[0]
            return (f"{NEVER}: the job's minResources alone, {_amount(dim, need, styles)}, exceed queue {who}'s "
                    f"capacity limit (realCapability) {format_resource_value(dim, lim, styles)}; it is admitted "
                    "only after a change", f"raise queue {who}'s capability, or lower the job's minAvailable "
                    f"({WHAT_IF})")
        over = ", ".join(_amount(d, v, styles) for d, (_o, v) in roles.get("over", {}).items())
        owner = next(iter(roles["realCapability"].values()))[0]
        fix = f"raise queue {owner}'s capability by {over}"
        if cluster is not None and "total" in roles:
            dim, (_o, total) = next(iter(roles["total"].items()))
            fix = _capability_fix(cluster, owner, dim, total, styles)
        return (f"it is admitted by itself once jobs of queue {owner} finish or give back {over}; enqueue asks "
                "again every cycle", f"to admit it sooner, {fix} ({WHAT_IF})")
    if {"minResources", "total", "factor", "used"} <= set(roles):
        dim = next(iter(roles["minResources"]))
        need = roles["minResources"][dim][1] + roles.get("inqueue", {}).get(dim, ("", 0.0))[1]
        room = roles["total"][dim][1] * roles["factor"][dim][1]
        if need > room:
            return (f"{NEVER}: the job asks more than the whole cluster allows ({_amount(dim, need, styles)} "
                    f"against total x factor {format_resource_value(dim, room, styles)})",
                    "add nodes, raise the overcommit factor or lower the job's minResources")
        return ("it is admitted by itself once running pods in the cluster finish and free "
                f"{_amount(dim, need - (room - roles['used'][dim][1]), styles)}; enqueue asks again every cycle",
                "to admit it sooner, free or add room in the cluster (the overcommit plugin's factor counts too)")
    return "", ""
