"""The single-pass YAML reader (`limits.read_yaml_all`: the structure guard works during the one libyaml
parse) refuses every hostile input the two-pass reader it replaced refused, with the same message, and
builds the same data from everything else.

`_two_pass` below is the replaced reader, kept here as the reference: the structure check over PyYAML's
event stream (a first parse), then PyYAML's safe loader (a second parse)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from capacity.core import limits
from capacity.core.errors import InputError

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
HOSTILE = sorted([*(HERE / "corpus").glob("*.yaml"), *(HERE / "corpus_round2").rglob("*.yaml")])
EVERY_YAML = sorted(p for d in ("tests", "fixtures") for p in (ROOT / d).rglob("*.yaml"))


def _old_check(text: str, source: str, max_depth: int = limits.MAX_DEPTH,
                         max_expansion: int = limits.MAX_ALIAS_EXPANSION) -> None:
    """Walk PyYAML's event stream (iterative, no objects built) and refuse bombs before loading.

    Counts, for every anchored collection, how many nodes it stands for once aliases are expanded;
    an alias to a collection still open (recursive data) has no finite size and is refused.
    """
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  # [anchor, node count, keys seen or None, expecting a key]
    expansion = 0
    events = 0
    try:
        for ev in yaml.parse(text, Loader=limits.SAFE_LOADER):
            events += 1
            cls = type(ev)
            if cls is ScalarEvent or cls is AliasEvent:
                if cls is AliasEvent:
                    size = sizes.get(ev.anchor)
                    if size is None:
                        if any(frame[0] == ev.anchor for frame in stack):
                            raise InputError(source, limits._where(ev.start_mark), f"alias *{ev.anchor} refers to a "
                                             "collection that contains it (recursive YAML data); refused")
                        continue  # undefined alias: the loader reports it
                    expansion += size
                    if expansion > max_expansion + 10 * events:
                        raise InputError(source, limits._where(ev.start_mark), "YAML aliases expand to more than "
                                         f"{max_expansion:,} nodes (an 'anchor bomb'); refused")
                else:
                    size = 1
                    if ev.anchor:
                        sizes[ev.anchor] = 1
                if stack:
                    frame = stack[-1]
                    frame[1] += size
                    if frame[2] is not None:
                        if frame[3] and cls is ScalarEvent:
                            key = ev.value
                            if key in frame[2] and key != "<<":
                                raise InputError(source, limits._where(ev.start_mark), f"mapping key {key!r} appears "
                                                 "more than once in the same mapping (kubectl rejects this; "
                                                 "YAML loaders silently keep the last one)")
                            frame[2].add(key)
                        frame[3] = not frame[3]
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if stack:
                    parent = stack[-1]
                    if parent[2] is not None:
                        parent[3] = not parent[3]
                if len(stack) >= max_depth:
                    raise InputError(source, limits._where(ev.start_mark), f"YAML nested more than {max_depth} levels "
                                     "deep; refused (Kubernetes objects need far fewer)")
                stack.append([ev.anchor, 1, set() if cls is MappingStartEvent else None, True])
                if ev.anchor:
                    sizes.pop(ev.anchor, None)  # a redefined anchor is open again
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                anchor, size, _keys, _expect = stack.pop()
                if anchor:
                    sizes[anchor] = size
                if stack:
                    stack[-1][1] += size
            elif cls is DocumentEndEvent:
                sizes.clear()  # anchors do not cross documents
    except yaml.YAMLError as exc:
        if "maximum nesting depth" in str(getattr(exc, "problem", "")):
            # PyYAML >= 6.0.4 stops at 1,000 levels itself, and its scanner may read that far ahead of
            # the events walked here: the same refusal, where PyYAML stopped.
            mark = getattr(exc, "problem_mark", None)
            raise InputError(source, limits._where(mark), f"YAML nested more than {max_depth} levels deep; refused "
                             "(Kubernetes objects need far fewer)") from None
        raise limits.yaml_error(exc, source, text) from None




def _two_pass(text: str, source: str, max_expansion: int = limits.MAX_ALIAS_EXPANSION) -> list[Any]:
    _old_check(text, source, max_expansion=max_expansion)
    try:
        return list(yaml.load_all(text, Loader=limits.SAFE_LOADER))
    except yaml.YAMLError as exc:
        raise limits.yaml_error(exc, source, text) from None


def _outcome(read: Any, text: str, source: str = "in.yaml", **kw: Any) -> tuple[str, Any]:
    try:
        return "data", read(text, source, **kw)
    except InputError as exc:
        return "refused", str(exc)


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down, keys in the same order (1 is not True; NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(x, y) for x, y in zip(a.values(), b.values(), strict=True))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _alike(text: str, **kw: Any) -> None:
    new, old = _outcome(limits.read_yaml_all, text, **kw), _outcome(_two_pass, text, **kw)
    assert new[0] == old[0], (new, old)
    if new[0] == "refused":
        assert new[1] == old[1]
    else:
        assert _same(new[1], old[1]), (new, old)


def test_the_hostile_corpus_is_found() -> None:
    assert len(HOSTILE) > 100


@pytest.mark.parametrize("path", HOSTILE, ids=lambda p: p.name)
def test_every_corpus_input_reads_or_is_refused_as_before(path: Path) -> None:
    _alike(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["anchor-bomb-lists.yaml", "anchor-bomb-merge.yaml", "anchor-recursive.yaml",
                                  "deep-nesting.yaml", "duplicate-key.yaml", "python-object-tag.yaml",
                                  "custom-tag.yaml", "malformed-unclosed-flow.yaml"])
def test_hostile_inputs_are_refused_in_the_one_pass(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No second parse: PyYAML's loader is never called for them."""
    def no_second_parse(*a: Any, **k: Any) -> Any:
        raise AssertionError("a second parse")
    monkeypatch.setattr(yaml, "load_all", no_second_parse)
    monkeypatch.setattr(yaml, "parse", no_second_parse)
    with pytest.raises(InputError):
        limits.read_yaml_all((HERE / "corpus" / name).read_text(encoding="utf-8"), "in.yaml")


