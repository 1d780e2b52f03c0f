"""The queue admission webhook's vocabulary, shared by HEAD's rules (`capacity.core.webhook`) and the older
releases' forms (`capacity.core.webhook_releases`): the error type, Volcano's formatting, and the lister."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field

from capacity.core.cluster import Cluster
from capacity.core.model import QueueSpec
from capacity.core.quantity import format_milli_cpu, format_resource_value
from capacity.core.resources import MAX_FLOAT, MIN_RESOURCE, Resource

ROOT = "root"
#: The webhook manager's --max-queue-depth default (cmd/webhook-manager/app/options/options.go:L36,L104).
MAX_QUEUE_DEPTH = 5
MAX_WEIGHT = 65535
HIERARCHY_KEY = "volcano.sh/hierarchy"
HIERARCHY_WEIGHTS_KEY = "volcano.sh/hierarchy-weights"
#: The prefix of every load warning (and --strict-admission error) this module writes.
REJECTS = "the admission webhook would reject this queue: "
FIELDS = {"capability": "spec.capability", "deserved": "spec.deserved", "guarantee": "spec.guarantee.resource"}
RESOURCE_FIELDS = ("capability", "deserved", "guarantee")


@dataclass(frozen=True)
class Edit:
    """Raise `queue`'s `kind` (capability | deserved | guarantee) on `dim` to `value` (internal units)."""

    queue: str
    kind: str
    dim: str
    value: float


@dataclass(frozen=True)
class AdmissionError:
    """One reason the webhook refuses a queue: Volcano's message as it returns it, and how to fix it."""

    queue: str
    field: str
    message: str
    rule: str
    fix: str
    source: str = ""                       # validate_queue.go line range the rule comes from
    repair: tuple[Edit, ...] = dc_field(default=(), compare=False)  # raises that would remove the error
    switch: str = ""                       # the change (capacity.versions) this older form of a rule predates

    def __str__(self) -> str:
        return f"Queue/{self.queue}: {self.field}: {REJECTS}{self.message}"

    @property
    def cited(self) -> str:
        """The source in words a reader can look up: the file's path in Volcano, not this module's shorthand."""
        return self.source.replace("vq.go:", "pkg/webhooks/admission/queues/validate/validate_queue.go:")

    def as_dict(self) -> dict[str, str]:
        out = {"queue": self.queue, "field": self.field, "message": self.message, "rule": self.rule,
               "fix": self.fix, "source": self.cited}
        if self.switch:
            out["switch"] = self.switch
        return out


#: rule id -> what it catches (lint shows these as `webhook-<id>`).
RULES: dict[str, str] = {
    "quantity-negative": "a capability, deserved or guarantee quantity below 0",
    "quantity-not-integer": "a fractional quantity of pods or an extended resource",
    "guarantee-without-deserved": "a guaranteed resource with no deserved entry for it",
    "guarantee-above-deserved": "a guarantee above the deserved of the same resource",
    "deserved-above-capability": "a deserved above the capability of the same resource",
    "guarantee-above-capability": "a guarantee above the capability (v1.13 and v1.14 only)",
    "state-invalid": "a queue state other than Open or Closed",
    "weight-out-of-range": "a weight outside 1..65535 (the Queue CRD's schema)",
    "hierarchy-annotation": "volcano.sh/hierarchy annotations of different lengths, bad weights or a sub path",
    "self-parent": "a queue that names itself as parent",
    "queue-too-deep": "a queue deeper than the webhook's max-queue-depth (5)",
    "parent-missing": "spec.parent names a queue that does not exist",
    "parent-has-pods": "the first child of a queue that has allocated pods",
    "capability-above-ancestor": "a capability above the nearest ancestor's capability on some dimension",
    "siblings-guarantee-above-parent": "this queue and its siblings guarantee more than their parent",
    "siblings-deserved-above-parent": "this queue and its siblings deserve more than their parent",
    "children-guarantee-above-parent": "the queue's children guarantee more than it does",
    "children-deserved-above-parent": "the queue's children deserve more than it does",
    "capability-below-descendants": "a capability below a descendant's capability on some dimension",
    "root-protected": "an update of root's capability, deserved or guarantee",
}


# ---- Volcano's formatting ------------------------------------------------------------------------
def go_string(r: Resource) -> str:
    """`api.Resource.String()` (resource_info.go:L170-193): internal values with two decimals."""
    def num(v: float) -> str:
        return "maxFloat" if v >= MAX_FLOAT else f"{v:.2f}"
    parts = [f"cpu {num(r.cpu)}", f"memory {num(r.memory)}"]
    parts += [f"{k} {num(v)}" for k, v in sorted((r.scalars or {}).items())]
    return ", ".join(parts)


def _with_type(dim: str, value: float) -> str:
    """formatResourceWithType (vq.go:L485-498): cpu as milli quantity, memory BinarySI, others %.2f."""
    if dim == "cpu":
        return format_milli_cpu(int(value))
    if dim == "memory":
        n = int(value)
        for suffix, size in (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20),
                             ("Ki", 2**10)):
            if n and n % size == 0:
                return f"{n // size}{suffix}"
        return str(n)
    return f"{value:.2f}"


