"""volcano-scheduler.conf as Volcano reads it: actions, tiers, plugin switches, arguments.

Volcano parses the file leniently (unknown keys ignored) and turns every switch that is left out
ON, except `enableHierarchy` and `enabledClusterOrder` (spec actions-framework §2.1). The switch
names are irregular (`enabledAllocatable` but `enablePreemptive`); they are kept verbatim here so
a user's file means the same thing to us as to Volcano. Misspellings are reported as warnings.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from capacity.errors import InputError

#: Every PluginOption switch with its default when the key is absent from YAML.
SWITCH_DEFAULTS: dict[str, bool] = {
    "enableJobOrder": True,
    "enableHierarchy": False,
    "enableJobReady": True,
    "enableJobPipelined": True,
    "enableTaskOrder": True,
    "enablePreemptable": True,
    "enableReclaimable": True,
    "enablePreemptive": True,
    "enableQueueOrder": True,
    "enabledClusterOrder": False,
    "enablePredicate": True,
    "enableBestNode": True,
    "enableNodeOrder": True,
    "enableTargetJob": True,
    "enableReservedNodes": True,
    "enableJobEnqueued": True,
    "enabledVictim": True,
    "enableJobStarving": True,
    "enabledOverused": True,
    "enabledAllocatable": True,
    "enabledHyperNodeOrder": True,
    "enabledSubJobReady": True,
    "enabledSubJobPipelined": True,
    "enabledSubJobOrder": True,
    "enabledHyperNodeGradient": True,
}

#: Extension point -> the switch that gates it (None: always on). session_plugins.go.
POINT_SWITCH: dict[str, str | None] = {
    "jobOrder": "enableJobOrder",
    "queueOrder": "enableQueueOrder",
    "taskOrder": "enableTaskOrder",
    "victimQueueOrder": None,
    "jobValid": None,
    "jobEnqueueable": "enableJobEnqueued",
    "jobEnqueued": "enableJobEnqueued",
    "jobReady": "enableJobReady",
    "jobPipelined": "enableJobPipelined",
    "jobStarving": "enableJobStarving",
    "allocatable": "enabledAllocatable",
    "preemptive": "enablePreemptive",
    "overused": "enabledOverused",
    "preemptable": "enablePreemptable",
    "reclaimable": "enableReclaimable",
    "unifiedEvictable": None,
    "predicate": "enablePredicate",
    "prePredicate": "enablePredicate",
    "bestNode": "enableBestNode",
    "nodeOrder": "enableNodeOrder",
    "batchNodeOrder": "enableNodeOrder",
    "simulateAllocatable": "enabledAllocatable",
    "simulatePredicate": "enablePredicate",
}

KNOWN_ACTIONS = {
    "enqueue", "allocate", "backfill", "reclaim", "preempt", "shuffle", "gangreclaim", "gangpreempt",
}
SIMULATED_ACTIONS = {"enqueue", "allocate", "backfill", "reclaim", "preempt"}

KNOWN_PLUGINS = {
    "priority", "gang", "conformance", "drf", "proportion", "capacity", "predicates", "nodeorder",
    "binpack", "overcommit", "sla", "tdm", "numaaware", "task-topology", "extender", "usage",
    "rescheduling", "network-topology-aware", "resource-strategy-fit", "cdp", "deviceshare",
    "capacity-card", "pdb", "nodegroup", "resourcequota", "nodelabel",
}
SIMULATED_PLUGINS = {
    "priority", "gang", "conformance", "drf", "proportion", "capacity", "predicates", "nodeorder",
    "binpack", "overcommit", "capacity-card",
}

DEFAULT_CONF_TEXT = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""


@dataclass(slots=True)
class PluginOption:
    """One `tiers[].plugins[]` entry, switches already defaulted the way Volcano does."""

    name: str
    switches: dict[str, bool]
    arguments: dict[str, Any] = field(default_factory=dict)

    def enabled(self, point: str) -> bool:
        key = POINT_SWITCH.get(point)
        if key is None:
            return True
        return self.switches.get(key, False)

    @property
    def hierarchy(self) -> bool:
        return self.switches.get("enableHierarchy", False)


@dataclass(slots=True)
class ConfWarning:
    """Something Volcano accepts silently but a user almost certainly did not mean."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"volcano-scheduler.conf: {self.field}: {self.message}"


@dataclass(slots=True)
class SchedulerConf:
    """The parsed configuration. `tiers` is a list of lists of PluginOption."""

    actions: list[str]
    tiers: list[list[PluginOption]]
    configurations: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[ConfWarning] = field(default_factory=list)
    text: str = ""
    is_default: bool = False

    def plugin(self, name: str) -> PluginOption | None:
        """The first entry of a plugin in tier order (how Volcano finds e.g. HierarchyEnabled)."""
        for tier in self.tiers:
            for opt in tier:
                if opt.name == name:
                    return opt
        return None

    def action_arguments(self, action: str) -> dict[str, Any]:
        return self.configurations.get(action) or {}


