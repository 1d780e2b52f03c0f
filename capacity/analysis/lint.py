"""Configuration linter: what Volcano will do with a cluster's queues and scheduler configuration.

`lint(cluster)` returns `Finding`s, each naming the object and field, what is wrong, and what Volcano
does about it (ignores it, rejects it at the webhook, stalls the cycle, ...). The rules are Volcano's
own: the lenient conf parser (spec actions-framework §2), the tier combinators (§4), the capacity
plugin's hierarchy build (spec queue-plugins §3.1-3.4, 3.10) and the queue admission webhook (§1.11).
A scheduler never re-validates what the webhook checks, so a raw dump can hold both kinds of problem.

Severities: **error** — Volcano rejects it (webhook or conf file), crashes on it, stalls scheduling for
everyone, or a configured action can never do anything; **warning** — accepted, but Volcano silently
ignores or reinterprets it; **info** — worth knowing, usually intended.

`lint_text` / `lint_objects` also read raw objects the loader refuses (queue cycles, self-parents: the
loader raises, Volcano would crash) and objects the loader ignores (a Deployment's own annotations).
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from capacity.core.cluster import Cluster, LoadWarning
from capacity.core.conf import SWITCH_DEFAULTS, ConfWarning, PluginOption, default_conf, get_int
from capacity.core.errors import InputError
from capacity.core.model import QueueSpec
from capacity.core.quantity import format_resource_value as _fmt  # the one quantity formatter
from capacity.core.quantity import format_resources
from capacity.core.resources import INFINITY, MIN_RESOURCE, ZERO, Resource, res_max
from capacity.core.text import safe_lines
from capacity.core.webhook import AdmissionError, is_admission_warning, queue_weight, validate_cluster
from capacity.io.k8s import (
    CONFIGMAP_NAME,
    MAX_QUEUE_DEPTH,
    PREEMPTABLE_KEY,
    _Reader,
    iter_documents,
    parse_conf_text,
)
from capacity.plugins.capacity_attrs import inherit_capability, root_capability

__all__ = ["RULES", "SEVERITIES", "Finding", "counts", "lint", "lint_objects", "lint_text", "render_text"]

SEVERITIES = ("error", "warning", "info")
ROOT = "root"
CONF_OBJ = f"ConfigMap/{CONFIGMAP_NAME}"

#: Every rule id (stable, kebab-case) with one line saying what it catches.
RULES: dict[str, str] = {
    "unknown-switch": "a plugin switch Volcano does not know (often a misspelling, e.g. enabledHierarchy)",
    "switch-not-boolean": "a plugin switch that is not true/false",
    "unknown-plugin": "a plugin name Volcano does not know",
    "unknown-conf-key": "a top-level key of volcano-scheduler.conf Volcano does not know",
    "configuration-without-name": "a configurations[] entry without an action name",
    "not-simulated": "an action or plugin Volcano runs but Capacity Lab does not simulate",
    "proportion-drf-hierarchy": "proportion and drf with enableHierarchy in the same tier",
    "capacity-and-proportion": "both queue plugins, capacity and proportion, are configured",
    "victim-tier-order": "gang/conformance in an earlier tier decide reclaim victims before capacity/proportion",
    "gangreclaim-without-deserved-check": "gangreclaim with proportion: nothing checks victim queues' deserved",
    "no-job-starving": "reclaim/preempt configured but no plugin answers JobStarving",
    "argument-wrong-type": "a plugin or action argument of the wrong YAML type (e.g. a quoted integer)",
    "argument-out-of-range": "a plugin argument Volcano replaces with its default",
    "parent-without-hierarchy": "spec.parent set while capacity's enableHierarchy is off",
    "missing-root-queue": "hierarchy on, but there is no root queue",
    "unknown-parent": "spec.parent names a queue that does not exist",
    "self-parent": "a queue is its own parent",
    "parent-cycle": "queue parents form a cycle",
    "queue-too-deep": "a queue deeper than the webhook's max-queue-depth (5)",
    "child-capability-above-parent": "a child's capability above its parent's on some dimension",
    "children-deserved-above-parent": "the children's deserved add up to more than the parent's",
    "children-guarantee-above-parent": "the children's guarantees add up to more than the parent's",
    "guarantee-without-deserved": "a guaranteed resource with no deserved for it (the queue webhook rejects it)",
    "guarantee-above-deserved": "a guarantee above the deserved of the same resource (the queue webhook rejects it)",
    "deserved-above-capability": "a deserved above the capability of the same resource (the queue webhook rejects it)",
    "webhook-quantity-not-integer": "the queue webhook rejects it: a fractional quantity of an extended resource",
    "webhook-state-invalid": "the queue webhook rejects it: a queue state other than Open or Closed",
    "webhook-hierarchy-annotation": "the queue webhook rejects it: volcano.sh/hierarchy annotations that do not "
                                    "match, bad weights, or a path inside another queue's",
    "webhook-parent-has-pods": "the queue webhook rejects it: the first child of a queue with allocated pods",
    "webhook-capability-above-ancestor": "the queue webhook rejects it: a capability above the nearest "
                                         "ancestor's capability on some dimension",
    "webhook-children-guarantee-above-parent": "the queue webhook rejects it: children guarantee more than their "
                                               "parent (an unset parent dimension is 0)",
    "webhook-children-deserved-above-parent": "the queue webhook rejects it: children deserve more than their "
                                              "parent (an unset parent dimension is 0)",
    "capability-above-cluster": "a capability above the cluster's total of that resource (it never limits)",
    "deserved-with-proportion": "spec.deserved set while proportion, which never reads it, is the queue plugin",
    "root-capability-kept": "a root capability set by the user, kept as is (not infinite)",
    "root-quota-overwritten": "a root deserved/guarantee set by the user, overwritten by Volcano",
    "job-on-non-leaf-queue": "hierarchy on, a PodGroup in a queue that has child queues",
    "unknown-resource": "a queue quota names a resource that no node has",
    "queue-state-invalid": "a queue state other than Open/Closed/Closing/Unknown",
    "queue-weight-invalid": "a queue weight outside 1..65535",
    "queue-not-open-with-jobs": "a queue that is not Open holds PodGroups",
    "podgroup-unknown-queue": "a PodGroup names a queue that does not exist",
    "elastic-job-never-starving": "gang decides JobStarving and a job's extra pods can never reclaim or preempt",
    "preemptable-on-workload": "volcano.sh/preemptable on a workload's own metadata, not its pod template",
    "loader-warning": "input the reader tolerated (as Volcano does) but reported",
}

#: Plugins that register a JobStarving function (gang.go, priority.go, tdm.go).
STARVING_PLUGINS = ("priority", "gang", "tdm")
#: Plugins whose Reclaimable/UnifiedEvictable answer can settle the victims before a queue plugin's.
EARLY_VICTIM_PLUGINS = ("gang", "conformance")
QUEUE_PLUGINS = ("capacity", "proportion", "capacity-card")
EVICTING_ACTIONS = ("reclaim", "preempt", "gangreclaim", "gangpreempt")
QUEUE_STATES = ("Open", "Closed", "Closing", "Unknown")
MAX_WEIGHT = 65535
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "CronJob")

#: Integer arguments Volcano reads with Arguments.GetInt, per plugin, with their defaults (None: not pinned
#: down here). binpack also reads `binpack.resources.<name>` for every name listed in `binpack.resources`.
INT_PLUGIN_ARGS: dict[str, dict[str, int | None]] = {
    "capacity": {"ancestorReclaimLevel": 0},
    "binpack": {"binpack.weight": 1, "binpack.cpu": 1, "binpack.memory": 1},
    "nodeorder": dict.fromkeys(("leastrequested.weight", "mostrequested.weight", "balancedresource.weight",
                                "nodeaffinity.weight", "podaffinity.weight", "tainttoleration.weight",
                                "imagelocality.weight", "podtopologyspread.weight")),
}
#: Integer arguments of `configurations[]` entries, per action (spec actions-framework §2.3).
INT_ACTION_ARGS: dict[str, dict[str, int | None]] = {
    "preempt": {"topologyAwarePreemptWorkerNum": 16, "minCandidateNodesPercentage": 10,
                "minCandidateNodesAbsolute": 1, "maxCandidateNodesAbsolute": 100},
    "gangpreempt": {"maxDomains": 8},
    "gangreclaim": {"maxDomains": 8},
}
OVERCOMMIT_FACTOR = "overcommit-factor"


@dataclass(frozen=True, slots=True)
class Finding:
    """One lint result: where (obj, field), what (message) and Volcano's reaction (volcano_does)."""

    severity: str
    rule: str
    obj: str
    field: str
    message: str
    volcano_does: str

    def as_dict(self) -> dict[str, str]:
        return {"severity": self.severity, "rule": self.rule, "obj": self.obj, "field": self.field,
                "message": self.message, "volcanoDoes": self.volcano_does}

    def __str__(self) -> str:
        where = f"{self.obj}: {self.field}" if self.field else self.obj
        return f"{self.severity}: {where}: {self.message} [{self.rule}]"