def _qty(dim: str, value: float) -> str:
    """A quantity as `Quantity.String()` prints it (the user's own format is not kept: canonical form)."""
    return format_resource_value(dim, value)


def _invalid(path: str, value: str, detail: str) -> str:
    """`field.Invalid(path, value, detail).Error()`."""
    return f'requestBody.{path}: Invalid value: "{value}": {detail}'


def response_message(errors: list[AdmissionError]) -> str:
    """The message of the webhook's refusal: one error as is, several (field checks) as Go's aggregate."""
    if len(errors) == 1:
        return errors[0].message
    return "[" + ", ".join(e.message for e in errors) + "]"


# ---- small readers -----------------------------------------------------------------------------
def _res(r: Resource | None) -> Resource:
    return r if r is not None else Resource.empty()


def _keys(r: Resource | None) -> list[str]:
    """The names a quota sets: cpu/memory when positive (a Resource cannot tell `cpu: 0`), scalars as keyed."""
    if r is None:
        return []
    names = [n for n in ("cpu", "memory") if r.get(n) > 0]
    return names + sorted((r.scalars or {}).keys())


def _names(r: Resource) -> list[str]:
    """`ResourceNames()` in a fixed order (Go ranges a map): cpu, memory, then sorted scalars >= 0.1."""
    names = [n for n in ("cpu", "memory") if r.get(n) >= MIN_RESOURCE]
    return names + sorted(k for k, v in (r.scalars or {}).items() if v >= MIN_RESOURCE)


def _field(kind: str, dim: str) -> str:
    return f"{FIELDS[kind]}.{dim}"


class Lister(Mapping[str, QueueSpec]):
    """What the webhook's queue lister holds: the cluster's queues with one left out (a CREATE) or replaced
    (the queue being validated), and GetQueuesByParent (router/indexer.go:L33-47) from an index by
    spec.parent, in a fixed order (creation, then name) where the informer's is arbitrary."""

    def __init__(self, queues: Mapping[str, QueueSpec], index: dict[str, list[QueueSpec]] | None = None,
                 without: str | None = None, override: QueueSpec | None = None) -> None:
        self._queues = queues
        self._index = index if index is not None else parent_index(queues)
        self._without = without
        self._override = override

    def __getitem__(self, name: str) -> QueueSpec:
        if self._override is not None and name == self._override.name:
            return self._override
        if name == self._without:
            raise KeyError(name)
        return self._queues[name]

    def __iter__(self) -> Iterator[str]:
        extra = self._override.name if self._override is not None else None
        yield from (n for n in self._queues if n != self._without or n == extra)
        if extra is not None and extra not in self._queues:
            yield extra

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def children(self, parent: str) -> list[QueueSpec]:
        o = self._override
        kids = [q for q in self._index.get(parent, ()) if q.name != self._without and (o is None or q.name != o.name)]
        if o is not None and o.parent == parent:
            kids.append(o)
            kids.sort(key=lambda q: (q.creation, q.name))
        return kids


def parent_index(queues: Mapping[str, QueueSpec]) -> dict[str, list[QueueSpec]]:
    """Queues by spec.parent (only an explicit parent is indexed, as in Volcano), each list in a fixed order."""
    index: dict[str, list[QueueSpec]] = {}
    for q in queues.values():
        if q.parent:
            index.setdefault(q.parent, []).append(q)
    for kids in index.values():
        kids.sort(key=lambda q: (q.creation, q.name))
    return index


def _children(queues: Lister, parent: str) -> list[QueueSpec]:
    return queues.children(parent)


def _ancestors(queues: Mapping[str, QueueSpec], q: QueueSpec) -> Iterable[QueueSpec]:
    """The parent chain below root, nearest first, stopping at a missing parent (or a cycle)."""
    seen = {q.name}
    parent = q.parent
    while parent and parent != ROOT and parent in queues and parent not in seen:
        seen.add(parent)
        pq = queues[parent]
        yield pq
        parent = pq.parent


def allocated_pods(cluster: Cluster) -> dict[str, int]:
    """status.allocated[pods] per queue: its jobs' pods that hold a node and have not finished."""
    queue_of = {uid: pg.queue for uid, pg in cluster.podgroups.items()}
    out: dict[str, int] = {}
    for p in cluster.pods.values():
        if p.node_name and p.phase in ("Pending", "Running"):
            q = queue_of.get(f"{p.namespace}/{p.group}")
            if q is not None:
                out[q] = out.get(q, 0) + 1
    return out


def over_dims(limit: Resource, total: Resource) -> list[str]:
    """The dimensions on which `total` exceeds `limit` (a scalar `limit` does not name counts as exceeded), cpu
    and memory first; ["cpu"] when none does (the message still needs a field to name)."""
    dims = [d for d in ("cpu", "memory") if limit.get(d) < total.get(d)]
    lim_s = limit.scalars or {}
    dims += [k for k, v in sorted((total.scalars or {}).items()) if k not in lim_s or lim_s[k] < v]
    return dims or ["cpu"]
