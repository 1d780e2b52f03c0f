"""overcommit: admit PodGroups while the cluster, over-committed by a factor, still has room.

pkg/scheduler/plugins/overcommit/overcommit.go (spec actions-framework §9.8). At session open:
`idle = total x factor - Σ node.Used` (per-resource factors `overcommit-factor.<name>` override the
global `overcommit-factor`, default 1.2; a factor below 1 falls back to 1.2), and `inqueue` = the full
minResources of Inqueue PodGroups plus what Running PodGroups (with at least minMember allocated tasks)
still hold in reserve. JobEnqueueable permits a job iff `inqueue + minReq <= idle` on minReq's
dimensions (strict, pods ignored); JobEnqueued adds the admitted job's minResources to `inqueue`.
In a full cluster this rejects new PodGroups, so they never become Inqueue and cannot trigger reclaim.
"""

from __future__ import annotations

from typing import Any

from capacity.core.conf import yaml_number
from capacity.core.model import ALLOCATED_STATUSES, Job, PodGroupPhase
from capacity.core.resources import Resource
from capacity.core.text import safe
from capacity.framework.session import PERMIT, REJECT, Session
from capacity.plugins.base import Plugin
from capacity.plugins.capacity_attrs import inqueue_resource

FACTOR_KEY = "overcommit-factor"
FACTOR_PREFIX = "overcommit-factor."
DEFAULT_FACTOR = 1.2


def parse_factors(args: dict[str, Any], notes: list[str] | None = None) -> dict[str, float]:
    """parseFactor + validate: `overcommit-factor` and `overcommit-factor.<resource>`, YAML numbers only
    (Go accepts float64 and int; anything else is logged and ignored); values below 1 become 1.2."""
    factors: dict[str, float] = {FACTOR_KEY: DEFAULT_FACTOR}
    for key, raw in args.items():
        value = yaml_number(raw)  # (a number beyond Go's int64 / float64 is read as Go's YAML decoder does)
        if value is None:
            if notes is not None and (key == FACTOR_KEY or str(key).startswith(FACTOR_PREFIX)):
                notes.append(f"overcommit: argument {key!r} must be a YAML number, got {safe(repr(raw))[:60]}; "
                             "Volcano ignores it")
            continue
        if key == FACTOR_KEY:
            factors[FACTOR_KEY] = value
        if str(key).startswith(FACTOR_PREFIX):
            factors[str(key)[len(FACTOR_PREFIX):]] = value
    for k, v in list(factors.items()):
        if v < 1.0:
            if notes is not None:
                notes.append(f"overcommit: factor {v} for {k} is below 1; Volcano uses the default "
                             f"{DEFAULT_FACTOR}")
            factors[k] = DEFAULT_FACTOR
    return factors


def scale(r: Resource, factors: dict[str, float], default: float) -> Resource:
    """ScaleResourcesWithRatios: every dimension times its own factor, else the default one."""
    r.cpu *= factors.get("cpu", default)
    r.memory *= factors.get("memory", default)
    if r.scalars:
        for k, v in r.scalars.items():
            r.scalars[k] = v * factors.get(k, default)
    return r


class OvercommitPlugin(Plugin):
    name = "overcommit"

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.trace = ssn.trace
        self.factors = parse_factors(self.args, ssn.notes)
        total = Resource.empty().add(ssn.total_resource)
        used = Resource.empty()
        for node in ssn.node_list:
            used.add(node.used)
        self.scaled = scale(total.clone(), self.factors, self.factors[FACTOR_KEY])
        self.idle = self.scaled.clone().sub_without_assert(used)
        self.total, self.used = total, used  # (for the trace's reason: idle = total x factor - used)
        self.inqueue = Resource.empty()
        for job in ssn.jobs.values():
            if job.min_resources is None:
                continue
            if job.phase == PodGroupPhase.INQUEUE:
                self.inqueue.add(job.min_resources)
                continue
            if job.phase == PodGroupPhase.RUNNING:
                allocated_num = sum(len(b) for s, b in job.index.items() if s & ALLOCATED_STATUSES)
                if allocated_num >= job.min_available:
                    self.inqueue.add(inqueue_resource(job, job.allocated))
        ssn.add_fn("jobEnqueueable", self.name, self.job_enqueueable)
        ssn.add_fn("jobEnqueued", self.name, self.job_enqueued)

    def job_enqueueable(self, job: Job) -> int:
        if job.min_resources is None:
            self.trace.because(self.name, "noMinResources", "the job sets no minResources (best effort)")
            return PERMIT
        min_req = job.min_resources
        want = self.inqueue.clone().add(min_req)
        ok, failed = want.less_equal_with_dimension_and_resources_name(self.idle, min_req)
        if ok:
            self.trace.because(self.name, "overcommit", "inqueue + minResources fit the over-committed idle "
                               "resources of the cluster")
            return PERMIT
        if self.trace.enabled:
            from capacity.core.quantity import format_resource_value as fv
            default = self.factors[FACTOR_KEY]
            sums = "; ".join(
                f"{n}: inqueue {fv(n, self.inqueue.get(n))} + minResources {fv(n, min_req.get(n))} > idle "
                f"{fv(n, self.idle.get(n))} (total {fv(n, self.total.get(n))} x factor "
                f"{self.factors.get(n, default):g} = {fv(n, self.scaled.get(n))}, minus used "
                f"{fv(n, self.used.get(n))})" for n in failed)
            self.trace.because(
                self.name, "overcommit",
                f"resource in cluster is overused: inqueue + minResources exceed total x factor - used on "
                f"{', '.join(failed)}: {sums}", dimensions=failed,
                inqueue={n: self.inqueue.get(n) for n in failed}, minResources={n: min_req.get(n) for n in failed},
                idle={n: self.idle.get(n) for n in failed}, total={n: self.total.get(n) for n in failed},
                used={n: self.used.get(n) for n in failed},
                factor={n: self.factors.get(n, default) for n in failed})
        return REJECT

    def job_enqueued(self, job: Job) -> None:
        if job.min_resources is not None:
            self.inqueue.add(job.min_resources)