# ---- entry points ---------------------------------------------------------------------------------
def lint(cluster: Cluster, lacking: frozenset[str] = frozenset()) -> list[Finding]:
    """Every finding for a loaded cluster, errors first. Never raises on a malformed queue tree. `lacking`:
    the changes the chosen Volcano release does not have (the queue webhook's rules are that release's)."""
    ctx = _Context(cluster)
    ctx.lacking = lacking
    found: list[Finding] = []
    for check in _CHECKS:
        found.extend(check(ctx))
    found = _drop_reported_webhook_findings(found)
    found.extend(_loader_findings([w for w in cluster.warnings if not is_admission_warning(w)], found))
    return _sorted(found)


def lint_objects(objs: Iterable[dict[str, Any]], source: str = "input", conf_text: str | None = None,
                 lacking: frozenset[str] = frozenset()) -> list[Finding]:
    """Lint raw Kubernetes objects, including trees the loader refuses and objects it ignores.

    Raises InputError only where nothing can be read (malformed objects or quantities, an invalid conf).
    """
    docs = list(objs)
    cluster = _load_tolerating_tree_errors(docs, source, conf_text)
    return _sorted(lint(cluster, lacking) + _raw_findings(docs))


def lint_text(text: str, source: str = "input", conf_text: str | None = None,
              lacking: frozenset[str] = frozenset()) -> list[Finding]:
    """`lint_objects` over a YAML stream (or `kind: List`), as `python -m capacity lint` reads it."""
    return lint_objects(iter_documents(text, source), source, conf_text, lacking)


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    out = dict.fromkeys(SEVERITIES, 0)
    for f in findings:
        out[f.severity] += 1
    return out


#: `render_text` prints at most this many findings of one rule (a 5,000-queue chain has 4,995 too-deep ones).
SHOWN_PER_RULE = 20


def render_text(findings: list[Finding], per_rule: int | None = SHOWN_PER_RULE) -> str:
    """Findings grouped by severity, each with what Volcano does, and a summary line; past `per_rule`
    findings of one rule, a line saying how many more there are (JSON output lists them all)."""
    lines: list[str] = []
    if not findings:
        lines.append("no findings")
    for sev in SEVERITIES:
        group = [f for f in findings if f.severity == sev]
        if not group:
            continue
        lines.append(f"{sev}s ({len(group)}):" if sev != "info" else f"info ({len(group)}):")
        shown: dict[str, int] = {}
        for f in group:
            shown[f.rule] = shown.get(f.rule, 0) + 1
            if per_rule is not None and shown[f.rule] > per_rule:
                continue
            where = f"{f.obj}: {f.field}" if f.field else f.obj
            lines.append(f"  {where} [{f.rule}]")
            lines.append(f"    {f.message}")
            lines.append(f"    Volcano: {f.volcano_does}")
        for rule, n in shown.items():
            if per_rule is not None and n > per_rule:
                lines.append(f"  ... and {n - per_rule:,} more [{rule}] (--format json lists every finding)")
    shown_rules = list(dict.fromkeys(f.rule for f in findings if f.rule in RULES))
    if shown_rules:  # each [rule] above in plain words, once
        lines.append("rules:")
        lines += [f"  [{r}] {RULES[r]}" for r in shown_rules]
    c = counts(findings)
    lines.append(f"summary: {c['error']} error(s), {c['warning']} warning(s), {c['info']} info")
    return safe_lines(lines)  # a newline in a queue name cannot fake a line of its own


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: SEVERITIES.index(f.severity))


def _load_tolerating_tree_errors(docs: list[dict[str, Any]], source: str, conf_text: str | None) -> Cluster:
    """`k8s.load_objects`, except that a self-parent or a cycle is left for lint to report.

    The loader refuses those (Volcano would recurse forever, spec 3.1); `_Reader.finish` raises only
    from `check_queue_tree`, and everything before it is already read.
    """
    cluster = Cluster(conf=default_conf())
    reader = _Reader(cluster, source)
    found_conf = False
    for doc in docs:
        found_conf |= reader.read(doc)
    if conf_text is not None:
        cluster.conf = parse_conf_text(conf_text, "volcano-scheduler.conf")
        found_conf = True
    with contextlib.suppress(InputError):  # the queue tree: reported by the self-parent / parent-cycle rules
        reader.finish(found_conf)
    return cluster


