"""The import structure of `capacity/`: no Streamlit, no import circle, no lower layer importing a higher one.

The layers (ARCHITECTURE.md), lowest first; a module may import its own layer and those below:

  base        capacity.core's text, errors, limits, quantity, resources, trace, ...; accel's switch; the
              version registry (capacity.versions)
  core        the rest of capacity.core: model, conf, cluster, webhook (admission rules), cards
  io          capacity.io: k8s, export, snapshot, openb, prometheus, volcano_image
  engine      framework, plugins, actions: the reference engine, reading like Volcano's files
  accel       the acceleration (capacity.accel.*): composed on top of the reference engine (AcceleratedSession,
              AcceleratedCapacityPlugin, the plugins' fast forms), which never imports it when it runs
  assembly    capacity.scheduler: the composition root (scheduler.go), which chooses one engine or the other
  time        capacity.simulation: sim, replay, workload, timeline
  analysis    capacity.analysis (explain, answers, what-if, lint, compare, check, charts), capacity.authoring
              (edits, job forms, lessons), capacity.plan, the version selector's diff and lint
  cli         cli, commands
Pages and ui/ sit above all of it; `capacity/` never imports them, nor Streamlit.
Imports under `if TYPE_CHECKING:` are annotations only (they never run) and are not counted.
"""

from __future__ import annotations

import ast
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "capacity"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("capacity", "capacity.core.text", "capacity.core.errors", "capacity.core.limits",
              "capacity.core.glossary", "capacity.core.names", "capacity.core.service_type", "capacity.core.trace",
              "capacity.core.quantity", "capacity.core.resources", "capacity.core.resource_names",
              "capacity.core.resource_values", "capacity.core.human_units",
              "capacity.core.gcpause", "capacity.accel", "capacity.versions", "capacity.versions.releases",
              "capacity.versions.switches", "capacity.versions.table")),
    ("core", ("capacity.core", "capacity.core.*")),
    ("io", ("capacity.io", "capacity.io.*")),
    ("engine", ("capacity.framework", "capacity.framework.*", "capacity.plugins", "capacity.plugins.*",
                "capacity.actions", "capacity.actions.*")),
    ("accel", ("capacity.accel.*",)),
    ("assembly", ("capacity.scheduler",)),
    ("time", ("capacity.simulation", "capacity.simulation.*")),
    ("analysis", ("capacity.analysis", "capacity.analysis.*", "capacity.authoring", "capacity.authoring.*",
                  "capacity.versions.cli", "capacity.versions.diff", "capacity.versions.lint",
                  "capacity.plan", "capacity.plan.*")),
    ("cli", ("capacity.cli", "capacity.__main__", "capacity.commands", "capacity.commands.*")),
]

KNOWN_CIRCLES: list[set[str]] = []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported_modules(path: Path, runtime_only: bool = False) -> set[str]:
    """Every module named by an import in the file (absolute names; `from a import b` names a and a.b)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    own = _module_name(path) if path.is_relative_to(ROOT) else path.stem
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if runtime_only and isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def _graph() -> dict[str, set[str]]:
    """capacity's modules and, per module, the capacity modules it imports when it runs."""
    paths = {_module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}
    return {name: {m for m in _imported_modules(path, runtime_only=True) if m in paths and m != name}
            for name, path in paths.items()}


