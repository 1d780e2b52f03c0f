"""Service types of seed 001 (inference / training) and its tidal reclaim policy, as pure functions.

Spec actions-framework §13.1-13.3. A task's service type is, in order:

1. the PodGroup annotation `volcano.sh/service.type` (the PodGroup controller copies every
   `volcano.sh/*` annotation of a Deployment / vcjob onto it);
2. else the kind of the pod's owner mapped through the plugin argument
   `podOwnerReferenceToServiceType` (a Deployment's pods are owned by a *ReplicaSet*; vcjob and
   batch/v1 Job pods both by kind `Job`);
3. else `unknown` (bare pods, owner kinds missing from the map, tasks whose job is gone).

Recognised values are exactly `inference` and `training`. The seed's sample Go code returns any other
annotation value, and `""` for an owner kind missing from the map, as a type of its own that its
ReclaimableFn then treats like training (a victim). Capacity Lab follows the issue and the spec (§13.6):
such tasks are `unknown`, never victims; the reason text names the raw value so the difference shows.

The policy (who may reclaim whom), from the seed's ReclaimableFn:

| reclaimer \\ reclaimee | inference | training | unknown |
|---|---|---|---|
| inference | never | **may** | never |
| training  | never | never | never |
| unknown   | never | **may** (§13.3 item 3; switchable) | never |

Queue `reclaimable: false` and a pod's `volcano.sh/preemptable: "false"` stop eviction earlier, in the
reclaim action's own candidate filter; queue priority only orders (spec §13.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SERVICE_TYPE_KEY = "volcano.sh/service.type"
OWNER_MAP_ARG = "podOwnerReferenceToServiceType"
INFERENCE = "inference"
TRAINING = "training"
UNKNOWN = "unknown"
KNOWN = (INFERENCE, TRAINING)


@dataclass(frozen=True, slots=True)
class ServiceType:
    """A resolved service type and where it came from, for the sentences of reasons."""

    kind: str
    source: str
    raw: str = ""

    def describe(self) -> str:
        return f"{self.kind} ({self.source})"


def parse_owner_map(value: Any) -> tuple[dict[str, str], str]:
    """The `podOwnerReferenceToServiceType` argument: owner kind -> service type, and a problem or ""."""
    if value is None:
        return {}, ""
    if not isinstance(value, dict):
        return {}, f"{OWNER_MAP_ARG} must be a mapping of owner kind to service type, got {value!r}; ignored"
    out: dict[str, str] = {}
    bad: list[str] = []
    for kind, st in value.items():
        if not isinstance(st, str):
            bad.append(str(kind))
            continue
        out[str(kind)] = st
    problem = f"{OWNER_MAP_ARG}: non-string service type for {', '.join(bad)}; ignored" if bad else ""
    return out, problem


def resolve(pg_annotations: dict[str, str] | None, owner_kind: str, owner_map: dict[str, str]) -> ServiceType:
    """getTaskServiceType: PodGroup annotation, else owner kind through the map, else unknown."""
    if pg_annotations is None:
        return ServiceType(UNKNOWN, "the task has no PodGroup in the session")
    raw = pg_annotations.get(SERVICE_TYPE_KEY, "")
    if raw:
        if raw in KNOWN:
            return ServiceType(raw, f"PodGroup annotation {SERVICE_TYPE_KEY}")
        return ServiceType(UNKNOWN, f"PodGroup annotation {SERVICE_TYPE_KEY}={raw!r} is neither inference nor "
                                    "training", raw)
    if not owner_map:
        return ServiceType(UNKNOWN, f"no {SERVICE_TYPE_KEY} annotation on the PodGroup and no {OWNER_MAP_ARG}")
    if not owner_kind:
        return ServiceType(UNKNOWN, f"no {SERVICE_TYPE_KEY} annotation on the PodGroup and the pod has no owner")
    mapped = owner_map.get(owner_kind, "")
    if mapped in KNOWN:
        return ServiceType(mapped, f"owner kind {owner_kind} via {OWNER_MAP_ARG}")
    if mapped:
        return ServiceType(UNKNOWN, f"owner kind {owner_kind} maps to {mapped!r}, neither inference nor training",
                           mapped)
    return ServiceType(UNKNOWN, f"no {SERVICE_TYPE_KEY} annotation on the PodGroup and owner kind {owner_kind} is "
                                f"not in {OWNER_MAP_ARG}")


@dataclass(frozen=True, slots=True)
class Verdict:
    """One cell of the policy table: may the reclaimer take this reclaimee's resources, by which rule."""

    allowed: bool
    rule: str
    why: str
    quirk: str = ""


UNKNOWN_RECLAIMER_QUIRK = ("the seed's ReclaimableFn stops only training reclaimers; a reclaimer of unknown type "
                           "(bare pod, owner kind not mapped) still takes training pods (spec §13.3 item 3)")


def reclaimer_verdict(reclaimer: str, unknown_reclaimer_reclaims: bool = True) -> Verdict | None:
    """The reclaimer side of the table: a refusal for every reclaimee, or None when reclaimees decide."""
    if reclaimer == TRAINING:
        return Verdict(False, "trainingNeverReclaims", "the reclaimer is a training task, and training never takes "
                       "resources from training or inference")
    if reclaimer == UNKNOWN and not unknown_reclaimer_reclaims:
        return Verdict(False, "unknownReclaimerBlocked", "the reclaimer's service type is unknown and "
                       "capacitylab.unknownReclaimerReclaims is false")
    return None


def may_reclaim(reclaimer: str, reclaimee: str, unknown_reclaimer_reclaims: bool = True) -> Verdict:
    """The whole table: may a task of type `reclaimer` evict one of type `reclaimee` in reclaim?"""
    blocked = reclaimer_verdict(reclaimer, unknown_reclaimer_reclaims)
    if blocked is not None:
        return blocked
    if reclaimee == INFERENCE:
        return Verdict(False, "inferenceNeverVictim", "it is an inference task, and inference is never reclaimed "
                       "(not even by inference)")
    if reclaimee != TRAINING:
        return Verdict(False, "unknownNeverVictim", "its service type is unknown, and only training tasks are "
                       "reclaimed")
    if reclaimer == INFERENCE:
        return Verdict(True, "inferenceReclaimsTraining", "inference may take resources from training")
    return Verdict(True, "unknownReclaimerReclaims", "training may be reclaimed, and only training reclaimers are "
                   "stopped", UNKNOWN_RECLAIMER_QUIRK)
