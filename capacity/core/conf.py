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

from capacity.core.errors import InputError
from capacity.core.text import safe

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
    source: str = "volcano-scheduler.conf"

    def __str__(self) -> str:
        return safe(f"{self.source}: {self.field}: {self.message}")


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


class ConfRefused(InputError):
    """Text Volcano's UnmarshalSchedulerConf fails on: Volcano then keeps its previous configuration.

    scheduler.go:196-203 @ed72c7c8 (loadSchedulerConf): an error from UnmarshalSchedulerConf is logged and
    the configuration loaded before stays; at start that is DefaultSchedulerConf (scheduler.go:172-180).
    The loader (`load_conf`) runs the default with one warning; editors (`parse_conf`) show the error.
    """


#: What the loader says when Volcano refuses a configuration (one warning, naming field and reason).
REFUSED = ("; Volcano refuses the whole configuration file (UnmarshalSchedulerConf fails) and keeps its previous "
           "configuration, at start its default (enqueue, allocate, backfill; priority, gang, conformance | "
           "overcommit, drf, predicates, proportion, nodeorder): the default runs here")


def load_conf(text: str, *, where: str = "volcano-scheduler.conf") -> SchedulerConf:
    """The configuration Volcano runs with given this text: parsed, or the default if Volcano refuses it."""
    try:
        return parse_conf(text, where=where)
    except ConfRefused as exc:
        conf = default_conf()
        conf.is_default = False  # a configuration was given: its refusal is said in the warning
        source = f"{where}: data.volcano-scheduler.conf" if where.startswith("ConfigMap/") else where
        conf.warnings.append(ConfWarning(exc.field or "(the whole text)", exc.message + REFUSED, source))
        return conf


def _describe(value: Any) -> str:
    """A YAML value in the user's words for a refusal (quoted strings said to be strings)."""
    if isinstance(value, str):
        shown = repr(value) if len(value) <= 40 else repr(value[:40]) + "..."
        return f"the string {safe(shown)}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{safe(repr(value))[:40]}"