def _layer(module: str) -> int:
    for rank, (_name, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if pattern.endswith("*") and module.startswith(pattern[:-1]) or module == pattern:
                return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS (and to ARCHITECTURE.md)")


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_engine_does_not_import_streamlit():
    sources = sorted(ENGINE.rglob("*.py"))
    if not sources:
        pytest.skip("capacity/ has no Python files yet")
    offenders = [
        str(path.relative_to(ENGINE.parent))
        for path in sources
        if any(name.split(".")[0] in ("streamlit", "ui", "pages", "app") for name in _imported_modules(path))
    ]
    assert offenders == [], f"engine modules import streamlit or the dashboard: {offenders}"


def test_no_import_circle_in_capacity():
    circles = [c for c in _circles(_graph()) if c not in KNOWN_CIRCLES]
    assert circles == [], f"import circles: {[sorted(c) for c in circles]}"


def test_no_lower_layer_imports_a_higher_one():
    graph = _graph()
    upward = sorted(f"{a} ({LAYERS[_layer(a)][0]}) imports {b} ({LAYERS[_layer(b)][0]})"
                    for a, targets in graph.items() for b in targets if _layer(b) > _layer(a))
    assert upward == []


def _reaches_acceleration(path: Path) -> list[str]:
    """The capacity.accel modules a file imports, type-checking imports included (`capacity.accel` itself,
    the switch, included: the actions call the session's extension points and never ask which engine runs)."""
    return sorted(m for m in _imported_modules(path) if m == "capacity.accel" or m.startswith("capacity.accel."))


def test_the_actions_do_not_import_acceleration() -> None:
    """The reference actions read like Volcano's files: they reach acceleration only through the session's
    typed extension points (capacity.framework.extension_points: ssn.placement, ssn.victims)."""
    actions = sorted((ENGINE / "actions").glob("*.py"))
    assert len(actions) >= 5
    offenders = {str(p.relative_to(ROOT)): got for p in actions if (got := _reaches_acceleration(p))}
    assert offenders == {}


def test_the_reference_engine_does_not_import_acceleration_when_it_runs() -> None:
    """Issue 28's direction, engine -> acceleration: no module of framework, plugins or actions imports a
    capacity.accel module when it runs (annotations under TYPE_CHECKING only); the accelerated engine is
    composed on top in capacity.accel and chosen by the scheduler. (The switch, `capacity.accel` itself, is base.)"""
    graph = _graph()
    reference = [m for m in graph if m.split(".")[1:2] in (["framework"], ["plugins"], ["actions"])]
    assert len(reference) > 30
    offenders = sorted(f"{m} imports {t}" for m in reference for t in graph[m] if t.startswith("capacity.accel."))
    assert offenders == []


def test_the_seam_check_sees_an_acceleration_import(tmp_path: Path) -> None:
    fast = tmp_path / "fast.py"
    fast.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from capacity.accel.nodefit import NodeFit\nfrom capacity.core.model import Task\n")
    assert _reaches_acceleration(fast) == ["capacity.accel.nodefit", "capacity.accel.nodefit.NodeFit"]
    plain = tmp_path / "plain.py"
    plain.write_text("from capacity.accel_notes import x\nfrom capacity import core\n")
    assert _reaches_acceleration(plain) == []


def test_the_checks_see_a_circle_and_an_upward_import(tmp_path: Path) -> None:
    """The graph checks themselves: a circle and an upward import, made up, are found."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert _layer("capacity.core.model") < _layer("capacity.framework.session") < _layer("capacity.simulation.sim")
    assert _layer("capacity.plugins.capacity") < _layer("capacity.accel.nodefit") < _layer("capacity.scheduler")
    lazy = tmp_path / "lazy.py"
    lazy.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import capacity.simulation.sim\n"
                    "def f():\n    from capacity.core.model import Job\n")
    assert "capacity.simulation.sim" not in _imported_modules(lazy, runtime_only=True)
    assert "capacity.core.model" in _imported_modules(lazy, runtime_only=True)


REFERENCE_PACKAGES = ("framework", "plugins", "actions")
_CACHE_TEST = re.compile(r"\bcache\s+is\s+(not\s+)?None\b")


def _cache_tests(path: Path) -> list[int]:
    """The lines of a file's code (comments and strings left out) that test whether a cache exists."""
    lines: set[int] = set()
    with path.open("rb") as f:
        tokens = [t for t in tokenize.tokenize(f.readline)
                  if t.type not in (tokenize.COMMENT, tokenize.STRING, tokenize.ENCODING)]
    by_line: dict[int, list[str]] = {}
    for t in tokens:
        by_line.setdefault(t.start[0], []).append(t.string)
    for line, words in by_line.items():
        if _CACHE_TEST.search(" ".join(words)):
            lines.add(line)
    return sorted(lines)


def test_the_reference_engine_never_asks_whether_a_cache_exists() -> None:
    """Issue 28: the rule modules read like Volcano; what an earlier session kept is reached only through the
    session's typed extension points (ssn.reuse: capacity.framework.reuse; ssn.tree_reuse:
    capacity.framework.queue_tree_reuse), whose reference forms keep nothing."""
    found = {str(p.relative_to(ROOT)): _cache_tests(p)
             for pkg in REFERENCE_PACKAGES for p in (ENGINE / pkg).rglob("*.py")}
    assert "capacity/framework/snapshot.py" in found and len(found) >= 20
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_cache_check_sees_a_cache_test(tmp_path: Path) -> None:
    asks = tmp_path / "asks.py"
    asks.write_text("def f(ssn):\n    cache = ssn.cache\n    if cache is not None:\n        pass\n"
                    "    return ssn.cache is None\n")
    assert _cache_tests(asks) == [3, 5]
    quiet = tmp_path / "quiet.py"
    quiet.write_text("def f(self):\n    # (with a cache is None: nothing kept)\n    doc = 'cache is None'\n"
                     "    return self._tier_cache is None or self.cached is not None\n")
    assert _cache_tests(quiet) == []


_ACCEL_ONLY = re.compile(r"\b(mirror_changed|node_fit|predicate_vector|node_scores_vector|victim_possible|"
                         r"_accumulate_exact|_accumulate_carried)\b")


def test_the_reference_engine_calls_no_accelerated_part() -> None:
    """The reference plugins keep only Volcano's own state: the NodeFit's copy of a node's mirror, the vector
    forms and the exact tree sums are kept up by the accelerated classes (capacity.accel.plugins,
    capacity.accel.session), never called from framework, plugins or actions (predicates' event handlers used
    to call `node.fit.mirror_changed`)."""
    found = {}
    for pkg in REFERENCE_PACKAGES:
        for p in (ENGINE / pkg).rglob("*.py"):
            with p.open("rb") as f:
                tokens = list(tokenize.tokenize(f.readline))
            # (calls only: `accel.node_fit` is the switch's field)
            code = [t for t, after in zip(tokens, tokens[1:], strict=False)
                    if t.type == tokenize.NAME and _ACCEL_ONLY.fullmatch(t.string) and after.string == "("]
            if code:
                found[str(p.relative_to(ROOT))] = sorted({t.string for t in code})
    assert found == {}


def _mentions_shortcuts(path: Path) -> list[int]:
    """The lines of a file that mention `shortcuts` (code, comments or strings)."""
    return [n for n, line in enumerate(path.read_text().splitlines(), 1) if "shortcuts" in line]


def test_the_actions_never_mention_shortcuts() -> None:
    """Issue 28: tracing never changes which code an action runs. The jobs an untraced accelerated session may
    leave unasked are its JobLists' business (capacity.framework.extension_points, capacity.accel.job_lists), the
    nodes it may pass over its NodeBound's; the actions read like Volcano's allocate.go and preempt.go."""
    found = {str(p.relative_to(ROOT)): _mentions_shortcuts(p) for p in sorted((ENGINE / "actions").glob("*.py"))}
    assert "capacity/actions/allocate.py" in found and len(found) >= 5
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_shortcuts_check_sees_a_mention(tmp_path: Path) -> None:
    asks = tmp_path / "asks.py"
    asks.write_text("def f(ssn):\n    x = 1\n    if ssn.shortcuts:\n        pass\n    # shortcuts\n")
    assert _mentions_shortcuts(asks) == [3, 5]