# ---- shared context ---------------------------------------------------------------------------
class _Context:
    """What several rules need: the conf's plugin positions, the queue tree, node resources."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.lacking: frozenset[str] = frozenset()  # changes the chosen Volcano release lacks (lint())
        self.conf = cluster.conf
        self.queues = cluster.queues
        cap = self.conf.plugin("capacity")
        self.hierarchy = bool(cap and cap.hierarchy)
        self.positions: dict[str, list[tuple[int, int, PluginOption]]] = {}
        for ti, tier in enumerate(self.conf.tiers):
            for pi, opt in enumerate(tier):
                self.positions.setdefault(opt.name, []).append((ti, pi, opt))
        self.children: dict[str, list[str]] = {}
        for name in sorted(self.queues):
            if name != ROOT:
                self.children.setdefault(self.queues[name].parent or ROOT, []).append(name)
        self.podgroups_by_queue: dict[str, list[str]] = {}
        for uid, pg in cluster.podgroups.items():
            self.podgroups_by_queue.setdefault(pg.queue, []).append(uid)
        self.total = Resource.empty()
        self.node_resources: set[str] = set()
        for node in cluster.nodes:
            self.total.add(node.allocatable)
            self.node_resources.update((node.allocatable.scalars or {}).keys())
            if node.allocatable.cpu > 0:
                self.node_resources.add("cpu")
            if node.allocatable.memory > 0:
                self.node_resources.add("memory")

    def actions(self, *names: str) -> list[str]:
        return [a for a in self.conf.actions if a in names]

    def where(self, ti: int, pi: int) -> str:
        return f"tiers[{ti}].plugins[{pi}]"

    def parent(self, name: str) -> str:
        return self.queues[name].parent or ROOT


def _dims(r: Resource) -> list[str]:
    """The dimensions a quota sets: cpu/memory when positive, every scalar key present (even 0)."""
    names = [n for n in ("cpu", "memory") if r.get(n) > 0]
    return names + sorted((r.scalars or {}).keys())


def _first_few(names: list[str], shown: int = 3) -> str:
    """"a, b, c, ...": the first names of a list that may be long."""
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")


def _describe(r: Resource, names: list[str]) -> str:
    return format_resources({n: r.get(n) for n in names}, empty="")


# ---- configuration rules ------------------------------------------------------------------------
_CONF_PATTERNS: list[tuple[str, str, str, str]] = [
    # (message substring, rule, severity, what Volcano does)
    ("unknown switch", "unknown-switch", "warning", "ignores the key (the YAML is parsed leniently); the switch "
     "you meant keeps its default"),
    ("must be true or false", "switch-not-boolean", "error", "cannot decode the file, so it rejects the whole "
     "configuration and keeps running with its previous one (the built-in default at start-up)"),
    ("unknown plugin", "unknown-plugin", "warning", "logs an error when each session opens and schedules "
     "without the plugin"),
    ("unknown top-level key", "unknown-conf-key", "warning", "ignores the key"),
    ("needs a 'name'", "configuration-without-name", "warning", "ignores the entry: no action reads its "
     "arguments"),
    ("is not simulated", "not-simulated", "info", "runs it; Capacity Lab skips it, so simulated decisions can "
     "differ where it would have acted"),
    ("proportion together with drf", "proportion-drf-hierarchy", "error", "rejects the whole configuration "
     "and keeps running with its previous one"),
    ("Volcano refuses the whole configuration", "conf-refused", "error", "rejects the whole configuration and "
     "keeps running with its previous one (the built-in default at start-up)"),
]
_VOLCANO_CLAUSE = re.compile(r"; Volcano[^(]*?(?= \(|$)")
_SUGGESTION = re.compile(r"did you mean '([^']+)'")


def _conf_finding(w: ConfWarning) -> Finding:
    """A parse_conf warning as a finding: its rule from the message, Volcano's reaction split off."""
    rule, severity, does = "loader-warning", "warning", "see the message"
    for needle, r, s, d in _CONF_PATTERNS:
        if needle in w.message:
            rule, severity, does = r, s, d
            break
    if rule == "unknown-switch":
        m = _SUGGESTION.search(w.message)
        if m and m.group(1) in SWITCH_DEFAULTS:
            state = "on" if SWITCH_DEFAULTS[m.group(1)] else "off"
            does = f"ignores the key, so {m.group(1)!r} keeps its default ({state})"
    message = _VOLCANO_CLAUSE.sub("", w.message)
    return Finding(severity, rule, CONF_OBJ, w.field, message, does)


def _check_conf_warnings(ctx: _Context) -> list[Finding]:
    return [_conf_finding(w) for w in ctx.conf.warnings]


def _check_capacity_and_proportion(ctx: _Context) -> list[Finding]:
    if "capacity" not in ctx.positions or "proportion" not in ctx.positions:
        return []
    later = max(ctx.positions["capacity"][0], ctx.positions["proportion"][0], key=lambda p: (p[0], p[1]))
    first = "proportion" if later[2].name == "capacity" else "capacity"
    return [Finding(
        "warning", "capacity-and-proportion", CONF_OBJ, ctx.where(later[0], later[1]),
        f"both queue plugins are configured ({first} first, then {later[2].name}); use one of them",
        "runs both: Allocatable, Preemptive and enqueue need both to agree (proportion also limits queues "
        "to its own computed deserved share and ignores spec.deserved), the first plugin in tier order "
        "decides queue order, and reclaim victims must pass both within a tier")]


def _check_victim_tier_order(ctx: _Context) -> list[Finding]:
    """Issue #5896: the first tier that returns victims wins, so an earlier gang/conformance settles them."""
    out: list[Finding] = []
    for action in ctx.actions("reclaim", "gangreclaim"):
        # reclaim asks ReclaimableFn (gated by enableReclaimable); gangreclaim asks UnifiedEvictable (no switch)
        def active(opt: PluginOption, action: str = action) -> bool:
            return action == "gangreclaim" or opt.enabled("reclaimable")

        queue_tiers = [(ti, opt.name) for name in QUEUE_PLUGINS for ti, _pi, opt in ctx.positions.get(name, [])
                       if active(opt) and not (action == "gangreclaim" and name == "proportion")]
        if not queue_tiers:
            continue
        qtier, qname = min(queue_tiers)
        for name in EARLY_VICTIM_PLUGINS:
            for ti, pi, opt in ctx.positions.get(name, []):
                if ti >= qtier or not active(opt):
                    continue
                if name == "conformance":
                    what = "passes every candidate that is not a critical pod"
                elif action == "reclaim":
                    what = "passes every pod above its job's minMember"
                else:
                    what = "passes every candidate"
                fix = ("set enableReclaimable: false on it or put it in the same tier as " + qname
                       if action == "reclaim" else f"put {qname} in the same tier as {name}")
                out.append(Finding(
                    "warning", "victim-tier-order", CONF_OBJ, ctx.where(ti, pi),
                    f"{name} in tier {ti + 1} answers {action}'s victim question before {qname} in tier "
                    f"{qtier + 1}; {qname}'s deserved/guarantee checks are bypassed whenever {name} returns "
                    f"victims (issue #5896); {fix}",
                    f"takes the victims of the first tier that returns any: {name} {what}, and {qname} in a "
                    "later tier is never asked"))
    return out


