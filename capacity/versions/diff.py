"""Where a chosen release decides differently from HEAD on a scenario, and which change is responsible.

Both are run; each decision that differs (a bind, an eviction, a pipelined job, a PodGroup phase) is then
attributed by turning the release's missing changes on one at a time: a change is responsible for a
decision when turning it on alone makes the release decide as HEAD does. A decision that no single change
explains is attributed, the other way round, to the changes that make HEAD decide as the release when
turned off alone; failing that, to the missing changes together.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from capacity.framework.session import SessionOptions
from capacity.versions.releases import HEAD, Version, backported, version
from capacity.versions.switches import BY_ID

Outcomes = dict[tuple[str, str], str]

_ABSENT = {"bind": "not bound", "evict": "not evicted", "pipeline": "not pipelined", "phase": "no phase"}


def outcomes(cluster: Any, cycles: int, lacking: frozenset[str], base: SessionOptions | None = None) -> Outcomes:
    """The decisions a run makes, keyed by (kind, subject): what `simulate --format json` reports."""
    from capacity.scheduler import simulate
    opts = SessionOptions(leaf_only_allocatable=bool(base and base.leaf_only_allocatable),
                          seed004_root_init=bool(base and base.seed004_root_init),
                          legacy_namespace_fairshare=bool(base and base.legacy_namespace_fairshare),
                          lacking=lacking)
    out = simulate(cluster.copy_state(), cycles, None, opts).as_json()
    got: Outcomes = {}
    for pod, node in out["binds"].items():
        got[("bind", pod)] = f"bound to {node}"
    for pod in out["evicted"]:
        got[("evict", pod)] = "evicted"
    for job, nodes in out["pipelined"].items():
        got[("pipeline", job)] = f"pipelined on {', '.join(nodes)}"
    for job, phase in out["podgroupPhases"].items():
        got[("phase", job)] = phase
    return got


def _differ(a: Outcomes, b: Outcomes) -> set[tuple[str, str]]:
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}


@dataclass
class Difference:
    """One decision the release makes differently from HEAD, and the changes responsible."""

    kind: str       # bind, evict, pipeline, phase
    subject: str    # ns/name of the pod or PodGroup
    chosen: str     # the outcome on the chosen release
    head: str       # the outcome on HEAD
    switches: list[str] = field(default_factory=list)

    def sentence(self, label: str, other: str = "HEAD") -> str:
        who = ("pod " if self.kind in ("bind", "evict") else "job ") + self.subject
        what = "phase " if self.kind == "phase" else ""
        return f"{who}: {what}{self.chosen} on {label}, {what}{self.head} on {other}"

    def because(self) -> list[str]:
        """One line per responsible change: its PR, the release that has it, before and after."""
        out = []
        for sid in self.switches:
            s = BY_ID[sid]
            out.append(f"because of PR #{s.pr} ({sid}), in Volcano from {s.release}{backported(sid)}: before it, "
                       f"{s.before}; "
                       f"from {s.release} on, {s.after}")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "chosen": self.chosen, "head": self.head,
                "switches": [_switch_dict(s) for s in self.switches]}


def _switch_dict(sid: str) -> dict[str, Any]:
    s = BY_ID[sid]
    return {"id": s.id, "pr": s.pr, "release": s.release, "before": s.before, "after": s.after}


@dataclass
class VersionDiff:
    version: Version
    differences: list[Difference]
    other: Version | None = None  # what it is compared with: HEAD unless given

    @property
    def other_label(self) -> str:
        return self.other.label if self.other is not None else "HEAD"

    def lines(self) -> list[str]:
        """The text `explain` prints: nothing when the release decides as HEAD does."""
        label, other = self.version.label, self.other_label
        if label == other:
            return []
        if not self.differences:
            return [f"{label} decides as {other} does on this scenario."]
        out = [f"{label} decides differently from {other} on this scenario:"]
        for d in self.differences:
            out.append(f"  {d.sentence(label, other)}")
            out += [f"    {line}" for line in d.because()]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version.label, "comparedWith": self.other_label,
                "differences": [d.as_dict() for d in self.differences]}


def version_diff(cluster: Any, cycles: int, chosen: Version, base: SessionOptions | None = None) -> VersionDiff:
    """Run `cluster` on `chosen` and on HEAD and attribute each differing decision to a change."""
    return compare_releases(cluster, cycles, chosen, version(HEAD), base)


def compare_releases(cluster: Any, cycles: int, chosen: Version, other: Version,
                     base: SessionOptions | None = None) -> VersionDiff:
    """Run `cluster` on two releases; each decision `chosen` makes differently from `other`, with the
    changes (those one release has and the other lacks) responsible for it."""
    between = chosen.lacking ^ other.lacking
    if not between:
        return VersionDiff(chosen, [], other)
    mine = outcomes(cluster, cycles, chosen.lacking, base)
    theirs = outcomes(cluster, cycles, other.lacking, base)
    differ = _differ(mine, theirs)
    if not differ:
        return VersionDiff(chosen, [], other)
    order = sorted(between, key=lambda i: (BY_ID[i].minor, BY_ID[i].pr))
    responsible: dict[tuple[str, str], list[str]] = {k: [] for k in differ}
    for sid in order:  # `chosen` with this one change flipped to what `other` has
        moved = _differ(mine, outcomes(cluster, cycles, chosen.lacking ^ {sid}, base)) & differ
        for k in moved:
            responsible[k].append(sid)
    unexplained = [k for k, v in responsible.items() if not v]
    if unexplained:
        for sid in order:  # `other` with this one change flipped to what `chosen` has
            moved = _differ(theirs, outcomes(cluster, cycles, other.lacking ^ {sid}, base))
            for k in unexplained:
                if k in moved:
                    responsible[k].append(sid)
        for k in unexplained:
            if not responsible[k]:
                responsible[k] = list(order)
    diffs = [Difference(kind, subject, mine.get((kind, subject), _ABSENT[kind]),
                        theirs.get((kind, subject), _ABSENT[kind]), responsible[(kind, subject)])
             for kind, subject in sorted(differ, key=lambda k: (k[1], k[0]))]
    return VersionDiff(chosen, diffs, other)
