"""The one-pass reader (`limits._one_pass`) builds exactly what PyYAML's safe loader builds (plain
text, anchors, tags, merges), and returns None for what it refuses (repeated keys, deep nesting, unknown
tags, errors) or leaves to PyYAML (a collection as a key); tests/robustness/test_single_pass.py compares
the refusals with the two-pass reader it replaced."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capacity.core import limits
from capacity.core.errors import InputError
from tests.builders import conf, node, pod, podgroup, queue
from tests.robustness.test_single_pass import _same  # values of equal types all the way down

ROOT = Path(__file__).resolve().parents[2]
YAML_FILES = sorted(p for d in ("tests", "fixtures") for p in (ROOT / d).rglob("*.yaml"))


def plain_load_all(text: str, max_depth: int = limits.MAX_DEPTH) -> list[Any] | None:
    """What the one pass builds by itself, or None when it refuses the text or leaves it to PyYAML."""
    try:
        return limits._one_pass(text, "input", max_depth, limits.MAX_ALIAS_EXPANSION, build=True)
    except InputError:
        return None


def _reference(text: str) -> list[Any]:
    return list(yaml.load_all(text, Loader=limits.SAFE_LOADER))


SCALARS = """\
s: plain
q1: 'single'
q2: "double \\u00e9"
ints: [0, -1, +7, 1_000, 0x1F, 0o17, 017, 0b101, '12', 190:20:30]
floats: [1.5, -0.0, 1e3, 1.0e+3, .inf, -.Inf, .NaN, 6.8523015e+5, 190:20:30.15]
bools: [true, False, yes, No, on, OFF, y, n]
nulls: [~, null, Null, '', ]
empty:
dates: [2024-01-01, 2024-01-01T10:20:30Z, 2001-12-14 21:59:43.10 -5, 2024-1-1]
block: |
  line one
  line two
folded: >-
  folded
  text
1: int key
true: bool key
null: null key
2024-01-01: date key
flow: {a: 1, b: [x, {c: d}], "e f": g}
nested:
- - - deep
  - [1, 2]
- {}
- []
"""

MULTI = "---\na: 1\n---\n---\n- x\n...\n--- plain scalar\n--- 12\n"


@pytest.mark.parametrize("text", [SCALARS, MULTI, "", "# only a comment\n", "---\n", "x\n", "[]", "{}",
                                  "key: value # comment\n", "? simple key\n: v\n", "'<<': quoted merge\n",
                                  "a: '='\n", "k8s: {cpu: 500m, memory: 1Gi, nvidia.com/gpu: '1'}\n"])
def test_plain_text_reads_like_the_safe_loader(text: str) -> None:
    got = plain_load_all(text)
    assert got is not None, "plain text should take the one-pass reader"
    assert _same(got, _reference(text))


def test_every_yaml_file_of_the_repository_reads_alike() -> None:
    plain = 0
    for path in YAML_FILES:
        text = path.read_text(encoding="utf-8", errors="replace")
        got = plain_load_all(text)
        if got is None:
            continue
        plain += 1
        assert _same(got, _reference(text)), path
    assert plain > 50


def test_a_kubernetes_dump_reads_alike() -> None:
    objs = [conf("enqueue, allocate", [{"name": "gang"}]), queue("team-a", deserved={"cpu": "4"}),
            node("n1", gpu="2", labels={"zone": "a"}), podgroup("job-a", "team-a", min_resources={"cpu": "1"}),
            pod("job-a-0", "job-a", {"cpu": "1", "memory": "1Gi"}, node_name="n1")]
    objs = copy.deepcopy(objs)  # no shared objects: the dump would anchor them
    objs[2]["status"]["capacity"] = dict(objs[2]["status"]["capacity"])
    for flow in (False, True, None):
        text = yaml.safe_dump_all(objs, default_flow_style=flow, sort_keys=False)
        got = plain_load_all(text)
        assert got is not None
        assert _same(got, _reference(text))
        assert _same(got, objs)


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n",                       # anchor and alias
    "a: !!str 1\n",                            # explicit tag
    "a: ! x\n",                                # non-specific tag
    "base: {x: 1}\nc:\n  <<: {y: 2}\n",        # merge key
])
def test_anchors_tags_and_merges_are_built_in_the_same_pass(text: str) -> None:
    got = plain_load_all(text)
    assert got is not None
    assert _same(got, _reference(text))


@pytest.mark.parametrize("text", [
    "a: !custom x\n",                          # local tag
    "a: !!python/name:os.system\n",            # Python tag
    "a: 1\na: 2\n",                            # repeated key
    "? [a, b]\n: c\n",                         # a collection as key
    "a: =\n",                                  # the value tag
    "a: [1, 2\n",                              # syntax error
    "a:\n\tb: 1\n",                            # tab indentation
    "[" * 150 + "]" * 150,                     # deeper than MAX_DEPTH
    "a: 2001-13-45\n",                         # a timestamp the constructor refuses
])
def test_anything_else_is_refused_or_left_to_pyyaml(text: str) -> None:
    assert plain_load_all(text) is None


def test_the_depth_limit_is_the_structure_checks() -> None:
    ok = "[" * limits.MAX_DEPTH + "]" * limits.MAX_DEPTH
    assert plain_load_all(ok) == _reference(ok)
    too_deep = "[" * (limits.MAX_DEPTH + 1) + "]" * (limits.MAX_DEPTH + 1)
    assert plain_load_all(too_deep) is None
    with pytest.raises(InputError, match="nested more than 100 levels"):
        limits.safe_load_all(too_deep)


def test_refusals_are_unchanged() -> None:
    with pytest.raises(InputError, match="appears more than once"):
        limits.safe_load_all("a: 1\nb: 2\na: 3\n")
    with pytest.raises(InputError, match="malformed YAML"):
        limits.safe_load_all("a: [1, 2\n")
    with pytest.raises(InputError, match="is not allowed"):
        limits.safe_load_all("a: !!python/object/apply:os.system ['true']\n")
    assert limits.safe_load_all("a: &x [1]\nb: *x\n") == [{"a": [1], "b": [1]}]


_key = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.booleans())
_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12),
                  st.sampled_from(["yes", "no", "on", "~", "0x1f", "1_0", "1e3", ".inf", "2024-01-01", "12:30",
                                   "500m", "4Gi", "", " ", "- x", "a: b", "#c", "'", '"', "<<", "="]))
_data = st.recursive(_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                    st.dictionaries(_key, inner, max_size=4)), max_leaves=25)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(_data, min_size=1, max_size=3), flow=st.sampled_from([False, True, None]),
       unicode=st.booleans())
def test_random_documents_read_alike(docs: list[Any], flow: bool | None, unicode: bool) -> None:
    text = yaml.safe_dump_all(docs, default_flow_style=flow, allow_unicode=unicode)
    got = plain_load_all(text)
    if got is not None:
        assert _same(got, _reference(text))
