"""Safety (issue 8): safe YAML only, nothing evaluated from input, bounded input, a loopback server."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from capacity.core import limits
from capacity.core.errors import InputError
from capacity.io.k8s import load_cluster

ROOT = Path(__file__).resolve().parents[2]
#: Everything that runs in production: the engine, the dashboard and its pages.
SOURCES = sorted([*ROOT.glob("capacity/**/*.py"), *ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/**/*.py"),
                  ROOT / "app.py"])

UNSAFE = {
    "a YAML loader that can build Python objects": re.compile(
        r"yaml\.(unsafe_load|full_load|load_all|load)\((?![^)]*Loader=(limits\.)?(SAFE_LOADER|yaml\.C?SafeLoader))"
        r"|\b(Full|Unsafe|C?Unsafe)Loader\b|Loader=yaml\.C?Loader\b"),
    "eval/exec of text": re.compile(r"(?<![\w.])(eval|exec)\("),
    "pickle/marshal/shelve (code execution on load)": re.compile(r"^\s*(import|from)\s+(pickle|marshal|shelve|dill)\b",
                                                                 re.M),
    "a shell command built from input": re.compile(r"shell\s*=\s*True|os\.system\(|os\.popen\("),
}


def test_sources_found() -> None:
    assert len(SOURCES) > 20 and all(p.exists() for p in SOURCES)


@pytest.mark.parametrize("what", sorted(UNSAFE))
def test_no_unsafe_construct_in_the_code(what: str) -> None:
    pattern = UNSAFE[what]
    hits = [f"{p.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}: {m.group(0)}"
            for p in SOURCES for text in [p.read_text(encoding="utf-8")] for m in pattern.finditer(text)]
    assert not hits, f"{what}:\n" + "\n".join(hits)


def test_the_yaml_loader_is_safe() -> None:
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    assert issubclass(limits.SAFE_LOADER, base), "keep libyaml's C loader (resolving scalars as Kubernetes does)"
    assert set(limits.SAFE_LOADER.yaml_constructors) == set(yaml.SafeLoader.yaml_constructors), "no tag added"


@pytest.mark.parametrize("tag", ["!!python/object/apply:os.system ['true']", "!!python/name:os.system",
                                 "!!python/object/new:subprocess.Popen [['true']]", "!!binary aGVsbG8=",
                                 "!!set {a, b}", "!!omap [a: 1]"])
def test_tags_that_build_objects_are_refused_or_plain(tag: str) -> None:
    """Python tags never construct anything; YAML's own types (binary, set, omap) are only data and
    land in fields that refuse them."""
    with pytest.raises(InputError) as info:
        load_cluster(f"kind: Node\nmetadata: {{name: n}}\nstatus: {tag}\n")
    assert info.value.obj


def test_conf_yaml_goes_through_the_same_guard() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True))
    with pytest.raises(InputError, match="anchor bomb") as info:
        load_cluster("kind: Node\nmetadata: {name: n}\n", conf_text=bomb)
    assert info.value.obj == "volcano-scheduler.conf"


def test_dashboard_listens_on_loopback_and_limits_uploads() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    server = config["server"]
    assert server["address"] in ("127.0.0.1", "localhost"), "the dashboard must listen on loopback by default"
    assert server["maxUploadSize"] == limits.DEFAULT_MAX_INPUT_MB, "upload limit and engine limit must agree"
    assert server.get("enableXsrfProtection", True) is True
    assert server.get("enableCORS", True) is True
    assert config["browser"]["gatherUsageStats"] is False
    # ./run passes the same loopback address, before the user's own arguments (which may override it).
    run = (ROOT / "run").read_text(encoding="utf-8")
    assert re.search(r"--server\.address 127\.0\.0\.1 .*\"\$@\"", run, re.S)


def test_the_engine_never_imports_streamlit() -> None:
    for p in ROOT.glob("capacity/**/*.py"):
        assert not re.search(r"^\s*(import|from)\s+streamlit\b", p.read_text(encoding="utf-8"), re.M), p


@pytest.mark.parametrize(("what", "snippet"), [
    ("a YAML loader that can build Python objects", "data = yaml.load(text)"),
    ("a YAML loader that can build Python objects", "yaml.load_all(t, Loader=yaml.Loader)"),
    ("a YAML loader that can build Python objects", "yaml.unsafe_load(t)"),
    ("a YAML loader that can build Python objects", "yaml.full_load(t)"),
    ("eval/exec of text", "x = eval(expr)"),
    ("pickle/marshal/shelve (code execution on load)", "import pickle"),
    ("a shell command built from input", "subprocess.run(cmd, shell=True)"),
])
def test_the_scan_would_catch(what: str, snippet: str) -> None:
    assert UNSAFE[what].search(snippet)


@pytest.mark.parametrize("snippet", ["yaml.load_all(text, Loader=SAFE_LOADER)", "yaml.safe_load(text)",
                                     "yaml.load(t, Loader=yaml.CSafeLoader)", "self.evaluate(x)", "ast.literal_eval"])
def test_the_scan_lets_safe_code_be(snippet: str) -> None:
    assert not any(p.search(snippet) for p in UNSAFE.values())