def _check_gangreclaim_proportion(ctx: _Context) -> list[Finding]:
    if not ctx.actions("gangreclaim") or "proportion" not in ctx.positions or "capacity" in ctx.positions:
        return []
    ti, pi, _opt = ctx.positions["proportion"][0]
    return [Finding(
        "warning", "gangreclaim-without-deserved-check", CONF_OBJ, ctx.where(ti, pi),
        "gangreclaim is configured with proportion as the queue plugin; proportion registers no "
        "UnifiedEvictable function",
        "evicts whole gangs from other queues without checking whether those queues are above their "
        "deserved share (only gang, priority and conformance filter the bundles)")]


def _check_job_starving(ctx: _Context) -> list[Finding]:
    evicting = ctx.actions(*EVICTING_ACTIONS)
    if not evicting:
        return []
    if any(opt.enabled("jobStarving") for name in STARVING_PLUGINS for _t, _p, opt in ctx.positions.get(name, [])):
        return []
    return [Finding(
        "error", "no-job-starving", CONF_OBJ, "tiers",
        f"{', '.join(evicting)} configured, but no plugin with a JobStarving function is enabled "
        f"({', '.join(STARVING_PLUGINS)}, switch enableJobStarving)",
        f"treats every job as not starving: no preemptor is ever picked, so {' and '.join(evicting)} do nothing")]


def _check_arguments(ctx: _Context) -> list[Finding]:
    """Arguments.GetInt takes only a YAML integer, GetFloat64 only a number: a quoted "1" is ignored."""
    out: list[Finding] = []

    def check_ints(args: dict[str, Any], wanted: dict[str, int | None], base: str) -> None:
        for key, default in wanted.items():
            value, warn = get_int(args, key, 0)
            if warn:
                keeps = "its default" if default is None else f"its default {default}"
                out.append(Finding("warning", "argument-wrong-type", CONF_OBJ, f"{base}.{key}",
                                   _VOLCANO_CLAUSE.sub("", warn), f"ignores the value and uses {keeps}"))
            elif key == "ancestorReclaimLevel" and value < 0:
                out.append(Finding("warning", "argument-out-of-range", CONF_OBJ, f"{base}.{key}",
                                   f"ancestorReclaimLevel is {value}", "uses 0: no ancestor checks in reclaim"))

    for ti, tier in enumerate(ctx.conf.tiers):
        for pi, opt in enumerate(tier):
            base = f"{ctx.where(ti, pi)}.arguments"
            args = opt.arguments
            wanted = dict(INT_PLUGIN_ARGS.get(opt.name, {}))
            if opt.name == "binpack":
                listed = args.get("binpack.resources")
                if listed is not None and not isinstance(listed, str):
                    out.append(Finding("warning", "argument-wrong-type", CONF_OBJ, f"{base}.binpack.resources",
                                       f"must be a comma-separated string, got {listed!r}",
                                       "ignores the value: only cpu and memory are weighted"))
                for name in (listed if isinstance(listed, str) else "").split(","):
                    if name.strip():
                        wanted[f"binpack.resources.{name.strip()}"] = 1
            check_ints(args, wanted, base)
            if opt.name == "overcommit":
                for key, value in args.items():
                    if key != OVERCOMMIT_FACTOR and not str(key).startswith(OVERCOMMIT_FACTOR + "."):
                        continue
                    if isinstance(value, bool) or not isinstance(value, int | float):
                        out.append(Finding("warning", "argument-wrong-type", CONF_OBJ, f"{base}.{key}",
                                           f"argument {key!r} must be a YAML number, got {value!r}",
                                           "ignores the value and uses its default 1.2"))
                    elif value < 1:
                        out.append(Finding("warning", "argument-out-of-range", CONF_OBJ, f"{base}.{key}",
                                           f"overcommit factor {value} is below 1", "uses the default 1.2"))
    for action, wanted in INT_ACTION_ARGS.items():
        check_ints(ctx.conf.action_arguments(action), wanted, f"configurations[{action}].arguments")
    return out


# ---- queue tree rules -------------------------------------------------------------------------
#: A parent chain longer than this is printed with its middle left out (`_chain_text`).
CHAIN_SHOWN = 10
_CHAIN_ENDS = 4  # queues shown at each end of a shortened chain


@dataclass(slots=True)
class _Place:
    """Where a queue sits: how its parent chain ends ('root', 'unknown' parent, or 'cycle'), its depth
    below root, the first queues of its chain from the top (at most `_CHAIN_ENDS`)."""

    end: str
    depth: int
    top: tuple[str, ...]


def _places(ctx: _Context) -> tuple[dict[str, _Place], list[list[str]]]:
    """Every queue's `_Place` and every parent cycle, in one pass: each queue is walked up only until a
    queue already placed, so the work is linear in the number of queues (a 10,000-queue chain included).
    A cycle is listed in parent order, starting at its member that sorts first."""
    places: dict[str, _Place] = {}
    cycles: list[list[str]] = []
    for name in ctx.queues:
        if name == ROOT or name in places:
            continue
        path: list[str] = []
        on_path: dict[str, int] = {}
        cur = name
        while cur != ROOT and cur in ctx.queues and cur not in places and cur not in on_path:
            on_path[cur] = len(path)
            path.append(cur)
            cur = ctx.queues[cur].parent or ROOT
        if cur in on_path:  # a new cycle: its members end there, and so does the tail leading into it
            loop = path[on_path[cur]:]
            first = loop.index(min(loop))
            if len(loop) > 1:  # (a queue that is its own parent has a rule of its own)
                cycles.append(loop[first:] + loop[:first])
            base = _Place("cycle", 0, ())
        elif cur == ROOT:
            base = _Place("root", 0, ())
        elif cur in places:
            base = places[cur]
        else:
            base = _Place("unknown", 0, ())
        for q in reversed(path):
            top = base.top if len(base.top) >= _CHAIN_ENDS else (*base.top, q)
            base = places[q] = _Place(base.end, base.depth + 1, top)
    return places, cycles


def _chain_text(ctx: _Context, name: str, place: _Place) -> str:
    """`name`'s chain from the top down to it, `a -> b -> ... (9,990 more) -> z` when long."""
    if place.depth <= CHAIN_SHOWN:
        names = [name]
        while len(names) < place.depth:
            names.append(ctx.parent(names[-1]))
        return " -> ".join(reversed(names))
    tail = [name]
    while len(tail) < _CHAIN_ENDS:
        tail.append(ctx.parent(tail[-1]))
    left = place.depth - len(place.top) - len(tail)
    return " -> ".join([*place.top, f"... ({left:,} more)", *reversed(tail)])