def _suggest(word: str, choices: list[str] | set[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_conf(text: str, *, where: str = "volcano-scheduler.conf") -> SchedulerConf:
    """Parse the conf text as Volcano would; raise InputError only where Volcano rejects the file."""
    from capacity.limits import safe_load  # safe loader, size and anchor-bomb checks

    data = safe_load(text, where) if text and text.strip() else {}
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(where, "", "must be a mapping with 'actions' and 'tiers'")
    warnings: list[ConfWarning] = []
    for key in data:
        if key not in ("actions", "tiers", "configurations", "metrics"):
            warnings.append(ConfWarning(str(key), "unknown top-level key; Volcano ignores it"
                                        + _suggest(str(key), ["actions", "tiers", "configurations"])))
    actions_raw = data.get("actions", "")
    if not isinstance(actions_raw, str):
        raise InputError(where, "actions", "must be a comma-separated string")
    actions = [a.strip() for a in actions_raw.split(",") if a.strip()]
    for i, a in enumerate(actions):
        if a not in KNOWN_ACTIONS:
            raise InputError(where, f"actions[{i}]", f"unknown action {a!r}; Volcano rejects the whole "
                             "file and keeps its previous configuration" + _suggest(a, KNOWN_ACTIONS))
        if a not in SIMULATED_ACTIONS:
            warnings.append(ConfWarning(f"actions[{i}]", f"action {a!r} is not simulated; it is skipped"))
    tiers: list[list[PluginOption]] = []
    tiers_raw = data.get("tiers") or []
    if not isinstance(tiers_raw, list):
        raise InputError(where, "tiers", "must be a list of {plugins: [...]}")
    for ti, tier in enumerate(tiers_raw):
        if tier is not None and not isinstance(tier, dict):
            raise InputError(where, f"tiers[{ti}]", "must be a mapping {plugins: [...]}")
        plugins_raw = (tier or {}).get("plugins")
        if plugins_raw is None:
            plugins_raw = []
        if not isinstance(plugins_raw, list):
            raise InputError(where, f"tiers[{ti}].plugins", "must be a list")
        opts: list[PluginOption] = []
        for pi, p in enumerate(plugins_raw):
            path = f"tiers[{ti}].plugins[{pi}]"
            if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                raise InputError(where, path, "each plugin needs a 'name'")
            opts.append(_plugin_option(p, path, warnings))
        tiers.append(opts)
    configurations: dict[str, dict[str, Any]] = {}
    configurations_raw = data.get("configurations") or []
    if not isinstance(configurations_raw, list):
        raise InputError(where, "configurations", "must be a list of {name: ..., arguments: {...}}")
    for ci, c in enumerate(configurations_raw):
        if isinstance(c, dict) and isinstance(c.get("name"), str):
            args = c.get("arguments") or {}
            if not isinstance(args, dict):
                warnings.append(ConfWarning(f"configurations[{ci}].arguments", "must be a mapping; ignored"))
                args = {}
            configurations[c["name"]] = args
        else:
            warnings.append(ConfWarning(f"configurations[{ci}]", "needs a 'name'; ignored"))
    _check_combinations(tiers, warnings)
    return SchedulerConf(actions, tiers, configurations, warnings, text)


def _plugin_option(p: dict[str, Any], path: str, warnings: list[ConfWarning]) -> PluginOption:
    name = p["name"]
    if name not in KNOWN_PLUGINS:
        warnings.append(ConfWarning(f"{path}.name", f"unknown plugin {name!r}; Volcano only logs this "
                                    "and runs without it" + _suggest(name, KNOWN_PLUGINS)))
    elif name not in SIMULATED_PLUGINS:
        warnings.append(ConfWarning(f"{path}.name", f"plugin {name!r} is not simulated; it is skipped"))
    switches = dict(SWITCH_DEFAULTS)
    arguments: dict[str, Any] = {}
    for key, value in p.items():
        if key == "name":
            continue
        if key == "arguments":
            arguments = value if isinstance(value, dict) else {}
            if value is not None and not isinstance(value, dict):
                warnings.append(ConfWarning(f"{path}.arguments", "must be a mapping; ignored"))
            continue
        if key in SWITCH_DEFAULTS:
            if isinstance(value, bool):
                switches[key] = value
            elif value is None:
                pass
            else:
                warnings.append(ConfWarning(f"{path}.{key}", f"must be true or false, got {value!r}; "
                                            "Volcano rejects a non-boolean here"))
            continue
        hint = _suggest(key, list(SWITCH_DEFAULTS))
        warnings.append(ConfWarning(f"{path}.{key}", f"unknown switch {key!r} on plugin {name!r}; "
                                    f"Volcano ignores it{hint}"))
    return PluginOption(name, switches, arguments)


def _check_combinations(tiers: list[list[PluginOption]], warnings: list[ConfWarning]) -> None:
    for ti, tier in enumerate(tiers):
        names = {o.name for o in tier}
        if "proportion" in names and any(o.name == "drf" and o.hierarchy for o in tier):
            warnings.append(ConfWarning(f"tiers[{ti}]", "proportion together with drf enableHierarchy "
                                        "is rejected by Volcano"))


def default_conf() -> SchedulerConf:
    """Volcano's built-in DefaultSchedulerConf, used when no ConfigMap is given."""
    conf = parse_conf(DEFAULT_CONF_TEXT)
    conf.is_default = True
    return conf


def get_int(args: dict[str, Any], key: str, default: int) -> tuple[int, str | None]:
    """Arguments.GetInt: only a YAML integer counts; anything else keeps the default with a warning."""
    if key not in args:
        return default, None
    v = args[key]
    if isinstance(v, bool) or not isinstance(v, int):
        return default, f"argument {key!r} must be a YAML integer, got {v!r}; Volcano ignores it"
    return v, None


def get_float(args: dict[str, Any], key: str, default: float) -> float:
    v = args.get(key)
    if isinstance(v, bool) or not isinstance(v, int | float):
        return default
    return float(v)


def get_bool(args: dict[str, Any], key: str, default: bool) -> bool:
    v = args.get(key)
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        low = v.strip().lower()
        if low in ("1", "t", "true"):
            return True
        if low in ("0", "f", "false"):
            return False
    return default