def test_every_yaml_file_of_the_repository_reads_as_before() -> None:
    for path in EVERY_YAML:
        _alike(path.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n",
    "a: &x [1, {b: 2}]\nb: *x\nc: [*x, *x]\n",
    "a: !!str 1\nb: !!int '7'\nc: !!float '1'\nd: !!bool 'yes'\ne: !!null ''\nf: ! 12\n",
    "a: !!binary aGVsbG8=\n",
    "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n",
    "a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc: {<<: [*a, *b], z: 3}\n",
    "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b, <<: {w: 0}, x: 9}\n",
    "c: {<<: {x: 1}, '<<': quoted}\n",
    "c: {!!merge <<: {x: 1}}\n",
    "a: {=: 1}\n",
    "? [a, b]\n: c\n",
    "a: !!set {x, y}\n",
    "a: !!omap [x: 1]\n",
    "a: {<<: 1}\n",
    "a: {<<: [1]}\n",
    "a: *nope\n",
    "a: &x 1\nb: &x 2\n",
    "a: &x [1]\n? *x\n: 2\n",
    "k: &k key\n*k : v\n",
    "a: =\n",
    "a: <<\n",
    "a: !Ref x\nb: [1, 2\n",
    "a: !Ref x\nb: !Other y\n",
    "a: !Ref {x: 1}\n",
    "a: {<<: !Ref q}\n",
    "a: {<<: !Ref {x: 1}}\n",
    "a: {<<: [!Ref {x: 1}]}\n",
    "a: {<<: {x: !Ref q}}\n",
    "a: {k: [!Ref q], l: !Other x}\n",
    "a: {k: !Ref [!Other q]}\n",
    "&a [&a 1]\n---\n!Ref q\n",
    "--- &a [1]\n--- *a\n",
    "a: &x 1\n---\nb: *x\n",
    "a: &x {b: *x}\n",
])
def test_anchors_tags_merges_and_their_errors_read_as_before(text: str) -> None:
    _alike(text)


def test_a_merge_keeps_the_order_pyyaml_gives() -> None:
    text = "a: &a {p: 1, q: 2}\nb: {z: 0, <<: *a, q: 5}\n"
    assert list(limits.read_yaml_all(text)[0]["b"]) == ["p", "q", "z"]
    _alike(text)


def test_a_date_python_refuses_is_one_message_not_a_traceback() -> None:
    with pytest.raises(InputError, match=r"in.yaml: line 1, column 4: malformed YAML: invalid timestamp "
                       r"'2001-13-45' \(month must be in 1..12\)"):
        limits.read_yaml_all("a: 2001-13-45\n", "in.yaml")


def test_the_expansion_allowance_grows_with_the_file_as_before() -> None:
    items = ["- {kind: Node, metadata: {name: n}, status: {allocatable: &alloc {cpu: '64', memory: 256Gi}}}"]
    items += [f"- {{kind: Node, metadata: {{name: n{i}}}, status: {{allocatable: *alloc}}}}" for i in range(2000)]
    text = "kind: List\nitems:\n" + "\n".join(items)
    _alike(text, max_expansion=1000)
    bomb = (HERE / "corpus" / "anchor-bomb-lists.yaml").read_text(encoding="utf-8")
    _alike(bomb, max_expansion=1000)
    _alike(bomb, max_expansion=100)


_name = st.sampled_from(["a", "b", "c"])
_scalar = st.sampled_from(["1", "x", "'<<'", "yes", "~", "=", "2024-01-01", "!!str 5", "!Ref q", "*a", "*b"])


@st.composite
def _anchored_yaml(draw: st.DrawFn, depth: int = 0) -> str:
    """Flow YAML with anchors, aliases, merges and tags in random places (often invalid: both readers must
    then give the same refusal)."""
    kind = draw(st.sampled_from(["scalar", "map", "seq"] if depth < 3 else ["scalar"]))
    anchor = f"&{draw(_name)} " if draw(st.booleans()) else ""
    if kind == "scalar":
        value = draw(_scalar)
        return value if value.startswith("*") else anchor + value
    if kind == "seq":
        return anchor + "[" + ", ".join(draw(st.lists(_anchored_yaml(depth + 1), max_size=3))) + "]"
    keys = draw(st.lists(st.sampled_from(["k", "l", "<<", "m"]), max_size=3))
    pairs = [f"{k}: {draw(_anchored_yaml(depth + 1))}" for k in keys]
    return anchor + "{" + ", ".join(pairs) + "}"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(_anchored_yaml(), min_size=1, max_size=3))
def test_random_anchored_documents_read_as_before(docs: list[str]) -> None:
    _alike("\n---\n".join(docs) + "\n", max_expansion=50)