def _cycle_text(cycle: list[str]) -> str:
    if len(cycle) + 1 <= CHAIN_SHOWN:
        return " -> ".join([*cycle, cycle[0]])
    left = len(cycle) + 1 - 2 * _CHAIN_ENDS
    return " -> ".join([*cycle[:_CHAIN_ENDS], f"... ({left:,} more)", *cycle[-_CHAIN_ENDS + 1:], cycle[0]])


def _check_tree(ctx: _Context) -> list[Finding]:
    out: list[Finding] = []
    hint = _hierarchy_hint(ctx)
    places, cycles = _places(ctx)
    for cycle in cycles:
        out.append(Finding(
            "error", "parent-cycle", f"Queue/{cycle[0]}", "spec.parent",
            f"queue parents form a cycle: {_cycle_text(cycle)}",
            "the queue webhook rejects it (the parent chain never reaches root); with hierarchy on, "
            "the capacity plugin cannot detect it and the scheduler recurses forever (a crash)"))
    for name in sorted(ctx.queues):
        q = ctx.queues[name]
        obj = f"Queue/{name}"
        if name == ROOT:
            continue
        if q.parent == name:
            out.append(Finding(
                "error", "self-parent", obj, "spec.parent", "the queue names itself as its parent",
                "the queue webhook rejects it; if it gets in anyway with hierarchy on, the capacity plugin "
                "accepts it silently and the scheduler then recurses forever cloning the queue (a crash)"))
            continue
        if q.parent and q.parent != ROOT and q.parent not in ctx.queues:
            if ctx.hierarchy:
                out.append(Finding(
                    "error", "unknown-parent", obj, "spec.parent", f"parent queue {q.parent!r} does not exist",
                    "the queue webhook rejects it; in the scheduler the capacity plugin sets "
                    "readyToSchedule=false: nothing is allocated, enqueued or reclaimed anywhere this cycle"))
            else:
                out.append(Finding(
                    "warning", "unknown-parent", obj, "spec.parent", f"parent queue {q.parent!r} does not exist",
                    "the queue webhook rejects it; with hierarchy off the scheduler ignores spec.parent"))
        place = places[name]
        if place.end == "cycle":
            continue
        # the webhook's depth limit came with PR #4973 (v1.15.0): an older release admits a deeper tree
        if place.end == "root" and place.depth > MAX_QUEUE_DEPTH and "pr4973-webhook" not in ctx.lacking:
            out.append(Finding(
                "error", "queue-too-deep", obj, "spec.parent",
                f"the queue is {place.depth} levels below root ({_chain_text(ctx, name, place)}); the "
                f"limit is {MAX_QUEUE_DEPTH}",
                f"the queue webhook rejects it (max-queue-depth, default {MAX_QUEUE_DEPTH})"))
        if not ctx.hierarchy and q.parent and q.parent != ROOT:
            out.append(Finding(
                "warning", "parent-without-hierarchy", obj, "spec.parent",
                f"spec.parent is {q.parent!r} but the capacity plugin's enableHierarchy is off{hint}",
                "ignores spec.parent: every queue is scheduled as a flat queue, and the parent's capability, "
                "deserved and guarantee do not limit this one"))
    if ctx.hierarchy and ROOT not in ctx.queues:
        out.append(Finding(
            "error", "missing-root-queue", f"Queue/{ROOT}", "metadata.name",
            "capacity's enableHierarchy is on but the snapshot has no root queue (a live scheduler creates it "
            "at start-up: add it to the dump)",
            "a session without root sets readyToSchedule=false: capacity refuses every allocation, enqueue "
            "and reclaim in the cycle"))
    return out


def _hierarchy_hint(ctx: _Context) -> str:
    """Why hierarchy is off: capacity missing, or its entry holds a misspelled / non-boolean switch."""
    refused = next((w for w in ctx.conf.warnings if w.field.endswith(".enableHierarchy")
                    and "Volcano refuses the whole configuration" in w.message), None)
    if refused is not None:
        return (f" ({refused.field} is not a YAML boolean, so Volcano refuses the configuration and runs its "
                "default, without capacity)")
    if "capacity" not in ctx.positions:
        return " (capacity is not configured at all)"
    entries = tuple(f"{ctx.where(ti, pi)}." for ti, pi, _opt in ctx.positions["capacity"])
    for w in ctx.conf.warnings:
        if not w.field.startswith(entries):
            continue
        if w.field.endswith(".enableHierarchy"):
            return f" ({w.field} is not a YAML boolean)"
        if "'enableHierarchy'" in w.message:
            return f" ({w.field} is a misspelling Volcano ignores)"
    return ""


def _effective_capabilities(ctx: _Context) -> dict[str, Resource]:
    """Capability after the hierarchy build (spec 3.3-3.4), by the capacity plugin's own rules (root_capability,
    inherit_capability). Only queues reachable from root."""
    root = ctx.queues.get(ROOT)
    if root is None:
        return {}
    caps = {ROOT: _root_capability(ctx, root).clone()}
    scalars = "pr4504" not in ctx.lacking  # before PR #4504 (v1.13.0) a child took only cpu and memory
    todo = [ROOT]
    while todo:
        p = todo.pop()
        pcap = caps[p]
        for c in ctx.children.get(p, []):
            if c in caps:
                continue
            q = ctx.queues[c]
            ccap = q.capability.clone() if q.capability is not None else Resource.empty()
            inherit_capability(ccap, pcap, scalars)  # (the engine's own rule, as the chosen release has it)
            caps[c] = ccap
            todo.append(c)
    return caps


def _root_capability(ctx: _Context, root: QueueSpec) -> Resource:
    """Root's capability as the chosen release's build sets it (capacity_tree.CapacityTree): before PR #4973
    (v1.15.0) an empty one is the cluster total, and before PR #4354 (v1.13.0) it always is."""
    if "pr4973" in ctx.lacking and ("pr4354" in ctx.lacking or root.capability is None or root.capability.is_empty()):
        return ctx.total
    return root_capability(root.capability, ctx.total)


_NO_TREE_WEBHOOK = ("this release's queue webhook accepts it (it checked no queue against its parent or children "
                    "before PR #4864, v1.14.0); ")


def _logged_or_stops(ctx: _Context) -> str:
    """What the scheduler does with a hierarchy check that fails, on the chosen release."""
    if "pr4864" in ctx.lacking:
        return ("on this release the capacity plugin stops (readyToSchedule=false): it refuses every allocation, "
                "enqueue and reclaim of the cycle until the tree is fixed (before PR #4864, v1.14.0; from then on "
                "the scheduler only logs it)")
    return "the scheduler only logs it"