def _go_string(value: Any, where: str, fld: str) -> str:
    """A string field as gopkg.in/yaml.v2 fills it: any scalar's text; a mapping or list fails to decode."""
    if value is None:
        return ""
    if isinstance(value, dict | list):
        raise ConfRefused(where, fld, f"must be a string, got {_describe(value)} (yaml: cannot unmarshal it "
                          "into a string)")
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _go_map(value: Any, where: str, fld: str) -> dict[str, Any]:
    """A map field (arguments, metrics): null is empty; anything but a mapping fails to decode."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfRefused(where, fld, f"must be a mapping, got {_describe(value)} (yaml: cannot unmarshal it "
                          "into a map)")
    return value


def _go_list(value: Any, where: str, fld: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfRefused(where, fld, f"must be a list, got {_describe(value)} (yaml: cannot unmarshal it into "
                          "a list)")
    return value


def parse_conf(text: str, *, where: str = "volcano-scheduler.conf") -> SchedulerConf:
    """Parse the conf text as Volcano's UnmarshalSchedulerConf does (pkg/scheduler/util.go:53-93 @ed72c7c8).

    Raises `ConfRefused` wherever that function returns an error (Volcano then keeps its previous
    configuration: see `load_conf`), InputError for input refused before parsing (size, alias bombs).
    The file is decoded by gopkg.in/yaml.v2 into typed fields (util.go:58; conf/scheduler_conf.go): unknown
    keys are ignored, a scalar fills a string field with its text, but a non-boolean switch, a list or
    mapping of the wrong shape fails the whole decode.
    """
    from capacity.core.limits import safe_load  # safe loader, size and anchor-bomb checks

    try:
        data = safe_load(text, where) if text and text.strip() else {}
    except InputError as exc:
        if exc.message.startswith("malformed YAML"):  # yaml.Unmarshal fails: util.go:58-60
            raise ConfRefused(exc.obj, exc.field, exc.message) from None
        raise
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfRefused(where, "", f"must be a mapping with 'actions' and 'tiers', got {_describe(data)}")
    warnings: list[ConfWarning] = []
    for key in data:
        if key not in ("actions", "tiers", "configurations", "metrics"):
            warnings.append(ConfWarning(safe(str(key)), "unknown top-level key; Volcano ignores it"
                                        + _suggest(str(key), ["actions", "tiers", "configurations"])))
    actions_text = _go_string(data.get("actions"), where, "actions")
    for mk, mv in _go_map(data.get("metrics"), where, "metrics").items():
        _go_string(mv, where, f"metrics.{mk}")
    tiers: list[list[PluginOption]] = []
    for ti, tier in enumerate(_go_list(data.get("tiers"), where, "tiers")):
        if tier is not None and not isinstance(tier, dict):
            raise ConfRefused(where, f"tiers[{ti}]", f"must be a mapping {{plugins: [...]}}, got {_describe(tier)}")
        opts: list[PluginOption] = []
        for pi, p in enumerate(_go_list((tier or {}).get("plugins"), where, f"tiers[{ti}].plugins")):
            path = f"tiers[{ti}].plugins[{pi}]"
            if p is not None and not isinstance(p, dict):
                raise ConfRefused(where, path, f"must be a mapping with a 'name', got {_describe(p)}")
            opt = _plugin_option(p or {}, path, warnings, where)
            if opt is not None:
                opts.append(opt)
        tiers.append(opts)
    configurations: dict[str, dict[str, Any]] = {}
    for ci, c in enumerate(_go_list(data.get("configurations"), where, "configurations")):
        if c is not None and not isinstance(c, dict):
            raise ConfRefused(where, f"configurations[{ci}]", f"must be a mapping {{name: ..., arguments: "
                              f"{{...}}}}, got {_describe(c)}")
        c = c or {}
        name = _go_string(c.get("name"), where, f"configurations[{ci}].name")
        args = _go_map(c.get("arguments"), where, f"configurations[{ci}].arguments")
        if name:
            configurations[name] = args
        else:
            warnings.append(ConfWarning(f"configurations[{ci}]", "needs a 'name'; ignored"))
    _check_combinations(tiers, where)
    actions = _split_actions(actions_text, where, warnings)
    return SchedulerConf(actions, tiers, configurations, warnings, text)


def _split_actions(text: str, where: str, warnings: list[ConfWarning]) -> list[str]:
    """util.go:83-90 @ed72c7c8: split on ",", TrimSpace each name, framework.GetAction must know it (an
    empty text or an empty entry too: GetAction("") fails), else UnmarshalSchedulerConf returns an error."""
    actions: list[str] = []
    for i, raw in enumerate(text.split(",")):
        a = raw.strip(_GO_SPACE)
        if a not in KNOWN_ACTIONS:
            if not text.strip(_GO_SPACE):
                why = "is empty: Volcano finds no action named '' (failed to find Action)"
                raise ConfRefused(where, "actions", why)
            what = "an empty entry" if not a else f"unknown action {safe(repr(a))}"
            raise ConfRefused(where, f"actions[{i}]", f"{what}: Volcano's framework.GetAction finds no such "
                              "action (failed to find Action)" + _suggest(a, KNOWN_ACTIONS))
        if a not in SIMULATED_ACTIONS:
            warnings.append(ConfWarning(f"actions[{i}]", f"action {a!r} is not simulated; it is skipped"))
        actions.append(a)
    return actions


#: strings.TrimSpace's white space (unicode.IsSpace): what Python's str.strip() removes, less the separators
#: Go does not count (U+001C..U+001F).
_GO_SPACE = ("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
             "\u2028\u2029\u202f\u205f\u3000")


def _plugin_option(p: dict[str, Any], path: str, warnings: list[ConfWarning], where: str) -> PluginOption | None:
    name = _go_string(p.get("name"), where, f"{path}.name")
    if not name:
        warnings.append(ConfWarning(f"{path}.name", "missing; Volcano finds no plugin '' when a session opens and "
                                    "runs without this entry"))
        return None
    if name not in KNOWN_PLUGINS:
        warnings.append(ConfWarning(f"{path}.name", f"unknown plugin {safe(repr(name))}; Volcano only logs this "
                                    "and runs without it" + _suggest(name, KNOWN_PLUGINS)))
    elif name not in SIMULATED_PLUGINS:
        warnings.append(ConfWarning(f"{path}.name", f"plugin {name!r} is not simulated; it is skipped"))
    switches = dict(SWITCH_DEFAULTS)
    arguments: dict[str, Any] = {}
    for key, value in p.items():
        if key == "name":
            continue
        if key == "arguments":
            arguments = _go_map(value, where, f"{path}.arguments")
            continue
        if key in SWITCH_DEFAULTS:
            if isinstance(value, bool):
                switches[key] = value
            elif value is not None:
                quoted = " (quoted, so YAML reads a string)" if isinstance(value, str) else ""
                raise ConfRefused(where, f"{path}.{key}", f"must be true or false, got {_describe(value)}{quoted}: "
                                  "Volcano's YAML decoder cannot unmarshal it into a bool")
            continue
        hint = _suggest(str(key), list(SWITCH_DEFAULTS))
        warnings.append(ConfWarning(f"{path}.{safe(str(key))}", f"unknown switch {safe(repr(key))} on plugin "
                                    f"{safe(repr(name))}; Volcano ignores it{hint}"))
    return PluginOption(name, switches, arguments)


def _check_combinations(tiers: list[list[PluginOption]], where: str) -> None:
    """util.go:62-81 @ed72c7c8: drf with enableHierarchy and proportion in one tier is an error."""
    for ti, tier in enumerate(tiers):
        names = {o.name for o in tier}
        if "proportion" in names and any(o.name == "drf" and o.hierarchy for o in tier):
            raise ConfRefused(where, f"tiers[{ti}]", "proportion together with drf enableHierarchy: Volcano "
                              "reports 'proportion and drf with hierarchy enabled conflicts'")


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
        return default, f"argument {key!r} must be a YAML integer, got {safe(repr(v))[:60]}; Volcano ignores it"
    if not -(2**63) <= v < 2**63:
        # gopkg.in/yaml.v2 decodes an integer beyond int64 as uint64 or float64, not int: GetInt's
        # `argv.(int)` fails and the default stays (framework/arguments.go:38-55 @ed72c7c8).
        return default, (f"argument {key!r} is beyond a 64-bit integer ({len(str(abs(v)))} digits); Volcano's "
                         "YAML decoder does not make it an int, so Volcano ignores it")
    return v, None


def yaml_number(v: Any) -> float | None:
    """An argument as Arguments.GetFloat64 reads it (framework/arguments.go:57-79 @ed72c7c8): a float64, or an
    int made float; None for anything else. gopkg.in/yaml.v2 decodes a YAML integer beyond int64 as uint64 (not
    read) or, past that, as a float64 (read), and one beyond float64's range as a string (not read): Python's
    integers have no such bounds, and float() of a 400-digit one raises OverflowError."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    if isinstance(v, float):
        return v
    if -(2**63) <= v < 2**63:
        return float(v)
    if 0 < v < 2**64:
        return None
    try:
        return float(v)
    except OverflowError:
        return None


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