def _check_hierarchy_quotas(ctx: _Context) -> list[Finding]:
    if not ctx.hierarchy:
        return []
    out: list[Finding] = []
    caps = _effective_capabilities(ctx)
    for parent in sorted(caps):
        pq = ctx.queues[parent]
        kids = [c for c in ctx.children.get(parent, []) if c in caps]
        if not kids:
            continue
        for c in kids:
            over, names = caps[c].greater_partly(caps[parent], INFINITY)
            names = [n for n in names if n != "pods"] or names
            if not over:
                continue
            explicit = pq.capability is not None and not pq.capability.is_empty()
            out.append(Finding(
                "error" if explicit else "warning", "child-capability-above-parent", f"Queue/{c}",
                f"spec.capability.{names[0]}",
                f"capability {_describe(caps[c], names)} is above the capability of parent {parent!r} "
                f"({_describe(caps[parent], names)}{'' if explicit else ', inherited'})",
                (_NO_TREE_WEBHOOK if "pr4864-webhook" in ctx.lacking else
                 "the queue webhook rejects it (the parent sets its capability); " if explicit else "")
                + _logged_or_stops(ctx) + ("" if "pr4864" in ctx.lacking else ": the child's realCapability stays "
                                            "capped by its parent's, so the excess can never be used")))
        if parent == ROOT:
            continue
        sum_d = Resource.empty()
        sum_g = Resource.empty()
        raised = "pr4973" not in ctx.lacking  # (before PR #4973 a deserved was not raised to its guarantee)
        for c in kids:
            cq = ctx.queues[c]
            guarantee = cq.guarantee or Resource.empty()
            sum_d.add(res_max(cq.deserved or Resource.empty(), guarantee) if raised else
                      cq.deserved or Resource.empty())
            sum_g.add(guarantee)
        p_guarantee = pq.guarantee or Resource.empty()
        p_deserved = res_max(pq.deserved or Resource.empty(), p_guarantee) if raised else \
            pq.deserved or Resource.empty()
        for label, mine, total, explicit in (
                ("deserved", p_deserved, sum_d, pq.deserved is not None),
                ("guarantee", p_guarantee, sum_g, pq.guarantee is not None)):
            if total.is_empty() or not mine.less_partly(total, ZERO):
                continue
            names = _short(mine, total)
            fld = "spec.deserved" if label == "deserved" else "spec.guarantee.resource"
            effect = ("the children's deserved cannot all be honoured: leaves reclaim up to their own "
                      "deserved and push the parent above its deserved" if label == "deserved" else
                      "each child's guarantee is carved out of the parent's realCapability, not out of the "
                      "parent's guarantee, so the children's guarantees are not backed one level up")
            own = f"its own {label} {_describe(mine, names)}" + ("" if explicit else f" (it sets no {label})")
            out.append(Finding(
                "error" if explicit else "warning", f"children-{label}-above-parent", f"Queue/{parent}",
                f"{fld}.{names[0]}",
                f"its children ({', '.join(kids)}) have {label} {_describe(total, names)} in total, more than "
                + own,
                (_NO_TREE_WEBHOOK if "pr4864-webhook" in ctx.lacking else
                 "the queue webhook rejects the child that makes the sum exceed an explicit parent value; "
                 if explicit else f"the queue webhook rejects such a child too (a {label} the parent leaves unset "
                 f"counts as 0 there); ")
                + (_logged_or_stops(ctx) if "pr4864" in ctx.lacking else f"the scheduler only logs it; {effect}")))
    out.extend(_root_quota(ctx))
    return out


def _short(mine: Resource, total: Resource) -> list[str]:
    """Dimensions where `total` exceeds `mine` as LessPartly(ZERO) sees it (a key mine lacks counts)."""
    names = [n for n in ("cpu", "memory") if mine.get(n) < total.get(n)]
    mine_s = mine.scalars or {}
    names += [k for k, v in sorted((total.scalars or {}).items()) if k not in mine_s or mine_s[k] < v]
    return names or _dims(total)


def _root_quota(ctx: _Context) -> list[Finding]:
    root = ctx.queues.get(ROOT)
    if root is None:
        return []
    out: list[Finding] = []
    obj = f"Queue/{ROOT}"
    if "pr4973" in ctx.lacking:
        return _root_quota_before_4973(ctx, root)
    if root.capability is not None and not root.capability.is_empty():
        missing = [n for n in ("cpu", "memory") if root.capability.get(n) <= 0]
        set_keys = root.capability.scalars or {}
        missing += sorted(k for k, v in (ctx.total.scalars or {}).items()
                          if k != "pods" and v >= MIN_RESOURCE and k not in set_keys)
        if missing:
            out.append(Finding(
                "warning", "root-capability-kept", obj, f"spec.capability.{missing[0]}",
                f"root's capability is set but leaves out {', '.join(missing)}",
                "keeps a root capability you set as is: the dimensions it leaves out are 0, which blocks every "
                "request for them at the root check, and children without their own value inherit 0"))
        else:
            out.append(Finding(
                "info", "root-capability-kept", obj, "spec.capability",
                f"root's capability is set ({_describe(root.capability, _dims(root.capability))}); the whole "
                "tree is limited by it",
                "keeps it as is instead of the infinite capability an empty root gets"))
    for label, value, fld in (("deserved", root.deserved, "spec.deserved"),
                              ("guarantee", root.guarantee, "spec.guarantee.resource")):
        if value is not None and not value.is_empty():
            out.append(Finding(
                "warning", "root-quota-overwritten", obj, fld,
                f"root's {label} is set ({_describe(value, _dims(value))})",
                f"overwrites root's {label} with the sum of its children's {label} every session; the value "
                "you set is never used"))
    return out


def _root_quota_before_4973(ctx: _Context, root: QueueSpec) -> list[Finding]:
    """Root's own quotas on a release before PR #4973 (v1.15.0): the build sets root's capability and deserved to
    the cluster total where they are empty, and before PR #4354 (v1.13.0) whatever they are
    (capacity.go:L502-506 @v1.12.0); its guarantee is kept."""
    out: list[Finding] = []
    obj = f"Queue/{ROOT}"
    always = "pr4354" in ctx.lacking
    when = ("(before PR #4354, v1.13.0, and PR #4973, v1.15.0)" if always else "(before PR #4973, v1.15.0)")
    for label, value, fld in (("capability", root.capability, "spec.capability"),
                              ("deserved", root.deserved, "spec.deserved")):
        if value is None or value.is_empty():
            continue
        if always:
            out.append(Finding(
                "warning", "root-quota-overwritten", obj, fld,
                f"root's {label} is set ({_describe(value, _dims(value))})",
                f"on this release overwrites root's {label} with the cluster total every session {when}: the "
                "value you set is never used"))
        else:
            out.append(Finding(
                "info", "root-capability-kept" if label == "capability" else "root-quota-overwritten", obj, fld,
                f"root's {label} is set ({_describe(value, _dims(value))})",
                f"on this release keeps it as is{'' if label == 'deserved' else ' for the checks against root'}, "
                f"but root's realCapability is the cluster total {when}"))
    return out


#: Webhook rules an older rule here already reports for the same field (with the scheduler's side too).
_WEBHOOK_REPORTED_AS = {"self-parent": "self-parent", "queue-too-deep": "queue-too-deep",
                        "parent-missing": "unknown-parent", "state-invalid": "queue-state-invalid",
                        "weight-out-of-range": "queue-weight-invalid", "weight-not-positive": "queue-weight-invalid",
                        "capability-above-ancestor": "child-capability-above-parent"}


#: Webhook rules lint had before it asked the webhook module (their ids are kept).
_QUANTITY_RULES = ("guarantee-without-deserved", "guarantee-above-deserved", "deserved-above-capability")
#: Webhook rules that say the same from the parent's and from the child's side share one lint rule.
_LINT_RULE = {"siblings-guarantee-above-parent": "webhook-children-guarantee-above-parent",
              "siblings-deserved-above-parent": "webhook-children-deserved-above-parent",
              "capability-below-descendants": "webhook-capability-above-ancestor"}


def _check_admission(ctx: _Context) -> list[Finding]:
    """Every queue Volcano's queue admission webhook refuses, in its words (capacity.core.webhook, which cites
    validate_queue.go per rule), with a one-line fix. The scheduler never re-checks these."""
    out: list[Finding] = []
    places = _places(ctx)[0]
    for name, errors in validate_cluster(ctx.cluster, ctx.lacking).items():
        if name in places and places[name].end == "cycle":
            continue  # the parent-cycle / self-parent rules report it (the webhook's answer depends on the order)
        for e in errors:
            rule = _LINT_RULE.get(e.rule, e.rule if e.rule in _QUANTITY_RULES else f"webhook-{e.rule}")
            fix = e.fix
            if e.repair and not e.switch:  # the raise checked end to end (HEAD rules): what the webhook asks next
                from capacity.analysis.whatif import webhook_fix  # (lazily: it runs the scheduler)
                full = webhook_fix(ctx.cluster, e.repair, ctx.lacking)
                asked = {f"raise {r.kind} of queue {r.queue}:" for r in e.repair}
                if full and any(not part.startswith(tuple(asked)) for part in full.split(" + ")):
                    fix = f"{e.fix}; the webhook then also asks for more, so the whole change it accepts is: {full}"
            out.append(Finding(
                "error", rule, f"Queue/{name}", e.field, e.message,
                f"the queue webhook rejects the queue when it is created or updated ({_release_note(e)}); "
                f"fix: {fix}"))
    return out


def _release_note(e: AdmissionError) -> str:
    """Where the rule is written: HEAD's file, or the older release's form and the change it predates."""
    if not e.switch:
        return f"{e.cited} @ed72c7c8"
    from capacity.versions import BY_ID
    s = BY_ID[e.switch]
    return f"{e.cited}, the rule as it was before PR #{s.pr} ({s.release})"


def _drop_reported_webhook_findings(found: list[Finding]) -> list[Finding]:
    """A webhook finding whose field an older rule already reports (with what the scheduler does) is left out."""
    have = {(f.rule, f.obj, f.field) for f in found if f.severity == "error" or f.rule == "unknown-parent"}
    return [f for f in found if not (f.rule.startswith("webhook-") and (
        _WEBHOOK_REPORTED_AS.get(f.rule[len("webhook-"):]), f.obj, f.field) in have)]


def _check_capability_above_cluster(ctx: _Context) -> list[Finding]:
    """A capability above what every node together offers never limits anything: usually a unit slip."""
    if not ctx.cluster.nodes:
        return []
    out: list[Finding] = []
    for name in sorted(ctx.queues):
        cap = ctx.queues[name].capability
        if cap is None or name == ROOT and cap.is_empty():
            continue
        over = [n for n in _dims(cap) if n != "pods" and n in ctx.node_resources and cap.get(n) > ctx.total.get(n)]
        if not over:
            continue
        nums = ", ".join(f"{n} {_fmt(n, cap.get(n))} > {_fmt(n, ctx.total.get(n))}" for n in over)
        out.append(Finding(
            "warning", "capability-above-cluster", f"Queue/{name}", f"spec.capability.{over[0]}",
            f"capability above the cluster's total ({len(ctx.cluster.nodes)} node(s)): {nums}",
            "keeps it: the queue is limited by the nodes, not by this capability, on "
            f"{', '.join(over)} (a unit slip such as 64 for 64Mi or 1000 for 1000m?)"))
    return out


def _check_deserved_with_proportion(ctx: _Context) -> list[Finding]:
    """proportion computes deserved by weight (water-filling) and never reads spec.deserved (proportion.go)."""
    if "proportion" not in ctx.positions or "capacity" in ctx.positions:
        return []
    out: list[Finding] = []
    for name in sorted(ctx.queues):
        d = ctx.queues[name].deserved
        if d is None or d.is_empty() or name == ROOT:
            continue
        out.append(Finding(
            "warning", "deserved-with-proportion", f"Queue/{name}", f"spec.deserved.{_dims(d)[0]}",
            f"deserved {_describe(d, _dims(d))} is set, but the queue plugin is proportion, which never reads it",
            "proportion gives each queue a share of the cluster by spec.weight (capped by capability, raised to "
            "guarantee); spec.deserved only counts with the capacity plugin"))
    return out


def _check_unknown_resources(ctx: _Context) -> list[Finding]:
    if not ctx.cluster.nodes:
        return []
    out: list[Finding] = []
    known = sorted(ctx.node_resources)
    for name in sorted(ctx.queues):
        q = ctx.queues[name]
        for label, r, fld in (("capability", q.capability, "spec.capability"),
                              ("deserved", q.deserved, "spec.deserved"),
                              ("guarantee", q.guarantee, "spec.guarantee.resource")):
            if r is None:
                continue
            for n in sorted((r.scalars or {}).keys()):
                if n == "pods" or n in ctx.node_resources:
                    continue
                close = difflib.get_close_matches(n, known, n=1, cutoff=0.75)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                out.append(Finding(
                    "warning", "unknown-resource", f"Queue/{name}", f"{fld}.{n}",
                    f"{label} names {n!r}, which no node offers{hint}",
                    "keeps the value, but no pod requesting it can ever be placed: realCapability drops the "
                    "dimension (it reads 0) and shares and reclaim count a resource nobody has"))
    return out


def _check_queue_fields(ctx: _Context) -> list[Finding]:
    out: list[Finding] = []
    for name in sorted(ctx.queues):
        q: QueueSpec = ctx.queues[name]
        obj = f"Queue/{name}"
        if q.state not in QUEUE_STATES:
            out.append(Finding(
                "error", "queue-state-invalid", obj, "status.state",
                f"state {q.state!r} is not one of {', '.join(QUEUE_STATES)} (case matters)",
                "the queue webhook accepts only Open or Closed; the scheduler treats anything but a literal "
                "'Open' as closed"))
        weight_errors = queue_weight(q, lacking=ctx.lacking)  # the chosen release's rule (core.webhook)
        if weight_errors and weight_errors[0].switch:
            e = weight_errors[0]
            out.append(Finding("error", "queue-weight-invalid", obj, "spec.weight", e.message,
                               f"the queue webhook rejects it ({_release_note(e)}); fix: {e.fix}"))
        elif weight_errors:
            out.append(Finding(
                "error", "queue-weight-invalid", obj, "spec.weight", f"weight {q.weight} is outside 1..{MAX_WEIGHT}",
                "the queue webhook and CRD reject it (weight must be a positive integer up to 65535)"))
        jobs = [uid for uid in ctx.podgroups_by_queue.get(name, [])
                if ctx.cluster.podgroups[uid].phase != "Completed"]
        if q.state != "Open" and jobs:
            out.append(Finding(
                "warning", "queue-not-open-with-jobs", obj, "status.state",
                f"the queue's state is {q.state!r}, not 'Open', and it holds {len(jobs)} PodGroup(s) "
                f"({_first_few(jobs)})",
                "capacity and proportion neither enqueue, allocate nor reclaim for jobs of a queue whose "
                "state is not literally 'Open'; pods already running keep running"))
    return out


# ---- job rules --------------------------------------------------------------------------------
def _check_jobs(ctx: _Context) -> list[Finding]:
    out: list[Finding] = []
    for uid in sorted(ctx.cluster.podgroups):
        pg = ctx.cluster.podgroups[uid]
        obj = f"PodGroup/{uid}"
        if pg.queue not in ctx.queues:
            out.append(Finding(
                "warning", "podgroup-unknown-queue", obj, "spec.queue", f"queue {pg.queue!r} does not exist",
                "leaves the job out of the session: its pending pods are never scheduled (running ones still "
                "use node resources)"))
        elif ctx.hierarchy and ctx.children.get(pg.queue):
            kids = ctx.children[pg.queue]
            out.append(Finding(
                "error", "job-on-non-leaf-queue", obj, "spec.queue",
                f"queue {pg.queue!r} has child queues ({_first_few(kids)}); "
                "jobs belong in leaf queues",
                "the capacity plugin sets readyToSchedule=false: nothing is allocated, enqueued or reclaimed "
                "anywhere this cycle (the vcjob webhook rejects such jobs, but plain PodGroups get through)"))
    out.extend(_elastic_jobs(ctx))
    return out


def _elastic_jobs(ctx: _Context) -> list[Finding]:
    """Trap 5 / §13.3.1: with gang deciding JobStarving, pods beyond minMember never reclaim or preempt."""
    evicting = ctx.actions(*EVICTING_ACTIONS)
    if not evicting:
        return []
    decider: list[str] = []
    for tier in ctx.conf.tiers:
        decider = [o.name for o in tier if o.name in STARVING_PLUGINS and o.enabled("jobStarving")]
        if decider:
            break
    if "gang" not in decider:
        return []
    placed: dict[str, int] = {}
    pending: dict[str, int] = {}
    for pod in ctx.cluster.pods.values():
        if not pod.group:
            continue
        uid = f"{pod.namespace}/{pod.group}"
        if pod.node_name and pod.phase in ("Pending", "Running", "Succeeded") and not pod.deleting:
            placed[uid] = placed.get(uid, 0) + 1
        elif pod.phase == "Pending" and not pod.node_name:
            pending[uid] = pending.get(uid, 0) + 1
    out: list[Finding] = []
    for uid in sorted(pending):
        pg = ctx.cluster.podgroups.get(uid)
        n_placed = placed.get(uid, 0)
        if pg is None or n_placed < pg.min_member:
            continue
        out.append(Finding(
            "info", "elastic-job-never-starving", f"PodGroup/{uid}", "spec.minMember",
            f"{n_placed} pod(s) placed, minMember {pg.min_member}, {pending[uid]} pending: the pending pods "
            f"can only use free capacity",
            f"asks the first tier with a JobStarving function ({', '.join(decider)}); gang says a job with "
            f"Ready+Waiting >= minMember is not starving, so these pods never trigger {' or '.join(evicting)} "
            "(set enableJobStarving: false on gang to let priority decide)"))
    return out


# ---- raw objects and loader warnings --------------------------------------------------------------
def _raw_findings(docs: list[dict[str, Any]]) -> list[Finding]:
    out: list[Finding] = []
    for doc in docs:
        kind = doc.get("kind")
        api = str(doc.get("apiVersion") or "")
        if kind not in WORKLOAD_KINDS or "volcano.sh" in api:
            continue
        meta = doc.get("metadata") or {}
        own = {**_mapping(meta.get("labels")), **_mapping(meta.get("annotations"))}
        if PREEMPTABLE_KEY not in own:
            continue
        spec = _mapping(doc.get("spec"))
        if kind == "CronJob":
            spec = _mapping(_mapping(spec.get("jobTemplate")).get("spec"))
        tmeta = _mapping(_mapping(spec.get("template")).get("metadata"))
        in_template = {**_mapping(tmeta.get("labels")), **_mapping(tmeta.get("annotations"))}
        if PREEMPTABLE_KEY in in_template:
            continue
        where = "annotations" if PREEMPTABLE_KEY in _mapping(meta.get("annotations")) else "labels"
        out.append(Finding(
            "warning", "preemptable-on-workload", f"{kind}/{meta.get('name', '?')}",
            f"metadata.{where}.{PREEMPTABLE_KEY}",
            f"{PREEMPTABLE_KEY}={own[PREEMPTABLE_KEY]!s} is on the {kind}'s own metadata, not on its pod "
            "template (spec.template.metadata)",
            "reads volcano.sh/preemptable from each pod (annotation, then label); it never reaches these pods, "
            "which stay preemptable (a missing key means true)"))
    return out


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _loader_findings(warnings: list[LoadWarning], found: list[Finding]) -> list[Finding]:
    """The reader's tolerated-input warnings, minus those a rule above already explains."""
    seen = {(f.obj, f.field) for f in found}
    out: list[Finding] = []
    for w in warnings:
        if (w.obj, w.field) in seen:
            continue
        quiet = w.field == "kind" or (w.obj == CONF_OBJ and not w.field)
        out.append(Finding("info" if quiet else "warning", "loader-warning", w.obj, w.field, w.message,
                           "see the message"))
    return out


_CHECKS = (
    _check_conf_warnings, _check_capacity_and_proportion, _check_victim_tier_order, _check_gangreclaim_proportion,
    _check_job_starving, _check_arguments, _check_tree, _check_hierarchy_quotas, _check_unknown_resources,
    _check_queue_fields, _check_jobs, _check_admission, _check_capability_above_cluster,
    _check_deserved_with_proportion,
)
